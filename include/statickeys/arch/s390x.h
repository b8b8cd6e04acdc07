/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/s390x.h - the IBM Z site: one 6-byte instruction.
 *
 * Contract: as statickeys/arch/aarch64.h.  The site is, like the kernel's
 * own jump labels on s390 (arch/s390/include/asm/jump_label.h), either
 *   brcl 0,label    c0 04 <offset>   (jump == 0: mask 0, never taken), or
 *   brcl 15,label   c0 f4 <offset>   (jump == 1: mask 15, always taken),
 * where <offset> is the "yes" label's distance in halfwords, big-endian,
 * the same in both.  So the two forms differ in byte 1 alone (the mask),
 * and a change is one single-byte store, which a CPU fetching the
 * instruction sees whole, old or new: no instruction that straddles a
 * store boundary is ever half rewritten (src/arch/s390x/site.c).
 *
 * The key is named as on aarch64: each site has its own 8-byte pointer to
 * the key in ".data.rel.ro.sk_keyslots", and the entry's key field points
 * at it.  gcc refuses "i" for a symbol's address under -fPIC on s390x; its
 * "jdd" (gcc 9 and later; "X" before) takes it and prints the bare name
 * with %0, as the kernel's header does; clang takes "i".
 */
#ifndef STATICKEYS_ARCH_S390X_H
#define STATICKEYS_ARCH_S390X_H

#include "statickeys/arch/asm_goto.h"

#define SK__ARCH_SITE_SIZE 6

#if defined(__clang__)
#define SK__S390X_SYM "i"
#elif __GNUC__ < 9
#define SK__S390X_SYM "X"
#else
#define SK__S390X_SYM "jdd"
#endif

/* The site instruction at 1:, a jump when %c2 (shared with s390x_slot.h). */
#define SK__ARCH_SITE_INSN                                                   \
	"1:\n\t"                                                             \
	".if %c2\n\t"                                                        \
	"brcl 15, %l[sk__l_yes]\n\t"                                         \
	".else\n\t"                                                          \
	"brcl 0, %l[sk__l_yes]\n\t"                                          \
	".endif\n\t"

#define SK__ARCH_BRANCH(keyp, branch, jump)                                  \
	SK__ASM_GOTO_SITE(SK__ARCH_SITE_INSN                                 \
			  ".pushsection .data.rel.ro.sk_keyslots, \"aw?\"\n\t" \
			  ".balign 8\n"                                       \
			  "2:\t.quad %0\n\t"                                 \
			  ".popsection\n\t"                                  \
			  SK__SITE_ENTRY("2b - ."),                           \
			  SK__S390X_SYM(keyp), "i"(branch), "i"(jump))

#endif /* STATICKEYS_ARCH_S390X_H */
