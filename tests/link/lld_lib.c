/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A shared library with its own key and sites, linked by lld with
 * --gc-sections like the program that loads it (see lld_gc.c). */
#include <statickeys.h>

SK_DEFINE_KEY_FALSE(lld_lib_key);

__attribute__((noinline)) int lld_lib_site(void)
{
	return sk_branch_unlikely(&lld_lib_key) ? 1 : 0;
}

int lld_lib_flip(int on)
{
	return on ? sk_key_enable(&lld_lib_key) : sk_key_disable(&lld_lib_key);
}
