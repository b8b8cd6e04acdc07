/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/measure.h - clocks, samples and CPU placement for the benchmarks.
 *
 * Every benchmark reports medians and spreads over repeated runs, never a
 * single measurement: on a shared 2-CPU machine one run says little.  The
 * CPU's tick counter is used where a clock call would be larger than what is
 * measured (the disturbance spinner); everything else uses CLOCK_MONOTONIC.
 */
#ifndef BENCH_MEASURE_H
#define BENCH_MEASURE_H

#include <stddef.h>
#include <stdint.h>

/* bench_now_ns - CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench_now_ns(void);

/* bench_ticks - a cheap counter of constant rate: the time-stamp counter on
 * x86, the virtual counter (cntvct_el0) on aarch64, CLOCK_MONOTONIC in
 * nanoseconds elsewhere (a vDSO call: slower, but the same meaning). */
static inline uint64_t bench_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	return bench_now_ns();
#endif
}

/* bench_ticks_per_ns - bench_ticks() per nanosecond, calibrated once (~20 ms). */
double bench_ticks_per_ns(void);

/* bench_pin_cpu - run the calling thread on @cpu only. Return: 0 or -errno. */
int bench_pin_cpu(int cpu);

/* bench_ncpus - CPUs this process may run on. */
int bench_ncpus(void);

/* struct samples - a growable list of measurements. */
struct samples {
	double *v;
	size_t n, cap;
};

void samples_add(struct samples *s, double x);
/* samples_quantile - nearest-rank quantile, @q in [0, 1]; 0 when empty. */
double samples_quantile(const struct samples *s, double q);
double samples_median(const struct samples *s);
double samples_min(const struct samples *s);
double samples_max(const struct samples *s);
void samples_free(struct samples *s);

#endif /* BENCH_MEASURE_H */
