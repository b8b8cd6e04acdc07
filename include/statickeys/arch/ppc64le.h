/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/ppc64le.h - the 64-bit little-endian Power site (ELFv2):
 * one 4-byte instruction.
 *
 * Contract: as statickeys/arch/aarch64.h.  The site is either
 *   nop   60000000         (jump == 0; ori r0,r0,0), or
 *   b     48000000|LI      (jump == 1; to the "yes" label, +-32 MiB),
 * and, like the kernel's own jump labels on powerpc, a change between the
 * two is one aligned 32-bit store (Power ISA Book II, "Concurrent
 * Modification and Execution of Instructions": a nop and a branch may
 * replace each other while other threads run them).  Power instructions
 * are always 4 bytes and 4-aligned, so the site needs no alignment of its
 * own.
 *
 * The key is named as on aarch64: each site has its own 8-byte pointer to
 * the key in ".data.rel.ro.sk_keyslots", and the entry's key field points
 * at it.  gcc takes a symbol's address as an "i" constant on powerpc64
 * even under -fPIC/-fPIE and prints it bare with %0 (the "S" constraint of
 * aarch64 does not exist there); "i" refuses a key known only at run time.
 */
#ifndef STATICKEYS_ARCH_PPC64LE_H
#define STATICKEYS_ARCH_PPC64LE_H

#include "statickeys/arch/asm_goto.h"

#define SK__ARCH_SITE_SIZE 4

/* The site instruction at 1:, a jump when %2 (shared with ppc64le_slot.h). */
#define SK__ARCH_SITE_INSN                                                   \
	"1:\n\t"                                                             \
	".if %2\n\t"                                                         \
	"b %l[sk__l_yes]\n\t"                                                \
	".else\n\t"                                                          \
	"nop\n\t"                                                            \
	".endif\n\t"

#define SK__ARCH_BRANCH(keyp, branch, jump)                                  \
	SK__ASM_GOTO_SITE(SK__ARCH_SITE_INSN                                 \
			  ".pushsection .data.rel.ro.sk_keyslots, \"aw?\"\n\t" \
			  ".balign 8\n"                                       \
			  "2:\t.quad %0\n\t"                                 \
			  ".popsection\n\t"                                  \
			  SK__SITE_ENTRY("2b - ."),                           \
			  "i"(keyp), "i"(branch), "i"(jump))

#endif /* STATICKEYS_ARCH_PPC64LE_H */
