/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * static_keys_cxx.cpp - C++ keys of internal linkage are told apart.
 *
 * The statickeys.hpp front end on keys in an anonymous namespace and a
 * static key, next to a global one: each flipped alone moves its own site
 * and no other (see static_keys.c for why this needed checking on aarch64).
 * Built for every architecture.
 */
#include <statickeys.hpp>

#include "../check.h"

namespace {
statickeys::key_false first{"cxx_first"};
statickeys::key_false second{"cxx_second"};
statickeys::key_true third{"cxx_third"};
} // namespace
static statickeys::key_false fourth{"cxx_fourth"};
statickeys::key_false global_one{"cxx_global_one"};

__attribute__((noinline)) static bool site_first() { return statickeys::unlikely<first>(); }
__attribute__((noinline)) static bool site_second() { return statickeys::unlikely<second>(); }
__attribute__((noinline)) static bool site_third() { return statickeys::likely<third>(); }
__attribute__((noinline)) static bool site_fourth() { return statickeys::unlikely<fourth>(); }
__attribute__((noinline)) static bool site_global() { return statickeys::unlikely<global_one>(); }

static void expect(const bool want[5], const char *when)
{
	bool got[5] = { site_first(), site_second(), site_third(),
			site_fourth(), site_global() };
	for (int i = 0; i < 5; i++)
		CHECK(got[i] == want[i], "%s: site %d reads %d, want %d", when,
		      i, got[i], want[i]);
}

int main()
{
	bool on[5] = { false, false, true, false, false };

	expect(on, "initial");
	first.enable();
	on[0] = true;
	expect(on, "first enabled");
	second.enable();
	on[1] = true;
	expect(on, "second enabled");
	third.disable();
	on[2] = false;
	expect(on, "third disabled");
	fourth.enable();
	on[3] = true;
	expect(on, "fourth enabled");
	global_one.enable();
	on[4] = true;
	expect(on, "global enabled");
	first.disable();
	on[0] = false;
	expect(on, "first disabled");
	std::printf("C++: 5 keys (4 of internal linkage) flipped one at a time, "
		    "each moved only its own site\n");
	return check_summary();
}
