/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* tests/dyndbg/plugin.c - a dlopen'ed object with one debug statement
 * (module libdyndbg_plugin). */
#include <statickeys.h>

void dd_plugin_say(int v);
void dd_plugin_say(int v)
{
	sk_pr_debug("plugin says %d\n", v);
}
