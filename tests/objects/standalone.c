/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/standalone.c - a plugin that brings statickeys into a
 * program that does not use it: its own key, its own sites, and a call that
 * flips the key (so the runtime installs its SIGTRAP handler).
 */
#include <statickeys.h>

SK_DEFINE_KEY_FALSE(standalone_key);

__attribute__((noinline)) int sko_standalone_site(void)
{
	return sk_branch_unlikely(&standalone_key) ? 1 : 0;
}

/* Enable then disable the key; 0 if both worked and the site followed. */
int sko_standalone_flip(void)
{
	int r = sk_key_enable(&standalone_key);
	int on = sko_standalone_site();
	int r2 = sk_key_disable(&standalone_key);

	return r || r2 || !on || sko_standalone_site() ? -1 : 0;
}
