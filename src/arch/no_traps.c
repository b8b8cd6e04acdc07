/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/no_traps.c - the contract's trap half (arch/backend.h) for
 * backends without a trap protocol: aarch64, whose sites change with one
 * store, riscv64 likewise, and the portable backend, which changes none.  Nothing traps, so
 * every thread survives an update whatever its signal mask, no site address
 * needs resolving, nothing is ever stuck, and a fork child has no trap
 * state to forget.  Listed in src/CMakeLists.txt by those backends.
 */
#include "arch/backend.h"

#include <stdlib.h>

int sk__arch_update_allowed(void)
{
	return 0;
}

uintptr_t sk__arch_trap_address(const void *siginfo, const void *ucontext)
{
	(void)siginfo;
	(void)ucontext;
	return 0; /* no SIGTRAP is ever ours */
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

void sk__arch_after_fork_child(void)
{
}

void sk__arch_init(void)
{
	/* No mask wrappers here. */
}

void sk__arch_before_lock(void)
{
}
