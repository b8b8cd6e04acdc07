/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* method_table.c, compiled as C++. */
#include "method_table.c"
