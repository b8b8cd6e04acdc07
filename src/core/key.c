/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/core/key.c - the kernel's static key semantics (kernel/jump_label.c).
 *
 * key->enabled is the reference count.  Fast paths change it with a
 * compare-and-swap when no site has to change (inc of an enabled key, dec
 * that does not reach zero); everything else takes the patch lock.
 *
 * The 0 -> 1 transition stores -1 ("update in progress") before patching and
 * 1 (release) after: a concurrent sk_key_inc() sees -1, fails its fast path
 * and waits on the lock, so no caller can return believing the key is on
 * while some sites still take the off path (the kernel's 2017 fix).
 * sk_key_enabled() reads -1 as on, like the kernel's static_key_count().
 */
#include <errno.h>
#include <limits.h>

#include "core/core.h"
#include "support/stats.h"

static int load(const struct sk_key *key)
{
	return __atomic_load_n(&key->enabled, __ATOMIC_ACQUIRE);
}

static bool cas(struct sk_key *key, int *expected, int desired)
{
	return __atomic_compare_exchange_n(&key->enabled, expected, desired,
					   false, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE);
}

/* Take the lock for an update; the clock starts for the latency histogram. */
static int begin(struct sk_key *key, uint64_t *t0)
{
	if (!sk__key_is_valid(key))
		return -EINVAL;
	*t0 = sk__now_ns();
	return sk__lock_update(*t0);
}

static int end(int r, uint64_t t0)
{
	if (r < 0)
		sk__count_held(SK__C_UPDATE_ERRORS, 1);
	sk__unlock_update(t0);
	return r;
}

/* Patch @key's sites to @on; the caller set the count's transient state. */
static int apply(struct sk_key *key, bool on)
{
	struct sk__key_target t = { key, on };
	int r = sk__update_locked(&t, 1);

	if (r == 0)
		sk__count_held(SK__C_UPDATES, 1);
	return r;
}

/* 0 -> 1 under the lock, through the -1 "in progress" state. */
static int first_enable_locked(struct sk_key *key)
{
	__atomic_store_n(&key->enabled, -1, __ATOMIC_RELEASE);
	int r = apply(key, true);
	__atomic_store_n(&key->enabled, r == 0 ? 1 : 0, __ATOMIC_RELEASE);
	return r;
}

/*
 * The count reached 0 by our compare-and-swap: patch the sites off.  From
 * here until we store again no one else changes the count (fast paths only
 * act on counts above 0 or 1), so a plain store can restore it on failure.
 */
static int last_reference_dropped(struct sk_key *key)
{
	int r = apply(key, false);

	if (r)
		__atomic_store_n(&key->enabled, 1, __ATOMIC_RELEASE);
	return r;
}

/* dec under the lock.  Every change is a compare-and-swap: the inc fast
 * path may move 1 -> 2 at any moment, and a plain store of 0 would lose
 * that reference (the kernel uses cmpxchg here for the same reason). */
static int dec_locked(struct sk_key *key)
{
	int v = load(key);

	for (;;) {
		if (v == 0)
			return -ERANGE;
		if (cas(key, &v, v - 1))
			return v == 1 ? last_reference_dropped(key) : 0;
	}
}

SK_API int sk__key_inc(struct sk_key *key)
{
	uint64_t t0;

	if (!sk__key_is_valid(key))
		return -EINVAL;
	for (int v = load(key); v > 0;) {
		if (v == INT_MAX)
			return -EOVERFLOW;
		if (cas(key, &v, v + 1))
			return 0;
	}
	int r = begin(key, &t0);
	if (r)
		return r;
	/* Only we move the count away from 0 (under the lock); above 0 the
	 * fast paths may change it at any moment, hence the CAS loop. */
	for (int v = load(key);;) {
		if (v == 0) {
			r = first_enable_locked(key);
			break;
		}
		if (v == INT_MAX) {
			r = -EOVERFLOW;
			break;
		}
		if (cas(key, &v, v + 1))
			break;
	}
	return end(r, t0);
}

SK_API int sk__key_dec(struct sk_key *key)
{
	uint64_t t0;

	if (!sk__key_is_valid(key))
		return -EINVAL;
	for (int v = load(key); v > 1;)
		if (cas(key, &v, v - 1))
			return 0;
	int r = begin(key, &t0);
	if (r)
		return r;
	r = dec_locked(key);
	return end(r, t0);
}

SK_API int sk__key_enable(struct sk_key *key)
{
	uint64_t t0;

	if (!sk__key_is_valid(key))
		return -EINVAL;
	if (load(key) > 0)
		return 0;
	int r = begin(key, &t0);
	if (r)
		return r;
	if (load(key) == 0)
		r = first_enable_locked(key);
	return end(r, t0);
}

SK_API int sk__key_disable(struct sk_key *key)
{
	uint64_t t0;

	if (!sk__key_is_valid(key))
		return -EINVAL;
	if (load(key) == 0)
		return 0;
	int r = begin(key, &t0);
	if (r)
		return r;
	int v = 1;
	if (cas(key, &v, 0))
		r = last_reference_dropped(key);
	else if (v > 1)
		r = -EBUSY;
	return end(r, t0);
}

SK_API bool sk__key_enabled(const struct sk_key *key)
{
	return sk__key_is_valid(key) && load(key) != 0;
}

SK_API int sk__key_count(const struct sk_key *key)
{
	if (!sk__key_is_valid(key))
		return -EINVAL;
	int v = load(key);
	return v >= 0 ? v : 1;
}
