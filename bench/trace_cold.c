/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/trace_cold.c - a disabled tracepoint's cost when the line its state
 * lives on has been evicted from the cache (what a rarely run path meets):
 * ours (no state: the site is one NOP), a sys/sdt.h probe under its
 * semaphore, a plain flag and, when built with it, an LTTng-UST 2.13
 * tracepoint.
 *
 *	bench_trace_cold [ROUNDS]
 *
 * Each round flushes the state's line (clflush, then mfence), then times
 * one call between two serialised time-stamp reads (rdtscp + lfence); the
 * same with nothing in between is the floor, subtracted.  Prints the median
 * and 90th percentile in cycles of the TSC, and one JSON line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

#include <statickeys/trace.h>

/* Without sys/sdt.h the semaphore's probe is a bare NOP: the disabled path,
 * which is what is measured, is the same load and branch. */
#ifndef SK__TRACE_HAVE_USDT
#undef SK__SDT_PROBE_N
#define SK__SDT_PROBE_N(provider, name, n, ...) __asm__ __volatile__("nop")
#endif

SK_DECLARE_TRACE(cold, tick, SK_TP_PROTO(long i), SK_TP_ARGS(i));
SK_DEFINE_TRACE(cold, tick, SK_TP_PROTO(long i), SK_TP_ARGS(i));

__attribute__((used, section(".probes"))) volatile unsigned short
	sk__tp_cold_usdt_semaphore;
int cold_flag;
__attribute__((noinline)) void cold_event(long i)
{
	__asm__ __volatile__("" ::"r"(i));
}

#ifdef TRACE_COLD_LTTNG
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "trace_lttng_tp.h"
#endif

enum { V_FLOOR, V_OURS, V_USDT, V_FLAG, V_LTTNG, V_N };
static const char *const names[V_N] = { "floor", "statickeys", "usdt_semaphore",
					"flag", "lttng_ust" };

static int cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	return x < y ? -1 : x > y;
}

/* One timed call of variant @v with @line flushed first. */
static __attribute__((noinline)) unsigned long one(int v, const void *line,
						   long i)
{
	unsigned int aux;
	_mm_clflush(line);
	_mm_mfence();
	unsigned long t0 = __rdtscp(&aux);
	_mm_lfence();
	switch (v) {
	case V_OURS:
		sk_trace_cold_tick(i);
		break;
	case V_USDT:
		if (__builtin_expect(sk__tp_cold_usdt_semaphore, 0))
			SK__SDT_PROBE_N(cold, usdt, 1, i);
		break;
	case V_FLAG:
		if (__builtin_expect(__atomic_load_n(&cold_flag, __ATOMIC_RELAXED), 0))
			cold_event(i);
		break;
#ifdef TRACE_COLD_LTTNG
	case V_LTTNG:
		lttng_ust_tracepoint(bench, tick, i);
		break;
#endif
	default:
		break;
	}
	unsigned long t1 = __rdtscp(&aux);
	_mm_lfence();
	return t1 - t0;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20000;
	const void *lines[V_N] = { &cold_flag, &sk__tp_cold_tick,
				   (const void *)&sk__tp_cold_usdt_semaphore,
				   &cold_flag, &cold_flag };
#ifdef TRACE_COLD_LTTNG
	lines[V_LTTNG] = &lttng_ust_tracepoint_bench___tick;
	int nv = V_N;
#else
	int nv = V_LTTNG;
#endif
	unsigned long *t = malloc(sizeof(*t) * (size_t)rounds);
	double med[V_N], p90[V_N];

	for (int v = 0; v < nv; v++) {
		for (long r = 0; r < rounds; r++)
			t[r] = one(v, lines[v], r);
		qsort(t, (size_t)rounds, sizeof(*t), cmp);
		med[v] = (double)t[rounds / 2];
		p90[v] = (double)t[rounds * 9 / 10];
	}
	printf("%-16s %14s %14s   (TSC cycles, line flushed, floor %.0f subtracted)\n",
	       "disabled, cold", "median", "90th pct", med[V_FLOOR]);
	for (int v = 1; v < nv; v++)
		printf("%-16s %14.0f %14.0f\n", names[v], med[v] - med[V_FLOOR],
		       p90[v] - p90[V_FLOOR]);
	printf("{\"measured\": \"TSC cycles of one disabled tracepoint with its state's line flushed, floor subtracted\"");
	for (int v = 1; v < nv; v++)
		printf(", \"%s\": {\"median\": %.0f, \"p90\": %.0f}", names[v],
		       med[v] - med[V_FLOOR], p90[v] - p90[V_FLOOR]);
	printf("}\n");
	free(t);
	return 0;
}
