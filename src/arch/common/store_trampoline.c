/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/common/store_trampoline.c - the static-call half of the contract
 * (arch/backend.h) for the store-protocol architectures' shared trampoline
 * (store_trampoline.h): where its far form starts, the jump to a target,
 * and no thunk to follow.  On 32-bit Arm the trampoline is Thumb code: its
 * symbol and the functions it jumps to carry the Thumb bit.
 */
#include <string.h>

#include "arch/common/store_trampoline.h"

#define TRAMP_ALIGN 32u
#define TRAMP_RET0 4
#define TRAMP_RET 8
#define TRAMP_FAR 12

const unsigned sk__arch_call_far = TRAMP_FAR;

uint32_t sk__store_tramp_word(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

bool sk__store_tramp_shape(uintptr_t tramp, uint32_t ret0, uint32_t ret,
			   uint32_t br)
{
	const unsigned char *t = (const unsigned char *)tramp;

	return tramp && tramp % TRAMP_ALIGN == 0 &&
	       sk__store_tramp_word(t + TRAMP_RET0) == ret0 &&
	       sk__store_tramp_word(t + TRAMP_RET) == ret &&
	       sk__store_tramp_word(t + 20) == br && t[24] == 'S' &&
	       t[25] == 'C';
}

void sk__arch_call_encode(uintptr_t tramp, const void *func, bool ret0,
			  unsigned char *out)
{
	uintptr_t to = (uintptr_t)func;

	if (ret0)
		to = tramp + TRAMP_RET0;
	else if (!func)
		to = tramp + TRAMP_RET;
#if defined(__arm__)
	/* A Thumb function's address has bit 0 set, and B.W goes to the
	 * address without it; B.W cannot enter an Arm-state function (bit 0
	 * clear) at all: the far form's LDR to the pc switches state. */
	else if (!(to & 1))
		to = tramp + TRAMP_FAR;
	else if (!sk__arch_reaches(tramp, to & ~(uintptr_t)1))
		to = tramp + TRAMP_FAR;
	else
		to &= ~(uintptr_t)1;
#else
	else if (!sk__arch_reaches(tramp, to))
		to = tramp + TRAMP_FAR; /* beyond the jump: the far form */
#endif
	sk__arch_encode(tramp, to, true, out);
}

const void *sk__arch_call_follow(const void *func)
{
	return func; /* no thunk form is decoded on these architectures */
}

uintptr_t sk__arch_call_jump(uintptr_t tramp)
{
	/* The jump is the trampoline's first word; a Thumb trampoline's
	 * symbol (32-bit Arm) says so in its address's bit 0. */
	return tramp & ~(uintptr_t)1;
}
