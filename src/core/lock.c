/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/core/lock.c - the patch lock.
 *
 * One lock serialises every change to code and to the object registry (the
 * kernel's jump_label_mutex).
 *
 * Updates may come from signal handlers: PostgreSQL <= 15 reloads its
 * configuration in its SIGHUP handler and forks, from its SIGUSR1 and
 * SIGCHLD handlers, children that never return from them.  What makes an
 * update unsafe there is not the handler but what it interrupted, so the
 * update path is built to need nothing an interrupted thread may hold:
 *
 *   - no malloc(), free() or qsort(), on any thread, while the lock is held
 *     for an update (support/mem.c gives the update path memory of its own);
 *   - no stdio: messages are formatted on the stack and written with one
 *     write() (support/message.c);
 *   - this lock is a futex word holding its owner's thread id, so a
 *     handler that interrupted its own thread's update is told so at once,
 *     from one load, whatever instruction of the lock or the update it
 *     interrupted.  Only that update is refused (-EDEADLK): it cannot
 *     finish before the handler returns.
 *
 * A handler on any other thread, or one that interrupted no update, takes
 * the lock like any caller and may wait for another thread's update, which
 * needs nothing the handler's thread holds.  What is still not
 * async-signal-safe is listed in docs/operations.md ("Updates from signal
 * handlers"; "What can go wrong and what happens").
 *
 * fork() takes the lock in the prepare handler (runtime.c), so a child
 * never inherits text in the middle of a batch - unless the forking thread
 * already holds it: a fork from a handler that interrupted this thread's
 * update.  Then the lock stays with that update in the parent (the fork
 * handlers neither take nor release it), and in the child it is given to
 * the child's thread, whose interrupted update goes on if the handler
 * returns; the child's batch is made whole at once (arch, after fork).
 *
 * A registration (or an unloading object) while the process has one thread
 * is not timed: it cannot wait, and its hold is the start-up's own (the
 * clock's first read costs a page fault of the vDSO's data).
 */
#include <errno.h>

#include "core/core.h"
#include "support/message.h"
#include "support/stats.h"

/* 0: free; else the owner's thread id, with WAITERS while another thread
 * sleeps on it (Drepper, "Futexes Are Tricky", mutex 2).  Thread ids stay
 * below 2^22 (PID_MAX_LIMIT). */
#define WAITERS 0x80000000u

static uint32_t lock_word;
static uint64_t hold_start_ns; /* 0: this hold is not timed */

/* The forking thread held the lock already (a fork from a handler that
 * interrupted its update): the fork handlers leave it alone. */
static __thread bool fork_found_mine __attribute__((tls_model("initial-exec")));

static bool owned_by(uint32_t word, uint32_t tid)
{
	return (word & ~WAITERS) == tid;
}

static int word_lock(uint32_t me)
{
	uint32_t v = 0;

	if (__atomic_compare_exchange_n(&lock_word, &v, me, false,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 0;
	if (owned_by(v, me))
		return -EDEADLK;
	for (;;) {
		if (v == 0) {
			/* Others may still sleep: keep the mark. */
			if (__atomic_compare_exchange_n(
				    &lock_word, &v, me | WAITERS, false,
				    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return 0;
			continue;
		}
		if (!(v & WAITERS) &&
		    !__atomic_compare_exchange_n(&lock_word, &v, v | WAITERS,
						 false, __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED))
			continue;
		sk__futex_wait(&lock_word, v | WAITERS);
		v = __atomic_load_n(&lock_word, __ATOMIC_RELAXED);
	}
}

static void word_unlock(void)
{
	if (__atomic_exchange_n(&lock_word, 0, __ATOMIC_RELEASE) & WAITERS)
		sk__futex_wake_one(&lock_word);
}

/* @update: for an update (sk__lock), else a registration or an unloading
 * object, not timed while the process has one thread. */
static int lock(bool update)
{
	bool timed = update || !sk__single_threaded();
	uint64_t t0 = timed ? sk__now_ns() : 0;
	int r = word_lock(sk__thread_id());

	if (r)
		return r;
	hold_start_ns = timed ? sk__now_ns() : 0;
	if (timed)
		sk__hist_record(SK_HIST_LOCK_WAIT, hold_start_ns - t0);
	return 0;
}

int sk__lock(void)
{
	if (sk__lock_held_by_me()) {
		/* A signal handler (or an update hook) that interrupted this
		 * thread's own update: it cannot finish before we return. */
		static int said; /* a word: riscv64 has no byte exchange */
		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			sk__warn("a key update was refused (EDEADLK): it was "
				 "called from a signal handler that interrupted "
				 "this thread's own key update, which cannot go "
				 "on until the handler returns; updates from "
				 "handlers that interrupt anything else work");
		return -EDEADLK;
	}
	sk__arch_before_lock();
	return lock(true);
}

int sk__lock_from_loader(void)
{
	return lock(false);
}

void sk__unlock(void)
{
	bool timed = hold_start_ns != 0;
	uint64_t held_ns = timed ? sk__now_ns() - hold_start_ns : 0;

	word_unlock();
	if (timed)
		sk__hist_record(SK_HIST_LOCK_HOLD, held_ns);
}

bool sk__lock_held_by_me(void)
{
	return owned_by(__atomic_load_n(&lock_word, __ATOMIC_RELAXED),
			sk__thread_id());
}

void sk__lock_before_fork(void)
{
	fork_found_mine = sk__lock_held_by_me();
	if (!fork_found_mine)
		(void)word_lock(sk__thread_id());
}

void sk__lock_after_fork_parent(void)
{
	if (!fork_found_mine)
		word_unlock();
}

void sk__lock_after_fork_child(void)
{
	/* The child's one thread has an id of its own; nobody sleeps here. */
	sk__thread_id_after_fork_child();
	__atomic_store_n(&lock_word, fork_found_mine ? sk__thread_id() : 0,
			 __ATOMIC_RELAXED);
}
