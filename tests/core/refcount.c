/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * refcount.c - the kernel's reference-count semantics and every error path.
 * Each block is one behaviour; the sites are checked after every call so a
 * count and its code can never be seen to disagree.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <statickeys.h>

#include "../check.h"

SK_DEFINE_KEY_FALSE(counted);
SK_DEFINE_KEY_TRUE(starts_on);

__attribute__((noinline)) static bool counted_site(void)
{
	return sk_branch_unlikely(&counted);
}

__attribute__((noinline)) static bool starts_on_site(void)
{
	return sk_branch_likely(&starts_on);
}

#define EXPECT_STATE(key, site, count_)                                      \
	do {                                                                 \
		CHECK(sk_key_count(key) == (count_), "%s: count %d, want %d",\
		      #key, sk_key_count(key), (count_));                   \
		CHECK(site() == ((count_) > 0), "%s: site says %d, count %d",\
		      #key, site(), (count_));                              \
	} while (0)

static void inc_dec_nest(void)
{
	EXPECT_STATE(&counted, counted_site, 0);
	CHECK(sk_key_inc(&counted) == 0, "inc from 0");
	EXPECT_STATE(&counted, counted_site, 1);
	CHECK(sk_key_inc(&counted) == 0, "inc from 1 (fast path)");
	EXPECT_STATE(&counted, counted_site, 2);
	CHECK(sk_key_dec(&counted) == 0, "dec from 2 (fast path)");
	EXPECT_STATE(&counted, counted_site, 1);
	CHECK(sk_key_dec(&counted) == 0, "dec from 1");
	EXPECT_STATE(&counted, counted_site, 0);
}

static void dec_at_zero_is_refused(void)
{
	int r = sk_key_dec(&counted);
	CHECK(r == -ERANGE, "dec at zero returned %d, want -ERANGE", r);
	EXPECT_STATE(&counted, counted_site, 0);
}

static void enable_disable_are_idempotent(void)
{
	CHECK(sk_key_enable(&counted) == 0, "enable");
	CHECK(sk_key_enable(&counted) == 0, "enable again");
	EXPECT_STATE(&counted, counted_site, 1);
	CHECK(sk_key_disable(&counted) == 0, "disable");
	CHECK(sk_key_disable(&counted) == 0, "disable again");
	EXPECT_STATE(&counted, counted_site, 0);
}

static void disable_with_references_is_refused(void)
{
	sk_key_inc(&counted);
	sk_key_inc(&counted);
	int r = sk_key_disable(&counted);
	CHECK(r == -EBUSY, "disable at count 2 returned %d, want -EBUSY", r);
	EXPECT_STATE(&counted, counted_site, 2);
	sk_key_dec(&counted);
	sk_key_dec(&counted);
	EXPECT_STATE(&counted, counted_site, 0);
}

static void inc_overflow_is_refused(void)
{
	sk_key_enable(&counted);
	/* Reaching INT_MAX by calls would take minutes; set the count the way
	 * 2^31-2 more incs would have left it. */
	__atomic_store_n(&counted.key.enabled, INT_MAX - 1, __ATOMIC_RELEASE);
	CHECK(sk_key_inc(&counted) == 0, "inc to INT_MAX");
	int r = sk_key_inc(&counted);
	CHECK(r == -EOVERFLOW, "inc past INT_MAX returned %d", r);
	CHECK(sk_key_count(&counted) == INT_MAX, "count stays INT_MAX");
	CHECK(counted_site(), "site stays on");
	__atomic_store_n(&counted.key.enabled, 1, __ATOMIC_RELEASE);
	sk_key_disable(&counted);
	EXPECT_STATE(&counted, counted_site, 0);
}

static void true_key_starts_counted(void)
{
	EXPECT_STATE(&starts_on, starts_on_site, 1);
	CHECK(sk_key_dec(&starts_on) == 0, "dec a true key");
	EXPECT_STATE(&starts_on, starts_on_site, 0);
	CHECK(sk_key_inc(&starts_on) == 0, "inc it back");
	EXPECT_STATE(&starts_on, starts_on_site, 1);
}

static void not_a_key_is_refused(void)
{
	struct sk_key_false zeroed;
	memset(&zeroed, 0, sizeof(zeroed));
	CHECK(sk_key_enable(&zeroed) == -EINVAL, "enable of a zeroed key");
	CHECK(sk_key_inc(&zeroed) == -EINVAL, "inc of a zeroed key");
	CHECK(sk_key_dec(&zeroed) == -EINVAL, "dec of a zeroed key");
	CHECK(sk_key_disable(&zeroed) == -EINVAL, "disable of a zeroed key");
	CHECK(sk_key_count(&zeroed) == -EINVAL, "count of a zeroed key");
	CHECK(!sk_key_enabled(&zeroed), "a zeroed key reads as off");
	CHECK(sk_key_enable((struct sk_key *)NULL) == -EINVAL, "NULL key");
}

static void stats_count_updates(void)
{
	struct sk_stats a, b;
	sk_stats_get(&a);
	sk_key_enable(&counted);
	sk_key_enable(&counted); /* no-op: no update, no batch */
	sk_key_disable(&counted);
	sk_stats_get(&b);
	CHECK(b.updates - a.updates == 2, "2 updates counted, got %lu",
	      (unsigned long)(b.updates - a.updates));
	CHECK(b.batches - a.batches == 2, "2 batches, got %lu",
	      (unsigned long)(b.batches - a.batches));
	CHECK(b.core_syncs - a.core_syncs <= 6, "<= 3 syncs per batch, got %lu",
	      (unsigned long)(b.core_syncs - a.core_syncs));
	CHECK(b.sites_written - a.sites_written == 2, "1 site each way");
	CHECK(sk_stats_get(NULL) == -EINVAL, "NULL stats");
}

int main(void)
{
	inc_dec_nest();
	dec_at_zero_is_refused();
	enable_disable_are_idempotent();
	disable_with_references_is_refused();
	inc_overflow_is_refused();
	true_key_starts_counted();
	not_a_key_is_refused();
	stats_count_updates();
	return check_summary();
}
