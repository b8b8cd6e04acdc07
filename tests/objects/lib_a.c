/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/lib_a.c - libsko_a.so: a library that defines keys and
 * holds sites of its own keys and of the program's keys.
 */
#include "keys.h"

SK_DEFINE_KEY_FALSE(lib_key_false);
SK_DEFINE_KEY_TRUE(lib_key_true);

/* Executable key x library sites, library key x its own sites. */
__attribute__((noinline)) unsigned sko_lib_a_probe(int id)
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
