/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/commit.c - many keys flipped as one batch (statickeys/commit.h).
 *
 * A commit is what sk_key_enable()/sk_key_disable() do for one key, done for
 * all keys at once under one hold of the patch lock, with one call to
 * sk__update_locked().  That call plans every site of every key and runs the
 * int3 protocol once, so the number of core syncs does not grow with the
 * number of keys.
 *
 * Order of a commit, all under the lock:
 *
 *   1. decide, per key, whether its sites must change, and move its count
 *      to the transient state: 0 -> -1 ("in progress", reads as on) for keys
 *      being enabled, 1 -> 0 for keys being disabled (count first, then
 *      sites, as the kernel does);
 *   2. patch all sites of all changing keys as one batch;
 *   3. on success, publish 1 for the enabled keys; on failure, put every
 *      count back as it was (the batch itself already restored every site).
 *
 * sk_commit_calls() adds static calls (core/static_call.c) to the same
 * batch: their trampolines' jumps are planned before any count moves and
 * patched with the sites; a failed batch puts their targets back too.
 *
 * Concurrent single-key updates take the same lock, so each one happens
 * entirely before or entirely after a commit.  The only thing that runs
 * concurrently is the lock-free fast path of sk_key_inc()/sk_key_dec(),
 * which only moves counts that are > 0 (inc) or > 1 (dec): it never touches
 * the 0 and -1 states a commit creates, and a compare-and-swap 1 -> 0 below
 * notices an increment that slipped in before a disable (the key then holds
 * several references and the commit fails with -EBUSY, changing nothing).
 */
#include <errno.h>
#include <stdlib.h>

#include "control/control.h"
#include "support/mem.h"
#include "support/stats.h"

/* One key of a commit after de-duplication, with what was done to it. */
struct commit_item {
	struct sk_key *key;
	bool enable;
	bool changing; /* its count was moved and its sites must change */
};

static int item_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct commit_item *)a)->key;
	uintptr_t y = (uintptr_t)((const struct commit_item *)b)->key;

	return x < y ? -1 : x > y;
}

/* Copy, validate and de-duplicate @changes into *@out (sorted by key).
 * Return: the number of distinct keys, or -EINVAL / -ENOMEM. */
static long collect(const struct sk_key_change *changes, size_t n,
		    struct commit_item **out)
{
	struct commit_item *v = n <= SIZE_MAX / sizeof(*v)
					? sk__mem_alloc(n * sizeof(*v)) : NULL;
	size_t m = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!sk__key_is_valid(changes[i].key)) {
			sk__mem_free(v);
			return -EINVAL;
		}
		v[i].key = changes[i].key;
		v[i].enable = changes[i].enable;
	}
	sk__sort(v, n, sizeof(*v), item_cmp);
	for (size_t i = 0; i < n; i++) {
		if (m && v[m - 1].key == v[i].key) {
			if (v[m - 1].enable != v[i].enable) {
				sk__mem_free(v);
				return -EINVAL;
			}
			continue;
		}
		v[m++] = v[i];
	}
	*out = v;
	return (long)m;
}

/* Step 1 for one key.  Return: 0 (changing or not), or -EBUSY. */
static int begin_item(struct commit_item *it)
{
	int v = __atomic_load_n(&it->key->enabled, __ATOMIC_ACQUIRE);

	if (it->enable) {
		/* Under the lock nobody else can hold a key at -1, and the
		 * fast paths never move a count away from 0. */
		if (v != 0)
			return 0;
		__atomic_store_n(&it->key->enabled, -1, __ATOMIC_RELEASE);
		it->changing = true;
		return 0;
	}
	if (v == 0)
		return 0;
	/* A concurrent sk_key_inc() may turn 1 into 2 at any moment; only a
	 * compare-and-swap can take the last reference without losing it. */
	if (v == 1 && __atomic_compare_exchange_n(&it->key->enabled, &v, 0,
						  false, __ATOMIC_ACQ_REL,
						  __ATOMIC_ACQUIRE)) {
		it->changing = true;
		return 0;
	}
	return -EBUSY;
}

/* Step 3: publish the new counts, or put the old ones back on failure. */
static void finish_items(struct commit_item *v, size_t m, int r)
{
	for (size_t i = 0; i < m; i++) {
		if (!v[i].changing)
			continue;
		int final = (v[i].enable == (r == 0)) ? 1 : 0;
		__atomic_store_n(&v[i].key->enabled, final, __ATOMIC_RELEASE);
	}
}

/* Steps 1-3 with the lock held, and the static calls of @calls (planned
 * first: their targets are checked before any count moves; patched in the
 * same batch; put back if it fails).  Return: 0 or -errno, nothing changed. */
static int commit_locked(struct commit_item *v, size_t m,
			 const struct sk_static_call_change *calls,
			 size_t ncalls)
{
	struct sk__key_target *targets = sk__mem_alloc((m + 1) * sizeof(*targets));
	struct sk__call_change *ch =
		ncalls ? sk__mem_alloc(ncalls * sizeof(*ch)) : NULL;
	struct sk__patch *extra = NULL;
	size_t nt = 0, nextra = 0;
	int r = targets && (!ncalls || ch) ? 0 : -ENOMEM;

	if (r == 0 && ncalls)
		r = sk__calls_plan_locked(calls, ncalls, ch);
	bool calls_planned = r == 0 && ncalls;
	if (calls_planned) {
		/* Their trampolines' and call sites' patches. */
		nextra = sk__calls_patches(ch, ncalls, NULL);
		extra = nextra ? sk__mem_alloc(nextra * sizeof(*extra)) : NULL;
		if (nextra && !extra)
			r = -ENOMEM;
		else if (extra)
			sk__calls_patches(ch, ncalls, extra);
	}
	for (size_t i = 0; i < m && r == 0; i++) {
		r = begin_item(&v[i]);
		if (r == 0 && v[i].changing)
			targets[nt++] = (struct sk__key_target){ v[i].key,
								 v[i].enable };
	}
	if (r == 0 && (nt || nextra))
		r = sk__update_with_locked(targets, nt, extra, nextra);
	finish_items(v, m, r);
	if (calls_planned)
		sk__calls_finish_locked(ch, ncalls, r);
	if (r == 0)
		sk__count_held(SK__C_UPDATES, nt + ncalls);
	sk__mem_free(targets);
	sk__mem_free(ch);
	sk__mem_free(extra);
	return r;
}

static int commit_all_locked(const struct sk_key_change *changes, size_t n,
			     const struct sk_static_call_change *calls,
			     size_t ncalls)
{
	struct commit_item *v = NULL;

	if (n == 0 && ncalls == 0)
		return 0;
	if ((n && !changes) || (ncalls && !calls))
		return -EINVAL;
	long m = n ? collect(changes, n, &v) : 0;
	int r = m < 0 ? (int)m : commit_locked(v, (size_t)m, calls, ncalls);
	if (r < 0)
		sk__count_held(SK__C_UPDATE_ERRORS, 1);
	sk__mem_free(v);
	return r;
}

int sk__commit_locked(const struct sk_key_change *changes, size_t n)
{
	return commit_all_locked(changes, n, NULL, 0);
}

static int commit_timed(const struct sk_key_change *changes, size_t n,
			const struct sk_static_call_change *calls,
			size_t ncalls)
{
	if (n == 0 && ncalls == 0)
		return 0;
	uint64_t t0 = sk__now_ns();
	/* Targets in objects that could unload without telling us are
	 * pinned first, without the lock (core/static_call.c). */
	for (size_t i = 0; i < ncalls && calls; i++)
		sk__calls_pin_if_needed(calls[i].func);
	int r = sk__lock_update(0); /* pinning ran since t0 */
	if (r == 0) {
		r = commit_all_locked(changes, n, calls, ncalls);
		sk__unlock_update(t0);
	}
	return r;
}

SK_API int sk_commit(const struct sk_key_change *changes, size_t n)
{
	return commit_timed(changes, n, NULL, 0);
}

SK_API int sk_commit_calls(const struct sk_key_change *keys, size_t nkeys,
			   const struct sk_static_call_change *calls,
			   size_t ncalls)
{
	return commit_timed(keys, nkeys, calls, ncalls);
}
