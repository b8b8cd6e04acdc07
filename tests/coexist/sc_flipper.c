/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * sc_flipper.c - a program that re-points a static call while threads call
 * through it, for gdb (gdb_static_call_test.sh).
 *
 *	sc_flipper [UPDATES]
 *
 * Two threads call route() through the static call in a loop; the main
 * thread re-points it between two targets UPDATES times (default 2000),
 * then prints "N updates, M wrong" and exits 0 if every call returned one
 * of the two targets' values.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <statickeys.h>

#include "../static_call/call_site.h"

__attribute__((noinline)) int target_one(int x);
__attribute__((noinline)) int target_two(int x);
int target_one(int x) { return x + 1; }
int target_two(int x) { return x + 2; }
SK_DEFINE_STATIC_CALL(route, target_one);

static int stop, started;
static unsigned long long calls, wrong;

static void *caller(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		int v = sk_static_call(route)(10);
		__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
		if (v != 11 && v != 12)
			__atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int updates = argc > 1 ? atoi(argv[1]) : 2000, errors = 0;
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, caller, NULL);
	/* Update once the callers run: a thread the C library is still
	 * starting blocks every signal, and an update waits for it (and
	 * refuses, EBUSY, past a second: under gdb on a loaded machine). */
	while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < 2)
		sched_yield();
	for (int i = 0; i < updates; i++) {
		errors += sk_static_call_update(route, i % 2 ? target_one
							     : target_two) != 0;
		for (volatile int spin = 0; spin < 2000; spin++)
			;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%d updates, %d refused, %llu calls, %llu wrong\n", updates,
	       errors, calls, wrong);
	/* Linked with -Wl,--emit-relocs, the call in caller() goes to the
	 * target itself (docs/static-calls.md, "Call sites"). */
	const void *dest[3] = { (const void *)SK__SC_KEY(route).tramp,
				(const void *)target_one,
				(const void *)target_two };
	int to = call_goes_to((const void *)caller, 64, dest, 3);
	printf("call site: %s\n", to > 0    ? "patched"
				  : to == 0 ? "through the trampoline"
					    : "not found");
	return errors || wrong ? 1 : 0;
}
