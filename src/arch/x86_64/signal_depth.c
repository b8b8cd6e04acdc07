/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/x86_64/signal_depth.c - is this thread running a signal handler?
 *
 * The slow paths take a mutex and allocate memory, neither of which is
 * async-signal-safe: an update from a handler that interrupted malloc or the
 * lock holder would deadlock, so it is refused (-EDEADLK).  Instead of
 * unwinding the stack on every update to look for a signal frame (most of
 * the instructions of a one-site flip, and an abort in a fully static
 * program), each thread keeps a count of the handlers it is running, in
 * initial-exec thread-local storage (no allocation, no lazy set-up, safe in
 * a handler): the runtime's own SIGTRAP handler raises it, and so does a
 * trampoline the mask wrappers put around every handler the program
 * installs (sk__signal_trampoline, jemalloc's "reentrancy level").
 *
 * A handler that leaves by siglongjmp() or longjmp() never comes back to
 * lower the count.  So each level also records where its handler's frame
 * is: the stack pointer, and whether it runs on the alternate signal stack.
 * A level is still live only while the caller is below that frame on the
 * same stack (stacks grow down on every architecture we support); levels
 * found left are dropped.  A handler that runs on the alternate stack and is
 * left for the thread's own stack is seen as left too.  The jump wrappers
 * also drop every level above the jump's target when they can tell it
 * (sk__signal_depth_jump).
 *
 * What is not counted: handlers installed before the runtime was loaded,
 * or with a raw rt_sigaction system call (neither passes through the
 * wrappers).  An update from such a handler is treated as an update from
 * ordinary code.
 */
#include <signal.h>
#include <stdint.h>
#include <ucontext.h>

#include "arch/x86_64/x86_64.h"

#define LEVELS 4

struct level {
	uintptr_t sp;
	bool alt; /* on the alternate signal stack */
};

struct depth {
	unsigned n; /* handlers running; levels[] holds the innermost LEVELS */
	struct level levels[LEVELS];
};

static __thread struct depth depth __attribute__((tls_model("initial-exec")));

static bool tracked;

void sk__signal_depth_track(void)
{
	__atomic_store_n(&tracked, true, __ATOMIC_RELAXED);
}

bool sk__signal_depth_tracked(void)
{
	return __atomic_load_n(&tracked, __ATOMIC_RELAXED);
}

static uintptr_t here(void)
{
	return (uintptr_t)__builtin_frame_address(0);
}

/* Is @sp on the alternate signal stack the thread has now? */
static bool on_alt_stack(uintptr_t sp)
{
	stack_t ss;

	if (sigaltstack(NULL, &ss) != 0 || (ss.ss_flags & SS_DISABLE))
		return false;
	return sp >= (uintptr_t)ss.ss_sp &&
	       sp < (uintptr_t)ss.ss_sp + ss.ss_size;
}

static bool level_live(const struct level *l, uintptr_t sp, bool alt)
{
	if (l->alt && !alt)
		return false; /* back on the thread's own stack */
	if (!l->alt && alt)
		return true; /* a nested handler on the alternate stack */
	return sp < l->sp;
}

/* Drop the innermost levels the caller (at @sp, @alt) is no longer in. */
static void drop_left(uintptr_t sp, bool alt)
{
	while (depth.n > 0 && depth.n <= LEVELS &&
	       !level_live(&depth.levels[depth.n - 1], sp, alt))
		depth.n--;
}

void sk__signal_depth_enter(const void *ucontext)
{
	const ucontext_t *uc = ucontext;
	uintptr_t sp = here();
	bool alt = false;

	/* The kernel saved the thread's alternate stack in the context. */
	if (uc && !(uc->uc_stack.ss_flags & SS_DISABLE))
		alt = sp >= (uintptr_t)uc->uc_stack.ss_sp &&
		      sp < (uintptr_t)uc->uc_stack.ss_sp + uc->uc_stack.ss_size;
	drop_left(sp, alt);
	if (depth.n < LEVELS)
		depth.levels[depth.n] = (struct level){ sp, alt };
	/* The handler may be interrupted by another: the level is written
	 * before the count that makes it visible. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	depth.n++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

void sk__signal_depth_leave(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (depth.n > 0)
		depth.n--;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

void sk__signal_depth_jump(uintptr_t target_sp)
{
	/* Every level whose frame is below the jump's target is left (the
	 * question costs a system call: only asked inside a handler). */
	if (__atomic_load_n(&depth.n, __ATOMIC_RELAXED) == 0)
		return;
	bool alt = on_alt_stack(target_sp);
	while (depth.n > 0 && depth.n <= LEVELS &&
	       !level_live(&depth.levels[depth.n - 1], target_sp, alt))
		depth.n--;
}

bool sk__signal_depth_in_handler(void)
{
	if (__atomic_load_n(&depth.n, __ATOMIC_RELAXED) == 0)
		return false;
	uintptr_t sp = here();
	drop_left(sp, on_alt_stack(sp));
	return depth.n > 0;
}

/* ---- the trampoline around the program's handlers ------------------------- */

/* The program's handler of each signal, behind the trampoline installed in
 * its place, and the flags it asked for (for the old action we report). */
#ifndef _NSIG /* glibc's and musl's name; elsewhere: past the last signal */
#define _NSIG (SIGRTMAX + 1)
#endif
static void (*volatile program_handler[_NSIG])(int, siginfo_t *, void *);
static volatile int program_flags[_NSIG];

static void trampoline(int sig, siginfo_t *info, void *uc)
{
	void (*h)(int, siginfo_t *, void *) =
		__atomic_load_n(&program_handler[sig], __ATOMIC_ACQUIRE);

	sk__signal_depth_enter(uc);
	/* A handler installed without SA_SIGINFO takes only the signal
	 * number; the two extra arguments are harmless to it under the C
	 * calling conventions of Linux. */
	if (h)
		h(sig, info, uc);
	sk__signal_depth_leave();
}

static bool is_handler(const struct sigaction *act)
{
	return act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
}

const struct sigaction *sk__signal_trampoline_wrap(int sig,
						    const struct sigaction *act,
						    struct sigaction *copy)
{
	if (!act || sig <= 0 || sig >= _NSIG || !is_handler(act) ||
	    act->sa_sigaction == trampoline)
		return act;
	*copy = *act;
	__atomic_store_n(&program_flags[sig], act->sa_flags, __ATOMIC_RELAXED);
	__atomic_store_n(&program_handler[sig],
			 (void (*)(int, siginfo_t *, void *))act->sa_sigaction,
			 __ATOMIC_RELEASE);
	copy->sa_sigaction = trampoline;
	copy->sa_flags |= SA_SIGINFO;
	return copy;
}

void sk__signal_trampoline_unwrap(int sig, struct sigaction *old)
{
	if (!old || sig <= 0 || sig >= _NSIG || !(old->sa_flags & SA_SIGINFO) ||
	    old->sa_sigaction != trampoline)
		return;
	int flags = __atomic_load_n(&program_flags[sig], __ATOMIC_RELAXED);
	old->sa_sigaction = __atomic_load_n(&program_handler[sig],
					    __ATOMIC_ACQUIRE);
	old->sa_flags = (old->sa_flags & ~SA_SIGINFO) | (flags & SA_SIGINFO);
}
