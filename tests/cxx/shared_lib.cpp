/* SPDX-License-Identifier: MIT OR Apache-2.0 */
// shared_lib.cpp - a shared library the test program links, with its own
// sites on the header-only key (and its own copy of the inline function and
// templates).  Built again as a plugin the program loads with dlopen().
#include "keys.hpp"

__attribute__((noinline)) static bool lib_unlikely()
{
	return statickeys::unlikely<app::tracing>();
}

__attribute__((noinline)) static bool lib_likely()
{
	return statickeys::likely<app::tracing>();
}

#ifndef SK_OBJECT_NAME
#define SK_OBJECT_NAME "shared library"
#define SK_ENTRY shared_lib_sites
#else
#define SK_ENTRY plugin_sites
#endif

extern "C" tracing_sites SK_ENTRY()
{
	return { SK_OBJECT_NAME, &app::tracing, lib_unlikely, lib_likely,
		 inline_tracing_site };
}
