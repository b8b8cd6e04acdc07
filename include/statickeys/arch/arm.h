/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/arm.h - the 32-bit Arm site (ARMv7, Thumb-2 code, as
 * Debian's armhf compiles it): one 4-byte instruction at a 4-byte boundary.
 *
 * Contract: as statickeys/arch/aarch64.h.  The site is, as the kernel's
 * jump labels on arm in Thumb-2 kernels (arch/arm/include/asm/
 * jump_label.h, arch/arm/kernel/jump_label.c), either
 *   NOP.W   f3af 8000          (jump == 0), or
 *   B.W     f000 9000|imm      (jump == 1: encoding T4, +-16 MiB)
 * to the "yes" label.  Both are 32-bit Thumb-2 instructions, two halfwords;
 * the ".balign 4" before the site puts both halfwords in one aligned word,
 * so that one aligned 32-bit store rewrites it whole (the case the Arm
 * architecture's rule on concurrent modification allows; a 32-bit
 * instruction straddling two words cannot arise: src/arch/arm/site.c).  The
 * alignment costs a 16-bit NOP before the site where the code was 2 mod 4.
 *
 * Arm-state code (-marm) gets no patched site: the portable form
 * (statickeys/arch/generic.h; statickeys/branch.h chooses).
 *
 * The key is named as on aarch64: each site has its own 4-byte pointer to
 * the key in ".data.rel.ro.sk_keyslots", and the entry's key field points
 * at it.  gcc refuses "i" for a symbol's address in position-independent
 * code on arm, and its "X" breaks on keys of internal linkage at -O2
 * (section anchors turn the address into an anchor register and offset);
 * its "US" (a symbol reference) takes every key of this API, which is
 * always the first member of its variable.  clang takes "i".
 */
#ifndef STATICKEYS_ARCH_ARM_H
#define STATICKEYS_ARCH_ARM_H

#include "statickeys/arch/asm_goto.h"

#define SK__ARCH_SITE_SIZE 4

#if defined(__clang__)
#define SK__ARM_SYM "i"
#else
#define SK__ARM_SYM "US"
#endif

/* The site instruction at 1:, 4-aligned, a jump when %c2 (shared with
 * arm_slot.h). */
#define SK__ARCH_SITE_INSN                                                   \
	".balign 4\n"                                                        \
	"1:\n\t"                                                             \
	".if %c2\n\t"                                                        \
	"b.w %l[sk__l_yes]\n\t"                                              \
	".else\n\t"                                                          \
	"nop.w\n\t"                                                          \
	".endif\n\t"

#define SK__ARCH_BRANCH(keyp, branch, jump)                                  \
	SK__ASM_GOTO_SITE(SK__ARCH_SITE_INSN                                 \
			  ".pushsection .data.rel.ro.sk_keyslots, \"aw?\"\n\t" \
			  ".balign 4\n"                                      \
			  "2:\t.long %c0\n\t"                                \
			  ".popsection\n\t"                                  \
			  SK__SITE_ENTRY("2b - ."),                          \
			  SK__ARM_SYM(keyp), "i"(branch), "i"(jump))

#endif /* STATICKEYS_ARCH_ARM_H */
