/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/arm/static_call.c - where the far form of a Thumb-2 static-call
 * trampoline reads its target.
 *
 * The trampoline (statickeys/arch/arm_static_call.h; arch/common/
 * store_trampoline.c gives the rest), at its address without the Thumb bit:
 *
 *   +0   b.w <dest>              the only word an update writes
 *   +4   movs r0, #0; bx lr      RET0: b.w +4
 *   +8   bx lr; nop              NULL: b.w +8
 *   +12  ldr.w ip, [pc, #12]     far form: b.w +12; ip = +28's word
 *   +16  add ip, pc              ip += +20: the slot's address
 *   +18  ldr.w pc, [ip]          to the slot's target, in its state
 *   +22  nop
 *   +24  "SC" 0 0                signature, never executed
 *   +28  slot - (+20)
 *
 * As a key's B.W: one aligned store, then the batch's core sync.  A Thumb
 * target within B.W's +-16 MiB is jumped to directly; one beyond, or an
 * Arm-state function (which B.W cannot enter), through the slot.
 */
#if defined(__arm__)
#include "arch/common/store_trampoline.h"

void **sk__arch_call_slot(uintptr_t tramp)
{
	const unsigned char *t = (const unsigned char *)tramp;

	/* +4, +8 and +20 (the far form's last halfword and the nop). */
	if (!sk__store_tramp_shape(tramp, 0x47702000u, 0xbf004770u,
				   0xbf00f000u))
		return NULL;
	if (sk__store_tramp_word(t + 12) != 0xc00cf8dfu || /* ldr.w ip */
	    sk__store_tramp_word(t + 16) != 0xf8dc44fcu)   /* add; ldr.w pc */
		return NULL;
	int32_t rel = (int32_t)sk__store_tramp_word(t + 28);
	return (void **)(tramp + 20 + (intptr_t)rel);
}
#endif /* __arm__ */
