/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/support/stats.c - counters and duration histograms, and the public
 * functions that read only them (sk_stats_reset, sk_stats_histogram,
 * sk_hist_*).
 *
 * A leaf: the OS writers and core syncs and the layers above count here,
 * and core/stats_get.c (sk_stats_get) adds the names of the mechanisms in use.
 *
 * The trap handler's counters are relaxed atomic adds (it counts from
 * signal context, in any thread).  Every other counter and the histograms
 * are written only by the holder of the patch lock, which already
 * serialises updates: plain loads and stores (relaxed atomics, so that a
 * reader, which never takes the lock to look, reads whole words), no
 * atomic read-modify-write on the update path.  sk_stats_reset() racing an
 * update may leave that update's counts in place.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "statickeys/export.h"
#include "support/stats.h"

static uint64_t counters[SK__C_COUNT];
static struct sk_histogram hists[SK_HIST_COUNT];

static const uint64_t bucket_bound_ns[SK_HIST_BUCKETS] = {
	1000,	  5000,	    10000,    50000,	 100000,   500000,
	1000000,  5000000,  10000000, 50000000, 100000000, UINT64_MAX,
};

static const char *const hist_names[SK_HIST_COUNT] = {
	"update_latency",
	"lock_hold",
	"lock_wait",
};

void sk__count(enum sk__counter c, uint64_t n)
{
	__atomic_fetch_add(&counters[c], n, __ATOMIC_RELAXED);
}

/* A word only the patch lock's holder writes: read, add, store. */
static void add_held(uint64_t *p, uint64_t n)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + n,
			 __ATOMIC_RELAXED);
}

void sk__count_held(enum sk__counter c, uint64_t n)
{
	add_held(&counters[c], n);
}

uint64_t sk__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void sk__hist_record_held(enum sk_hist h, uint64_t ns)
{
	struct sk_histogram *hist = &hists[h];
	int i = 0;

	while (ns >= bucket_bound_ns[i] && i < SK_HIST_BUCKETS - 1)
		i++;
	add_held(&hist->buckets[i], 1);
	add_held(&hist->count, 1);
	add_held(&hist->sum_ns, ns);
	if (ns > __atomic_load_n(&hist->max_ns, __ATOMIC_RELAXED))
		__atomic_store_n(&hist->max_ns, ns, __ATOMIC_RELAXED);
}

static uint64_t load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

uint64_t sk__counter(enum sk__counter c)
{
	return load(&counters[c]);
}

SK_API void sk_stats_reset(void)
{
	for (int i = 0; i < SK__C_COUNT; i++)
		__atomic_store_n(&counters[i], 0, __ATOMIC_RELAXED);
	for (int h = 0; h < SK_HIST_COUNT; h++) {
		uint64_t *words = (uint64_t *)&hists[h];
		for (size_t i = 0; i < sizeof(hists[h]) / sizeof(uint64_t); i++)
			__atomic_store_n(&words[i], 0, __ATOMIC_RELAXED);
	}
}

SK_API int sk_stats_histogram(int which, struct sk_histogram *out)
{
	if (which < 0 || which >= SK_HIST_COUNT || !out)
		return -EINVAL;
	const uint64_t *src = (const uint64_t *)&hists[which];
	uint64_t *dst = (uint64_t *)out;
	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = load(&src[i]);
	return 0;
}

SK_API uint64_t sk_hist_bucket_bound_ns(int i)
{
	if (i < 0 || i >= SK_HIST_BUCKETS)
		return 0;
	return bucket_bound_ns[i];
}

SK_API const char *sk_hist_name(int which)
{
	if (which < 0 || which >= SK_HIST_COUNT)
		return NULL;
	return hist_names[which];
}
