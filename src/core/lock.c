/*
 * src/core/lock.c - the patch lock, and whether its caller runs a signal
 * handler.
 *
 * One mutex serialises every change to code and to the object registry (the
 * kernel's jump_label_mutex).  It is error-checking so that a thread which
 * re-enters an update (from a signal handler that interrupted one) gets
 * -EDEADLK instead of hanging.  Fork takes the lock in the prepare handler
 * (runtime.c), so a child never inherits text in the middle of a batch.
 *
 * Is the caller running a signal handler?  The slow paths take a mutex and
 * allocate memory, neither of which is async-signal-safe: a handler that
 * interrupted malloc, or our own trap handler, would deadlock.  Where the
 * program's handlers pass through the runtime's trampoline, a thread-local
 * count answers (os/signal_depth.c).  Where they do not (an architecture
 * without the mask wrappers, or the runtime loaded late by dlopen), we
 * unwind the caller's stack with the compiler's unwinder, which marks the
 * frame the kernel pushed for a signal (glibc's __restore_rt carries
 * "signal frame" unwind information); a frame without unwind information
 * stops the walk early and the answer is then "no".  A program without a
 * dynamic linker (fully static) is never unwound: there the unwinder finds
 * no frame information registered for the C library's code and aborts; the
 * answer is "no", and the update itself is refused unless the program was
 * linked with the wrappers (sigmask_link.c says how).
 */
#include <errno.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <unwind.h>

#include "core/core.h"

static pthread_mutex_t patch_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static uint64_t hold_start_ns;
static pthread_t holder;
static bool held;

int sk__lock(void)
{
	/* Everything behind the lock mallocs and may wait: never from a signal
	 * handler, which may have interrupted malloc or the lock holder. */
	if (sk__in_signal_handler())
		return -EDEADLK;
	uint64_t t0 = sk__now_ns();
	int r = pthread_mutex_lock(&patch_lock);

	if (r)
		return -r;
	hold_start_ns = sk__now_ns();
	sk__hist_record(SK_HIST_LOCK_WAIT, hold_start_ns - t0);
	holder = pthread_self();
	__atomic_store_n(&held, true, __ATOMIC_RELAXED);
	return 0;
}

void sk__unlock(void)
{
	uint64_t held_ns = sk__now_ns() - hold_start_ns;

	__atomic_store_n(&held, false, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&patch_lock);
	sk__hist_record(SK_HIST_LOCK_HOLD, held_ns);
}

bool sk__lock_held_by_me(void)
{
	return __atomic_load_n(&held, __ATOMIC_RELAXED) &&
	       pthread_equal(holder, pthread_self());
}

void sk__lock_before_fork(void)
{
	pthread_mutex_lock(&patch_lock);
}

void sk__lock_after_fork_parent(void)
{
	pthread_mutex_unlock(&patch_lock);
}

void sk__lock_after_fork_child(void)
{
	/* The owner recorded in the mutex is the parent's thread; a fresh
	 * mutex is the only portable way to release it in the child. */
	pthread_mutex_t fresh = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	patch_lock = fresh;
	held = false;
}

static _Unwind_Reason_Code note_signal_frame(struct _Unwind_Context *ctx,
					     void *arg)
{
	int before_insn = 0;

	(void)_Unwind_GetIPInfo(ctx, &before_insn);
	if (before_insn) {
		/* Only signal frames resume *at* their IP, not after a call. */
		*(bool *)arg = true;
		return _URC_END_OF_STACK;
	}
	return _URC_NO_REASON;
}

bool sk__in_signal_handler(void)
{
	bool found = false;

	if (sk__signal_depth_tracked())
		return sk__signal_depth_in_handler();
	/* AT_BASE: where the dynamic linker was loaded; 0 without one. */
	if (getauxval(AT_BASE) == 0)
		return false;
	_Unwind_Backtrace(note_signal_frame, &found);
	return found;
}

