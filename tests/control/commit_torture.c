/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * commit_torture.c - multi-key commits and single-key updates, mixed, while
 * threads execute every site.
 *
 * 16 keys (half start on) are changed only by sk_commit(), in random groups
 * to random states; 4 others only by sk_key_enable()/sk_key_disable(); one
 * more, "shared", is both inc/dec'd by a thread and named in commits, which
 * must then fail with -EBUSY and change nothing whenever it holds several
 * references.  Each key has 32 sites (16 likely, 16 unlikely).
 *
 * Each updater publishes its keys' states with a sequence number after its
 * call returns (odd while a call is in flight).  Executor threads sample the
 * sequence, run every site, and sample again: when the sequence did not
 * move, every site must show the published state.  Output: how many stable
 * samples were checked and how many disagreed (must be 0).
 * SK_TORTURE_SECONDS sets the duration (default 5), counted once every
 * thread runs; it goes on until both kinds of update ran and an executor
 * checked a stable sample (60 s more at most: a loaded machine may keep a
 * thread off a core).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include <statickeys.h>

#include "../check.h"
#include "../wait_for.h"

#define NCOMMIT 16
#define NSINGLE 4
#define NKEYS (NCOMMIT + NSINGLE)
#define R4(x) x x x x
#define R16(x) R4(x) R4(x) R4(x) R4(x)

#define KEY(name, type)                                                      \
	SK_DEFINE_KEY_##type(name);                                          \
	__attribute__((noinline)) static int sites_##name(void)              \
	{                                                                    \
		int n = 0;                                                   \
		R16(if (sk_branch_unlikely(&name)) n++;                      \
		    if (sk_branch_likely(&name)) n++;)                       \
		return n;                                                    \
	}
KEY(c0, TRUE) KEY(c1, FALSE) KEY(c2, TRUE) KEY(c3, FALSE)
KEY(c4, TRUE) KEY(c5, FALSE) KEY(c6, TRUE) KEY(c7, FALSE)
KEY(c8, TRUE) KEY(c9, FALSE) KEY(c10, TRUE) KEY(c11, FALSE)
KEY(c12, TRUE) KEY(c13, FALSE) KEY(c14, TRUE) KEY(c15, FALSE)
KEY(s0, TRUE) KEY(s1, FALSE) KEY(s2, TRUE) KEY(s3, FALSE)
SK_DEFINE_KEY_FALSE(shared);

#define K(n) { &n.key, sites_##n }
static const struct {
	struct sk_key *key;
	int (*sites)(void);
} keys[NKEYS] = {
	K(c0), K(c1), K(c2), K(c3), K(c4), K(c5), K(c6), K(c7), K(c8),
	K(c9), K(c10), K(c11), K(c12), K(c13), K(c14), K(c15),
	K(s0), K(s1), K(s2), K(s3),
};

/* Published states: [0] for the committed keys, [1] for the single ones. */
static unsigned long seq[2];
static bool expected[NKEYS];
static volatile int stop;
static unsigned long stable_samples, mismatches, commits_ok, commits_busy,
	single_updates, refcount_cycles;
/* The five threads and main start together: a thread no core has run yet
 * has every signal blocked, and an update would wait ~1 s for it, then be
 * refused with -EBUSY. */
static pthread_barrier_t start;

static void publish_begin(int group)
{
	__atomic_fetch_add(&seq[group], 1, __ATOMIC_ACQ_REL);
}

static void publish_end(int group)
{
	__atomic_fetch_add(&seq[group], 1, __ATOMIC_ACQ_REL);
}

static bool sample_group(int group, int lo, int hi)
{
	bool want[NKEYS];
	int got[NKEYS];
	unsigned long s1 = __atomic_load_n(&seq[group], __ATOMIC_ACQUIRE);

	if (s1 & 1)
		return false;
	for (int k = lo; k < hi; k++)
		want[k] = __atomic_load_n(&expected[k], __ATOMIC_RELAXED);
	for (int k = lo; k < hi; k++)
		got[k] = keys[k].sites();
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&seq[group], __ATOMIC_RELAXED) != s1)
		return false;
	for (int k = lo; k < hi; k++)
		if (got[k] != (want[k] ? 32 : 0) ||
		    (got[k] != 0 && got[k] != 32)) {
			if (__atomic_fetch_add(&mismatches, 1, __ATOMIC_RELAXED) < 5)
				fprintf(stderr, "executor: %s got %d want %d\n", keys[k].key->name, got[k], want[k]);
		}
	return true;
}

static void *executor(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	while (!stop) {
		unsigned long n = sample_group(0, 0, NCOMMIT);
		n += sample_group(1, NCOMMIT, NKEYS);
		__atomic_fetch_add(&stable_samples, n, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* One random commit over the committed keys, sometimes naming "shared". */
static void one_commit(unsigned *rng)
{
	struct sk_key_change c[NCOMMIT + 1];
	bool next[NCOMMIT];
	size_t n = 0;

	for (int k = 0; k < NCOMMIT; k++) {
		next[k] = expected[k];
		if (rand_r(rng) % 3 == 0) {
			next[k] = rand_r(rng) & 1;
			c[n++] = (struct sk_key_change){ keys[k].key, next[k] };
		}
	}
	if (rand_r(rng) % 4 == 0)
		c[n++] = (struct sk_key_change){ &shared.key, false };
	publish_begin(0);
	int r = sk_commit(c, n);
	if (r == 0)
		for (int k = 0; k < NCOMMIT; k++)
			__atomic_store_n(&expected[k], next[k], __ATOMIC_RELAXED);
	publish_end(0);
	CHECK(r == 0 || r == -EBUSY, "commit of %zu keys returned %d", n, r);
	for (int k = 0; k < NCOMMIT; k++)
		if (keys[k].sites() != (expected[k] ? 32 : 0)) {
			if (__atomic_fetch_add(&mismatches, 1, __ATOMIC_RELAXED) < 5)
				fprintf(stderr, "committer r=%d: %s got %d want %d\n", r, keys[k].key->name, keys[k].sites(), expected[k]);
		}
	__atomic_fetch_add(r == 0 ? &commits_ok : &commits_busy, 1,
			   __ATOMIC_RELAXED);
}

static void *committer(void *arg)
{
	unsigned rng = 1;
	(void)arg;
	pthread_barrier_wait(&start);
	while (!stop)
		one_commit(&rng);
	return NULL;
}

static void *single_updater(void *arg)
{
	unsigned rng = 2;
	(void)arg;
	pthread_barrier_wait(&start);
	while (!stop) {
		int k = NCOMMIT + (int)(rand_r(&rng) % NSINGLE);
		bool on = rand_r(&rng) & 1;
		publish_begin(1);
		int r = on ? sk_key_enable(keys[k].key)
			   : sk_key_disable(keys[k].key);
		if (r == 0)
			__atomic_store_n(&expected[k], on, __ATOMIC_RELAXED);
		publish_end(1);
		CHECK(r == 0, "single update of %s returned %d",
		      keys[k].key->name, r);
		__atomic_fetch_add(&single_updates, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Holds references on "shared": commits that disable it must then fail. */
static void *refcounter(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	while (!stop) {
		if (sk_key_inc(&shared) != 0)
			continue;
		sk_key_inc(&shared);
		/* Hold two references a moment, so commits run into them. */
		struct timespec hold = { 0, 50000 };
		nanosleep(&hold, NULL);
		int r1 = sk_key_dec(&shared), r2 = sk_key_dec(&shared);
		/* A commit may have taken the last reference in between. */
		CHECK((r1 == 0 || r1 == -ERANGE) && (r2 == 0 || r2 == -ERANGE),
		      "dec returned %d, %d", r1, r2);
		refcount_cycles++;
	}
	return NULL;
}

int main(void)
{
	const char *env = getenv("SK_TORTURE_SECONDS");
	int seconds = env ? atoi(env) : 5;
	pthread_t t[5];
	void *(*fns[5])(void *) = { executor, executor, committer,
				     single_updater, refcounter };

	for (int k = 0; k < NKEYS; k++)
		expected[k] = sk_key_enabled(keys[k].key);
	pthread_barrier_init(&start, NULL, 5 + 1);
	for (int i = 0; i < 5; i++)
		pthread_create(&t[i], NULL, fns[i], NULL);
	pthread_barrier_wait(&start);
	struct timespec d = { seconds, 0 };
	nanosleep(&d, NULL);
	/* The verdicts below need each thread to have done something. */
	WAIT_FOR(__atomic_load_n(&commits_ok, __ATOMIC_RELAXED) > 0 &&
			 __atomic_load_n(&single_updates, __ATOMIC_RELAXED) > 0 &&
			 __atomic_load_n(&stable_samples, __ATOMIC_RELAXED) > 0,
		 "a commit applied (%lu), a single update ran (%lu) and an "
		 "executor checked a stable sample (%lu)",
		 __atomic_load_n(&commits_ok, __ATOMIC_RELAXED),
		 __atomic_load_n(&single_updates, __ATOMIC_RELAXED),
		 __atomic_load_n(&stable_samples, __ATOMIC_RELAXED));
	stop = 1;
	for (int i = 0; i < 5; i++)
		pthread_join(t[i], NULL);
	struct sk_stats s;
	sk_stats_get(&s);
	printf("%d s: %lu commits applied, %lu refused (-EBUSY), %lu single "
	       "updates, %lu inc/dec cycles; %lu stable samples of %d sites "
	       "checked, %lu disagreed; %llu traps handled\n",
	       seconds, commits_ok, commits_busy, single_updates,
	       refcount_cycles, stable_samples, NKEYS * 32, mismatches,
	       (unsigned long long)s.traps_handled);
	CHECK(commits_ok > 0 && single_updates > 0, "both kinds of update ran");
	CHECK(stable_samples > 0, "executors checked stable samples");
	CHECK(mismatches == 0, "%lu samples saw a site disagree with the "
	      "published state", mismatches);
	return check_summary();
}
