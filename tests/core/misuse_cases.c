/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* misuse_cases.c - wrong uses of the C API that must not compile, in C and
 * C++ (tests/compile_fail.sh; MISUSE=0 is the correct use). */
//! 1|a branch on an int|_Generic|sk__key_traits|not a structure or union|non-class type
//! 2|a branch on an untyped struct sk_key|_Generic|sk__key_traits|no member named
//!patched 3|a key known only at run time|GOTPCREL|invalid operand|impossible constraint|relocation against register|Error
//! 4|an update of a non-key|_Generic|sk__untyped
//! 5|a tracepoint defined without its declaration|needs_SK_DECLARE_TRACE_first
#include <statickeys.h>
#include <statickeys/trace.h>
#if MISUSE == 5
SK_DEFINE_TRACE(misuse, tick, SK_TP_PROTO(int n), SK_TP_ARGS(n));
#endif
SK_DEFINE_KEY_FALSE(k);
int not_a_key;
struct sk_key plain_key;
#if MISUSE == 3
/* a key known only at run time: sites need a link-time key address */
__attribute__((noinline)) int g(struct sk_key_false *p)
{
	return sk_branch_unlikely(p);
}
#endif
int f(void)
{
#if MISUSE == 1
	return sk_branch_unlikely(&not_a_key);   /* an int */
#elif MISUSE == 2
	return sk_branch_likely(&plain_key);     /* untyped key */
#elif MISUSE == 3
	return g(&k);
#elif MISUSE == 4
	return sk_key_enable(&not_a_key);        /* update of a non-key */
#else
	return sk_branch_unlikely(&k) + sk_key_enable(&k);
#endif
}
