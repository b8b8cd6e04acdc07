/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/riscv64/static_call.c - riscv64 static-call trampolines.
 *
 * The header (statickeys/static_call.h) assembles each trampoline as 32
 * bytes at a 32-byte boundary, never compressed or relaxed:
 *
 *   +0   jal x0, <dest>                 the only word an update writes
 *   +4   addi a0, x0, 0                 RET0: jal +4
 *   +8   jalr x0, 0(ra)                 NULL: jal +8
 *   +12  auipc t1, %pcrel_hi(slot)      far form: jal +12
 *   +16  ld t1, %pcrel_lo(t1)
 *   +20  jalr x0, 0(t1)
 *   +24  "SC" 0 0, 0                    signature, never executed
 *
 * The jump is a site of the store protocol (arch/common/store_batch.c), as
 * a key's JAL: one aligned store, then the batch's instruction-fetch sync.
 * A target within JAL's +-1 MiB is jumped to directly; one beyond, through
 * the slot.
 */
#if defined(__riscv) && __riscv_xlen == 64
#include <string.h>

#include "arch/backend.h"

#define TRAMP_ALIGN 32u
#define TRAMP_FAR 12
const unsigned sk__arch_call_far = TRAMP_FAR;

static uint32_t word(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

void **sk__arch_call_slot(uintptr_t tramp)
{
	const unsigned char *t = (const unsigned char *)tramp;

	if (!tramp || tramp % TRAMP_ALIGN || word(t + 4) != 0x00000513u ||
	    word(t + 8) != 0x00008067u || word(t + 20) != 0x00030067u ||
	    t[24] != 'S' || t[25] != 'C')
		return NULL;
	uint32_t auipc = word(t + 12), ld = word(t + 16);
	if ((auipc & 0xfffu) != 0x317u || (ld & 0xfffffu) != 0x33303u)
		return NULL; /* auipc t1 / ld t1, (t1) */
	intptr_t hi = (int32_t)(auipc & 0xfffff000u);
	intptr_t lo = (int32_t)ld >> 20;
	return (void **)(tramp + 12 + hi + lo);
}

void sk__arch_call_encode(uintptr_t tramp, const void *func, bool ret0,
			  unsigned char *out)
{
	uintptr_t to = (uintptr_t)func;

	if (ret0)
		to = tramp + 4;
	else if (!func)
		to = tramp + 8;
	else if (!sk__arch_reaches(tramp, to))
		to = tramp + TRAMP_FAR; /* beyond JAL: the far form */
	sk__arch_encode(tramp, to, true, out);
}

const void *sk__arch_call_follow(const void *func)
{
	return func;
}
#endif /* riscv64 */
