/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* bench/trace_lttng_tp.h - the LTTng-UST 2.13 tracepoint provider of
 * bench/trace_loop.c's LTTng variant: bench:tick(long i). */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER bench
#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "trace_lttng_tp.h"

#if !defined(BENCH_TRACE_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_TRACE_LTTNG_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(bench, tick, LTTNG_UST_TP_ARGS(long, i),
			   LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(long, i, i)))

#endif

#include <lttng/tracepoint-event.h>
