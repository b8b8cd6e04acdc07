/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/trace/api.c - the tracepoint API: firing, registration, the key's
 * references, arguments evaluated only when on, and misuse answered with an
 * error.
 */
#include <errno.h>
#include <string.h>

#include <statickeys.h>

#include "../check.h"
#include "events.h"

struct seen {
	int calls;
	int last_n;
	long last_v;
};

static void probe_a(void *data, int n, long v)
{
	struct seen *s = data;
	s->calls++;
	s->last_n = n;
	s->last_v = v;
}

static void probe_b(void *data, int n, long v)
{
	(void)n;
	(void)v;
	((struct seen *)data)->calls++;
}

static int evaluated;
static int side_effect(int x)
{
	evaluated++;
	return x;
}

static int nested_result = 1;
static void probe_registers(void *data, int n, long v)
{
	(void)n;
	(void)v;
	nested_result = sk_register_trace_sktest_tick(probe_b, data);
	int u = sk_unregister_trace_sktest_tick(probe_a, data);
	if (u != -EDEADLK)
		nested_result = 1000 + u;
}

static void test_off_by_default(void)
{
	struct seen s = { 0 };
	CHECK(!sk_trace_sktest_tick_enabled(), "a new tracepoint is off");
	sk_trace_sktest_tick(1, 2);
	CHECK(s.calls == 0, "nothing registered, nothing called");
}

static void test_key_named_system_name(void)
{
	CHECK(sk_key_find("sktest:tick") == &sk__tp_sktest_tick.key.key,
	      "the tracepoint's key is named sktest:tick");
}

static void test_register_fire_unregister(void)
{
	struct seen a = { 0 }, b = { 0 };

	CHECK(sk_register_trace_sktest_tick(probe_a, &a) == 0, "register a");
	CHECK(sk_trace_sktest_tick_enabled(), "on with one probe");
	CHECK(sk_register_trace_sktest_tick(probe_b, &b) == 0, "register b");
	CHECK(sk_register_trace_sktest_tick(probe_a, &b) == 0,
	      "the same probe with other data is another registration");
	sk_trace_sktest_tick(7, 42);
	CHECK(a.calls == 1 && a.last_n == 7 && a.last_v == 42,
	      "probe a got (7, 42) once: %d calls, (%d, %ld)", a.calls,
	      a.last_n, a.last_v);
	CHECK(b.calls == 2, "b's data seen by two probes: %d", b.calls);
	CHECK(sk_key_count(&sk__tp_sktest_tick.key) == 3,
	      "one key reference per probe: %d",
	      sk_key_count(&sk__tp_sktest_tick.key));
	CHECK(sk_unregister_trace_sktest_tick(probe_a, &a) == 0, "unreg a");
	sk_trace_sktest_tick(1, 1);
	CHECK(a.calls == 1, "a not called after unregister: %d", a.calls);
	CHECK(b.calls == 4, "the others still are: %d", b.calls);
	CHECK(sk_unregister_trace_sktest_tick(probe_b, &b) == 0, "unreg b");
	CHECK(sk_unregister_trace_sktest_tick(probe_a, &b) == 0, "unreg a/b");
	CHECK(!sk_trace_sktest_tick_enabled(), "off with no probe");
	sk_trace_sktest_tick(1, 1);
	CHECK(b.calls == 4, "nothing called when off: %d", b.calls);
}

static void test_args_evaluated_only_when_on(void)
{
	struct seen a = { 0 };

	evaluated = 0;
	SK_TRACE(sktest, tick, side_effect(1), side_effect(2));
	CHECK(evaluated == 0, "off: SK_TRACE evaluated %d arguments",
	      evaluated);
	CHECK(sk_register_trace_sktest_tick(probe_a, &a) == 0, "register");
	SK_TRACE(sktest, tick, side_effect(3), side_effect(4));
	CHECK(evaluated == 2 && a.last_n == 3 && a.last_v == 4,
	      "on: both evaluated (%d) and passed (%d, %ld)", evaluated,
	      a.last_n, a.last_v);
	CHECK(sk_unregister_trace_sktest_tick(probe_a, &a) == 0, "unreg");
}

static void test_misuse(void)
{
	struct seen a = { 0 };

	CHECK(sk_register_trace_sktest_tick(probe_a, &a) == 0, "register");
	CHECK(sk_register_trace_sktest_tick(probe_a, &a) == -EEXIST,
	      "twice: -EEXIST");
	CHECK(sk_key_count(&sk__tp_sktest_tick.key) == 1,
	      "a refused registration takes no reference");
	CHECK(sk_unregister_trace_sktest_tick(probe_b, &a) == -ENOENT,
	      "unregister of one never registered: -ENOENT");
	CHECK(sk_unregister_trace_sktest_tick(probe_a, &a) == 0, "unreg");
	CHECK(sk_unregister_trace_sktest_tick(probe_a, &a) == -ENOENT,
	      "unregister twice: -ENOENT");
	CHECK(sk_key_count(&sk__tp_sktest_tick.key) == 0, "count back to 0");

	CHECK(sk_register_trace_sktest_tick(probe_registers, &a) == 0,
	      "register the probe that registers");
	sk_trace_sktest_tick(1, 1);
	CHECK(nested_result == -EDEADLK,
	      "register/unregister from inside a probe: -EDEADLK, got %d",
	      nested_result);
	CHECK(sk_unregister_trace_sktest_tick(probe_registers, &a) == 0,
	      "unreg");
	CHECK(sk_unregister_trace_sktest_tick(probe_b, &a) == -ENOENT,
	      "the refused registration left nothing behind");
}

static void other_probe(void *data, const char *s)
{
	*(const char **)data = s;
}

static void test_key_update_turns_on(void)
{
	const char *got = NULL;

	CHECK(sk_register_trace_sktest_other(other_probe, &got) == 0, "reg");
	sk_trace_sktest_other("x");
	CHECK(got && strcmp(got, "x") == 0, "a pointer argument arrives");
	CHECK(sk_unregister_trace_sktest_other(other_probe, &got) == 0, "u");
	/* skctl and STATICKEYS flip the key itself: the firing path runs
	 * (the USDT probe) with no probe registered. */
	CHECK(sk_key_enable(&sk__tp_sktest_other.key) == 0, "enable key");
	CHECK(sk_trace_sktest_other_enabled(), "enabled by its key");
	sk_trace_sktest_other("y");
	CHECK(sk_key_disable(&sk__tp_sktest_other.key) == 0, "disable key");
	CHECK(!sk_trace_sktest_other_enabled(), "off again");
}

int main(int argc, char **argv)
{
	static const struct check_case cases[] = {
		{ "off_by_default", test_off_by_default },
		{ "key_named_system_name", test_key_named_system_name },
		{ "register_fire_unregister", test_register_fire_unregister },
		{ "args_evaluated_only_when_on",
		  test_args_evaluated_only_when_on },
		{ "misuse", test_misuse },
		{ "key_update_turns_on", test_key_update_turns_on },
	};
	return check_run_cases(cases, sizeof(cases) / sizeof(cases[0]), argc,
			       argv);
}
