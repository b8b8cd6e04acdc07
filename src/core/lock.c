/* SPDX-License-Identifier: MIT OR Apache-2.0 */
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
 * program's handlers pass through the runtime's trampoline (x86 programs
 * that link the runtime), a thread-local count answers (os/signal_depth.c):
 * no stack is unwound.  Only where they do not (an architecture without the
 * mask wrappers, or the runtime loaded late by dlopen) do we unwind the
 * caller's stack with the compiler's unwinder, which marks the frame the
 * kernel pushed for a signal (glibc's __restore_rt carries "signal frame"
 * unwind information); a frame without unwind information stops the walk
 * early and the answer is then "no".
 *
 * The backend provides the unwinder (sk__arch_unwinder): where handlers are
 * never counted (aarch64, riscv64, the portable backend) it links it, as
 * before; x86, whose programs' handlers are counted, does not, since
 * loading libgcc_s cost every program ~0.1 ms of start-up (experiment 10),
 * and loads it (dlopen) only for a runtime loaded late.
 * sk__unwinder_load() asks for it at start-up (from the first
 * registration, never from a handler: dlopen is not async-signal-safe),
 * only where handlers are not counted.  A program without a dynamic linker
 * (fully static) is never unwound: the answer is "no", and the update
 * itself is refused unless the program was linked with the wrappers
 * (sigmask_probe.c says how).
 *
 * A registration (or an unloading object) while the process has one thread
 * is not timed: it cannot wait, and its hold is the start-up's own (the
 * clock's first read costs a page fault of the vDSO's data).
 *
 * Registration (objects.c) takes the lock without the question: it runs
 * from the dynamic linker's constructors, which no signal handler may run
 * (dlopen is not async-signal-safe), and a thread that re-enters the lock
 * is refused by the mutex itself.  Unregistration (objects.c) still asks:
 * exit() from a handler runs destructors.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <unwind.h>

#include "core/core.h"

#ifdef PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP
static pthread_mutex_t patch_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;

static void lock_ready(void)
{
}

static void lock_fresh(void)
{
	pthread_mutex_t fresh = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	patch_lock = fresh;
}
#else
/* A C library without the static initialiser (musl): set the type up
 * once, before the first use. */
static pthread_mutex_t patch_lock;
static pthread_once_t patch_lock_once = PTHREAD_ONCE_INIT;

static void lock_fresh(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&patch_lock, &a);
	pthread_mutexattr_destroy(&a);
}

static void lock_ready(void)
{
	pthread_once(&patch_lock_once, lock_fresh);
}
#endif
static uint64_t hold_start_ns; /* 0: this hold is not timed */
static pthread_t holder;
static bool held;

/* @update: for an update (sk__lock), else a registration or an unloading
 * object, not timed while the process has one thread. */
static int lock(bool update)
{
	bool timed = update || !sk__single_threaded();

	lock_ready();
	uint64_t t0 = timed ? sk__now_ns() : 0;
	int r = pthread_mutex_lock(&patch_lock);

	if (r)
		return -r;
	hold_start_ns = timed ? sk__now_ns() : 0;
	if (timed)
		sk__hist_record(SK_HIST_LOCK_WAIT, hold_start_ns - t0);
	holder = pthread_self();
	__atomic_store_n(&held, true, __ATOMIC_RELAXED);
	return 0;
}

int sk__lock(void)
{
	/* Everything behind the lock mallocs and may wait: never from a signal
	 * handler, which may have interrupted malloc or the lock holder. */
	if (sk__in_signal_handler())
		return -EDEADLK;
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

	__atomic_store_n(&held, false, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&patch_lock);
	if (timed)
		sk__hist_record(SK_HIST_LOCK_HOLD, held_ns);
}

bool sk__lock_held_by_me(void)
{
	return __atomic_load_n(&held, __ATOMIC_RELAXED) &&
	       pthread_equal(holder, pthread_self());
}

void sk__lock_before_fork(void)
{
	lock_ready();
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
	lock_fresh();
	held = false;
}

#ifdef __GLIBC__
typedef _Unwind_Reason_Code backtrace_fn(_Unwind_Trace_Fn, void *);
typedef _Unwind_Ptr ip_info_fn(struct _Unwind_Context *, int *);

/* Set once, by sk__unwinder_load() at start-up; NULL: never unwind. */
static backtrace_fn *unwind_backtrace;
static ip_info_fn *unwind_ip_info;

static _Unwind_Reason_Code note_signal_frame(struct _Unwind_Context *ctx,
					     void *arg)
{
	int before_insn = 0;

	(void)unwind_ip_info(ctx, &before_insn);
	if (before_insn) {
		/* Only signal frames resume *at* their IP, not after a call. */
		*(bool *)arg = true;
		return _URC_END_OF_STACK;
	}
	return _URC_NO_REASON;
}
#endif

void sk__unwinder_load(void)
{
#ifdef __GLIBC__
	/* AT_BASE: where the dynamic linker was loaded; 0 without one. */
	if (sk__signal_depth_tracked() || getauxval(AT_BASE) == 0)
		return;
	void *bt_fn = NULL, *ip_fn = NULL;

	sk__arch_unwinder(&bt_fn, &ip_fn);
	backtrace_fn *bt = (backtrace_fn *)bt_fn;
	ip_info_fn *ip = (ip_info_fn *)ip_fn;
	if (!bt || !ip) {
		sk__warn("the C runtime's unwinder (libgcc_s.so.1) cannot be "
			 "loaded: an update from a signal handler cannot be "
			 "told from ordinary code here and is not refused");
		return;
	}
	unwind_ip_info = ip;
	__atomic_store_n(&unwind_backtrace, bt, __ATOMIC_RELEASE);
	/* One walk now, from the constructor, while the program is most
	 * likely single-threaded: the unwinder sets itself up lazily at its
	 * first walk (its once-only tables), which should not first happen
	 * in a thread racing another thread's fork().  Registration used to
	 * make this first walk. */
	bool found = false;
	bt(note_signal_frame, &found);
#endif
}

bool sk__in_signal_handler(void)
{
	bool found = false;

	if (sk__signal_depth_tracked())
		return sk__signal_depth_in_handler();
#ifdef __GLIBC__
	backtrace_fn *bt = __atomic_load_n(&unwind_backtrace, __ATOMIC_ACQUIRE);
	if (bt)
		bt(note_signal_frame, &found);
#endif
	/* Other C libraries: the compiler's unwinder may need the C library's
	 * own frame lookup (glibc's _dl_find_object); handlers are counted
	 * there, or not at all. */
	return found;
}
