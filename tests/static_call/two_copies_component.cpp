/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The component of two_copies_component.c, compiled as C++. */
#include "two_copies_component.c"
