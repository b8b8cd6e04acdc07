/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/exp_traps.c - experiment 5b: how many threads trap per flip.
 *
 * A hammer thread executes every site of the key in a loop while the main
 * thread flips the key.  A thread that reaches a site between step 1 and
 * step 3 of the protocol traps and is resumed by the SIGTRAP handler.
 * Batched, a site is trapped for the duration of one batch (3 syncs); one
 * by one, each site is trapped only for its own 3 syncs, but the flip as a
 * whole lasts N times longer.  The kernel's batching patch reported 10%
 * fewer int3 hits; this measures ours.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <statickeys.h>

#include "experiments.h"
#include "measure.h"
#include "options.h"
#include "sites.h"

struct hammer {
	const struct site_group *g;
	volatile int stop;
	unsigned long rounds;
	int cpu;
};

static void *hammer_main(void *arg)
{
	struct hammer *h = arg;

	if (h->cpu >= 0)
		(void)bench_pin_cpu(h->cpu);
	while (!h->stop) {
		site_group_run(h->g);
		h->rounds++;
	}
	return NULL;
}

static int run_one(struct json *j, const struct site_group *g,
		   const char *mode, long flips)
{
	struct hammer h = { .g = g, .cpu = bench_ncpus() > 1 ? 1 : -1 };
	struct samples us = { 0 };
	struct sk_stats s0, s1;
	pthread_t t;
	double on, off;
	int r = bench_set_mode(mode);

	if (r)
		return r;
	if (pthread_create(&t, NULL, hammer_main, &h) != 0)
		return -EAGAIN;
	sk_stats_get(&s0);
	for (long f = 0; f < flips && r == 0; f++) {
		r = bench_flip(g->key, &on, &off);
		samples_add(&us, on);
		samples_add(&us, off);
	}
	sk_stats_get(&s1);
	h.stop = 1;
	pthread_join(t, NULL);
	double traps = (double)(s1.traps_handled - s0.traps_handled) / (2.0 * flips);
	printf("%8zu  %-11s %12.2f %12.1f %10lu\n", g->n, mode, traps,
	       samples_median(&us), h.rounds);
	json_object(j, NULL);
	json_int(j, "sites", (long long)g->n);
	json_str(j, "mode", mode);
	json_num(j, "traps_per_flip", traps);
	json_num(j, "flip_median_us", samples_median(&us));
	json_int(j, "flips", 2 * flips);
	json_int(j, "hammer_rounds", (long long)h.rounds);
	json_end(j);
	samples_free(&us);
	(void)bench_set_mode("batched");
	return r;
}

int exp_trap_hits(int argc, char **argv, struct json *j)
{
	long flips = opt_long(argc, argv, "--flips", 200);
	static const size_t sizes[] = { 56, 1000 };
	static const char *const modes[] = { "batched", "one_by_one" };
	int r = 0;
	const char *no_traps = bench_no_traps_reason();

	if (no_traps) {
		printf("trap hits: skipped, %s\n", no_traps);
		json_str(j, "skip_reason", no_traps);
		return BENCH_SKIPPED;
	}
	(void)bench_pin_cpu(0);
	printf("trap hits: a thread runs every site in a loop while the key "
	       "flips %ld times each way\n", flips);
	printf("%8s  %-11s %12s %12s %10s\n", "sites", "mode",
	       "traps/flip", "flip_us", "rounds");
	json_array(j, "trap_hits");
	for (size_t i = 0; i < 2 && r == 0; i++)
		for (size_t m = 0; m < 2 && r == 0; m++)
			r = run_one(j, site_group_by_sites(sizes[i]), modes[m],
				    flips);
	json_end(j);
	if (r)
		printf("failed: %s\n", strerror(-r));
	return r ? 1 : 0;
}
