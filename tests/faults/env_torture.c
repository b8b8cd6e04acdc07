/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * env_torture.c - flips under reader threads, in whatever environment this
 * process was started in (see deny.c), checking what the runtime reports.
 *
 *	faults_env_torture [--expect-writer=NAME] [--expect-sync=NAME]
 *	                   [--expect-refused] [--deny-membarrier-now=ERRNO]
 *
 * Two keys with 64 sites each are flipped for SK_TORTURE_SECONDS (default 2)
 * while two threads execute the sites; a call that overlapped no flip must
 * see all sites of a key agree with it.  The flips go on, each waiting for
 * such a call, until the readers have made STABLE_MIN of them (60 s more
 * at most: a loaded machine may keep the readers off a core).  Then
 * sk_stats_get() must name the expected writer and sync method.
 *
 * --expect-refused: no way to write code exists; every update must fail
 * with -EPERM, leave the key's count and state as they were, leave every
 * site alone, and the program goes on running.
 * --deny-membarrier-now: halfway through, a seccomp filter (all threads)
 * makes membarrier fail; the runtime must switch to its fallback mid-run.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <statickeys.h>

#include "../check.h"
#include "../repeat.h"
#include "../wait_for.h"
#include "seccomp_filter.h"

SK_DEFINE_KEY_TRUE(env_on);
SK_DEFINE_KEY_FALSE(env_off);

#define NSITES 64
#define STABLE_MIN 16 /* stable observations the verdict needs, at least */
#define SITES_OF(k)                                                          \
	__attribute__((noinline)) static int sites_##k(void)                 \
	{                                                                    \
		int n = 0;                                                   \
		REP16(if (sk_branch_unlikely(&k)) n++;                       \
		      if (sk_branch_likely(&k)) n++;                         \
		      if (sk_branch_unlikely(&k)) n++;                       \
		      if (sk_branch_likely(&k)) n++;)                        \
		return n;                                                    \
	}
SITES_OF(env_on)
SITES_OF(env_off)

static struct sk_key *const keys[2] = { &env_on.key, &env_off.key };
static int (*const site_fns[2])(void) = { sites_env_on, sites_env_off };
static unsigned long seq[2]; /* odd while key k is being flipped */
static int state[2];
static int stop, readers_started;
static unsigned long stable_checks;

static void *reader(void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;

	__atomic_fetch_add(&readers_started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		unsigned k = i++ & 1;
		unsigned long s1 = __atomic_load_n(&seq[k], __ATOMIC_ACQUIRE);
		int want = __atomic_load_n(&state[k], __ATOMIC_ACQUIRE);
		int on = site_fns[k]();
		unsigned long s2 = __atomic_load_n(&seq[k], __ATOMIC_ACQUIRE);
		if (s1 != s2 || (s1 & 1))
			continue;
		__atomic_fetch_add(&stable_checks, 1, __ATOMIC_RELAXED);
		CHECK(on == (want ? NSITES : 0),
		      "key %s is %s but %d of %d sites took the on path",
		      keys[k]->name, want ? "on" : "off", on, NSITES);
	}
	return NULL;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static unsigned long flips, refusals, busy;

static void flip(unsigned k, bool expect_refused)
{
	struct sk_key *key = keys[k];
	int count = sk_key_count(key);
	bool on = sk_key_enabled(key);

	__atomic_fetch_add(&seq[k], 1, __ATOMIC_ACQ_REL);
	int r = on ? sk_key_disable(key) : sk_key_enable(key);
	__atomic_store_n(&state[k], sk_key_enabled(key), __ATOMIC_RELEASE);
	__atomic_fetch_add(&seq[k], 1, __ATOMIC_ACQ_REL);
	if (!expect_refused) {
		/* -EBUSY: some thread had every signal blocked for longer than
		 * the runtime waits (seen under sanitizers on a loaded
		 * machine); defined, counted, and must stay rare. */
		CHECK(r == 0 || r == -EBUSY, "flipping %s returned %d",
		      key->name, r);
		flips += r == 0;
		busy += r == -EBUSY;
		return;
	}
	refusals++;
	CHECK(r == -EPERM, "flipping %s with no code writer returned %d, "
	      "want -EPERM", key->name, r);
	CHECK(sk_key_enabled(key) == on && sk_key_count(key) == count,
	      "refused flip of %s changed it: %s/%d -> %s/%d", key->name,
	      on ? "on" : "off", count, sk_key_enabled(key) ? "on" : "off",
	      sk_key_count(key));
	CHECK(site_fns[k]() == (on ? NSITES : 0),
	      "refused flip of %s changed its sites", key->name);
}

static void deny_membarrier_now(int err)
{
	struct denial d = { .membarrier = err };
	int r = deny_install(&d, 1);

	if (r)
		skip_test("this kernel refuses seccomp filters");
	printf("membarrier now fails with %s (all threads)\n", strerror(err));
}

struct options {
	const char *writer, *sync;
	bool refused;
	int deny_now;
};

static void parse(int argc, char **argv, struct options *o)
{
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--expect-writer=", 16) == 0)
			o->writer = argv[i] + 16;
		else if (strncmp(argv[i], "--expect-sync=", 14) == 0)
			o->sync = argv[i] + 14;
		else if (strcmp(argv[i], "--expect-refused") == 0)
			o->refused = true;
		else if (strcmp(argv[i], "--deny-membarrier-now=ENOSYS") == 0)
			o->deny_now = ENOSYS;
		else if (strcmp(argv[i], "--deny-membarrier-now=EPERM") == 0)
			o->deny_now = EPERM;
		else
			fprintf(stderr, "ignoring unknown option %s\n", argv[i]);
	}
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	const char *env = getenv("SK_TORTURE_SECONDS");
	double seconds = env ? atof(env) : 2.0;
	pthread_t readers[2];
	struct timespec t0;
	struct sk_stats st;
	unsigned r = 1;

	parse(argc, argv, &o);
	for (unsigned k = 0; k < 2; k++)
		state[k] = sk_key_enabled(keys[k]);
	for (unsigned i = 0; i < 2; i++)
		pthread_create(&readers[i], NULL, reader, (void *)(uintptr_t)i);
	/* Flip once both run: a reader no core has run yet has every signal
	 * blocked (glibc), and each flip meanwhile would wait for it and be
	 * refused with -EBUSY, which the bound below counts. */
	WAIT_FOR(__atomic_load_n(&readers_started, __ATOMIC_ACQUIRE) == 2,
		 "both readers started (%d did)",
		 __atomic_load_n(&readers_started, __ATOMIC_ACQUIRE));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bool denied = false;
	do {
		if (o.deny_now && !denied && seconds_since(&t0) > seconds / 2) {
			deny_membarrier_now(o.deny_now);
			denied = true;
		}
		r = r * 1103515245u + 12345u;
		flip((r >> 16) & 1, o.refused);
	} while (seconds_since(&t0) < seconds);
	/* The time is up; the verdict needs the readers to have seen the
	 * sites between flips: flip on, each time waiting for a reader's
	 * stable observation, until they made enough. */
	struct wait_for w = wait_for_begin();
	while (__atomic_load_n(&stable_checks, __ATOMIC_ACQUIRE) < STABLE_MIN &&
	       !wait_for_expired(&w)) {
		unsigned long seen = __atomic_load_n(&stable_checks,
						     __ATOMIC_ACQUIRE);
		r = r * 1103515245u + 12345u;
		flip((r >> 16) & 1, o.refused);
		while (__atomic_load_n(&stable_checks, __ATOMIC_ACQUIRE) ==
			       seen && !wait_for_expired(&w))
			usleep(20);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < 2; i++)
		pthread_join(readers[i], NULL);

	sk_stats_get(&st);
	printf("writer %s, sync %s: %lu flips, %lu refused, %lu -EBUSY, %lu "
	       "stable checks, %lu traps resumed, %lu update errors\n",
	       st.writer, st.sync_method, flips, refusals, busy, stable_checks,
	       (unsigned long)st.traps_handled,
	       (unsigned long)st.update_errors);
	CHECK(stable_checks >= STABLE_MIN, "readers made %lu stable "
	      "observations, want %d (%.0f s past the flipping time)",
	      stable_checks, STABLE_MIN, wait_for_elapsed(&w));
	CHECK(o.refused ? refusals > 0 : flips > 0, "no flips were attempted");
	CHECK(busy <= flips / 10, "%lu of %lu flips refused with -EBUSY",
	      busy, flips + busy);
	if (o.writer)
		CHECK(strcmp(st.writer, o.writer) == 0,
		      "writer reported as %s, want %s", st.writer, o.writer);
	if (o.sync)
		CHECK(strcmp(st.sync_method, o.sync) == 0,
		      "sync reported as %s, want %s", st.sync_method, o.sync);
	if (o.refused)
		CHECK(st.update_errors >= refusals,
		      "%lu refusals but %lu update errors counted", refusals,
		      (unsigned long)st.update_errors);
	return check_summary();
}
