/*
 * src/arch/backend.h - what an architecture provides to the runtime.
 *
 * One file per architecture implements these (src/arch/x86_64.c, ...); the
 * rest of the runtime never looks at instruction bytes or signal contexts.
 * All functions are called with the patch lock held unless noted; the trap
 * functions run inside a signal handler and must be async-signal-safe.
 */
#ifndef SK_ARCH_BACKEND_H
#define SK_ARCH_BACKEND_H

#include <signal.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#define SK__SITE_MAX 8 /* bytes; the largest site of any architecture */

/* sk__arch_site_size - bytes in one site. */
extern const unsigned sk__arch_site_size;

/* sk__arch_uses_trap - true: a live site is changed with the trap protocol
 * of patch.c (x86-64: int3, three writes, three core syncs per batch).
 * false: the architecture lets one aligned store of the whole instruction
 * change a site that other threads are executing (aarch64: B <-> NOP); the
 * batch then goes to sk__arch_patch_direct(), no SIGTRAP handler is
 * installed and no thread's signal mask matters. */
extern const bool sk__arch_uses_trap;

/* sk__arch_trap_insn - the instruction byte(s) that trap (x86: int3, 0xcc);
 * written over the first byte of a site while it changes. */
extern const unsigned char sk__arch_trap_byte;

/* sk__arch_encode - the site instruction at @addr: a jump to @target when
 * @jump, else a no-op. Writes sk__arch_site_size bytes to @out. */
void sk__arch_encode(uintptr_t addr, uintptr_t target, bool jump,
		     unsigned char *out);

/* sk__arch_destination - where the site instruction @insn at @addr leads. */
uintptr_t sk__arch_destination(uintptr_t addr, const unsigned char *insn);

/* sk__arch_trap_address - for a SIGTRAP, the address of the trapping site
 * if it was a breakpoint instruction, else 0.  Signal context. */
uintptr_t sk__arch_trap_address(const siginfo_t *info, const void *ucontext);

/* sk__arch_set_pc - resume the interrupted thread at @pc.  Signal context. */
void sk__arch_set_pc(void *ucontext, uintptr_t pc);

/* sk__arch_tlb_ipi_serialises - sync.c's fallback (revoking write access
 * to a page) makes the kernel interrupt every CPU running the process, and
 * the return from that interrupt serialises it (x86-64).  false where TLBs
 * are invalidated by broadcast instructions without interrupts (aarch64):
 * the fallback then serialises no other CPU. */
extern const bool sk__arch_tlb_ipi_serialises;

/* sk__arch_serialize_self - make this CPU refetch instructions (used where
 * membarrier does not serialise the caller, Linux < 5.11). */
void sk__arch_serialize_self(void);

/* sk__arch_patch_direct - for !sk__arch_uses_trap: apply @n site changes
 * (struct sk__patch, sorted by address) with one aligned store each, clean
 * the caches for them and make every thread serialise once per batch.
 * Return: 0 or -errno; on error every site holds its old instruction. */
struct sk__patch;
int sk__arch_patch_direct(struct sk__patch *patches, size_t n);

#endif /* SK_ARCH_BACKEND_H */
