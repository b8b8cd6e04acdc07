/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/freebsd/futex.c - thread ids and waiting on a word (os/os.h,
 * "futex"), as FreeBSD gives them: thr_self() names the calling thread (a
 * system call, so the id is kept per thread, as on Linux), and _umtx_op's
 * UMTX_OP_WAIT_UINT_PRIVATE / UMTX_OP_WAKE_PRIVATE are Linux's private
 * futex wait and wake.  Both are system calls: safe in a signal handler.
 */
#include <limits.h>
#include <sys/types.h>
#include <sys/thr.h>
#include <sys/umtx.h>

#include "os/os.h"

static __thread uint32_t cached_tid __attribute__((tls_model("initial-exec")));

uint32_t sk__os_thread_id(void)
{
	uint32_t t = cached_tid;

	if (t == 0) {
		long id = 0;
		thr_self(&id); /* above 100000: never 0 */
		t = (uint32_t)id;
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
	/* The word changed, or a signal came: the caller looks again. */
	_umtx_op(word, UMTX_OP_WAIT_UINT_PRIVATE, expected, NULL, NULL);
}

void sk__os_futex_wake_one(uint32_t *word)
{
	_umtx_op(word, UMTX_OP_WAKE_PRIVATE, 1, NULL, NULL);
}

void sk__os_futex_wake_all(uint32_t *word)
{
	_umtx_op(word, UMTX_OP_WAKE_PRIVATE, INT_MAX, NULL, NULL);
}
