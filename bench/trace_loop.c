/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/trace_loop.c - the cost of a disabled tracepoint, one per loop
 * iteration, for counting under cachegrind (bench/trace_cost.sh).
 *
 *	trace_loop_<variant> ITERATIONS
 *
 * Variants (TRACE_VARIANT): 0 the empty loop; 1 ours (sk_trace_*, off);
 * 2 a sys/sdt.h probe under its semaphore (the USDT idiom:
 * if (sem) STAP_PROBE); 3 a plain flag; 4 an LTTng-UST 2.13 tracepoint
 * (built when liblttng-ust-dev is installed).  As in branch_loop.c, the memory
 * clobber after each check keeps a flag from being hoisted out of the loop.
 */
#include <stdlib.h>

#include <statickeys/trace.h>

/* Without sys/sdt.h the semaphore's probe is a bare NOP: the disabled path,
 * which is what is measured, is the same load and branch. */
#ifndef SK__TRACE_HAVE_USDT
#undef SK__SDT_PROBE_N
#define SK__SDT_PROBE_N(provider, name, n, ...) __asm__ __volatile__("nop")
#endif

#ifndef TRACE_VARIANT
#error "define TRACE_VARIANT"
#endif

#if TRACE_VARIANT == 1
SK_DECLARE_TRACE(bench, tick, SK_TP_PROTO(long i), SK_TP_ARGS(i));
SK_DEFINE_TRACE(bench, tick, SK_TP_PROTO(long i), SK_TP_ARGS(i));
#define CHECK(i) sk_trace_bench_tick(i)
#elif TRACE_VARIANT == 2
/* The semaphore as dtrace -G's headers define it, under the name
 * trace.h's note macro gives it (sys/sdt.h with _SDT_HAS_SEMAPHORES would
 * need one for every probe of the file). */
__attribute__((used, section(".probes"))) volatile unsigned short
	sk__tp_bench_tick_semaphore;
#define CHECK(i)                                                             \
	do {                                                                 \
		if (__builtin_expect(sk__tp_bench_tick_semaphore, 0))               \
			SK__SDT_PROBE_N(bench, tick, 1, i);                  \
	} while (0)
#elif TRACE_VARIANT == 3
int bench_flag;
extern void bench_event(long i);
#define CHECK(i)                                                             \
	do {                                                                 \
		if (__builtin_expect(bench_flag, 0))                         \
			bench_event(i);                                      \
	} while (0)
void bench_event(long i) { __asm__ __volatile__("" ::"r"(i)); }
#elif TRACE_VARIANT == 4
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "trace_lttng_tp.h"
#define CHECK(i) lttng_ust_tracepoint(bench, tick, i)
#else
#define CHECK(i) ((void)(i))
#endif

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 1000000;

	for (long i = 0; i < n; i++) {
		CHECK(i);
		__asm__ __volatile__("" ::: "memory");
	}
	return 0;
}
