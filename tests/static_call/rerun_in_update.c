/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * rerun_in_update.c - where a call cannot be emulated (a shadow stack;
 * here STATICKEYS_SHADOW_STACK=assume), a thread that meets a call site
 * mid-update waits for the update and runs the call itself.  The thread
 * doing the update must then never run one of its own batch's sites: a
 * signal handler that interrupted the update after its int3 went in (an
 * injection point of the runtime) and called through that call site would
 * wait for itself.  Checked: such a handler runs only once the update is
 * over (its signal is held meanwhile), and its call lands in the new
 * target; a second thread calling meanwhile lands in the old or the new
 * one.  x86-64 Linux, linked with -Wl,--emit-relocs (the call sites are
 * patched).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <statickeys.h>

#include "support/inject.h"
#include "support/stats.h"

#include "../check.h"
#include "call_site.h"

__attribute__((noinline)) static int one(int x) { return x + 1; }
__attribute__((noinline)) static int two(int x) { return x + 2; }
SK_DEFINE_STATIC_CALL(route, one);

/* The call site: a direct call of the trampoline, re-pointed by updates
 * (a call, not a tail call's jump, which pushes nothing: the empty asm
 * after it keeps the compiler from making it one). */
__attribute__((noinline)) static int call_route(int x)
{
	int v = sk_static_call(route)(x);

	__asm__ volatile("" ::: "memory");
	return v;
}

static pthread_t updater;
static int (*volatile wanted)(int);  /* this round's new target */
static volatile sig_atomic_t raised; /* this round's signal was raised */
static volatile int mid_batch;       /* handlers that found the site's int3 */
static volatile int handler_result;

/* Where call_route's call goes now: 0 the trampoline, 1 one, 2 two, -1
 * none (its first byte is an int3: the batch is not over). */
static int route_goes_to(void)
{
	const void *dest[3] = { (const void *)SK__SC_KEY(route).tramp,
				(const void *)one, (const void *)two };

	return call_goes_to((const void *)call_route, 64, dest, 3);
}

static void call_in_handler(int sig)
{
	(void)sig;
	mid_batch += route_goes_to() != (wanted == one ? 1 : 2);
	handler_result = call_route(100);
}

static void raise_in_update(int point)
{
	if (point == SK__INJECT_AFTER_TRAP_WRITE &&
	    pthread_equal(pthread_self(), updater) && !raised) {
		raised = 1;
		raise(SIGUSR2);
	}
}

static int stop;
static unsigned long long calls, stray;

static void *caller(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		int v = call_route(100);
		calls++;
		stray += v != 101 && v != 102;
	}
	return NULL;
}

int main(void)
{
	const int rounds = 200;
	int right = 0, signalled = 0;
	pthread_t t;

	if (!getenv("STATICKEYS_SHADOW_STACK"))
		skip_test("run with STATICKEYS_SHADOW_STACK=assume (ctest sets "
			  "it; read at start-up)");
	/* A thread that cannot get its own SIGALRM in: a handler waiting
	 * for its own thread's update would hang the test, not pass it. */
	alarm(30);
	signal(SIGUSR2, call_in_handler);
	updater = pthread_self();
	sk__inject_hook = raise_in_update;
	pthread_create(&t, NULL, caller, NULL);
	for (int i = 0; i < rounds; i++) {
		int (*to)(int) = i % 2 ? one : two;
		raised = 0;
		handler_result = 0;
		wanted = to;
		int r = sk_static_call_update(route, to);
		CHECK(r == 0, "round %d: the update returned %d", i, r);
		signalled += raised;
		right += raised && handler_result == to(100);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	sk__inject_hook = NULL;

	int to = route_goes_to();
	CHECK(to == 1 || to == 2, "call_route's call site goes to %s: its "
	      "call sites were not patched (linked without --emit-relocs?)",
	      to == 0 ? "the trampoline" : "nowhere known");
	CHECK(signalled == rounds, "%d of %d updates raised the signal",
	      signalled, rounds);
	CHECK(mid_batch == 0, "%d handlers ran before the batch they "
	      "interrupted was over", mid_batch);
	CHECK(right == signalled, "%d of %d handlers' calls landed in the "
	      "new target", right, signalled);
	CHECK(stray == 0, "%llu of the other thread's calls landed outside "
	      "the targets", stray);
	printf("%d updates, each with a handler held until it returned; %llu "
	       "calls beside them, %llu traps sent back to run the call\n",
	       rounds, calls, (unsigned long long)sk__counter(SK__C_CALLS_RERUN));
	return check_summary();
}
