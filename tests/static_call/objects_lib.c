/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#include "objects_lib.h"

int lib_default(int x)
{
	return 1000 + x;
}

SK_DEFINE_STATIC_CALL(shared_op, lib_default);
/* The program calls and updates it: exported (without this, each object
 * keeps its static calls to itself). */
SK_EXPORT_STATIC_CALL(shared_op);

int lib_call(int x)
{
	return sk_static_call(shared_op)(x);
}
