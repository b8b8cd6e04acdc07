/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/s390x/static_call.c - the static-call half of the contract
 * (arch/backend.h) for the trampoline of statickeys/arch/s390x_static_call.h:
 *
 *   +0   brcl M, <dest>          the jump: c0 M4 <offset>
 *   +6   lgrl %r1, <slot>        far form (M = 0 falls through to it):
 *   +12  br %r1                  c4 18 <offset>, 07 f1
 *   +14  lghi %r2, 0             RET0: brcl 15, +14 (a7 29 00 00)
 *   +18  br %r14                 NULL: brcl 15, +18 (07 fe)
 *   +20  "SC" 0 0                signature, never executed
 *
 * A target within brcl's +-4 GiB is jumped to directly (M = 15); one
 * beyond is reached through the slot, with the jump "brcl 0, +6", the form
 * the header assembles.  That jump is 6 bytes whose offset no single store
 * rewrites for a CPU fetching it, so moving it takes batch.c's three steps
 * (the mask, then the offset, then the mask); a key's site keeps its one.
 */
#if defined(__s390x__) /* only built for s390x */
#include "arch/backend.h"

#define TRAMP_ALIGN 8u
#define TRAMP_FAR 6
#define TRAMP_RET0 14
#define TRAMP_RET 18

const unsigned sk__arch_call_far = TRAMP_FAR;

uintptr_t sk__arch_call_jump(uintptr_t tramp)
{
	return tramp; /* the jump is the trampoline's first instruction */
}

void **sk__arch_call_slot(uintptr_t jump)
{
	static const unsigned char tail[] = {
		0x07, 0xf1,             /* br %r1 */
		0xa7, 0x29, 0x00, 0x00, /* lghi %r2, 0 */
		0x07, 0xfe,             /* br %r14 */
		'S', 'C',
	};
	const unsigned char *t = (const unsigned char *)jump;

	if (!jump || jump % TRAMP_ALIGN != 0 || t[0] != 0xc0 ||
	    (t[1] & 0x0f) != 0x04 || t[6] != 0xc4 || t[7] != 0x18)
		return NULL;
	for (unsigned i = 0; i < sizeof(tail); i++)
		if (t[12 + i] != tail[i])
			return NULL;
	/* lgrl's operand: its own address plus a signed count of halfwords
	 * (big-endian, as the CPU reads it). */
	int32_t half = (int32_t)((uint32_t)t[8] << 24 | (uint32_t)t[9] << 16 |
				 (uint32_t)t[10] << 8 | t[11]);
	return (void **)(jump + TRAMP_FAR + (intptr_t)half * 2);
}

void sk__arch_call_encode(uintptr_t jump, const void *func, bool ret0,
			  unsigned char *out)
{
	uintptr_t to = (uintptr_t)func;
	bool far = false;

	if (ret0)
		to = jump + TRAMP_RET0;
	else if (!func)
		to = jump + TRAMP_RET;
	else
		far = !sk__arch_reaches(jump, to);
	/* Beyond the jump: "brcl 0, +6", which falls through to the far
	 * form (the bytes the header assembled). */
	if (far)
		sk__arch_encode(jump, jump + TRAMP_FAR, false, out);
	else
		sk__arch_encode(jump, to, true, out);
}

const void *sk__arch_call_follow(const void *func)
{
	return func; /* no thunk form is decoded on s390x */
}

#endif /* __s390x__ */
