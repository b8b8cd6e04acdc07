/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/exe_keys.c - the program's keys and its own sites.
 *
 * Linked into every test program of this directory, so the shared objects
 * always find exe_key_false / exe_key_true in the executable.
 */
#include "keys.h"

SK_DEFINE_KEY_FALSE(exe_key_false);
SK_DEFINE_KEY_TRUE(exe_key_true);

static const char *const names[SKO_NKEYS] = {
	"exe_key_false", "exe_key_true", "lib_key_false", "lib_key_true",
	"plugin_key",
};

const char *sko_key_name(int id)
{
	return id >= 0 && id < SKO_NKEYS ? names[id] : "?";
}

/* Executable key x executable sites, library key x executable sites. */
__attribute__((noinline)) unsigned sko_exe_probe(int id)
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
	default:
		return PROBE_NONE;
	}
}
