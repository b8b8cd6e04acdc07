/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/commit.h - flipping many keys as one update.
 *
 *	struct sk_key_change changes[] = {
 *		SK_KEY_CHANGE(&tracing, true),
 *		SK_KEY_CHANGE(&fast_path, false),
 *	};
 *	int r = sk_commit(changes, 2);
 *
 * All sites of all keys are rewritten in one batch: the number of core syncs
 * is the same (at most 3) for 1 key or for 1000.  When sk_commit() returns 0,
 * every site of every key takes its new direction; when it fails, no key and
 * no site has changed.
 */
#ifndef STATICKEYS_COMMIT_H
#define STATICKEYS_COMMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "statickeys/key.h"

#ifdef __cplusplus
extern "C" {
#endif

/** struct sk_key_change - one key and whether it is to be on or off. */
struct sk_key_change {
	struct sk_key *key;
	bool enable;
};

/** SK_KEY_CHANGE(&key, on) - an initializer for struct sk_key_change. */
#define SK_KEY_CHANGE(k, on) { SK__UNTYPED(k), (on) }

/**
 * sk_commit() - apply @n enable/disable changes as one batch.
 * @changes: the keys and their wanted states; each behaves as
 *           sk_key_enable() or sk_key_disable() (idempotent).
 * @n:       number of changes (0 is a no-op).
 *
 * Return: 0; -EINVAL if any entry is not a key or a key appears twice with
 * different states; -EBUSY if a key to disable holds several sk_key_inc()
 * references; other errors as sk_key_enable().  On error nothing changed.
 */
SK_API int sk_commit(const struct sk_key_change *changes, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* STATICKEYS_COMMIT_H */
