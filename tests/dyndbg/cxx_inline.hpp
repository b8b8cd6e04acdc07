/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* tests/dyndbg/cxx_inline.hpp - a debug statement in an inline function of
 * a header that two files of the program include (cxx.cpp, cxx_other.cpp):
 * the linker keeps one copy, and the catalogue must list one statement. */
#ifndef SK_TESTS_DYNDBG_CXX_INLINE_HPP
#define SK_TESTS_DYNDBG_CXX_INLINE_HPP

#include <statickeys.h>

inline void in_header(int v)
{
	sk_pr_debug("in_header %d\n", v);
}

void call_in_header_from_other(int v); /* cxx_other.cpp */

#endif
