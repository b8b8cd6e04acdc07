/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/user.c - a plugin that holds sites of plugin_key but does
 * not define it: the dynamic linker binds it to the plugin_key of an
 * already loaded RTLD_GLOBAL plugin (or of a plugin it is linked with).
 */
#include "keys.h"

__attribute__((noinline)) unsigned sko_plugin_probe(int id)
{
	return id == SKO_PLUGIN ? SKO_SITES(plugin_key) : PROBE_NONE;
}
