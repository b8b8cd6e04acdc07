/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#include "objects_lib.h"

int lib_default(int x)
{
	return 1000 + x;
}

SK_DEFINE_STATIC_CALL(shared_op, lib_default);

int lib_call(int x)
{
	return sk_static_call(shared_op)(x);
}
