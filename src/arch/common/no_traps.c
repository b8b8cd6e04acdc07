/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/common/no_traps.c - the contract's trap half (arch/backend.h) for
 * backends without a trap protocol: aarch64, whose sites change with one
 * store, riscv64 likewise, and the portable backend, which changes none.  Nothing traps, so
 * every thread survives an update whatever its signal mask, no site address
 * needs resolving, nothing is ever stuck, and a fork child has no trap
 * state to forget.  Listed in src/sources.txt by those backends.
 */
#include "arch/backend.h"
#include "support/mem.h"

#include <stdlib.h>

int sk__arch_update_allowed(void)
{
	return 0;
}

void sk__trap_set_sites(struct sk__site_table *tables, size_t n)
{
	(void)n;
	sk__mem_free(tables);
}

void sk__trap_forget_stuck(uintptr_t lo, uintptr_t hi)
{
	(void)lo;
	(void)hi;
}

void sk__trap_set_call_sites(uintptr_t *v, size_t n)
{
	(void)n;
	sk__mem_free(v);
}

void sk__arch_after_fork_child(void)
{
}

void sk__arch_init(void)
{
	/* No trap delivery to set up (os/os.h: only for architectures that
	 * trap). */
}

void sk__arch_before_lock(void)
{
}
