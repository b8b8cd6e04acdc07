/* SPDX-License-Identifier: MIT OR Apache-2.0 */
// The kernel-API test driver compiled as C++.
#include "kernel_api.c"
