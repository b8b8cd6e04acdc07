/* SPDX-License-Identifier: MIT OR Apache-2.0 */
// The kernel-style code compiled as C++.
#include "kernel_style.c"
