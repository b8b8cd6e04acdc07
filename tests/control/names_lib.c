/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* names_lib.c - a linked library whose key also has sites in the program. */
#include <statickeys.h>

SK_DEFINE_KEY_FALSE_DESC(lib_key, "a key of the library");

__attribute__((noinline)) bool lib_site(void)
{
	return sk_branch_unlikely(&lib_key) ? true : false;
}
