/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* tests/dyndbg/cxx_other.cpp - the second file using cxx_inline.hpp. */
#include "cxx_inline.hpp"

void call_in_header_from_other(int v)
{
	in_header(v);
}
