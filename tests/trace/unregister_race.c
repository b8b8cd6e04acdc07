/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/trace/unregister_race.c - probes registered and unregistered by 4
 * threads while 4 threads fire the tracepoint: a probe is never called once
 * its unregistration has returned, and every array is freed only after its
 * readers (run it under ASan/TSan too).
 *
 * Each registering thread owns one probe whose data says whether it is
 * registered.  The flag is cleared right after unregister returns; the probe
 * counts a call that finds it cleared, and the thread also compares the
 * probe's call count before and after a pause once it is unregistered.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

#include <statickeys.h>

#include "../check.h"
#include "events.h"

#define REGISTRARS 4
#define FIRERS 4
#define ROUNDS 3000

struct slot {
	int live;
	unsigned long calls;
	unsigned long late;
};

static struct slot slots[REGISTRARS];
static int stop;
static unsigned long fired, called_late_after_pause, rounds_done;

static void probe(void *data, int n, long v)
{
	struct slot *s = data;
	(void)n;
	(void)v;
	if (!__atomic_load_n(&s->live, __ATOMIC_ACQUIRE))
		__atomic_fetch_add(&s->late, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
}

static void *fire(void *arg)
{
	unsigned long n = 0;
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		sk_trace_sktest_tick(1, 2);
		n++;
	}
	__atomic_fetch_add(&fired, n, __ATOMIC_RELAXED);
	return NULL;
}

static void *churn(void *arg)
{
	struct slot *s = arg;
	for (int i = 0; i < ROUNDS; i++) {
		__atomic_store_n(&s->live, 1, __ATOMIC_RELEASE);
		int r = sk_register_trace_sktest_tick(probe, s);
		CHECK(r == 0, "register: %d", r);
		for (int k = 0; k < 2000; k++) /* let firings find it */
			__asm__ __volatile__("" ::: "memory");
		r = sk_unregister_trace_sktest_tick(probe, s);
		CHECK(r == 0, "unregister: %d", r);
		__atomic_store_n(&s->live, 0, __ATOMIC_RELEASE);
		unsigned long before = __atomic_load_n(&s->calls,
						       __ATOMIC_ACQUIRE);
		struct timespec pause = { 0, 20000 };
		nanosleep(&pause, NULL);
		if (__atomic_load_n(&s->calls, __ATOMIC_ACQUIRE) != before)
			__atomic_fetch_add(&called_late_after_pause, 1,
					   __ATOMIC_RELAXED);
		__atomic_fetch_add(&rounds_done, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(void)
{
	pthread_t f[FIRERS], r[REGISTRARS];

	/* A reference of the test's own for most of the run: registrations
	 * then change only the probe array, the part under test, without a
	 * code update each (the last rounds run without it and patch). */
	CHECK(sk_key_inc(&sk__tp_sktest_tick.key) == 0, "hold the key");

	for (int i = 0; i < FIRERS; i++)
		pthread_create(&f[i], NULL, fire, NULL);
	for (int i = 0; i < REGISTRARS; i++)
		pthread_create(&r[i], NULL, churn, &slots[i]);
	while (__atomic_load_n(&rounds_done, __ATOMIC_ACQUIRE) <
	       REGISTRARS * ROUNDS * 9 / 10)
		sched_yield();
	CHECK(sk_key_dec(&sk__tp_sktest_tick.key) == 0, "let the key go");
	for (int i = 0; i < REGISTRARS; i++)
		pthread_join(r[i], NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < FIRERS; i++)
		pthread_join(f[i], NULL);

	unsigned long calls = 0, late = 0;
	for (int i = 0; i < REGISTRARS; i++) {
		calls += slots[i].calls;
		late += slots[i].late;
	}
	printf("%lu registrations and unregistrations by %d threads, %lu "
	       "firings by %d threads, %lu probe calls; calls after "
	       "unregister returned: %lu (flag), %lu (count)\n",
	       rounds_done, REGISTRARS, fired, FIRERS, calls, late,
	       called_late_after_pause);
	CHECK(rounds_done == REGISTRARS * ROUNDS, "every round ran");
	CHECK(calls > 0, "probes were called while registered (the test "
			 "would see nothing otherwise)");
	CHECK(late == 0, "%lu calls found their probe unregistered", late);
	CHECK(called_late_after_pause == 0,
	      "%lu probes were called after unregister returned",
	      called_late_after_pause);
	CHECK(sk_key_count(&sk__tp_sktest_tick.key) == 0,
	      "every reference given back: %d",
	      sk_key_count(&sk__tp_sktest_tick.key));
	CHECK(!sk_trace_sktest_tick_enabled(), "off at the end");
	return check_summary();
}
