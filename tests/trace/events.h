/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* tests/trace/events.h - the tracepoints the trace tests fire. */
#ifndef SK_TESTS_TRACE_EVENTS_H
#define SK_TESTS_TRACE_EVENTS_H

#include <statickeys/trace.h>

SK_DECLARE_TRACE(sktest, tick, SK_TP_PROTO(int n, long v), SK_TP_ARGS(n, v));
SK_DECLARE_TRACE(sktest, other, SK_TP_PROTO(const char *s), SK_TP_ARGS(s));

#endif
