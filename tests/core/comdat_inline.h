/* SPDX-License-Identifier: MIT OR Apache-2.0 */
// comdat_inline.h - a site in an inline function, emitted in two files.
#include <statickeys.h>

SK_DECLARE_KEY_FALSE(comdat_key);

inline bool comdat_site()
{
	return sk_branch_unlikely(&comdat_key);
}

bool comdat_site_from_other_file();
