/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * backend.c - the runtime says which backend runs the sites, and the build
 * agrees with it: a patching backend ("x86_64", "aarch64", ...) has sites
 * that are rewritten; the portable one ("portable": keys as atomic flags)
 * has no site to rewrite, and keys, names, counts and updates work the same.
 * SK_EXPECT_BACKEND is the backend this build chose (src/CMakeLists.txt).
 * The writer reported is always one stats.h lists: "unprobed" before the
 * first update (and for ever where nothing is patched), then the one chosen.
 */
#include <string.h>

#include <statickeys.h>

#include "../check.h"

SK_DEFINE_KEY_FALSE(backend_key);

/* The values include/statickeys/stats.h lists for sk_stats.writer. */
static bool listed_writer(const char *w)
{
	static const char *const listed[] = { "procmem",	    "mprotect",
					      "WriteProcessMemory", "VirtualProtect",
					      "none",		    "unprobed" };
	for (size_t i = 0; w && i < sizeof(listed) / sizeof(listed[0]); i++)
		if (strcmp(w, listed[i]) == 0)
			return true;
	return false;
}

__attribute__((noinline)) static bool site(void)
{
	return sk_branch_unlikely(&backend_key) ? true : false;
}

int main(void)
{
	struct sk_stats s0, s1;
	struct sk_key_info info, *storage = NULL;

	CHECK(sk_stats_get(&s0) == 0, "sk_stats_get");
	CHECK(s0.writer && strcmp(s0.writer, "unprobed") == 0,
	      "before the first update the writer reads \"unprobed\" "
	      "(stats.h), got %s", s0.writer ? s0.writer : "NULL");
	printf("backend: %s (expected %s), headers %s\n", s0.backend,
	       SK_EXPECT_BACKEND,
	       SK_HAVE_PATCHED_SITES ? "emit patched sites"
				     : "emit atomic flag tests");
	CHECK(strcmp(s0.backend, SK_EXPECT_BACKEND) == 0,
	      "the runtime reports backend %s, the build chose %s", s0.backend,
	      SK_EXPECT_BACKEND);
	bool portable = strcmp(s0.backend, "portable") == 0;
	CHECK(portable == !SK_HAVE_PATCHED_SITES,
	      "the headers emit %s sites for the %s backend",
	      SK_HAVE_PATCHED_SITES ? "patched" : "flag-test", s0.backend);

	CHECK(sk_key_info_get("backend_key", &info, &storage) == 0,
	      "the key is registered under its name");
	CHECK(info.nsites == (portable ? 0u : 1u),
	      "%zu sites registered (portable: none to patch; else the one)",
	      info.nsites);
	sk_keys_snapshot_free(storage);

	CHECK(!site(), "the site starts off");
	CHECK(sk_key_enable(&backend_key) == 0 && site(), "follows an enable");
	CHECK(sk_key_disable(&backend_key) == 0 && !site(), "and a disable");
	CHECK(sk_stats_get(&s1) == 0, "sk_stats_get");
	CHECK(s1.updates - s0.updates == 2, "2 updates counted, got %llu",
	      (unsigned long long)(s1.updates - s0.updates));
	CHECK(listed_writer(s1.writer) &&
		      (portable ? strcmp(s1.writer, "unprobed") == 0
				: strcmp(s1.writer, "none") != 0 &&
					  strcmp(s1.writer, "unprobed") != 0),
	      "after updates the writer is one stats.h lists, the one chosen "
	      "(portable: still unprobed): %s", s1.writer);
	CHECK(!portable || strcmp(s1.sync_method, "none") == 0,
	      "nothing to sync where nothing is patched (sync method %s)",
	      s1.sync_method);
	CHECK((s1.sites_written - s0.sites_written == 0) == portable,
	      "%llu sites written (%s)",
	      (unsigned long long)(s1.sites_written - s0.sites_written),
	      portable ? "none: nothing is patched" : "the site, twice");
	return check_summary();
}
