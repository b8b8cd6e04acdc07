/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/trace/semaphore_watch.c - the semaphore watcher, without a tracer:
 * the test writes a tracepoint's USDT semaphore itself, as the kernel does
 * when bpftrace or perf attach (uprobe ref_ctr_offset), and reads how the
 * tracepoint follows.  A program that defines a tracepoint has exactly one
 * extra thread, named sk-trace-watch; a forked child gets its own.
 * Latencies are printed (the 50 ms period is a design figure, not a timed
 * assertion); the deadlines checked are 5 s.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <statickeys.h>

#include "../check.h"
#include "events.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Threads of this process, and how many of them are the watcher. */
static int threads(int *watchers)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	*watchers = 0;
	while (d && (e = readdir(d))) {
		char path[300], comm[64] = "";
		if (e->d_name[0] == '.')
			continue;
		n++;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		FILE *f = fopen(path, "r");
		if (f && fgets(comm, sizeof(comm), f) &&
		    strcmp(comm, "sk-trace-watch\n") == 0)
			(*watchers)++;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/* Set the semaphore to @value; milliseconds until the tracepoint's state is
 * @on, or -1 after 5 s. */
static double follow(unsigned short value, bool on)
{
	double t0 = now();
	__atomic_store_n(sk__tp_sktest_tick.semaphore, value, __ATOMIC_RELAXED);
	while (sk_trace_sktest_tick_enabled() != on) {
		if (now() - t0 > 5)
			return -1;
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	return (now() - t0) * 1e3;
}

static void attach_detach(const char *who)
{
	double on = follow(1, true);
	CHECK(on >= 0, "%s: on after the semaphore rose", who);
	CHECK(sk_key_count(&sk__tp_sktest_tick.key) == 1,
	      "%s: one reference for the tracers", who);
	double more = follow(2, true);
	CHECK(sk_key_count(&sk__tp_sktest_tick.key) == 1,
	      "%s: still one with two tracers", who);
	(void)more;
	double off = follow(0, false);
	CHECK(off >= 0, "%s: off after the semaphore fell to 0", who);
	CHECK(sk_key_count(&sk__tp_sktest_tick.key) == 0,
	      "%s: the reference given back", who);
	printf("%s: on %.1f ms after the semaphore rose, off %.1f ms after "
	       "it fell\n", who, on, off);
}

/* ThreadSanitizer runs a background thread of its own in every process. */
#if defined(__SANITIZE_THREAD__)
#define SANITIZER_THREADS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SANITIZER_THREADS 1
#endif
#endif
#ifndef SANITIZER_THREADS
#define SANITIZER_THREADS 0
#endif

int main(void)
{
	if (!sk__tp_sktest_tick.semaphore)
		skip_test("built without sys/sdt.h: tracepoints have no USDT "
			  "probe and no semaphore to watch");
	int watchers, n = threads(&watchers);
	CHECK(n == 2 + SANITIZER_THREADS && watchers == 1,
	      "one thread of the program and the watcher: %d threads, %d "
	      "watchers", n, watchers);
	CHECK(!sk_trace_sktest_tick_enabled(), "off at first");
	attach_detach("parent");

	/* A probe's reference and the tracers' add up. */
	follow(1, true);
	CHECK(sk_key_count(&sk__tp_sktest_tick.key) == 1, "tracers: 1");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		follow(0, false); /* the child's copy, lowered by hand */
		int w, c = threads(&w);
		/* ThreadSanitizer's thread is not started again in a child. */
		CHECK(c == 2 && w == 1, "the child has its own watcher: %d "
					"threads, %d watchers", c, w);
		attach_detach("child");
		int r = check_summary();
		fflush(stdout);
		_exit(r);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "child passed: status 0x%x", status);
	CHECK(sk_trace_sktest_tick_enabled(), "the parent's tracers still on");
	follow(0, false);
	CHECK(sk_key_count(&sk__tp_sktest_tick.key) == 0, "parent back at 0");
	return check_summary();
}
