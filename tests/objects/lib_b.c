/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/lib_b.c - libsko_b.so: a library without keys of its own,
 * holding sites of the program's keys and of libsko_a's keys.
 */
#include "keys.h"

/* Library key x other library sites, executable key x library sites. */
__attribute__((noinline)) unsigned sko_lib_b_probe(int id)
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
