/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* objects_lib.h - a static call defined in a shared library (objects_lib.c)
 * and called from the program and from the library itself. */
#ifndef SC_OBJECTS_LIB_H
#define SC_OBJECTS_LIB_H

#include <statickeys.h>

/* The library is built with -fvisibility=hidden, as many are: it exports
 * these two, and its static call with SK_EXPORT_STATIC_CALL. */
__attribute__((visibility("default"))) int lib_default(int x);
SK_DECLARE_STATIC_CALL(shared_op, lib_default);
/* A call from inside the library: a direct call to the trampoline. */
__attribute__((visibility("default"))) int lib_call(int x);

#endif
