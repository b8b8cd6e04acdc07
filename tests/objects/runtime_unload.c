/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/runtime_unload.c - a program that knows nothing of
 * statickeys loads a plugin that does, lets it flip a key, and unloads it.
 *
 * The runtime came in with the plugin (as its dependency, or linked into
 * it from the static library) and installed a SIGTRAP handler (and fork
 * handlers); the object holding it (SKO_STAYS) must stay loaded after the
 * plugin is closed, or the next SIGTRAP would jump into unmapped memory.
 * The program's own SIGTRAP handler, installed first, must still receive
 * its breakpoints.
 */
#include <dlfcn.h>
#include <signal.h>

#include "../check.h"

static volatile sig_atomic_t own_traps;

static void own_trap_handler(int sig)
{
	(void)sig;
	own_traps++;
}

int main(void)
{
	signal(SIGTRAP, own_trap_handler);
	void *h = dlopen(SKO_STANDALONE, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL, "dlopen: %s", h ? "" : dlerror());
	if (!h)
		return check_summary();
	int (*flip)(void) = (int (*)(void))dlsym(h, "sko_standalone_flip");
	CHECK(flip && flip() == 0, "the plugin flipped its key");
	CHECK(dlclose(h) == 0, "dlclose");
	void *rt = dlopen(SKO_STAYS, RTLD_LAZY | RTLD_NOLOAD);
	CHECK(rt != NULL, "the runtime's object stays loaded after its last "
			  "user left");
	if (rt)
		dlclose(rt);
	__asm__ __volatile__("int3");
	CHECK(own_traps == 1, "the program's own breakpoint reached its handler");
	return check_summary();
}
