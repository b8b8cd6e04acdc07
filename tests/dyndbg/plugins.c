/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/dyndbg/plugins.c - a dlopen'ed object's statements appear in the
 * catalogue with their module (libdyndbg_plugin) when it loads, are
 * switched by module, print, and disappear when it is dlclose'd (a query
 * then matches nothing); loaded again, its statement starts off.  Where
 * dlclose() leaves the object loaded (musl's unloads nothing), its
 * statement must stay listed instead, as long as the object stays.
 */
#include <dlfcn.h>
#include <statickeys.h>

#include "../check.h"
#include "capture.h"
#include "catalogue.h"

static void own(void) { sk_pr_debug("the program's own\n"); }

static bool listed(void)
{
	char *t = catalogue_text();
	bool r = t && strstr(t, "[libdyndbg_plugin]dd_plugin_say =");
	free(t);
	return r;
}

/* Whether dlclose() left the object at @path loaded. */
static bool still_loaded(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);

	if (h)
		dlclose(h);
	return h != NULL;
}

int main(int argc, char **argv)
{
	char f[16], out[256];
	struct capture c;

	if (argc != 2)
		return 2;
	own();
	CHECK(!listed(), "no plugin statement before dlopen");
	CHECK(sk_dyndbg_query("module libdyndbg_plugin +p") == 0,
	      "a query for the plugin matches nothing before it loads");
	int unloaded = 0;
	for (int round = 0; round < 2; round++) {
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		CHECK(h, "dlopen %s: %s", argv[1], dlerror());
		if (!h)
			return check_summary();
		void (*say)(int) = (void (*)(int))dlsym(h, "dd_plugin_say");
		CHECK(listed(), "the plugin's statement is listed once loaded");
		CHECK(!strcmp(flags_of("dd_plugin_say", f), "_"),
		      "loaded (round %d), it starts off (%s)", round, f);
		CHECK(sk_dyndbg_query("module libdyndbg_*  +pm") == 1,
		      "a module wildcard matches the plugin's statement");
		CHECK(!strcmp(flags_of("own", f), "_"), "the program's own is "
		      "not the plugin's module (%s)", f);
		capture_begin(&c);
		say(round + 3);
		capture_end(&c, out, sizeof(out));
		char want[64];
		snprintf(want, sizeof(want), "libdyndbg_plugin: plugin says %d\n",
			 round + 3);
		CHECK(!strcmp(out, want), "it prints \"%s\", not \"%s\"", out, want);
		CHECK(dlclose(h) == 0, "dlclose");
		if (still_loaded(argv[1])) {
			printf("note: dlclose() left the plugin loaded (musl's "
			       "unloads nothing): its statement stays listed\n");
			CHECK(listed(), "still loaded, still listed");
			sk_dyndbg_query("module libdyndbg_plugin =_");
			continue;
		}
		unloaded++;
		CHECK(!listed(), "gone from the catalogue after dlclose");
		CHECK(sk_dyndbg_query("module libdyndbg_plugin -p") == 0,
		      "a query matches nothing after dlclose");
	}
	printf("a plugin's statement loaded, switched and printed twice, "
	       "unloaded %d times\n", unloaded);
	return check_summary();
}
