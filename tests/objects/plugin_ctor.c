/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/plugin_ctor.c - a plugin constructor that runs sites.
 *
 * This file does not include <statickeys.h> and is linked before plugin.c,
 * so its constructor is not preceded by a registration constructor of its
 * own translation unit: the plugin's sites must nevertheless already show
 * the keys' current states when it runs.
 */
#include "objects.h"

unsigned sko_plugin_probe(int id);

unsigned sko_plugin_ctor_seen[SKO_NKEYS];

__attribute__((constructor)) static void probe_from_constructor(void)
{
	for (int id = 0; id < SKO_NKEYS; id++)
		sko_plugin_ctor_seen[id] = sko_plugin_probe(id);
}
