/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/x86_64/int3_batch.c - the int3 protocol over one batch of site changes.
 *
 * x86 only promises that a thread sees sane instructions while another thread
 * rewrites them if the rewrite follows the recipe the kernel uses
 * (text_poke_bp_batch, arch/x86/kernel/alternative.c):
 *
 *   1. write the trap byte over byte 0 of every site; sync cores
 *   2. write bytes 1..n-1 of every site (if any change); sync cores
 *   3. write the new byte 0 of every site; sync cores
 *
 * Between 1 and 3 a thread reaching a site traps and trap.c sends it to the
 * site's new destination.  A sync is one membarrier for the whole batch, so
 * a batch costs at most 3 core syncs however many sites it holds.
 *
 * Exact writes: every write covers site bytes only.  Other tools write code
 * too, outside our lock: a debugger inserting and removing breakpoints, the
 * kernel's uprobes, another runtime or a JIT.  A byte we did not put there is
 * never read into a buffer and written back, so it cannot be reverted.
 * Sites that are byte-adjacent (one ends where the next begins) form a run
 * and share one write per step; nothing between runs is written.  Before
 * step 1 every site is checked to still hold the bytes update.c planned from
 * (its compiled or last-written instruction); if anything else changed one,
 * the batch is refused before a byte is written.
 *
 * Step 3 and the mprotect writer.  After step 2's sync every CPU has seen
 * the int3 and the new tail; step 3 turns int3 into the new first byte.  A
 * CPU that has not refetched yet can only run the int3, which traps, and a
 * trap after the batch retired is a late trap that re-runs the (now whole)
 * new instruction (trap.c): either way the new direction.  So step 3's sync
 * bounds when late traps stop, it is not what makes the update visible.  The
 * mprotect writer must take write permission away after step 3 anyway, and
 * that change makes the kernel shoot down the TLB entries of every CPU
 * running this process (an IPI; the return from it serialises the CPU, the
 * technique of sync.c's fallback): that is step 3's sync for this writer,
 * instead of a membarrier.  So the batch interrupts the other CPUs 4 times
 * (open, 2 membarriers, close), not 5.
 *
 * Cost, by layout: a run is one write per step, so 56 sites that touch one
 * another are 3 writes, and 56 sites in 56 functions are 168, whether the
 * functions are 16 bytes or a page apart.  With /proc/self/mem a write is
 * one pwrite (~1-2 us whether it carries 1 byte or 4 KiB); with the mprotect
 * writer it is a few byte stores, and the cost is the two protection changes
 * per batch (writer.c), whatever the layout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/x86_64.h"
#include "support/inject.h"
#include "support/mem.h"
#include "support/message.h"
#include "support/stats.h"


/* Batches of up to this many sites plan on the stack: the common small
 * update allocates nothing. */
#define BATCH_INLINE 8

struct batch {
	struct sk__patch *p;
	size_t n;
	struct sk__span *runs;   /* byte-adjacent sites, one write per step */
	size_t nruns;
	unsigned char *image;    /* patch i's site bytes at i * site size; a
				    run's bytes are contiguous there too */
	struct sk__span inline_runs[BATCH_INLINE];
	unsigned char inline_image[BATCH_INLINE * SK__SITE_MAX];
};

/* Two sites whose bytes touch may be written together: no foreign byte
 * lies between them.  Only within one known executable segment. */
static bool adjacent(const struct sk__span *run, const struct sk__patch *p)
{
	return run && p->segment && run->segment == p->segment &&
	       p->addr == run->addr + run->len;
}

/* Group sorted patches into runs; the image starts as the old instructions
 * (what update.c read and checked), never as a copy of memory. */
static int batch_plan(struct batch *b)
{
	size_t site = sk__arch_site_size;

	bool small = b->n <= BATCH_INLINE;

	b->runs = small ? b->inline_runs
			: sk__mem_alloc(b->n * sizeof(*b->runs));
	b->image = small ? b->inline_image : sk__mem_alloc(b->n * site);
	if (!b->runs || !b->image)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++) {
		struct sk__patch *p = &b->p[i];
		struct sk__span *r = b->nruns ? &b->runs[b->nruns - 1] : NULL;
		if (adjacent(r, p)) {
			r->len += site;
		} else {
			r = &b->runs[b->nruns++];
			r->addr = p->addr;
			r->len = site;
			r->segment = p->segment;
			r->bytes = b->image + i * site;
			r->whole_word = false;
		}
		memcpy(b->image + i * site, p->old_insn, site);
	}
	return 0;
}

static void batch_free(struct batch *b)
{
	if (b->runs != b->inline_runs)
		sk__mem_free(b->runs);
	if (b->image != b->inline_image)
		sk__mem_free(b->image);
}

/* Step 1 may only write over the bytes update.c planned from.  A debugger
 * or uprobe that put its int3 on a site since (the patch lock does not stop
 * them) makes the whole batch fail before anything is written. */
static int batch_verify(const struct batch *b, size_t *changed)
{
	for (size_t i = 0; i < b->n; i++)
		if (memcmp((const void *)b->p[i].addr, b->p[i].old_insn,
			   sk__arch_site_size) != 0) {
			*changed = i; /* the core names it (update.c) */
			return -EILSEQ;
		}
	return 0;
}

/* Set bytes [from, to) of every site in the image from @old or new insn. */
static bool image_set(struct batch *b, unsigned from, unsigned to, bool new_)
{
	bool changed = false;

	for (size_t i = 0; i < b->n; i++) {
		const unsigned char *src =
			new_ ? b->p[i].new_insn : b->p[i].old_insn;
		unsigned char *dst = b->image + i * sk__arch_site_size;
		for (unsigned j = from; j < to; j++) {
			changed |= dst[j] != src[j];
			dst[j] = src[j];
		}
	}
	return changed;
}

static bool image_trap_all(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		b->image[i * sk__arch_site_size] = sk__arch_trap_byte;
	return b->n > 0;
}

static int write_and_sync(struct batch *b)
{
	int r = sk__os_writer_write(b->runs, b->nruns);

	return r ? r : sk__os_sync_cores();
}

/*
 * Undo a batch that failed after its trap bytes went in: restore the tails
 * (byte 0 is still the trap byte, which keeps the tails unobservable), sync,
 * then restore byte 0 and sync.  Return 0 if the code is whole again.
 */
static int batch_rollback(struct batch *b)
{
	unsigned size = sk__arch_site_size;

	/* Resumed threads must now go where the old instruction sends them. */
	for (size_t i = 0; i < b->n; i++) {
		unsigned char tmp[SK__SITE_MAX];
		memcpy(tmp, b->p[i].new_insn, size);
		memcpy(b->p[i].new_insn, b->p[i].old_insn, size);
		memcpy(b->p[i].old_insn, tmp, size);
	}
	image_trap_all(b);
	int r = write_and_sync(b);
	if (r == 0 && image_set(b, 1, size, true))
		r = write_and_sync(b);
	if (r == 0) {
		image_set(b, 0, 1, true);
		r = write_and_sync(b);
	}
	return r;
}

/*
 * The batch when the process has one thread (a constructor registering a
 * static call and its call sites: the common start-up case) and the
 * writer writes a run in one system call (procmem): nothing can run a
 * site while it is half written (the thread's own signal handlers run
 * between system calls, never inside one), so each site is written whole,
 * one write per run and one sync, not three of each: a program with 400
 * call sites made 1,231 pwrites at start-up.  The same judgement as a GOT
 * call made direct at start-up (core/call_sites.c): glibc's count, which a
 * raw clone() escapes.  A failed write puts the old bytes back whole.
 */
static int batch_whole(struct batch *b)
{
	unsigned size = sk__arch_site_size;

	image_set(b, 0, size, true);
	int r = write_and_sync(b);
	if (r) {
		sk__warn("code write failed (%s); restoring %zu sites",
			 strerror(-r), b->n);
		image_set(b, 0, size, false);
		if (write_and_sync(b) != 0)
			sk__warn("restoring failed too: some of the %zu sites "
				 "may keep their new instruction", b->n);
	}
	return r;
}

/* The batch has a call site that a trapped thread would not be resumed
 * at by an emulated call (a shadow stack: trap.c), but sent back to run it
 * once the batch is over.  A signal handler on this thread that ran such a
 * site would wait for the batch it interrupted: the thread's signals are
 * held until the batch ends (a handler then finds the site whole). */
static bool calls_rerun(const struct batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->p[i].push)
			return !sk__os_trap_can_push();
	return false;
}

static int batch_run(struct batch *b, size_t *changed)
{
	unsigned size = sk__arch_site_size;
	int r = batch_plan(b);

	if (r == 0)
		r = batch_verify(b, changed);
	if (r == 0)
		r = sk__os_writer_begin(b->runs, b->nruns);
	if (r)
		return r;
	sk__trap_publish(b->p, b->n);

	if (sk__os_single_threaded() && sk__os_writer_one_call()) {
		r = batch_whole(b);
		(void)sk__os_writer_end(b->runs, b->nruns);
		sk__trap_retire();
		if (r == 0) {
			sk__count_held(SK__C_BATCHES, 1);
			sk__count_held(SK__C_SITES_WRITTEN, b->n);
		}
		return r;
	}
	bool hold = calls_rerun(b);
	if (hold)
		sk__os_trap_hold_signals(true);
	/* Step 1: every site traps from here on. */
	image_trap_all(b);
	r = write_and_sync(b);
	SK_INJECT(SK__INJECT_AFTER_TRAP_WRITE);
	/* Step 2: the tails; invisible, as no thread can decode past int3. */
	if (r == 0 && image_set(b, 1, size, true)) {
		r = write_and_sync(b);
		SK_INJECT(SK__INJECT_AFTER_TAIL_WRITE);
	}
	/* Step 3: the new first byte makes each new instruction whole.  With
	 * the mprotect writer, restoring the protection (writer_end, below)
	 * is this step's sync: see "Step 3 and the mprotect writer" above. */
	bool end_syncs = false;
	if (r == 0) {
		image_set(b, 0, 1, true);
		r = sk__os_writer_write(b->runs, b->nruns);
		end_syncs = r == 0 && sk__os_writer_end_serialises();
		if (r == 0 && !end_syncs)
			r = sk__os_sync_cores();
	}
	if (r) {
		sk__warn("code write failed mid-batch (%s); restoring %zu sites",
			 strerror(-r), b->n);
		if (batch_rollback(b) != 0) {
			/* Some sites may still hold the trap byte.  Keep them
			 * emulated for ever, along the old direction (the key
			 * keeps its old state), rather than let threads die
			 * (but for call sites under a shadow stack: trap.c). */
			for (size_t i = 0; i < b->n; i++)
				b->p[i].dest = sk__arch_destination(
					b->p[i].addr, b->p[i].new_insn);
			sk__trap_add_stuck(b->p, b->n);
			sk__warn("rollback failed too; %zu sites stay trapped "
				 "and emulated", b->n);
			r = -EIO;
		}
	}
	if (sk__os_writer_end(b->runs, b->nruns) != 0 && end_syncs)
		(void)sk__os_sync_cores(); /* the shootdown may not have happened */
	sk__trap_retire();
	if (hold)
		sk__os_trap_hold_signals(false);
	if (r == 0) {
		sk__count_held(SK__C_BATCHES, 1);
		sk__count_held(SK__C_SITES_WRITTEN, b->n);
	}
	return r;
}

int sk__patch_apply(struct sk__patch *patches, size_t n, size_t *changed)
{
	int r = sk__os_writer_ready();

	if (r || n == 0)
		return r;
	r = sk__os_trap_install();
	if (r)
		return r;
	sk__os_tracer_note();
	struct batch b = { .p = patches, .n = n };
	r = batch_run(&b, changed);
	batch_free(&b);
	return r;
}

/*
 * A fork from a signal handler that interrupted this thread's update copies
 * its batch as it was: some sites may hold int3, some their old bytes, some
 * a new tail behind int3.  The child has one thread, so nothing can be
 * executing its sites: each is simply written whole with its new
 * instruction, the direction the trap handler already gave it.  If the
 * handler returns, the interrupted update goes on in the child as in the
 * parent (its steps write the same bytes again); if not, the child's other
 * sites keep the directions they had (core/lock.c refuses its updates).
 */
static void finish_cut_batch(void)
{
	size_t n;
	const struct sk__patch *p = sk__trap_live(&n);

	if (!p || sk__os_writer_ready() != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		struct sk__span s = { .addr = p[i].addr,
				      .len = sk__arch_site_size,
				      .bytes = p[i].new_insn,
				      .segment = p[i].segment };
		if (sk__os_writer_begin(&s, 1) == 0) {
			(void)sk__os_writer_write(&s, 1);
			(void)sk__os_writer_end(&s, 1);
		}
	}
}

void sk__arch_after_fork_child(void)
{
	sk__trap_after_fork_child();
	sk__os_trap_after_fork_child();
	finish_cut_batch();
}
