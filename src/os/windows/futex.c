/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/windows/futex.c - thread ids and waiting on a word, for the patch
 * lock (core/lock.c), on Windows.
 *
 * WaitOnAddress / WakeByAddressSingle / WakeByAddressAll (Windows 8 and
 * later, the synchronization library's api-ms-win-core-synch-l1-2-0) are
 * the futex of Windows: sleep while a word holds a value, wake one sleeper
 * or all of them.  Thread ids
 * are never 0 there, and there is no fork to give a thread a new one.
 */
#include <windows.h>

#include "os/os.h"

uint32_t sk__os_thread_id(void)
{
	return (uint32_t)GetCurrentThreadId();
}

void sk__os_thread_id_after_fork_child(void)
{
}

void sk__os_futex_wait(uint32_t *word, uint32_t expected)
{
	/* The word changed, or a spurious wake: the caller looks again. */
	WaitOnAddress(word, &expected, sizeof(*word), INFINITE);
}

void sk__os_futex_wake_one(uint32_t *word)
{
	WakeByAddressSingle(word);
}

void sk__os_futex_wake_all(uint32_t *word)
{
	WakeByAddressAll(word);
}
