/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/stats.h - what the runtime has done, and how.
 *
 * Counters only grow (until sk_stats_reset()); they are updated with atomic
 * adds, so reading them never blocks an update.  They are per process: a
 * child of fork() starts with every counter and histogram at 0 (it inherits
 * its parent's keys, sites and start-up state, not its history), so a sum
 * over processes (skctl --all stats) counts each update once.  Histograms bucket durations
 * like the kernel's cgroup rstat lock study: 0-1, 1-5, 5-10, 10-50, 50-100,
 * 100-500 us, 0.5-1, 1-5, 5-10, 10-50, 50-100 ms, and longer.
 */
#ifndef STATICKEYS_STATS_H
#define STATICKEYS_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "statickeys/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** struct sk_stats - a snapshot of the runtime's counters. */
struct sk_stats {
	uint64_t updates;       /* key state changes (0 <-> on) applied */
	uint64_t batches;       /* int3 protocol runs (one per update or commit) */
	uint64_t sites_written; /* sites whose instruction was rewritten */
	uint64_t text_writes;   /* writes: one pwrite or store run per run of
				   adjacent sites and protocol step */
	uint64_t core_syncs;    /* core serialisations (membarrier or fallback) */
	uint64_t traps_handled; /* threads resumed by the int3 handler */
	uint64_t traps_chained; /* SIGTRAPs that were not ours, passed on */
	uint64_t update_errors; /* updates refused or rolled back */
	const char *writer;     /* Linux: "procmem", "mprotect"; Windows:
				   "WriteProcessMemory", "VirtualProtect"
				   (STATICKEYS_WRITER=procmem, mprotect);
				   "none" (neither works: updates fail with
				   -EPERM), or "unprobed": no code written
				   yet, the writer is chosen at the first
				   update that writes code (the portable
				   backend never does) */
	const char *sync_method; /* Linux: "membarrier", "mprotect-ipi";
				    Windows: "FlushProcessWriteBuffers"
				    ("none": the portable backend syncs
				    nothing) */
	const char *backend;    /* what runs sites: "x86_64", "aarch64", ...
				   (code patching), or "portable" (every
				   site tests its key's state: nothing is
				   patched; docs/porting.md) */
};

/** sk_stats_get() - copy the counters into @out. Return: 0 or -EINVAL. */
SK_API int sk_stats_get(struct sk_stats *out);
/** sk_stats_reset() - zero the counters and histograms. */
SK_API void sk_stats_reset(void);
/**
 * sk_stats_runtime_bytes() - the memory the runtime holds in pages of its
 * own: the update path's (the index of sites by key, batches), which never
 * comes from malloc so that updates may run in signal handlers.  Add it to
 * the heap in use (mallinfo2) to weigh the runtime's memory.
 */
SK_API size_t sk_stats_runtime_bytes(void);

#define SK_HIST_BUCKETS 12

/** enum sk_hist - the durations the runtime records. */
enum sk_hist {
	SK_HIST_UPDATE_LATENCY = 0, /* an update call, entry to return */
	/* The patch lock: timed for every update and control request, and
	 * for an object's registration or unloading once the process has had
	 * a second thread (before that they cannot wait, and are not timed:
	 * the first clock read would cost start-up a page fault). */
	SK_HIST_LOCK_HOLD = 1,      /* patch lock, acquire to release */
	SK_HIST_LOCK_WAIT = 2,      /* waiting to acquire the patch lock */
	SK_HIST_COUNT = 3
};

/** struct sk_histogram - counts per bucket; upper bounds in nanoseconds. */
struct sk_histogram {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t max_ns;
	uint64_t buckets[SK_HIST_BUCKETS];
};

/**
 * sk_stats_histogram() - copy one histogram.
 * @which: an enum sk_hist value.
 * @out:   where to copy.
 * Return: 0, or -EINVAL for an unknown @which or a NULL @out.
 */
SK_API int sk_stats_histogram(int which, struct sk_histogram *out);
/** sk_hist_bucket_bound_ns() - upper bound of bucket @i (UINT64_MAX for the last). */
SK_API uint64_t sk_hist_bucket_bound_ns(int i);
/** sk_hist_name() - "update_latency", "lock_hold", "lock_wait", or NULL. */
SK_API const char *sk_hist_name(int which);

#ifdef __cplusplus
}
#endif

#endif /* STATICKEYS_STATS_H */
