/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#include "comdat_inline.h"

bool comdat_site_from_other_file()
{
	return comdat_site();
}
