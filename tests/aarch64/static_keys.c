/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * static_keys.c - keys of internal linkage are told apart by their sites.
 *
 * A first aarch64 design named the key through the GOT (:got:key); for a
 * key of internal linkage both assemblers rewrite that as "section +
 * offset", and GNU ld resolved the GOT entry to another key, so one key's
 * flip moved another's sites (statickeys/arch/aarch64.h now gives each
 * site a key slot).  Checked: three static keys and one global key in one
 * file, each flipped alone, move their own sites and no other (C++ keys:
 * static_keys_cxx.cpp).  Built for every architecture.
 */
#include <statickeys.h>

#include "../check.h"

static SK_DEFINE_KEY_FALSE(first);
static SK_DEFINE_KEY_FALSE(second);
static SK_DEFINE_KEY_TRUE(third);
SK_DEFINE_KEY_FALSE(global_one);

__attribute__((noinline)) static bool site_first(void)
{
	return sk_branch_unlikely(&first);
}

__attribute__((noinline)) static bool site_second(void)
{
	return sk_branch_unlikely(&second);
}

__attribute__((noinline)) static bool site_third(void)
{
	return sk_branch_likely(&third);
}

__attribute__((noinline)) static bool site_global(void)
{
	return sk_branch_unlikely(&global_one);
}

static void expect(bool a, bool b, bool c, bool g, const char *when)
{
	CHECK(site_first() == a && site_second() == b && site_third() == c &&
		      site_global() == g,
	      "%s: sites read %d %d %d %d, want %d %d %d %d", when,
	      site_first(), site_second(), site_third(), site_global(), a, b,
	      c, g);
}

int main(void)
{
	struct sk_key *keys[] = { &first.key, &second.key, &third.key,
				  &global_one.key };
	bool on[] = { false, false, true, false };

	expect(false, false, true, false, "initial");
	for (int i = 0; i < 4; i++) {
		on[i] = !on[i];
		int r = on[i] ? sk__key_enable(keys[i]) : sk__key_disable(keys[i]);
		CHECK(r == 0, "flip key %d", i);
		char when[32];
		snprintf(when, sizeof(when), "key %d flipped", i);
		expect(on[0], on[1], on[2], on[3], when);
	}
	printf("%s: 4 keys (3 static) flipped one at a time, each moved only "
	       "its own site\n", SK_HAVE_PATCHED_SITES ? "patched sites"
						       : "fallback sites");
	return check_summary();
}
