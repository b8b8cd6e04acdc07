/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/darwin/futex.c - thread ids and waiting on a word (os/os.h,
 * "futex") on macOS.
 *
 * pthread_threadid_np() reads the thread's 64-bit system-wide id from its
 * own thread data (no system call; it grows from 1, so its low 32 bits are
 * never 0 in practice and differ between live threads).  Waiting is
 * __ulock_wait/__ulock_wake (ULF_WAKE_ALL: every sleeper), the kernel's
 * compare-and-wait that libc++'s
 * std::atomic::wait and the Swift and Zig runtimes use (macOS 10.12 and
 * later; os_sync_wait_on_address() is its public name from macOS 14.4).
 * Both are safe in a signal handler.
 */
#include <pthread.h>

#include "os/os.h"

#define UL_COMPARE_AND_WAIT 1
#define ULF_WAKE_ALL 0x00000100
#define ULF_NO_ERRNO 0x01000000
int __ulock_wait(uint32_t operation, void *addr, uint64_t value,
		 uint32_t timeout_us);
int __ulock_wake(uint32_t operation, void *addr, uint64_t wake_value);

uint32_t sk__os_thread_id(void)
{
	uint64_t id = 0;

	pthread_threadid_np(NULL, &id);
	return (uint32_t)id ? (uint32_t)id : 1;
}

void sk__os_thread_id_after_fork_child(void)
{
	/* Nothing kept: the child's thread reads its own id. */
}

void sk__os_futex_wait(uint32_t *word, uint32_t expected)
{
	/* The word changed, or a signal came: the caller looks again. */
	__ulock_wait(UL_COMPARE_AND_WAIT | ULF_NO_ERRNO, word, expected, 0);
}

void sk__os_futex_wake_one(uint32_t *word)
{
	__ulock_wake(UL_COMPARE_AND_WAIT | ULF_NO_ERRNO, word, 0);
}

void sk__os_futex_wake_all(uint32_t *word)
{
	__ulock_wake(UL_COMPARE_AND_WAIT | ULF_WAKE_ALL | ULF_NO_ERRNO, word, 0);
}
