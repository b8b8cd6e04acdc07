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

/* No call site is patched: calls go through the trampoline (or the
 * pointer), so none is looked for. */
const unsigned sk__arch_call_site_before = 0;

bool sk__arch_call_reloc(unsigned type, int64_t addend)
{
	(void)type, (void)addend;
	return false;
}

bool sk__arch_call_site(uintptr_t field, uintptr_t *site, uintptr_t *dest)
{
	(void)field, (void)site, (void)dest;
	return false;
}

bool sk__arch_call_site_encode(uintptr_t site, const unsigned char *old,
			       uintptr_t to, unsigned char *out)
{
	(void)site, (void)old, (void)to, (void)out;
	return false;
}

uintptr_t sk__arch_call_site_return(uintptr_t site, const unsigned char *insn)
{
	(void)site, (void)insn;
	return 0;
}
