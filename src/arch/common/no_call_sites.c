/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/common/no_call_sites.c - the call-site half of the static-call
 * contract (arch/backend.h, "Call sites") for backends that patch none
 * (aarch64, riscv64: their calls go through the trampoline; the portable
 * backend: through the pointer).  sk__arch_call_site_before is 0, so the
 * core looks for none and calls nothing else here.
 */
#include <errno.h>

#include "arch/backend.h"

const unsigned sk__arch_call_site_before = 0;
const unsigned sk__arch_call_site_got_before = 0;

enum sk__call_reloc sk__arch_call_reloc(enum sk__os_reloc_kind kind,
					int64_t addend)
{
	(void)kind, (void)addend;
	return SK__CALL_NONE;
}

bool sk__arch_call_site_got(uintptr_t field, uintptr_t *dest)
{
	(void)field, (void)dest;
	return false;
}

int sk__arch_call_site_direct(uintptr_t field)
{
	(void)field;
	return -ENOTSUP;
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
