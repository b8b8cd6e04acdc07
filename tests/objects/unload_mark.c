/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/unload_mark.c - a plugin with sites of exe_key_false whose
 * ordinary destructor tells the program that dlclose() has started running
 * destructors (the registration destructor runs after it).
 */
#include "keys.h"

extern int sko_unload_started __attribute__((weak));

__attribute__((noinline)) unsigned sko_plugin_probe(int id)
{
	return id == SKO_EXE_FALSE ? SKO_SITES(exe_key_false) : PROBE_NONE;
}

__attribute__((destructor)) static void mark_unload(void)
{
	if (&sko_unload_started)
		__atomic_store_n(&sko_unload_started, 1, __ATOMIC_SEQ_CST);
}
