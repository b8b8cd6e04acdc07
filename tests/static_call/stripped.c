/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * stripped.c - a program linked with -Wl,--emit-relocs and then stripped
 * (docs/static-calls.md, "Call sites"): the program as linked and two
 * stripped copies of it, each told what to expect:
 *
 *	static_call_inline_strip           as linked: patched
 *	static_call_inline_strip_all       `strip` (--strip-all, what
 *	                                   `install -s` and Debian's dh_strip do
 *	                                   to programs) removes the relocations:
 *	                                   no call site is found, and every call
 *	                                   goes through the trampoline, correctly
 *	static_call_inline_strip_unneeded  `strip --strip-unneeded` (or
 *	                                   --strip-debug, what dh_strip does to
 *	                                   shared libraries) keeps them: patched
 *
 * Either way each update lands every later call in the new target.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statickeys.h>

#include "../check.h"
#include "call_site.h"

static int add1(int x) { return x + 1; }
static int add2(int x) { return x + 2; }

SK_DEFINE_STATIC_CALL(adder, add1);

__attribute__((noinline)) static int call_adder(int x)
{
	return sk_static_call(adder)(x);
}

int main(int argc, char **argv)
{
	if (argc != 2 ||
	    (strcmp(argv[1], "patched") && strcmp(argv[1], "trampoline")))
		return fprintf(stderr, "usage: %s patched|trampoline\n",
			       argv[0]), 2;
	bool patched = strcmp(argv[1], "patched") == 0;
	const void *dest[3] = { (const void *)SK__SC_KEY(adder).tramp,
				(const void *)add1, (const void *)add2 };

	CHECK(call_adder(1) == 2, "the defined target");
	CHECK(sk_static_call_update(adder, add2) == 0, "update");
	CHECK(call_adder(1) == 3, "the new target after the update");
	int to = call_goes_to((const void *)call_adder, 64, dest, 3);
	if (patched)
		CHECK(to == 2, "the call site goes to the target itself "
		      "(got %d: 0 trampoline, 1 old target)", to);
	else
		CHECK(to == 0, "no relocations: the call site goes to the "
		      "trampoline (got %d)", to);
	CHECK(sk_static_call_update(adder, add1) == 0 && call_adder(1) == 2,
	      "and back");
	/* What the runtime says of them (skctl calls shows the same). */
	struct sk_static_call_sites s;
	CHECK(sk_static_call_sites(adder, &s) == 0, "adder's call sites");
	printf("%lu direct, %lu through the trampoline, why %d\n", s.direct,
	       s.trampoline, s.why);
	if (patched)
		CHECK(s.why == SK_CALL_SITES_FOUND && s.direct == 1 &&
			      s.trampoline == 0,
		      "found: call_adder's one call, direct");
	else
		CHECK(s.why == SK_CALL_SITES_STRIPPED && s.direct == 0,
		      "stripped: no symbol table, none found (why %d, want %d)",
		      s.why, SK_CALL_SITES_STRIPPED);
	return check_summary();
}
