/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * C sites inside the Rust plugin: the plugin object then has two
 * registration constructors (the C header's and the Rust crate's) over one
 * table, and two destructors; the runtime must count it once and drop it
 * when the last goes, before dlclose() unmaps it.
 */
#include <statickeys.h>

SK_DECLARE_KEY_FALSE(PLUGIN_KEY); /* defined in Rust (#[no_mangle]) */

/* Bits 16 and 32: unlikely / likely site of PLUGIN_KEY, in C. */
int plugin_c_sites(void)
{
	return (sk_branch_unlikely(&PLUGIN_KEY) ? 16 : 0) |
	       (sk_branch_likely(&PLUGIN_KEY) ? 32 : 0);
}
