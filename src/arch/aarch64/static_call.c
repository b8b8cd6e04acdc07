/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/aarch64/static_call.c - where the far form of an aarch64
 * static-call trampoline reads its target.
 *
 * The trampoline (arch/common/store_trampoline.h, whose .c gives the rest):
 *
 *   +0   b <dest>                       the only word an update writes
 *   +4   movz x0, #0                    RET0: b +4
 *   +8   ret                            NULL: b +8
 *   +12  adrp x16, slot                 far form: b +12
 *   +16  ldr x16, [x16, #:lo12:slot]
 *   +20  br x16
 *   +24  "SC" 0 0, 0                    signature, never executed
 *
 * B may replace B with one aligned store while other threads execute it,
 * so a thread runs the old jump or the new one.  A target within B's
 * +-128 MiB is branched to directly; one beyond, through the slot.
 */
#if defined(__aarch64__)
#include "arch/common/store_trampoline.h"

void **sk__arch_call_slot(uintptr_t tramp)
{
	const unsigned char *t = (const unsigned char *)tramp;

	if (!sk__store_tramp_shape(tramp, 0xd2800000u, 0xd65f03c0u,
				   0xd61f0200u))
		return NULL;
	uint32_t adrp = sk__store_tramp_word(t + 12);
	uint32_t ldr = sk__store_tramp_word(t + 16);
	/* adrp x16: 1 immlo(2) 10000 immhi(19) 10000 */
	if ((adrp & 0x9f00001fu) != 0x90000010u ||
	    (ldr & 0xffc003ffu) != 0xf9400210u) /* ldr x16, [x16, #imm] */
		return NULL;
	int64_t pages = (int64_t)((((adrp >> 5) & 0x7ffffu) << 2) |
				  ((adrp >> 29) & 3u));
	pages = (pages << 43) >> 43; /* sign-extend 21 bits */
	uintptr_t page = ((tramp + 12) & ~(uintptr_t)0xfff) +
			 (uintptr_t)(pages * 4096);
	return (void **)(page + ((ldr >> 10) & 0xfffu) * 8);
}
#endif /* __aarch64__ */
