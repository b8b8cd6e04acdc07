/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/branch_loop.c - experiment 1a: one check per loop iteration, for
 * counting instructions under cachegrind.
 *
 *	branch_loop_<variant> ITERATIONS
 *
 * Built once per variant (BENCH_VARIANT) so each binary holds exactly one
 * kind of check.  Cachegrind's counts are exact, so running each binary with
 * two iteration counts and subtracting removes start-up; subtracting the
 * "empty" variant removes the loop itself, leaving the check alone.  The
 * memory clobber after each check is what real code has around a check (a
 * call, a store): it forces a flag to be loaded again on every iteration
 * instead of being hoisted out of the loop.
 */
#include <stdlib.h>

#include <statickeys.h>

#define V_EMPTY 0
#define V_STATIC_OFF 1
#define V_STATIC_ON 2
#define V_FLAG 3
#define V_FLAG_ON 4
#define V_EXPECT 5
#define V_ATOMIC 6

#ifndef BENCH_VARIANT
#error "define BENCH_VARIANT"
#endif

SK_DEFINE_KEY_FALSE(loop_key_off);
SK_DEFINE_KEY_TRUE(loop_key_on);
int loop_flag = BENCH_VARIANT == V_FLAG_ON;

/* The body a taken check runs: one instruction, the same for every variant. */
#define BODY() __asm__ __volatile__("nop")

#if BENCH_VARIANT == V_EMPTY
#define CHECK() ((void)0)
#elif BENCH_VARIANT == V_STATIC_OFF
#define CHECK() do { if (sk_branch_unlikely(&loop_key_off)) BODY(); } while (0)
#elif BENCH_VARIANT == V_STATIC_ON
/* A true key behind an "unlikely" test: the site is a jump from the start,
 * exactly what a false key's site becomes once enabled, without rewriting
 * code under valgrind. */
#define CHECK() do { if (sk_branch_unlikely(&loop_key_on)) BODY(); } while (0)
#elif BENCH_VARIANT == V_FLAG || BENCH_VARIANT == V_FLAG_ON
#define CHECK() do { if (loop_flag) BODY(); } while (0)
#elif BENCH_VARIANT == V_EXPECT
#define CHECK() do { if (__builtin_expect(loop_flag, 0)) BODY(); } while (0)
#elif BENCH_VARIANT == V_ATOMIC
#define CHECK()                                                              \
	do {                                                                 \
		if (__atomic_load_n(&loop_flag, __ATOMIC_RELAXED))           \
			BODY();                                              \
	} while (0)
#endif

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 1000000;

	for (long i = 0; i < n; i++) {
		CHECK();
		__asm__ __volatile__("" ::: "memory");
	}
	return 0;
}
