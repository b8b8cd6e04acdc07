/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/loongarch64/static_call.c - where the far form of a loongarch64
 * static-call trampoline reads its target.
 *
 * The trampoline (arch/common/store_trampoline.h, whose .c gives the rest):
 *
 *   +0   b <dest>                       the only word an update writes
 *   +4   or $a0, $zero, $zero           RET0: b +4
 *   +8   jirl $zero, $ra, 0             NULL: b +8
 *   +12  pcalau12i $t0, %pc_hi20(slot)  far form: b +12
 *   +16  ld.d $t0, $t0, %pc_lo12(slot)
 *   +20  jirl $zero, $t0, 0
 *   +24  "SC" 0 0, 0                    signature, never executed
 *
 * As a key's B: one aligned store, then the batch's core sync.  A target
 * within B's +-128 MiB is jumped to directly; one beyond, through the slot.
 */
#if defined(__loongarch__) && __loongarch_grlen == 64
#include "arch/common/store_trampoline.h"

void **sk__arch_call_slot(uintptr_t tramp)
{
	const unsigned char *t = (const unsigned char *)tramp;

	if (!sk__store_tramp_shape(tramp, 0x00150004u, 0x4c000020u,
				   0x4c000180u))
		return NULL;
	uint32_t hi = sk__store_tramp_word(t + 12);
	uint32_t ld = sk__store_tramp_word(t + 16);
	/* pcalau12i $t0, si20: 0001101 si20 01100; ld.d $t0, $t0, si12:
	 * 0010100011 si12 01100 01100 */
	if ((hi & 0xfe00001fu) != 0x1a00000cu ||
	    (ld & 0xffc003ffu) != 0x28c0018cu)
		return NULL;
	/* pcalau12i: the page of +12 plus si20 pages (sign-extended). */
	int64_t pages = (int64_t)(int32_t)(((hi >> 5) & 0xfffffu) << 12) >> 12;
	uintptr_t page = ((tramp + 12) & ~(uintptr_t)0xfff) +
			 (uintptr_t)(pages * 4096);
	int32_t lo = (int32_t)(ld << 10) >> 20; /* si12, sign-extended */
	return (void **)(page + (intptr_t)lo);
}
#endif /* loongarch64 */
