/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/plugin.c - a dlopen'd plugin: defines plugin_key and holds
 * sites of every key (the program's, libsko_a's and its own).
 */
#include "keys.h"

SK_DEFINE_KEY_FALSE(plugin_key);

__attribute__((noinline)) unsigned sko_plugin_probe(int id)
{
	switch (id) {
	case SKO_EXE_FALSE:
		return SKO_SITES(exe_key_false);
	case SKO_EXE_TRUE:
		return SKO_SITES(exe_key_true);
	case SKO_LIB_FALSE:
		return SKO_SITES(lib_key_false);
	case SKO_LIB_TRUE:
		return SKO_SITES(lib_key_true);
	case SKO_PLUGIN:
		return SKO_SITES(plugin_key);
	default:
		return PROBE_NONE;
	}
}
