/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/portable/backend.c - the portable backend: no code is patched.
 *
 * On an architecture without a port (or with STATICKEYS_BACKEND=portable),
 * the site headers compile every branch to an atomic load and test of the
 * key's state (include/statickeys/arch/generic.h), so objects register keys
 * and no sites, and a key update is the state change alone: the same API,
 * names, commits and control socket, with nothing to write.  The site size
 * is 0, which is how the core tells that sites cannot be patched here: an
 * object that nevertheless brings patchable sites (compiled without
 * SK_NO_ASM_GOTO for a patching architecture) is told so at registration
 * (core/objects.c) and its sites keep their compiled direction.
 *
 * Everything below satisfies the contract (arch/backend.h) for zero sites.
 */
#include "arch/backend.h"

#include <errno.h>

const char sk__arch_name[] = "portable";
const unsigned sk__arch_site_size = 0;
const unsigned char sk__arch_trap_byte = 0x00; /* never written */
/* Nothing relies on the sync fallback here; say it serialises nothing. */
const bool sk__arch_tlb_ipi_serialises = false;

void sk__arch_encode(uintptr_t addr, uintptr_t target, bool jump,
		     unsigned char *out)
{
	(void)addr;
	(void)target;
	(void)jump;
	(void)out; /* zero bytes to write */
}

uintptr_t sk__arch_destination(uintptr_t addr, const unsigned char *insn)
{
	(void)insn;
	return addr;
}

void sk__arch_serialize_self(void)
{
	/* No code is modified, so there is nothing to refetch; a compiler
	 * barrier keeps the call an ordering point for its callers. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

int sk__patch_apply(struct sk__patch *patches, size_t n, size_t *changed)
{
	(void)patches;
	(void)changed;
	/* The core never plans a change without sites; refuse if it did. */
	return n ? -ENOTSUP : 0;
}

/* Nothing traps: the trap half of the contract is arch/common/no_traps.c. */
