/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/riscv64/icache.c - after a batch's stores, make every hart that
 * runs our threads fetch the new instructions.
 *
 * RISC-V keeps instruction fetch coherent with stores only through fence.i,
 * which acts on the hart that executes it alone, so the OS must reach the
 * others: sk__os_icache_sync() (os/os.h; Linux's membarrier SYNC_CORE or
 * riscv_flush_icache, os/linux/sync.c says which and why), one core sync
 * per batch.
 */

#if defined(__riscv) && __riscv_xlen == 64 /* only built for riscv64 */
#include "arch/backend.h"

int sk__arch_sync_batch(uintptr_t lo, uintptr_t hi)
{
	return sk__os_icache_sync(lo, hi);
}

#endif /* riscv64 */
