/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * soak.c - torture and churn for a long time, with race windows widened.
 *
 *	SK_SOAK_SECONDS=600 faults_soak      (make soak; default 10 s)
 *
 * At once, for the whole run:
 *   torture  4 keys x 128 sites; two reader threads check, with the
 *            sequence protocol of the core torture test, that a call that
 *            overlapped no update sees every site agree with its key; a
 *            flipper uses enable/disable, inc/dec and multi-key commits.
 *   churn    short-lived threads that run sites (some with every signal
 *            blocked for a moment, as glibc does inside pthread_create),
 *            and forked children that check and flip keys themselves.
 *   hooks    every batch picks one way to widen the protocol's windows at
 *            each injection point: nothing, sched_yield(), a sleep of up to
 *            0.5 ms, or a SIGUSR1 to a reader (whose handler runs sites).
 *
 * The summary prints how many checks were made and how many failed (must
 * be 0), with the work done; the exit status says the same.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <statickeys.h>

#include "../../src/internal.h"
#include "../check.h"
#include "../repeat.h"

#define NKEYS 4
#define NSITES 128

SK_DEFINE_KEY_FALSE(s0);
SK_DEFINE_KEY_TRUE(s1);
SK_DEFINE_KEY_FALSE(s2);
SK_DEFINE_KEY_TRUE(s3);

#define SITES_OF(k)                                                          \
	__attribute__((noinline)) static int sites_##k(void)                 \
	{                                                                    \
		int n = 0;                                                   \
		REP16(REP4(if (sk_branch_unlikely(&k)) n++;                  \
			   if (sk_branch_likely(&k)) n++;))                  \
		return n;                                                    \
	}
SITES_OF(s0) SITES_OF(s1) SITES_OF(s2) SITES_OF(s3)

static struct sk_key *const keys[NKEYS] = { &s0.key, &s1.key, &s2.key,
					    &s3.key };
static int (*const site_fns[NKEYS])(void) = { sites_s0, sites_s1, sites_s2,
					      sites_s3 };

static unsigned long seq[NKEYS]; /* odd while key k may be changing */
static int state[NKEYS];
static int stop;
static pthread_t readers[2];

enum { HOOK_NONE, HOOK_YIELD, HOOK_SLEEP, HOOK_SIGNAL, HOOK_MODES };
static int hook_mode;
static unsigned long hook_batches[HOOK_MODES];
static unsigned long stable_checks, handler_checks, flips, commits;
static unsigned long threads_churned, children_ok, children_bad, refused;

static void check_key(unsigned k, unsigned long *counter)
{
	unsigned long a = __atomic_load_n(&seq[k], __ATOMIC_ACQUIRE);
	int want = __atomic_load_n(&state[k], __ATOMIC_ACQUIRE);
	int on = site_fns[k]();
	unsigned long b = __atomic_load_n(&seq[k], __ATOMIC_ACQUIRE);

	if (a != b || (a & 1))
		return;
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
	CHECK(on == (want ? NSITES : 0), "key %s is %s but %d of %d sites on",
	      keys[k]->name, want ? "on" : "off", on, NSITES);
}

static void on_usr1(int sig)
{
	(void)sig;
	check_key((unsigned)sk__now_ns() % NKEYS, &handler_checks);
}

static void hook(int point)
{
	int mode = __atomic_load_n(&hook_mode, __ATOMIC_RELAXED);

	if (point == SK__INJECT_AFTER_TRAP_WRITE)
		__atomic_fetch_add(&hook_batches[mode], 1, __ATOMIC_RELAXED);
	switch (mode) {
	case HOOK_YIELD:
		sched_yield();
		break;
	case HOOK_SLEEP:
		if (point != SK__INJECT_IN_TRAP_HANDLER) /* not in a handler */
			usleep((useconds_t)(sk__now_ns() % 500));
		break;
	case HOOK_SIGNAL:
		if (point == SK__INJECT_AFTER_TRAP_WRITE)
			pthread_kill(readers[sk__now_ns() & 1], SIGUSR1);
		break;
	}
}

static void *reader(void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		check_key(i++ % NKEYS, &stable_checks);
	return NULL;
}

static void publish(unsigned k)
{
	__atomic_store_n(&state[k], sk_key_enabled(keys[k]), __ATOMIC_RELEASE);
}

/* One update of a random kind; every involved key is marked in flight. */
static void update(unsigned r)
{
	unsigned k = r % NKEYS, k2 = (k + 1 + (r >> 4) % (NKEYS - 1)) % NKEYS;
	bool on = sk_key_enabled(keys[k]);
	int ret;

	__atomic_fetch_add(&seq[k], 1, __ATOMIC_ACQ_REL);
	if ((r >> 8) % 4 == 0) {
		__atomic_fetch_add(&seq[k2], 1, __ATOMIC_ACQ_REL);
		struct sk_key_change ch[] = {
			{ keys[k], !on }, { keys[k2], !sk_key_enabled(keys[k2]) },
		};
		ret = sk_commit(ch, 2);
		publish(k2);
		__atomic_fetch_add(&seq[k2], 1, __ATOMIC_ACQ_REL);
		commits++;
	} else if ((r >> 8) % 4 == 1) {
		ret = on ? sk_key_dec(keys[k]) : sk_key_inc(keys[k]);
	} else {
		ret = on ? sk_key_disable(keys[k]) : sk_key_enable(keys[k]);
	}
	publish(k);
	__atomic_fetch_add(&seq[k], 1, __ATOMIC_ACQ_REL);
	/* A churned thread may be inside glibc's all-signals-blocked window
	 * for longer than the runtime waits: -EBUSY is then the answer. */
	CHECK(ret == 0 || ret == -EBUSY, "update of %s returned %d",
	      keys[k]->name, ret);
	refused += ret == -EBUSY;
	flips++;
}

static void *short_lived(void *arg)
{
	if (arg) { /* block everything briefly, running no sites */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		sched_yield();
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	for (unsigned k = 0; k < NKEYS; k++)
		(void)site_fns[k]();
	return NULL;
}

static void fork_child(void)
{
	pid_t pid = fork();
	int status = -1;

	if (pid == 0) {
		int bad = 0;
		sk__inject_hook = NULL;
		for (unsigned k = 0; k < NKEYS; k++) {
			bool on = sk_key_enabled(keys[k]);
			bad += site_fns[k]() != (on ? NSITES : 0);
			bad += (on ? sk_key_disable(keys[k])
				   : sk_key_enable(keys[k])) != 0 &&
			       sk_key_count(keys[k]) <= 1;
			bad += site_fns[k]() !=
			       (sk_key_enabled(keys[k]) ? NSITES : 0);
		}
		_exit(bad ? 1 : 0);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0)
		children_ok++;
	else
		children_bad++;
	CHECK(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "forked child: status 0x%x", status);
}

static void *churner(void *arg)
{
	(void)arg;
	for (unsigned i = 0; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, short_lived,
				   (void *)(uintptr_t)(i & 1)) == 0) {
			pthread_join(t, NULL);
			threads_churned++;
		}
		if (i % 64 == 63)
			fork_child();
		usleep(500);
	}
	return NULL;
}

static double elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void report(double seconds)
{
	struct sk_stats st;

	sk_stats_get(&st);
	printf("soak: %.0f s, writer %s, sync %s\n", seconds, st.writer,
	       st.sync_method);
	printf("  updates %lu (%lu multi-key commits, %lu refused: a thread "
	       "blocked SIGTRAP), batches %lu, traps resumed %lu\n", flips,
	       commits, refused, (unsigned long)st.batches,
	       (unsigned long)st.traps_handled);
	printf("  batches per hook: none %lu, yield %lu, sleep %lu, signal "
	       "%lu\n", hook_batches[HOOK_NONE], hook_batches[HOOK_YIELD],
	       hook_batches[HOOK_SLEEP], hook_batches[HOOK_SIGNAL]);
	printf("  stable checks by readers %lu, in signal handlers %lu\n",
	       stable_checks, handler_checks);
	printf("  threads churned %lu, forked children ok %lu, bad %lu\n",
	       threads_churned, children_ok, children_bad);
	printf("soak: %lu checks done, %lu failures\n",
	       check_passed_count + check_failed_count, check_failed_count);
}

int main(void)
{
	const char *env = getenv("SK_SOAK_SECONDS");
	double seconds = env ? atof(env) : 10.0;
	struct sigaction sa = { 0 };
	struct timespec t0;
	pthread_t churn;
	unsigned r = 2024;

	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	for (unsigned k = 0; k < NKEYS; k++)
		publish(k);
	sk__inject_hook = hook;
	for (unsigned i = 0; i < 2; i++)
		pthread_create(&readers[i], NULL, reader, (void *)(uintptr_t)i);
	pthread_create(&churn, NULL, churner, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (elapsed(&t0) < seconds) {
		r = r * 1103515245u + 12345u;
		__atomic_store_n(&hook_mode, (int)((r >> 20) % HOOK_MODES),
				 __ATOMIC_RELAXED);
		update(r >> 10);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(churn, NULL);
	for (unsigned i = 0; i < 2; i++)
		pthread_join(readers[i], NULL);
	sk__inject_hook = NULL;
	for (unsigned k = 0; k < NKEYS; k++)
		CHECK(site_fns[k]() == (sk_key_enabled(keys[k]) ? NSITES : 0),
		      "at the end, sites of %s disagree with it", keys[k]->name);
	report(seconds);
	return check_failed_count ? 1 : 0;
}
