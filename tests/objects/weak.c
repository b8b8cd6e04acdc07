/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/weak.c - a plugin with sites of a weak key that no object
 * defines: its GOT slot stays null, the runtime ignores those sites (with a
 * warning) and they keep their compiled direction; the plugin's other sites
 * work as usual.
 */
#include "keys.h"

extern struct sk_key_false sko_missing_key __attribute__((weak));

__attribute__((noinline)) unsigned sko_plugin_probe(int id)
{
	switch (id) {
	case SKO_EXE_FALSE:
		return SKO_SITES(exe_key_false);
	case SKO_PLUGIN:
		return SKO_SITES(sko_missing_key);
	default:
		return PROBE_NONE;
	}
}
