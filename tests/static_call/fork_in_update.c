/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fork_in_update.c - fork from a signal handler that interrupted this
 * thread's own static-call update, after the int3 went over the
 * trampoline's jump (an injection point of the runtime), while another
 * thread calls through the static call.  The parent's update completes; the
 * child finds the trampoline whole, jumping to the new target (calling it
 * takes no trap), and its own update inside that handler is refused with
 * -EDEADLK.  x86-64 trampolines only (elsewhere no code is written).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <statickeys.h>

#include "support/inject.h"

#include "../check.h"

__attribute__((noinline)) static int one(int x) { return x + 1; }
__attribute__((noinline)) static int two(int x) { return x + 2; }
SK_DEFINE_STATIC_CALL(route, one);

static volatile pid_t child;
static pthread_t updater;
static int (*volatile wanted)(int);

static void child_main(void)
{
	struct sk_stats st;
	int v = sk_static_call(route)(100);
	int failed = 0;

	sk_stats_get(&st);
	if (v != wanted(100)) {
		fprintf(stderr, "child: the call returned %d, want %d\n", v,
			wanted(100));
		failed = 1;
	}
	if (st.traps_handled != 0) {
		fprintf(stderr, "child: %llu traps\n",
			(unsigned long long)st.traps_handled);
		failed = 1;
	}
	int r = sk_static_call_update(route, one);
	if (r != -EDEADLK) {
		fprintf(stderr, "child: an update inside the cut update's "
			"handler returned %d, want -EDEADLK\n", r);
		failed = 1;
	}
	_exit(failed);
}

static void fork_in_handler(int sig)
{
	int saved = errno;

	(void)sig;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		child_main();
	child = pid;
	errno = saved;
}

static void raise_in_update(int point)
{
	if (point == SK__INJECT_AFTER_TRAP_WRITE &&
	    pthread_equal(pthread_self(), updater) && child == 0)
		raise(SIGUSR2);
}

static int stop;
static unsigned long long stray;

static void *caller(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		int v = sk_static_call(route)(100);
		if (v != 101 && v != 102)
			__atomic_fetch_add(&stray, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(void)
{
	const int rounds = 50;
	int ok = 0;
	pthread_t t;

	if (!SK_HAVE_STATIC_CALL_TRAMPOLINES)
		skip_test("no trampolines in this build: a static call's "
			  "update writes no code, so no update can be cut");
	signal(SIGUSR2, fork_in_handler);
	updater = pthread_self();
	child = -1;
	sk__inject_hook = raise_in_update;
	pthread_create(&t, NULL, caller, NULL);
	for (int i = 0; i < rounds; i++) {
		int (*to)(int) = i % 2 ? one : two;
		wanted = to;
		child = 0;
		int r = sk_static_call_update(route, to);
		CHECK(r == 0 && sk_static_call(route)(100) == to(100),
		      "round %d: the interrupted update returned %d", i, r);
		CHECK(child > 0, "round %d: no child was forked", i);
		int status;
		if (child > 0 && waitpid(child, &status, 0) == child)
			ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
		child = -1;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	sk__inject_hook = NULL;
	CHECK(ok == rounds, "%d of %d children found the trampoline whole, "
	      "jumping to the new target", ok, rounds);
	CHECK(stray == 0, "%llu calls landed outside the targets", stray);
	printf("%d forks from a handler inside a static-call update, with a "
	       "thread calling through it\n", rounds);
	return check_summary();
}
