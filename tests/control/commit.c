/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * commit.c - sk_commit(): one batch for many keys, all or nothing.
 *
 * Specification checked here:
 *   - every site of every committed key takes its new direction;
 *   - the number of core syncs of a commit is the same for 1 key and 20;
 *   - a commit that cannot be applied (a key to disable holds several
 *     references, an entry that is not a key, one key asked both ways)
 *     changes no key and no site;
 *   - duplicate entries with the same state are applied once;
 *   - keys already in the wanted state cost nothing.
 */
#include <errno.h>
#include <statickeys.h>

#include "../check.h"

#define NKEYS 20

#define KEY_AND_SITE(n)                                                      \
	SK_DEFINE_KEY_FALSE(k##n);                                           \
	__attribute__((noinline)) static bool site_##n(void)                 \
	{                                                                    \
		return sk_branch_unlikely(&k##n) ? true : false;             \
	}

KEY_AND_SITE(0) KEY_AND_SITE(1) KEY_AND_SITE(2) KEY_AND_SITE(3)
KEY_AND_SITE(4) KEY_AND_SITE(5) KEY_AND_SITE(6) KEY_AND_SITE(7)
KEY_AND_SITE(8) KEY_AND_SITE(9) KEY_AND_SITE(10) KEY_AND_SITE(11)
KEY_AND_SITE(12) KEY_AND_SITE(13) KEY_AND_SITE(14) KEY_AND_SITE(15)
KEY_AND_SITE(16) KEY_AND_SITE(17) KEY_AND_SITE(18) KEY_AND_SITE(19)

SK_DEFINE_KEY_TRUE(shared_ref);
__attribute__((noinline)) static bool site_shared_ref(void)
{
	return sk_branch_likely(&shared_ref) ? true : false;
}

#define E(n) { &k##n.key, site_##n }
static const struct {
	struct sk_key *key;
	bool (*site)(void);
} keys[NKEYS] = {
	E(0), E(1), E(2), E(3), E(4), E(5), E(6), E(7), E(8), E(9),
	E(10), E(11), E(12), E(13), E(14), E(15), E(16), E(17), E(18), E(19),
};

static uint64_t syncs(void)
{
	struct sk_stats s;
	sk_stats_get(&s);
	return s.core_syncs;
}

/* Commit the first @n keys to @on; return the core syncs it took. */
static uint64_t commit_first(size_t n, bool on)
{
	struct sk_key_change c[NKEYS];
	for (size_t i = 0; i < n; i++)
		c[i] = (struct sk_key_change){ keys[i].key, on };
	uint64_t before = syncs();
	int r = sk_commit(c, n);
	CHECK(r == 0, "committing %zu keys to %d returned %d", n, on, r);
	return syncs() - before;
}

static void expect_states(const char *phase, size_t n_on)
{
	for (size_t i = 0; i < NKEYS; i++) {
		bool want = i < n_on;
		CHECK(sk_key_enabled(keys[i].key) == want,
		      "%s: key %s state %d, want %d", phase, keys[i].key->name,
		      sk_key_enabled(keys[i].key), want);
		CHECK(keys[i].site() == want, "%s: site of %s says %d, want %d",
		      phase, keys[i].key->name, keys[i].site(), want);
	}
}

static void test_syncs_do_not_grow_with_keys(void)
{
	uint64_t one = commit_first(1, true);
	expect_states("one key on", 1);
	uint64_t one_off = commit_first(1, false);
	expect_states("one key off", 0);
	uint64_t twenty = commit_first(NKEYS, true);
	expect_states("twenty keys on", NKEYS);
	uint64_t twenty_off = commit_first(NKEYS, false);
	expect_states("twenty keys off", 0);
	printf("core syncs: 1 key on %llu off %llu; %d keys on %llu off %llu\n",
	       (unsigned long long)one, (unsigned long long)one_off, NKEYS,
	       (unsigned long long)twenty, (unsigned long long)twenty_off);
	CHECK(one > 0, "a commit that changes a site syncs cores");
	CHECK(twenty == one, "20 keys took %llu syncs, 1 key %llu",
	      (unsigned long long)twenty, (unsigned long long)one);
	CHECK(twenty_off == one_off, "20 keys off took %llu syncs, 1 key %llu",
	      (unsigned long long)twenty_off, (unsigned long long)one_off);
	CHECK(commit_first(NKEYS, false) == 0,
	      "a commit that changes nothing syncs nothing");
}

static void test_busy_key_changes_nothing(void)
{
	CHECK(sk_key_inc(&shared_ref) == 0, "inc shared_ref");
	CHECK(sk_key_count(&shared_ref) == 2, "shared_ref holds 2 references");
	struct sk_key_change c[] = {
		SK_KEY_CHANGE(&k0, true),
		SK_KEY_CHANGE(&k1, true),
		SK_KEY_CHANGE(&shared_ref, false),
		SK_KEY_CHANGE(&k2, true),
	};
	uint64_t before = syncs();
	int r = sk_commit(c, 4);
	CHECK(r == -EBUSY, "disabling a key with 2 references: %d", r);
	CHECK(syncs() == before, "a refused commit syncs nothing");
	expect_states("after refused commit", 0);
	CHECK(sk_key_count(&shared_ref) == 2 && site_shared_ref(),
	      "shared_ref untouched");
	CHECK(sk_key_dec(&shared_ref) == 0, "dec shared_ref");
	r = sk_commit(c, 4);
	CHECK(r == 0, "same commit with one reference: %d", r);
	CHECK(!sk_key_enabled(&shared_ref) && !site_shared_ref(),
	      "shared_ref now off");
	CHECK(sk_key_enabled(&k0) && sk_key_enabled(&k1) &&
		      sk_key_enabled(&k2) && site_0() && site_1() && site_2(),
	      "k0..k2 now on");
	struct sk_key_change undo[] = {
		SK_KEY_CHANGE(&k0, false), SK_KEY_CHANGE(&k1, false),
		SK_KEY_CHANGE(&k2, false), SK_KEY_CHANGE(&shared_ref, true),
	};
	CHECK(sk_commit(undo, 4) == 0, "undo commit");
	expect_states("after undo", 0);
	CHECK(site_shared_ref(), "shared_ref back on");
}

static void test_bad_entries(void)
{
	struct sk_key fake = { 0 };
	struct sk_key_change with_fake[] = {
		SK_KEY_CHANGE(&k0, true),
		{ &fake, true },
	};
	CHECK(sk_commit(with_fake, 2) == -EINVAL, "a non-key is refused");
	struct sk_key_change both_ways[] = {
		SK_KEY_CHANGE(&k0, true), SK_KEY_CHANGE(&k1, true),
		SK_KEY_CHANGE(&k0, false),
	};
	CHECK(sk_commit(both_ways, 3) == -EINVAL, "one key both ways refused");
	CHECK(sk_commit(NULL, 1) == -EINVAL, "NULL array refused");
	CHECK(sk_commit(NULL, 0) == 0, "empty commit is a no-op");
	expect_states("after refused entries", 0);
	struct sk_key_change dup[] = {
		SK_KEY_CHANGE(&k3, true), SK_KEY_CHANGE(&k3, true),
	};
	CHECK(sk_commit(dup, 2) == 0, "duplicate same-state entries accepted");
	CHECK(sk_key_count(&k3) == 1 && site_3(), "k3 on once, count 1");
	dup[0].enable = dup[1].enable = false;
	CHECK(sk_commit(dup, 2) == 0 && !site_3(), "k3 off again");
}

int main(void)
{
	test_syncs_do_not_grow_with_keys();
	test_busy_key_changes_nothing();
	test_bad_entries();
	return check_summary();
}
