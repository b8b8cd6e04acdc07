/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * torture.c - threads call through static calls in a loop while the main
 * thread re-points them among three functions: every call lands in one of
 * the three (a thread that meets a trampoline mid-update is sent to the old
 * target or the new one by the trap handler), and every call made wholly
 * after an update returned, and before the next began, lands in the new
 * target: 0 wrong.  Run with both writers (STATICKEYS_WRITER), and in the
 * sanitizer builds.
 *
 *   torture [SECONDS] [THREADS]    (defaults: 2 s, 3 threads)
 *
 * Built once more linked with -Wl,--emit-relocs (static_call_inline_*),
 * SK_TEST_CALL_SITES=1: the call sites themselves are re-pointed, and a
 * caller that meets one mid-update is resumed at a target with its return
 * address pushed (the emulated call); checked: call_route's call goes
 * straight to the target at the end, not to the trampoline.
 *
 * And once more so, with STATICKEYS_SHADOW_STACK=assume and the runtime's
 * counters at hand (static_call_inline_torture_rerun_*, SK_TEST_RERUN):
 * the path of a machine with shadow stacks, where a call is never
 * emulated and a caller that meets a call site mid-update runs the call
 * itself once the update is over; checked: that happened.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <statickeys.h>

#include "../check.h"
#include "call_site.h"
#ifdef SK_TEST_RERUN
#include "support/stats.h"
#endif

__attribute__((noinline)) static int one(int x) { return x + 1; }
__attribute__((noinline)) static int two(int x) { return x + 2; }
__attribute__((noinline)) static int three(int x) { return x + 3; }
static int (*const targets[3])(int) = { one, two, three };

SK_DEFINE_STATIC_CALL(route, one);
static unsigned long long void_calls;
static void count_call(void)
{
	__atomic_fetch_add(&void_calls, 1, __ATOMIC_RELAXED);
}
SK_DEFINE_STATIC_CALL_NULL(maybe, count_call);

/* Even: target generation/2 % 3 is in place and no update is running;
 * odd: an update is running. */
static unsigned long generation;
static int stop;
static unsigned long long calls, checked, wrong, stray;

__attribute__((noinline)) static int call_route(int x)
{
	return sk_static_call(route)(x);
}

static void *caller(void *arg)
{
	unsigned long long n = 0, c = 0, w = 0, s = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		unsigned long g1 = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
		int v = call_route(100) - 100;
		sk_static_call_cond(maybe)();
		unsigned long g2 = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
		n++;
		if (v < 1 || v > 3)
			s++;
		if (g1 == g2 && g1 % 2 == 0) {
			c++;
			if (v != (int)(g1 / 2 % 3) + 1)
				w++;
		}
	}
	__atomic_fetch_add(&calls, n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&checked, c, __ATOMIC_RELAXED);
	__atomic_fetch_add(&wrong, w, __ATOMIC_RELAXED);
	__atomic_fetch_add(&stray, s, __ATOMIC_RELAXED);
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	int nthreads = argc > 2 ? atoi(argv[2]) : 3;
	pthread_t t[64];
	unsigned long updates = 0, errors = 0;

	if (nthreads < 1 || nthreads > 64)
		nthreads = 3;
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, caller, NULL);
	double end = now() + seconds;
	unsigned long g = 0;
	while (now() < end) {
		__atomic_store_n(&generation, g + 1, __ATOMIC_RELEASE);
		int next = (int)((g / 2 + 1) % 3);
		int r = sk_static_call_update(route, targets[next]);
		r |= sk_static_call_update(maybe,
					   updates % 2 ? NULL : count_call);
		errors += r != 0;
		g += 2;
		__atomic_store_n(&generation, g, __ATOMIC_RELEASE);
		updates++;
		/* Let the callers make calls that are checked. */
		for (volatile int spin = 0; spin < 20000; spin++)
			;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	printf("%lu updates, %llu calls (%llu checked after an update "
	       "returned), %llu through the NULL call's target\n",
	       updates, calls, checked, void_calls);
	CHECK(errors == 0, "%lu updates failed", errors);
	CHECK(stray == 0, "%llu calls landed outside the three targets", stray);
	CHECK(wrong == 0, "%llu calls after an update returned took an old "
			  "target", wrong);
	CHECK(updates > 50 && checked > 1000, "too little happened");
	struct sk_stats st;
	sk_stats_get(&st);
	printf("%lu traps resumed\n", (unsigned long)st.traps_handled);
#ifdef SK_TEST_RERUN
	unsigned long long rerun = sk__counter(SK__C_CALLS_RERUN);
	printf("%llu traps at a call site sent back to run the call again "
	       "(not emulated)\n", rerun);
	CHECK(rerun > 0, "no caller met a call site mid-update: the path of "
	      "shadow stacks was not taken");
#endif
	if (getenv("SK_TEST_CALL_SITES")) {
		/* The trampoline, then the three targets. */
		const void *dest[4] = { (const void *)SK__SC_KEY(route).tramp,
					(const void *)one, (const void *)two,
					(const void *)three };
		int to = call_goes_to((const void *)call_route, 64, dest, 4);
		int want = (int)((g / 2) % 3) + 1;
		CHECK(to == want, "call_route's call site goes to %s, want "
		      "target %d itself", to < 0 ? "nowhere known"
		      : to == 0 ? "the trampoline" : "another target", want);
	}
	return check_summary();
}
