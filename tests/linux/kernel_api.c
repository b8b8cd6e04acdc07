/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * kernel_api.c - kernel-style code (kernel_style.c) on the statickeys
 * runtime: both kernel APIs, zeroed and embedded keys, reference counts,
 * names, one batch, and flips while other threads run every site.
 * Also compiled as C++ (kernel_api_cxx.cpp, with kernel_style_cxx.cpp).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <statickeys.h>

#include "../check.h"
#include "kernel_style.h"

/* Every site shows its key's state. */
static void verify_sites(const char *when)
{
	for (unsigned i = 0; i < kernel_nsites; i++) {
		const struct kernel_site *s = &kernel_sites[i];
		bool on = static_key_enabled(s->key);
		bool got = s->run();
		CHECK(got == on, "%s: %s returned %d, key is %s", when, s->what,
		      got, on ? "on" : "off");
	}
}

static void initial_states_follow_initialisers(void)
{
	CHECK(!static_key_enabled(&old_false), "STATIC_KEY_INIT_FALSE is off");
	CHECK(static_key_enabled(&old_true), "STATIC_KEY_INIT_TRUE is on");
	CHECK(!static_key_enabled(&old_zeroed), "a zeroed key is off");
	CHECK(static_key_count(&old_zeroed) == 0, "a zeroed key counts 0, got %d",
	      static_key_count(&old_zeroed));
	CHECK(!static_key_enabled(&__tracepoint_irq.key),
	      "a zeroed embedded key is off");
	CHECK(!static_key_enabled(&new_false), "DEFINE_STATIC_KEY_FALSE is off");
	CHECK(static_key_enabled(&new_true), "DEFINE_STATIC_KEY_TRUE is on");
	CHECK(static_key_count(&new_true.key) == 1, "a true key counts 1");
	CHECK(static_key_enabled(&maybe_on) && !static_key_enabled(&maybe_off),
	      "DEFINE_STATIC_KEY_MAYBE follows IS_ENABLED()");
	verify_sites("initial");
	printf("checked %u sites against their initial states\n",
	       kernel_nsites);
}

#define EXPECT_COUNT(k, n)                                                   \
	do {                                                                 \
		CHECK(static_key_count(k) == (n), "%s: count %d, want %d", #k, \
		      static_key_count(k), (n));                            \
		verify_sites(#k " at count " #n);                            \
	} while (0)

static void slow_inc_dec_count_references(void)
{
	/* A key initialised true holds one reference: inc nests above it. */
	EXPECT_COUNT(&old_true, 1);
	CHECK(static_key_slow_inc(&old_true), "inc of a true key");
	EXPECT_COUNT(&old_true, 2);
	CHECK(static_key_slow_dec(&old_true) == 0, "dec to 1");
	EXPECT_COUNT(&old_true, 1);
	CHECK(static_key_slow_dec(&old_true) == 0, "dec to 0");
	EXPECT_COUNT(&old_true, 0);
	CHECK(static_key_slow_dec(&old_true) == -ERANGE,
	      "dec below zero is refused");
	EXPECT_COUNT(&old_true, 0);
	CHECK(static_key_slow_inc(&old_true), "inc back to its state");
	EXPECT_COUNT(&old_true, 1);

	/* The zeroed keys, plain and embedded, count like any false key. */
	CHECK(static_key_slow_inc(&old_zeroed), "inc of a zeroed key");
	CHECK(static_key_slow_inc(&old_zeroed), "inc again");
	EXPECT_COUNT(&old_zeroed, 2);
	CHECK(static_key_slow_dec(&old_zeroed) == 0, "dec");
	EXPECT_COUNT(&old_zeroed, 1);
	CHECK(static_key_slow_dec(&old_zeroed) == 0, "dec");
	EXPECT_COUNT(&old_zeroed, 0);
	CHECK(static_key_slow_inc(&__tracepoint_irq.key),
	      "enable the zeroed tracepoint");
	EXPECT_COUNT(&__tracepoint_irq.key, 1);
	CHECK(static_key_slow_dec(&__tracepoint_irq.key) == 0, "and off");
	EXPECT_COUNT(&__tracepoint_irq.key, 0);
}

static volatile int handler_inc = -1;

static void inc_in_handler(int sig)
{
	(void)sig;
	handler_inc = static_key_slow_inc(&old_false);
}

/* As today's kernel: true on success.  A signal handler that interrupted
 * no update updates like any caller (PostgreSQL's SIGHUP reload). */
static void slow_inc_works_from_a_signal_handler(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = inc_in_handler;
	sigaction(SIGUSR1, &sa, &old);
	raise(SIGUSR1);
	sigaction(SIGUSR1, &old, NULL);
	CHECK(handler_inc == 1, "static_key_slow_inc from a signal handler "
	      "returned %d, want true", handler_inc);
	EXPECT_COUNT(&old_false, 1);
	CHECK(static_key_slow_dec(&old_false) == 0, "dec after the handler");
	EXPECT_COUNT(&old_false, 0);
	CHECK(sk_key_inc(sk_static_key(&old_false)) == 0 &&
		      sk_key_dec(sk_static_key(&old_false)) == 0,
	      "the native calls take the same key");
}

static void todays_api_calls(void)
{
	CHECK(static_branch_enable(&new_false) == 0, "static_branch_enable");
	CHECK(static_branch_enable(&new_false) == 0, "enable is idempotent");
	EXPECT_COUNT(&new_false.key, 1);
	CHECK(static_branch_disable(&new_false) == 0, "static_branch_disable");
	EXPECT_COUNT(&new_false.key, 0);

	CHECK(static_key_disable(&new_true.key) == 0, "static_key_disable");
	EXPECT_COUNT(&new_true.key, 0);
	CHECK(static_key_enable(&new_true.key) == 0, "static_key_enable");
	EXPECT_COUNT(&new_true.key, 1);

	CHECK(static_branch_inc(&new_refcounted), "static_branch_inc");
	CHECK(static_branch_inc(&new_refcounted), "static_branch_inc");
	EXPECT_COUNT(&new_refcounted.key, 2);
	CHECK(static_branch_disable(&new_refcounted) == -EBUSY,
	      "disable while two references are held is refused");
	CHECK(static_branch_dec(&new_refcounted) == 0, "static_branch_dec");
	CHECK(static_key_enabled(&new_refcounted), "still on with one left");
	CHECK(static_branch_dec(&new_refcounted) == 0, "static_branch_dec");
	EXPECT_COUNT(&new_refcounted.key, 0);

	CHECK(static_branch_enable(&new_array[1]) == 0, "array element on");
	CHECK(!static_key_enabled(&new_array[0]) &&
		      !static_key_enabled(&new_array[2]),
	      "its neighbours stay off");
	EXPECT_COUNT(&new_array[1].key, 1);
	CHECK(static_branch_disable(&new_array[1]) == 0, "and off");
	CHECK(static_branch_enable(&new_array[2]) == 0, "another element on");
	EXPECT_COUNT(&new_array[2].key, 1);
	CHECK(static_branch_disable(&new_array[2]) == 0, "and off");
}

static bool snapshot_has(const char *name, bool initial, bool *found_ok)
{
	struct sk_key_info *v;
	size_t n;
	bool found = false;

	if (sk_keys_snapshot(&v, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0) {
			found = true;
			/* The portable fallback has no sites to count. */
			*found_ok = v[i].initial == initial &&
				    (v[i].nsites > 0 || !SK_HAVE_PATCHED_SITES);
		}
	sk_keys_snapshot_free(v);
	return found;
}

static void defined_keys_have_names(void)
{
	bool ok = false;

	CHECK(sk_key_find("new_false") == sk_static_key(&new_false),
	      "sk_key_find finds DEFINE_STATIC_KEY_FALSE(new_false)");
	CHECK(sk_key_find("new_static_true") != NULL,
	      "a static DEFINE_STATIC_KEY_TRUE is found by name");
	CHECK(snapshot_has("new_true", true, &ok) && ok,
	      "the snapshot lists new_true as initially on, with its sites");
	CHECK(snapshot_has("new_false", false, &ok) && ok,
	      "the snapshot lists new_false as initially off, with its sites");
}

/* Keys whose initialiser has no name take the one their first site spells,
 * in the object that defines them. */
static void unnamed_keys_are_named_by_their_sites(void)
{
	static const struct {
		const char *name;
		struct static_key *key;
	} named[] = {
		{ "old_false", &old_false },
		{ "old_true", &old_true },
		{ "old_zeroed", &old_zeroed },
		{ "__tracepoint_sched.key", &__tracepoint_sched.key },
		{ "__tracepoint_irq.key", &__tracepoint_irq.key },
		{ "new_array[1]", &new_array[1].key },
		{ "new_array[2]", &new_array[2].key },
	};
	bool ok = false;

	if (!SK_HAVE_PATCHED_SITES) {
		printf("portable fallback: no sites, so no names from sites\n");
		return;
	}
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		CHECK(sk_key_find(named[i].name) == sk_static_key(named[i].key),
		      "sk_key_find(\"%s\") finds the key", named[i].name);
	CHECK(sk_key_find("new_array[0]") == NULL,
	      "an array element with no site has no name");
	CHECK(snapshot_has("old_true", true, &ok) && ok,
	      "the snapshot lists old_true as initially on, with its sites");
	CHECK(snapshot_has("old_zeroed", false, &ok) && ok,
	      "the snapshot lists the zeroed key as initially off");
}

static void native_zeroed_key_still_refused(void)
{
	static struct sk_key_false native_zeroed; /* not SK_DEFINE_KEY_* */
	int r = sk_key_enable(&native_zeroed);

	CHECK(r == -EINVAL, "a zeroed native key is refused (%d)", r);
	CHECK(native_zeroed.key.magic == 0, "and left untouched");
}

static void one_batch_for_several_keys(void)
{
	struct sk_key_change on[] = {
		{ sk_static_key(&old_zeroed), true },
		{ sk_static_key(&__tracepoint_sched.key), true },
		{ sk_static_key(&new_false), true },
	};
	struct sk_key_change off[] = {
		{ sk_static_key(&old_zeroed), false },
		{ sk_static_key(&__tracepoint_sched.key), false },
		{ sk_static_key(&new_false), false },
	};
	struct sk_stats before, after;

	sk_stats_get(&before);
	CHECK(sk_commit(on, 3) == 0, "commit three kernel-style keys on");
	sk_stats_get(&after);
	if (SK_HAVE_PATCHED_SITES) /* the fallback has no code to patch */
		CHECK(after.batches - before.batches == 1,
	      "one batch for three keys (%llu)",
	      (unsigned long long)(after.batches - before.batches));
	verify_sites("after one commit");
	CHECK(sk_commit(off, 3) == 0, "and off again");
	verify_sites("after the second commit");
}

/* ---- flips while other threads run every site ------------------------------ */

/* A seqlock: odd while a flip is in progress.  Between two equal even
 * values, every key's state is the one the flipper last saw returned, and
 * every site must show it. */
static unsigned long seq;
static volatile int stop;
static unsigned long runs_checked, runs_skipped;
static int runners_started;

static void *runner(void *arg)
{
	unsigned long checked = 0, skipped = 0;

	(void)arg;
	__atomic_fetch_add(&runners_started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		for (unsigned i = 0; i < kernel_nsites; i++) {
			unsigned long s1 = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
			bool on = static_key_enabled(kernel_sites[i].key);
			bool got = kernel_sites[i].run();
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			unsigned long s2 = __atomic_load_n(&seq, __ATOMIC_RELAXED);
			if ((s1 & 1) || s1 != s2) {
				skipped++;
				continue;
			}
			checked++;
			if (got != on) /* CHECK only failures: fewer shared writes */
				CHECK(got == on, "runner: %s returned %d after a flip to %d",
			      kernel_sites[i].what, got, on);
		}
	}
	__atomic_fetch_add(&runs_checked, checked, __ATOMIC_RELAXED);
	__atomic_fetch_add(&runs_skipped, skipped, __ATOMIC_RELAXED);
	return NULL;
}

/* Flip one key through the API the site's kind uses, alternating forms. */
static int flip(struct static_key *k, unsigned round)
{
	bool on = static_key_enabled(k);

	if (round & 1)
		return on ? static_key_slow_dec(k) : static_key_slow_inc(k) ? 0 : -1;
	return on ? static_key_disable(k) : static_key_enable(k);
}

static void flips_while_threads_run(void)
{
	enum { THREADS = 3, ROUNDS = 20 };
	pthread_t t[THREADS];
	unsigned flips = 0;

	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, runner, NULL);
	/* Flip only once every runner runs: with nothing to patch (the
	 * portable backend) the flips end in milliseconds, before a runner
	 * still waiting for a core has checked anything. */
	while (__atomic_load_n(&runners_started, __ATOMIC_ACQUIRE) < THREADS)
		sched_yield();
	for (unsigned round = 0; round < ROUNDS; round++) {
		for (unsigned i = 0; i < kernel_nsites; i++) {
			__atomic_fetch_add(&seq, 1, __ATOMIC_ACQ_REL);
			int r = flip(kernel_sites[i].key, round);
			__atomic_fetch_add(&seq, 1, __ATOMIC_ACQ_REL);
			CHECK(r == 0, "flip of %s returned %d",
			      kernel_sites[i].what, r);
			flips++;
			/* Let the runners see this state before the next flip. */
			for (int y = 0; y < 3; y++)
				sched_yield();
			verify_sites("main thread after a flip");
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("%u flips; %lu site runs checked in %d other threads (%lu "
	       "skipped as they overlapped a flip)\n",
	       flips, runs_checked, THREADS, runs_skipped);
	CHECK(runs_checked > flips, "the runners checked sites between flips "
	      "(%lu checks, %u flips)", runs_checked, flips);
	/* ROUNDS is even: every key is back in its initial state. */
	CHECK(static_key_enabled(&old_true) && !static_key_enabled(&old_zeroed),
	      "an even number of flips restores the initial states");
}

static const struct check_case cases[] = {
	{ "initial_states_follow_initialisers", initial_states_follow_initialisers },
	{ "slow_inc_dec_count_references", slow_inc_dec_count_references },
	{ "slow_inc_works_from_a_signal_handler", slow_inc_works_from_a_signal_handler },
	{ "todays_api_calls", todays_api_calls },
	{ "defined_keys_have_names", defined_keys_have_names },
	{ "unnamed_keys_are_named_by_their_sites", unnamed_keys_are_named_by_their_sites },
	{ "native_zeroed_key_still_refused", native_zeroed_key_still_refused },
	{ "one_batch_for_several_keys", one_batch_for_several_keys },
	{ "flips_while_threads_run", flips_while_threads_run },
};

int main(int argc, char **argv)
{
	return check_run_cases(cases, sizeof(cases) / sizeof(cases[0]), argc,
			       argv);
}
