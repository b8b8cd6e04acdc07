/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * plugin.c - a DLL with keys and sites of its own, loaded and unloaded by
 * dll.c with LoadLibrary/FreeLibrary: its constructor registers its keys
 * (statickeys/object.h, section_pe.h), its destructor unregisters them.
 */
#include <statickeys.h>

SK_DEFINE_KEY_FALSE_DESC(plugin_key, "a key of the DLL");
SK_DEFINE_KEY_TRUE(plugin_true_key);

__declspec(dllexport) __attribute__((noinline)) int plugin_sites(void)
{
	int n = 0;

	if (sk_branch_unlikely(&plugin_key))
		n |= 1;
	if (sk_branch_likely(&plugin_true_key))
		n |= 2;
	return n;
}

__declspec(dllexport) struct sk_key *plugin_key_address(void)
{
	return &plugin_key.key;
}
