/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* misuse_cases.c - a static call only takes functions of its own type, in
 * C and C++, in its own and the kernel's spellings (tests/compile_fail.sh;
 * MISUSE=0 is the correct use). */
//! 1|an update to a function of another type|not a function of this static call
//! 2|the kernel's static_call_update to another type|not a function of this static call
//! 3|a commit change to another type|not a function of this static call
//! 4|a static call that was never declared|sk__scd_nowhere|sk__sct_nowhere
//! 5|a call with the wrong arguments|too few arguments|too many arguments|no matching function|cannot convert|incompatible
//! 6|a _TYPE definition whose function is of another type|not a function of this static call
//!c++ 7|a _NULL static call whose type returns a value|use SK_DEFINE_STATIC_CALL_RET0
#include <statickeys.h>
#include <statickeys/linux.h>

static int takes_int(int x) { return x; }
static int takes_two(int x, int y) { return x + y; }
static long takes_long(long x) { return x; }
SK_DEFINE_STATIC_CALL(op, takes_int);
DEFINE_STATIC_CALL(kop, takes_int);
typedef int (*int_op)(int);
SK_DEFINE_STATIC_CALL_TYPE(top, int_op, takes_int);
#if MISUSE == 6
SK_DEFINE_STATIC_CALL_TYPE(bad_top, int_op, takes_long);
#endif
#if MISUSE == 7
SK_DEFINE_STATIC_CALL_NULL(null_with_value, takes_int);
#endif

int use(void);
int use(void)
{
	int r = sk_static_call_update(op, takes_int);
	r |= sk_static_call_update(op, NULL);
	r |= sk_static_call_update(op, sk_static_call_return0);
	static_call_update(kop, takes_int);
	static_call_update(kop, (void *)&__static_call_return0);
	struct sk_static_call_change ok[] = { SK_STATIC_CALL_CHANGE(op, takes_int) };
	r |= sk_commit_calls(NULL, 0, ok, 1);
	r |= sk_static_call(op)(1) + static_call(kop)(2);
	(void)takes_two;
	(void)takes_long;
#if MISUSE == 1
	r |= sk_static_call_update(op, takes_two);
#elif MISUSE == 2
	static_call_update(kop, takes_long);
#elif MISUSE == 3
	struct sk_static_call_change bad[] = { SK_STATIC_CALL_CHANGE(op, takes_long) };
	r |= sk_commit_calls(NULL, 0, bad, 1);
#elif MISUSE == 4
	r |= sk_static_call(nowhere)(1);
#elif MISUSE == 5
	r |= sk_static_call(op)(1, 2);
#endif
	return r;
}
