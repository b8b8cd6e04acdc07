/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/trap_signal.c - trap delivery on Linux (os/os.h): a SIGTRAP
 * handler that resumes threads caught mid-update where the architecture
 * says (arch/x86_64/trap.c), and hands every other SIGTRAP to the handler
 * installed before it, or to the default action; and the set-up of the
 * signal-mask bookkeeping that keeps SIGTRAP deliverable (sigmask.c,
 * sigmask_probe.c).
 *
 * The architecture is told nothing of signals: this file turns a SIGTRAP's
 * context into the address of the trap instruction, asks the
 * architecture's resume function (given at sk__os_trap_init) where the
 * thread goes on, and sets the context's instruction pointer.
 *
 * It also tells the architecture whether a thread has a shadow stack (x86
 * CET, Linux 6.6+: arch_prctl(ARCH_SHSTK_STATUS)), on which no return
 * address can be pushed for it, and holds the updating thread's signals
 * while a batch whose calls are not emulated runs (arch/x86_64/trap.c).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "os/linux/sigmask.h"
#include "os/linux/sigmask_probe.h"
#include "os/linux/threads_check.h"
#include "os/posix/fault_signals.h"
#include "os/os.h"
#include "support/inject.h"
#include "support/settings.h"
#include "support/stats.h"

static struct sigaction chained; /* what was installed before us */

/* The architectures whose protocol traps here: x86's, whose trap
 * instruction is int3, one byte (trapping, traps.linux: src/sources.txt). */
#if defined(__x86_64__)
#define REG_PC REG_RIP
#define REG_SP REG_RSP
#elif defined(__i386__)
#define REG_PC REG_EIP
#define REG_SP REG_ESP
#else
#error "trap delivery by SIGTRAP is written for x86's int3 only"
#endif
#define TRAP_INSN_LEN 1

/* The architecture's answer to "where does a thread that trapped here go
 * on?" (sk__os_trap_init). */
static sk__os_trap_resume_fn resume_at;

/* trap_address - for a SIGTRAP, the address of the trapping site if it was
 * a breakpoint instruction, else 0.  Signal context. */
static uintptr_t trap_address(const siginfo_t *info, const ucontext_t *uc)
{
	/* int3 in user mode is reported as SI_KERNEL by Linux, as TRAP_BRKPT
	 * by valgrind's emulation of it; single-steps, hardware breakpoints
	 * and kill()/raise() carry other codes and are not ours.  (The site
	 * lookup that follows is what really tells ours from others.)  The
	 * instruction pointer is one past the int3. */
	if (info->si_code != SI_KERNEL && info->si_code != TRAP_BRKPT)
		return 0;
	return (uintptr_t)uc->uc_mcontext.gregs[REG_PC] - TRAP_INSN_LEN;
}

/* set_pc - resume the interrupted thread at @pc, with @push (if not 0)
 * pushed on its stack, as its call would have.  Signal context: the kernel
 * put this handler's frame below the interrupted stack's red zone, so the
 * word below the stack pointer is free, as for the call itself. */
static void set_pc(ucontext_t *uc, uintptr_t pc, uintptr_t push)
{
	if (push) {
		uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_SP] -
			       sizeof(uintptr_t);
		*(uintptr_t *)sp = push;
		uc->uc_mcontext.gregs[REG_SP] = (greg_t)sp;
	}
	uc->uc_mcontext.gregs[REG_PC] = (greg_t)pc;
}

/* Run the previous handler with the signal mask it asked for: its own
 * sa_mask, plus SIGTRAP unless it was installed with SA_NODEFER (ours is). */
static void call_chained(int sig, siginfo_t *info, void *uc)
{
	sigset_t mask = chained.sa_mask, saved;

	if (!(chained.sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	pthread_sigmask(SIG_BLOCK, &mask, &saved);
	if (chained.sa_flags & SA_SIGINFO)
		chained.sa_sigaction(sig, info, uc);
	else
		chained.sa_handler(sig);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

static void chain(int sig, siginfo_t *info, void *uc)
{
	sk__count(SK__C_TRAPS_CHAINED, 1);
	if (chained.sa_flags & SA_SIGINFO) {
		if (chained.sa_sigaction) {
			call_chained(sig, info, uc);
			return;
		}
	} else if (chained.sa_handler == SIG_IGN) {
		return;
	} else if (chained.sa_handler != SIG_DFL) {
		call_chained(sig, info, uc);
		return;
	}
	/* Default action: restore it and re-raise; SIGTRAP is not blocked in
	 * our handler (SA_NODEFER), so raise() delivers it at once and the
	 * process ends with a core, as it would have without us. */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void trap_handler(int sig, siginfo_t *info, void *uc)
{
	int saved_errno = errno;
	uintptr_t addr = trap_address(info, uc);
	sk__os_trap_resume_fn resume_fn = __atomic_load_n(&resume_at,
						       __ATOMIC_ACQUIRE);
	uintptr_t push = 0;
	uintptr_t resume = addr && resume_fn ? resume_fn(addr, &push) : 0;

	if (resume) {
		SK_INJECT(SK__INJECT_IN_TRAP_HANDLER);
		set_pc(uc, resume, push);
		sk__count(SK__C_TRAPS_HANDLED, 1);
	} else {
		chain(sig, info, uc);
	}
	errno = saved_errno;
}

/* SIGTRAP's action as of our last look (sk__sigmask_sigtrap_actions), or
 * ~0: look at the next batch. */
static unsigned long actions_seen = ~0UL;

int sk__os_trap_install(void)
{
	struct sigaction cur;
	/* While the program's calls reach the sigaction wrapper, a change of
	 * SIGTRAP's action is counted there: with none since our last look,
	 * ours is still installed, and the batch saves a system call. */
	bool counted = sk__sigmask_wrappers_active();
	unsigned long before = sk__sigmask_sigtrap_actions();

	if (counted && before == actions_seen)
		return 0;
	if (sigaction(SIGTRAP, NULL, &cur) != 0)
		return -errno;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == trap_handler) {
		actions_seen = counted ? before : ~0UL;
		return 0;
	}
	/* First install, or the program replaced us since: chain to whatever
	 * is there now, so its own breakpoints keep reaching it. */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = trap_handler;
	/* Every other signal waits while the handler runs: a handler of
	 * another signal that interrupted us and ran a changing site would
	 * meet its int3 with SIGTRAP blocked, and the kernel would kill the
	 * process.  SIGTRAP itself stays unblocked (SA_NODEFER): the handler
	 * runs no site, and a thread inside it must not look, to the
	 * blocked-SIGTRAP check in threads_check.c, like a thread that blocks
	 * SIGTRAP (it would refuse updates while traps are being handled). */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGTRAP);
	chained = cur;
	if (sigaction(SIGTRAP, &sa, NULL) != 0)
		return -errno;
	/* Our own install was counted too; another in between makes the
	 * next batch look again. */
	actions_seen = counted ? before + 1 : ~0UL;
	return 0;
}

/* The signal-mask bookkeeping's set-up, once, from whichever comes first:
 * this file's constructor or the first registration (runtime.c, through
 * sk__os_trap_init).  Both run in the dynamic linker's constructors, one at
 * a time. */
static void sigmask_setup(void)
{
	static int done;

	if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
		return;
#ifndef SK_SIGMASK_LD_WRAP
	sk__sigmask_ready(); /* and, from the static library, sigmask.c */
#endif
	sk__sigmask_probe_start();
	sk__threads_check_lookup();
}

/* STATICKEYS_SHADOW_STACK=assume: act as if every thread had a shadow
 * stack (the tests take the path of CET machines on any machine).  Read at
 * start-up, never in the handler. */
static bool assume_shadow_stack;

void sk__os_trap_init(sk__os_trap_resume_fn resume)
{
	assume_shadow_stack = sk__setting(SK__SETTING_SHADOW_STACK) == 1;
	__atomic_store_n(&resume_at, resume, __ATOMIC_RELEASE);
	sigmask_setup();
}

/* <asm/prctl.h> of Linux 6.6, which older headers lack. */
#define ARCH_SHSTK_STATUS 0x5005
#define ARCH_SHSTK_SHSTK (1UL << 0)

/* Asked of the kernel at each call-site trap, for the thread that trapped
 * (a system call beside a signal delivery; glibc enables shadow stacks
 * for the whole process at start-up, but a thread may turn its own off).
 * EINVAL: a kernel without user shadow stacks.  Any other failure (a
 * seccomp filter) is taken as "yes": running the call again is right
 * with or without one. */
static bool has_shadow_stack(void)
{
#if defined(__x86_64__)
	unsigned long features = 0;
	int saved = errno;
	long r = syscall(SYS_arch_prctl, ARCH_SHSTK_STATUS, &features);
	bool unknown = r != 0 && errno != EINVAL;

	errno = saved;
	return unknown || (r == 0 && (features & ARCH_SHSTK_SHSTK));
#else
	return false; /* Linux has user shadow stacks for 64-bit code only */
#endif
}

bool sk__os_trap_can_push(void)
{
	return !assume_shadow_stack && !has_shadow_stack();
}

/* The updating thread's mask while its signals are held: one batch at a
 * time, under the patch lock. */
static sigset_t held_mask;

void sk__os_trap_hold_signals(bool hold)
{
	if (!hold) {
		pthread_sigmask(SIG_SETMASK, &held_mask, NULL);
		return;
	}
	/* Signals the batch itself could raise stay open: blocked, they
	 * would kill the process instead of reaching a handler. */
	sigset_t all;
	sk__os_all_but_fault_signals(&all);
	sigdelset(&all, SIGSYS); /* a seccomp filter's answer */
	pthread_sigmask(SIG_BLOCK, &all, &held_mask);
}

void sk__os_trap_before_lock(void)
{
#ifndef SK_SIGMASK_LD_WRAP
	/* The wrappers' lookups, if no wrapper made them yet: the trap
	 * handler's installation calls sigaction under the lock.  (With
	 * --wrap there is nothing to look up, and a reference here would
	 * link sigmask.c into programs linked without it.) */
	sk__sigmask_lookup();
#endif
}

/* Priority 101 (with the objects' registration): before ordinary
 * constructors, which may already set masks or start threads. */
__attribute__((constructor(101))) static void sigmask_setup_init(void)
{
	sigmask_setup();
}
