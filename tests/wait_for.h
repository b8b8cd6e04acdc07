/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/wait_for.h - wait for an event, not for a time (with check.h).
 *
 * A test that sleeps a fixed time, or runs a fixed number of rounds, and
 * then assumes that another thread or process ran tests the machine: on a
 * loaded one the scheduler may not give that thread a core in the window.
 * Wait for what the verdict needs instead, with a generous deadline and a
 * message that names what did not happen:
 *
 *	WAIT_FOR(n_started == 4, "the 4 workers started (%d did)", n_started);
 *
 * reads the condition at once, then again after pauses growing from 10 us
 * to 1 ms, until it holds or WAIT_FOR_SECONDS (60) have passed; then it is
 * a failed CHECK, with the message and the time waited.  The expression's
 * value is whether the condition held, for a test that must not go on.
 *
 * A loop that works while it waits (flip until the other side has checked
 * enough) keeps a deadline of its own:
 *
 *	struct wait_for w = wait_for_begin();
 *	while (!enough() && !wait_for_expired(&w))
 *		flip();
 *	CHECK(enough(), "after %.0f s: ...", wait_for_elapsed(&w), ...);
 *
 * start_thread() is pthread_create() that returns once the new thread runs.
 * Update keys only once every thread of the test runs: a thread no core
 * has run yet has every signal blocked (glibc blocks them while it creates
 * the thread; the new thread restores its mask when it first runs), and an
 * update waits for such a thread, ~1 s at most, then is refused with
 * -EBUSY.  Threads that update as soon as they start wait for one another
 * instead (a pthread_barrier_t that main joins too).
 */
#ifndef SK_TESTS_WAIT_FOR_H
#define SK_TESTS_WAIT_FOR_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "check.h"

#ifndef WAIT_FOR_SECONDS
#define WAIT_FOR_SECONDS 60.0
#endif

struct wait_for {
	double start;
	unsigned long polls;
};

static inline double wait_for_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline struct wait_for wait_for_begin(void)
{
	struct wait_for w = { wait_for_now(), 0 };

	return w;
}

static inline double wait_for_elapsed(const struct wait_for *w)
{
	return wait_for_now() - w->start;
}

static inline bool wait_for_expired(const struct wait_for *w)
{
	return wait_for_elapsed(w) >= WAIT_FOR_SECONDS;
}

/* Before the next read of the condition: false once the deadline passed,
 * else true after a pause (10 us, doubled each time up to 1 ms). */
static inline bool wait_for_pause(struct wait_for *w)
{
	if (wait_for_expired(w))
		return false;
	long ns = 10000L << (w->polls < 7 ? w->polls : 7);
	struct timespec d = { 0, ns < 1000000L ? ns : 1000000L };

	w->polls++;
	nanosleep(&d, NULL);
	return true;
}

#define WAIT_FOR(cond, ...)                                                  \
	__extension__({                                                      \
		struct wait_for wait_for_w_ = wait_for_begin();              \
		bool wait_for_ok_;                                           \
		while (!(wait_for_ok_ = (cond)) &&                           \
		       wait_for_pause(&wait_for_w_))                         \
			;                                                    \
		if (wait_for_ok_) {                                          \
			__atomic_fetch_add(&check_passed_count, 1,           \
					   __ATOMIC_RELAXED);                \
		} else {                                                     \
			__atomic_fetch_add(&check_failed_count, 1,           \
					   __ATOMIC_RELAXED);                \
			fprintf(stderr, "%s:%d: check failed: waited %.0f s "\
				"for %s: ", __FILE__, __LINE__,              \
				wait_for_elapsed(&wait_for_w_), #cond);      \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
		}                                                            \
		wait_for_ok_;                                                \
	})

struct wait_for_thread {
	void *(*fn)(void *);
	void *arg;
	int running;
};

static inline void *wait_for_thread_main(void *p)
{
	struct wait_for_thread *s = (struct wait_for_thread *)p;
	void *(*fn)(void *) = s->fn;
	void *arg = s->arg;

	__atomic_store_n(&s->running, 1, __ATOMIC_RELEASE); /* s is gone */
	return fn(arg);
}

/* pthread_create(), returning once the new thread runs (60 s at most, then
 * a failed check; it still waits, the thread reads what is on this stack). */
static inline int start_thread(pthread_t *t, const pthread_attr_t *attr,
			       void *(*fn)(void *), void *arg)
{
	struct wait_for_thread s = { fn, arg, 0 };
	int r = pthread_create(t, attr, wait_for_thread_main, &s);

	CHECK(r == 0, "pthread_create: %s", strerror(r));
	if (r != 0)
		return r;
	if (!WAIT_FOR(__atomic_load_n(&s.running, __ATOMIC_ACQUIRE),
		      "a new thread ran"))
		while (!__atomic_load_n(&s.running, __ATOMIC_ACQUIRE))
			sched_yield();
	return 0;
}

/* become_threaded() - make the process one that has had a thread: a
 * process that never had one writes each site whole, in one write and one
 * core sync per batch (arch/x86_64/int3_batch.c), and tests of the update
 * protocol itself (its syncs, its traps, a failure mid-protocol) watch
 * what a process with threads does. */
static inline void *wait_for_no_op(void *arg)
{
	return arg;
}

static inline void become_threaded(void)
{
	pthread_t t;

	CHECK(pthread_create(&t, NULL, wait_for_no_op, NULL) == 0 &&
		      pthread_join(t, NULL) == 0,
	      "a thread made and joined");
}

#endif /* SK_TESTS_WAIT_FOR_H */
