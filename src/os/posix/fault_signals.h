/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/posix/fault_signals.h - the signal set that blocks every signal
 * but those a fault raises, for the runtime's own threads (posix/thread.c)
 * and the updating thread during a batch whose call sites are re-run
 * (linux/trap_signal.c): blocked, a fault's signal kills the process
 * instead of reaching its handler, and SIGTRAP must reach ours.
 */
#ifndef SK_OS_POSIX_FAULT_SIGNALS_H
#define SK_OS_POSIX_FAULT_SIGNALS_H

#include <signal.h>

static inline void sk__os_all_but_fault_signals(sigset_t *set)
{
	sigfillset(set);
	sigdelset(set, SIGTRAP);
	sigdelset(set, SIGSEGV);
	sigdelset(set, SIGBUS);
	sigdelset(set, SIGILL);
	sigdelset(set, SIGFPE);
}

#endif /* SK_OS_POSIX_FAULT_SIGNALS_H */
