/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/common/store_batch.c - the store protocol: one batch of site
 * changes without a trap, for the architectures whose jump <-> no-op
 * change is one aligned store (aarch64, riscv64).
 *
 * What the arm64 kernel does for its own jump labels
 * (arch/arm64/kernel/jump_label.c, patching.c), in user space:
 *
 *   1. every site: one aligned 32-bit store of the new instruction (B <-> NOP
 *      may be changed while other CPUs execute it: they see the old or the
 *      new instruction, nothing else);
 *   2. every site: __builtin___clear_cache() over its 4 bytes, which is
 *      DC CVAU (clean the data cache line to the point of unification),
 *      DSB ISH, IC IVAU (invalidate the instruction cache line), DSB ISH,
 *      ISB - the new instruction is now what any CPU fetches next;
 *   3. once per batch: membarrier(PRIVATE_EXPEDITED_SYNC_CORE), so every
 *      CPU running one of our threads takes a context synchronisation event
 *      and drops instructions it fetched before step 2 (the kernel's
 *      kick_all_cpus_sync() after all stores of a batch, since 2024).
 *
 * ppc64le uses it as aarch64 does (src/arch/ppc64le/: nop <-> b, then
 * dcbst, sync, icbi, sync, isync, then membarrier SYNC_CORE).
 * (s390x's key sites change in one byte as these do, but its trampolines
 * need more: src/arch/s390x/batch.c.)
 * riscv64 uses it too (src/arch/riscv64/): the same single aligned
 * store per site, with its own instruction-fetch coherence in steps 2 and 3
 * (the sk__arch_flush_site / sk__arch_sync_batch hooks of arch/backend.h);
 * so do loongarch64 (B <-> NOP, "ibar 0" per site) and arm (Thumb-2 B.W <->
 * NOP.W, each site 4-aligned so that one store writes it whole).
 *
 * A batch therefore costs one core sync whatever the number of sites.  Each
 * site is its own write (never a span over unchanged bytes): with
 * /proc/self/mem the kernel copies a 4-byte aligned write with 32-bit stores,
 * with the mprotect writer writer.c stores the word at once.  If a write
 * fails, the sites already written get their old instruction back the same
 * way, so the batch is all or nothing as on x86-64.
 */

/* only built for the store ports (src/sources.txt) */
#if defined(__aarch64__) || (defined(__riscv) && __riscv_xlen == 64) ||       \
	(defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)) ||            \
	(defined(__loongarch__) && __loongarch_grlen == 64) || defined(__arm__)
#include <stdlib.h>
#include <string.h>

#include "arch/common/store_begin.h"
#include "support/inject.h"
#include "support/mem.h"
#include "support/message.h"
#include "support/stats.h"

/* Steps 1 and 2 for patches [0, n), new (or, to undo, old) instructions. */
static int write_sites(struct sk__span *spans, struct sk__patch *p, size_t n,
		       bool new_, size_t *done)
{
	for (*done = 0; *done < n; (*done)++) {
		struct sk__span *s = &spans[*done];
		s->bytes = new_ ? p[*done].new_insn : p[*done].old_insn;
		int r = sk__os_writer_write(s, 1);
		if (r)
			return r;
		sk__arch_flush_site(s->addr, s->len);
	}
	return 0;
}

static int batch_run(struct sk__patch *p, size_t n, size_t *changed)
{
	struct sk__span *spans;
	size_t done = 0;
	int r = sk__store_batch_begin(p, n, true, changed, &spans);

	if (r)
		return r;
	r = write_sites(spans, p, n, true, &done);
	/* The point the x86-64 protocol calls "after the trap write": every
	 * site written, nothing synced yet (tests stop batches here). */
	if (r == 0)
		SK_INJECT(SK__INJECT_AFTER_TRAP_WRITE);
	if (r) {
		size_t undone;
		sk__warn("code write failed mid-batch (%s); restoring %zu sites",
			 strerror(-r), done);
		if (write_sites(spans, p, done, false, &undone) != 0)
			sk__warn("restoring failed too; %zu sites keep their "
				 "new instruction", done - undone);
	}
	/* Step 3, also after a failure: sites were written either way. */
	int s = sk__arch_sync_batch(p[0].addr, p[n - 1].addr + sk__arch_site_size);
	if (r == 0)
		r = s;
	(void)sk__os_writer_end(spans, n);
	sk__mem_free(spans);
	if (r == 0) {
		sk__count_held(SK__C_BATCHES, 1);
		sk__count_held(SK__C_SITES_WRITTEN, n);
	}
	return r;
}

int sk__patch_apply(struct sk__patch *patches, size_t n, size_t *changed)
{
	int r = sk__os_writer_ready();

	if (r || n == 0)
		return r;
	return batch_run(patches, n, changed);
}

/* No trap protocol: the trap half of the contract is arch/common/no_traps.c. */

#endif /* the store ports */
