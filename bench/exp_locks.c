/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/exp_locks.c - experiment 7: patch-lock hold and wait times.
 *
 * Two threads flip two different 56-site keys as fast as they can, so they
 * contend for the patch lock; two more threads take and drop a reference on
 * a third key that is already on (sk_key_inc/sk_key_dec).  That is the fast
 * path: a compare-and-swap on the count, never the lock, so it must never
 * wait for an updater however long the updates hold the lock -- the
 * discipline of the kernel's 2023 cgroup rstat lock-hold change, measured
 * the same way: histograms in buckets of 0-1, 1-5, 5-10, ... us.
 *
 * Then fairness: N = 2, 4 and 8 threads each flip a 56-site key of their
 * own as fast as they can (--fair-ms each, default --ms).  A lock that lets
 * the releasing thread take it straight back can pass a waiter over again
 * and again; one that hands it to a waiter that has already lost once
 * bounds every wait by the holds queued ahead of it.  Each row has the
 * runtime's longest wait and longest hold, and the ratio
 * max wait / ((N-1) x max hold): (N-1) holds is a FIFO queue's worst case,
 * and the goal is <= 4.0.  The fewest flips of any thread, against the
 * mean, shows a starved thread directly.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <statickeys.h>

#include "experiments.h"
#include "measure.h"
#include "options.h"
#include "sites.h"

struct worker {
	const struct site_group *g;
	volatile int *stop;
	bool fast_path;
	int error;
	uint64_t ops;
	uint64_t hist[SK_HIST_BUCKETS];
	uint64_t max_ns;
};

static void record(struct worker *w, uint64_t ns)
{
	int b = 0;

	while (b < SK_HIST_BUCKETS - 1 && ns >= sk_hist_bucket_bound_ns(b))
		b++;
	w->hist[b]++;
	if (ns > w->max_ns)
		w->max_ns = ns;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	double on, off;

	while (!*w->stop && !w->error) {
		if (!w->fast_path) {
			w->error = bench_flip(w->g->key, &on, &off);
			w->ops += 2;
			continue;
		}
		uint64_t t0 = bench_now_ns();
		w->error = sk_key_inc(w->g->key);
		uint64_t t1 = bench_now_ns();
		if (!w->error)
			w->error = sk_key_dec(w->g->key);
		uint64_t t2 = bench_now_ns();
		record(w, t1 - t0);
		record(w, t2 - t1);
		w->ops += 2;
	}
	return NULL;
}

static void emit_hist(struct json *j, const char *name, const uint64_t *b,
		      uint64_t count, uint64_t max_ns)
{
	json_object(j, name);
	json_int(j, "count", (long long)count);
	json_int(j, "max_ns", (long long)max_ns);
	json_array(j, "buckets");
	for (int i = 0; i < SK_HIST_BUCKETS; i++)
		json_int(j, NULL, (long long)b[i]);
	json_end(j);
	json_end(j);
}

static void print_row(const char *name, const uint64_t *b, uint64_t max_ns)
{
	printf("%-10s", name);
	for (int i = 0; i < SK_HIST_BUCKETS; i++)
		printf(" %8llu", (unsigned long long)b[i]);
	printf("  max %.1f us\n", (double)max_ns / 1e3);
}

static void report(struct json *j, const struct worker *w, size_t n)
{
	struct sk_histogram hold, wait;
	uint64_t fast[SK_HIST_BUCKETS] = { 0 }, fast_n = 0, fast_max = 0;

	sk_stats_histogram(SK_HIST_LOCK_HOLD, &hold);
	sk_stats_histogram(SK_HIST_LOCK_WAIT, &wait);
	for (size_t i = 0; i < n; i++) {
		if (!w[i].fast_path)
			continue;
		for (int b = 0; b < SK_HIST_BUCKETS; b++) {
			fast[b] += w[i].hist[b];
			fast_n += w[i].hist[b];
		}
		if (w[i].max_ns > fast_max)
			fast_max = w[i].max_ns;
	}
	printf("%-10s", "bucket");
	static const char *const lbl[SK_HIST_BUCKETS] = {
		"0-1us", "1-5us", "5-10us", "10-50us", "50-100us", "100-500us",
		"0.5-1ms", "1-5ms", "5-10ms", "10-50ms", "50-100ms", ">100ms" };
	for (int i = 0; i < SK_HIST_BUCKETS; i++)
		printf(" %8s", lbl[i]);
	printf("\n");
	print_row("lock_hold", hold.buckets, hold.max_ns);
	print_row("lock_wait", wait.buckets, wait.max_ns);
	print_row("fast_path", fast, fast_max);
	json_object(j, "locks");
	json_array(j, "bucket_labels");
	for (int i = 0; i < SK_HIST_BUCKETS; i++)
		json_str(j, NULL, lbl[i]);
	json_end(j);
	emit_hist(j, "lock_hold", hold.buckets, hold.count, hold.max_ns);
	emit_hist(j, "lock_wait", wait.buckets, wait.count, wait.max_ns);
	emit_hist(j, "fast_path", fast, fast_n, fast_max);
	json_int(j, "flips", (long long)(w[0].ops + w[1].ops));
}

/* The goal: no wait longer than this many times (N-1) longest holds. */
#define FAIR_GOAL 4.0

/* fair_row - @n threads flip keys of their own for @ms; one row of the
 * fairness table and of "fairness" in the JSON.  Return: 0 or -errno. */
static int fair_row(struct json *j, size_t n, long ms)
{
	volatile int stop = 0;
	struct worker w[LOCK_UPDATER_KEYS];
	pthread_t t[LOCK_UPDATER_KEYS];
	struct sk_histogram hold, wait;
	int r = 0;

	memset(w, 0, sizeof(w));
	sk_stats_reset();
	for (size_t i = 0; i < n; i++) {
		w[i].g = &lock_groups[i];
		w[i].stop = &stop;
		if (pthread_create(&t[i], NULL, worker_main, &w[i]) != 0)
			return -EAGAIN;
	}
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&d, NULL);
	stop = 1;
	uint64_t min_ops = UINT64_MAX, sum_ops = 0;
	for (size_t i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		if (w[i].error)
			r = w[i].error;
		sum_ops += w[i].ops;
		if (w[i].ops < min_ops)
			min_ops = w[i].ops;
	}
	sk_stats_histogram(SK_HIST_LOCK_HOLD, &hold);
	sk_stats_histogram(SK_HIST_LOCK_WAIT, &wait);
	double mean = (double)sum_ops / (double)n;
	double ratio = hold.max_ns ? (double)wait.max_ns /
				     ((double)(n - 1) * (double)hold.max_ns)
				   : 0;
	const char *verdict = ratio <= FAIR_GOAL ? "MET" : "MISSED";
	printf("%7zu %12.1f %12.1f %8.2f %8s %10llu %10.0f\n", n,
	       (double)wait.max_ns / 1e3, (double)hold.max_ns / 1e3, ratio,
	       verdict, (unsigned long long)min_ops, mean);
	json_object(j, NULL);
	json_int(j, "threads", (long long)n);
	json_int(j, "max_wait_ns", (long long)wait.max_ns);
	json_int(j, "max_hold_ns", (long long)hold.max_ns);
	json_int(j, "waits", (long long)wait.count);
	json_num(j, "ratio", ratio);
	json_num(j, "goal", FAIR_GOAL);
	json_str(j, "verdict", verdict);
	json_int(j, "min_thread_flips", (long long)min_ops);
	json_num(j, "mean_thread_flips", mean);
	json_end(j);
	return r;
}

static int fairness(struct json *j, long ms)
{
	static const size_t ns[] = { 2, 4, 8 };
	int r = 0;

	printf("\nfairness: N threads each flip a 56-site key of their own, "
	       "%ld ms each; ratio = max wait / ((N-1) x max hold), goal "
	       "<= %.1f\n", ms, FAIR_GOAL);
	printf("%7s %12s %12s %8s %8s %10s %10s\n", "threads", "max wait us",
	       "max hold us", "ratio", "verdict", "min flips", "mean flips");
	json_num(j, "fairness_goal", FAIR_GOAL);
	json_array(j, "fairness");
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]) && !r; i++)
		r = fair_row(j, ns[i], ms);
	json_end(j);
	return r;
}

int exp_locks(int argc, char **argv, struct json *j)
{
	long ms = opt_long(argc, argv, "--ms", 2000);
	long fair_ms = opt_long(argc, argv, "--fair-ms", ms);
	volatile int stop = 0;
	const struct site_group *fast = &lock_groups[LOCK_FAST_KEY];
	struct worker w[4] = {
		{ &lock_groups[0], &stop, false }, { &lock_groups[1], &stop, false },
		{ fast, &stop, true },  { fast, &stop, true },
	};
	pthread_t t[4];
	int r = sk_key_enable(fast->key);

	if (r)
		return 1;
	printf("lock hold/wait: 2 threads flip 2 keys, 2 threads inc/dec an "
	       "enabled key, %ld ms\n", ms);
	sk_stats_reset();
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, worker_main, &w[i]) != 0)
			return 1;
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&d, NULL);
	stop = 1;
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		if (w[i].error)
			r = w[i].error;
	}
	report(j, w, 4);
	if (!r)
		r = sk_key_disable(fast->key);
	if (!r)
		r = fairness(j, fair_ms);
	json_end(j);
	if (r)
		printf("failed: %s\n", strerror(-r));
	return r ? 1 : 0;
}
