/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * include/statickeys/arch/aarch64_static_call.h - a static call's trampoline
 * on aarch64 (the runtime's side: src/arch/aarch64/static_call.c).
 */
#ifndef STATICKEYS_ARCH_AARCH64_STATIC_CALL_H
#define STATICKEYS_ARCH_AARCH64_STATIC_CALL_H

#include "statickeys/arch/static_call_asm.h"

/*
 * aarch64: 32 bytes at a 32-byte boundary.
 *   +0   b <dest>                 the only word an update rewrites (one
 *                                 aligned store: B may replace B while
 *                                 other threads run it)
 *   +4   movz x0, #0              RET0 lands here
 *   +8   ret                      NULL lands here
 *   +12  adrp x16, descriptor     the far form (beyond B's +-128 MiB, and
 *   +16  ldr x16, [x16, :lo12:]   before the runtime has seen it): a
 *   +20  br x16                   branch through descriptor.runtime
 *   +24  'S' 'C' 0 0, 0           signature, never executed
 */
#define SK__SC_DEFINE_TRAMP(name)                                            \
	SK__SC_TRAMP_ASM(name, "32", "32",                                    \
		".inst 0x14000003\n\t"                                        \
		".inst 0xd2800000\n\t"                                        \
		".inst 0xd65f03c0\n\t"                                        \
		"adrp x16, sk__scl_" #name " + " SK__SC_FAR_SLOT "\n\t"        \
		"ldr x16, [x16, #:lo12:sk__scl_" #name " + "                 \
		SK__SC_FAR_SLOT "]\n\t"                                       \
		"br x16\n\t"                                                   \
		".byte 0x53, 0x43, 0, 0\n\t"                                  \
		".word 0\n\t")

#endif /* STATICKEYS_ARCH_AARCH64_STATIC_CALL_H */
