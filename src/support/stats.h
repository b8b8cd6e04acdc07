/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/support/stats.h - counters and duration histograms (stats.c), which
 * every layer adds to and sk_stats_* reads (core/stats_get.c names the
 * mechanisms in use beside them).
 */
#ifndef SK_SUPPORT_STATS_H
#define SK_SUPPORT_STATS_H

#include <stdint.h>

#include "statickeys/stats.h"

/* sk__counter - what the runtime counts (sk_stats_get reports them). */
enum sk__counter {
	SK__C_UPDATES,
	SK__C_BATCHES,
	SK__C_SITES_WRITTEN,
	SK__C_TEXT_WRITES,
	SK__C_CORE_SYNCS,
	SK__C_TRAPS_HANDLED,
	SK__C_TRAPS_CHAINED,
	SK__C_UPDATE_ERRORS,
	/* Traps at a call site sent back to run the call again, not
	 * emulated (a shadow stack: arch/x86_64/trap.c).  Not in struct
	 * sk_stats (its size is part of the ABI): the tests read it. */
	SK__C_CALLS_RERUN,
	SK__C_COUNT
};

void sk__count(enum sk__counter c, uint64_t n); /* async-signal-safe */
/* sk__count_held - sk__count for the counters written only under the
 * patch lock (all but the trap handler's): a plain load and store, no
 * atomic add, on the update path. */
void sk__count_held(enum sk__counter c, uint64_t n);
/* sk__counter - the current value of @c (relaxed). */
uint64_t sk__counter(enum sk__counter c);
/* sk__hist_record_held - one duration of @ns into histogram @h; the
 * histograms are written only under the patch lock (plain stores). */
void sk__hist_record_held(enum sk_hist h, uint64_t ns);
/* sk__now_ns - a monotonic clock, in nanoseconds. */
uint64_t sk__now_ns(void);

#endif /* SK_SUPPORT_STATS_H */
