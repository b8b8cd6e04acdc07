/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/plugins.c - plugins loaded and unloaded at run time.
 *
 *	sko_plugins <case>
 *
 * flipped_before_dlopen_local / _global: keys flipped before dlopen(); the
 *	plugin's constructor and its first call see the flipped states.
 * plugin_key_kept_by_user: a plugin whose key has sites in another plugin
 *	stays loaded after its own dlclose() (the dynamic linker's rule) and
 *	the key keeps driving those sites; it unloads with its last user.
 * plugin_key_of_linked_user: the same when the user links the plugin.
 * local_keys_are_separate: two RTLD_LOCAL copies of a plugin each have
 *	their own plugin_key.
 * global_key_interposes: a later plugin's sites bind to the plugin_key of
 *	an RTLD_GLOBAL plugin loaded before it (ELF symbol interposition).
 * dlclose_removes_sites: after dlclose() updates no longer write the
 *	plugin's sites.
 * reload_starts_from_initial_key: a plugin's own key restarts from its
 *	initial state when the plugin is loaded again.
 * constructor_flips_key: key updates from a plugin's constructor and
 *	destructor (inside dlopen/dlclose) reach every object.
 * unloaded_key_has_no_name: a plugin's key is found by name while the
 *	plugin is loaded, and neither by name nor in snapshots after dlclose().
 * weak_key_undefined: sites of an undefined weak key keep their compiled
 *	direction; the plugin's other sites follow their keys.
 * cxx_static_init_sees_flipped_state: a C++ plugin's static initialiser
 *	runs sites after registration.
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "../check.h"
#include "keys.h"

#ifndef SKO_PLUGIN1
#error "SKO_PLUGIN1 and friends come from tests/objects/CMakeLists.txt"
#endif

static struct sk_key *const keys[] = {
	[SKO_EXE_FALSE] = &exe_key_false.key,
	[SKO_EXE_TRUE] = &exe_key_true.key,
	[SKO_LIB_FALSE] = &lib_key_false.key,
	[SKO_LIB_TRUE] = &lib_key_true.key,
};
#define NSHARED 4 /* keys of the program and libsko_a */

static void *load(const char *path, int mode)
{
	void *h = dlopen(path, mode);

	CHECK(h != NULL, "dlopen %s: %s", path, h ? "" : dlerror());
	if (!h) {
		printf("%lu passed, %lu failed\n", check_passed_count,
		       check_failed_count + 1);
		exit(1);
	}
	return h;
}

static void unload(void *h, const char *path)
{
	CHECK(dlclose(h) == 0, "dlclose %s: %s", path, dlerror());
}

static bool is_loaded(const char *path)
{
	void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);

	if (h)
		dlclose(h);
	return h != NULL;
}

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	CHECK(p != NULL, "dlsym %s: %s", name, p ? "" : dlerror());
	return p;
}

static struct sk_key *plugin_key_of(void *h)
{
	struct sk_key_false *k = sym(h, "plugin_key");

	return k ? &k->key : NULL;
}

static unsigned want(bool on)
{
	return on ? PROBE_ON : PROBE_OFF;
}

/* The plugin's sites of every program/library key match the keys. */
static void verify_shared_keys(sko_probe_fn probe, const char *when)
{
	for (int id = 0; id < NSHARED; id++) {
		bool on = sk_key_enabled(keys[id]);
		unsigned got = probe(id);
		CHECK(got == want(on), "%s: plugin sites of %s show %#x, key %s",
		      when, sko_key_name(id), got, on ? "on" : "off");
	}
}

static void verify_plugin_key(sko_probe_fn probe, bool on, const char *who,
			      const char *when)
{
	unsigned got = probe(SKO_PLUGIN);

	CHECK(got == want(on), "%s: %s sites of plugin_key show %#x, want %s",
	      when, who, got, on ? "on" : "off");
}

static void invert_shared_keys(void)
{
	CHECK(sk_key_enable(&exe_key_false) == 0, "enable exe_key_false");
	CHECK(sk_key_disable(&exe_key_true) == 0, "disable exe_key_true");
	CHECK(sk_key_enable(&lib_key_false) == 0, "enable lib_key_false");
	CHECK(sk_key_disable(&lib_key_true) == 0, "disable lib_key_true");
}

static void restore_shared_keys(void)
{
	CHECK(sk_key_disable(&exe_key_false) == 0, "disable exe_key_false");
	CHECK(sk_key_enable(&exe_key_true) == 0, "enable exe_key_true");
	CHECK(sk_key_disable(&lib_key_false) == 0, "disable lib_key_false");
	CHECK(sk_key_enable(&lib_key_true) == 0, "enable lib_key_true");
}

static void flipped_before_dlopen(int mode)
{
	invert_shared_keys();
	void *h = load(SKO_PLUGIN1, RTLD_NOW | mode);
	const unsigned *seen = sym(h, SKO_PLUGIN_CTOR_SEEN);
	sko_probe_fn probe = (sko_probe_fn)sym(h, SKO_PLUGIN_PROBE);
	if (!seen || !probe)
		return;
	for (int id = 0; id < NSHARED; id++) {
		bool on = sk_key_enabled(keys[id]);
		CHECK(seen[id] == want(on),
		      "the plugin's constructor saw %s as %#x, key is %s",
		      sko_key_name(id), seen[id], on ? "on" : "off");
	}
	CHECK(seen[SKO_PLUGIN] == PROBE_OFF, "constructor saw plugin_key %#x",
	      seen[SKO_PLUGIN]);
	verify_shared_keys(probe, "first call after dlopen");
	restore_shared_keys();
	verify_shared_keys(probe, "after flipping the keys back");
	struct sk_key *pk = plugin_key_of(h);
	CHECK(pk && sk_key_enable(pk) == 0, "enable the plugin's key");
	verify_plugin_key(probe, true, "the plugin's", "after enable");
	CHECK(pk && sk_key_disable(pk) == 0, "disable the plugin's key");
	verify_plugin_key(probe, false, "the plugin's", "after disable");
	unload(h, SKO_PLUGIN1);
	CHECK(!is_loaded(SKO_PLUGIN1), "the plugin is unloaded by dlclose");
	verify_shared_keys(sko_exe_probe, "the program after dlclose");
}

static void flipped_before_dlopen_local(void)
{
	flipped_before_dlopen(RTLD_LOCAL);
}

static void flipped_before_dlopen_global(void)
{
	flipped_before_dlopen(RTLD_GLOBAL);
}

/*
 * glibc records that the user's GOT binds to a symbol of a dlopen'd object
 * and keeps that object loaded while the user is: the key outlives the
 * owner's dlclose() and keeps working.
 */
static void plugin_key_kept_by_user(void)
{
	void *owner = load(SKO_PLUGIN1, RTLD_NOW | RTLD_GLOBAL);
	struct sk_key *pk = plugin_key_of(owner);
	void *user = load(SKO_USER, RTLD_NOW | RTLD_LOCAL);
	sko_probe_fn probe = (sko_probe_fn)sym(user, SKO_PLUGIN_PROBE);
	if (!pk || !probe)
		return;
	CHECK(sk_key_enable(pk) == 0, "enable plugin_key");
	verify_plugin_key(probe, true, "the user's", "after enable");
	unload(owner, SKO_PLUGIN1);
	CHECK(is_loaded(SKO_PLUGIN1),
	      "the key's plugin stays loaded while the user's sites bind to it");
	CHECK(sk_key_find("plugin_key") == pk, "and its key keeps its name");
	verify_plugin_key(probe, true, "the user's", "after the owner's dlclose");
	CHECK(sk_key_disable(pk) == 0, "disable plugin_key after owner dlclose");
	verify_plugin_key(probe, false, "the user's", "after disable");
	CHECK(sk_key_inc(pk) == 0, "inc plugin_key");
	verify_plugin_key(probe, true, "the user's", "after inc");
	unload(user, SKO_USER);
	CHECK(!is_loaded(SKO_USER) && !is_loaded(SKO_PLUGIN1),
	      "owner and user unload with the user's dlclose");
	CHECK(sk_key_find("plugin_key") == NULL, "the key's name went with it");
}

static void plugin_key_of_linked_user(void)
{
	void *user = load(SKO_USER_LINKED, RTLD_NOW | RTLD_LOCAL);
	sko_probe_fn probe = (sko_probe_fn)sym(user, SKO_PLUGIN_PROBE);
	struct sk_key *pk = plugin_key_of(user); /* found in its dependency */
	if (!pk || !probe)
		return;
	CHECK(is_loaded(SKO_PLUGIN2), "the linked plugin came along");
	verify_plugin_key(probe, false, "the user's", "initially");
	CHECK(sk_key_enable(pk) == 0, "enable plugin_key");
	verify_plugin_key(probe, true, "the user's", "after enable");
	unload(user, SKO_USER_LINKED);
	CHECK(!is_loaded(SKO_USER_LINKED) && !is_loaded(SKO_PLUGIN2),
	      "user and its plugin unload together");
}

static void local_keys_are_separate(void)
{
	void *h1 = load(SKO_PLUGIN1, RTLD_NOW | RTLD_LOCAL);
	void *h2 = load(SKO_PLUGIN2, RTLD_NOW | RTLD_LOCAL);
	struct sk_key *k1 = plugin_key_of(h1), *k2 = plugin_key_of(h2);
	sko_probe_fn p1 = (sko_probe_fn)sym(h1, SKO_PLUGIN_PROBE);
	sko_probe_fn p2 = (sko_probe_fn)sym(h2, SKO_PLUGIN_PROBE);
	if (!k1 || !k2 || !p1 || !p2)
		return;
	CHECK(k1 != k2, "two RTLD_LOCAL copies have two keys");
	CHECK(sk_key_enable(k1) == 0, "enable copy 1's key");
	verify_plugin_key(p1, true, "copy 1's", "after enabling its key");
	verify_plugin_key(p2, false, "copy 2's", "after enabling copy 1's key");
	CHECK(sk_key_enable(k2) == 0 && sk_key_disable(k1) == 0,
	      "enable copy 2's key, disable copy 1's");
	verify_plugin_key(p1, false, "copy 1's", "after disabling its key");
	verify_plugin_key(p2, true, "copy 2's", "after enabling its key");
	unload(h2, SKO_PLUGIN2);
	unload(h1, SKO_PLUGIN1);
}

static void global_key_interposes(void)
{
	void *h1 = load(SKO_PLUGIN1, RTLD_NOW | RTLD_GLOBAL);
	void *h2 = load(SKO_PLUGIN2, RTLD_NOW | RTLD_LOCAL);
	struct sk_key *k1 = plugin_key_of(h1), *k2 = plugin_key_of(h2);
	sko_probe_fn p2 = (sko_probe_fn)sym(h2, SKO_PLUGIN_PROBE);
	if (!k1 || !k2 || !p2)
		return;
	CHECK(sk_key_find("plugin_key") == k1,
	      "the name is the used key's, listed once (%s)", strerror(errno));
	CHECK(sk_key_enable(k1) == 0, "enable the global copy's key");
	verify_plugin_key(p2, true, "the later copy's",
			  "after enabling the global copy's key");
	CHECK(sk_key_enable(k2) == 0 && sk_key_disable(k1) == 0,
	      "enable the later copy's own definition, disable the global one");
	verify_plugin_key(p2, false, "the later copy's",
			  "its own definition is interposed and has no sites");
	CHECK(sk_key_disable(k2) == 0, "disable the unused definition");
	unload(h2, SKO_PLUGIN2);
	unload(h1, SKO_PLUGIN1);
	CHECK(!is_loaded(SKO_PLUGIN1) && !is_loaded(SKO_PLUGIN2),
	      "both copies unloaded");
}

static uint64_t sites_written_by_flip(struct sk_key *key)
{
	struct sk_stats a, b;

	sk_stats_get(&a);
	CHECK(sk_key_enable(key) == 0, "enable %s", key->name);
	CHECK(sk_key_disable(key) == 0, "disable %s", key->name);
	sk_stats_get(&b);
	return b.sites_written - a.sites_written;
}

static void dlclose_removes_sites(void)
{
	uint64_t before = sites_written_by_flip(&exe_key_false.key);
	void *h = load(SKO_PLUGIN1, RTLD_NOW | RTLD_LOCAL);
	uint64_t loaded = sites_written_by_flip(&exe_key_false.key);
	unload(h, SKO_PLUGIN1);
	uint64_t after = sites_written_by_flip(&exe_key_false.key);

	printf("sites written by one on/off flip of exe_key_false: %llu "
	       "before dlopen, %llu with the plugin, %llu after dlclose\n",
	       (unsigned long long)before, (unsigned long long)loaded,
	       (unsigned long long)after);
	CHECK(before >= 6, "the program and both libraries were patched");
	CHECK(loaded >= before + 4, "the plugin's 2 sites were patched twice");
	CHECK(after == before, "after dlclose only the same sites as before");
}

static void reload_starts_from_initial_key(void)
{
	CHECK(sk_key_enable(&exe_key_false) == 0, "enable exe_key_false");
	void *h = load(SKO_PLUGIN1, RTLD_NOW | RTLD_LOCAL);
	struct sk_key *pk = plugin_key_of(h);
	CHECK(pk && sk_key_enable(pk) == 0, "enable plugin_key");
	unload(h, SKO_PLUGIN1);
	h = load(SKO_PLUGIN1, RTLD_NOW | RTLD_LOCAL);
	pk = plugin_key_of(h);
	sko_probe_fn probe = (sko_probe_fn)sym(h, SKO_PLUGIN_PROBE);
	if (!pk || !probe)
		return;
	CHECK(!sk_key_enabled(pk), "a reloaded plugin's key starts off");
	verify_plugin_key(probe, false, "the reloaded plugin's", "after reload");
	verify_shared_keys(probe, "after reload");
	unload(h, SKO_PLUGIN1);
	CHECK(sk_key_disable(&exe_key_false) == 0, "disable exe_key_false");
}

static void constructor_flips_key(void)
{
	void *h = load(SKO_FLIPPER, RTLD_NOW | RTLD_LOCAL);
	const int *result = sym(h, "sko_flipper_ctor_result");
	sko_probe_fn probe = (sko_probe_fn)sym(h, SKO_PLUGIN_PROBE);
	if (!result || !probe)
		return;
	CHECK(*result == 0, "enable from the constructor returned %d", *result);
	CHECK(sk_key_enabled(&exe_key_false), "the constructor's enable held");
	CHECK(probe(SKO_EXE_FALSE) == PROBE_ON, "the plugin's own sites are on");
	CHECK(sko_exe_probe(SKO_EXE_FALSE) == PROBE_ON &&
	      sko_lib_a_probe(SKO_EXE_FALSE) == PROBE_ON &&
	      sko_lib_b_probe(SKO_EXE_FALSE) == PROBE_ON,
	      "the program's and libraries' sites are on");
	unload(h, SKO_FLIPPER);
	CHECK(!sk_key_enabled(&exe_key_false), "the destructor's disable held");
	CHECK(sko_exe_probe(SKO_EXE_FALSE) == PROBE_OFF &&
	      sko_lib_a_probe(SKO_EXE_FALSE) == PROBE_OFF &&
	      sko_lib_b_probe(SKO_EXE_FALSE) == PROBE_OFF,
	      "the program's and libraries' sites are off again");
}

static void unloaded_key_has_no_name(void)
{
	void *h = load(SKO_PLUGIN1, RTLD_NOW | RTLD_LOCAL);
	struct sk_key *pk = plugin_key_of(h);
	CHECK(pk && sk_key_find("plugin_key") == pk, "found by name while loaded");
	struct sk_key_info *v;
	size_t n, listed = 0;
	unload(h, SKO_PLUGIN1);
	errno = 0;
	CHECK(sk_key_find("plugin_key") == NULL && errno == ENOENT,
	      "not found by name after dlclose (%s)", strerror(errno));
	CHECK(sk_keys_snapshot(&v, &n) == 0, "snapshot");
	for (size_t i = 0; i < n; i++)
		listed += strcmp(v[i].identifier, "plugin_key") == 0;
	sk_keys_snapshot_free(v);
	CHECK(listed == 0 && n >= NSHARED, "not in a snapshot (%zu of %zu)",
	      listed, n);
}

static void weak_key_undefined(void)
{
	CHECK(sk_key_enable(&exe_key_false) == 0, "enable exe_key_false");
	void *h = load(SKO_WEAK, RTLD_NOW | RTLD_LOCAL);
	sko_probe_fn probe = (sko_probe_fn)sym(h, SKO_PLUGIN_PROBE);
	if (!probe)
		return;
	CHECK(probe(SKO_PLUGIN) == PROBE_OFF,
	      "sites of the undefined weak key show their compiled direction");
	CHECK(probe(SKO_EXE_FALSE) == PROBE_ON,
	      "the plugin's other sites were patched at load");
	CHECK(sk_key_disable(&exe_key_false) == 0, "disable exe_key_false");
	CHECK(probe(SKO_EXE_FALSE) == PROBE_OFF, "and follow their key");
	unload(h, SKO_WEAK);
}

#ifdef SKO_PLUGIN_CXX /* not built without a C++ compiler */
static void cxx_static_init_sees_flipped_state(void)
{
	invert_shared_keys();
	void *h = load(SKO_PLUGIN_CXX, RTLD_NOW | RTLD_LOCAL);
	const unsigned *seen = sym(h, SKO_PLUGIN_CTOR_SEEN);
	sko_probe_fn probe = (sko_probe_fn)sym(h, SKO_PLUGIN_PROBE);
	if (!seen || !probe)
		return;
	CHECK(seen[SKO_EXE_FALSE] == PROBE_ON && seen[SKO_EXE_TRUE] == PROBE_OFF,
	      "the C++ static initialiser saw the flipped keys (%#x, %#x)",
	      seen[SKO_EXE_FALSE], seen[SKO_EXE_TRUE]);
	CHECK(probe(SKO_EXE_FALSE) == PROBE_ON &&
	      probe(SKO_EXE_TRUE) == PROBE_OFF, "and so does its first call");
	restore_shared_keys();
	CHECK(probe(SKO_EXE_FALSE) == PROBE_OFF &&
	      probe(SKO_EXE_TRUE) == PROBE_ON, "and it follows them back");
	unload(h, SKO_PLUGIN_CXX);
}
#endif

static const struct check_case cases[] = {
	{ "flipped_before_dlopen_local", flipped_before_dlopen_local },
	{ "flipped_before_dlopen_global", flipped_before_dlopen_global },
	{ "plugin_key_kept_by_user", plugin_key_kept_by_user },
	{ "plugin_key_of_linked_user", plugin_key_of_linked_user },
	{ "local_keys_are_separate", local_keys_are_separate },
	{ "global_key_interposes", global_key_interposes },
	{ "dlclose_removes_sites", dlclose_removes_sites },
	{ "reload_starts_from_initial_key", reload_starts_from_initial_key },
	{ "constructor_flips_key", constructor_flips_key },
	{ "unloaded_key_has_no_name", unloaded_key_has_no_name },
	{ "weak_key_undefined", weak_key_undefined },
#ifdef SKO_PLUGIN_CXX
	{ "cxx_static_init_sees_flipped_state",
	  cxx_static_init_sees_flipped_state },
#endif
};

int main(int argc, char **argv)
{
	return check_run_cases(cases, sizeof(cases) / sizeof(cases[0]), argc,
			       argv);
}
