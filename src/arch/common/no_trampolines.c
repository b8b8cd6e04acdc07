/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/common/no_trampolines.c - the static-call half of the contract
 * (arch/backend.h) for backends without trampolines (aarch64, riscv64 and
 * the portable backend: their headers emit the pointer form, and a
 * trampoline assembled for x86-64 by a header that was not told of a
 * portable runtime keeps working in its far form, through the slot the
 * core stores the target in).
 */
#include "arch/backend.h"

const unsigned sk__arch_call_far = 0;

uintptr_t sk__arch_call_jump(uintptr_t tramp)
{
	return tramp;
}

void **sk__arch_call_slot(uintptr_t tramp)
{
	(void)tramp;
	return NULL;
}

void sk__arch_call_encode(uintptr_t tramp, const void *func, bool ret0,
			  unsigned char *out)
{
	(void)tramp;
	(void)func;
	(void)ret0;
	(void)out;
}

const void *sk__arch_call_follow(const void *func)
{
	return func;
}
