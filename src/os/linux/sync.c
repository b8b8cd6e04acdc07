/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/sync.c - making every CPU that runs our threads refetch
 * instructions.
 *
 * Preferred: membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE), Linux
 * 4.16+.  It interrupts only CPUs currently running this process; threads
 * that are not running serialise before they next return to user space.
 * Before Linux 5.11 the caller itself was not serialised, so there we also
 * serialise the calling CPU.
 *
 * Fallback (the technique .NET's FlushProcessWriteBuffers uses): dirty a
 * private helper page and take its write permission away.  The kernel must
 * shoot down that TLB entry on every CPU that may be running this address
 * space, by IPI; returning from the interrupt (IRET) serialises the CPU.
 *
 * STATICKEYS_SYNC=membarrier|mprotect forces a method (tests, benchmarks).
 *
 * riscv64 (sk__os_icache_sync) keeps instruction fetch coherent with stores
 * only through fence.i, which acts on the hart that runs it alone; a thread
 * may also migrate to a hart whose instruction cache is stale.  Linux
 * offers (Documentation/arch/riscv/cmodx.rst): membarrier SYNC_CORE (riscv
 * since 6.9: every hart running the process, and every hart a thread of it
 * runs on next, executes fence.i before returning to user mode), paired
 * with prctl(PR_RISCV_SET_ICACHE_FLUSH_CTX, ON, PER_PROCESS) (6.10, best
 * effort), which keeps the writer's own fence.i valid if it migrates; and
 * on every riscv Linux, riscv_flush_icache(start, end, 0): all harts of
 * the address space.  So: with membarrier, the prctl once, the caller's
 * fence.i and the membarrier; else the system call over the batch's range;
 * if that fails too (an emulator), the sync alone.  Either is one core sync
 * per batch.  (qemu-user implements riscv_flush_icache as a no-op, which
 * misses code written through /proc/self/mem: docs/porting.md.)
 */
#include <errno.h>
#if __has_include(<linux/membarrier.h>)
#include <linux/membarrier.h>
#else
/* A C library installed without the kernel's headers (Debian's musl-gcc):
 * the values of the Linux user-space ABI (include/uapi/linux/membarrier.h),
 * which never change. */
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE (1 << 5)
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE (1 << 6)
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED (1 << 3)
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED (1 << 4)
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(__riscv)
#include <sys/prctl.h>
#endif
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "os/os.h"
#include "support/message.h"
#include "support/settings.h"
#include "support/stats.h"

enum method { SYNC_MEMBARRIER, SYNC_MPROTECT, SYNC_NONE };

static enum method method = SYNC_NONE;
/* -1 until the first sync asks: uname() and its parsing cost a program's
 * start-up a system call and four page faults (experiment 10). */
static int caller_needs_serialise = -1;
static volatile long *helper_page;
/* What the architecture knows (sk__os_sync_init, from runtime.c). */
static bool tlb_ipi_serialises;
static void (*serialize_self)(void);

static long membarrier(int cmd, unsigned flags)
{
	return syscall(__NR_membarrier, cmd, flags, 0);
}

/* The command each sync sends. */
static int sync_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE;

/* A kernel without the command refuses to register for it (EINVAL), so
 * no MEMBARRIER_CMD_QUERY first: one system call less at start-up.
 * arch hook, s390x: a kernel that does not offer SYNC_CORE there gets the
 * plain expedited command (Linux 4.14), which is as good on s390: its IPI
 * is an interruption, and every interruption, like the return to user
 * space, serialises an s390 CPU (Principles of Operation, "CPU
 * Serialization"; the reason the kernel's membarrier-sync-core table
 * gives for s390), and threads not running serialise when they next
 * return to user space. */
static bool membarrier_register(void)
{
	if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE,
		       0) == 0)
		return true;
#if defined(__s390x__)
	if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) == 0) {
		sync_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
		return true;
	}
#endif
	return false;
}

/* The decimal number at *@p, which is moved past it; -1 if none. */
static long leading_number(const char **p)
{
	long n = -1;

	for (; **p >= '0' && **p <= '9'; (*p)++)
		n = (n < 0 ? 0 : n * 10) + (**p - '0');
	return n;
}

static bool kernel_before_5_11(void)
{
	struct utsname u;

	if (uname(&u) != 0)
		return true;
	/* "6.18.44-..." by hand: sscanf would fault in the C library's
	 * scanning code and locale tables for two numbers. */
	const char *p = u.release;
	long major = leading_number(&p);
	long minor = *p == '.' ? (p++, leading_number(&p)) : -1;

	if (major < 0 || minor < 0)
		return true;
	return major < 5 || (major == 5 && minor < 11);
}

/* Where TLB invalidation sends no IPI (aarch64: the architecture says, at
 * sk__os_sync_init) the fallback serialises no other CPU; say so, once. */
static void fallback_warn_arch(void)
{
	static bool warned;

	if (tlb_ipi_serialises || warned)
		return;
	warned = true;
	sk__warn("no membarrier SYNC_CORE: other threads may run a site's old "
		 "instruction (still a valid one) until their next interrupt "
		 "or system call");
}

static bool mprotect_setup(void)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return false;
	/* Locked so the page is never swapped out (a missing PTE needs no
	 * shootdown, which would silently skip the IPIs). Best effort. */
	(void)mlock(p, (size_t)page);
	helper_page = p;
	fallback_warn_arch();
	return true;
}

static int mprotect_sync(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p = (void *)helper_page;

	if (mprotect(p, page, PROT_READ | PROT_WRITE) != 0)
		return -errno;
	/* Dirty the page so its PTE is present and writable: taking write
	 * access away then requires the TLB flush IPIs we are after. */
	__atomic_fetch_add(helper_page, 1, __ATOMIC_SEQ_CST);
	if (mprotect(p, page, PROT_READ) != 0)
		return -errno;
	return 0;
}

void sk__os_sync_init(bool tlb_ipi, void (*serialize)(void))
{
	tlb_ipi_serialises = tlb_ipi;
	serialize_self = serialize;
	bool force_mprotect = sk__setting(SK__SETTING_SYNC) == 1;

	if (!force_mprotect && membarrier_register()) {
		method = SYNC_MEMBARRIER;
		return;
	}
	if (mprotect_setup())
		method = SYNC_MPROTECT;
}

static int fall_back(void)
{
	if (!helper_page && !mprotect_setup())
		return -ENOSYS;
	sk__warn("membarrier SYNC_CORE failed; using the mprotect IPI fallback");
	method = SYNC_MPROTECT;
	return 0;
}

int sk__os_sync_cores(void)
{
	int r = -ENOSYS;

	if (method == SYNC_MEMBARRIER) {
		if (membarrier(sync_cmd, 0) == 0)
			r = 0;
		else if (errno == EPERM && membarrier_register() &&
			 membarrier(sync_cmd, 0) == 0)
			r = 0; /* registration lost (e.g. after exec tricks) */
		else if ((r = fall_back()) == 0)
			r = mprotect_sync();
	} else if (method == SYNC_MPROTECT) {
		r = mprotect_sync();
	}
	if (r == 0) {
		int self = __atomic_load_n(&caller_needs_serialise,
					   __ATOMIC_RELAXED);
		if (self < 0) {
			self = kernel_before_5_11();
			__atomic_store_n(&caller_needs_serialise, self,
					 __ATOMIC_RELAXED);
		}
		if (self && serialize_self)
			serialize_self();
		sk__count_held(SK__C_CORE_SYNCS, 1);
	}
	return r;
}

const char *sk__os_sync_name(void)
{
	switch (method) {
	case SYNC_MEMBARRIER:
		return "membarrier";
	case SYNC_MPROTECT:
		return "mprotect-ipi";
	default:
		return "none";
	}
}

#if defined(__riscv) && __riscv_xlen == 64
#ifndef PR_RISCV_SET_ICACHE_FLUSH_CTX /* Linux 6.10 */
#define PR_RISCV_SET_ICACHE_FLUSH_CTX 71
#define PR_RISCV_CTX_SW_FENCEI_ON 0
#define PR_RISCV_SCOPE_PER_PROCESS 0
#endif
#ifndef __NR_riscv_flush_icache
#define __NR_riscv_flush_icache 259
#endif

int sk__os_icache_sync(uintptr_t lo, uintptr_t hi)
{
	static bool fencei_ctx; /* under the patch lock */

	if (method == SYNC_MEMBARRIER) {
		if (!fencei_ctx) {
			(void)prctl(PR_RISCV_SET_ICACHE_FLUSH_CTX,
				    PR_RISCV_CTX_SW_FENCEI_ON,
				    PR_RISCV_SCOPE_PER_PROCESS, 0, 0);
			fencei_ctx = true;
		}
		if (serialize_self)
			serialize_self();
		return sk__os_sync_cores();
	}
	if (syscall(__NR_riscv_flush_icache, lo, hi, 0UL) == 0) {
		sk__count_held(SK__C_CORE_SYNCS, 1);
		return 0;
	}
	return sk__os_sync_cores();
}
#else
/* Instruction fetch is coherent with stores here: the sync suffices. */
int sk__os_icache_sync(uintptr_t lo, uintptr_t hi)
{
	(void)lo, (void)hi;
	return sk__os_sync_cores();
}
#endif
