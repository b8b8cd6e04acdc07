/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * two_copies_component.c - a component that libraries embed with their
 * symbols hidden (as SQLite, zlib or a logger are embedded): a static call,
 * a _NULL one, a RET0 one and a key, all defined under the same names in
 * every copy.  Built twice into two shared objects (COPY_ID 1 and 2), as C
 * and as C++ (two_copies_component.cpp), with and without
 * -Wl,--emit-relocs; two_copies.c loads both into one process.
 *
 * Its API: copy_id(), copy_run(x) (what its static calls and key do now,
 * encoded below) and copy_set(on) (switches each of them).  Each copy's
 * results carry its COPY_ID, so a copy that ran the other's descriptor or
 * trampoline shows it.
 */
#include <statickeys.h>

#ifndef COPY_ID
#error "COPY_ID: 1 or 2"
#endif
#ifdef __cplusplus
#define COPY_API extern "C" __attribute__((visibility("default")))
#define COPY_NULL nullptr
#else
#define COPY_API __attribute__((visibility("default")))
#define COPY_NULL NULL
#endif

/* The call's two targets; the RET0 call's other target; the NULL call's. */
static int op_one(int x)
{
	return x + 1 + 10 * COPY_ID;
}

static int op_two(int x)
{
	return x + 2 + 10 * COPY_ID;
}

static void hook_add(int *acc)
{
	*acc += 100 * COPY_ID;
}

SK_DEFINE_STATIC_CALL(comp_op, op_one);
SK_DEFINE_STATIC_CALL_NULL(comp_hook, hook_add);
SK_DEFINE_STATIC_CALL_RET0(comp_ret0, op_one);
SK_DEFINE_KEY_FALSE(comp_key);

COPY_API int copy_id(void)
{
	return COPY_ID;
}

/* op + ret0 * 1000 + hook + key * 100000, for x = 0:
 *   off: (1 + 10 id) + 0 + 0 + 0
 *   on:  (2 + 10 id) + (1 + 10 id) * 1000 + 100 id + 100000 id */
COPY_API int copy_run(int x)
{
	int acc = 0;

	sk_static_call_cond(comp_hook)(&acc);
	return sk_static_call(comp_op)(x) +
	       (int)sk_static_call(comp_ret0)(x) * 1000 + acc +
	       (sk_branch_unlikely(&comp_key) ? 100000 * COPY_ID : 0);
}

/* Switch everything on or off.  Return: 0, or the first error. */
COPY_API int copy_set(int on)
{
	int r = sk_static_call_update(comp_op, on ? op_two : op_one);
	if (!r)
		r = on ? sk_static_call_update(comp_hook, hook_add)
		       : sk_static_call_update(comp_hook, COPY_NULL);
	if (!r)
		r = on ? sk_static_call_update(comp_ret0, op_one)
		       : sk_static_call_update(comp_ret0, sk_static_call_return0);
	if (!r)
		r = on ? sk_key_enable(&comp_key) : sk_key_disable(&comp_key);
	return r;
}
