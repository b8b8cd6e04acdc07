/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/windows/thread.c - the runtime's own threads and fork handlers on
 * Windows (winpthreads).  Windows has no asynchronous signals to keep away
 * from them (a console's Ctrl-C handler runs on a thread of its own), and
 * no fork(): there is nothing to do around one.
 */
#include <pthread.h>

#include "os/os.h"

int sk__os_thread_create(pthread_t *thread, void *(*fn)(void *))
{
	return -pthread_create(thread, NULL, fn, NULL);
}

int sk__os_atfork(void (*prepare)(void), void (*parent)(void),
		  void (*child)(void))
{
	(void)prepare, (void)parent, (void)child;
	return 0;
}
