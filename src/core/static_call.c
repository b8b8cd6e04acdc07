/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/core/static_call.c - static calls (statickeys/static_call.h): the
 * registry of descriptors, updates planned as trampoline jumps, and objects
 * that unload while they hold a target.
 *
 * A static call has a descriptor (its target, the pointer form's) and, on
 * x86-64, a trampoline: one jump that the update rewrites in the same batch
 * as key sites (update.c, sk__update_with_locked), so it gets the int3
 * protocol, its 3 core syncs and its trap emulation for free.  The
 * architecture encodes the jump (sk__arch_call_encode) and finds the slot
 * that the trampoline's far form reads (sk__arch_call_slot).
 *
 * The far form jumps through the descriptor's runtime field (the slot),
 * not its func: a thread that took the old jump to the far form may read
 * the slot after an update to NULL is over, so the slot never holds NULL
 * once the runtime has seen the call; it holds where the trampoline's own
 * NULL form returns (far_target).  An object built before that (its far
 * form reads func: the slot is func) keeps the old stores.
 *
 * What is stored when, so that a call lands in the old target or the new
 * one and never elsewhere, and a failed update changed nothing:
 *   - a jump to the far form (a target beyond rel32): the slot gets the
 *     target before the batch, since the new jump reads it;
 *   - everything else (the descriptor, the slot for other forms) only once
 *     the batch succeeded: until then calls take the old jump.
 * The pointer form is a store of the descriptor's target, under the lock.
 *
 * Registration (each definition's constructor) turns the trampoline, which
 * the header assembled in its far form, into the direct jump.  If that
 * cannot be done (no writer, a thread that blocks SIGTRAP, another tool's
 * bytes) the far form stays, which is correct, only slower.
 *
 * Where the object's link kept its relocations (-Wl,--emit-relocs), its
 * calls of the trampoline are found too (call_sites.c) and re-pointed in
 * the same batch: straight at the target when it is within their reach,
 * else (and for NULL and RET0, which the trampoline's own instructions
 * do) at the trampoline.  A call then costs a direct call.
 *
 * They are looked for at the static call's first update to another
 * target, not at registration: reading an object's relocations and writing
 * each call site alone (one pwrite each, the floor under W^X) cost 1 ms
 * of a start-up with 400 sites, four times the rest of it (experiment
 * 13c), and a static call that is never updated needs none of it: its
 * calls reach the target through the trampoline's direct jump.  Until
 * then sk_static_call_sites() says SK_CALL_SITES_PENDING, and counts none.
 */
#include <errno.h>
#include <string.h>

#include "core/core.h"
#include "support/mem.h"
#include "support/message.h"
#include "support/stats.h"

struct sk__call {
	struct sk__call *next;
	struct sk_static_call_key *key;
	uintptr_t tramp; /* where calls land (0: the pointer form) */
	uintptr_t jump;  /* what updates rewrite (sk__arch_call_jump) */
	void **slot;     /* what the far form reads; NULL: not patched here */
	unsigned char insn[SK__SITE_MAX]; /* the jump as last written/found */
	struct sk__call_site *sites; /* its calls re-pointed (call_sites.c) */
	size_t nsites;
	size_t nthrough; /* calls found that keep calling the trampoline */
	int why;         /* SK_CALL_SITES_*: what was found (skctl calls) */
	struct sk__image img; /* the trampoline's object, from registration */
	bool looked;          /* its call sites were looked for */
};

/* Every static call the runtime has seen; under the patch lock. */
static struct sk__call *calls;

SK_API long sk_static_call_return0(void)
{
	return 0;
}

static bool key_valid(const struct sk_static_call_key *k)
{
	return k && k->magic == SK__STATIC_CALL_MAGIC;
}

static struct sk__call *find(const struct sk_static_call_key *k)
{
	for (struct sk__call *c = calls; c; c = c->next)
		if (c->key == k)
			return c;
	return NULL;
}

/* The record of @k, made at its first sight (registration, or an update
 * from a constructor that ran before the definition's own). */
static struct sk__call *find_or_add(struct sk_static_call_key *k)
{
	struct sk__call *c = find(k);

	if (c)
		return c;
	c = sk__mem_alloc(sizeof(*c));
	if (!c)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->key = k;
	c->why = SK_CALL_SITES_NOT_PATCHED; /* until registration looks */
	c->tramp = (uintptr_t)k->tramp;
	if (c->tramp && sk__arch_site_size) {
		c->jump = sk__arch_call_jump(c->tramp);
		c->slot = sk__arch_call_slot(c->jump);
		if (c->slot)
			memcpy(c->insn, (const void *)c->jump,
			       sk__arch_site_size);
	}
	c->next = calls;
	calls = c;
	return c;
}

static void describe_refusal(const struct sk__call *c, const unsigned char *b)
{
	char bytes[SK__SITE_TEXT];

	sk__site_bytes(b, bytes);
	sk__warn("refusing to update static call '%s': its trampoline's "
		 "jump at %p holds %s, not the jump last written there%s; "
		 "nothing was changed", c->key->name, (void *)c->jump, bytes,
		 b[0] == sk__arch_trap_byte
			 ? " (a breakpoint: a debugger or uprobe has put its "
			   "int3 on it; remove it to update)"
			 : " (rewritten by another tool)");
}

static bool is_ret0(const void *func)
{
	return func == (const void *)&sk_static_call_return0;
}

static void describe_site_refusal(const struct sk__call *c, uintptr_t site)
{
	char bytes[SK__SITE_TEXT], where[512];
	const unsigned char *b = (const unsigned char *)site;

	sk__site_bytes(b, bytes);
	sk__site_describe(sk__object_of(site), site, where, sizeof(where));
	sk__warn("refusing to update static call '%s': its call site %s holds "
		 "%s, not the call last written there%s; nothing was changed",
		 c->key->name, where, bytes,
		 b[0] == sk__arch_trap_byte
			 ? " (a breakpoint: a debugger or uprobe has put its "
			   "int3 on it; remove it to update)"
			 : " (rewritten by another tool)");
}

static void free_sites(struct sk__call_change *ch)
{
	sk__mem_free(ch->sites);
	sk__mem_free(ch->site_of);
	ch->sites = NULL;
	ch->site_of = NULL;
	ch->nsites = 0;
}

static void add_call_sites(const struct sk__call *c);

/* Find @c's call sites (once; -ENOMEM is tried again at the next update).
 * Without the registration's object (an update from a constructor that
 * ran before the definition's own) there are none yet. */
static int look_for_sites(struct sk__call *c)
{
	if (c->looked || c->img.hi <= c->img.lo)
		return 0;
	int r = sk__call_sites_find_locked(c->tramp, &c->img, &c->sites,
					   &c->nsites, &c->nthrough, &c->why);
	if (r)
		return r;
	c->looked = true;
	/* Known to the trap handler before any of them is written. */
	if (c->nsites)
		add_call_sites(c);
	return 0;
}

/* Plan @c's call sites' move to @to (NULL: to the trampoline, which also
 * serves NULL and RET0), each straight there when it reaches, else to the
 * trampoline. */
static int plan_sites(struct sk__call *c, const void *to,
		      struct sk__call_change *out)
{
	unsigned size = sk__arch_site_size;
	const struct sk__object *obj = sk__object_of(c->tramp);

	if (!c->nsites)
		return 0;
	out->sites = sk__mem_alloc(c->nsites * sizeof(*out->sites));
	out->site_of = sk__mem_alloc(c->nsites * sizeof(*out->site_of));
	if (!out->sites || !out->site_of) {
		free_sites(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->nsites; i++) {
		const struct sk__call_site *s = &c->sites[i];
		uintptr_t dest = to ? (uintptr_t)to : c->tramp;
		unsigned char next[SK__SITE_MAX];
		if (memcmp((const void *)s->addr, s->insn, size) != 0) {
			describe_site_refusal(c, s->addr);
			free_sites(out);
			return -EILSEQ;
		}
		if (!sk__arch_call_site_encode(s->addr, s->insn, dest, next)) {
			dest = c->tramp; /* beyond its reach: the trampoline's */
			if (!sk__arch_call_site_encode(s->addr, s->insn, dest,
						       next))
				continue; /* found calling it: cannot be */
		}
		if (memcmp(next, s->insn, size) == 0)
			continue;
		struct sk__patch *p = &out->sites[out->nsites];
		p->addr = s->addr;
		p->dest = dest;
		p->push = sk__arch_call_site_return(s->addr, s->insn);
		p->segment = obj ? sk__object_segment_of(obj, s->addr) : NULL;
		memcpy(p->old_insn, s->insn, size);
		memcpy(p->new_insn, next, size);
		out->site_of[out->nsites++] = i;
	}
	return 0;
}

/* Plan @c's move to @func into @out (nothing stored yet). */
static int plan_one(struct sk__call *c, void *func, struct sk__call_change *out)
{
	unsigned size = sk__arch_site_size;
	unsigned char next[SK__SITE_MAX];

	out->call = c;
	out->old_func = __atomic_load_n(&c->key->func, __ATOMIC_RELAXED);
	out->new_func = func;
	out->patching = false;
	out->sites = NULL;
	out->site_of = NULL;
	out->nsites = 0;
	if (!c->slot)
		return 0;
	if (memcmp((const void *)c->jump, c->insn, size) != 0) {
		describe_refusal(c, (const unsigned char *)c->jump);
		return -EILSEQ;
	}
	/* A PE import thunk (or a bound PLT entry): jump where it leads, and
	 * know sk_static_call_return0 through another object's thunk. */
	const void *to = func ? sk__arch_call_follow(func) : NULL;
	bool ret0 = is_ret0(func) || is_ret0(to);
	/* The first update to another target takes the call sites over. */
	int r = func != out->old_func ? look_for_sites(c) : 0;
	if (r == 0)
		r = plan_sites(c, ret0 ? NULL : to, out);
	if (r)
		return r;
	sk__arch_call_encode(c->jump, to, ret0, next);
	if (memcmp(next, c->insn, size) == 0)
		return 0;
	struct sk__patch *p = &out->patch;
	const struct sk__object *obj = sk__object_of(c->jump);
	p->addr = c->jump;
	p->dest = sk__arch_destination(c->jump, next);
	p->push = 0;
	p->segment = obj ? sk__object_segment_of(obj, c->jump) : NULL;
	memcpy(p->old_insn, c->insn, size);
	memcpy(p->new_insn, next, size);
	out->patching = true;
	return 0;
}

/* What the far form's slot holds for target @func (above). */
static void *far_target(const struct sk__call *c, void *func)
{
	unsigned char null_jump[SK__SITE_MAX];

	if (func || c->slot == &c->key->func)
		return func;
	sk__arch_call_encode(c->jump, NULL, false, null_jump);
	/* Entered in the instruction set its symbol's address says: bit 0 of
	 * a trampoline's (always aligned) address is set for Thumb code only,
	 * and the far form's jump through the slot (LDR pc) obeys it. */
	return (void *)(sk__arch_destination(c->jump, null_jump) |
			(c->tramp & 1u));
}

/* The far form's slot: where the new jump leads there, before the batch. */
static bool to_far_form(const struct sk__call_change *ch)
{
	return ch->patching &&
	       ch->patch.dest == ch->call->jump + sk__arch_call_far;
}

static void store_early(struct sk__call_change *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (to_far_form(&v[i]))
			__atomic_store_n(v[i].call->slot, v[i].new_func,
					 __ATOMIC_RELEASE);
}

int sk__calls_plan_locked(const struct sk_static_call_change *v, size_t n,
			  struct sk__call_change *out)
{
	for (size_t i = 0; i < n; i++) {
		if (!key_valid(v[i].call))
			return -EINVAL;
		for (size_t j = 0; j < i; j++)
			if (v[j].call == v[i].call && v[j].func != v[i].func)
				return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		struct sk__call *c = find_or_add(v[i].call);
		int r = c ? plan_one(c, v[i].func, &out[i]) : -ENOMEM;
		if (r) {
			while (i-- > 0)
				free_sites(&out[i]);
			return r;
		}
	}
	/* A call named twice with the same target: plan its jumps once. */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			if (out[j].call == out[i].call) {
				out[i].patching = false;
				free_sites(&out[i]);
			}
	store_early(out, n);
	return 0;
}

void sk__calls_finish_locked(struct sk__call_change *v, size_t n, int r)
{
	for (size_t i = 0; i < n; i++) {
		struct sk__call *c = v[i].call;
		void *func = r == 0 ? v[i].new_func : v[i].old_func;
		if (r == 0 && v[i].patching)
			memcpy(c->insn, v[i].patch.new_insn, sk__arch_site_size);
		for (size_t k = 0; r == 0 && k < v[i].nsites; k++)
			memcpy(c->sites[v[i].site_of[k]].insn,
			       v[i].sites[k].new_insn, sk__arch_site_size);
		free_sites(&v[i]);
		if (c->slot)
			__atomic_store_n(c->slot, far_target(c, func),
					 __ATOMIC_RELEASE);
		else if (c->tramp)
			/* A trampoline this backend does not patch (the
			 * portable backend on x86-64): its far form, the
			 * only path, jumps through runtime. */
			__atomic_store_n(&c->key->runtime, func,
					 __ATOMIC_RELEASE);
		__atomic_store_n(&c->key->func, func, __ATOMIC_RELEASE);
	}
}

size_t sk__calls_patches(const struct sk__call_change *v, size_t n,
			 struct sk__patch *buf)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (v[i].patching && buf)
			buf[k] = v[i].patch;
		k += v[i].patching;
		if (buf && v[i].nsites)
			memcpy(buf + k, v[i].sites,
			       v[i].nsites * sizeof(*v[i].sites));
		k += v[i].nsites;
	}
	return k;
}

/* Plan, batch, finish: one locked update of @n static calls and no key. */
static int update_locked(const struct sk_static_call_change *v, size_t n)
{
	struct sk__call_change inline_ch[4];
	struct sk__patch inline_p[4], *p = NULL;
	struct sk__call_change *ch =
		n <= 4 ? inline_ch : sk__mem_alloc(n * sizeof(*ch));
	int r = ch ? 0 : -ENOMEM;

	if (r == 0)
		r = sk__calls_plan_locked(v, n, ch);
	if (r == 0) {
		size_t np = sk__calls_patches(ch, n, NULL);
		p = np <= 4 ? inline_p : sk__mem_alloc(np * sizeof(*p));
		if (p) {
			sk__calls_patches(ch, n, p);
			r = np ? sk__update_with_locked(NULL, 0, p, np) : 0;
		} else {
			r = -ENOMEM;
		}
		sk__calls_finish_locked(ch, n, r);
	}
	if (ch != inline_ch)
		sk__mem_free(ch);
	if (p != inline_p)
		sk__mem_free(p);
	return r;
}

/*
 * Every static call's call sites, sorted by address, for the trap handler
 * (late traps: arch/x86_64/trap.c).  Kept here, under the patch lock, and
 * merged with one call's sites as it registers (each call's come sorted:
 * core/call_sites.c), filtered as one unregisters: registering C calls of
 * N sites in all costs C merges of N, where a sort of everything at each
 * registration was half of the start-up of a program with 10 static calls
 * and 400 call sites (2.5 M of 4.4 M instructions).
 */
static uintptr_t *all_sites;
static size_t nall_sites;

/* A copy to the trap handler, which frees the one it had. */
static void publish_call_sites(void)
{
	uintptr_t *v = nall_sites ? sk__mem_alloc(nall_sites * sizeof(*v))
				  : NULL;

	if (v)
		memcpy(v, all_sites, nall_sites * sizeof(*v));
	/* Out of memory: late traps at call sites go unrecognized, as
	 * before any was found (a rare race, not a wrong resume). */
	sk__trap_set_call_sites(v, v ? nall_sites : 0);
}

static void add_call_sites(const struct sk__call *c)
{
	size_t n = nall_sites + c->nsites, i = 0, j = 0, k = 0;
	uintptr_t *v = sk__mem_alloc(n * sizeof(*v));

	if (!v)
		return;
	while (i < nall_sites || j < c->nsites)
		v[k++] = j == c->nsites ||
				 (i < nall_sites && all_sites[i] < c->sites[j].addr)
			       ? all_sites[i++]
			       : c->sites[j++].addr;
	sk__mem_free(all_sites);
	all_sites = v;
	nall_sites = n;
	publish_call_sites();
}

static void remove_call_sites(const struct sk__call *c)
{
	size_t k = 0;

	for (size_t i = 0, j = 0; i < nall_sites; i++) {
		while (j < c->nsites && c->sites[j].addr < all_sites[i])
			j++;
		if (j < c->nsites && c->sites[j].addr == all_sites[i])
			j++; /* one of @c's: dropped */
		else
			all_sites[k++] = all_sites[i];
	}
	nall_sites = k;
	publish_call_sites();
}

void sk__calls_pin_if_needed(const void *func)
{
	struct sk__image img;

	if (!func || is_ret0(func) || sk__os_in_program(func))
		return;
	/* Looked up before the lock: the OS's loader may take the dynamic
	 * linker's lock, as pinning does. */
	sk__os_image_of(func, &img);
	if (sk__lock() != 0)
		return;
	/* An object that registers tells us as it unloads. */
	bool told = sk__object_of((uintptr_t)func) ||
		    (img.hi > img.lo && sk__objects_quiet_in(img.lo, img.hi));
	sk__unlock();
	if (!told)
		sk__os_pin_image(func);
}

SK_API int sk__static_call_update(struct sk_static_call_key *key, void *func)
{
	if (!key_valid(key))
		return -EINVAL;
	uint64_t t0 = sk__now_ns();
	sk__calls_pin_if_needed(func);
	int r = sk__lock_update(0); /* pinning ran since t0 */
	if (r)
		return r;
	struct sk_static_call_change one = { key, func };
	r = update_locked(&one, 1);
	sk__count_held(r ? SK__C_UPDATE_ERRORS : SK__C_UPDATES, 1);
	sk__unlock_update(t0);
	return r;
}

void sk__calls_register(struct sk_static_call_key *key)
{
	struct sk__image img = { .path = "" };

	if (!key_valid(key)) {
		sk__warn("a static call registered with a descriptor that "
			 "SK_DEFINE_STATIC_CALL did not make; ignored");
		return;
	}
	/* The object holding the trampoline, for its call sites: asked of
	 * the loader before the lock. */
	if (key->tramp && sk__arch_call_site_before)
		sk__os_image_of((const void *)key->tramp, &img);
	if (sk__lock_from_loader() != 0)
		return; /* the far form stays: correct, one load slower */
	struct sk__call *c = find_or_add(key);
	if (c && c->slot && !c->looked && img.hi > img.lo)
		c->img = img; /* for its call sites, at its first update */
	if (c && c->slot) {
		struct sk_static_call_change here = {
			key, __atomic_load_n(&key->func, __ATOMIC_RELAXED) };
		(void)update_locked(&here, 1); /* its target: no call sites */
	}
	sk__unlock();
}

static void forget(struct sk__call **pp)
{
	struct sk__call *c = *pp;
	*pp = c->next;
	if (c->nsites)
		remove_call_sites(c);
	sk__mem_free(c->sites);
	sk__mem_free(c);
}

void sk__calls_unregister(struct sk_static_call_key *key)
{
	if (!key_valid(key) || sk__lock_from_loader() != 0)
		return;
	for (struct sk__call **pp = &calls; *pp; pp = &(*pp)->next)
		if ((*pp)->key == key) {
			forget(pp);
			break;
		}
	sk__unlock();
}

static bool in_range(const void *p, uintptr_t lo, uintptr_t hi)
{
	return (uintptr_t)p >= lo && (uintptr_t)p < hi;
}

/* Where a static call whose target is unloading goes: its defined target,
 * unless that unloads too; then nowhere (or "return 0" for RET0). */
static void *fallback(const struct sk_static_call_key *k, uintptr_t lo,
		      uintptr_t hi)
{
	if (!in_range(k->initial, lo, hi))
		return k->initial;
	return (k->flags & SK__STATIC_CALL_RET0)
		       ? (void *)&sk_static_call_return0
		       : NULL;
}

void sk__calls_object_leaving(uintptr_t lo, uintptr_t hi)
{
	sk__call_sites_forget_locked(lo, hi);
	for (struct sk__call **pp = &calls; *pp;) {
		if (in_range((*pp)->key, lo, hi))
			forget(pp);
		else
			pp = &(*pp)->next;
	}
	for (struct sk__call *c = calls; c; c = c->next) {
		void *f = __atomic_load_n(&c->key->func, __ATOMIC_RELAXED);
		if (!f || !in_range(f, lo, hi))
			continue;
		struct sk_static_call_change back = { c->key,
						      fallback(c->key, lo, hi) };
		int r = update_locked(&back, 1);
		if (r)
			sk__warn("static call '%s' still targets code that is "
				 "unloading (%s): a call through it will "
				 "crash", c->key->name, sk__strerror(-r));
	}
}

/* ---- the alternatives a program names (SK_STATIC_CALL_TARGET) ---------- */

/* Every registered alternative, newest first; under the patch lock. */
static struct sk_static_call_target *targets;

SK_API void sk__static_call_target_add(struct sk_static_call_target *t)
{
	if (!t || t->magic != SK__STATIC_CALL_MAGIC || !key_valid(t->call) ||
	    !t->label) {
		sk__warn("a static call target registered with a descriptor "
			 "that SK_STATIC_CALL_TARGET did not make; ignored");
		return;
	}
	if (sk__lock_from_loader() != 0)
		return;
	t->next = targets;
	targets = t;
	/* A static call with labelled targets is listed (skctl calls) even
	 * before its first update, where nothing else registers it (the
	 * Rust crate's pointer form). */
	(void)find_or_add(t->call);
	sk__unlock();
}

SK_API void sk__static_call_target_remove(struct sk_static_call_target *t)
{
	if (!t || sk__lock_from_loader() != 0)
		return;
	for (struct sk_static_call_target **pp = &targets; *pp;
	     pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	sk__unlock();
}

struct sk_static_call_key *sk__calls_next_locked(void **cursor)
{
	struct sk__call *c = *cursor ? ((struct sk__call *)*cursor)->next
				     : calls;

	*cursor = c;
	return c ? c->key : NULL;
}

const struct sk_static_call_target *sk__calls_targets_locked(void)
{
	return targets;
}

int sk__calls_find_locked(const char *name, size_t len,
			  struct sk_static_call_key **out)
{
	*out = NULL;
	for (struct sk__call *c = calls; c; c = c->next) {
		if (strlen(c->key->name) != len ||
		    memcmp(c->key->name, name, len) != 0)
			continue;
		if (*out)
			return -EEXIST;
		*out = c->key;
	}
	return *out ? 0 : -ENOENT;
}

SK_API int sk_static_call_sites_of(const struct sk_static_call_key *key,
				   struct sk_static_call_sites *out)
{
	if (!out || !key_valid(key))
		return -EINVAL;
	int r = sk__lock();
	if (r)
		return r;
	r = sk__calls_sites_locked(key, out);
	sk__unlock();
	return r;
}

int sk__calls_sites_locked(const struct sk_static_call_key *key,
			   struct sk_static_call_sites *out)
{
	const struct sk__call *c = find(key);

	memset(out, 0, sizeof(*out));
	out->why = SK_CALL_SITES_NOT_PATCHED;
	if (!c) /* the pointer form need not register (Rust's): no sites */
		return key->tramp ? -ENOENT : 0;
	if (!c->looked && c->img.hi > c->img.lo) {
		out->why = SK_CALL_SITES_PENDING; /* looked for at the first
						   * update, not counted yet */
		return 0;
	}
	out->direct = c->nsites;
	out->trampoline = c->nthrough;
	out->why = c->why;
	return 0;
}

int sk__calls_update_locked(struct sk_static_call_key *key, void *func)
{
	struct sk_static_call_change one = { key, func };
	int r = update_locked(&one, 1);

	sk__count_held(r ? SK__C_UPDATE_ERRORS : SK__C_UPDATES, 1);
	return r;
}
