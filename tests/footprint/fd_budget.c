/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fd_budget.c - the library's descriptors are the same number from
 * start-up on, whatever the number of threads, updates and control
 * clients: /proc/self/mem, held before main(), and the control socket.
 *
 * The process has THREADS threads that block every signal (so every update
 * must know their masks), threads being created and ended all the while
 * (so updates keep reading new threads' masks), and a child process with
 * CLIENTS control clients connected at once, flipping the key through the
 * socket while this process flips it directly.  The library's descriptors
 * are this process's open descriptors minus the test's own; they are
 * counted from inside each update (the injection hook, with the int3 bytes
 * written) and by a thread that counts as fast as it can, to catch a
 * short-lived one (a thread's stat file, a client being served).
 *
 * Checked: the library's descriptor is open when main() starts (its
 * stand-in, which the first update replaces by /proc/self/mem); inside every
 * update
 * the library holds exactly FOOTPRINT, and the counting thread never sees
 * more than FOOTPRINT (one less for an instant is the place being lent:
 * closed, then the stat file opened in it); every descriptor the library
 * holds is close-on-exec; every update and every request through the
 * socket succeeded.  The portable backend writes no code, so its updates never
 * reach the hook's point (the int3 bytes written): there the hook must
 * never run, and the counting thread's numbers are the measure.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <statickeys.h>

#include "../check.h"
#include "../control/client.h"
#include "fds.h"
#include "support/inject.h"

#define THREADS 200
#define CLIENTS 3
#define FLIPS 1500
#define SOCKET_FLIPS 300
#define FOOTPRINT 2 /* docs/operations.md: "What the library takes from its host" */

SK_DEFINE_KEY_FALSE_DESC(budget_key, "flipped while descriptors are counted");

__attribute__((noinline)) static int budget_site(void)
{
	return sk_branch_unlikely(&budget_key) ? 1 : 0;
}

static int base, hook_counter, poll_counter, hook_max, poll_max;
static int hook_min = 1 << 30, poll_min = 1 << 30;
static int inheritable, stop, hook_calls;
static unsigned char base_open[FDS_MAX];

/* Updates are serialised by the patch lock: no race on the maxima. */
static void count_in_update(int point)
{
	if (point != SK__INJECT_AFTER_TRAP_WRITE)
		return;
	hook_calls++;
	int n = fds_count(hook_counter) - base;
	if (n > hook_max)
		hook_max = n;
	if (n < hook_min)
		hook_min = n;
	__atomic_fetch_add(&inheritable, fds_new_inheritable(hook_counter,
			   base_open), __ATOMIC_RELAXED);
}

static bool patching(void)
{
	struct sk_stats s;
	sk_stats_get(&s);
	return strcmp(s.backend, "portable") != 0;
}

static void *count_all_along(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		int n = fds_count(poll_counter) - base;
		if (n > poll_max)
			poll_max = n;
		if (n < poll_min)
			poll_min = n;
		__atomic_fetch_add(&inheritable, fds_new_inheritable(
				   poll_counter, base_open), __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *blocks_everything(void *arg)
{
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		budget_site();
		usleep(1000);
	}
	return NULL;
}

static void *short_lived(void *arg)
{
	return arg;
}

/* New threads all the time: each update reads the new ones' masks. */
static void *churn(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		pthread_t t;
		if (pthread_create(&t, NULL, short_lived, NULL) == 0)
			pthread_join(t, NULL);
	}
	return NULL;
}

/* The child: CLIENTS clients of the parent's control socket at once; the
 * first flips the key, the others read it. */
static void clients(const char *sock, int report)
{
	int fds[CLIENTS], ok = 0;

	for (int i = 0; i < CLIENTS; i++)
		fds[i] = client_connect(sock);
	for (int i = 0; i < SOCKET_FLIPS; i++) {
		char *r = client_ask(fds[0], i & 1 ? "set budget_key=0\n"
						   : "set budget_key=1\n");
		ok += reply_ok(r);
		free(r);
	}
	close(fds[0]);
	for (int i = 1; i < CLIENTS; i++) {
		char *r = client_ask(fds[i], "get budget_key\n");
		ok += reply_ok(r);
		free(r);
		close(fds[i]);
	}
	(void)!write(report, &ok, sizeof(ok));
	_exit(0);
}

static void start(pthread_t *t, void *(*fn)(void *))
{
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	CHECK(pthread_create(t, &attr, fn, NULL) == 0, "thread created");
	pthread_attr_destroy(&attr);
}

int main(void)
{
	pthread_t blockers[THREADS], poller, churner;
	int report[2], ok = -1, updates = 0;
	char sock[108];

	hook_counter = fds_counter_open();
	poll_counter = fds_counter_open();
	if (pipe2(report, O_CLOEXEC))
		return 1;
	/* Before main(): the library's place, held by its stand-in (an
	 * empty memfd) until the first update puts /proc/self/mem in it.  The
	 * test's own: 0, 1, 2, the two counters and the pipe. */
	CHECK(fds_find_target(hook_counter, "memfd:statickeys (deleted)") >= 0 ||
	      fds_find_target(hook_counter, "/mem") >= 0, "the library's "
	      "descriptor is open when main() starts, before any update");
	base = fds_count(hook_counter) - 1;
	fds_mark(hook_counter, base_open);
	CHECK(sk_control_start(NULL) == 0, "control server started");
	CHECK(fds_count(hook_counter) - base == FOOTPRINT, "with the control "
	      "socket: %d descriptors", fds_count(hook_counter) - base);
	sk_control_socket_path(sock, sizeof(sock));
	for (int i = 0; i < THREADS; i++)
		start(&blockers[i], blocks_everything);
	start(&churner, churn);
	start(&poller, count_all_along);
	sk__inject_hook = count_in_update;
	pid_t kid = fork();
	if (kid == 0)
		clients(sock, report[1]);
	for (int i = 0; i < FLIPS; i++)
		updates += sk_key_enable(&budget_key) == 0 &&
			   sk_key_disable(&budget_key) == 0;
	(void)!read(report[0], &ok, sizeof(ok));
	waitpid(kid, NULL, 0);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	sk__inject_hook = NULL;
	pthread_join(poller, NULL);
	pthread_join(churner, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(blockers[i], NULL);
	printf("%d threads blocking every signal, %d control clients, "
	       "%d + %d updates: the library held %d..%d descriptors inside "
	       "updates, %d..%d seen by the counting thread (footprint %d)\n",
	       THREADS, CLIENTS, 2 * FLIPS, SOCKET_FLIPS, hook_min, hook_max,
	       poll_min, poll_max, FOOTPRINT);
	CHECK(updates == FLIPS, "every update succeeded (%d of %d pairs)",
	      updates, FLIPS);
	CHECK(ok == SOCKET_FLIPS + CLIENTS - 1, "every request through the "
	      "socket succeeded (%d of %d)", ok, SOCKET_FLIPS + CLIENTS - 1);
	if (patching())
		CHECK(hook_min == FOOTPRINT && hook_max == FOOTPRINT,
		      "inside updates: %d..%d, always the footprint", hook_min,
		      hook_max);
	else
		CHECK(hook_calls == 0, "no code written: the hook's point is "
		      "never reached (%d times)", hook_calls);
	CHECK(poll_max == FOOTPRINT && poll_min >= FOOTPRINT - 1,
	      "at any instant: %d..%d (never more than the footprint)",
	      poll_min, poll_max);
	CHECK(inheritable == 0, "all of them close-on-exec (%d were not)",
	      inheritable);
	return check_summary();
}
