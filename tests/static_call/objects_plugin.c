/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* objects_plugin.c - a plugin that holds a target.  Built twice: with
 * statickeys.h (it registers, so its unloading points static calls that
 * target it back at their defined targets) and without (SC_PLAIN: it does
 * not register, so an update that targets it pins it). */
#ifndef SC_PLAIN
#include <statickeys.h>
#endif

int plugin_op(int x);
int plugin_op(int x)
{
	return 500 + x;
}
