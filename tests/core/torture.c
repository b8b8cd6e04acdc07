/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * torture.c - threads run thousands of sites while another flips their keys.
 *
 * 8 keys (half start on, half off) have 512 sites each (256 likely, 256
 * unlikely), 4096 in all.  Reader threads call each key's site function in a
 * loop; it returns how many of its sites took the "on" direction.  The
 * flipper picks a key, flips it with enable/disable or inc/dec, and after the
 * call returns publishes the new state with a sequence number.
 *
 * The claim under test: once a flip has returned, every later execution of
 * every site takes the new direction.  A reader therefore samples (sequence,
 * state) before and after a call; if neither changed and no flip of that key
 * was in flight, the call must report all sites on or all off.  Readers also
 * must never crash (a wrong resume address or a torn instruction would).
 *
 * Output is a histogram of "sites on" per stable call: only the 0 and 512
 * buckets may be non-empty.  STATICKEYS_WRITER chooses the writer;
 * SK_TORTURE_SECONDS the duration (default 10); SK_TORTURE_READERS the
 * reader threads (2, or 1: under valgrind, which runs one thread at a time).
 * The flips start once the readers run, and go on past the duration, each
 * then waiting for a stable call, until the readers made STABLE_MIN of
 * them (60 s more at most: a loaded machine may keep them off a core).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <statickeys.h>

#include "../check.h"
#include "../repeat.h"
#include "../wait_for.h"

#define NKEYS 8
#define SITES_PER_KEY 512
#define STABLE_MIN 16 /* stable calls the verdict needs, at least */

SK_DEFINE_KEY_TRUE(k0);
SK_DEFINE_KEY_FALSE(k1);
SK_DEFINE_KEY_TRUE(k2);
SK_DEFINE_KEY_FALSE(k3);
SK_DEFINE_KEY_TRUE(k4);
SK_DEFINE_KEY_FALSE(k5);
SK_DEFINE_KEY_TRUE(k6);
SK_DEFINE_KEY_FALSE(k7);

#define SITES_OF(k)                                                          \
	__attribute__((noinline)) static int sites_##k(void)                 \
	{                                                                    \
		int n = 0;                                                   \
		REP256(if (sk_branch_unlikely(&k)) n++;                      \
		       if (sk_branch_likely(&k)) n++;)                       \
		return n;                                                    \
	}
SITES_OF(k0) SITES_OF(k1) SITES_OF(k2) SITES_OF(k3)
SITES_OF(k4) SITES_OF(k5) SITES_OF(k6) SITES_OF(k7)

static struct sk_key *const keys[NKEYS] = {
	&k0.key, &k1.key, &k2.key, &k3.key, &k4.key, &k5.key, &k6.key, &k7.key,
};
static int (*const site_fns[NKEYS])(void) = {
	sites_k0, sites_k1, sites_k2, sites_k3,
	sites_k4, sites_k5, sites_k6, sites_k7,
};

/* Per key: seq is odd while a flip is in flight, even when state is final. */
static unsigned long seq[NKEYS];
static int state[NKEYS];
static int stop;
static unsigned long histogram[SITES_PER_KEY + 1];
static unsigned long stable_calls, unstable_calls, flips;
static int readers_started;

static void *reader(void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;

	__atomic_fetch_add(&readers_started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		unsigned k = i++ % NKEYS;
		unsigned long s1 = __atomic_load_n(&seq[k], __ATOMIC_ACQUIRE);
		int want = __atomic_load_n(&state[k], __ATOMIC_ACQUIRE);
		int on = site_fns[k]();
		unsigned long s2 = __atomic_load_n(&seq[k], __ATOMIC_ACQUIRE);
		if (s1 != s2 || (s1 & 1)) {
			__atomic_fetch_add(&unstable_calls, 1, __ATOMIC_RELAXED);
			continue;
		}
		__atomic_fetch_add(&stable_calls, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&histogram[on], 1, __ATOMIC_RELAXED);
		CHECK(on == (want ? SITES_PER_KEY : 0),
		      "key k%u is %s but %d of %d sites took the on path", k,
		      want ? "on" : "off", on, SITES_PER_KEY);
	}
	return NULL;
}

/* Flip key @k with one of the four calls; returns the call's result. */
static int flip(unsigned k, unsigned how)
{
	struct sk_key *key = keys[k];
	bool on = sk_key_enabled(key);

	if (how & 1)
		return on ? sk_key_disable(key) : sk_key_enable(key);
	/* inc/dec pairs: a refcounted key is on while its count > 0 */
	return on ? sk_key_dec(key) : sk_key_inc(key);
}

static unsigned long stable_now(void)
{
	return __atomic_load_n(&stable_calls, __ATOMIC_RELAXED);
}

static void flipper(double seconds)
{
	struct timespec t0, t;
	unsigned r = 12345;
	struct wait_for w = wait_for_begin();
	bool timed = true;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		unsigned long seen = stable_now();
		r = r * 1103515245u + 12345u;
		unsigned k = (r >> 8) % NKEYS;
		__atomic_fetch_add(&seq[k], 1, __ATOMIC_ACQ_REL); /* odd */
		int ret = flip(k, r >> 20);
		CHECK(ret == 0, "flipping k%u returned %d", k, ret);
		__atomic_store_n(&state[k], sk_key_enabled(keys[k]),
				 __ATOMIC_RELEASE);
		__atomic_fetch_add(&seq[k], 1, __ATOMIC_ACQ_REL); /* even */
		flips++;
		/* Past the time: wait for a reader's stable call. */
		while (!timed && stable_now() == seen && wait_for_pause(&w))
			;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (timed && (double)(t.tv_sec - t0.tv_sec) +
				     (double)(t.tv_nsec - t0.tv_nsec) / 1e9 >=
			     seconds) {
			timed = false;
			w = wait_for_begin();
		}
	} while (timed || (stable_now() < STABLE_MIN && !wait_for_expired(&w)));
}

int main(void)
{
	const char *env = getenv("SK_TORTURE_SECONDS");
	const char *nenv = getenv("SK_TORTURE_READERS");
	double seconds = env ? atof(env) : 10.0;
	int nreaders = nenv ? atoi(nenv) : 2;
	pthread_t readers[2];
	struct sk_stats st;

	if (nreaders < 1 || nreaders > 2) {
		fprintf(stderr, "SK_TORTURE_READERS=%s: 1 or 2\n", nenv);
		return 2;
	}
	for (unsigned k = 0; k < NKEYS; k++)
		state[k] = sk_key_enabled(keys[k]);
	for (int i = 0; i < nreaders; i++)
		pthread_create(&readers[i], NULL, reader,
			       (void *)(uintptr_t)(i * 3));
	/* Flip once the readers run: a thread that glibc is still starting
	 * has every signal blocked, and an update would wait for it. */
	WAIT_FOR(__atomic_load_n(&readers_started, __ATOMIC_ACQUIRE) ==
			 nreaders,
		 "the %d readers started (%d did)", nreaders,
		 __atomic_load_n(&readers_started, __ATOMIC_ACQUIRE));
	flipper(seconds);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < nreaders; i++)
		pthread_join(readers[i], NULL);

	sk_stats_get(&st);
	printf("writer %s, sync %s: %lu flips, %lu stable checks, %lu during "
	       "flips, %lu traps resumed, %lu core syncs\n",
	       st.writer, st.sync_method, flips, stable_calls, unstable_calls,
	       (unsigned long)st.traps_handled, (unsigned long)st.core_syncs);
	printf("sites on per stable check (only 0 and %d are correct):\n",
	       SITES_PER_KEY);
	for (int i = 0; i <= SITES_PER_KEY; i++)
		if (histogram[i])
			printf("  %4d: %lu%s\n", i, histogram[i],
			       i == 0 || i == SITES_PER_KEY ? "" : "  <- BAD");
	CHECK(stable_calls >= STABLE_MIN, "readers made %lu stable "
	      "observations, want %d", stable_calls, STABLE_MIN);
	CHECK(flips > 0, "no flips happened");
	CHECK(st.core_syncs <= 3 * st.batches,
	      "%lu core syncs for %lu batches: more than 3 per batch",
	      (unsigned long)st.core_syncs, (unsigned long)st.batches);
	return check_summary();
}
