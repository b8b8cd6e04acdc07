/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* tests/trace/events.c - the definitions of tests/trace/events.h. */
#include "events.h"

SK_DEFINE_TRACE(sktest, tick, SK_TP_PROTO(int n, long v), SK_TP_ARGS(n, v));
SK_DEFINE_TRACE(sktest, other, SK_TP_PROTO(const char *s), SK_TP_ARGS(s));
