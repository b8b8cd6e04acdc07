/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/unpatched/writer_sync.c - writing code and serialising cores (os/os.h,
 * "writer", "sync"): not ported to FreeBSD, nor to macOS.
 *
 * There the runtime is built with the portable backend (arch/portable:
 * keys as atomic flags, no code patched), which calls neither; these say
 * so to whoever asks: -ENOTSUP, and in the statistics the writer that the
 * portable backend reports everywhere, "unprobed" (statickeys/stats.h: it
 * never writes code, so none is ever chosen), and the sync "none".  A port that
 * patches code here would write with mprotect (FreeBSD has no
 * /proc/self/mem by default) and serialise with a TLB shootdown, since
 * FreeBSD has no membarrier SYNC_CORE.
 */
#include <errno.h>

#include "os/os.h"

int sk__os_writer_ready(void)
{
	return -ENOTSUP;
}

int sk__os_writer_begin(const struct sk__span *spans, size_t n)
{
	(void)spans, (void)n;
	return -ENOTSUP;
}

int sk__os_writer_write(const struct sk__span *spans, size_t n)
{
	(void)spans, (void)n;
	return -ENOTSUP;
}

int sk__os_writer_end(const struct sk__span *spans, size_t n)
{
	(void)spans, (void)n;
	return -ENOTSUP;
}

bool sk__os_writer_end_serialises(void)
{
	return false;
}

bool sk__os_writer_one_call(void)
{
	return false;
}

const char *sk__os_writer_name(void)
{
	return "unprobed";
}

void sk__os_writer_after_fork_child(void)
{
}

int sk__os_writer_select(int writer)
{
	(void)writer;
	return -ENOTSUP;
}

void sk__os_sync_init(bool tlb_ipi_serialises, void (*serialize_self)(void))
{
	(void)tlb_ipi_serialises;
	(void)serialize_self;
}

int sk__os_sync_cores(void)
{
	return -ENOTSUP;
}

const char *sk__os_sync_name(void)
{
	return "none";
}
