/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * far_null.c - a thread that took a trampoline's jump to its far form just
 * before an update to NULL (the old target beyond the jump's reach) reads
 * the far form's slot once the update is over: it must return, not jump
 * to address 0.  The test is that thread: it calls the far form itself
 * (the trampoline's own instructions at the architecture's offset, as the
 * old jump led there) after each update, to a target and to NULL, while
 * the descriptor says what the API says (sk_static_call_query() is NULL
 * after the update to NULL).  Before the fix the far form read the
 * descriptor's func and this crashed (docs/static-calls.md, "Updates").
 */
#include <stdint.h>
#include <stdio.h>

#include <statickeys.h>

#include "../check.h"

static int add1(int x) { return x + 1; }
static int add2(int x) { return x + 2; }

SK_DEFINE_STATIC_CALL(op, add1);

/* Where the far form starts, from the trampoline's first byte. */
#if SK_HAVE_STATIC_CALL_TRAMPOLINES &&                                       \
	(defined(__x86_64__) || defined(__i386__))
#define FAR_AT 8
#elif SK_HAVE_STATIC_CALL_TRAMPOLINES &&                                     \
	(defined(__aarch64__) || defined(__riscv) || defined(__loongarch__) || \
	 defined(__arm__))
#define FAR_AT 12
#elif SK_HAVE_STATIC_CALL_TRAMPOLINES && defined(__s390x__)
#define FAR_AT 6
#endif

#ifdef FAR_AT
static uintptr_t far_form(void)
{
	const unsigned char *t =
		(const unsigned char *)(uintptr_t)SK__SC_KEY(op).tramp;

	/* An endbr64 first (built for IBT): the layout follows it. */
	if (t[0] == 0xf3 && t[1] == 0x0f && t[2] == 0x1e && t[3] == 0xfa)
		t += 4;
#if defined(__arm__)
	/* Thumb code, entered as such: the layout is at the address without
	 * bit 0, and the far form's address carries it. */
	return ((uintptr_t)t & ~(uintptr_t)1) + FAR_AT + 1;
#endif
	return (uintptr_t)t + FAR_AT;
}
#endif

int main(void)
{
#ifndef FAR_AT
	skip_test("no trampoline with a far form here (the pointer form, or "
		  "ppc64le's, which tests its slot for NULL itself)");
#else
	int (*far_int)(int) = (int (*)(int))far_form();
	void (*far_void)(void) = (void (*)(void))far_form();

	CHECK(far_int(1) == 2, "the far form reaches the defined target");
	CHECK(sk_static_call_update(op, add2) == 0, "update to add2");
	CHECK(far_int(1) == 3, "the far form reaches the new target");
	for (int i = 0; i < 3; i++) {
		CHECK(sk_static_call_update(op, NULL) == 0, "update to NULL");
		CHECK(sk_static_call_query(op) == NULL, "the descriptor says "
		      "NULL");
		far_void(); /* returns: the old code jumped to 0 here */
		CHECK(sk_static_call_update(op, i % 2 ? add1 : add2) == 0,
		      "update back");
		CHECK(far_int(1) == (i % 2 ? 2 : 3), "and the far form follows");
	}
	printf("the far form returned after each update to NULL\n");
	return check_summary();
#endif
}
