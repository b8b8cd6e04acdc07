/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * dll.c - a DLL's keys on Windows: registered when LoadLibrary loads it
 * (named, listed, flipped by name, its sites follow), gone when
 * FreeLibrary unloads it, and back at their defined states when it is
 * loaded again.  The DLL is windows_plugin.dll (plugin.c), next to this
 * program.  With SK_EXPECT_ENV=1 and STATICKEYS="plugin_key=1", the
 * start-up state applies to the DLL's key each time it loads, before
 * LoadLibrary returns.
 */
#include <windows.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <statickeys.h>

#include "../check.h"

SK_DEFINE_KEY_FALSE(program_key);

typedef int (*sites_fn)(void);
typedef struct sk_key *(*key_fn)(void);

static size_t keys_listed(void)
{
	struct sk_key_info *v;
	size_t n = 0;

	if (sk_keys_snapshot(&v, &n) != 0)
		return 0;
	sk_keys_snapshot_free(v);
	return n;
}

static void load_once(int round, size_t before)
{
	HMODULE h = LoadLibraryA("windows_plugin.dll");
	CHECK(h != NULL, "round %d: LoadLibrary: error %lu", round,
	      (unsigned long)GetLastError());
	if (!h)
		return;
	sites_fn sites = (sites_fn)(void (*)(void))GetProcAddress(h, "plugin_sites");
	key_fn key = (key_fn)(void (*)(void))GetProcAddress(h, "plugin_key_address");
	CHECK(sites && key, "round %d: the DLL's functions", round);
	if (!sites || !key)
		return;
	CHECK(keys_listed() == before + 2,
	      "round %d: the DLL's two keys are listed (%zu, was %zu)", round,
	      keys_listed(), before);
	struct sk_key *k = sk_key_find("plugin_key");
	CHECK(k == key(), "round %d: found by name", round);
	CHECK(sk_key_find("windows_plugin.dll:plugin_key") == key(),
	      "round %d: found as windows_plugin.dll:plugin_key", round);
	if (getenv("SK_EXPECT_ENV"))
		CHECK(k && sk_key_enabled(k) && sites() == 3,
		      "round %d: STATICKEYS turned plugin_key on as the DLL "
		      "loaded (sites %d)", round, sites());
	else
		CHECK(k && !sk_key_enabled(k) && sites() == 2,
		      "round %d: the defined states (sites %d)", round,
		      sites());
	struct sk_key_info info, *storage;
	if (sk_key_info_get("plugin_key", &info, &storage) == 0) {
		CHECK(strcmp(info.description, "a key of the DLL") == 0,
		      "round %d: its description", round);
		const char *base = strrchr(info.object, '/');
		CHECK(base && strcmp(base, "/windows_plugin.dll") == 0,
		      "round %d: its object is the DLL: %s", round,
		      info.object);
		sk_keys_snapshot_free(storage);
	} else {
		CHECK(0, "round %d: sk_key_info_get", round);
	}
	CHECK(k && sk_key_enable(k) == 0 && sites() == 3,
	      "round %d: enabled, its site follows (sites %d)", round,
	      sites());
	CHECK(FreeLibrary(h), "round %d: FreeLibrary", round);
	errno = 0;
	CHECK(sk_key_find("plugin_key") == NULL && errno == ENOENT,
	      "round %d: unloaded, its key is gone", round);
	CHECK(keys_listed() == before, "round %d: the listing is back to %zu",
	      round, before);
}

int main(void)
{
	size_t before = keys_listed();

	CHECK(before >= 1 && sk_key_find("program_key") == &program_key.key,
	      "the program's key is listed");
	for (int round = 1; round <= 3; round++)
		load_once(round, before);
	CHECK(sk_key_enable(&program_key) == 0 && sk_key_enabled(&program_key),
	      "the program's key still works");
	return check_summary();
}
