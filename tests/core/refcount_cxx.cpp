/* SPDX-License-Identifier: MIT OR Apache-2.0 */
// Reference-count semantics compiled as C++.
#include "refcount.c"
