/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * include/statickeys/arch/x86_64_static_call.h - a static call's trampoline
 * on x86-64, Linux and Windows, with endbr64 when built for IBT (the
 * runtime's side: src/arch/x86_64/static_call.c).
 */
#ifndef STATICKEYS_ARCH_X86_64_STATIC_CALL_H
#define STATICKEYS_ARCH_X86_64_STATIC_CALL_H

#include "statickeys/arch/static_call_asm.h"

/*
 * x86-64 (Linux and Windows): 16 bytes at a 16-byte boundary:
 *   +0   e9 rel32        the jump that updates rewrite (the only bytes)
 *   +5   31 c0           xor eax, eax   (RET0 lands here: returns 0)
 *   +7   c3              ret            (NULL lands here: returns)
 *   +8   ff 25 rel32     jmp *descriptor.runtime(%rip)   (the far form)
 *   +14  'S' 'C'         signature (never executed), as the kernel's "SCT"
 * Assembled pointing at +8, so that calls before the runtime has seen it
 * (other constructors) reach the descriptor's target; registration turns
 * it into the direct jump.
 *
 * Built for IBT (-fcf-protection=branch or full: __CET__ bit 0), the
 * object is marked as having an endbr64 at every place an indirect call or
 * jump may land, and a trampoline is one: another object calls an exported
 * one through its PLT, rustc through the GOT, a program may take its
 * address.  So it starts with endbr64, and the same 16 bytes follow it:
 * 20 bytes at a 32-byte boundary (the runtime reads a trampoline from
 * its jump, and both shapes lie within one aligned block: one page).
 */
#if defined(__CET__) && (__CET__ & 1)
#define SK__SC_X86_ENDBR ".byte 0xf3, 0x0f, 0x1e, 0xfa\n\t"
#define SK__SC_X86_ALIGN "32"
#define SK__SC_X86_SIZE "20"
#else
#define SK__SC_X86_ENDBR ""
#define SK__SC_X86_ALIGN "16"
#define SK__SC_X86_SIZE "16"
#endif
#define SK__SC_DEFINE_TRAMP(name)                                            \
	SK__SC_TRAMP_ASM(name, SK__SC_X86_ALIGN, SK__SC_X86_SIZE,             \
		SK__SC_X86_ENDBR                                               \
		".byte 0xe9\n\t.long 3\n\t"                                   \
		".byte 0x31, 0xc0, 0xc3\n\t"                                  \
		".byte 0xff, 0x25\n\t.long sk__scl_" #name " + " SK__SC_FAR_SLOT   \
		" - (. + 4)\n\t"   \
		".byte 0x53, 0x43\n\t")

#endif /* STATICKEYS_ARCH_X86_64_STATIC_CALL_H */
