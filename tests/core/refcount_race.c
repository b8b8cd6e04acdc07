/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * refcount_race.c - concurrent inc/dec never lose a reference.
 *
 * Two threads repeatedly take a reference, check that the key's site is on
 * (it must be: they hold a reference), and drop it.  The count keeps
 * crossing 0 and 1, so one thread's slow path (1 -> 0, patching sites off)
 * races the other's lock-free fast path (1 -> 2).  If the slow path stored
 * 0 instead of compare-and-swapping 1 -> 0, the fast path's reference would
 * be lost and that thread would see its site off while holding it.
 */
#include <pthread.h>
#include <stdlib.h>

#include <statickeys.h>

#include "../check.h"

SK_DEFINE_KEY_FALSE(raced);

__attribute__((noinline)) static bool site(void)
{
	return sk_branch_unlikely(&raced);
}

static unsigned long rounds = 20000;
/* The two start together: a thread no core has run yet has every signal
 * blocked, and the other's update would wait ~1 s for it, then be refused
 * with -EBUSY (and the race wants both running). */
static pthread_barrier_t start;

static void *worker(void *arg)
{
	unsigned long lost = 0, errors = 0;

	(void)arg;
	pthread_barrier_wait(&start);
	for (unsigned long i = 0; i < rounds; i++) {
		errors += sk_key_inc(&raced) != 0;
		lost += !site() || sk_key_count(&raced) < 1;
		errors += sk_key_dec(&raced) != 0;
	}
	CHECK(lost == 0, "%lu times a thread holding a reference saw the key "
	      "off", lost);
	CHECK(errors == 0, "%lu inc/dec calls failed", errors);
	return NULL;
}

int main(void)
{
	const char *env = getenv("SK_RACE_ROUNDS");
	pthread_t t[2];

	if (env)
		rounds = strtoul(env, NULL, 10);
	pthread_barrier_init(&start, NULL, 2);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK(sk_key_count(&raced) == 0, "final count %d, want 0",
	      sk_key_count(&raced));
	CHECK(!site(), "site is off once every reference is dropped");
	struct sk_stats st;
	sk_stats_get(&st);
	printf("2 threads x %lu inc/check/dec rounds, %lu updates\n", rounds,
	       (unsigned long)st.updates);
	return check_summary();
}
