/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/registry.h - finding keys by name and looking at them.
 *
 *	struct sk_key *k = sk_key_find("tracing");
 *	if (k) sk_commit(&(struct sk_key_change){ k, true }, 1);
 *
 *	struct sk_key_info *v; size_t n;
 *	if (sk_keys_snapshot(&v, &n) == 0) {
 *		for (size_t i = 0; i < n; i++)
 *			printf("%s %d\n", v[i].name, v[i].enabled);
 *		sk_keys_snapshot_free(v);
 *	}
 *
 * Every key defined with SK_DEFINE_KEY_* has a name, by default its C
 * identifier, and optionally a one-line description (SK_DEFINE_KEY_*_DESC).
 * Names are unique per process: when two loaded objects (the program, its
 * libraries, dlopen'd plugins) define keys with the same identifier, each is
 * named "FILE:identifier", FILE being the base name of its object's file
 * (the full path if base names collide too).  sk_key_find() accepts both
 * the plain and the qualified form; the plain form only while it is unique.
 */
#ifndef STATICKEYS_REGISTRY_H
#define STATICKEYS_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "statickeys/key.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct sk_key_info - one key as seen at the time of a snapshot.
 * @key:         the key itself (valid while its object stays loaded).
 * @name:        its unique name in the process (see above).
 * @identifier:  its name as defined, never qualified.
 * @description: its description, or "" when it has none.
 * @object:      the file of the object that defines it ("" if unknown).
 * @enabled:     whether it is on (an update in progress reads as on).
 * @initial:     whether it was defined on (SK_DEFINE_KEY_TRUE).
 * @count:       its reference count (see sk_key_count()).
 * @nsites:      its sites in all loaded objects.
 * @nobjects:    how many loaded objects hold at least one of its sites.
 *
 * The strings belong to the snapshot; they stay valid until it is freed.
 */
struct sk_key_info {
	struct sk_key *key;
	const char *name;
	const char *identifier;
	const char *description;
	const char *object;
	bool enabled;
	bool initial;
	int count;
	size_t nsites;
	size_t nobjects;
};

/**
 * sk_key_find() - the key called @name, or NULL.
 * @name: a unique name, "identifier" or "FILE:identifier".
 *
 * Return: the key, or NULL (errno ENOENT: no such key; EEXIST: the plain
 * identifier names keys in several objects, qualify it; EINVAL: NULL).
 */
SK_API struct sk_key *sk_key_find(const char *name);

/**
 * sk_keys_snapshot() - every key of every loaded object, sorted by name.
 * @out: set to an array the caller frees with sk_keys_snapshot_free().
 * @n:   set to the number of keys.
 *
 * Iterating over a snapshot holds no lock, so its user may flip keys.
 * Return: 0, -EINVAL, -ENOMEM, or -EDEADLK from inside an update.
 */
SK_API int sk_keys_snapshot(struct sk_key_info **out, size_t *n);

/** sk_keys_snapshot_free() - release a snapshot (NULL is fine). */
SK_API void sk_keys_snapshot_free(struct sk_key_info *snapshot);

/**
 * sk_key_info_get() - a snapshot of the one key called @name.
 * @name: as for sk_key_find().
 * @out:  filled in; its strings live in *@storage.
 * @storage: set to memory the caller frees with sk_keys_snapshot_free().
 *
 * Return: 0, -ENOENT, -EEXIST (ambiguous identifier), -EINVAL, -ENOMEM.
 */
SK_API int sk_key_info_get(const char *name, struct sk_key_info *out,
			   struct sk_key_info **storage);

#ifdef __cplusplus
}
#endif

#endif /* STATICKEYS_REGISTRY_H */
