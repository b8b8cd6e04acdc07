/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/windows/sync.c - every core running the process serialised (os/
 * os.h, "sync"): FlushProcessWriteBuffers().
 *
 * Windows documents it as flushing the write queue of each processor that
 * runs a thread of the process; it does so with an inter-processor
 * interrupt to each of them (the technique of membarrier's expedited
 * commands on Linux), and the return from an interrupt serialises the
 * interrupted processor: its next instruction is fetched anew.  That is
 * what the int3 protocol asks of a core sync (REFERENCE.md), as Linux's
 * membarrier SYNC_CORE.  The caller's own processor is serialised by
 * FlushInstructionCache() after each write (os/windows/writer.c) and the
 * system call itself.  It cannot fail and needs no registration.
 *
 * Under wine 8 it is a stub (WINEDEBUG=fixme+virtual prints
 * "NtFlushProcessWriteBuffers stub"): it returns in ~90 ns and interrupts
 * no processor.  What passes under wine proves the protocol's steps and
 * the trap handler, not the cross-core sync, which only Windows itself can
 * show.
 */
#include <windows.h>

#include "os/os.h"
#include "support/stats.h"

void sk__os_sync_init(bool tlb_ipi_serialises, void (*serialize_self)(void))
{
	(void)tlb_ipi_serialises;
	(void)serialize_self;
}

int sk__os_sync_cores(void)
{
	FlushProcessWriteBuffers();
	sk__count_held(SK__C_CORE_SYNCS, 1);
	return 0;
}

const char *sk__os_sync_name(void)
{
	return "FlushProcessWriteBuffers";
}
