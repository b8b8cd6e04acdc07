/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/trace/semaphores.c - tracers attached to a tracepoint's USDT probe
 * hold a reference on its key.
 *
 * bpftrace and perf raise a USDT probe's 16-bit semaphore when they attach
 * (the uprobe's ref_ctr_offset: the kernel writes the counter in our memory)
 * and lower it when they leave, without telling the program.  The only way
 * to notice is to read it.  One thread, started by the first tracepoint an
 * object defines (none in a program that defines none), reads every
 * tracepoint's semaphore every 50 ms: while one is non-zero the tracepoint's
 * key holds one reference for all its tracers (so a tracer turns it on
 * within 50 ms plus one key update, and the last detach turns it off as
 * fast).  A round costs one 16-bit load per tracepoint and one timed sleep
 * (docs/operations.md, "What the library takes from its host", gives the
 * measured cost).
 * Updates may run from any thread, so the watcher calls sk_key_inc/dec
 * directly.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "os/os.h"
#include "statickeys/trace.h"
#include "support/message.h"

#define POLL_NS 50000000L

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sk_tracepoint *tracepoints; /* under list_lock */
static int watcher_running;		  /* under list_lock */
static pid_t watcher_pid;		  /* the process that started it */

/* tracer_ref: none held, one held, or none because taking it failed (the
 * key update was refused and said why; it is tried again only after the
 * tracers have left, not 20 times a second). */
enum { TRACER_NONE, TRACER_HELD, TRACER_REFUSED };

/* Take or drop the tracers' reference of one tracepoint.  Called with
 * list_lock held, which keeps its object from being unloaded meanwhile. */
static void follow(struct sk_tracepoint *tp)
{
	unsigned short sem = __atomic_load_n(tp->semaphore, __ATOMIC_RELAXED);

	if (sem && tp->tracer_ref == TRACER_NONE) {
		tp->tracer_ref = sk_key_inc(&tp->key) == 0 ? TRACER_HELD
							   : TRACER_REFUSED;
	} else if (!sem && tp->tracer_ref == TRACER_REFUSED) {
		tp->tracer_ref = TRACER_NONE;
	} else if (!sem && tp->tracer_ref == TRACER_HELD) {
		/* Given back even if refused: a refusal means the count is
		 * already 0 (skctl disable took every reference). */
		sk_key_dec(&tp->key);
		tp->tracer_ref = TRACER_NONE;
	}
}

/* Sleep until @deadline (CLOCK_MONOTONIC), through signals: POSIX
 * nanosleep, since macOS has no clock_nanosleep(). */
static void sleep_until(const struct timespec *deadline)
{
	struct timespec now, left;

	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = deadline->tv_sec - now.tv_sec;
		left.tv_nsec = deadline->tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_nsec += 1000000000L;
			left.tv_sec--;
		}
		if (left.tv_sec < 0 || nanosleep(&left, NULL) == 0)
			return;
	}
}

static void *watch(void *arg)
{
	struct timespec next;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		pthread_mutex_lock(&list_lock);
		for (struct sk_tracepoint *tp = tracepoints; tp; tp = tp->next)
			follow(tp);
		pthread_mutex_unlock(&list_lock);
		/* Deadlines on the monotonic clock: the period does not
		 * drift with the time an update takes. */
		next.tv_nsec += POLL_NS;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		sleep_until(&next);
	}
	return NULL;
}

/* Start the watcher, named (by its creator, so the name is there when the
 * caller goes on) for top -H and /proc to say whose thread it is. */
static int create_watcher(void)
{
	pthread_t t;
	int r = sk__os_thread_create(&t, watch);

	if (r)
		return r;
	sk__os_name_thread(t, "sk-trace-watch");
	pthread_detach(t);
	watcher_running = 1;
	watcher_pid = getpid();
	return 0;
}

/* The thread does not survive fork(): a child that still has tracepoints
 * starts its own, on its next tracepoint added or now, from the handler. */
static void after_fork_child(void)
{
	pthread_mutex_init(&list_lock, NULL);
	watcher_running = 0;
	if (tracepoints)
		create_watcher();
}

static void start_locked(void)
{
	static int atfork_set;

	if (watcher_running && watcher_pid == getpid())
		return;
	if (!atfork_set) {
		(void)sk__os_atfork(NULL, NULL, after_fork_child);
		atfork_set = 1;
	}
	int r = create_watcher();
	if (r) {
		sk__warn("tracepoints: could not start the thread that notices "
			 "attached tracers (%s); tracepoints turn on only by "
			 "probes and key updates", strerror(-r));
		return;
	}
}

void sk__tracepoint_add(struct sk_tracepoint *tp)
{
	if (!tp->semaphore) /* built without a USDT note: nothing to watch */
		return;
	pthread_mutex_lock(&list_lock);
	tp->next = tracepoints;
	tracepoints = tp;
	start_locked();
	pthread_mutex_unlock(&list_lock);
}

/* The object is going (dlclose, exit): unlist it and give back the
 * tracers' reference, so the key's count stays true. */
void sk__tracepoint_remove(struct sk_tracepoint *tp)
{
	if (!tp->semaphore)
		return;
	pthread_mutex_lock(&list_lock);
	for (struct sk_tracepoint **p = &tracepoints; *p; p = &(*p)->next) {
		if (*p == tp) {
			*p = tp->next;
			break;
		}
	}
	if (tp->tracer_ref == TRACER_HELD)
		sk_key_dec(&tp->key);
	tp->tracer_ref = TRACER_NONE;
	pthread_mutex_unlock(&list_lock);
}
