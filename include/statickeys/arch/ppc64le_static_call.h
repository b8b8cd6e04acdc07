/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * include/statickeys/arch/ppc64le_static_call.h - a static call's trampoline
 * on 64-bit little-endian Power, ELFv2 (the runtime's side:
 * src/arch/ppc64le/static_call.c).
 */
#ifndef STATICKEYS_ARCH_PPC64LE_STATIC_CALL_H
#define STATICKEYS_ARCH_PPC64LE_STATIC_CALL_H

#include "statickeys/arch/static_call_asm.h"

/*
 * ELFv2 gives each object its own TOC pointer (r2), which a function's
 * global entry point computes from r12 (its own address, as every
 * indirect or PLT call passes it) and its local entry point assumes.  A
 * trampoline may be reached with another object's r2 (through a pointer
 * or, exported, a PLT) and may lead to another object's function, so:
 *
 * - ".localentry 1": r2 is caller-saved for this function.  The linker
 *   gives each direct call of it from TOC code a stub that saves r2 in the
 *   caller's TOC save slot and turns the nop after the call into the load
 *   that restores it (GNU ld 2.40; gcc always emits that nop).
 * - it finds its own address (bcl 20,31 to the next instruction, the form
 *   branch predictors treat as no call) and sets r2 to its own object's TOC;
 * - the jump then goes straight to a target's local entry point only when
 *   that target uses the same TOC (the runtime reads the target's global
 *   entry code), else to the far form, which enters the target's global
 *   entry point with r12 = its address through the descriptor, as a PLT
 *   stub would.
 *
 * 64 bytes at a 64-byte boundary:
 *   +0   mflr r0; bcl 20,31,1f; 1: mflr r12; mtlr r0
 *   +16  addis r2,r12,(.TOC.-1b)@ha; addi r2,r2,(.TOC.-1b)@l
 *   +24  b <dest>                 the only word an update rewrites (one
 *                                 aligned store, as a key's site)
 *   +28  li r3,0                  RET0 lands here
 *   +32  blr                      NULL lands here
 *   +36  addis r12,r2,desc@toc@ha the far form: the descriptor's target
 *   +40  ld r12,desc@toc@l(r12)   (ld may turn the addis into a nop and
 *   +44  cmpldi r12,0              the ld's base into r2), entered at its
 *   +48  beqlr                     global entry point; none (a thread that
 *   +52  mtctr r12                 took the old jump to here while an
 *   +56  bctr                      update set no target): return
 *   +60  'S' 'C' 0 0              signature, never executed
 */
#define SK__SC_DEFINE_TRAMP(name)                                            \
	SK__SC_TRAMP_ASM(name, "64", "64",                                    \
		".localentry sk__sct_" #name ", 1\n\t"                        \
		"mflr 0\n\t"                                                   \
		"bcl 20, 31, 1f\n"                                             \
		"1:\n\t"                                                       \
		"mflr 12\n\t"                                                  \
		"mtlr 0\n\t"                                                   \
		"addis 2, 12, (.TOC. - 1b)@ha\n\t"                            \
		"addi 2, 2, (.TOC. - 1b)@l\n\t"                               \
		"b 2f\n\t"                                                     \
		"li 3, 0\n\t"                                                  \
		"blr\n"                                                        \
		"2:\n\t"                                                       \
		"addis 12, 2, sk__scl_" #name "@toc@ha\n\t"                   \
		"ld 12, sk__scl_" #name "@toc@l(12)\n\t"                       \
		"cmpldi 12, 0\n\t"                                             \
		"beqlr\n\t"                                                    \
		"mtctr 12\n\t"                                                 \
		"bctr\n\t"                                                     \
		".byte 0x53, 0x43, 0, 0\n\t")

#endif /* STATICKEYS_ARCH_PPC64LE_STATIC_CALL_H */
