/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/s390x/batch.c - one batch of site changes on s390x: a key's site
 * changes its mask byte alone, in one store; a static call's trampoline
 * whose jump moves changes its offset too, in three steps.
 *
 * Every site is a 6-byte brcl (c0 M4 <offset>).  A key's two forms carry
 * the same offset (site.c), so the store protocol serves them: one byte
 * store per site, then one core sync per batch.  A trampoline's jump
 * (static_call.c) changes its offset, bytes 2-5, which no store rewrites
 * for a CPU fetching the instruction: a multi-halfword instruction is not
 * fetched as one block-concurrent unit, and a CPU may run instructions it
 * fetched before another CPU's store until it serialises (Principles of
 * Operation, chapter 5, "Instruction Fetching" and "CPU Serialization").
 * A CPU could run brcl 15 with half an old and half a new offset.  So, as
 * the kernel's own jump labels and ftrace change only the mask of a brcl,
 * such a site moves through the mask:
 *
 *   1. its mask becomes 0 (one byte): "never taken", every CPU falls
 *      through to the far form after the jump, which reads the target from
 *      the descriptor (the old one, or the new where the new jump is the
 *      far form: core/static_call.c stores it there first); core sync, so
 *      no CPU still runs the brcl 15 it fetched before;
 *   2. its offset gets the new bytes, while no CPU takes the jump whatever
 *      halves of it it fetches; core sync, so none keeps an old half;
 *   3. its mask becomes the new one (a byte again), with the key sites of
 *      the batch; core sync.
 *
 * A step that no site of the batch needs is left out with its sync: a
 * batch of key sites alone is step 3, one store per site and one sync, as
 * before; a trampoline that was in its far form (mask 0) starts at step 2;
 * one that goes to it ends after step 2.  That is at most 3 core syncs per
 * batch, as on x86-64.  If a write (or a sync before the last) fails, the
 * sites go back through the same steps in reverse, so the batch is all or
 * nothing.  No cache maintenance: z/Architecture keeps instruction fetch
 * coherent with stores; only what a CPU fetched already is stale.
 */

#if defined(__s390x__) /* only built for s390x */
#include <string.h>

#include "arch/common/store_begin.h"
#include "support/inject.h"
#include "support/mem.h"
#include "support/message.h"
#include "support/stats.h"

#define SITE 6
#define MASK_NEVER 0x04u /* byte 1: mask 0, RIL op 4 */
#define STEPS 3

/* Whether @p's offset changes: it then takes steps 1 and 2. */
static bool moves(const struct sk__patch *p)
{
	return memcmp(p->old_insn + 2, p->new_insn + 2, SITE - 2) != 0;
}

/* What @p's site holds after step @k (0: before the batch). */
static void image(const struct sk__patch *p, int k, unsigned char *out)
{
	memcpy(out, k < 2 ? p->old_insn : p->new_insn, SITE);
	if (moves(p) && (k == 1 || k == 2))
		out[1] = MASK_NEVER;
}

/* Step @k, forward (@to == k) or undone (@to == k - 1), for sites [0, n):
 * each whose image changes is written.  *@done: sites handled;
 * *@wrote: whether any byte was written. */
static int write_step(struct sk__span *spans, const struct sk__patch *p,
		      size_t n, int k, int to, size_t *done, bool *wrote)
{
	for (*done = 0; *done < n; (*done)++) {
		unsigned char from[SITE], next[SITE];
		image(&p[*done], to == k ? k - 1 : k, from);
		image(&p[*done], to, next);
		if (memcmp(from, next, SITE) == 0)
			continue;
		spans[*done].bytes = next;
		int r = sk__os_writer_write(&spans[*done], 1);
		spans[*done].bytes = NULL;
		if (r)
			return r;
		*wrote = true;
	}
	return 0;
}

static int sync_step(const struct sk__patch *p, size_t n)
{
	return sk__arch_sync_batch(p[0].addr, p[n - 1].addr + SITE);
}

/* After a failure in step @k with sites [0, @done) written: back to the
 * old instructions, step by step. */
static void undo(struct sk__span *spans, const struct sk__patch *p, size_t n,
		 int k, size_t done)
{
	for (int j = k; j >= 1; j--) {
		size_t m = j == k ? done : n, undone;
		bool wrote = false;
		int r = write_step(spans, p, m, j, j - 1, &undone, &wrote);
		if (wrote)
			(void)sync_step(p, n);
		if (r) {
			sk__warn("restoring failed too (%s); %zu sites keep a "
				 "new instruction", strerror(-r), m - undone);
			return;
		}
	}
}

static int batch_run(struct sk__span *spans, struct sk__patch *p, size_t n)
{
	int last = 0;

	/* The last step that writes anything: its sync ends the batch. */
	for (int k = 1; k <= STEPS; k++)
		for (size_t i = 0; i < n && last < k; i++) {
			unsigned char a[SITE], b[SITE];
			image(&p[i], k - 1, a);
			image(&p[i], k, b);
			if (memcmp(a, b, SITE) != 0)
				last = k;
		}
	for (int k = 1; k <= last; k++) {
		size_t done = 0;
		bool wrote = false;
		int r = write_step(spans, p, n, k, k, &done, &wrote);
		if (r) {
			sk__warn("code write failed mid-batch (%s); restoring "
				 "the sites", strerror(-r));
			undo(spans, p, n, k, done);
			return r;
		}
		/* The point the x86-64 protocol calls "after the trap
		 * write": every site written, nothing synced yet (tests stop
		 * batches here). */
		if (k == last)
			SK_INJECT(SK__INJECT_AFTER_TRAP_WRITE);
		int s = wrote ? sync_step(p, n) : 0;
		if (k == last)
			return s; /* written either way, as store_batch.c */
		if (s) {
			/* Unsynced, the next step would not be safe. */
			undo(spans, p, n, k, n);
			return s;
		}
		if (wrote)
			SK_INJECT(SK__INJECT_BETWEEN_STEPS);
	}
	return 0;
}

int sk__patch_apply(struct sk__patch *patches, size_t n, size_t *changed)
{
	int r = sk__os_writer_ready();

	if (r || n == 0)
		return r;
	/* Not a word: the writer stores the bytes that differ
	 * (os/writer_common.c), the mask or the offset. */
	struct sk__span *spans;
	r = sk__store_batch_begin(patches, n, false, changed, &spans);
	if (r)
		return r;
	r = batch_run(spans, patches, n);
	(void)sk__os_writer_end(spans, n);
	sk__mem_free(spans);
	if (r == 0) {
		sk__count_held(SK__C_BATCHES, 1);
		sk__count_held(SK__C_SITES_WRITTEN, n);
	}
	return r;
}

/* No trap protocol: the trap half of the contract is arch/common/no_traps.c. */

#endif /* __s390x__ */
