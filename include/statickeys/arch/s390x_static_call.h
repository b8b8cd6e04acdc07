/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * include/statickeys/arch/s390x_static_call.h - a static call's trampoline
 * on IBM Z (the runtime's side: src/arch/s390x/static_call.c).
 */
#ifndef STATICKEYS_ARCH_S390X_STATIC_CALL_H
#define STATICKEYS_ARCH_S390X_STATIC_CALL_H

#include "statickeys/arch/static_call_asm.h"

/*
 * s390x: 24 bytes at an 8-byte boundary.
 *   +0   brcl M, <dest>             the jump an update rewrites: M = 15 a
 *                                   direct jump (to a target within +-4
 *                                   GiB, or to +14/+18 below); M = 0 falls
 *                                   through to the far form, beyond that
 *                                   reach, before the runtime has seen the
 *                                   call, and while the offset changes
 *                                   (src/arch/s390x/batch.c)
 *   +6   lgrl %r1, desc.runtime     the far form: through the descriptor,
 *   +12  br %r1                     as the kernel's ftrace trampoline does
 *   +14  lghi %r2, 0                RET0 lands here
 *   +18  br %r14                    NULL lands here
 *   +20  'S' 'C' 0 0                signature, never executed
 * %r1 is free at a function's entry (the ABI's PLT stubs use it too).
 */
#define SK__SC_DEFINE_TRAMP(name)                                            \
	SK__SC_TRAMP_ASM(name, "8", "24",                                     \
		"brcl 0, 2f\n"                                                 \
		"2:\n\t"                                                       \
		"lgrl %r1, sk__scl_" #name " + " SK__SC_FAR_SLOT "\n\t"       \
		"br %r1\n\t"                                                   \
		"lghi %r2, 0\n\t"                                              \
		"br %r14\n\t"                                                  \
		".byte 0x53, 0x43, 0, 0\n\t")

#endif /* STATICKEYS_ARCH_S390X_STATIC_CALL_H */
