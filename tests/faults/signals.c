/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * signals.c - sites in signal handlers, and updates attempted from them.
 *
 * 1. A thread is bombarded with SIGUSR1 while keys flip; its handler runs
 *    the sites.  The injection hook also raises SIGUSR1 from inside the
 *    runtime's own SIGTRAP handler: if that handler let other signals in,
 *    the nested handler would meet a changing site's int3 with SIGTRAP
 *    blocked and the kernel would kill the process.
 * 2. Updates from a signal handler: on a thread that was not updating, every
 *    call works; in a handler that interrupted an update on the same thread,
 *    calls that need the patch lock are refused with -EDEADLK (that update
 *    cannot finish before the handler returns) and the lock-free ones
 *    (sk_key_inc()/sk_key_dec() that leave the key on, sk_key_enabled(),
 *    sk_key_count()) work.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <statickeys.h>

#include "../../src/internal.h"
#include "../check.h"
#include "../repeat.h"
#include "../wait_for.h"

SK_DEFINE_KEY_FALSE(sig_key);
SK_DEFINE_KEY_TRUE(other_key);
SK_DEFINE_KEY_FALSE(upd_key);

#define NSITES 32

__attribute__((noinline)) static int sites_on(void)
{
	int n = 0;
	REP16(if (sk_branch_unlikely(&sig_key)) n++;
	      if (sk_branch_likely(&sig_key)) n++;)
	return n;
}

__attribute__((noinline)) static int upd_sites_on(void)
{
	int n = 0;
	REP4(if (sk_branch_unlikely(&upd_key)) n++;)
	return n;
}

static unsigned long seq; /* odd while sig_key is being flipped */
static int state;
static int stop;
static unsigned long handler_runs, handler_stable, raised_in_trap;
static int window_open, raised_this_window;
static unsigned long nested_done;

static void on_usr1(int sig)
{
	(void)sig;
	unsigned long s1 = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
	int want = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	int on = sites_on();
	unsigned long s2 = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);

	__atomic_fetch_add(&handler_runs, 1, __ATOMIC_RELAXED);
	if (__atomic_load_n(&raised_this_window, __ATOMIC_ACQUIRE))
		__atomic_fetch_add(&nested_done, 1, __ATOMIC_RELEASE);
	if (s1 == s2 && !(s1 & 1)) {
		__atomic_fetch_add(&handler_stable, 1, __ATOMIC_RELAXED);
		CHECK(on == (want ? NSITES : 0),
		      "handler saw %d of %d sites on, key %s", on, NSITES,
		      want ? "on" : "off");
	}
}

/*
 * The updater holds each batch open (int3 in place) until a thread trapped,
 * raised SIGUSR1 from inside the trap handler, and that SIGUSR1 handler ran
 * the sites: so the nested handler certainly meets the int3 (bounded wait,
 * in case no thread trapped this time).
 */

static void hook(int point)
{
	if (point == SK__INJECT_IN_TRAP_HANDLER) {
		if (__atomic_load_n(&window_open, __ATOMIC_ACQUIRE) &&
		    !__atomic_exchange_n(&raised_this_window, 1,
					 __ATOMIC_ACQ_REL)) {
			__atomic_fetch_add(&raised_in_trap, 1, __ATOMIC_RELAXED);
			raise(SIGUSR1);
		}
	} else if (point == SK__INJECT_AFTER_TRAP_WRITE) {
		unsigned long done = __atomic_load_n(&nested_done,
						     __ATOMIC_ACQUIRE);
		__atomic_store_n(&raised_this_window, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&window_open, 1, __ATOMIC_RELEASE);
		for (int i = 0; i < 2000; i++) {
			if (__atomic_load_n(&nested_done, __ATOMIC_ACQUIRE) !=
			    done)
				break;
			usleep(100);
		}
		__atomic_store_n(&window_open, 0, __ATOMIC_RELEASE);
	}
}

static void *target(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		(void)sites_on();
	return NULL;
}

static void *bombard(void *arg)
{
	pthread_t t = *(pthread_t *)arg;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		pthread_kill(t, SIGUSR1);
		usleep(20);
	}
	return NULL;
}

/* Both verdicts of the flips: a handler checked the sites with no flip in
 * flight, and one was raised inside the trap handler during a batch. */
static bool handlers_seen_enough(void)
{
	return __atomic_load_n(&handler_stable, __ATOMIC_RELAXED) > 0 &&
	       __atomic_load_n(&raised_in_trap, __ATOMIC_RELAXED) > 0;
}

/* @flips flips at least, and on until both verdicts have something to
 * judge: they need the target thread to have run, at a trap and between
 * flips, which a loaded machine may delay (60 s at most). */
static void sites_in_handlers(int flips)
{
	pthread_t t, b;
	struct sigaction sa;
	struct wait_for w = wait_for_begin();
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sk__inject_hook = hook;
	/* Flip once both run (wait_for.h, start_thread()). */
	start_thread(&t, NULL, target, NULL);
	start_thread(&b, NULL, bombard, &t);
	for (i = 0;; i++) {
		if (i == flips)
			w = wait_for_begin();
		if (i >= flips &&
		    (handlers_seen_enough() || wait_for_expired(&w)))
			break;
		__atomic_fetch_add(&seq, 1, __ATOMIC_ACQ_REL);
		int r = i & 1 ? sk_key_disable(&sig_key) : sk_key_enable(&sig_key);
		__atomic_store_n(&state, sk_key_enabled(&sig_key),
				 __ATOMIC_RELEASE);
		__atomic_fetch_add(&seq, 1, __ATOMIC_ACQ_REL);
		CHECK(r == 0, "flip %d returned %d", i, r);
		usleep(100); /* let handlers run between flips too */
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(b, NULL);
	pthread_join(t, NULL);
	sk__inject_hook = NULL;
	CHECK(handler_stable > 0, "no handler ran between flips (%d flips)", i);
	CHECK(raised_in_trap > 0, "no SIGUSR1 was raised inside the trap "
	      "handler while a batch was held open (%d flips)", i);
	printf("%d flips: handlers ran the sites %lu times (%lu between "
	       "flips); SIGUSR1 raised inside the trap handler %lu times\n",
	       i, handler_runs, handler_stable, raised_in_trap);
}

/* What the SIGUSR2 handler got from each call. */
static struct {
	int enable, commit, inc, dec, disable_last, count;
	bool ran;
} got;

static void on_usr2(int sig)
{
	struct sk_key_change ch[] = { SK_KEY_CHANGE(&sig_key, false) };

	(void)sig;
	got.enable = sk_key_enable(&sig_key);   /* off -> on: needs the lock */
	got.commit = sk_commit(ch, 1);          /* and off again */
	got.inc = sk_key_inc(&other_key);       /* 1 -> 2: lock-free */
	got.dec = sk_key_dec(&other_key);       /* 2 -> 1: lock-free */
	got.disable_last = sk_key_dec(&other_key); /* 1 -> 0: needs the lock */
	got.count = sk_key_count(&other_key);
	got.ran = true;
}

/* @refused: the calls that need the lock were refused (-EDEADLK), or all
 * of them worked. */
static void check_handler_results(const char *where, bool refused)
{
	int want = refused ? -EDEADLK : 0;

	CHECK(got.ran, "%s: the handler did not run", where);
	CHECK(got.enable == want && got.commit == want,
	      "%s: enable/commit returned %d/%d, want %d", where, got.enable,
	      got.commit, want);
	CHECK(got.inc == 0 && got.dec == 0,
	      "%s: lock-free inc/dec returned %d/%d, want 0", where, got.inc,
	      got.dec);
	CHECK(got.disable_last == want && got.count == (refused ? 1 : 0),
	      "%s: last dec returned %d (count %d), want %d and %d", where,
	      got.disable_last, got.count, want, refused ? 1 : 0);
	CHECK(!sk_key_enabled(&sig_key), "%s: sig_key is on", where);
	CHECK(sites_on() == 0, "%s: sites disagree with the key", where);
	/* Put other_key back on for the next case. */
	if (!refused)
		CHECK(sk_key_inc(&other_key) == 0, "%s: inc back", where);
}

static void raise_usr2_in_update(int point)
{
	if (point == SK__INJECT_AFTER_TRAP_WRITE)
		raise(SIGUSR2);
}

static void updates_from_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	CHECK(sk_key_disable(&sig_key) == 0 && sk_key_count(&other_key) == 1,
	      "set-up: sig_key off, other_key at 1");

	/* A handler on a thread that is not updating anything: it updates. */
	memset(&got, 0, sizeof(got));
	raise(SIGUSR2);
	check_handler_results("idle thread", false);

	/* A handler that interrupted an update of the same thread: what needs
	 * the lock is refused; the interrupted update completes. */
	memset(&got, 0, sizeof(got));
	sk__inject_hook = raise_usr2_in_update;
	int r = sk_key_enable(&upd_key);
	sk__inject_hook = NULL;
	CHECK(r == 0 && upd_sites_on() == 4,
	      "the interrupted update returned %d", r);
	check_handler_results("handler inside an update", true);
	CHECK(sk_key_count(&other_key) == 1 && !sk_key_enabled(&sig_key),
	      "counts after the interrupted update: other_key %d, sig_key %d",
	      sk_key_count(&other_key), sk_key_count(&sig_key));
}

int main(void)
{
	if (sk_key_enabled(&sig_key))
		return 1;
	sites_in_handlers(500);
	updates_from_handlers();
	return check_summary();
}
