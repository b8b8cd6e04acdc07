/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/core/update.c - from key states to the sites that must change.
 *
 * For every target key, every object is asked for that key's sites (its
 * index by key, site_index.c, built by the first update that reaches it).  A site whose instruction already
 * matches is skipped, so repeated or redundant updates write nothing.  A site
 * that holds neither of its two valid instructions has been changed by
 * something else - most often a debugger's breakpoint or a uprobe on the site
 * itself: the whole update is refused before anything is written, naming the
 * site (address, function, object, the bytes found), as the kernel keeps
 * kprobes off jump-label sites and refuses when old bytes do not match.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "support/mem.h"
#include "support/message.h"

/* The planned changes.  A few fit in the list itself: most updates change
 * a handful of sites, and then the slow path allocates nothing. */
#define PATCHES_INLINE 8

struct patch_list {
	struct sk__patch *v; /* inline_v, or sk__mem_alloc'd once it overflows */
	size_t n, cap;
	struct sk__patch inline_v[PATCHES_INLINE];
};

static int list_push(struct patch_list *l, const struct sk__patch *p)
{
	if (!l->v) {
		l->v = l->inline_v;
		l->cap = PATCHES_INLINE;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap < 64 ? 64 : l->cap * 2;
		bool was_inline = l->v == l->inline_v;
		struct sk__patch *v =
			sk__mem_realloc(was_inline ? NULL : l->v,
					cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		if (was_inline)
			memcpy(v, l->inline_v, sizeof(l->inline_v));
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *p;
	return 0;
}

/* Say once per site and bytes found (a program retrying a refused update
 * in a loop would print the same line thousands of times). */
static void warn_refused(const struct sk__object *obj,
			 const struct sk__site *site, const unsigned char *b)
{
	static uintptr_t last_site;
	static unsigned char last_byte;
	char where[512];

	if (site->code == last_site && b[0] == last_byte)
		return;
	last_site = site->code;
	last_byte = b[0];
	sk__site_describe(obj, site->code, where, sizeof(where));
	char bytes[SK__SITE_TEXT];
	sk__site_bytes(b, bytes);
	sk__warn("refusing to update key '%s': its site %s holds "
		 "%s, neither of its two instructions%s; "
		 "no site was changed",
		 site->key->name, where, bytes,
		 b[0] == sk__arch_trap_byte
			 ? " (a breakpoint: a debugger or uprobe has put its "
			   "int3 on it; remove it to update)"
			 : " (rewritten by another tool: a uprobe on a 5-byte "
			   "nop becomes a call on recent kernels; remove it to "
			   "update)");
}

/* Queue @site for direction @on if its code does not already show it. */
static int plan_site(struct patch_list *l, const struct sk__object *obj,
		     const struct sk__site *site, bool on)
{
	unsigned size = sk__arch_site_size;
	unsigned char nop[SK__SITE_MAX], jmp[SK__SITE_MAX];
	struct sk__patch p;
	bool jump = on ^ (site->branch != 0);

	/* The common case first, and cheaply: the site already shows it (every
	 * site of an object registered before any key changed). */
	sk__arch_encode(site->code, site->target, jump, jump ? jmp : nop);
	if (memcmp((const void *)site->code, jump ? jmp : nop, size) == 0)
		return 0;
	sk__arch_encode(site->code, site->target, !jump, jump ? nop : jmp);
	memcpy(p.old_insn, (const void *)site->code, size);
	memcpy(p.new_insn, jump ? jmp : nop, size);
	if (memcmp(p.old_insn, jump ? nop : jmp, size) != 0) {
		/* Another tool's int3 over byte 0 of a site that already has
		 * the wanted tail: nothing to write (object registration while
		 * a uprobe sits on a site, a flip back to where it was). */
		if (p.old_insn[0] == sk__arch_trap_byte &&
		    memcmp(p.old_insn + 1, p.new_insn + 1, size - 1) == 0 &&
		    memcmp(nop + 1, jmp + 1, size - 1) != 0)
			return 0;
		warn_refused(obj, site, p.old_insn);
		return -EILSEQ;
	}
	p.addr = site->code;
	p.dest = sk__arch_destination(site->code, p.new_insn);
	p.push = 0;
	p.segment = sk__object_segment_of(obj, site->code);
	return list_push(l, &p);
}

static int patch_addr_cmp(const void *a, const void *b)
{
	uintptr_t x = ((const struct sk__patch *)a)->addr;
	uintptr_t y = ((const struct sk__patch *)b)->addr;

	return x < y ? -1 : x > y;
}

/* A site another tool wrote between planning and the batch's first write:
 * the batch was refused before writing anything; say which site. */
static void report_changed(const struct sk__patch *p)
{
	const unsigned char *c = (const void *)p->addr;
	char where[512];

	sk__site_describe(sk__object_of(p->addr), p->addr, where, sizeof(where));
	sk__warn("refusing the update: site %s changed while it was being "
		 "planned (now %02x %02x %02x %02x %02x): another tool writes "
		 "this code; no site was changed", where, c[0], c[1], c[2], c[3],
		 c[4]);
}

/* The planned changes as batches of at most sk__batch_limit sites (all of
 * them in one batch by default). */
static int apply_batches(struct sk__patch *v, size_t n)
{
	size_t step = sk__batch_limit ? sk__batch_limit : n;

	for (size_t i = 0; i < n; i += step) {
		size_t changed = 0;
		int r = sk__patch_apply(v + i, n - i < step ? n - i : step,
					&changed);
		if (r == -EILSEQ)
			report_changed(&v[i + changed]);
		if (r)
			return r;
	}
	return 0;
}

static bool in_address_order(const struct patch_list *l)
{
	for (size_t i = 1; i < l->n; i++)
		if (l->v[i - 1].addr > l->v[i].addr)
			return false;
	return true;
}

static int apply_list(struct patch_list *l, int r)
{
	if (r == 0 && l->n) {
		/* Sites are planned in table order, which is address order in
		 * most objects: one key in one such object needs no sort. */
		if (!in_address_order(l))
			sk__sort(l->v, l->n, sizeof(*l->v), patch_addr_cmp);
		sk__objects_publish_traps();
		r = apply_batches(l->v, l->n);
	}
	if (l->v && l->v != l->inline_v) /* none planned: no call at all */
		sk__mem_free(l->v);
	return r;
}

/* No key has left its initial state while this is false: a key turns on or
 * off only through sk__update_locked() (key.c, the control plane's commits,
 * the start-up state), so until the first call every native site of an
 * object being registered already shows its key's state. */
static bool keys_ever_updated;

int sk__update_locked(const struct sk__key_target *targets, size_t n)
{
	return sk__update_with_locked(targets, n, NULL, 0);
}

int sk__update_with_locked(const struct sk__key_target *targets, size_t n,
			   const struct sk__patch *extra, size_t nextra)
{
	struct patch_list l = { .v = NULL };
	int r = 0;

	/* Static calls' trampolines (static_call.c), planned by their owner:
	 * in the same batch as the keys' sites. */
	for (size_t i = 0; i < nextra && r == 0; i++)
		r = list_push(&l, &extra[i]);

	keys_ever_updated = true;

	for (struct sk__object *o = sk__objects; o && r == 0; o = o->next) {
		for (size_t t = 0; t < n && r == 0; t++) {
			const uint32_t *idx;
			size_t ns;
			struct sk__site s;
			r = sk__object_key_sites(o, targets[t].key, &idx, &ns);
			for (size_t i = 0; i < ns && r == 0; i++) {
				sk__object_site(o, idx[i], &s);
				r = plan_site(&l, o, &s, targets[t].on);
			}
		}
	}
	/* Only updates are checked (keys, static calls): an object being
	 * registered is not running yet, so nobody can meet a changing site
	 * in it. */
	if (r == 0 && l.n)
		r = sk__arch_update_allowed();
	return apply_list(&l, r);
}

int sk__update_object_locked(struct sk__object *obj)
{
	struct patch_list l = { .v = NULL };
	int r = 0;

	const struct sk__site_entry *e = obj->sites_start;
	size_t n = keys_ever_updated || obj->nlinux ? obj->nentries : 0;

	for (size_t i = 0; i < n; i++) {
		const struct sk_key *key = sk__entry_key(&e[i]);
		if (!sk__key_is_valid(key))
			continue;
		/* A native site is compiled for its key's initial state (the
		 * key's type: statickeys/branch.h); like the kernel's modules,
		 * only sites of keys that are not in that state now change.
		 * A kernel-style one may be compiled for either (the old API's
		 * static_key_true() on a false key): it is always looked at.
		 * Relaxed: a key turns on or off only under the lock, held. */
		bool on = __atomic_load_n(&key->enabled, __ATOMIC_RELAXED) != 0;
		if (on == ((key->magic & SK__KEY_INIT_TRUE) != 0) &&
		    !((unsigned)e[i].flags & SK__SITE_LINUX_KEY))
			continue;
		struct sk__site s;
		sk__object_site(obj, i, &s);
		r = plan_site(&l, obj, &s, on);
		if (r)
			break;
	}
	return apply_list(&l, r);
}
