/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/registry.c - what the object registry holds, looked at from
 * inside (linked with the runtime built for tests, which exposes the
 * internal list of registered objects).  Built as a non-PIE program, so its
 * references to libsko_a's keys are copy relocations.
 *
 *	sko_registry <case>
 *
 * interposed_key_listed_once: with an RTLD_GLOBAL copy of a plugin loaded,
 *	a second copy's plugin_key binds to the first copy's key; the key is
 *	listed by the first copy only, the second copy's unused definition by
 *	nobody.
 * copy_relocated_key_listed_once: the program's copy of a library key is
 *	listed once, by the library that defines it.
 * unloaded_object_leaves_registry: after dlclose() the plugin's object, its
 *	sites and its key are gone from the registry.
 */
#include <dlfcn.h>
#include <string.h>

#include "../../src/internal.h"
#include "../check.h"
#include "keys.h"

int main(int argc, char **argv);

struct listing {
	int count;
	const struct sk__object *by;
};

static struct listing listed(const void *key)
{
	struct listing l = { 0, NULL };

	CHECK(sk__lock() == 0, "lock");
	for (struct sk__object *o = sk__objects; o; o = o->next)
		for (size_t i = 0; i < o->nkeys; i++)
			if (o->keys[i] == key) {
				l.count++;
				l.by = o;
			}
	sk__unlock();
	return l;
}

/* The object registered from @path (compared by base name), or NULL. */
static const struct sk__object *object_named(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const struct sk__object *found = NULL;

	CHECK(sk__lock() == 0, "lock");
	for (struct sk__object *o = sk__objects; o; o = o->next) {
		const char *b = strrchr(o->path, '/');
		if (strcmp(b ? b + 1 : o->path, base) == 0)
			found = o;
	}
	sk__unlock();
	return found;
}

/* The registered object whose memory holds @p, or NULL. */
static const struct sk__object *object_holding(const void *p)
{
	const struct sk__object *found = NULL;

	CHECK(sk__lock() == 0, "lock");
	for (struct sk__object *o = sk__objects; o; o = o->next)
		if ((uintptr_t)p >= o->lo && (uintptr_t)p < o->hi)
			found = o;
	sk__unlock();
	return found;
}

static size_t all_sites(void)
{
	size_t n = 0;

	CHECK(sk__lock() == 0, "lock");
	for (struct sk__object *o = sk__objects; o; o = o->next)
		n += o->nsites;
	sk__unlock();
	return n;
}

static void *load(const char *path, int mode)
{
	void *h = dlopen(path, mode);

	CHECK(h != NULL, "dlopen %s: %s", path, h ? "" : dlerror());
	return h;
}

static void interposed_key_listed_once(void)
{
	void *h1 = load(SKO_PLUGIN1, RTLD_NOW | RTLD_GLOBAL);
	void *h2 = load(SKO_PLUGIN2, RTLD_NOW | RTLD_LOCAL);
	if (!h1 || !h2)
		return;
	void *k1 = dlsym(h1, "plugin_key"), *k2 = dlsym(h2, "plugin_key");
	struct listing l1 = listed(k1), l2 = listed(k2);
	CHECK(k1 && k2 && k1 != k2, "two definitions");
	CHECK(l1.count == 1 && l1.by == object_named(SKO_PLUGIN1),
	      "the used key is listed once, by its own plugin (%d)", l1.count);
	CHECK(l2.count == 0, "the interposed definition is listed nowhere (%d)",
	      l2.count);
	dlclose(h2);
	dlclose(h1);
	CHECK(listed(k1).count == 0, "gone after both dlclose()s");
}

static void copy_relocated_key_listed_once(void)
{
	const struct sk__object *exe = object_holding((const void *)main);
	struct listing l = listed(&lib_key_false);
	const struct sk__object *lib = object_named(SKO_LIB_A);

	CHECK(exe != NULL && lib != NULL, "the program and libsko_a registered");
	if (!exe || !lib)
		return;
	CHECK(object_holding(&lib_key_false) == exe,
	      "lib_key_false lives in the program (a copy relocation)");
	CHECK(l.count == 1 && l.by == lib,
	      "it is listed once, by libsko_a (%d, by %s)", l.count,
	      l.by ? l.by->path : "nobody");
	l = listed(&exe_key_false);
	CHECK(l.count == 1 && l.by == exe, "exe_key_false: by the program");
}

static void unloaded_object_leaves_registry(void)
{
	size_t before = all_sites();
	void *h = load(SKO_PLUGIN1, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return;
	void *key = dlsym(h, "plugin_key");
	const struct sk__object *o = object_named(SKO_PLUGIN1);
	CHECK(o != NULL, "the plugin registered");
	size_t plugin_sites = o ? o->nsites : 0;
	CHECK(plugin_sites >= 10, "2 sites for each of 5 keys (%zu)",
	      plugin_sites);
	CHECK(all_sites() == before + plugin_sites, "its sites were added");
	CHECK(listed(key).count == 1, "its key is listed");
	CHECK(dlclose(h) == 0, "dlclose");
	CHECK(object_named(SKO_PLUGIN1) == NULL, "its object is gone");
	CHECK(all_sites() == before, "its sites are gone");
	CHECK(listed(key).count == 0, "its key is no longer listed");
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	printf("== %s\n", c);
	if (strcmp(c, "interposed_key_listed_once") == 0)
		interposed_key_listed_once();
	else if (strcmp(c, "copy_relocated_key_listed_once") == 0)
		copy_relocated_key_listed_once();
	else if (strcmp(c, "unloaded_object_leaves_registry") == 0)
		unloaded_object_leaves_registry();
	else
		CHECK(0, "unknown case '%s'", c);
	return check_summary();
}
