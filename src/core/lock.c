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
 * Handing over.  A lock that lets the releasing thread take it straight
 * back (glibc's default mutex; this one before) can pass a waiter over
 * again and again: waits of 94-553 ms behind holds of at most 0.22 ms were
 * seen with 2 to 8 updaters on a quiet 16-core machine.  So, like the kernel's mutex (MUTEX_FLAG_HANDOFF),
 * a waiter that was woken and still lost claims the next hold: it puts its
 * id in handoff_to (from 0: one claimant at a time) and HANDOFF in the
 * word, and sleeps on handoff_to.  The owner's unlock then stores the
 * claimant's id as the new owner instead of 0, clears handoff_to and wakes
 * the claimant alone (the others sleep on the word, FIFO, and a release
 * still wakes one of them); the claimant finds the word naming it and
 * returns.  While HANDOFF is set the word never becomes 0, so nobody can
 * barge in, and a waiter's wait is bounded by the holds queued ahead of
 * it (the claimant's, the barging thread's, its own turn to claim), not
 * by luck.  A claimant that wins the word outright (it was released before
 * HANDOFF went in) drops its claim itself.
 *
 *   - A handler on the claimant's thread, while the lock is handed to it:
 *     before the unlocker's store, sk__lock_held_by_me() says no and the
 *     handler waits like any caller (it may be handed the lock itself:
 *     the claim is the thread's, and whichever frame sees the word naming
 *     the thread takes it; the interrupted frame then sees a word that is
 *     not its own when the handler returns, and waits on).  From the
 *     store on it says yes: the handler's update is refused (-EDEADLK), as
 *     for a handler that interrupted the thread's update itself, and the
 *     interrupted wait takes the lock when the handler returns.  Either
 *     way nobody waits for their own thread, and no two frames hold it.
 *   - A handler that jumps out (siglongjmp) of a wait in which its thread
 *     had claimed the handoff leaves the claim behind: the lock is then
 *     handed to a thread that is not waiting for it and will not release
 *     it (its next update returns -EDEADLK).  That cannot be bounded
 *     without a timed wait in every OS's futex and a second step for the
 *     claimant to accept; instead it is the rule that already holds for
 *     the update itself (docs/operations.md): a handler that interrupts
 *     this thread's own update, its wait for the lock included, must not
 *     jump out of it.  The window is narrow: a claim lives from one lost
 *     wake-up to the end of the hold it lost to.
 *   - fork() while a handoff is pending: the child has one thread, so it
 *     forgets the claim (after_fork_child); in the parent the prepare
 *     handler's own wait is a wait like any (it may claim, or be handed
 *     the lock), and its unlock hands over a claim made meanwhile.
 *
 * A registration (or an unloading object) while the process has one thread
 * is not timed: it cannot wait, and its hold is the start-up's own (the
 * clock's first read costs a page fault of the vDSO's data).
 */
#include <errno.h>

#include "core/core.h"
#include "support/inject.h"
#include "support/message.h"
#include "support/stats.h"

/* 0: free; else the owner's thread id, with WAITERS while another thread
 * may sleep on it (Drepper, "Futexes Are Tricky", mutex 2) and HANDOFF
 * while a waiter has claimed the next hold (handoff_to).  Thread ids stay
 * below 2^22 (PID_MAX_LIMIT; FreeBSD's, Darwin's and Windows' are small
 * counters too). */
#define WAITERS 0x80000000u
#define HANDOFF 0x40000000u

static uint32_t lock_word;
/* 0, or the waiter that claimed the handoff (and sleeps on this word): the
 * owner's unlock makes it the owner.  Set (from 0) only by that waiter;
 * cleared by the unlock that hands it the lock, or by the waiter once it
 * owns the lock, so while HANDOFF is in the word it names a thread that is
 * still waiting (see "Handing over" above). */
static uint32_t handoff_to;
static uint64_t hold_start_ns; /* 0: this hold is not timed */

/* The forking thread held the lock already (a fork from a handler that
 * interrupted its update): the fork handlers leave it alone. */
static __thread bool fork_found_mine __attribute__((tls_model("initial-exec")));

static bool owned_by(uint32_t word, uint32_t tid)
{
	return (word & ~(WAITERS | HANDOFF)) == tid;
}

/* The lock is the caller's: drop the handoff its thread claimed, if it did,
 * so the next waiter that loses can claim.  A claimant may also win the
 * word outright (it was released before the HANDOFF mark went in), and a
 * handler's frame may find the word free while the frame it interrupted
 * holds a claim.  One load when there is none (the fast path). */
static void drop_claim(uint32_t me)
{
	uint32_t mine = me;

	if (__atomic_load_n(&handoff_to, __ATOMIC_RELAXED) == me)
		__atomic_compare_exchange_n(&handoff_to, &mine, 0, false,
					    __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
}

/* Whether this thread holds the claim on the next hold: a waiter that was
 * @woken and still beaten to the lock takes it, unless another waiter has
 * (or a handler's frame on this thread took it already). */
static bool claim(uint32_t me, bool woken)
{
	uint32_t none = 0;

	if (woken)
		__atomic_compare_exchange_n(&handoff_to, &none, me, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return __atomic_load_n(&handoff_to, __ATOMIC_RELAXED) == me;
}

/* Mark @v (held by another thread) so that its owner's unlock wakes us, and
 * hands it to us if we hold the claim.  Return: the value to sleep on, or 0
 * if the word changed under us (look again). */
static uint32_t mark(uint32_t v, bool claimed)
{
	uint32_t want = v | WAITERS | (claimed ? HANDOFF : 0);

	/* A compare-and-swap even when @v has the bits already: @v may be
	 * stale.  A HANDOFF seen in it may be another claim's, since cleared
	 * and released (an unlock that finds HANDOFF but no claim releases
	 * to 0), and a claimant that slept on the strength of it would sleep
	 * for ever: the lock goes on from owner to owner without the mark,
	 * and nobody hands it over.  Release: the owner that sees HANDOFF
	 * must see handoff_to. */
	if (!__atomic_compare_exchange_n(&lock_word, &v, want, false,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return 0;
	return want;
}

/* Return: 1 taken at once (no wait), 0 taken after waiting, or -errno. */
static int word_lock(uint32_t me)
{
	uint32_t v = 0;
	bool woken = false;

	if (__atomic_compare_exchange_n(&lock_word, &v, me, false,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		drop_claim(me);
		return 1;
	}
	if (owned_by(v, me))
		return -EDEADLK;
	for (;;) {
		/* The thread's id, not `me`: a fork from a handler that
		 * interrupted this wait gives the child's thread a new one. */
		me = sk__os_thread_id();
		if (owned_by(v, me)) {
			/* Handed to this thread by the last owner's unlock
			 * (to this frame, or to a handler's frame that
			 * interrupted it and had claimed it). */
			drop_claim(me);
			return 0;
		}
		if (v == 0) {
			/* Others may still sleep: keep the mark. */
			if (__atomic_compare_exchange_n(
				    &lock_word, &v, me | WAITERS, false,
				    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
				drop_claim(me);
				return 0;
			}
			continue;
		}
		bool claimed = claim(me, woken);
		uint32_t sleep_on = mark(v, claimed);
		if (sleep_on) {
			/* A claimant waits for the unlock that clears its
			 * claim; a frame of a handler on its thread that won
			 * meanwhile cleared it already: no sleep then. */
			if (claimed)
				sk__os_futex_wait(&handoff_to, me);
			else
				sk__os_futex_wait(&lock_word, sleep_on);
			woken = true;
		}
		/* Acquire: a handed-over lock is taken by this load. */
		v = __atomic_load_n(&lock_word, __ATOMIC_ACQUIRE);
	}
}

static void word_unlock(void)
{
	uint32_t v = __atomic_load_n(&lock_word, __ATOMIC_ACQUIRE);

	for (;;) {
		uint32_t to = (v & HANDOFF)
				? __atomic_load_n(&handoff_to, __ATOMIC_RELAXED)
				: 0;
		if (to != 0 && !owned_by(v, to)) {
			/* Only the owner writes a word with HANDOFF in it
			 * (WAITERS is in it too; the claimant set both), so
			 * a store is enough.  Release: the next owner sees
			 * this hold's writes.  WAITERS stays: others may
			 * sleep on the word. */
			__atomic_store_n(&lock_word, to | WAITERS,
					 __ATOMIC_RELEASE);
			SK_INJECT(SK__INJECT_IN_LOCK_HANDOFF);
			/* Then wake the claimant: clearing its claim is the
			 * change its futex wait looks for, so it cannot miss
			 * the wake-up by arriving after it.  A CAS: it may
			 * have taken, used and dropped the lock, and claimed
			 * again, already (then it wakes, finds no claim, and
			 * waits in the queue: no lost wake-up).  Every
			 * sleeper on handoff_to is a frame of that thread.
			 * Release: the word's new value is seen first. */
			uint32_t claim = to;
			__atomic_compare_exchange_n(&handoff_to, &claim, 0,
						    false, __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED);
			sk__os_futex_wake_all(&handoff_to);
			return;
		}
		if (__atomic_compare_exchange_n(&lock_word, &v, 0, false,
						__ATOMIC_RELEASE,
						__ATOMIC_ACQUIRE))
			break;
	}
	if (v & WAITERS)
		sk__os_futex_wake_one(&lock_word);
}

/* @update: for an update (sk__lock), else a registration or an unloading
 * object, not timed while the process has one thread.  @start_ns: the
 * clock the caller read as its update began, or 0.
 *
 * Clock reads are the update's largest bookkeeping cost: a lock taken at
 * once waited nothing, and its hold starts at the caller's reading (the
 * compare-and-swap between them takes nanoseconds), so an uncontended
 * update reads the clock twice, as it begins and as it releases the lock
 * (sk__unlock_update), for all three histograms. */
static int lock(bool update, uint64_t start_ns)
{
	bool timed = update || !sk__os_single_threaded();
	uint64_t t0 = !timed ? 0 : start_ns ? start_ns : sk__now_ns();
	int r = word_lock(sk__os_thread_id());

	if (r < 0)
		return r;
	hold_start_ns = !timed ? 0 : r == 1 ? t0 : sk__now_ns();
	if (timed)
		sk__hist_record_held(SK_HIST_LOCK_WAIT, hold_start_ns - t0);
	return 0;
}

int sk__lock(void)
{
	return sk__lock_update(0);
}

int sk__lock_update(uint64_t start_ns)
{
	if (sk__lock_held_by_me()) {
		/* A signal handler (or an update hook) that interrupted this
		 * thread's own update: it cannot finish before we return. */
		static int said; /* a word: riscv64 has no byte exchange */
		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			sk__warn("an update (of keys or static calls) was "
				 "refused (EDEADLK): it was called from a signal "
				 "handler that interrupted this thread's own "
				 "update, which cannot go on until the handler "
				 "returns; updates from handlers that interrupt "
				 "anything else work");
		return -EDEADLK;
	}
	sk__arch_before_lock();
	return lock(true, start_ns);
}

int sk__lock_from_loader(void)
{
	return lock(false, 0);
}

/* The hold is recorded before the lock is free: whoever takes it next
 * (and so anyone who sees what the holder did through the lock) finds the
 * hold counted beside the batches it made.  Recorded after, a commit by
 * another thread could be seen done and its hold not yet counted.  The
 * update's latency, from @start_ns, is recorded with it, from the same
 * clock reading. */
void sk__unlock_update(uint64_t start_ns)
{
	if (hold_start_ns != 0 || start_ns != 0) {
		uint64_t now = sk__now_ns();
		if (hold_start_ns != 0)
			sk__hist_record_held(SK_HIST_LOCK_HOLD,
					     now - hold_start_ns);
		if (start_ns != 0)
			sk__hist_record_held(SK_HIST_UPDATE_LATENCY,
					     now - start_ns);
	}
	word_unlock();
}

void sk__unlock(void)
{
	sk__unlock_update(0);
}

bool sk__lock_held_by_me(void)
{
	return owned_by(__atomic_load_n(&lock_word, __ATOMIC_RELAXED),
			sk__os_thread_id());
}

void sk__lock_before_fork(void)
{
	fork_found_mine = sk__lock_held_by_me();
	if (!fork_found_mine)
		(void)word_lock(sk__os_thread_id());
}

void sk__lock_after_fork_parent(void)
{
	if (!fork_found_mine)
		word_unlock();
}

void sk__lock_after_fork_child(void)
{
	/* The child's one thread has an id of its own; nobody sleeps here,
	 * and a handoff claimed by another thread of the parent would go to
	 * a thread the child does not have. */
	sk__os_thread_id_after_fork_child();
	__atomic_store_n(&handoff_to, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&lock_word, fork_found_mine ? sk__os_thread_id() : 0,
			 __ATOMIC_RELAXED);
}
