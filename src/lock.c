/*
 * src/lock.c - the patch lock, one-time runtime set-up, fork safety.
 *
 * One mutex serialises every change to code and to the object registry (the
 * kernel's jump_label_mutex).  It is error-checking so that a thread which
 * re-enters an update (from a signal handler that interrupted one) gets
 * -EDEADLK instead of hanging.  Fork takes the lock in the prepare handler,
 * so a child never inherits text in the middle of a batch.
 */
#include <errno.h>
#include <pthread.h>

#include "internal.h"

static pthread_mutex_t patch_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
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

static void fork_prepare(void)
{
	pthread_mutex_lock(&patch_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&patch_lock);
}

static void fork_child(void)
{
	/* The owner recorded in the mutex is the parent's thread; a fresh
	 * mutex is the only portable way to release it in the child. */
	pthread_mutex_t fresh = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	patch_lock = fresh;
	held = false;
	sk__writer_after_fork_child();
	sk__trap_after_fork_child();
	sk__threads_after_fork_child();
}

static void runtime_init_once(void)
{
	/* Registering for membarrier waits for a grace period once the process
	 * has several threads, so it happens here, from the first object's
	 * constructor, while the program is usually still single-threaded. */
	sk__sync_init();
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	sk__control_init(); /* STATICKEYS, STATICKEYS_CONTROL */
}

void sk__runtime_init(void)
{
	pthread_once(&init_once, runtime_init_once);
}
