/*
 * src/update.c - from key states to the sites that must change.
 *
 * For every target key, every object is asked for that key's sites (a binary
 * search in its (key, code)-sorted table).  A site whose instruction already
 * matches is skipped, so repeated or redundant updates write nothing.  A site
 * that holds neither of its two valid instructions is a bug or foreign
 * tampering: the whole update is refused before anything is written, naming
 * the site, as the kernel does when old bytes do not match.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct patch_list {
	struct sk__patch *v;
	size_t n, cap;
};

static int list_push(struct patch_list *l, const struct sk__patch *p)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct sk__patch *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *p;
	return 0;
}

/* Queue @site for direction @on if its code does not already show it. */
static int plan_site(struct patch_list *l, const struct sk__object *obj,
		     const struct sk__site *site, bool on)
{
	unsigned size = sk__arch_site_size;
	unsigned char nop[SK__SITE_MAX], jmp[SK__SITE_MAX];
	struct sk__patch p;
	bool jump = on ^ (site->branch != 0);

	sk__arch_encode(site->code, site->target, false, nop);
	sk__arch_encode(site->code, site->target, true, jmp);
	memcpy(p.old_insn, (const void *)site->code, size);
	memcpy(p.new_insn, jump ? jmp : nop, size);
	if (memcmp(p.old_insn, p.new_insn, size) == 0)
		return 0;
	if (memcmp(p.old_insn, jump ? nop : jmp, size) != 0) {
		sk__warn("site %p of key '%s' in %s holds unexpected bytes "
			 "(%02x %02x ...); refusing to patch",
			 (void *)site->code, site->key->name,
			 *obj->path ? obj->path : "the program", p.old_insn[0],
			 p.old_insn[1]);
		return -EILSEQ;
	}
	p.addr = site->code;
	p.dest = sk__arch_destination(site->code, p.new_insn);
	p.segment = sk__object_segment_of(obj, site->code);
	return list_push(l, &p);
}

static int patch_addr_cmp(const void *a, const void *b)
{
	uintptr_t x = ((const struct sk__patch *)a)->addr;
	uintptr_t y = ((const struct sk__patch *)b)->addr;

	return x < y ? -1 : x > y;
}

static int apply_list(struct patch_list *l, int r)
{
	if (r == 0 && l->n) {
		/* Tables are sorted by key, then address: a batch over one key
		 * in one object is already in order; merge the rest. */
		qsort(l->v, l->n, sizeof(*l->v), patch_addr_cmp);
		r = sk__patch_apply(l->v, l->n);
	}
	free(l->v);
	return r;
}

int sk__update_locked(const struct sk__key_target *targets, size_t n)
{
	struct patch_list l = { 0 };
	int r = 0;

	for (struct sk__object *o = sk__objects; o && r == 0; o = o->next) {
		for (size_t t = 0; t < n && r == 0; t++) {
			size_t ns;
			struct sk__site *s =
				sk__object_sites_of(o, targets[t].key, &ns);
			for (size_t i = 0; i < ns && r == 0; i++)
				r = plan_site(&l, o, &s[i], targets[t].on);
		}
	}
	/* Only key updates are checked: an object being registered is not
	 * running yet, so nobody can meet the int3 in its sites. */
	if (r == 0 && l.n && sk__arch_uses_trap) /* arch hook: x86 int3 only */
		r = sk__threads_check_sigtrap();
	return apply_list(&l, r);
}

int sk__update_object_locked(struct sk__object *obj)
{
	struct patch_list l = { 0 };
	int r = 0;

	for (size_t i = 0; i < obj->nsites && r == 0; i++) {
		const struct sk__site *s = &obj->sites[i];
		bool on = __atomic_load_n(&s->key->enabled, __ATOMIC_ACQUIRE) != 0;
		r = plan_site(&l, obj, s, on);
	}
	return apply_list(&l, r);
}
