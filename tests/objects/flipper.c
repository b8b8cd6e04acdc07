/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/flipper.c - a plugin whose constructor turns exe_key_false
 * on and whose destructor turns it off again: key updates from inside
 * dlopen() and dlclose(), while the dynamic linker holds its lock, including
 * updates of the plugin's own sites.
 */
#include <stdio.h>
#include <string.h>

#include "keys.h"

int sko_flipper_ctor_result = 1;

__attribute__((noinline)) unsigned sko_plugin_probe(int id)
{
	return id == SKO_EXE_FALSE ? SKO_SITES(exe_key_false) : PROBE_NONE;
}

__attribute__((constructor)) static void turn_on(void)
{
	sko_flipper_ctor_result = sk_key_enable(&exe_key_false);
}

__attribute__((destructor)) static void turn_off(void)
{
	int r = sk_key_disable(&exe_key_false);

	if (r)
		fprintf(stderr, "flipper: disabling exe_key_false from a "
				"destructor returned %s\n", strerror(-r));
}
