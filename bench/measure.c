/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/measure.c - clocks, samples and CPU placement for the benchmarks.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure.h"

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double bench_ticks_per_ns(void)
{
	static double rate;

	if (rate > 0)
		return rate;
	/* Two clock reads 20 ms apart bracket the counter; the clock calls'
	 * own cost (tens of ns) is negligible against 20 ms. */
	uint64_t t0 = bench_now_ns(), c0 = bench_ticks();
	struct timespec d = { 0, 20 * 1000 * 1000 };
	nanosleep(&d, NULL);
	uint64_t t1 = bench_now_ns(), c1 = bench_ticks();
	rate = (double)(c1 - c0) / (double)(t1 - t0);
	return rate;
}

int bench_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0 ? 0 : -errno;
}

int bench_ncpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	return CPU_COUNT(&set);
}

void samples_add(struct samples *s, double x)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		double *v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			abort(); /* a benchmark without memory has no result */
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = x;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double samples_quantile(const struct samples *s, double q)
{
	if (s->n == 0)
		return 0;
	double *v = malloc(s->n * sizeof(*v));
	if (!v)
		abort();
	memcpy(v, s->v, s->n * sizeof(*v));
	qsort(v, s->n, sizeof(*v), cmp_double);
	/* Nearest rank: the smallest value with at least q of the samples at
	 * or below it; p99 of 20 samples is therefore the largest one. */
	size_t rank = (size_t)(q * (double)s->n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > s->n)
		rank = s->n;
	double r = v[rank - 1];
	free(v);
	return r;
}

double samples_median(const struct samples *s)
{
	return samples_quantile(s, 0.5);
}

double samples_min(const struct samples *s)
{
	return samples_quantile(s, 0.0);
}

double samples_max(const struct samples *s)
{
	return samples_quantile(s, 1.0);
}

void samples_free(struct samples *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
