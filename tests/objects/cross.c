/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/cross.c - keys and sites in different linked objects.
 *
 *	sko_cross exe_key_lib_sites        program keys, sites in both libraries
 *	sko_cross lib_key_exe_sites        libsko_a keys, sites in the program
 *	sko_cross lib_key_other_lib_sites  libsko_a keys, sites in libsko_b
 *	sko_cross one_batch_across_objects a key with sites in 3 objects flips
 *	                                   in one batch (<= 3 core syncs), in a
 *	                                   process with threads
 *	sko_cross one_thread_whole_sites   the same in a process that never
 *	                                   had a thread: each site written
 *	                                   whole, one write per run, one sync
 *
 * Each key (one of each type) goes through enable, disable, inc, inc, dec,
 * dec, enable, disable; after every call both its likely and its unlikely
 * site in every object named must show the key's state.  The same source is
 * built against the shared library, the static library, as PIE and non-PIE
 * and with -Wl,--gc-sections (see CMakeLists.txt).
 */
#include <errno.h>
#include <string.h>

#include "../check.h"
#include "../wait_for.h"
#include "keys.h"

static struct sk_key *const keys[SKO_NKEYS] = {
	[SKO_EXE_FALSE] = &exe_key_false.key,
	[SKO_EXE_TRUE] = &exe_key_true.key,
	[SKO_LIB_FALSE] = &lib_key_false.key,
	[SKO_LIB_TRUE] = &lib_key_true.key,
};

struct where {
	const char *name;
	sko_probe_fn probe;
};

static const struct where exe = { "the program", sko_exe_probe };
static const struct where lib_a = { "libsko_a", sko_lib_a_probe };
static const struct where lib_b = { "libsko_b", sko_lib_b_probe };

enum op { ENABLE, DISABLE, INC, DEC };
static const char *const op_names[] = { "enable", "disable", "inc", "dec" };
static const enum op sequence[] = { ENABLE, DISABLE, INC, INC,
				    DEC,    DEC,     ENABLE, DISABLE };

static int do_op(struct sk_key *key, enum op op, int *count)
{
	switch (op) {
	case ENABLE:
		*count = *count ? *count : 1;
		return sk_key_enable(key);
	case DISABLE:
		*count = *count == 1 ? 0 : *count;
		return sk_key_disable(key);
	case INC:
		++*count;
		return sk_key_inc(key);
	default:
		--*count;
		return sk_key_dec(key);
	}
}

static void verify(int id, const struct where *w, size_t nw, bool on,
		   const char *after)
{
	CHECK(sk_key_enabled(keys[id]) == on, "%s: %s reads %d, expected %d",
	      after, sko_key_name(id), sk_key_enabled(keys[id]), on);
	for (size_t i = 0; i < nw; i++) {
		unsigned got = w[i].probe(id);
		CHECK(got == (on ? PROBE_ON : PROBE_OFF),
		      "%s: sites of %s in %s show %#x (likely bit 0, unlikely "
		      "bit 1), expected %#x",
		      after, sko_key_name(id), w[i].name, got,
		      on ? PROBE_ON : PROBE_OFF);
	}
}

/* Run the call sequence on key @id, checking the sites in @w after each. */
static void run_sequence(int id, const struct where *w, size_t nw)
{
	struct sk_key *key = keys[id];
	int count = sk_key_count(key);
	char after[96];

	verify(id, w, nw, count > 0, "initially");
	for (size_t i = 0; i < sizeof(sequence) / sizeof(sequence[0]); i++) {
		int r = do_op(key, sequence[i], &count);
		snprintf(after, sizeof(after), "after step %zu (%s)", i + 1,
			 op_names[sequence[i]]);
		CHECK(r == 0, "%s of %s returned %d (%s)", after,
		      sko_key_name(id), r, strerror(-r));
		verify(id, w, nw, count > 0, after);
	}
	/* Back to the initial state for the next case. */
	bool initially_on = id == SKO_EXE_TRUE || id == SKO_LIB_TRUE;
	if (initially_on)
		CHECK(sk_key_enable(key) == 0, "re-enabling %s", key->name);
	verify(id, w, nw, initially_on, "at the end");
}

static void exe_key_lib_sites(void)
{
	const struct where w[] = { exe, lib_a, lib_b };

	run_sequence(SKO_EXE_FALSE, w, 3);
	run_sequence(SKO_EXE_TRUE, w, 3);
}

static void lib_key_exe_sites(void)
{
	run_sequence(SKO_LIB_FALSE, &exe, 1);
	run_sequence(SKO_LIB_TRUE, &exe, 1);
}

static void lib_key_other_lib_sites(void)
{
	const struct where w[] = { lib_b, lib_a };

	run_sequence(SKO_LIB_FALSE, w, 2);
	run_sequence(SKO_LIB_TRUE, w, 2);
}

static struct sk_stats stats_now(void)
{
	struct sk_stats s;

	memset(&s, 0, sizeof(s));
	CHECK(sk_stats_get(&s) == 0, "sk_stats_get");
	return s;
}

/* lib_key_false has 2 sites in each of 3 objects: one batch, <= 3 syncs;
 * with a batch limit of 1 site the same flip needs a protocol per site,
 * which shows the counter really counts what the limit changes. */
static void one_batch_across_objects(void)
{
	const struct where w[] = { exe, lib_a, lib_b };

	become_threaded(); /* the protocol of a process with threads */
	struct sk_stats s0 = stats_now();

	CHECK(sk_key_enable(&lib_key_false) == 0, "enable lib_key_false");
	struct sk_stats s1 = stats_now();
	verify(SKO_LIB_FALSE, w, 3, true, "after enable");
	printf("one flip, sites in 3 objects: %llu sites, %llu batches, "
	       "%llu core syncs (%s, %s)\n",
	       (unsigned long long)(s1.sites_written - s0.sites_written),
	       (unsigned long long)(s1.batches - s0.batches),
	       (unsigned long long)(s1.core_syncs - s0.core_syncs), s1.writer,
	       s1.sync_method);
	CHECK(s1.sites_written - s0.sites_written >= 6,
	      "at least 2 sites in each of 3 objects changed (%llu)",
	      (unsigned long long)(s1.sites_written - s0.sites_written));
	CHECK(s1.batches - s0.batches == 1, "one batch (%llu)",
	      (unsigned long long)(s1.batches - s0.batches));
	CHECK(s1.core_syncs - s0.core_syncs <= 3, "at most 3 core syncs (%llu)",
	      (unsigned long long)(s1.core_syncs - s0.core_syncs));

	CHECK(sk_config_set_batch_limit(1) == 0, "batch limit 1");
	CHECK(sk_key_disable(&lib_key_false) == 0, "disable lib_key_false");
	struct sk_stats s2 = stats_now();
	CHECK(sk_config_set_batch_limit(0) == 0, "batch limit back to none");
	verify(SKO_LIB_FALSE, w, 3, false, "after disable");
	printf("the same flip one site per batch: %llu batches, %llu core "
	       "syncs\n",
	       (unsigned long long)(s2.batches - s1.batches),
	       (unsigned long long)(s2.core_syncs - s1.core_syncs));
#if (defined(__aarch64__) || defined(__riscv) || defined(__powerpc64__) || \
     defined(__s390x__) || defined(__loongarch__) || defined(__arm__)) &&     \
	SK_HAVE_PATCHED_SITES
	/* aarch64, riscv64, ppc64le, s390x, loongarch64, arm: no trap protocol,
	 * one core sync per batch whatever its size (docs/porting.md). */
	CHECK(s1.core_syncs - s0.core_syncs == 1, "aarch64: 1 core sync (%llu)",
	      (unsigned long long)(s1.core_syncs - s0.core_syncs));
	CHECK(s2.batches - s1.batches >= 6 &&
		      s2.core_syncs - s1.core_syncs == s2.batches - s1.batches,
	      "aarch64: one site per batch costs 1 sync per site (%llu syncs, "
	      "%llu batches)",
	      (unsigned long long)(s2.core_syncs - s1.core_syncs),
	      (unsigned long long)(s2.batches - s1.batches));
#else
	CHECK(s2.core_syncs - s1.core_syncs >= 2 * 6,
	      "one site per batch costs >= 2 syncs per site (%llu)",
	      (unsigned long long)(s2.core_syncs - s1.core_syncs));
#endif
}

/* No thread ever made (x86, procmem: a write is one system call): each
 * site of the batch is written whole, once, and the batch syncs once. */
static void one_thread_whole_sites(void)
{
	const struct where w[] = { exe, lib_a, lib_b };
	struct sk_stats s0 = stats_now();

	CHECK(sk_key_enable(&lib_key_false) == 0, "enable lib_key_false");
	struct sk_stats s1 = stats_now();
	verify(SKO_LIB_FALSE, w, 3, true, "after enable");
	CHECK(sk_key_disable(&lib_key_false) == 0, "disable lib_key_false");
	verify(SKO_LIB_FALSE, w, 3, false, "after disable");
	unsigned long long sites = s1.sites_written - s0.sites_written,
			   writes = s1.text_writes - s0.text_writes,
			   syncs = s1.core_syncs - s0.core_syncs;
	printf("one thread: %llu sites, %llu writes, %llu core syncs (%s)\n",
	       sites, writes, syncs, s1.writer);
	/* The portable backend writes no code (its sites test a flag). */
	if (SK_HAVE_PATCHED_SITES)
		CHECK(sites >= 6, "sites in 3 objects changed (%llu)", sites);
	if (SK_HAVE_PATCHED_SITES && strcmp(s1.writer, "procmem") == 0 &&
	    strcmp(s1.backend, "x86_64") == 0) {
		CHECK(writes <= sites, "at most one write per site (%llu "
		      "writes, %llu sites)", writes, sites);
		CHECK(syncs == 1, "one core sync (%llu)", syncs);
	}
}

static const struct check_case cases[] = {
	{ "exe_key_lib_sites", exe_key_lib_sites },
	{ "lib_key_exe_sites", lib_key_exe_sites },
	{ "lib_key_other_lib_sites", lib_key_other_lib_sites },
	{ "one_batch_across_objects", one_batch_across_objects },
	{ "one_thread_whole_sites", one_thread_whole_sites },
};

int main(int argc, char **argv)
{
	return check_run_cases(cases, sizeof(cases) / sizeof(cases[0]), argc,
			       argv);
}
