/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* misuse_cases.c - the kernel's type errors stay compile errors under
 * <statickeys/linux.h>, in C and C++ (tests/compile_fail.sh; MISUSE=0 is
 * the correct use). */
//! 1|static_branch_likely on a plain struct static_key|_Generic|incomplete|has no member named|no member named
//! 2|static_key_false on a typed key|sk__key
//! 3|a branch on an int|request for member|member reference base type|has no member
//!patched 4|a key known only at run time|Error|error: invalid operand|impossible constraint|invalid operand|initializer element is not constant|not a constant expression
//! 5|an update of an int|incompatible pointer|cannot convert|no matching
//! 6|static_branch_enable on a plain struct static_key|has no member named|no member named
//! 7|a native key in a kernel branch|sk__key
//! 8|a kernel key in a native branch|_Generic|incomplete|sk__key_traits
//! 9|DEFINE_STATIC_KEY_MAYBE with an IS_ENABLED() that is not a bare 0/1|SK__LINUX_DEFINE_MAYBE_
#include <statickeys.h>
#include <statickeys/linux.h>
DEFINE_STATIC_KEY_FALSE(typed);
struct static_key plain = STATIC_KEY_INIT_FALSE;
SK_DEFINE_KEY_FALSE(native);
int not_a_key;
#if MISUSE == 9
/* The kernel's IS_ENABLED() expands to a bare 0 or 1; an expression cannot
 * pick DEFINE_STATIC_KEY_TRUE or _FALSE by token pasting. */
#define CONFIG_Y 1
#define IS_ENABLED(option) ((option) != 0)
DEFINE_STATIC_KEY_MAYBE(CONFIG_Y, maybe);
#endif
#if MISUSE == 4
/* a key known only at run time: sites need a link-time key address */
__attribute__((noinline)) int g(struct static_key *p)
{
	return static_key_false(p);
}
#endif
int f(void)
{
#if MISUSE == 1
	return static_branch_likely(&plain);      /* needs a typed key */
#elif MISUSE == 2
	return static_key_false(&typed);          /* needs a struct static_key */
#elif MISUSE == 3
	return static_branch_unlikely(&not_a_key);
#elif MISUSE == 4
	return g(&plain);
#elif MISUSE == 5
	return static_key_slow_inc(&not_a_key);   /* update of a non-key */
#elif MISUSE == 6
	return static_branch_enable(&plain);      /* needs a typed key */
#elif MISUSE == 7
	return static_branch_unlikely(&native);   /* a native key */
#elif MISUSE == 8
	return sk_branch_unlikely(&typed);        /* a kernel key, native branch */
#else
	return static_branch_unlikely(&typed) + static_key_false(&plain) +
	       static_key_true(&typed.key) + static_branch_enable(&typed) +
	       static_key_slow_inc(&plain) + static_key_enabled(&typed);
#endif
}
