/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/x86_operand.h - what the x86 site macros (x86_64.h,
 * i386.h and their _slot.h forms) share: the site instruction and how a
 * key's symbol is printed from an asm operand.
 *
 * The key operand must print as a bare symbol name even in -fPIC code,
 * where gcc refuses "i" for symbol addresses: gcc takes "X" with the %p
 * modifier, clang takes "s" with %c (and rejects %p on "X").  Operand 0 is
 * the key, operand 3 a slot's name string.
 */
#ifndef STATICKEYS_ARCH_X86_OPERAND_H
#define STATICKEYS_ARCH_X86_OPERAND_H

#ifdef __clang__
#define SK__KEY_CONSTRAINT "s"
#define SK__KEY_OPERAND "%c0"
#define SK__SLOT_NAME_OPERAND "%c3"
#else
#define SK__KEY_CONSTRAINT "X"
#define SK__KEY_OPERAND "%p0"
#define SK__SLOT_NAME_OPERAND "%p3"
#endif

/* The site instruction at 1: a JMP rel32 to the "yes" label when %c2, else
 * the ABI's 5-byte no-op @nop5 (a ".byte" line). */
#define SK__X86_SITE_INSN(nop5)                                              \
	"1:\n\t"                                                             \
	".if %c2\n\t"                                                        \
	".byte 0xe9\n\t"                                                     \
	".long %l[sk__l_yes] - (1b + 5)\n\t"                                 \
	".else\n\t" nop5 "\n\t"                                              \
	".endif\n\t"

#endif /* STATICKEYS_ARCH_X86_OPERAND_H */
