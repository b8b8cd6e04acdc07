/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * include/statickeys/arch/arm_static_call.h - a static call's trampoline
 * on 32-bit Arm, Thumb-2 (the runtime's side: src/arch/arm/site.c and
 * src/arch/common/store_trampoline.c).
 */
#ifndef STATICKEYS_ARCH_ARM_STATIC_CALL_H
#define STATICKEYS_ARCH_ARM_STATIC_CALL_H

/* The trampoline is Thumb code, a Thumb function (static_call_asm.h). */
#define SK__SC_ISA ".thumb\n\t.thumb_func\n\t"
#include "statickeys/arch/static_call_asm.h"

/*
 * Thumb-2: 32 bytes at a 32-byte boundary, a Thumb function (its address
 * has bit 0 set, so calls through it interwork).
 *   +0   b.w <dest>                 the only word an update rewrites (one
 *                                   aligned store, as a key's site)
 *   +4   movs r0, #0; bx lr         RET0 lands here
 *   +8   bx lr; nop                 NULL lands here
 *   +12  ldr.w ip, [pc, #12]        the far form (beyond B.W's +-16 MiB,
 *   +16  add ip, pc                 an Arm-state target, and before the
 *   +18  ldr.w pc, [ip]             runtime has seen the call): through
 *   +22  nop                        descriptor.runtime, whose address is
 *   +24  'S' 'C' 0 0                +28's offset from +20; LDR to the pc
 *   +28  .word runtime - (+20)      switches state by the target's bit 0
 */
#define SK__SC_DEFINE_TRAMP(name)                                            \
	SK__SC_TRAMP_ASM(name, "32", "32",                                    \
		".inst.w 0xf000b804\n\t"                                      \
		".inst.n 0x2000, 0x4770\n\t"                                  \
		".inst.n 0x4770, 0xbf00\n\t"                                  \
		".inst.w 0xf8dfc00c\n\t"                                      \
		".inst.n 0x44fc\n\t"                                          \
		".inst.w 0xf8dcf000\n\t"                                      \
		".inst.n 0xbf00\n\t"                                          \
		".byte 0x53, 0x43, 0, 0\n\t"                                  \
		".word sk__scl_" #name " + " SK__SC_FAR_SLOT " + 8 - .\n\t")

#endif /* STATICKEYS_ARCH_ARM_STATIC_CALL_H */
