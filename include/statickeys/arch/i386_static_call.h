/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * include/statickeys/arch/i386_static_call.h - a static call's trampoline on
 * i686 (the runtime's side: src/arch/x86_64/static_call.c).
 */
#ifndef STATICKEYS_ARCH_I386_STATIC_CALL_H
#define STATICKEYS_ARCH_I386_STATIC_CALL_H

#include "statickeys/arch/static_call_asm.h"

/*
 * i686: 32 bytes at a 32-byte boundary.  rel32 reaches every address, so
 * the far form only serves calls before the runtime has seen the static
 * call; with no pc-relative load on i686 it finds its descriptor with a
 * call to the next instruction, and uses eax, which no cdecl argument
 * travels in (a -mregparm function should not be a static call's type).
 *   +0   e9 rel32                 the only bytes an update rewrites
 *   +5   31 c0 / +7 c3            RET0 / NULL, as on x86-64
 *   +8   call +0; pop eax;        the far form
 *        jmp *(desc - .)(%eax)
 *   +20  'S' 'C'                  signature, never executed
 */
#define SK__SC_DEFINE_TRAMP(name)                                            \
	SK__SC_TRAMP_ASM(name, "32", "32",                                    \
		".byte 0xe9\n\t.long 3\n\t"                                   \
		".byte 0x31, 0xc0, 0xc3\n\t"                                  \
		".byte 0xe8\n\t.long 0\n"                                      \
		"1:\n\t"                                                       \
		".byte 0x58\n\t"                                              \
		".byte 0xff, 0xa0\n\t.long sk__scl_" #name " + "              \
		SK__SC_FAR_SLOT " - 1b\n\t"       \
		".byte 0x53, 0x43\n\t")

#endif /* STATICKEYS_ARCH_I386_STATIC_CALL_H */
