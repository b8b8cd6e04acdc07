/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/trace/api_cxx.cpp - the tracepoint macros from C++: a tracepoint
 * declared, defined and fired in C++ files, a lambda without captures as
 * its probe, the misuse errors, and SK_TRACE's lazy arguments.
 */
#include <cerrno>

#include <statickeys.hpp>
#include <statickeys/trace.h>

#include "../check.h"

SK_DECLARE_TRACE(sktestxx, ev, SK_TP_PROTO(int n, const char *s),
		 SK_TP_ARGS(n, s));
SK_DEFINE_TRACE(sktestxx, ev, SK_TP_PROTO(int n, const char *s),
		SK_TP_ARGS(n, s));

static int evaluated;
static int arg(int x)
{
	evaluated++;
	return x;
}

int main()
{
	int sum = 0;
	auto probe = [](void *data, int n, const char *) {
		*static_cast<int *>(data) += n;
	};

	CHECK(!sk_trace_sktestxx_ev_enabled(), "off at first");
	CHECK(sk_key_find("sktestxx:ev") == &sk__tp_sktestxx_ev.key.key,
	      "named sktestxx:ev");
	SK_TRACE(sktestxx, ev, arg(1), "x");
	CHECK(evaluated == 0, "SK_TRACE evaluates nothing when off");
	CHECK(sk_register_trace_sktestxx_ev(probe, &sum) == 0, "register");
	CHECK(sk_register_trace_sktestxx_ev(probe, &sum) == -EEXIST, "twice");
	sk_trace_sktestxx_ev(5, "a");
	SK_TRACE(sktestxx, ev, arg(2), "b");
	CHECK(sum == 7 && evaluated == 1, "probe saw 5 and 2: %d", sum);
	CHECK(sk_unregister_trace_sktestxx_ev(probe, &sum) == 0, "unregister");
	CHECK(sk_unregister_trace_sktestxx_ev(probe, &sum) == -ENOENT, "again");
	sk_trace_sktestxx_ev(100, "c");
	CHECK(sum == 7 && !sk_trace_sktestxx_ev_enabled(), "off, not called");
	return check_summary();
}
