/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* misuse_cases.cpp - wrong uses of statickeys.hpp that must not compile
 * (tests/compile_fail.sh; MISUSE=0 is the correct use). */
//! 1|a non-key as the template argument|must be a statickeys::key_true or key_false
//! 2|a key known only at run time|not a constant expression|is not a valid template argument|non-type template argument|no matching function
//! 3|copying a key|deleted
//! 4|a const key|cannot be const
//! 5|a name that is not a string literal|no matching|no viable
//! 6|a key with automatic storage|not a constant expression|is not a valid template argument|non-type template argument|no matching function
//! 7|a guard on a non-key|no matching|no viable
//! 8|copying a guard|deleted
//! 9|the untyped C struct as a key|must be a statickeys::key_true or key_false
//! 10|a key as a condition (a read where a site was meant)|could not convert|cannot be contextually converted|not contextually convertible|no viable conversion|value of type
#include <statickeys.hpp>
statickeys::key_false k{"k"};
int not_a_key;
sk_key c_key;
const statickeys::key_false const_key{"const_key"};
#if MISUSE == 2
/* a key known only at run time: sites need a link-time key address */
bool g(statickeys::key_false &p) { return statickeys::unlikely<p>(); }
#endif
int f()
{
#if MISUSE == 1
	return statickeys::unlikely<not_a_key>();   /* an int */
#elif MISUSE == 3
	statickeys::key_false copy = k;              /* a copy has no sites */
	return copy.enabled();
#elif MISUSE == 4
	return statickeys::likely<const_key>();      /* a const key */
#elif MISUSE == 5
	const char *name = "dynamic";
	static statickeys::key_false named{name};    /* name not a literal */
	return named.enabled();
#elif MISUSE == 6
	static int x; (void)x;
	statickeys::key_false local{"local"};        /* automatic storage */
	return statickeys::unlikely<local>();
#elif MISUSE == 7
	statickeys::key_guard guard{not_a_key};      /* guard on a non-key */
	return 0;
#elif MISUSE == 8
	statickeys::key_guard guard{k};
	statickeys::key_guard again = guard;         /* a second owner */
	return 0;
#elif MISUSE == 9
	return statickeys::unlikely<c_key>();        /* the untyped C struct */
#elif MISUSE == 10
	if (k)                                       /* a read, not a site */
		return 1;
	return 0;
#else
	statickeys::key_guard guard{k};
	return statickeys::unlikely<k>() + statickeys::likely<k>() + k.count();
#endif
}
