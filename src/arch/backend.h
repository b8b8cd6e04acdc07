/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/backend.h - the porting contract: what an architecture provides
 * to the runtime.
 *
 * One folder per architecture implements it (src/arch/x86_64/, ...), with
 * what several share in arch/common/ (the store protocol, the no-op trap
 * half); the rest of the runtime never looks at instruction bytes.  Nothing
 * here names an OS type: how a trap reaches the runtime is the OS's (os/os.h,
 * "trap delivery"), which hands the architecture a trapping address and
 * asks where the thread resumes.
 * To port: the site macro in include/statickeys/arch/<arch>.h (one
 * instruction, a jump or a no-op, and its sk_sites entry), then these:
 *
 *   site primitives   size, encoding, destination, serialise self.
 *                     Leaves: they call nothing; runtime.c hands
 *                     sk__arch_serialize_self to the OS's core sync.
 *   batch protocol    sk__patch_apply(): rewrite a batch of sites safely while
 *                     other threads run them, with the OS layer's writer and
 *                     core sync (x86-64: the int3 protocol, 3 syncs; an
 *                     architecture whose jump <-> no-op change is atomic for
 *                     concurrent execution: store, flush, 1 sync).
 *   update admission  sk__arch_update_allowed(): may this update run, given
 *                     the process's threads (x86-64: can every thread take
 *                     the trap; the OS's trap delivery says).
 *   traps             the trap index and stuck sites (no-ops without traps).
 *   fork              sk__arch_after_fork_child().
 *
 * All functions are called with the patch lock held unless noted; return 0
 * or a negative errno; the trap functions run inside a signal handler (or
 * its like) and must be async-signal-safe.  docs/porting.md has the whole story.
 */
#ifndef SK_ARCH_BACKEND_H
#define SK_ARCH_BACKEND_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "os/os.h"
#include "statickeys/object.h"

#define SK__SITE_MAX 8 /* bytes; the largest site of any architecture */

/* sk__arch_name - the backend's name, as sk_stats reports it: the folder
 * under arch/ ("x86_64", "aarch64", ...; "portable" patches nothing). */
extern const char sk__arch_name[];

/* sk__arch_site_size - bytes in one site; 0 where sites are not patched
 * (arch/portable/: objects then register keys only). */
extern const unsigned sk__arch_site_size;

/* sk__arch_trap_byte - the instruction byte that traps (x86: int3, 0xcc);
 * written over the first byte of a site while it changes. */
extern const unsigned char sk__arch_trap_byte;

/* sk__arch_encode - the site instruction at @addr: a jump to @target when
 * @jump, else a no-op. Writes sk__arch_site_size bytes to @out. */
void sk__arch_encode(uintptr_t addr, uintptr_t target, bool jump,
		     unsigned char *out);

/* sk__arch_destination - where the site instruction @insn at @addr leads. */
uintptr_t sk__arch_destination(uintptr_t addr, const unsigned char *insn);

/* sk__arch_tlb_ipi_serialises - os/linux/sync.c's fallback (revoking write access
 * to a page) makes the kernel interrupt every CPU running the process, and
 * the return from that interrupt serialises it (x86-64).  false where TLBs
 * are invalidated by broadcast instructions without interrupts (aarch64):
 * the fallback then serialises no other CPU. */
extern const bool sk__arch_tlb_ipi_serialises;

/* sk__arch_serialize_self - make this CPU refetch instructions (used where
 * membarrier does not serialise the caller, Linux < 5.11: runtime.c gives
 * it, and sk__arch_tlb_ipi_serialises, to sk__os_sync_init). */
void sk__arch_serialize_self(void);


/* ==== The batch protocol ================================================= */

/* sk__patch - one site change, planned by the core. */
struct sk__patch {
	uintptr_t addr;
	uintptr_t dest; /* where a trapped thread resumes: the new direction */
	/* A static call's call site (sk__arch_call_site): what a trapped
	 * thread's emulated call pushes, its return address; 0: nothing. */
	uintptr_t push;
	const struct sk__segment *segment; /* NULL: write this site alone */
	unsigned char old_insn[SK__SITE_MAX];
	unsigned char new_insn[SK__SITE_MAX];
};

/* sk__patch_apply - apply @n changes sorted by address as one batch, safely
 * while other threads run them, with the OS layer's writer and core sync.
 * Return: 0 or -errno; on error every site holds its old instruction again.
 * -EILSEQ: site *@changed no longer holds old_insn (another tool wrote it
 * since it was planned); nothing was written. */
int sk__patch_apply(struct sk__patch *patches, size_t n, size_t *changed);

/* sk__arch_update_allowed - before a key update's batch: 0, or -EBUSY (with
 * a message naming it) if some thread would not survive the protocol (x86:
 * a thread that blocks SIGTRAP would be killed by a changing site's int3).
 * Architectures without a trap protocol return 0. */
int sk__arch_update_allowed(void);

/* ==== The store protocol (arch/common/store_batch.c) =====================
 * For architectures whose jump <-> no-op change is one aligned store that
 * concurrent execution sees whole (aarch64, riscv64): the batch is a store
 * per site, a flush, one sync.  These hooks are what differs. */

/* sk__arch_reaches - a site at @addr can jump to @target (aarch64's B
 * reaches +-128 MiB, riscv64's JAL +-1 MiB); a batch with a jump beyond is
 * refused, -ERANGE, before anything is written. */
bool sk__arch_reaches(uintptr_t addr, uintptr_t target);
/* sk__arch_flush_site - after one site's store (aarch64: clean and
 * invalidate its cache lines; riscv64: nothing, the batch sync does it). */
void sk__arch_flush_site(uintptr_t addr, size_t len);
/* sk__arch_sync_batch - after all stores of the sites in [@lo, @hi): every
 * CPU running our threads fetches the new instructions.  Counted as one
 * core sync.  Return: 0 or -errno. */
int sk__arch_sync_batch(uintptr_t lo, uintptr_t hi);

/* ==== Static calls (arch/<arch>/static_call.c; arch/common/no_trampolines.c)
 * A static call's trampoline (statickeys/static_call.h) is code the header
 * assembled: one site-sized jump that updates rewrite with the batch
 * protocol, then what its targets need (return, return 0, a far jump
 * through a slot).  Where there are no trampolines the core only stores
 * the target, which the call sites load. */

/* sk__arch_call_jump - where the jump that updates rewrite lies in the
 * trampoline at @tramp (its symbol: where calls land): @tramp, or past an
 * x86-64 trampoline's endbr64 (one built for IBT, -fcf-protection).  The
 * hooks below take that address. */
uintptr_t sk__arch_call_jump(uintptr_t tramp);
/* sk__arch_call_slot - the slot that the trampoline whose jump is at @jump
 * reads in its far form, or NULL if @jump is not a trampoline's that this
 * backend patches (its shape is checked: another tool's bytes, or a header
 * of another backend, are left alone).  Async-signal-safe (reads the
 * trampoline's own bytes). */
void **sk__arch_call_slot(uintptr_t jump);
/* sk__arch_call_encode - the trampoline's jump (at @jump) for target
 * @func: straight to it when the jump reaches, else to the far form; NULL:
 * to its return, @ret0: to its "return 0".  Writes sk__arch_site_size
 * bytes to @out. */
void sk__arch_call_encode(uintptr_t jump, const void *func, bool ret0,
			  unsigned char *out);
/* sk__arch_call_far - where the trampoline's far form starts, from its
 * jump (the jump that leads there first reads the slot, which must then
 * hold the target already); 0 where there are no trampolines. */
extern const unsigned sk__arch_call_far;
/* sk__arch_call_follow - where a call to @func really goes when @func is
 * only a jump through a pointer (x86-64: a PE import thunk, a resolved
 * ELF PLT entry, "jmp *ptr(%rip)"): the trampoline jumps there directly.
 * @func otherwise. */
const void *sk__arch_call_follow(const void *func);

/* ---- Call sites (the kernel's inline static calls) ----------------------
 * Where an object's link kept the relocations of its code, each direct
 * call or tail jump to a trampoline is found (os/os.h, sk__os_text_relocs)
 * and re-pointed at the target itself, in the same batch as the
 * trampoline (x86-64; elsewhere none is found, and calls go through the
 * trampoline). */

/* sk__arch_call_site_before - the bytes of a call site's instruction before
 * its relocated field (x86: the opcode); 0 where none are patched. */
extern const unsigned sk__arch_call_site_before;
/* sk__arch_call_site_got_before - the same for a call or jump through the
 * GOT (x86-64: ff 15 / ff 25, 2); 0 where none is read. */
extern const unsigned sk__arch_call_site_got_before;
/* sk__arch_call_reloc - whether a relocation of this @kind (the object
 * format's reader classifies it: os/os.h, enum sk__os_reloc_kind) and
 * @addend fills a direct call's or jump's offset (x86-64: a 32-bit
 * pc-relative field, addend -4: SK__CALL_DIRECT), or the displacement of
 * a call or jump through the GOT (its GOT entry's, addend -4:
 * SK__CALL_GOT; rustc calls a function it did not compile, such as a
 * trampoline its macro assembled, that way). */
enum sk__call_reloc { SK__CALL_NONE, SK__CALL_DIRECT, SK__CALL_GOT };
enum sk__call_reloc sk__arch_call_reloc(enum sk__os_reloc_kind kind,
					int64_t addend);
/* sk__arch_call_site - the field at @field is the offset of a direct call
 * or jump (x86-64: e8/e9 rel32): the instruction's address into *@site and
 * where it goes now into *@dest.  Reads the bytes around @field. */
bool sk__arch_call_site(uintptr_t field, uintptr_t *site, uintptr_t *dest);
/* sk__arch_call_site_got - the field at @field is the displacement of a
 * call or jump through a pointer (x86-64: ff 15 / ff 25 disp32, the
 * pointer at the field's end + disp32): the pointer's value into *@dest.
 * Reads the bytes around @field and the pointer. */
bool sk__arch_call_site_got(uintptr_t field, uintptr_t *dest);
/* sk__arch_call_site_direct - make that call or jump a direct one to where
 * its pointer leads now (x86-64: 90 e8/e9 rel32, what a linker's GOT
 * relaxation writes), written whole: only while nothing else can run it
 * (one thread, a writer that writes in one system call; the caller says),
 * and the caller syncs the cores (once for all it made) before it runs.
 * Afterwards sk__arch_call_site() finds it at @field.  Return: 0 or -errno
 * (-ERANGE: out of rel32's reach), the code unchanged on error. */
int sk__arch_call_site_direct(uintptr_t field);
/* sk__arch_call_site_encode - the call site at @site, holding @old, made to
 * go to @to, into @out (sk__arch_site_size bytes).  Return: false if it
 * cannot reach @to. */
bool sk__arch_call_site_encode(uintptr_t site, const unsigned char *old,
			       uintptr_t to, unsigned char *out);
/* sk__arch_call_site_return - the return address that the call at @site
 * (holding @insn) pushes, which a thread trapped there must find on its
 * stack; 0 for a jump (it pushes nothing). */
uintptr_t sk__arch_call_site_return(uintptr_t site, const unsigned char *insn);

/* ==== Traps (architectures whose protocol traps; no-ops elsewhere) ======== */

/* sk__entry_code - the address of the site an entry records (the entry's
 * fields are relative to themselves: statickeys/arch/<arch>.h). */
static inline uintptr_t sk__entry_code(const struct sk__site_entry *e)
{
	return (uintptr_t)&e->code + (uintptr_t)(intptr_t)e->code;
}

/* sk__site_table - one registered object's site entries, read where the
 * linker left them (no copy): the trap handler's answer to "is this address
 * a site?" for traps that arrive after their batch retired.  Searched by
 * halves when @sorted (entries ascend by site address, the usual layout:
 * compilers and linkers emit sites in code order), else read through (such
 * traps are rare: a thread preempted between its trap and the signal).
 * All fields are machine words, in this order: the gdb script
 * (statickeys-gdb.py) reads them. */
struct sk__site_table {
	uintptr_t lo, hi; /* the object's address span */
	const struct sk__site_entry *entries;
	size_t n;
	size_t sorted; /* 1: ascending site addresses */
};

/* sk__trap_set_sites - the site tables of all registered objects, for traps
 * that arrive after their batch retired; returns once no handler can still
 * be reading the previous ones.  Takes ownership of @tables (malloc'd). */
void sk__trap_set_sites(struct sk__site_table *tables, size_t n);
/* sk__trap_forget_stuck - drop stuck sites in [@lo, @hi), an object that is
 * being unloaded; returns once no handler can still be reading them. */
void sk__trap_forget_stuck(uintptr_t lo, uintptr_t hi);
/* sk__trap_set_call_sites - the static calls' patched call sites, sorted
 * (@v malloc'd: taken over), for traps that arrive after their batch
 * retired; returns once no handler can still be reading the previous. */
void sk__trap_set_call_sites(uintptr_t *v, size_t n);


/* sk__arch_init - once, before the first registration (runtime.c): what
 * the backend sets up at start-up (x86: the OS's trap delivery, told where
 * a trapped thread resumes). */
void sk__arch_init(void);

/* sk__arch_before_lock - before sk__lock() takes the patch lock for an update
 * (not from a registration, which runs in the dynamic linker's constructors):
 * whatever the backend must ask the dynamic linker before any of its work
 * under that lock (x86: the OS trap delivery's, such as Linux's signal-mask
 * wrappers' lookups, which its trap handler's installation may need), since nothing may call into the
 * dynamic linker while holding the patch lock. */
void sk__arch_before_lock(void);

/* sk__arch_after_fork_child - in a fork child: forget what named the
 * parent's threads (trap handler readers; the OS trap delivery's thread
 * descriptors). */
void sk__arch_after_fork_child(void);

#endif /* SK_ARCH_BACKEND_H */
