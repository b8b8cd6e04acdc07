/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/loongarch64.h - the loongarch64 site: one 4-byte
 * instruction.
 *
 * Contract: as statickeys/arch/aarch64.h.  The site is either
 *   NOP   03400000        (jump == 0; andi $r0, $r0, 0), or
 *   B     50000000|offs26 (jump == 1; to the "yes" label, +-128 MiB),
 * as the kernel's jump labels on LoongArch (arch/loongarch/include/asm/
 * jump_label.h).  Every LoongArch instruction is 4 bytes and 4-aligned, so
 * one aligned 32-bit store rewrites a site (src/arch/loongarch64/site.c).
 *
 * The key is named as on aarch64 and riscv64: each site has its own 8-byte
 * pointer to the key in ".data.rel.ro.sk_keyslots", and the entry's key
 * field points at it.  The key operand prints as a bare symbol (plus
 * offset): gcc and clang take a symbol's address as an "i" constant on
 * LoongArch even under -fPIC/-fPIE, and "i" refuses a key known only at
 * run time.
 */
#ifndef STATICKEYS_ARCH_LOONGARCH64_H
#define STATICKEYS_ARCH_LOONGARCH64_H

#include "statickeys/arch/asm_goto.h"

#define SK__ARCH_SITE_SIZE 4

/* The site instruction at 1:, a jump when %c2 (shared with the slot form). */
#define SK__ARCH_SITE_INSN                                                   \
	"1:\n\t"                                                             \
	".if %c2\n\t"                                                        \
	"b %l[sk__l_yes]\n\t"                                                \
	".else\n\t"                                                          \
	"nop\n\t"                                                            \
	".endif\n\t"

#define SK__ARCH_BRANCH(keyp, branch, jump)                                  \
	SK__ASM_GOTO_SITE(SK__ARCH_SITE_INSN                                 \
			  ".pushsection .data.rel.ro.sk_keyslots, \"aw?\"\n\t" \
			  ".balign 8\n"                                      \
			  "2:\t.quad %0\n\t"                                 \
			  ".popsection\n\t"                                  \
			  SK__SITE_ENTRY("2b - ."),                          \
			  "i"(keyp), "i"(branch), "i"(jump))

#endif /* STATICKEYS_ARCH_LOONGARCH64_H */
