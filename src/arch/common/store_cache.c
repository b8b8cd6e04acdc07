/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/common/store_cache.c - steps 2 and 3 of the store protocol
 * (arch/common/store_batch.c) where the compiler's cache maintenance after
 * each store and one core sync per batch are all that an architecture's
 * rules ask for.  __builtin___clear_cache is, per architecture:
 *   aarch64      DC CVAU, DSB ISH, IC IVAU, DSB ISH, ISB
 *   ppc64le      dcbst, sync, icbi, sync, isync
 *   loongarch64  ibar 0 (the kernel's flush_icache_range)
 *   arm          the cacheflush system call (libgcc's __clear_cache)
 * and the core sync is the OS's (os/linux/sync.c: membarrier SYNC_CORE,
 * else its fallback).  Each architecture's site.c says why that suffices
 * there.  riscv64 has its own (arch/riscv64/icache.c: one system call for
 * the whole batch).
 */

/* only built for these ports (src/sources.txt) */
#if defined(__aarch64__) ||                                                  \
	(defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)) ||            \
	(defined(__loongarch__) && __loongarch_grlen == 64) || defined(__arm__)
#include "arch/backend.h"

/* Step 2, after each site's store. */
void sk__arch_flush_site(uintptr_t addr, size_t len)
{
	__builtin___clear_cache((char *)addr, (char *)addr + len);
}

/* Step 3, once per batch: every other CPU running our threads. */
int sk__arch_sync_batch(uintptr_t lo, uintptr_t hi)
{
	(void)lo;
	(void)hi;
	return sk__os_sync_cores();
}

#endif /* the ports above */
