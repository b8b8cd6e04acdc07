/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * cross_main.c - kernel-style keys across objects: keys defined in a shared
 * library (one embedded in a tracepoint struct, one zeroed, one typed), with
 * sites in the library, the program and a plugin loaded while some keys are
 * on.  Every site in every object follows every flip; the zeroed key, whose
 * own object has no site of it, is a valid false key all the same.
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include <statickeys.h>

#include "../check.h"
#include "cross_site.h"

__attribute__((noinline)) bool cross_main_site(enum cross_key k)
{
	return cross_site(k);
}

static struct static_key *const keys[CROSS_NKEYS] = {
	[CROSS_EVENT] = &__tracepoint_lib_event.key,
	[CROSS_ZEROED] = &lib_zeroed,
	[CROSS_FEATURE] = &lib_feature.key,
};
static const char *const key_names[CROSS_NKEYS] = { "__tracepoint_lib_event.key",
						    "lib_zeroed", "lib_feature" };

static void verify(cross_site_fn *objs, const char **obj_names, int nobjs,
		   const char *when)
{
	for (int k = 0; k < CROSS_NKEYS; k++) {
		bool on = static_key_enabled(keys[k]);
		for (int o = 0; o < nobjs; o++)
			CHECK(objs[o]((enum cross_key)k) == on,
			      "%s: %s's site of %s says %d, key is %d", when,
			      obj_names[o], key_names[k], !on, on);
	}
}

int main(void)
{
	cross_site_fn objs[3] = { cross_lib_site, cross_main_site, NULL };
	const char *obj_names[3] = { "library", "program", "plugin" };

	verify(objs, obj_names, 2, "initially");
	CHECK(static_key_enabled(&lib_feature) && !static_key_enabled(&lib_zeroed),
	      "initial states");
	CHECK(sk_key_find("__tracepoint_lib_event.key") ==
		      sk_static_key(&__tracepoint_lib_event.key) ||
		      !SK_HAVE_PATCHED_SITES,
	      "the embedded key is named by its library's site");
	CHECK(sk_key_find("lib_feature") == sk_static_key(&lib_feature),
	      "the defined key is named");

	/* Flip the embedded and the zeroed key on, then load the plugin. */
	CHECK(static_key_slow_inc(&__tracepoint_lib_event.key), "inc event");
	CHECK(static_key_enable(&lib_zeroed) == 0, "enable the zeroed key");
	verify(objs, obj_names, 2, "after two enables");

	void *plugin = dlopen(SK_CROSS_PLUGIN, RTLD_NOW | RTLD_LOCAL);
	CHECK(plugin != NULL, "dlopen: %s", plugin ? "" : dlerror());
	if (!plugin)
		return check_summary();
	objs[2] = (cross_site_fn)(uintptr_t)dlsym(plugin, "cross_plugin_site");
	CHECK(objs[2] != NULL, "plugin entry");
	if (!objs[2])
		return check_summary();
	verify(objs, obj_names, 3, "plugin loaded while two keys are on");

	for (int round = 0; round < 6; round++) {
		for (int k = 0; k < CROSS_NKEYS; k++) {
			int r = static_key_enabled(keys[k]) ?
					static_key_disable(keys[k]) :
					static_key_enable(keys[k]);
			CHECK(r == 0, "flip %s: %d", key_names[k], r);
			verify(objs, obj_names, 3, "after a flip");
		}
	}
	CHECK(dlclose(plugin) == 0, "dlclose");
	CHECK(static_key_disable(&lib_zeroed) == 0 &&
		      static_key_disable(&__tracepoint_lib_event.key) == 0,
	      "back off after the plugin is gone");
	verify(objs, obj_names, 2, "after dlclose");
	printf("checked 3 keys x 3 objects over %d flips\n", 6 * CROSS_NKEYS);
	return check_summary();
}
