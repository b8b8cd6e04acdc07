/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/aarch64/static_call.c - aarch64 static-call trampolines.
 *
 * The header (statickeys/static_call.h) assembles each trampoline as 32
 * bytes at a 32-byte boundary:
 *
 *   +0   b <dest>                       the only word an update writes
 *   +4   movz x0, #0                    RET0: b +4
 *   +8   ret                            NULL: b +8
 *   +12  adrp x16, slot                 far form: b +12
 *   +16  ldr x16, [x16, #:lo12:slot]
 *   +20  br x16
 *   +24  "SC" 0 0, 0                    signature, never executed
 *
 * The jump is a site of the store protocol (arch/common/store_batch.c): B
 * may replace B with one aligned store while other threads execute it, so
 * a thread runs the old jump or the new one.  A target within B's +-128 MiB
 * is branched to directly; one beyond, through the slot.
 */
#if defined(__aarch64__)
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

	if (!tramp || tramp % TRAMP_ALIGN || word(t + 4) != 0xd2800000u ||
	    word(t + 8) != 0xd65f03c0u || word(t + 20) != 0xd61f0200u ||
	    t[24] != 'S' || t[25] != 'C')
		return NULL;
	uint32_t adrp = word(t + 12), ldr = word(t + 16);
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

void sk__arch_call_encode(uintptr_t tramp, const void *func, bool ret0,
			  unsigned char *out)
{
	uintptr_t to = (uintptr_t)func;

	if (ret0)
		to = tramp + 4;
	else if (!func)
		to = tramp + 8;
	else if (!sk__arch_reaches(tramp, to))
		to = tramp + TRAMP_FAR; /* beyond B: the far form */
	sk__arch_encode(tramp, to, true, out);
}
const void *sk__arch_call_follow(const void *func)
{
	return func;
}
#endif /* __aarch64__ */
