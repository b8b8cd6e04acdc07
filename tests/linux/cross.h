/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * cross.h - kernel-style keys that live in a shared library and have sites
 * in it, in the program and in a dlopen'd plugin (cross_*.c).
 */
#ifndef SK_TESTS_LINUX_CROSS_H
#define SK_TESTS_LINUX_CROSS_H

#include <statickeys/linux.h>

struct tracepoint {
	const char *name;
	struct static_key key;
};

/* Defined in the library. */
extern struct tracepoint __tracepoint_lib_event; /* STATIC_KEY_INIT_FALSE */
extern struct static_key lib_zeroed;             /* zeroed, no site in the library */
DECLARE_STATIC_KEY_TRUE(lib_feature);

/* Each object's sites, in the order of enum cross_key. */
enum cross_key { CROSS_EVENT, CROSS_ZEROED, CROSS_FEATURE, CROSS_NKEYS };
typedef bool (*cross_site_fn)(enum cross_key);

bool cross_lib_site(enum cross_key k); /* no site for lib_zeroed */
bool cross_main_site(enum cross_key k);
/* The plugin exports cross_plugin_site, same type. */

#endif
