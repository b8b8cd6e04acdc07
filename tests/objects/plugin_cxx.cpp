/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/plugin_cxx.cpp - a C++ plugin whose static initialiser
 * (an ordinary constructor, run by dlopen) executes sites: it must see the
 * keys' current states, not their compiled ones.
 */
#include "keys.h"

extern "C" {

unsigned sko_plugin_ctor_seen[SKO_NKEYS];

__attribute__((noinline)) unsigned sko_plugin_probe(int id)
{
	switch (id) {
	case SKO_EXE_FALSE:
		return SKO_SITES(exe_key_false);
	case SKO_EXE_TRUE:
		return SKO_SITES(exe_key_true);
	default:
		return PROBE_NONE;
	}
}

} // extern "C"

namespace {

struct probe_at_load {
	probe_at_load()
	{
		sko_plugin_ctor_seen[SKO_EXE_FALSE] = SKO_SITES(exe_key_false);
		sko_plugin_ctor_seen[SKO_EXE_TRUE] = SKO_SITES(exe_key_true);
	}
};

probe_at_load at_load;

} // namespace
