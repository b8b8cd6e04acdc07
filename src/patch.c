/*
 * src/patch.c - the int3 protocol over one batch of site changes.
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
 * Beyond the kernel: the writes of each step are coalesced into spans.  Sites
 * that lie close together in one executable segment are written with a single
 * call whose bytes come from a shadow copy of the span (unchanged code bytes
 * are written back with their current value, which nothing else modifies
 * while we hold the patch lock).  With /proc/self/mem a write costs ~2 us
 * whether it carries 1 byte or 4 KiB, so this turns 3 writes per site into
 * 3 writes per code region.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SPAN_MAX 4096 /* bytes one span may cover */

size_t sk__batch_limit;

struct batch {
	struct sk__patch *p;
	size_t n;
	struct sk__span *spans;
	size_t nspans;
	unsigned char *shadow;   /* current bytes of every span, concatenated */
	size_t *shadow_off;      /* per patch: its site's offset in shadow */
};

/* Group sorted patches into spans; fill the shadow with the code as it is. */
static int batch_plan(struct batch *b)
{
	size_t site = sk__arch_site_size, total = 0;

	b->spans = calloc(b->n, sizeof(*b->spans));
	b->shadow_off = calloc(b->n, sizeof(*b->shadow_off));
	if (!b->spans || !b->shadow_off)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++) {
		struct sk__patch *p = &b->p[i];
		struct sk__span *s = b->nspans ? &b->spans[b->nspans - 1] : NULL;
		if (s && p->segment && s->segment == p->segment &&
		    p->addr >= s->addr + s->len &&
		    p->addr + site - s->addr <= SPAN_MAX) {
			total += p->addr + site - (s->addr + s->len);
			s->len = p->addr + site - s->addr;
		} else {
			s = &b->spans[b->nspans++];
			s->addr = p->addr;
			s->len = site;
			s->segment = p->segment;
			total += site;
		}
	}
	b->shadow = malloc(total);
	if (!b->shadow)
		return -ENOMEM;
	size_t off = 0, k = 0;
	for (size_t j = 0; j < b->nspans; j++) {
		struct sk__span *s = &b->spans[j];
		memcpy(b->shadow + off, (const void *)s->addr, s->len);
		s->bytes = b->shadow + off;
		for (; k < b->n && b->p[k].addr < s->addr + s->len; k++)
			b->shadow_off[k] = off + (b->p[k].addr - s->addr);
		off += s->len;
	}
	return 0;
}

static void batch_free(struct batch *b)
{
	free(b->spans);
	free(b->shadow);
	free(b->shadow_off);
}

/* Set bytes [from, to) of every site in the shadow from @old or new insn. */
static bool shadow_set(struct batch *b, unsigned from, unsigned to, bool new_)
{
	bool changed = false;

	for (size_t i = 0; i < b->n; i++) {
		const unsigned char *src =
			new_ ? b->p[i].new_insn : b->p[i].old_insn;
		unsigned char *dst = b->shadow + b->shadow_off[i];
		for (unsigned j = from; j < to; j++) {
			changed |= dst[j] != src[j];
			dst[j] = src[j];
		}
	}
	return changed;
}

static bool shadow_trap_all(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		b->shadow[b->shadow_off[i]] = sk__arch_trap_byte;
	return b->n > 0;
}

static int write_and_sync(struct batch *b)
{
	int r = sk__writer_write(b->spans, b->nspans);

	return r ? r : sk__sync_cores();
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
	shadow_trap_all(b);
	int r = write_and_sync(b);
	if (r == 0 && shadow_set(b, 1, size, true))
		r = write_and_sync(b);
	if (r == 0) {
		shadow_set(b, 0, 1, true);
		r = write_and_sync(b);
	}
	return r;
}

static int batch_run(struct batch *b)
{
	unsigned size = sk__arch_site_size;
	int r = batch_plan(b);

	if (r == 0)
		r = sk__writer_begin(b->spans, b->nspans);
	if (r)
		return r;
	sk__trap_publish(b->p, b->n);

	/* Step 1: every site traps from here on. */
	shadow_trap_all(b);
	r = write_and_sync(b);
	SK_INJECT(SK__INJECT_AFTER_TRAP_WRITE);
	/* Step 2: the tails; invisible, as no thread can decode past int3. */
	if (r == 0 && shadow_set(b, 1, size, true)) {
		r = write_and_sync(b);
		SK_INJECT(SK__INJECT_AFTER_TAIL_WRITE);
	}
	/* Step 3: the new first byte makes each new instruction whole. */
	if (r == 0) {
		shadow_set(b, 0, 1, true);
		r = write_and_sync(b);
	}
	if (r) {
		sk__warn("code write failed mid-batch (%s); restoring %zu sites",
			 strerror(-r), b->n);
		if (batch_rollback(b) != 0) {
			/* Some sites may still hold the trap byte.  Keep them
			 * emulated for ever, along the old direction (the key
			 * keeps its old state), rather than let threads die. */
			for (size_t i = 0; i < b->n; i++)
				b->p[i].dest = sk__arch_destination(
					b->p[i].addr, b->p[i].new_insn);
			sk__trap_add_stuck(b->p, b->n);
			sk__warn("rollback failed too; %zu sites stay trapped "
				 "and emulated", b->n);
			r = -EIO;
		}
	}
	(void)sk__writer_end(b->spans, b->nspans);
	sk__trap_retire();
	if (r == 0) {
		sk__count(SK__C_BATCHES, 1);
		sk__count(SK__C_SITES_WRITTEN, b->n);
	}
	return r;
}

int sk__patch_apply(struct sk__patch *patches, size_t n)
{
	int r = sk__writer_ready();

	if (r || n == 0)
		return r;
	/* arch hook: no trap protocol where one store changes a live site */
	if (!sk__arch_uses_trap)
		return sk__arch_patch_direct(patches, n);
	r = sk__trap_install();
	if (r)
		return r;
	size_t step = sk__batch_limit ? sk__batch_limit : n;
	for (size_t i = 0; i < n; i += step) {
		struct batch b = { .p = patches + i,
				   .n = n - i < step ? n - i : step };
		r = batch_run(&b);
		batch_free(&b);
		if (r)
			return r;
	}
	return 0;
}

SK_API int sk_config_set_batch_limit(size_t max_sites)
{
	int r = sk__lock();

	if (r)
		return r;
	sk__batch_limit = max_sites;
	sk__unlock();
	return 0;
}
