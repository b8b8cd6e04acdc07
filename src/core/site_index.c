/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/core/site_index.c - an object's sites, read in place, and the index of
 * its sites by key.
 *
 * The kernel pays nothing at boot for its jump table: it is sorted at build
 * time and used in place.  Ours is used in place too: an object's site
 * entries stay where the linker put them (16 bytes each, in the object's
 * file-backed memory) and are decoded when they are read.  Registration
 * only reads them through once (objects.c); nothing per site is copied or
 * sorted then, which is what a program's start-up costs.
 *
 * An update needs the sites of its keys.  The first update that reaches an
 * object builds the object's index by key: the keys its sites name, each
 * with a slice of one array of 4-byte entry numbers, grouped by key by a
 * counting sort (two passes over the entries, no comparison sort of sites;
 * a hash table finds each entry's key while it is built).  Within a key the
 * numbers keep table order, which is address order when the table is (the
 * usual case; update.c sorts each update's changes by address anyway).
 * What stays is 4 bytes per site and 16 per key: the hash table is then
 * packed into an array of the keys, sorted by address and searched by
 * halves (a few steps per update and object, next to microseconds of
 * system calls), since its empty slots would cost more than the sites
 * (100 keys take 256 slots: 4 KiB against 4,000 bytes for 1,000 sites).
 * The index lives as long as the object; an object no update ever reaches
 * never builds one.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/core.h"
#include "support/mem.h"

/* One key of the object: its sites are sites[start .. start + count). */
struct key_slot {
	const struct sk_key *key;
	uint32_t start, count;
};

struct sk__key_index {
	size_t nkeys;
	struct key_slot *keys; /* sorted by key address */
	uint32_t sites[];
};

void sk__object_site(const struct sk__object *obj, size_t i,
		     struct sk__site *out)
{
	const struct sk__site_entry *e = sk__object_entry(obj, i);

	out->code = sk__entry_code(e);
	out->target = (uintptr_t)&e->target + (uintptr_t)(intptr_t)e->target;
	out->key = sk__entry_key(e);
	out->branch = (unsigned)e->flags & SK__SITE_LIKELY;
}

static size_t hash(const struct sk_key *key, size_t mask)
{
	/* Keys are at least 8-byte aligned; Fibonacci hashing spreads the
	 * rest of the address over the table. */
	return (size_t)(((uint64_t)(uintptr_t)key >> 3) *
			0x9e3779b97f4a7c15ull >> 32) & mask;
}

static struct key_slot *slot_of(struct key_slot *slots, size_t mask,
				const struct sk_key *key)
{
	size_t i = hash(key, mask);

	while (slots[i].key && slots[i].key != key)
		i = (i + 1) & mask;
	return &slots[i];
}

/* Double the table; every key keeps its count. */
static int grow(struct key_slot **slots, size_t *mask)
{
	size_t nmask = *mask * 2 + 1;
	struct key_slot *n = sk__mem_alloc((nmask + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i <= *mask; i++)
		if ((*slots)[i].key)
			*slot_of(n, nmask, (*slots)[i].key) = (*slots)[i];
	sk__mem_free(*slots);
	*slots = n;
	*mask = nmask;
	return 0;
}

/* Pass 1 of the counting sort: the keys and how many sites each has. */
static int count_keys(const struct sk__object *obj, struct key_slot **slots,
		      size_t *mask, size_t *nkeys_out)
{
	size_t nkeys = 0;

	*mask = 15;
	*slots = sk__mem_alloc((*mask + 1) * sizeof(**slots));
	if (!*slots)
		return -ENOMEM;
	for (size_t i = 0; i < obj->nentries; i++) {
		const struct sk__site_entry *e = sk__object_entry(obj, i);
		struct sk_key *key = sk__entry_key(e);
		if (!sk__key_is_valid(key))
			continue;
		struct key_slot *s = slot_of(*slots, *mask, key);
		if (!s->key) {
			s->key = key;
			if (++nkeys * 2 > *mask && grow(slots, mask) != 0)
				return -ENOMEM;
			s = slot_of(*slots, *mask, key);
		}
		s->count++;
	}
	*nkeys_out = nkeys;
	return 0;
}

static int slot_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct key_slot *)a)->key;
	uintptr_t y = (uintptr_t)((const struct key_slot *)b)->key;

	return x < y ? -1 : x > y;
}

/* The hash table's keys, packed and sorted by address: NULL if out of
 * memory (the caller keeps nothing then). */
static struct key_slot *pack(const struct key_slot *slots, size_t mask,
			     size_t nkeys)
{
	struct key_slot *keys =
		sk__mem_alloc((nkeys ? nkeys : 1) * sizeof(*keys));
	size_t n = 0;

	if (!keys)
		return NULL;
	for (size_t i = 0; i <= mask; i++)
		if (slots[i].key)
			keys[n++] = slots[i];
	sk__sort(keys, n, sizeof(*keys), slot_cmp);
	return keys;
}

static int index_build(struct sk__object *obj)
{
	struct key_slot *slots;
	size_t mask, nkeys = 0;
	int r = count_keys(obj, &slots, &mask, &nkeys);
	struct sk__key_index *ix =
		r ? NULL
		  : sk__mem_alloc(sizeof(*ix) + obj->nsites * sizeof(uint32_t));

	if (!ix) {
		sk__mem_free(slots);
		return -ENOMEM;
	}
	uint32_t start = 0;
	for (size_t i = 0; i <= mask; i++) {
		slots[i].start = start;
		start += slots[i].count;
		slots[i].count = 0; /* counts again as pass 2 fills */
	}
	/* Pass 2: every valid entry's number into its key's slice. */
	for (size_t i = 0; i < obj->nentries; i++) {
		struct sk_key *key = sk__entry_key(sk__object_entry(obj, i));
		if (!sk__key_is_valid(key))
			continue;
		struct key_slot *s = slot_of(slots, mask, key);
		ix->sites[s->start + s->count++] = (uint32_t)i;
	}
	ix->keys = pack(slots, mask, nkeys);
	sk__mem_free(slots);
	if (!ix->keys) {
		sk__mem_free(ix);
		return -ENOMEM;
	}
	ix->nkeys = nkeys;
	obj->by_key = ix;
	return 0;
}

int sk__object_key_sites(struct sk__object *obj, const struct sk_key *key,
			 const uint32_t **sites, size_t *n)
{
	*sites = NULL;
	*n = 0;
	if (obj->nsites == 0)
		return 0;
	if (!obj->by_key) {
		int r = index_build(obj);
		if (r)
			return r;
	}
	struct key_slot wanted = { .key = key };
	const struct key_slot *s =
		bsearch(&wanted, obj->by_key->keys, obj->by_key->nkeys,
			sizeof(wanted), slot_cmp);
	if (s) {
		*sites = &obj->by_key->sites[s->start];
		*n = s->count;
	}
	return 0;
}

void sk__key_index_free(struct sk__key_index *ix)
{
	if (!ix)
		return;
	sk__mem_free(ix->keys);
	sk__mem_free(ix);
}
