/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A plugin with its own key and sites, for thread_models.c's dlopen case:
 * loaded after the threads that run its sites blocked every signal. */
#include <statickeys.h>

#include "../repeat.h"

SK_DEFINE_KEY_FALSE(plugin_key);

int plugin_sites_on(void);

__attribute__((noinline)) int plugin_sites_on(void)
{
	int n = 0;
	REP16(if (sk_branch_unlikely(&plugin_key)) n++;
	      if (sk_branch_likely(&plugin_key)) n++;)
	return n;
}
