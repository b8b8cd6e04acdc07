/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/riscv64/static_call.c - where the far form of a riscv64
 * static-call trampoline reads its target.
 *
 * The trampoline (arch/common/store_trampoline.h, whose .c gives the rest),
 * never compressed or relaxed:
 *
 *   +0   jal x0, <dest>                 the only word an update writes
 *   +4   addi a0, x0, 0                 RET0: jal +4
 *   +8   jalr x0, 0(ra)                 NULL: jal +8
 *   +12  auipc t1, %pcrel_hi(slot)      far form: jal +12
 *   +16  ld t1, %pcrel_lo(t1)
 *   +20  jalr x0, 0(t1)
 *   +24  "SC" 0 0, 0                    signature, never executed
 *
 * As a key's JAL: one aligned store, then the batch's instruction-fetch
 * sync.  A target within JAL's +-1 MiB is jumped to directly; one beyond,
 * through the slot.
 */
#if defined(__riscv) && __riscv_xlen == 64
#include "arch/common/store_trampoline.h"

void **sk__arch_call_slot(uintptr_t tramp)
{
	const unsigned char *t = (const unsigned char *)tramp;

	if (!sk__store_tramp_shape(tramp, 0x00000513u, 0x00008067u,
				   0x00030067u))
		return NULL;
	uint32_t auipc = sk__store_tramp_word(t + 12);
	uint32_t ld = sk__store_tramp_word(t + 16);
	if ((auipc & 0xfffu) != 0x317u || (ld & 0xfffffu) != 0x33303u)
		return NULL; /* auipc t1 / ld t1, (t1) */
	intptr_t hi = (int32_t)(auipc & 0xfffff000u);
	intptr_t lo = (int32_t)ld >> 20;
	return (void **)(tramp + 12 + hi + lo);
}
#endif /* riscv64 */
