/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * kernel_selftest.c - the shape of the kernel's static-call self-test
 * (kernel/static_call_inline.c, CONFIG_STATIC_CALL_SELFTEST), written in
 * the kernel's spellings over <statickeys/linux.h>: two functions, a static
 * call defined on the first, a table of (function, argument, expected
 * result) applied in order where a NULL function means "no update", run
 * from an init call.  The kernel's own macros it leans on (__init,
 * __initdata, early_initcall, WARN_ON, ARRAY_SIZE) come from a small shim,
 * kernel_shim.h, as ported code brings its own.
 */
#include <statickeys/linux.h>

#include "kernel_shim.h"

static int func_a(int x)
{
	return x + 1;
}

static int func_b(int x)
{
	return x + 2;
}

DEFINE_STATIC_CALL(sc_selftest, func_a);

static struct static_call_data {
	int (*func)(int);
	int val;
	int expect;
} static_call_data[] __initdata = {
	{ NULL, 2, 3 },
	{ func_b, 2, 4 },
	{ func_a, 2, 3 },
};

static int __init test_static_call_init(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(static_call_data); i++) {
		struct static_call_data *scd = &static_call_data[i];

		if (scd->func)
			static_call_update(sc_selftest, scd->func);

		WARN_ON(static_call(sc_selftest)(scd->val) != scd->expect);
	}

	return 0;
}
early_initcall(test_static_call_init);

/* The other spellings: NULL and RET0 definitions, cond, query, return0. */
static int calls;
static void bump(int n)
{
	calls += n;
}
DEFINE_STATIC_CALL_NULL(sc_hook, bump);
DEFINE_STATIC_CALL_RET0(sc_ret0, func_a);
EXPORT_STATIC_CALL(sc_selftest);
EXPORT_STATIC_CALL_GPL(sc_hook);
EXPORT_STATIC_CALL_TRAMP(sc_ret0);

int main(void)
{
	static_call_cond(sc_hook)(1);
	WARN_ON(calls != 0);
	WARN_ON(static_call_query(sc_hook) != NULL);
	static_call_update(sc_hook, bump);
	static_call_cond(sc_hook)(2);
	WARN_ON(calls != 2);
	WARN_ON(static_call_query(sc_hook) != (void *)bump);
	WARN_ON(static_call(sc_ret0)(7) != 0);
	static_call_update(sc_ret0, func_b);
	WARN_ON(static_call(sc_ret0)(7) != 9);
	static_call_update(sc_ret0, (void *)&__static_call_return0);
	WARN_ON(static_call(sc_ret0)(7) != 0);
	WARN_ON(static_call_query(sc_selftest) != (void *)func_a);
	return kernel_shim_summary();
}
