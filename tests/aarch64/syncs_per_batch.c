/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * syncs_per_batch.c - how many core syncs one batch costs, whatever its size.
 *
 * aarch64 has no trap protocol: a batch is one store per site, cache
 * maintenance, then ONE membarrier SYNC_CORE (docs/porting.md).  x86-64's
 * int3 protocol costs at most 3 (trap byte, tails, first byte).  The count comes from
 * the runtime's own counters, not from timing: under qemu-user times mean
 * nothing, but the number of syncs per batch is exact.  Checked for one site,
 * 64 sites of one key, and a commit of 3 keys with 66 sites, with the writer
 * and sync method given by the environment (ctest runs each writer).
 */
#include <statickeys.h>

#include "../check.h"

#if defined(__riscv) && SK_HAVE_PATCHED_SITES
#define ARCH "riscv64"
#define SYNCS_MIN 1 /* exactly one, whatever the batch (icache.c) */
#define SYNCS_MAX 1
#elif defined(__s390x__) && SK_HAVE_PATCHED_SITES
#define ARCH "s390x"
#define SYNCS_MIN 1 /* exactly one, whatever the batch */
#define SYNCS_MAX 1
#elif defined(__powerpc64__) && SK_HAVE_PATCHED_SITES
#define ARCH "ppc64le"
#define SYNCS_MIN 1 /* exactly one, whatever the batch */
#define SYNCS_MAX 1
#elif defined(__loongarch__) && SK_HAVE_PATCHED_SITES
#define ARCH "loongarch64"
#define SYNCS_MIN 1 /* exactly one, whatever the batch (store_batch.c) */
#define SYNCS_MAX 1
#elif defined(__arm__) && SK_HAVE_PATCHED_SITES
#define ARCH "arm"
#define SYNCS_MIN 1 /* exactly one, whatever the batch (store_batch.c) */
#define SYNCS_MAX 1
#elif defined(__aarch64__) && SK_HAVE_PATCHED_SITES
#define ARCH "aarch64"
#define SYNCS_MIN 1 /* exactly one, whatever the batch */
#define SYNCS_MAX 1
#elif (defined(__x86_64__) || defined(__i386__)) && SK_HAVE_PATCHED_SITES
#define ARCH "x86"
#define SYNCS_MIN 1 /* the int3 protocol: at most 3 (the mprotect writer's */
#define SYNCS_MAX 3 /* closing protection change may stand for the last) */
#else /* nothing patched (portable backend): main() skips */
#define ARCH "none"
#define SYNCS_MIN 0
#define SYNCS_MAX 0
#endif

SK_DEFINE_KEY_FALSE(one_site);
SK_DEFINE_KEY_FALSE(many_sites);
SK_DEFINE_KEY_TRUE(third_key);

__attribute__((noinline)) static bool site_one(void)
{
	return sk_branch_unlikely(&one_site);
}

/* 64 sites of one key, each in its own function. */
#define SITE(n)                                                              \
	__attribute__((noinline)) static bool site_##n(void)                 \
	{                                                                    \
		return sk_branch_unlikely(&many_sites);                      \
	}
#define SITES8(n) SITE(n##0) SITE(n##1) SITE(n##2) SITE(n##3) SITE(n##4)    \
	SITE(n##5) SITE(n##6) SITE(n##7)
SITES8(1) SITES8(2) SITES8(3) SITES8(4) SITES8(5) SITES8(6) SITES8(7)
SITES8(8)
#define REF8(n) site_##n##0, site_##n##1, site_##n##2, site_##n##3,          \
	site_##n##4, site_##n##5, site_##n##6, site_##n##7
static bool (*const many[])(void) = { REF8(1), REF8(2), REF8(3), REF8(4),
				      REF8(5), REF8(6), REF8(7), REF8(8) };
#define NMANY (sizeof(many) / sizeof(many[0]))

__attribute__((noinline)) static bool third_likely(void)
{
	return sk_branch_likely(&third_key);
}

__attribute__((noinline)) static bool third_unlikely(void)
{
	return sk_branch_unlikely(&third_key);
}

static unsigned many_on(void)
{
	unsigned n = 0;

	for (size_t i = 0; i < NMANY; i++)
		n += many[i]();
	return n;
}

/* Run @what, then check the batch count, syncs and sites it reports. */
static void measure(const char *what, int (*flip)(void), uint64_t sites)
{
	struct sk_stats st;

	sk_stats_reset();
	CHECK(flip() == 0, "%s: update succeeds", what);
	CHECK(sk_stats_get(&st) == 0, "stats readable");
	printf("%s: %s, writer %s, sync %s: %llu sites, %llu batch(es), "
	       "%llu core sync(s), %llu per batch\n",
	       ARCH, what, st.writer, st.sync_method,
	       (unsigned long long)st.sites_written,
	       (unsigned long long)st.batches,
	       (unsigned long long)st.core_syncs,
	       (unsigned long long)(st.batches ? st.core_syncs / st.batches
					       : 0));
	CHECK(st.batches == 1, "%s: one batch (got %llu)", what,
	      (unsigned long long)st.batches);
	CHECK(st.sites_written == sites, "%s: %llu sites written (got %llu)",
	      what, (unsigned long long)sites,
	      (unsigned long long)st.sites_written);
	CHECK(st.core_syncs >= SYNCS_MIN && st.core_syncs <= SYNCS_MAX,
	      "%s: %d to %d core sync(s) per batch on %s (got %llu)", what,
	      SYNCS_MIN, SYNCS_MAX, ARCH, (unsigned long long)st.core_syncs);
	CHECK(st.traps_handled == 0 || SYNCS_MAX == 3,
	      "%s: no trap on %s (got %llu)", what, ARCH,
	      (unsigned long long)st.traps_handled);
}

static int enable_one(void) { return sk_key_enable(&one_site); }
static int enable_many(void) { return sk_key_enable(&many_sites); }
static int commit_three(void)
{
	struct sk_key_change c[] = {
		SK_KEY_CHANGE(&one_site, false),
		SK_KEY_CHANGE(&many_sites, false),
		SK_KEY_CHANGE(&third_key, false),
	};
	return sk_commit(c, 3);
}

int main(void)
{
#if !SK_HAVE_PATCHED_SITES
	skip_test("no patched sites on this architecture or compiler");
#else
	CHECK(!site_one() && many_on() == 0 && third_likely() &&
	      third_unlikely(), "sites start with their keys' initial states");
	measure("1 site", enable_one, 1);
	CHECK(site_one(), "the site now takes the on path");
	measure("64 sites of one key", enable_many, NMANY);
	CHECK(many_on() == NMANY, "all 64 sites take the on path (%u do)",
	      many_on());
	measure("commit of 3 keys, 67 sites", commit_three, 1 + NMANY + 2);
	CHECK(!site_one() && many_on() == 0 && !third_likely() &&
	      !third_unlikely(), "every site follows the commit");
	return check_summary();
#endif
}
