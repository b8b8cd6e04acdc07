/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * blocked_sigtrap.c - a thread that blocks SIGTRAP where the runtime cannot
 * keep it deliverable, and runs the sites.
 *
 * If such a thread met the int3 of a changing site, the kernel would kill
 * the whole process.  Masks set through the C library never hold SIGTRAP
 * (thread_models.c tests that); here the worker blocks every signal with a
 * raw rt_sigprocmask system call, which no wrapper sees.  The runtime finds
 * the thread and refuses with -EBUSY, naming it and saying why, once; key,
 * count and sites stay as they were.  To make a missed detection fatal rather than
 * lucky, the injection hook holds every batch open (int3 written) until the
 * worker has run the sites again: had a batch started while the worker
 * blocked SIGTRAP, the process would die here.
 *
 *	faults_blocked_sigtrap          refuse (default policy)
 *	faults_blocked_sigtrap warn     STATICKEYS_BLOCKED_SIGTRAP=warn
 *	faults_blocked_sigtrap honour   STATICKEYS_KEEP_SIGTRAP=0 (set by ctest:
 *	                                it is read before main): the worker
 *	                                blocks with pthread_sigmask, honoured
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <statickeys.h>

#include "../../src/internal.h"
#include "../check.h"
#include "../repeat.h"
#include "../wait_for.h"
#include "capture.h"

SK_DEFINE_KEY_FALSE(busy_key);

#define NSITES 32

__attribute__((noinline)) static int sites_on(void)
{
	int n = 0;
	REP16(if (sk_branch_unlikely(&busy_key)) n++;
	      if (sk_branch_likely(&busy_key)) n++;)
	return n;
}

enum { RUN_SITES, PAUSE, UNBLOCK, STOP };

static int command = RUN_SITES;
static int worker_blocked;       /* 1 while it blocks SIGTRAP */
static int worker_paused;        /* 1 once it saw PAUSE: runs no site */
static unsigned long worker_runs; /* executions of sites_on() */
static long worker_tid;
static unsigned long flip_seq;   /* odd while an update call runs */
static bool honour;              /* block through the C library */

/* Change this thread's mask by the raw system call, past any wrapper, or
 * (honour) through pthread_sigmask. */
static void set_mask(int how, const sigset_t *set, sigset_t *old)
{
	if (honour)
		pthread_sigmask(how, set, old);
	else
		syscall(SYS_rt_sigprocmask, how, set, old, _NSIG / 8);
}

/* Mixed directions are only wrong when no update overlapped the call. */
#define UPDATE(call)                                                         \
	__extension__({                                                      \
		__atomic_fetch_add(&flip_seq, 1, __ATOMIC_ACQ_REL);          \
		int r_ = (call);                                             \
		__atomic_fetch_add(&flip_seq, 1, __ATOMIC_ACQ_REL);          \
		r_;                                                          \
	})

static void *worker(void *arg)
{
	sigset_t all;

	(void)arg;
	pthread_setname_np(pthread_self(), "sk-blocked");
	worker_tid = (long)gettid();
	sigfillset(&all);
	set_mask(SIG_BLOCK, &all, NULL);
	__atomic_store_n(&worker_blocked, 1, __ATOMIC_RELEASE);
	for (;;) {
		int c = __atomic_load_n(&command, __ATOMIC_ACQUIRE);
		if (c == STOP)
			break;
		if (c == UNBLOCK && worker_blocked) {
			sigset_t trap;
			sigemptyset(&trap);
			sigaddset(&trap, SIGTRAP);
			set_mask(SIG_UNBLOCK, &trap, NULL);
			__atomic_store_n(&worker_blocked, 0, __ATOMIC_RELEASE);
		}
		if (c == PAUSE) {
			__atomic_store_n(&worker_paused, 1, __ATOMIC_RELEASE);
			usleep(1000);
			continue;
		}
		unsigned long s1 = __atomic_load_n(&flip_seq, __ATOMIC_ACQUIRE);
		int on = sites_on();
		unsigned long s2 = __atomic_load_n(&flip_seq, __ATOMIC_ACQUIRE);
		if (s1 == s2 && !(s1 & 1))
			CHECK(on == 0 || on == NSITES,
			      "worker saw %d of %d sites on between updates",
			      on, NSITES);
		__atomic_fetch_add(&worker_runs, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* With int3 in every changing site, wait until the worker ran them again
 * (allowed_once_unblocked() checks that it trapped): for as long as a
 * loaded machine keeps it off a core, 60 s at most. */
static void hook(int point)
{
	if (point != SK__INJECT_AFTER_TRAP_WRITE ||
	    __atomic_load_n(&command, __ATOMIC_ACQUIRE) != RUN_SITES)
		return;
	unsigned long seen = __atomic_load_n(&worker_runs, __ATOMIC_ACQUIRE);
	WAIT_FOR(__atomic_load_n(&worker_runs, __ATOMIC_ACQUIRE) > seen + 1,
		 "the worker ran the sites while a batch was held open (%lu "
		 "runs before it, %lu now)", seen,
		 __atomic_load_n(&worker_runs, __ATOMIC_ACQUIRE));
}

static void refused_while_blocked(void)
{
	struct capture c;
	char tid[32];
	int r;

	capture_begin(&c);
	r = UPDATE(sk_key_enable(&busy_key));
	capture_end(&c);
	snprintf(tid, sizeof(tid), "%ld", worker_tid);
	CHECK(r == -EBUSY, "enable with a SIGTRAP-blocking thread returned %d, "
	      "want -EBUSY", r);
	CHECK(strstr(c.text, "sk-blocked") && strstr(c.text, tid),
	      "the refusal names thread %s \"sk-blocked\": got \"%s\"", tid,
	      c.text);
	/* ... and says why the runtime could not keep SIGTRAP deliverable. */
	const char *why = honour ? "STATICKEYS_KEEP_SIGTRAP=0"
				 : "raw rt_sigprocmask";
	CHECK(strstr(c.text, why) != NULL, "the refusal says \"%s\": got "
	      "\"%s\"", why, c.text);
	CHECK(!sk_key_enabled(&busy_key) && sk_key_count(&busy_key) == 0,
	      "refused enable left the key %s with count %d",
	      sk_key_enabled(&busy_key) ? "on" : "off",
	      sk_key_count(&busy_key));
	CHECK(sites_on() == 0, "refused enable changed sites");

	r = UPDATE(sk_key_inc(&busy_key));
	CHECK(r == -EBUSY, "inc returned %d, want -EBUSY", r);
	struct sk_key_change ch[] = { SK_KEY_CHANGE(&busy_key, true) };
	r = UPDATE(sk_commit(ch, 1));
	CHECK(r == -EBUSY, "commit returned %d, want -EBUSY", r);
	CHECK(sk_key_count(&busy_key) == 0 && sites_on() == 0,
	      "refused inc/commit changed count (%d) or sites",
	      sk_key_count(&busy_key));

	/* Refused again, without a second warning. */
	capture_begin(&c);
	r = UPDATE(sk_key_enable(&busy_key));
	capture_end(&c);
	CHECK(r == -EBUSY, "second enable returned %d, want -EBUSY", r);
	CHECK(c.text[0] == '\0', "the refusal was warned about again: \"%s\"",
	      c.text);
}

static void allowed_once_unblocked(void)
{
	struct sk_stats before, after;

	__atomic_store_n(&command, UNBLOCK, __ATOMIC_RELEASE);
	while (__atomic_load_n(&worker_blocked, __ATOMIC_ACQUIRE))
		usleep(100);
	__atomic_store_n(&command, RUN_SITES, __ATOMIC_RELEASE);
	sk_stats_get(&before);
	int r = UPDATE(sk_key_enable(&busy_key));
	sk_stats_get(&after);
	CHECK(r == 0, "enable after the worker unblocked SIGTRAP returned %d",
	      r);
	CHECK(sites_on() == NSITES, "sites are not all on after enable");
	CHECK(after.traps_handled > before.traps_handled,
	      "the worker ran the sites mid-batch but no trap was resumed");
	r = UPDATE(sk_key_disable(&busy_key));
	CHECK(r == 0 && sites_on() == 0, "disable returned %d", r);
}

/* A thread made after the last full look at the threads, which blocks
 * SIGTRAP and waits (it runs no site) until told to go. */
static void *late_blocker(void *arg)
{
	sigset_t all, old;

	pthread_setname_np(pthread_self(), "sk-late");
	sigfillset(&all);
	set_mask(SIG_BLOCK, &all, &old);
	__atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n((int *)arg, __ATOMIC_ACQUIRE) == 1)
		usleep(200);
	set_mask(SIG_SETMASK, &old, NULL);
	return NULL;
}

/* Found at once, not at the next full look (once a second): the thread
 * count changed since the last update, so the new thread is read
 * (threads_check.c: glibc's count of its threads, or /proc's). */
static void new_blocker_found_at_once(void)
{
	pthread_t t;
	int state = 0;

	/* An update just now: the next one is well within the second. */
	CHECK(UPDATE(sk_key_enable(&busy_key)) == 0 &&
	      UPDATE(sk_key_disable(&busy_key)) == 0, "updates failed");
	pthread_create(&t, NULL, late_blocker, &state);
	while (!__atomic_load_n(&state, __ATOMIC_ACQUIRE))
		usleep(50);
	int r = UPDATE(sk_key_enable(&busy_key));
	CHECK(r == -EBUSY, "enable with a new SIGTRAP-blocking thread returned "
	      "%d, want -EBUSY", r);
	CHECK(!sk_key_enabled(&busy_key) && sites_on() == 0,
	      "the refused enable changed the key or its sites");
	__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	CHECK(UPDATE(sk_key_enable(&busy_key)) == 0 && sites_on() == NSITES,
	      "enable after the new thread left failed");
	CHECK(UPDATE(sk_key_disable(&busy_key)) == 0, "disable failed");
}

/* A thread that blocks everything for 1 ms (as glibc does around clone)
 * delays the update instead of failing it. */
static void *brief_blocker(void *arg)
{
	sigset_t all, old;

	sigfillset(&all);
	set_mask(SIG_BLOCK, &all, &old);
	__atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
	usleep(1000);
	set_mask(SIG_SETMASK, &old, NULL);
	return NULL;
}

static void transient_block_waited_out(void)
{
	pthread_t t;
	int blocked = 0;

	pthread_create(&t, NULL, brief_blocker, &blocked);
	while (!__atomic_load_n(&blocked, __ATOMIC_ACQUIRE))
		usleep(50);
	int r = UPDATE(sk_key_enable(&busy_key));
	CHECK(r == 0, "enable during a 1 ms signal block returned %d", r);
	pthread_join(t, NULL);
	CHECK(UPDATE(sk_key_disable(&busy_key)) == 0 && sites_on() == 0,
	      "disable after the transient block failed");
}

/* STATICKEYS_BLOCKED_SIGTRAP=warn: the update goes ahead with a warning.
 * The worker is paused, so it runs no site while the batch is open. */
static void warn_policy(void)
{
	struct capture c;

	__atomic_store_n(&command, PAUSE, __ATOMIC_RELEASE);
	/* Not before it has left sites_on(): a worker still inside it when
	 * the int3 goes in, with SIGTRAP blocked, would be killed (a loaded
	 * machine, or ASan's slower code, widens that window). */
	while (!__atomic_load_n(&worker_paused, __ATOMIC_ACQUIRE))
		usleep(100);
	capture_begin(&c);
	int r = UPDATE(sk_key_enable(&busy_key));
	capture_end(&c);
	CHECK(r == 0, "enable under the warn policy returned %d", r);
	CHECK(strstr(c.text, "sk-blocked") != NULL,
	      "the warning names the thread: got \"%s\"", c.text);
	CHECK(sites_on() == NSITES, "sites are not all on after enable");
	CHECK(UPDATE(sk_key_disable(&busy_key)) == 0, "disable failed");
}

int main(int argc, char **argv)
{
	bool warn = argc > 1 && strcmp(argv[1], "warn") == 0;
	pthread_t t;

	honour = argc > 1 && strcmp(argv[1], "honour") == 0;
	if (honour && !getenv("STATICKEYS_KEEP_SIGTRAP"))
		skip_test("run with STATICKEYS_KEEP_SIGTRAP=0 (read before main)");

	if (warn)
		setenv("STATICKEYS_BLOCKED_SIGTRAP", "warn", 1);
	sk__inject_hook = hook;
	pthread_create(&t, NULL, worker, NULL);
	while (!__atomic_load_n(&worker_blocked, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&worker_runs, __ATOMIC_ACQUIRE) < 10)
		usleep(100);
	if (warn) {
		warn_policy();
	} else {
		refused_while_blocked();
		allowed_once_unblocked();
		new_blocker_found_at_once();
		transient_block_waited_out();
	}
	__atomic_store_n(&command, STOP, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	printf("worker ran the sites %lu times\n", worker_runs);
	return check_summary();
}
