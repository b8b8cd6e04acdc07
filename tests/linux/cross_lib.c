/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* cross_lib.c - the library that defines the keys, with its own sites. */
#include "cross.h"

struct tracepoint __tracepoint_lib_event = { "lib_event", STATIC_KEY_INIT_FALSE };
struct static_key lib_zeroed;
DEFINE_STATIC_KEY_TRUE(lib_feature);

__attribute__((noinline)) bool cross_lib_site(enum cross_key k)
{
	switch (k) {
	case CROSS_EVENT:
		return static_key_false(&__tracepoint_lib_event.key);
	case CROSS_FEATURE:
		return static_branch_likely(&lib_feature);
	default:
		return static_key_enabled(&lib_zeroed); /* no site here */
	}
}
