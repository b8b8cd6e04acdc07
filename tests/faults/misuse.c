/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * misuse.c - calls a program should not make, and what they return.
 *
 * - sk_key_dec() below zero: -ERANGE, no underflow, sites unchanged.
 * - sk_key_inc() at INT_MAX: -EOVERFLOW, count and sites unchanged.
 * - something that is not a key defined by SK_DEFINE_KEY_* (zeroed memory,
 *   foreign bytes, NULL): -EINVAL from every call.
 * - storms: threads hammer one key with enable/disable/inc/dec at once,
 *   while another runs its sites; every call returns 0 or its documented
 *   error, the count never reads negative, and when the storm is over every
 *   site agrees with the key.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <statickeys.h>

#include "../check.h"
#include "../repeat.h"

SK_DEFINE_KEY_FALSE(storm_key);
SK_DEFINE_KEY_TRUE(true_key);

#define NSITES 32

__attribute__((noinline)) static int storm_sites(void)
{
	int n = 0;
	REP16(if (sk_branch_unlikely(&storm_key)) n++;
	      if (sk_branch_likely(&storm_key)) n++;)
	return n;
}

__attribute__((noinline)) static int true_sites(void)
{
	int n = 0;
	REP4(if (sk_branch_likely(&true_key)) n++;)
	return n;
}

static void dec_below_zero(void)
{
	int r = sk_key_dec(&storm_key);
	CHECK(r == -ERANGE && sk_key_count(&storm_key) == 0,
	      "dec at 0 returned %d, count %d", r, sk_key_count(&storm_key));
	CHECK(storm_sites() == 0, "dec at 0 changed sites");
	r = sk_key_dec(&true_key); /* 1 -> 0: fine */
	CHECK(r == 0 && true_sites() == 0, "dec of a true key returned %d", r);
	r = sk_key_dec(&true_key);
	CHECK(r == -ERANGE && sk_key_count(&true_key) == 0 && true_sites() == 0,
	      "second dec of a true key returned %d, count %d", r,
	      sk_key_count(&true_key));
	CHECK(sk_key_enable(&true_key) == 0 && true_sites() == 4,
	      "re-enabling the true key failed");
}

/* Reaching INT_MAX by calls would take 2^31 of them (~20 s): the count is
 * set just below it by hand, standing in for those increments. */
static void inc_overflow(void)
{
	CHECK(sk_key_inc(&storm_key) == 0 && storm_sites() == NSITES,
	      "first inc failed");
	__atomic_store_n(&storm_key.key.enabled, INT_MAX - 1, __ATOMIC_RELEASE);
	int r = sk_key_inc(&storm_key);
	CHECK(r == 0 && sk_key_count(&storm_key) == INT_MAX,
	      "inc to INT_MAX returned %d", r);
	r = sk_key_inc(&storm_key);
	CHECK(r == -EOVERFLOW && sk_key_count(&storm_key) == INT_MAX,
	      "inc past INT_MAX returned %d, count %d", r,
	      sk_key_count(&storm_key));
	CHECK(storm_sites() == NSITES, "overflowing inc changed sites");
	r = sk_key_disable(&storm_key);
	CHECK(r == -EBUSY, "disable with INT_MAX references returned %d", r);
	__atomic_store_n(&storm_key.key.enabled, 1, __ATOMIC_RELEASE);
	CHECK(sk_key_dec(&storm_key) == 0 && storm_sites() == 0,
	      "dec back to 0 failed");
}

static void check_not_a_key(struct sk_key *k, const char *what)
{
	CHECK(sk_key_enable(k) == -EINVAL, "enable(%s) not refused", what);
	CHECK(sk_key_disable(k) == -EINVAL, "disable(%s) not refused", what);
	CHECK(sk_key_inc(k) == -EINVAL, "inc(%s) not refused", what);
	CHECK(sk_key_dec(k) == -EINVAL, "dec(%s) not refused", what);
	CHECK(sk_key_count(k) == -EINVAL && !sk_key_enabled(k),
	      "count/enabled(%s) not refused", what);
	struct sk_key_change ch[] = { { k, true } };
	CHECK(sk_commit(ch, 1) == -EINVAL, "commit(%s) not refused", what);
}

static void not_keys(void)
{
	struct sk_key_false *zeroed = calloc(1, sizeof(*zeroed));
	struct sk_key foreign;

	memset(&foreign, 0x5a, sizeof(foreign));
	check_not_a_key(&zeroed->key, "zeroed memory");
	check_not_a_key(&foreign, "foreign bytes");
	check_not_a_key(NULL, "NULL");
	free(zeroed);
}

/* ---- storms ------------------------------------------------------------- */

static int storm_stop;
static unsigned long calls, busy, range;

static void *stormer(void *arg)
{
	unsigned r = (unsigned)(uintptr_t)arg;
	for (int i = 0; i < 3000; i++) {
		r = r * 1103515245u + 12345u;
		int ret;
		switch ((r >> 16) & 3) {
		case 0: ret = sk_key_enable(&storm_key); break;
		case 1:
			ret = sk_key_disable(&storm_key);
			if (ret == -EBUSY)
				__atomic_fetch_add(&busy, 1, __ATOMIC_RELAXED);
			break;
		case 2: ret = sk_key_inc(&storm_key); break;
		default:
			ret = sk_key_dec(&storm_key);
			if (ret == -ERANGE)
				__atomic_fetch_add(&range, 1, __ATOMIC_RELAXED);
			break;
		}
		CHECK(ret == 0 || ret == -EBUSY || ret == -ERANGE,
		      "a storm call returned %d", ret);
		CHECK(sk_key_count(&storm_key) >= 0, "count read negative");
		__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *storm_runner(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&storm_stop, __ATOMIC_ACQUIRE)) {
		int on = storm_sites();
		CHECK(on >= 0 && on <= NSITES, "impossible site count %d", on);
	}
	return NULL;
}

static void storm(void)
{
	pthread_t t[4], run;

	pthread_create(&run, NULL, storm_runner, NULL);
	for (unsigned i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, stormer, (void *)(uintptr_t)(i + 1));
	for (unsigned i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	__atomic_store_n(&storm_stop, 1, __ATOMIC_RELEASE);
	pthread_join(run, NULL);

	int count = sk_key_count(&storm_key);
	bool on = sk_key_enabled(&storm_key);
	CHECK(count >= 0 && on == (count > 0), "after the storm: count %d, %s",
	      count, on ? "on" : "off");
	CHECK(storm_sites() == (on ? NSITES : 0),
	      "after the storm the key is %s but %d of %d sites are on",
	      on ? "on" : "off", storm_sites(), NSITES);
	while (sk_key_count(&storm_key) > 0)
		CHECK(sk_key_dec(&storm_key) == 0, "draining the count failed");
	CHECK(storm_sites() == 0, "drained key still has sites on");
	printf("storm: %lu calls on one key (%lu disables refused as -EBUSY, "
	       "%lu decs at zero refused as -ERANGE); final count %d\n", calls,
	       busy, range, count);
}

int main(void)
{
	dec_below_zero();
	inc_overflow();
	not_keys();
	storm();
	return check_summary();
}
