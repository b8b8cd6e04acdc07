/* SPDX-License-Identifier: MIT OR Apache-2.0 */
// The self-test matrix compiled as C++: same header, same semantics.
#include "selftest.c"
