/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * uses.c - every public header, and a use of each of its macros and inline
 * functions, in one translation unit: tests/headers/no_warnings.sh compiles
 * it as C and as C++ in every language standard, with every warning a
 * user's build may turn on, as errors.  Compiled only, never run.
 */
#if defined(__cplusplus) && __cplusplus >= 201703L
/* Before linux.h: its static_call() macro would rename the C++ front end's
 * class of that name. */
#include <statickeys.hpp>
#endif
#include <statickeys.h>
#include <statickeys/linux.h>
#include <statickeys/trace.h>

SK_DEFINE_KEY_FALSE(uses_false);
SK_DEFINE_KEY_TRUE(uses_true);
SK_DEFINE_KEY_FALSE_DESC(uses_described, "a key with a description");
DEFINE_STATIC_KEY_FALSE(uses_kernel_key);

static int uses_plain(int x)
{
	return x + 1;
}

static int uses_other(int x)
{
	return x + 2;
}

__attribute__((unused)) static void uses_hook(int x)
{
	(void)x;
}

typedef int (*uses_op)(int);

SK_DEFINE_STATIC_CALL(uses_call, uses_plain);
SK_EXPORT_STATIC_CALL(uses_call);
SK_DEFINE_STATIC_CALL_NULL(uses_null, uses_hook);
SK_DEFINE_STATIC_CALL_RET0(uses_ret0, uses_plain);
SK_DEFINE_STATIC_CALL_TYPE(uses_typed, uses_op, uses_other);
SK_STATIC_CALL_TARGET(uses_call, uses_other, "other");
DEFINE_STATIC_CALL(uses_kernel_call, uses_plain);

SK_DECLARE_TRACE(uses, tick, SK_TP_PROTO(int n), SK_TP_ARGS(n));
SK_DEFINE_TRACE(uses, tick, SK_TP_PROTO(int n), SK_TP_ARGS(n));

/* Dynamic debug (statickeys/dyndbg.h), in a function of its own: clang++
 * takes a later site's label for a target of every earlier asm goto, and
 * refuses one that would skip an initialised local (uses_everything's). */
int uses_dyndbg(int x);
int uses_dyndbg(int x)
{
	int r = 0;

	sk_pr_debug("x is %d\n", x);
	sk_pr_debug("no arguments\n");
	sk_pr_debug_class("uses", "x is %d\n", x);
	sk_print_hex_dump_debug("x: ", &x, sizeof(x));
	r |= sk_dyndbg_query("func uses_* +p");
	r |= sk_dyndbg_catalogue(NULL, 0) < 0;
	r |= sk_static_call_update(sk_dyndbg_sink, sk_dyndbg_sink_stderr);
	return r;
}

/* The kernel's spellings of it (statickeys/linux.h). */
int uses_kernel_dyndbg(int x, const char *prefix);
int uses_kernel_dyndbg(int x, const char *prefix)
{
	int r = 0;

	pr_debug("x is %d\n", x);
	pr_debug("no arguments\n");
	dynamic_pr_debug("x is %d, %d\n", x, r);
	print_hex_dump_debug("x: ", DUMP_PREFIX_OFFSET, 16, 4, &x, sizeof(x),
			     true);
	print_hex_dump_debug(prefix, DUMP_PREFIX_NONE, 32, 1, &x, sizeof(x),
			     false);
	print_hex_dump_bytes("x: ", DUMP_PREFIX_ADDRESS, &x, sizeof(x));
	{
		DEFINE_DYNAMIC_DEBUG_METADATA(uses_descriptor, "x is %d\n");
		if (DYNAMIC_DEBUG_BRANCH(uses_descriptor))
			__dynamic_pr_debug(&uses_descriptor, pr_fmt("x is %d\n"),
					   x);
	}
	return r;
}

int uses_everything(int x);
int uses_everything(int x)
{
	int r = 0;

	if (sk_branch_unlikely(&uses_false))
		r += 1;
	if (sk_branch_likely(&uses_true))
		r += 2;
	if (sk_branch_unlikely(&uses_described))
		r += 4;
	if (static_branch_unlikely(&uses_kernel_key))
		r += 8;
	r += sk_key_enabled(&uses_false) ? 16 : 0;
	r += sk_static_call(uses_call)(x);
	r += sk_static_call(uses_ret0)(x);
	r += sk_static_call(uses_typed)(x);
	r += static_call(uses_kernel_call)(x);
	sk_static_call_cond(uses_null)(x);
	r += sk_static_call_query(uses_call) == uses_plain;
	r |= sk_static_call_update(uses_call, uses_other);
#ifdef __cplusplus
	r |= sk_static_call_update(uses_null, nullptr);
#else
	r |= sk_static_call_update(uses_null, NULL);
#endif
	r |= sk_static_call_update(uses_ret0, sk_static_call_return0);
	struct sk_static_call_change calls[] = {
		SK_STATIC_CALL_CHANGE(uses_call, uses_plain),
	};
	struct sk_key_change keys[] = {
		SK_KEY_CHANGE(&uses_false, true),
	};
	r |= sk_commit_calls(keys, 1, calls, 1);
	r |= sk_key_enable(&uses_false);
	r |= sk_key_disable(&uses_false);
	sk_trace_uses_tick(x);
	return r;
}
