/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/core/stats_get.c - sk_stats_get(): the counters, with the names of
 * the writer, core-sync method and backend in use; and the bytes the
 * runtime holds (sk_stats_runtime_bytes).
 *
 * Here, above the architecture and the OS, because it asks them for their
 * names (arch/backend.h, os/os.h), while they count in support/stats.c:
 * this way the counters stay a leaf that every layer can use without a
 * circle.
 */
#include <errno.h>

#include "core/core.h"
#include "support/mem.h"
#include "support/stats.h"

SK_API int sk_stats_get(struct sk_stats *out)
{
	if (!out)
		return -EINVAL;
	out->updates = sk__counter(SK__C_UPDATES);
	out->batches = sk__counter(SK__C_BATCHES);
	out->sites_written = sk__counter(SK__C_SITES_WRITTEN);
	out->text_writes = sk__counter(SK__C_TEXT_WRITES);
	out->core_syncs = sk__counter(SK__C_CORE_SYNCS);
	out->traps_handled = sk__counter(SK__C_TRAPS_HANDLED);
	out->traps_chained = sk__counter(SK__C_TRAPS_CHAINED);
	out->update_errors = sk__counter(SK__C_UPDATE_ERRORS);
	out->writer = sk__os_writer_name();
	out->sync_method = sk__os_sync_name();
	out->backend = sk__arch_name;
	return 0;
}

SK_API size_t sk_stats_runtime_bytes(void)
{
	return sk__mem_bytes();
}
