/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* cross_plugin.c - a plugin with sites on the library's keys. */
#include "cross_site.h"

__attribute__((noinline)) bool cross_plugin_site(enum cross_key k)
{
	return cross_site(k);
}
