/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skdemo - a small program whose static keys change what it visibly does.
 *
 *	skdemo [-c] [-n TICKS] [-i MILLISECONDS] [-t THREADS]
 *
 * Worker threads run a loop full of sites all the time; once per tick the
 * main thread prints one status line built by executing sites, never by
 * asking the runtime, so the line shows what the code really does:
 *
 *	tick 7 greeting=1 shout=0 tracing=1 checksums=0 traced=+18000 Hello, world
 *
 * -c (or STATICKEYS_CONTROL=1) serves the control socket; then
 * `skctl -p PID list` shows the keys and `skctl -p PID set shout=1` flips them
 * while the workers keep running; `skctl -p PID calls` shows the static call
 * that words the greeting, `skctl -p PID call greeting_text=french` switches
 * it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <statickeys.h>

SK_DEFINE_KEY_TRUE_DESC(greeting, "print the greeting at the end of each line");
SK_DEFINE_KEY_FALSE_DESC(shout, "print the greeting in capitals");
SK_DEFINE_KEY_FALSE_DESC(tracing, "count traced events in the worker threads");
SK_DEFINE_KEY_FALSE_DESC(checksums, "checksum every work item in the workers");

/* The greeting's words: a static call, which `skctl -p PID calls` lists
 * and `skctl -p PID call greeting_text=french` switches. */
static const char *hello_english(int shout_it)
{
	return shout_it ? " HELLO, WORLD" : " Hello, world";
}
static const char *hello_french(int shout_it)
{
	return shout_it ? " BONJOUR, LE MONDE" : " Bonjour, le monde";
}
SK_DEFINE_STATIC_CALL(greeting_text, hello_english);
SK_STATIC_CALL_TARGET(greeting_text, hello_english, "english");
SK_STATIC_CALL_TARGET(greeting_text, hello_french, "french");

static unsigned long traced, checksummed;
static volatile sig_atomic_t stop;

/* SIGINT and SIGTERM end the demo cleanly, so its socket is removed. */
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* One unit of work: the sites every worker executes all the time. */
__attribute__((noinline)) static unsigned work(unsigned x)
{
	if (sk_branch_unlikely(&tracing))
		__atomic_fetch_add(&traced, 1, __ATOMIC_RELAXED);
	if (sk_branch_unlikely(&checksums)) {
		x = x * 2654435761u + 1;
		__atomic_fetch_add(&checksummed, 1, __ATOMIC_RELAXED);
	}
	return x + 1;
}

static void *worker(void *arg)
{
	unsigned x = (unsigned)(uintptr_t)arg;
	struct timespec pause = { 0, 1000000 };

	/* Bursts with short sleeps: sites stay busy without eating a CPU. */
	while (!stop) {
		for (int i = 0; i < 10000; i++)
			x = work(x);
		nanosleep(&pause, NULL);
	}
	return (void *)(uintptr_t)x;
}

__attribute__((noinline)) static int site_greeting(void)
{
	return sk_branch_likely(&greeting) ? 1 : 0;
}
__attribute__((noinline)) static int site_shout(void)
{
	return sk_branch_unlikely(&shout) ? 1 : 0;
}
__attribute__((noinline)) static int site_tracing(void)
{
	return sk_branch_unlikely(&tracing) ? 1 : 0;
}
__attribute__((noinline)) static int site_checksums(void)
{
	return sk_branch_unlikely(&checksums) ? 1 : 0;
}

static void print_tick(unsigned long tick, unsigned long *last_traced)
{
	unsigned long t = __atomic_load_n(&traced, __ATOMIC_RELAXED);
	const char *message = "";

	if (site_greeting())
		message = sk_static_call(greeting_text)(site_shout());
	printf("tick %lu greeting=%d shout=%d tracing=%d checksums=%d "
	       "traced=+%lu%s\n",
	       tick, site_greeting(), site_shout(), site_tracing(),
	       site_checksums(), t - *last_traced, message);
	/* A debug statement (docs/dynamic-debug.md): `skctl debug PID
	 * 'func print_tick +p'` turns it on; to stderr. */
	sk_pr_debug("tick %lu: %lu traced\n", tick, t - *last_traced);
	*last_traced = t;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: skdemo [-c] [-n TICKS] [-i MILLISECONDS] "
		   "[-t THREADS]\n"
		   "  -c  serve the control socket (as STATICKEYS_CONTROL=1)\n"
		   "  -n  exit after TICKS status lines (default: run until "
		   "killed)\n"
		   "  -i  time between status lines (default 1000 ms)\n"
		   "  -t  worker threads (default 2)\n");
}

int main(int argc, char **argv)
{
	unsigned long ticks = 0, interval_ms = 1000, nthreads = 2;
	int control = 0, opt;

	while ((opt = getopt(argc, argv, "cn:i:t:h")) != -1) {
		switch (opt) {
		case 'c': control = 1; break;
		case 'n': ticks = strtoul(optarg, NULL, 10); break;
		case 'i': interval_ms = strtoul(optarg, NULL, 10); break;
		case 't': nthreads = strtoul(optarg, NULL, 10); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	char path[256];
	if (control) {
		int r = sk_control_start(NULL);
		if (r && r != -EALREADY)
			fprintf(stderr, "skdemo: control socket: %s\n",
				strerror(-r));
	}
	if (sk_control_socket_path(path, sizeof(path)) == 0)
		printf("skdemo: pid %d, control socket %s\n", (int)getpid(), path);
	else
		printf("skdemo: pid %d, no control socket (use -c)\n",
		       (int)getpid());
	pthread_t *threads = calloc(nthreads, sizeof(*threads));
	for (unsigned long i = 0; i < nthreads; i++)
		pthread_create(&threads[i], NULL, worker, (void *)(uintptr_t)i);
	unsigned long last = 0;
	struct timespec step = { (time_t)(interval_ms / 1000),
				 (long)(interval_ms % 1000) * 1000000 };
	for (unsigned long tick = 1; !stop && (ticks == 0 || tick <= ticks);
	     tick++) {
		if (nanosleep(&step, NULL) != 0)
			break;
		print_tick(tick, &last);
	}
	stop = 1;
	for (unsigned long i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	sk_control_stop();
	return 0;
}
