/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/posix/thread.c - the threads the runtime starts in someone else's
 * program (the control socket's server, the STATICKEYS_FILE watcher, the
 * tracepoint watcher), and its fork handlers, on the POSIX systems.
 */
#include <pthread.h>
#include <signal.h>

#include "os/os.h"
#include "os/posix/fault_signals.h"

/* Every asynchronous signal is blocked in the new thread, so that the
 * program's handlers keep running in the program's own threads.  SIGTRAP
 * stays deliverable (a thread that blocks it must never reach a site), and
 * so do the synchronous signals of a fault. */
int sk__os_thread_create(pthread_t *thread, void *(*fn)(void *))
{
	sigset_t all, old;

	sk__os_all_but_fault_signals(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int r = pthread_create(thread, NULL, fn, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -r;
}

int sk__os_atfork(void (*prepare)(void), void (*parent)(void),
		  void (*child)(void))
{
	return -pthread_atfork(prepare, parent, child);
}
