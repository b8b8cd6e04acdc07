/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/riscv64.h - the riscv64 site: one 4-byte instruction.
 *
 * Contract: as statickeys/arch/aarch64.h.  The site is either
 *   NOP   00000013        (jump == 0; addi x0, x0, 0), or
 *   JAL   x0, imm20       (jump == 1; "j" to the "yes" label, +-1 MiB),
 * assembled under ".option norvc" so neither is ever compressed to 2 bytes,
 * and aligned to 4 so one aligned 32-bit store rewrites it (".balign 4"
 * comes first, while compressed instructions are still allowed: the
 * padding may need a 2-byte c.nop).  The linker refuses a "j" beyond its
 * reach (R_RISCV_JAL); a site assembled as NOP is checked when its key
 * changes, before anything is written (src/arch/common/store_batch.c).
 *
 * The key is named as on aarch64: each site has its own 8-byte pointer to
 * the key in ".data.rel.ro.sk_keyslots", and the entry's key field points
 * at it.  The key operand prints as a bare symbol (plus offset): gcc and
 * clang take a symbol's address as an "i" constant on riscv even under
 * -fPIC/-fPIE (gcc 12's "S" refuses global symbols there), and "i" refuses
 * a key known only at run time.
 */
#ifndef STATICKEYS_ARCH_RISCV64_H
#define STATICKEYS_ARCH_RISCV64_H

#include "statickeys/arch/asm_goto.h"

#define SK__ARCH_SITE_SIZE 4

/* The instruction at local label 1, in its own ".option norvc" scope. */
#define SK__ARCH_SITE_INSN                                                     \
	".balign 4\n\t"                                                      \
	".option push\n\t"                                                   \
	".option norvc\n"                                                    \
	"1:\n\t"                                                             \
	".if %c2\n\t"                                                        \
	"j %l[sk__l_yes]\n\t"                                                \
	".else\n\t"                                                          \
	"nop\n\t"                                                            \
	".endif\n\t"                                                         \
	".option pop\n\t"

#define SK__ARCH_BRANCH(keyp, branch, jump)                                  \
	SK__ASM_GOTO_SITE(SK__ARCH_SITE_INSN                                   \
			  ".pushsection .data.rel.ro.sk_keyslots, \"aw?\"\n\t" \
			  ".balign 8\n"                                      \
			  "2:\t.quad %0\n\t"                                 \
			  ".popsection\n\t"                                  \
			  SK__SITE_ENTRY("2b - ."),                          \
			  "i"(keyp), "i"(branch), "i"(jump))

#endif /* STATICKEYS_ARCH_RISCV64_H */
