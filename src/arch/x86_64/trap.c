/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/x86_64/trap.c - where a thread caught mid-update resumes: the
 * half of the trap handler that is the same on every OS.  The OS's trap
 * delivery (os/os.h) catches the trap, finds the address of the int3 and
 * calls sk__trap_resolve(), which it was given at sk__os_trap_init():
 * os/linux/trap_signal.c (a SIGTRAP handler) or os/windows/trap_veh.c (a
 * vectored exception handler).
 *
 * While a batch runs, the first byte of each changing site is int3.  A thread
 * that executes it traps; we look its address up in the batch (binary search
 * over the address-sorted vector, as the kernel's poke_int3_handler does) and
 * resume it at the site's *new* destination: the jump target, or the next
 * instruction.  The lookup takes no lock and calls nothing that is not
 * async-signal-safe.
 *
 * Memory the handler reads is protected by a reader count: the handler
 * increments it before loading a published pointer and decrements it when
 * done; a writer swaps the pointer, then waits for the count to reach zero
 * before freeing.  With sequentially consistent operations on both sides, a
 * handler that loaded the old pointer is counted before the writer looks.
 *
 * A trap can reach its handler after its batch retired (on Linux the
 * SIGTRAP is delivered when the thread next returns to user space, and it
 * may have been preempted in between).  Such a late trap finds no batch; if
 * the address is a known site (looked up in the registered objects' own
 * site tables, in place, or a static call's trampoline, known by its shape)
 * whose first byte is no longer int3, the thread simply re-executes the
 * (now complete) instruction.  Anything else is not
 * ours: the OS half hands it on.
 *
 * A static call's call site (a call, not a jump) resumes at its target
 * with its return address pushed: the OS half pushes what resolve says,
 * the kernel's int3_emulate_call.  Its late traps are found in the sorted
 * list of patched call sites (sk__trap_set_call_sites).
 *
 * Shadow stacks (x86 CET: Linux 6.6+, glibc 2.39+, a program whose every
 * object was built with -fcf-protection): `call` pushes its return address
 * on the ordinary stack and on the shadow stack, and `ret` faults unless
 * both agree.  Only `call` and the kernel write the shadow stack (the
 * kernel's uprobes emulate a call with shstk_push; user space has no such
 * write, WRSS is off), so a return address pushed here would kill the
 * thread at its target's `ret`.  Where the OS says a push would not be
 * accepted (sk__os_trap_can_push), a thread trapped at a call site of the
 * live batch is sent back to the int3 instead: it traps again, yielding
 * its CPU to the updater, until the batch has written the site's new first
 * byte, and then runs the new call itself, whose push both stacks get.
 * int3_batch.c keeps the updating thread's own signal handlers out of such
 * a batch, which they would wait on for ever.  A stuck call site (a failed
 * rollback, which never completes) cannot be resumed at all: its trap is
 * handed on.  Jumps push nothing (key sites, trampolines, tail calls): they
 * are emulated under a shadow stack as anywhere.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/x86_64.h"
#include "support/mem.h"
#include "support/stats.h"

struct trap_batch {
	const struct sk__patch *v;
	size_t n;
};

/* The registered objects' site tables (late traps); the first two words
 * are read by the gdb script (statickeys-gdb.py). */
struct site_index {
	struct sk__site_table *tables;
	size_t n;
};

static struct trap_batch batch_slot;
static struct trap_batch *live_batch;
static struct trap_batch *stuck; /* grows; shrinks when objects unload */
static struct site_index *live_sites;
/* The static calls' patched call sites, ascending (late traps). */
struct call_site_index {
	uintptr_t *v;
	size_t n;
};
static struct call_site_index *live_call_sites;
/* ... and for the gdb script, which reads the list the same way. */
SK_API struct call_site_index *const *const sk__debugger_call_sites =
	&live_call_sites;
static unsigned long readers;

/* Where the site tables are, for the gdb script installed with
 * the library (src/statickeys-gdb.py): gdb stops at a SIGTRAP before our
 * handler runs, and this is how the script tells our traps from others. */
SK_API struct site_index *const *const sk__debugger_sites = &live_sites;


static const struct sk__patch *batch_find(const struct trap_batch *b,
					  uintptr_t addr)
{
	size_t lo = 0, hi = b->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->v[mid].addr == addr)
			return &b->v[mid];
		if (b->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool table_has(const struct sk__site_table *t, uintptr_t addr)
{
	size_t lo = 0, hi = t->n;

	if (!t->sorted) {
		for (size_t i = 0; i < t->n; i++)
			if (sk__entry_code(&t->entries[i]) == addr)
				return true;
		return false;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uintptr_t code = sk__entry_code(&t->entries[mid]);
		if (code == addr)
			return true;
		if (code < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static bool index_has(const struct site_index *s, uintptr_t addr)
{
	for (size_t i = 0; i < s->n; i++)
		if (addr >= s->tables[i].lo && addr < s->tables[i].hi &&
		    table_has(&s->tables[i], addr))
			return true;
	return false;
}

static bool call_sites_have(uintptr_t addr)
{
	struct call_site_index *c = __atomic_load_n(&live_call_sites,
						    __ATOMIC_SEQ_CST);
	const uintptr_t *v = c ? c->v : NULL;
	size_t lo = 0, hi = c ? c->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] == addr)
			return true;
		if (v[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* One look: where to resume a thread that trapped at @addr, or 0 if not
 * ours (*@again: a batch may have been published meanwhile: look again;
 * *@rerun: a call that is not emulated: the thread runs the int3 again). */
static uintptr_t resolve_once(uintptr_t addr, uintptr_t *push, bool *again,
			      bool *rerun)
{
	struct trap_batch *b = __atomic_load_n(&live_batch, __ATOMIC_SEQ_CST);
	const struct sk__patch *p = b ? batch_find(b, addr) : NULL;
	struct trap_batch *st = __atomic_load_n(&stuck, __ATOMIC_SEQ_CST);
	bool live = p != NULL;

	if (!p && st)
		p = batch_find(st, addr);
	if (p && p->push && !sk__os_trap_can_push()) {
		*rerun = live; /* the shadow stack: see the top of the file */
		return live ? addr : 0;
	}
	if (p) {
		*push = p->push;
		return p->dest;
	}
	struct site_index *s = __atomic_load_n(&live_sites, __ATOMIC_SEQ_CST);
	/* A static call's trampoline is known by its shape (static_call.c):
	 * its jump is a site of no object's table. */
	if (!(s && index_has(s, addr)) && !sk__arch_call_slot(addr) &&
	    !call_sites_have(addr))
		return 0;
	if (*(volatile unsigned char *)addr != sk__arch_trap_byte)
		return addr; /* late trap: re-run the new insn */
	/* A late trap, and the next batch has already put its own int3 here
	 * after we found no live batch: that batch was published before it
	 * wrote, so looking again finds it. */
	*again = true;
	return 0;
}

uintptr_t sk__trap_resolve(uintptr_t addr, uintptr_t *push)
{
	uintptr_t resume = 0;
	bool again = true, rerun = false;

	__atomic_fetch_add(&readers, 1, __ATOMIC_SEQ_CST);
	for (int tries = 0; again && tries < 1000; tries++) {
		again = false;
		rerun = false;
		*push = 0;
		resume = resolve_once(addr, push, &again, &rerun);
	}
	__atomic_fetch_sub(&readers, 1, __ATOMIC_SEQ_CST);
	if (rerun) {
		sk__count(SK__C_CALLS_RERUN, 1);
		/* Outside the reader count, which the batch's end waits on:
		 * the updater's turn, as this thread would only trap again. */
		if (*(volatile unsigned char *)addr == sk__arch_trap_byte)
			sched_yield();
	}
	return resume;
}

static void wait_for_readers(void)
{
	while (__atomic_load_n(&readers, __ATOMIC_SEQ_CST) != 0)
		sched_yield();
}

void sk__trap_publish(const struct sk__patch *v, size_t n)
{
	batch_slot.v = v;
	batch_slot.n = n;
	__atomic_store_n(&live_batch, &batch_slot, __ATOMIC_SEQ_CST);
}

void sk__trap_retire(void)
{
	__atomic_store_n(&live_batch, NULL, __ATOMIC_SEQ_CST);
	wait_for_readers();
}

static int patch_cmp(const void *a, const void *b)
{
	uintptr_t x = ((const struct sk__patch *)a)->addr;
	uintptr_t y = ((const struct sk__patch *)b)->addr;

	return x < y ? -1 : x > y;
}

void sk__trap_add_stuck(const struct sk__patch *v, size_t n)
{
	struct trap_batch *old = stuck;
	size_t had = old ? old->n : 0;
	struct trap_batch *next = sk__mem_alloc(sizeof(*next));
	struct sk__patch *all = sk__mem_alloc((had + n) * sizeof(*all));

	if (!next || !all) {
		sk__mem_free(next);
		sk__mem_free(all);
		return;
	}
	if (had)
		memcpy(all, old->v, had * sizeof(*all));
	memcpy(all + had, v, n * sizeof(*all));
	sk__sort(all, had + n, sizeof(*all), patch_cmp);
	next->v = all;
	next->n = had + n;
	/* The old table is deliberately leaked: a handler may be reading it
	 * and this path is taken at most a handful of times. */
	__atomic_store_n(&stuck, next, __ATOMIC_SEQ_CST);
}

void sk__trap_forget_stuck(uintptr_t lo, uintptr_t hi)
{
	struct trap_batch *old = stuck, *next = NULL;
	size_t keep = 0;

	for (size_t i = 0; old && i < old->n; i++)
		keep += old->v[i].addr < lo || old->v[i].addr >= hi;
	if (!old || keep == old->n)
		return;
	struct sk__patch *v = keep ? sk__mem_alloc(keep * sizeof(*v)) : NULL;
	next = keep ? sk__mem_alloc(sizeof(*next)) : NULL;
	if (keep && (!v || !next)) {
		sk__mem_free(v);
		sk__mem_free(next);
		return; /* keep resolving them: wrong only if code is reused */
	}
	for (size_t i = 0, k = 0; i < old->n; i++)
		if (old->v[i].addr < lo || old->v[i].addr >= hi)
			v[k++] = old->v[i];
	if (next) {
		next->v = v;
		next->n = keep;
	}
	/* The range is being unmapped: other code may be mapped there next,
	 * whose own int3 must not be taken for one of these sites. */
	__atomic_store_n(&stuck, next, __ATOMIC_SEQ_CST);
	wait_for_readers();
	sk__mem_free((void *)old->v);
	sk__mem_free(old);
}

void sk__trap_set_sites(struct sk__site_table *tables, size_t n)
{
	struct site_index *next = NULL;

	if (tables) {
		next = sk__mem_alloc(sizeof(*next));
		if (!next) {
			sk__mem_free(tables);
		} else {
			next->tables = tables;
			next->n = n;
		}
	}
	struct site_index *old =
		__atomic_exchange_n(&live_sites, next, __ATOMIC_SEQ_CST);
	wait_for_readers();
	if (old) {
		sk__mem_free(old->tables);
		sk__mem_free(old);
	}
}

void sk__trap_set_call_sites(uintptr_t *v, size_t n)
{
	struct call_site_index *next = NULL;

	if (v) {
		next = sk__mem_alloc(sizeof(*next));
		if (!next) {
			sk__mem_free(v);
		} else {
			next->v = v;
			next->n = n;
		}
	}
	struct call_site_index *old =
		__atomic_exchange_n(&live_call_sites, next, __ATOMIC_SEQ_CST);
	wait_for_readers();
	if (old) {
		sk__mem_free(old->v);
		sk__mem_free(old);
	}
}

const struct sk__patch *sk__trap_live(size_t *n)
{
	struct trap_batch *b = __atomic_load_n(&live_batch, __ATOMIC_SEQ_CST);

	*n = b ? b->n : 0;
	return b ? b->v : NULL;
}

void sk__trap_after_fork_child(void)
{
	/* A parent thread may have been inside resolve() (a late trap) when
	 * fork() copied the count; that thread does not exist here. */
	__atomic_store_n(&readers, 0, __ATOMIC_SEQ_CST);
}

/* ---- the backend's hooks: trap delivery is the OS's (os/os.h) ----------- */

/* At start-up: the OS sets up its trap delivery, given where a trapped
 * thread resumes. */
void sk__arch_init(void)
{
	sk__os_trap_init(sk__trap_resolve);
}

void sk__arch_before_lock(void)
{
	sk__os_trap_before_lock();
}

/* A thread that cannot take the trap (x86 on Linux: one that blocks
 * SIGTRAP) would be killed by a changing site's int3: the OS says. */
int sk__arch_update_allowed(void)
{
	return sk__os_trap_update_allowed();
}
