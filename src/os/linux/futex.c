/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/futex.c - what the patch lock asks of the OS: the caller's
 * thread id, and waiting for a word to change.
 *
 * The patch lock (core/lock.c) is one word holding its owner's thread id,
 * so that a signal handler can tell at once, and without a lock, whether it
 * interrupted its own thread's update; a pthread mutex records its owner
 * in a second step, after the lock is taken, and forgets it before it is
 * released, so a handler arriving between the two would wait for itself.
 * Both calls are system calls or plain loads: safe in a signal handler.
 */
#include <limits.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "os/os.h"

/* The kernel's futex ABI (linux/futex.h, which musl-gcc's tree lacks). */
#define FUTEX_WAIT_PRIVATE (0 | 128)
#define FUTEX_WAKE_PRIVATE (1 | 128)

/* The caller's thread id, read once per thread (gettid is a system call
 * in every C library).  Initial-exec: no allocation on first use, in a
 * handler either.  A forked child's thread gets a new id: see
 * sk__os_thread_id_after_fork_child(). */
static __thread uint32_t cached_tid __attribute__((tls_model("initial-exec")));

uint32_t sk__os_thread_id(void)
{
	uint32_t t = cached_tid;

	if (t == 0) {
		t = (uint32_t)syscall(SYS_gettid);
		cached_tid = t;
	}
	return t;
}

void sk__os_thread_id_after_fork_child(void)
{
	cached_tid = 0;
}

void sk__os_futex_wait(uint32_t *word, uint32_t expected)
{
	/* EAGAIN (the word changed), EINTR (a signal): the caller looks
	 * again either way. */
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void sk__os_futex_wake_one(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void sk__os_futex_wake_all(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
