/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/riscv64/icache.c - after a batch's stores, make every hart that
 * runs our threads fetch the new instructions.
 *
 * RISC-V keeps instruction fetch coherent with stores only through fence.i,
 * and fence.i acts on the hart that executes it alone; a thread may also
 * migrate to a hart whose instruction cache is stale.  The kernel offers
 * (Linux Documentation/arch/riscv/cmodx.rst):
 *
 *   membarrier(PRIVATE_EXPEDITED_SYNC_CORE)  riscv since Linux 6.9: every
 *       hart running this process, and every hart a thread of it runs on
 *       next, executes fence.i before returning to user mode.  Paired with
 *       prctl(PR_RISCV_SET_ICACHE_FLUSH_CTX, ON, PER_PROCESS) (Linux 6.10),
 *       which keeps the writer's own fence.i valid if it migrates.
 *   riscv_flush_icache(start, end, 0)        every Linux on riscv: the flag
 *       0 means all harts of this address space (IPIs, or a fence.i before
 *       a hart next runs it).
 *
 * So: where os/sync.c found membarrier SYNC_CORE, the prctl (best effort:
 * it exists from 6.10), a local fence.i and the one membarrier; otherwise
 * the riscv_flush_icache system call over the batch's range.  Either is one
 * core sync per batch, counted as such.  Only if neither works (no riscv
 * kernel lacks the system call; an emulator may) the os layer's sync stands
 * alone.  (qemu-user implements riscv_flush_icache as a no-op, which misses
 * code written through /proc/self/mem: docs/porting.md.)
 */

#if defined(__riscv) && __riscv_xlen == 64 /* only built for riscv64 */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/backend.h"
#include "support/stats.h"

#ifndef PR_RISCV_SET_ICACHE_FLUSH_CTX /* Linux 6.10 */
#define PR_RISCV_SET_ICACHE_FLUSH_CTX 71
#define PR_RISCV_CTX_SW_FENCEI_ON 0
#define PR_RISCV_SCOPE_PER_PROCESS 0
#endif
#ifndef __NR_riscv_flush_icache
#define __NR_riscv_flush_icache 259
#endif

enum method { UNDECIDED, MEMBARRIER_FENCEI, FLUSH_SYSCALL };
static enum method method = UNDECIDED;

static void decide(void)
{
	method = FLUSH_SYSCALL;
	if (strcmp(sk__sync_name(), "membarrier") != 0)
		return;
	/* The writing thread's own fence.i then stays in force if it
	 * migrates to another hart (cmodx.rst); membarrier covers the rest. */
	(void)prctl(PR_RISCV_SET_ICACHE_FLUSH_CTX, PR_RISCV_CTX_SW_FENCEI_ON,
		    PR_RISCV_SCOPE_PER_PROCESS, 0, 0);
	method = MEMBARRIER_FENCEI;
}

int sk__arch_sync_batch(uintptr_t lo, uintptr_t hi)
{
	if (method == UNDECIDED)
		decide();
	if (method == MEMBARRIER_FENCEI) {
		sk__arch_serialize_self();
		return sk__sync_cores();
	}
	if (syscall(__NR_riscv_flush_icache, lo, hi, 0UL) == 0) {
		sk__count_held(SK__C_CORE_SYNCS, 1);
		return 0;
	}
	return sk__sync_cores();
}

#endif /* riscv64 */
