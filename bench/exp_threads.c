/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/exp_threads.c - experiment 8: does a flip get slower with threads?
 *
 * The 1-site key is flipped with 1, 10, 100 and 500 threads in the process
 * (the others idle in pause(), as a thread pool waiting for work does).
 * Before each flip the runtime must know that no thread blocks SIGTRAP; the
 * question is what that costs as threads are added.  Threads are added to
 * the same process, so every row is measured in one run, side by side.
 *
 * After the threads of a row are created, one untimed flip comes first: the
 * thread count changed, so it scans every thread once.  The timed flips then
 * show the steady state; a full re-scan still happens at most once a second
 * (src/os/linux/threads_check.c), which the p99 and mean columns include when a row
 * runs that long.
 *
 * --mode NAME only labels the rows: run_bench.py also runs this experiment
 * with STATICKEYS_KEEP_SIGTRAP=0, where every update scans every thread,
 * as a reference ("scan_every_update").
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <statickeys.h>

#include "experiments.h"
#include "measure.h"
#include "options.h"
#include "sites.h"

static const long all_threads[] = { 1, 10, 100, 500 };

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* Grow the process to @want threads in all (this one included). */
static int add_threads(long *have, long want)
{
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024); /* 500 x 8 MiB is silly */
	for (; *have < want; (*have)++) {
		pthread_t t;
		int r = pthread_create(&t, &attr, idle_thread, NULL);
		if (r) {
			pthread_attr_destroy(&attr);
			return -r;
		}
		pthread_detach(t);
	}
	pthread_attr_destroy(&attr);
	return 0;
}

int exp_threads(int argc, char **argv, struct json *j)
{
	long flips = opt_long(argc, argv, "--flips", 200);
	const char *mode = opt_str(argc, argv, "--mode", "default");
	const struct site_group *g = site_group_by_sites(1);
	long have = 1;
	double base = 0;
	int r = 0;

	if (!g)
		return 1;
	printf("flip latency vs threads in the process (%s): 1-site key, %ld "
	       "flips each way\n", mode, flips);
	printf("%8s %10s %10s %10s %8s\n", "threads", "median_us", "p99_us",
	       "mean_us", "ratio");
	json_array(j, "threads");
	for (size_t i = 0; i < sizeof(all_threads) / sizeof(all_threads[0]) &&
			   r == 0; i++) {
		struct samples us = { 0 };
		double on, off, sum = 0;

		r = add_threads(&have, all_threads[i]);
		if (r == 0)
			r = bench_flip(g->key, &on, &off); /* the new threads' scan */
		for (long f = 0; f < flips && r == 0; f++) {
			r = bench_flip(g->key, &on, &off);
			samples_add(&us, on);
			samples_add(&us, off);
			sum += on + off;
		}
		if (r) {
			printf("%8ld failed: %s\n", all_threads[i], strerror(-r));
			samples_free(&us);
			break;
		}
		double med = samples_median(&us);
		if (i == 0)
			base = med;
		printf("%8ld %10.2f %10.2f %10.2f %8.2f\n", all_threads[i], med,
		       samples_quantile(&us, 0.99), sum / (2.0 * flips),
		       med / base);
		json_object(j, NULL);
		json_int(j, "threads", all_threads[i]);
		json_str(j, "mode", mode);
		json_num(j, "median_us", med);
		json_num(j, "p99_us", samples_quantile(&us, 0.99));
		json_num(j, "mean_us", sum / (2.0 * flips));
		json_num(j, "ratio_to_1_thread", med / base);
		json_int(j, "flips", 2 * flips);
		json_end(j);
		samples_free(&us);
	}
	json_end(j);
	return r ? 1 : 0;
}
