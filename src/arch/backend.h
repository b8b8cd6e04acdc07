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
#include <stdbool.h>
#include <stdint.h>

#define SK__SITE_MAX 8 /* bytes; the largest site of any architecture */

/* sk__arch_site_size - bytes in one site. */
extern const unsigned sk__arch_site_size;

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

/* sk__arch_serialize_self - make this CPU refetch instructions (used where
 * membarrier does not serialise the caller, Linux < 5.11). */
void sk__arch_serialize_self(void);

#endif /* SK_ARCH_BACKEND_H */
