/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * names_plugin.c - a dlopen'd plugin: its own key, and a key whose
 * identifier the program also uses (static in both, so they are two keys).
 */
#include <statickeys.h>

SK_DEFINE_KEY_FALSE_DESC(plugin_key, "a key of the plugin");
static SK_DEFINE_KEY_TRUE(dup_name);

__attribute__((noinline)) bool plugin_site(void)
{
	return sk_branch_unlikely(&plugin_key) ? true : false;
}

__attribute__((noinline)) bool plugin_dup_site(void)
{
	return sk_branch_likely(&dup_name) ? true : false;
}

struct sk_key *plugin_dup_key(void)
{
	return &dup_name.key;
}
