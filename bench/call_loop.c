/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/call_loop.c - experiment 13a: what one call costs, by how the
 * callee is chosen.
 *
 *	call_loop_<variant>_<build>[_sites] ITERATIONS [time]
 *
 * Built once per variant (CALL_VARIANT), per build (plain, retpoline:
 * -mindirect-branch=thunk, cet: -fcf-protection=full) and per layout
 * (CALL_SITES), so that each binary holds one kind of call:
 *   direct   a call to the function itself (the floor);
 *   static   sk_static_call() (x86-64: a direct call to the trampoline,
 *            whose jump was pointed at the target at start-up);
 *   inline   the same program linked with -Wl,--emit-relocs: the call
 *            site itself was pointed at the target at start-up (x86-64
 *            Linux; CALL_VARIANT is static's);
 *   pointer  a call through a function pointer in writable memory;
 *   switch   a switch on a mode variable, each case a direct call.
 * Layouts: one call site run in a loop (CALL_SITES 1), the friendliest case
 * for a pointer, whose one indirect branch the CPU then always predicts;
 * and the same call written at 1,024 places run one after the other
 * (CALL_SITES 1024, the "_sites" programs), as a hook called from all over
 * a program's hot path is: each place is a branch of its own for the
 * CPU's predictors, and 1,024 indirect ones outgrow what it keeps of
 * them, while a direct call's target is in the instruction itself.
 * Without "time": cachegrind counts the loop (run_bench.py runs two
 * iteration counts and subtracts).  With "time": ns per call, the median of
 * 7 timed runs of ITERATIONS calls, as one JSON line.  The memory clobber
 * after each call is what real code has around a call: the pointer and the
 * mode are loaded again on every iteration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <statickeys.h>

#define V_DIRECT 0
#define V_STATIC 1
#define V_POINTER 2
#define V_SWITCH 3

#ifndef CALL_VARIANT
#error "define CALL_VARIANT"
#endif
#ifndef CALL_SITES
#define CALL_SITES 1
#endif

/* noipa: the call stays a call, its result is not folded. */
__attribute__((noipa)) static long work_a(long x) { return x + 1; }
__attribute__((noipa)) static long work_b(long x) { return x + 2; }
__attribute__((noipa)) static long work_c(long x) { return x + 3; }

SK_DEFINE_STATIC_CALL(work, work_b);
long (*work_ptr)(long) = work_b;
int work_mode = 1;

#if CALL_VARIANT == V_DIRECT
#define CALL(x) work_b(x)
#elif CALL_VARIANT == V_STATIC
#define CALL(x) sk_static_call(work)(x)
#elif CALL_VARIANT == V_POINTER
#define CALL(x) work_ptr(x)
#elif CALL_VARIANT == V_SWITCH
static inline long by_mode(long x)
{
	switch (work_mode) {
	case 0:
		return work_a(x);
	case 1:
		return work_b(x);
	default:
		return work_c(x);
	}
}
#define CALL(x) by_mode(x)
#endif

/* One call site, written CALL_SITES times. */
#define SITE_1 acc = CALL(acc); __asm__ __volatile__("" ::: "memory");
#define SITE_4 SITE_1 SITE_1 SITE_1 SITE_1
#define SITE_16 SITE_4 SITE_4 SITE_4 SITE_4
#define SITE_64 SITE_16 SITE_16 SITE_16 SITE_16
#define SITE_256 SITE_64 SITE_64 SITE_64 SITE_64
#define SITE_1024 SITE_256 SITE_256 SITE_256 SITE_256
#define SITES_(n) SITE_##n
#define SITES(n) SITES_(n)

/* @n calls (rounded down to whole passes over the sites). */
__attribute__((noinline)) static long loop(long n)
{
	long acc = 0;

	for (long i = 0; i + CALL_SITES <= n; i += CALL_SITES) {
		SITES(CALL_SITES)
	}
	return acc;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long acc;

	/* Whole passes, at least one: ns per call stays true. */
	n = n < CALL_SITES ? CALL_SITES : n - n % CALL_SITES;

	/* Every variant reaches the same function: work_b adds 2. */
	if (argc > 2) {
		double ns[7];
		acc = loop(n / 10); /* warm */
		for (int r = 0; r < 7; r++) {
			double t0 = now_ns();
			acc += loop(n);
			ns[r] = (now_ns() - t0) / (double)n;
		}
		qsort(ns, 7, sizeof(ns[0]), cmp);
		printf("{\"ns_per_call\": %.4f, \"min_ns\": %.4f, "
		       "\"max_ns\": %.4f}\n", ns[3], ns[0], ns[6]);
	} else {
		acc = loop(n);
	}
	(void)work_a;
	(void)work_c;
	return acc == 0 && n > 0; /* uses acc; 0 = ran */
}
