/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * selftest.c - the kernel's static-key self-test matrix (lib/test_static_keys.c):
 * true/false keys x likely/unlikely branches; some keys are inverted before
 * the first check; verify, invert all, verify, invert back, verify.
 * Also compiled as C++ (selftest_cxx.cpp) and with the portable fallback
 * (SK_NO_ASM_GOTO) to prove the three front ends agree.
 */
#include <statickeys.h>

#include "../check.h"

SK_DEFINE_KEY_TRUE(true_key);
SK_DEFINE_KEY_FALSE(false_key);
SK_DEFINE_KEY_TRUE(true_key_inverted);
SK_DEFINE_KEY_FALSE(false_key_inverted);
SK_DEFINE_KEY_TRUE_DESC(true_key_described, "a true key with a description");

/* Each test function holds its own sites: one likely, one unlikely. */
#define SITE_PAIR(key)                                                       \
	__attribute__((noinline)) static bool likely_##key(void)             \
	{                                                                    \
		return sk_branch_likely(&key) ? true : false;                \
	}                                                                    \
	__attribute__((noinline)) static bool unlikely_##key(void)           \
	{                                                                    \
		return sk_branch_unlikely(&key) ? true : false;              \
	}

SITE_PAIR(true_key)
SITE_PAIR(false_key)
SITE_PAIR(true_key_inverted)
SITE_PAIR(false_key_inverted)
SITE_PAIR(true_key_described)

struct case_ {
	const char *name;
	struct sk_key *key;
	bool (*likely_fn)(void);
	bool (*unlikely_fn)(void);
};

#define CASE(k) { #k, &(k).key, likely_##k, unlikely_##k }

static struct case_ cases[] = {
	CASE(true_key), CASE(false_key), CASE(true_key_inverted),
	CASE(false_key_inverted), CASE(true_key_described),
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static void verify(const char *phase)
{
	for (size_t i = 0; i < NCASES; i++) {
		bool on = sk_key_enabled(cases[i].key);
		CHECK(cases[i].likely_fn() == on,
		      "%s: likely site of %s says %d, key is %d", phase,
		      cases[i].name, !on, on);
		CHECK(cases[i].unlikely_fn() == on,
		      "%s: unlikely site of %s says %d, key is %d", phase,
		      cases[i].name, !on, on);
	}
}

static void invert(struct sk_key *key)
{
	int r = sk_key_enabled(key) ? sk_key_disable(key) : sk_key_enable(key);
	CHECK(r == 0, "inverting %s returned %d", key->name, r);
}

int main(void)
{
	CHECK(sk_key_enabled(&true_key) && !sk_key_enabled(&false_key),
	      "initial states follow the key types");
	CHECK(true_key_described.key.description != NULL,
	      "description is recorded");
	verify("initial");
	invert(&true_key_inverted.key);
	invert(&false_key_inverted.key);
	verify("after inverting two keys");
	for (size_t i = 0; i < NCASES; i++)
		invert(cases[i].key);
	verify("after inverting all");
	for (size_t i = 0; i < NCASES; i++)
		invert(cases[i].key);
	verify("after inverting back");
	return check_summary();
}
