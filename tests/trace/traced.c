/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/trace/traced.c - a program for tracers to attach to.
 *
 *	traced N
 *
 * Prints "ready PID", waits (up to 20 s) until a tracer attached to the USDT
 * probe sktest:tick turns the tracepoint on, lets it settle, then fires
 * sktest:tick N times with arg0 = 0..N-1 and once with arg0 = END (the
 * tracer's cue to leave).  Then it waits (up to 5 s) for the tracepoint to
 * turn off again, and says how long that took after the last firing and
 * whether the site is a no-op again (sk_trace_..._enabled() is itself a
 * site: false means its instruction is the NOP) with no reference held.
 * Exit 0 when every step happened, 1 otherwise, 2 if nobody attached.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <statickeys.h>

#include "events.h"

/* arg0 of the last event (bpftrace reads a 4-byte -1 as 4294967295). */
#define END 1000000000

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	unsigned long fired = 0;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	double t0 = now();
	while (!sk_trace_sktest_tick_enabled()) {
		if (now() - t0 > 20) {
			printf("nobody attached in 20 s\n");
			return 2;
		}
		nap(5);
	}
	printf("on %.0f ms after start (semaphore %u)\n", (now() - t0) * 1e3,
	       sk__tp_sktest_tick.semaphore ? *sk__tp_sktest_tick.semaphore : 0u);
	/* The tracer raises the semaphore per probe it attaches; give its
	 * other attachments time to land before counting starts. */
	nap(1000);
	for (long i = 0; i < n; i++, fired++)
		sk_trace_sktest_tick((int)i, i * 2);
	sk_trace_sktest_tick(END, 0);
	double t1 = now();
	printf("fired %lu\n", fired);
	fflush(stdout);
	/* 30 s: the tracer's exit comes first (perf record writes its file
	 * before it lets go), and a loaded machine stretches it; the script
	 * judges the library's own share. */
	while (sk_trace_sktest_tick_enabled()) {
		if (now() - t1 > 30) {
			printf("still on 30 s after the last event (semaphore "
			       "%u, key count %d)\n",
			       sk__tp_sktest_tick.semaphore
				       ? *sk__tp_sktest_tick.semaphore : 0u,
			       sk_key_count(&sk__tp_sktest_tick.key));
			return 1;
		}
		nap(1);
	}
	struct timespec wall;
	clock_gettime(CLOCK_REALTIME, &wall);
	printf("off %.0f ms after the last event; key count %d\n",
	       (now() - t1) * 1e3, sk_key_count(&sk__tp_sktest_tick.key));
	/* For the tracer's script: when, by the wall clock, it saw off. */
	printf("off_at %ld.%09ld\n", (long)wall.tv_sec, wall.tv_nsec);
	/* Fired while off: nobody may see these. */
	for (int i = 0; i < 100; i++)
		sk_trace_sktest_tick(i, 0);
	return sk_key_count(&sk__tp_sktest_tick.key) == 0 ? 0 : 1;
}
