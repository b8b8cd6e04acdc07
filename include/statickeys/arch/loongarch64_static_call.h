/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * include/statickeys/arch/loongarch64_static_call.h - a static call's
 * trampoline on loongarch64 (the runtime's side:
 * src/arch/loongarch64/static_call.c).
 */
#ifndef STATICKEYS_ARCH_LOONGARCH64_STATIC_CALL_H
#define STATICKEYS_ARCH_LOONGARCH64_STATIC_CALL_H

#include "statickeys/arch/static_call_asm.h"

/*
 * loongarch64: 32 bytes at a 32-byte boundary.
 *   +0   b <dest>                   the only word an update rewrites (one
 *                                   aligned store, as a key's site)
 *   +4   or $a0, $zero, $zero       RET0 lands here
 *   +8   jirl $zero, $ra, 0         NULL lands here
 *   +12  pcalau12i $t0, %pc_hi20    the far form (beyond B's +-128 MiB,
 *   +16  ld.d $t0, $t0, %pc_lo12    and before the runtime has seen the
 *   +20  jirl $zero, $t0, 0         call): through descriptor.runtime
 *   +24  'S' 'C' 0 0, 0             signature, never executed
 */
#define SK__SC_DEFINE_TRAMP(name)                                            \
	SK__SC_TRAMP_ASM(name, "32", "32",                                    \
		".4byte 0x50000c00\n\t"                                       \
		".4byte 0x00150004\n\t"                                       \
		".4byte 0x4c000020\n\t"                                       \
		"pcalau12i $t0, %pc_hi20(sk__scl_" #name " + "                \
		SK__SC_FAR_SLOT ")\n\t"                                       \
		"ld.d $t0, $t0, %pc_lo12(sk__scl_" #name " + "                \
		SK__SC_FAR_SLOT ")\n\t"                                       \
		".4byte 0x4c000180\n\t"                                       \
		".byte 0x53, 0x43, 0, 0\n\t"                                  \
		".4byte 0\n\t")

#endif /* STATICKEYS_ARCH_LOONGARCH64_STATIC_CALL_H */
