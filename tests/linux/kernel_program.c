/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * kernel_program.c - a long-running program of kernel-style code for the
 * skctl end-to-end test (skctl_e2e.sh): a worker thread runs the sites and
 * the main thread prints what they show, one line every 20 ms, until
 * killed (or after 120 s).
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "kernel_style.h"

static bool seen[64]; /* atomic: written by the worker, read by main */

static void *worker(void *arg)
{
	(void)arg;
	for (;;)
		for (unsigned i = 0; i < kernel_nsites && i < 64; i++)
			__atomic_store_n(&seen[i], kernel_sites[i].run(),
					 __ATOMIC_RELAXED);
	return NULL;
}

int main(void)
{
	pthread_t t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_create(&t, NULL, worker, NULL);
	for (int tick = 0; tick < 6000; tick++) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		/* One line: each site by its index, as the worker last saw it. */
		printf("tick");
		for (unsigned i = 0; i < kernel_nsites && i < 64; i++)
			printf(" %u=%d", i,
			       __atomic_load_n(&seen[i], __ATOMIC_RELAXED));
		printf("\n");
	}
	return 0;
}
