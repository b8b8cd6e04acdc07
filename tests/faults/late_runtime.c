/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * late_runtime.c - the runtime loaded late, by dlopen, after a thread
 * blocked every signal.
 *
 * This program does not link statickeys; the plugin it loads does, so the
 * runtime's mask wrappers come after the C library's and were never called
 * when the worker blocked every signal.  An update is then refused with
 * -EBUSY and a message saying why, and the process lives.  With the runtime
 * preloaded (LD_PRELOAD, argv[2] = "preloaded") the worker's mask never held
 * SIGTRAP and the same update succeeds.
 *
 *	faults_late_runtime PLUGIN [preloaded]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "capture.h"

static int blocked;

static void *worker(void *arg)
{
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	__atomic_store_n(&blocked, 1, __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	bool preloaded = argc > 2 && strcmp(argv[2], "preloaded") == 0;
	pthread_t t;
	struct capture c;

	if (argc < 2)
		skip_test("usage: faults_late_runtime PLUGIN [preloaded]");
	pthread_create(&t, NULL, worker, NULL);
	while (!__atomic_load_n(&blocked, __ATOMIC_ACQUIRE))
		usleep(100);
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL, "dlopen %s: %s", argv[1], dlerror());
	if (!h)
		return check_summary();
	int (*flip)(void) = (int (*)(void))dlsym(h, "late_plugin_enable");
	int (*on)(void) = (int (*)(void))dlsym(h, "late_plugin_site_on");
	CHECK(flip && on, "plugin symbols");
	if (!flip || !on)
		return check_summary();
	capture_begin(&c);
	int r = flip();
	capture_end(&c);
	if (preloaded) {
		CHECK(r == 0 && on() == 1, "preloaded runtime: enable returned %d, "
		      "site on: %d", r, on());
	} else {
		CHECK(r == -EBUSY, "runtime loaded late: enable returned %d, want "
		      "-EBUSY", r);
		CHECK(strstr(c.text, "loaded late") != NULL,
		      "the refusal says the runtime was loaded late: \"%s\"",
		      c.text);
		CHECK(on() == 0, "a refused update changed the site");
	}
	return check_summary();
}
