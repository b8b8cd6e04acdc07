/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * int3_window.c - threads that reach a site while it is being rewritten.
 *
 * Linked against the runtime built with injection hooks.  The hook stops the
 * updater at a protocol step (int3 written; tails written) and, while it is
 * stopped, a second thread executes every site of the key.  Each execution
 * must trap and be resumed by the handler at the site's *new* destination,
 * so the thread sees the new direction before the update has even returned.
 */
#include <pthread.h>
#include <semaphore.h>

#include <statickeys.h>

#include "../../src/internal.h"
#include "../check.h"
#include "../repeat.h"

SK_DEFINE_KEY_FALSE(window_key);

#define NSITES 32

__attribute__((noinline)) static int sites_on(void)
{
	int n = 0;
	REP16(if (sk_branch_unlikely(&window_key)) n++;
	      if (sk_branch_likely(&window_key)) n++;)
	return n;
}

static int stop_at = -1;
static sem_t ready, go, done;
static int seen_in_window = -1;

static void hook(int point)
{
	if (point != stop_at)
		return;
	sem_post(&go);   /* let the runner execute the sites */
	sem_wait(&done); /* and wait until it has */
}

static void *runner(void *arg)
{
	(void)arg;
	sem_post(&ready);
	sem_wait(&go);
	seen_in_window = sites_on();
	sem_post(&done);
	return NULL;
}

static void run_window(int point, const char *point_name, bool enable)
{
	pthread_t t;
	struct sk_stats before, after;

	stop_at = point;
	seen_in_window = -1;
	sk_stats_get(&before);
	pthread_create(&t, NULL, runner, NULL);
	/* Update once the runner runs: a thread no core has run yet still
	 * has every signal blocked (glibc), and an update that waited ~1 s
	 * for it would refuse, the hook never firing. */
	sem_wait(&ready);
	int r = enable ? sk_key_enable(&window_key) : sk_key_disable(&window_key);
	if (r != 0)
		sem_post(&go); /* the hook did not run: free the runner */
	pthread_join(t, NULL);
	stop_at = -1;
	sk_stats_get(&after);

	CHECK(r == 0, "%s at %s returned %d", enable ? "enable" : "disable",
	      point_name, r);
	CHECK(seen_in_window == (enable ? NSITES : 0),
	      "a thread inside the %s window saw %d of %d sites on, want %d",
	      point_name, seen_in_window, NSITES, enable ? NSITES : 0);
	CHECK(after.traps_handled - before.traps_handled == NSITES,
	      "%s window: %lu traps resumed, want one per site (%d)", point_name,
	      (unsigned long)(after.traps_handled - before.traps_handled),
	      NSITES);
	CHECK(sites_on() == (enable ? NSITES : 0),
	      "after the update returned the sites are not all %s",
	      enable ? "on" : "off");
	printf("%s window, %s: %d/%d sites on while trapped, %lu traps\n",
	       point_name, enable ? "enable" : "disable", seen_in_window,
	       NSITES, (unsigned long)(after.traps_handled - before.traps_handled));
}

int main(void)
{
	sem_init(&ready, 0, 0);
	sem_init(&go, 0, 0);
	sem_init(&done, 0, 0);
	sk__inject_hook = hook;
	CHECK(sites_on() == 0, "key starts off");
	run_window(SK__INJECT_AFTER_TRAP_WRITE, "int3-written", true);
	run_window(SK__INJECT_AFTER_TRAP_WRITE, "int3-written", false);
	run_window(SK__INJECT_AFTER_TAIL_WRITE, "tails-written", true);
	run_window(SK__INJECT_AFTER_TAIL_WRITE, "tails-written", false);
	return check_summary();
}
