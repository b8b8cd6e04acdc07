/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/trace/probes.c - a tracepoint's probe array: registration, firing and
 * the grace period that makes unregistration final.
 *
 * Firing takes no lock: a thread counts itself in one of two reader
 * counters, loads the array, calls its probes and counts itself out.  A
 * change builds a new array, publishes it, and frees the old one only after
 * both counters have been seen at zero since the publication (the kernel's
 * tracepoint_synchronize_unregister(), as SRCU does it): a firing that could
 * have loaded the old array incremented its counter before the publication,
 * so it is seen.  The phase flip before each wait sends new firings to the
 * other counter, so a steady stream of firings cannot starve the writer.
 *
 * Registration and unregistration take a mutex (they allocate) and are not
 * for signal handlers; firing is async-signal-safe as long as the probes
 * are.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>

#include "statickeys/trace.h"

/* One mutex for every tracepoint: changes are rare and each is short. */
static pthread_mutex_t probes_lock = PTHREAD_MUTEX_INITIALIZER;

/* How deep this thread is inside probes: registering from a probe would
 * wait for a grace period the probe itself holds open. */
static __thread unsigned int in_probe;

const struct sk_tracepoint_probe *
sk__tracepoint_enter(struct sk_tracepoint *tp, unsigned int *phase)
{
	unsigned int p = __atomic_load_n(&tp->phase, __ATOMIC_RELAXED) & 1;

	in_probe++;
	*phase = p;
	/* seq_cst: the increment is ordered before the load of the array, and
	 * against the writer's publication (see the file comment). */
	__atomic_fetch_add(&tp->readers[p], 1, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&tp->probes, __ATOMIC_SEQ_CST);
}

void sk__tracepoint_exit(struct sk_tracepoint *tp, unsigned int phase)
{
	/* release: the probes' reads of the array happen before the writer
	 * sees the count fall and frees it. */
	__atomic_fetch_sub(&tp->readers[phase], 1, __ATOMIC_RELEASE);
	in_probe--;
}

/* Wait until a counter drains: a few polls first (a probe is usually
 * short), then sleeps growing to a millisecond.  No sched_yield(): with more
 * runnable threads than CPUs it hands the CPU away for a whole time slice. */
static void wait_drained(unsigned long *count)
{
	long ns = 1000;

	for (int spins = 0; __atomic_load_n(count, __ATOMIC_ACQUIRE); spins++) {
		if (spins < 100) {
			__asm__ __volatile__("" ::: "memory");
			continue;
		}
		struct timespec ts = { 0, ns };
		nanosleep(&ts, NULL);
		if (ns < 1000000)
			ns *= 2;
	}
}

/* Every firing that may still use an array unpublished before this call
 * has returned. */
static void synchronize(struct sk_tracepoint *tp)
{
	for (int i = 0; i < 2; i++) {
		unsigned int old = __atomic_fetch_add(&tp->phase, 1,
						      __ATOMIC_SEQ_CST) & 1;
		wait_drained(&tp->readers[old]);
	}
}

static size_t count_probes(const struct sk_tracepoint_probe *p)
{
	size_t n = 0;

	while (p && p[n].func)
		n++;
	return n;
}

static ssize_t find_probe(const struct sk_tracepoint_probe *p, size_t n,
			  void (*func)(void), void *data)
{
	for (size_t i = 0; i < n; i++)
		if (p[i].func == func && p[i].data == data)
			return (ssize_t)i;
	return -1;
}

/* Publish @next (NULL for none), wait out the readers of the old array and
 * free it.  Called with probes_lock held. */
static void replace(struct sk_tracepoint *tp, struct sk_tracepoint_probe *next)
{
	struct sk_tracepoint_probe *old = tp->probes;

	__atomic_store_n(&tp->probes, next, __ATOMIC_SEQ_CST);
	synchronize(tp);
	free(old);
}

static int add_locked(struct sk_tracepoint *tp, void (*func)(void), void *data)
{
	size_t n = count_probes(tp->probes);

	if (find_probe(tp->probes, n, func, data) >= 0)
		return -EEXIST;
	struct sk_tracepoint_probe *next = malloc((n + 2) * sizeof(*next));
	if (!next)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		next[i] = tp->probes[i];
	next[n] = (struct sk_tracepoint_probe){ func, data };
	next[n + 1] = (struct sk_tracepoint_probe){ 0, 0 };
	replace(tp, next);
	return 0;
}

static int remove_locked(struct sk_tracepoint *tp, void (*func)(void),
			 void *data)
{
	size_t n = count_probes(tp->probes);
	ssize_t at = find_probe(tp->probes, n, func, data);

	if (at < 0)
		return -ENOENT;
	struct sk_tracepoint_probe *next = NULL;
	if (n > 1) {
		next = malloc(n * sizeof(*next));
		if (!next)
			return -ENOMEM;
		for (size_t i = 0, j = 0; i < n; i++)
			if (i != (size_t)at)
				next[j++] = tp->probes[i];
		next[n - 1] = (struct sk_tracepoint_probe){ 0, 0 };
	}
	replace(tp, next);
	return 0;
}

int sk__tracepoint_register(struct sk_tracepoint *tp, void (*func)(void),
			    void *data)
{
	if (!tp || !func)
		return -EINVAL;
	if (in_probe)
		return -EDEADLK;
	pthread_mutex_lock(&probes_lock);
	int r = add_locked(tp, func, data);
	pthread_mutex_unlock(&probes_lock);
	if (r)
		return r;
	/* The probe is in the array before the key turns on, so the first
	 * firing finds it.  The reference is the probe's. */
	r = sk_key_inc(&tp->key);
	if (r) {
		pthread_mutex_lock(&probes_lock);
		remove_locked(tp, func, data);
		pthread_mutex_unlock(&probes_lock);
	}
	return r;
}

int sk__tracepoint_unregister(struct sk_tracepoint *tp, void (*func)(void),
			      void *data)
{
	if (!tp || !func)
		return -EINVAL;
	if (in_probe)
		return -EDEADLK;
	pthread_mutex_lock(&probes_lock);
	int r = remove_locked(tp, func, data);
	pthread_mutex_unlock(&probes_lock);
	if (r)
		return r;
	/* After the grace period: the probe is gone whatever the key does. */
	return sk_key_dec(&tp->key);
}
