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
#include <unwind.h>

int sk__arch_update_allowed(void)
{
	return 0;
}

uintptr_t sk__arch_trap_address(const siginfo_t *info, const void *ucontext)
{
	(void)info;
	(void)ucontext;
	return 0; /* no SIGTRAP is ever ours */
}

void sk__trap_set_sites(struct sk__site_table *tables, size_t n)
{
	(void)n;
	free(tables);
}

void sk__trap_forget_stuck(uintptr_t lo, uintptr_t hi)
{
	(void)lo;
	(void)hi;
}

void sk__arch_after_fork_child(void)
{
}

void sk__arch_unwinder(void **backtrace, void **ip_info)
{
	/* Linked, as the compiler's unwinder always was here: handlers are
	 * never counted on these backends, so every glibc program needs it.
	 * (Loading it with dlopen instead made forked children of threaded
	 * programs hang under qemu-s390x: faults_soak.) */
#ifdef __GLIBC__
	*backtrace = (void *)_Unwind_Backtrace;
	*ip_info = (void *)_Unwind_GetIPInfo;
#else
	*backtrace = *ip_info = NULL;
#endif
}

void sk__arch_init(void)
{
	/* No mask wrappers here: the program's signal handlers are not
	 * counted (core/lock.c then unwinds). */
}

void sk__arch_before_lock(void)
{
}
