/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/exp_commit.c - experiment 4: K keys in one commit vs K updates.
 *
 * K = 1, 8, 64 keys of 8 sites each are turned on and then off, either with
 * one sk_commit() per direction or with K sk_key_enable()/disable() calls.
 * A commit is one batch: 3 core syncs whatever K is; separate updates cost
 * 3 syncs per key.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <statickeys.h>

#include "experiments.h"
#include "measure.h"
#include "options.h"
#include "sites.h"

#ifdef BENCH_HAVE_COMMIT
static int set_all(size_t k, bool on, bool commit)
{
	struct sk_key_change changes[64];

	if (commit) {
		for (size_t i = 0; i < k; i++) {
			changes[i].key = multi_groups[i].key;
			changes[i].enable = on;
		}
		return sk_commit(changes, k);
	}
	for (size_t i = 0; i < k; i++) {
		int r = on ? sk_key_enable(multi_groups[i].key)
			   : sk_key_disable(multi_groups[i].key);
		if (r)
			return r;
	}
	return 0;
}

static int run_one(struct json *j, size_t k, bool commit, long flips)
{
	struct samples us = { 0 };
	struct sk_stats s0, s1;
	int r = set_all(k, true, commit); /* untimed: first page faults */

	if (r == 0)
		r = set_all(k, false, commit);
	sk_stats_get(&s0);
	for (long f = 0; f < 2 * flips && r == 0; f++) {
		uint64_t t0 = bench_now_ns();
		r = set_all(k, f % 2 == 0, commit);
		samples_add(&us, (double)(bench_now_ns() - t0) / 1e3);
	}
	sk_stats_get(&s1);
	double syncs = (double)(s1.core_syncs - s0.core_syncs) / (2.0 * flips);
	const char *how = commit ? "commit" : "separate";
	printf("%6zu  %-9s %10.1f %10.1f %8.2f\n", k, how, samples_median(&us),
	       samples_quantile(&us, 0.99), syncs);
	json_object(j, NULL);
	json_int(j, "keys", (long long)k);
	json_int(j, "sites", (long long)(k * multi_groups[0].n));
	json_str(j, "mode", how);
	json_num(j, "median_us", samples_median(&us));
	json_num(j, "p99_us", samples_quantile(&us, 0.99));
	json_num(j, "syncs_per_change", syncs);
	json_int(j, "changes", 2 * flips);
	json_end(j);
	samples_free(&us);
	return r;
}

int exp_commit(int argc, char **argv, struct json *j)
{
	long flips = opt_long(argc, argv, "--flips", 20);
	static const size_t ks[] = { 1, 8, 64 };
	int r = 0;

	printf("multi-key commit: K keys x %zu sites, all on then all off, "
	       "%ld times\n", multi_groups[0].n, flips);
	printf("%6s  %-9s %10s %10s %8s\n", "keys", "how", "median_us",
	       "p99_us", "syncs");
	json_array(j, "commit");
	for (size_t i = 0; i < 3 && r == 0; i++)
		for (int c = 1; c >= 0 && r == 0; c--)
			r = run_one(j, ks[i], c, flips);
	json_end(j);
	if (r)
		printf("failed: %s\n", strerror(-r));
	return r ? 1 : 0;
}
#else
int exp_commit(int argc, char **argv, struct json *j)
{
	(void)argc;
	(void)argv;
	printf("multi-key commit: skipped, sk_commit() is not in this build\n");
	json_str(j, "skip_reason", "sk_commit() is not in this build");
	return BENCH_SKIPPED;
}
#endif
