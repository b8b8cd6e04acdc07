/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * two_copies.c - two shared objects that embed the same component
 * (two_copies_component.c: a static call, a _NULL one, a RET0 one and a
 * key, of the same names in both, symbols hidden), loaded into one process
 * with RTLD_GLOBAL (as libraries linked at start-up are): each switches its
 * own copy while threads call both, and neither sees the other's.
 *
 *	two_copies LIB1 LIB2
 *
 * Before static calls bound within their object, the second copy's update
 * changed the first copy's descriptor while its own trampolines still read
 * its own, never updated (a NULL one: SIGSEGV).
 *
 * Checked: after each switch each copy's result is exactly its own state's
 * (its COPY_ID in every part); every result the calling threads see is one
 * a copy of their own id can give; a static call of the component's name
 * declared in the program, which no object exports, refuses an update
 * (-EINVAL) instead of reaching either copy.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include <statickeys.h>

#include "../check.h"
#include "../wait_for.h"

#define SWITCHES 300

struct copy {
	int (*id)(void);
	int (*run)(int);
	int (*set)(int);
	unsigned long calls, wrong;
};

static struct copy copies[2];
static int stop;

/* copy_run(0) for copy @id, everything off or on (two_copies_component.c). */
static int expect(int id, int on)
{
	return on ? (2 + 10 * id) + (1 + 10 * id) * 1000 + 100 * id +
			    100000 * id
		  : 1 + 10 * id;
}

/* Any mix of parts a copy can show mid-switch (each part is switched on
 * its own): every part is this id's. */
static int plausible(int id, int v)
{
	for (int op = 0; op < 2; op++)
		for (int r0 = 0; r0 < 2; r0++)
			for (int hook = 0; hook < 2; hook++)
				for (int key = 0; key < 2; key++)
					if (v == (1 + op + 10 * id) +
							 r0 * (1 + 10 * id) * 1000 +
							 hook * 100 * id +
							 key * 100000 * id)
						return 1;
	return 0;
}

static void *caller(void *arg)
{
	struct copy *c = arg;
	int id = c->id();

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		if (!plausible(id, c->run(0)))
			__atomic_fetch_add(&c->wrong, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&c->calls, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int load(const char *path, struct copy *c)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		return -1;
	}
	c->id = (int (*)(void))dlsym(h, "copy_id");
	c->run = (int (*)(int))dlsym(h, "copy_run");
	c->set = (int (*)(int))dlsym(h, "copy_set");
	return c->id && c->run && c->set ? 0 : -1;
}

/* The component's static call, named from the program: no object exports
 * it, so it is neither copy's. */
static int op_type(int x)
{
	return x;
}
SK_DECLARE_STATIC_CALL(comp_op, op_type);

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc != 3)
		return 2;
	CHECK(load(argv[1], &copies[0]) == 0, "%s loaded", argv[1]);
	CHECK(load(argv[2], &copies[1]) == 0, "%s loaded", argv[2]);
	if (check_failed_count)
		return check_summary();
	int id0 = copies[0].id(), id1 = copies[1].id();
	CHECK(id0 == 1 && id1 == 2, "the copies are 1 and 2 (%d, %d)", id0, id1);
	CHECK(copies[0].run(0) == expect(1, 0) && copies[1].run(0) == expect(2, 0),
	      "both start off (%d, %d)", copies[0].run(0), copies[1].run(0));
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&t[i], NULL, caller, &copies[i]) == 0,
		      "caller %d", i);
	/* Both callers calling before the first switch, so that switches
	 * meet calls (and no update waits for a thread not yet running). */
	WAIT_FOR(__atomic_load_n(&copies[0].calls, __ATOMIC_RELAXED) &&
		 __atomic_load_n(&copies[1].calls, __ATOMIC_RELAXED),
		 "both callers called");
	int mismatches = 0, errors = 0;
	for (int i = 0; i < SWITCHES; i++) {
		int on0 = i & 1, on1 = (i >> 1) & 1;
		errors += copies[0].set(on0) != 0;
		errors += copies[1].set(on1) != 0;
		mismatches += copies[0].run(0) != expect(1, on0);
		mismatches += copies[1].run(0) != expect(2, on1);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%d switches of each copy; callers made %lu and %lu calls\n",
	       SWITCHES, copies[0].calls, copies[1].calls);
	CHECK(errors == 0, "every switch returned 0 (%d failed)", errors);
	CHECK(mismatches == 0, "after each switch each copy shows its own "
	      "state exactly (%d mismatches)", mismatches);
	CHECK(copies[0].wrong == 0 && copies[1].wrong == 0, "no call saw a "
	      "value its copy cannot give (%lu, %lu)", copies[0].wrong,
	      copies[1].wrong);
	int r = sk_static_call_update(comp_op, op_type);
	CHECK(r == -EINVAL, "an update of the unexported name from the program "
	      "is refused (%d)", r);
	CHECK(copies[0].run(0) == expect(1, 1) || copies[0].run(0) == expect(1, 0),
	      "and reached neither copy");
	return check_summary();
}
