/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The plugin of late_runtime.c: it links statickeys, its program does not. */
#include <statickeys.h>

SK_DEFINE_KEY_FALSE(late_key);

int late_plugin_enable(void);
int late_plugin_site_on(void);

int late_plugin_enable(void)
{
	return sk_key_enable(&late_key);
}

__attribute__((noinline)) int late_plugin_site_on(void)
{
	return sk_branch_unlikely(&late_key) ? 1 : 0;
}
