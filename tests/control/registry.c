/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * registry.c - names, look-up and snapshots across objects.
 *
 * The program defines main_key and a static dup_name; a linked library
 * defines lib_key, which also has a site here; a dlopen'd plugin defines
 * plugin_key and its own static dup_name.  Checked: every key is listed
 * once with its description, state, count, sites and objects; the two
 * dup_name keys are qualified by file name while both are loaded and the
 * plain name is refused as ambiguous; keys found by name flip their sites;
 * a plugin's keys leave the registry with it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <statickeys.h>

#include "../check.h"

SK_DEFINE_KEY_FALSE_DESC(main_key, "a key of the program");
static SK_DEFINE_KEY_FALSE(dup_name);
SK_DECLARE_KEY_FALSE(lib_key);
bool lib_site(void);

__attribute__((noinline)) static bool main_site(void)
{
	return sk_branch_unlikely(&main_key) ? true : false;
}
__attribute__((noinline)) static bool main_lib_site(void)
{
	return sk_branch_unlikely(&lib_key) ? true : false;
}
__attribute__((noinline)) static bool main_dup_site(void)
{
	return sk_branch_unlikely(&dup_name) ? true : false;
}

static const struct sk_key_info *find_info(const struct sk_key_info *v,
					   size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && strcmp(s + a - b, tail) == 0;
}

static void test_program_and_library(void)
{
	struct sk_key_info *v;
	size_t n;

	CHECK(sk_key_inc(&main_key) == 0 && sk_key_inc(&main_key) == 0,
	      "two references on main_key");
	CHECK(sk_keys_snapshot(&v, &n) == 0, "snapshot");
	const struct sk_key_info *m = find_info(v, n, "main_key");
	const struct sk_key_info *l = find_info(v, n, "lib_key");
	const struct sk_key_info *d = find_info(v, n, "dup_name");
	CHECK(m && m->key == &main_key.key, "main_key listed");
	CHECK(m && !strcmp(m->description, "a key of the program"),
	      "main_key description");
	CHECK(m && m->enabled && m->count == 2 && !m->initial,
	      "main_key on with count 2, defined off");
	CHECK(m && m->nsites == 1 && m->nobjects == 1, "main_key: 1 site");
	CHECK(l && l->nsites == 2 && l->nobjects == 2,
	      "lib_key has sites in the library and the program (%zu, %zu)",
	      l ? l->nsites : 0, l ? l->nobjects : 0);
	CHECK(l && ends_with(l->object, "libctl_names_lib.so"),
	      "lib_key defined in the library: %s", l ? l->object : "?");
	CHECK(d && d->key == &dup_name.key, "dup_name unqualified while unique");
	for (size_t i = 1; i < n; i++)
		CHECK(strcmp(v[i - 1].name, v[i].name) < 0,
		      "sorted, unique names: %s, %s", v[i - 1].name, v[i].name);
	sk_keys_snapshot_free(v);
	CHECK(sk_key_dec(&main_key) == 0 && sk_key_dec(&main_key) == 0,
	      "references dropped");
	CHECK(!main_site(), "main_key off again");
}

static void test_find_and_flip(void)
{
	struct sk_key *k = sk_key_find("lib_key");
	CHECK(k == &lib_key.key, "sk_key_find(lib_key)");
	struct sk_key_change c = { k, true };
	CHECK(sk_commit(&c, 1) == 0, "commit lib_key on");
	CHECK(lib_site() && main_lib_site(), "both sites of lib_key on");
	c.enable = false;
	CHECK(sk_commit(&c, 1) == 0 && !lib_site() && !main_lib_site(),
	      "both off");
	errno = 0;
	CHECK(sk_key_find("no_such_key") == NULL && errno == ENOENT,
	      "unknown name: ENOENT");
	errno = 0;
	CHECK(sk_key_find(NULL) == NULL && errno == EINVAL, "NULL: EINVAL");
}

static void test_plugin_collision(const char *plugin)
{
	void *h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL, "dlopen %s: %s", plugin, dlerror());
	if (!h)
		return;
	bool (*plugin_dup_site)(void) = (bool (*)(void))dlsym(h, "plugin_dup_site");
	struct sk_key *(*dup_key)(void) =
		(struct sk_key * (*)(void)) dlsym(h, "plugin_dup_key");
	errno = 0;
	CHECK(sk_key_find("dup_name") == NULL && errno == EEXIST,
	      "plain dup_name is ambiguous with the plugin loaded");
	struct sk_key *pk = sk_key_find("libctl_names_plugin.so:dup_name");
	CHECK(pk && pk == dup_key(), "plugin's dup_name by file name");
	struct sk_key_info *v;
	size_t n, qualified = 0;
	CHECK(sk_keys_snapshot(&v, &n) == 0, "snapshot with plugin");
	for (size_t i = 0; i < n; i++)
		qualified += ends_with(v[i].name, ":dup_name");
	CHECK(qualified == 2, "both dup_name keys qualified (%zu)", qualified);
	CHECK(find_info(v, n, "plugin_key") != NULL, "plugin_key listed");
	sk_keys_snapshot_free(v);
	struct sk_key_change c[] = { { pk, false },
				     SK_KEY_CHANGE(&dup_name, true) };
	CHECK(sk_commit(c, 2) == 0, "flip both dup_name keys in one commit");
	CHECK(!plugin_dup_site() && main_dup_site(), "each flipped its own");
	dlclose(h);
	errno = 0;
	CHECK(sk_key_find("plugin_key") == NULL && errno == ENOENT,
	      "plugin keys gone after dlclose");
	CHECK(sk_key_find("dup_name") == &dup_name.key,
	      "dup_name unique again");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s PLUGIN.so\n", argv[0]);
		return 2;
	}
	test_program_and_library();
	test_find_and_flip();
	test_plugin_collision(argv[1]);
	return check_summary();
}
