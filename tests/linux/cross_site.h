/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* cross_site.h - the same sites, compiled into the program and the plugin. */
#include "cross.h"

static bool cross_site(enum cross_key k)
{
	switch (k) {
	case CROSS_EVENT:
		return static_key_false(&__tracepoint_lib_event.key);
	case CROSS_ZEROED:
		return static_key_true(&lib_zeroed);
	default:
		return static_branch_unlikely(&lib_feature);
	}
}
