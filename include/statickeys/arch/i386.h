/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/i386.h - the 32-bit x86 (i686) site: one 5-byte instruction.
 *
 * Contract: as statickeys/arch/x86_64.h.  The site is either
 *   NOP5  3e 8d 74 26 00     (jump == 0; "lea %ds:0(%esi,%eiz,1),%esi",
 *                             the kernel's 32-bit 5-byte no-op, which every
 *                             i686 executes: NOPL is not on all of them), or
 *   JMP   e9 <rel32>         (jump == 1) to the "yes" label,
 * changed with the same int3 protocol as on x86-64 (src/arch/x86_64/).
 *
 * The key is named as on aarch64 (statickeys/arch/aarch64.h): i386 has no
 * data relocation that points at a GOT slot PC-relatively, and under
 * -fPIC/-fPIE a key's address is no "i" constant, so each site brings its
 * own 4-byte pointer to the key in ".data.rel.ro.sk_keyslots" (an R_386_32
 * the dynamic linker resolves to whichever object's key the symbol binds
 * to, read-only after relocation) and the entry's key field points at it
 * with R_386_PC32, a link-time constant.  The key operand prints as a bare
 * symbol (plus offset) with the constraints of statickeys/arch/x86_64.h.
 */
#ifndef STATICKEYS_ARCH_I386_H
#define STATICKEYS_ARCH_I386_H

#include "statickeys/arch/asm_goto.h"
#include "statickeys/arch/x86_operand.h"

#define SK__ARCH_SITE_SIZE 5

/* The instruction at local label 1 (with %c2: the initial direction). */
#define SK__ARCH_SITE_INSN SK__X86_SITE_INSN(".byte 0x3e, 0x8d, 0x74, 0x26, 0x00")

#define SK__ARCH_BRANCH(keyp, branch, jump)                                  \
	SK__ASM_GOTO_SITE(SK__ARCH_SITE_INSN                                 \
			  ".pushsection .data.rel.ro.sk_keyslots, \"aw?\"\n\t" \
			  ".balign 4\n"                                      \
			  "2:\t.long 0 + " SK__KEY_OPERAND "\n\t"           \
			  ".popsection\n\t"                                  \
			  SK__SITE_ENTRY("2b - ."),                          \
			  SK__KEY_CONSTRAINT(keyp), "i"(branch), "i"(jump))

#endif /* STATICKEYS_ARCH_I386_H */
