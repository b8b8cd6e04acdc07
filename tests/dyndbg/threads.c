/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/dyndbg/threads.c - queries from another thread while 4 threads run
 * 32 statements each, over and over.  Two sets of 10 statements are
 * switched on and off in turn (each query one commit), the other 12 are
 * never switched on.  Checked, with a sink that reads every message: each
 * message is whole ("site N from T seq S", its own site's text) and comes
 * from a statement that some query switched on; every switched statement
 * printed.  Then the same with the default sink writing to a pipe: every
 * line the pipe carries is one whole message (one write(2) each).
 */
#include <pthread.h>
#include <statickeys.h>
#include <stdio.h>

#include "../check.h"
#include "../wait_for.h"
#include "capture.h"

#define NSITES 32
#define NTHREADS 4

#define SITE(n)                                                              \
	static void site_##n(int t, unsigned s)                              \
	{                                                                    \
		sk_pr_debug("site %d from %d seq %u\n", n, t, s);            \
	}
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7)
SITE(8) SITE(9) SITE(10) SITE(11) SITE(12) SITE(13) SITE(14) SITE(15)
SITE(16) SITE(17) SITE(18) SITE(19) SITE(20) SITE(21) SITE(22) SITE(23)
SITE(24) SITE(25) SITE(26) SITE(27) SITE(28) SITE(29) SITE(30) SITE(31)

static void (*const sites[NSITES])(int, unsigned) = {
	site_0, site_1, site_2, site_3, site_4, site_5, site_6, site_7,
	site_8, site_9, site_10, site_11, site_12, site_13, site_14, site_15,
	site_16, site_17, site_18, site_19, site_20, site_21, site_22, site_23,
	site_24, site_25, site_26, site_27, site_28, site_29, site_30, site_31,
};

static int stop, running;
static unsigned long printed[NSITES], bad_text, bad_site;

/* A whole message of one of the statements. */
static bool whole(const char *msg, size_t len, int *site)
{
	int n, t, end = 0;
	unsigned s;
	char want[64];

	if (sscanf(msg, "site %d from %d seq %u\n%n", &n, &t, &s, &end) != 3 ||
	    (size_t)end != len || n < 0 || n >= NSITES || t < 0 || t >= NTHREADS)
		return false;
	snprintf(want, sizeof(want), "site %d from %d seq %u\n", n, t, s);
	*site = n;
	return strlen(want) == len && !memcmp(want, msg, len);
}

static void checking_sink(const struct sk_dyndbg_site *site, const char *msg,
			  size_t len)
{
	int n;

	(void)site;
	if (!whole(msg, len, &n))
		__atomic_fetch_add(&bad_text, 1, __ATOMIC_RELAXED);
	else if (n >= 20)
		__atomic_fetch_add(&bad_site, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&printed[n], 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
	int t = (int)(long)arg;
	unsigned seq = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		for (int i = 0; i < NSITES; i++)
			sites[i](t, seq++);
	__atomic_fetch_sub(&running, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool all_printed(void)
{
	for (int i = 0; i < 20; i++)
		if (!__atomic_load_n(&printed[i], __ATOMIC_RELAXED))
			return false;
	return true;
}

static void *controller(void *arg)
{
	int *queries = arg, r;
	struct wait_for w = wait_for_begin();

	/* Flip the two halves until each statement printed and at least
	 * 200 queries ran. */
	for (int k = 0; (k < 200 || !all_printed()) && !wait_for_expired(&w); k++) {
		r = sk_dyndbg_query(k % 2 ? "func site_? +p; func site_1? -p"
					  : "func site_? -p; func site_1? +p");
		CHECK(r == 20, "each flip matches 20 statements, not %d", r);
		(*queries)++;
	}
	return NULL;
}

static void run(pthread_t *th)
{
	__atomic_store_n(&stop, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&running, NTHREADS, __ATOMIC_RELEASE);
	for (long t = 0; t < NTHREADS; t++)
		start_thread(&th[t], NULL, worker, (void *)t);
}

static void join(pthread_t *th)
{
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
}

static void with_checking_sink(void)
{
	pthread_t th[NTHREADS], ctl;
	int queries = 0;

	sk_static_call_update(sk_dyndbg_sink, checking_sink);
	run(th);
	start_thread(&ctl, NULL, controller, &queries);
	pthread_join(ctl, NULL);
	join(th);
	sk_dyndbg_query("func site_* -p");
	sk_static_call_update(sk_dyndbg_sink, sk_dyndbg_sink_stderr);
	unsigned long total = 0;
	for (int i = 0; i < 20; i++)
		total += printed[i];
	CHECK(all_printed(), "every switched statement printed");
	CHECK(bad_text == 0, "%lu messages torn or not a site's text", bad_text);
	CHECK(bad_site == 0, "%lu messages from statements never switched on",
	      bad_site);
	printf("%d queries while %d threads ran %d statements: %lu messages, "
	       "all whole, all from switched statements\n", queries, NTHREADS,
	       NSITES, total);
}

/* The default sink into a pipe, read by this thread while the workers
 * print: every line whole. */
static void with_default_sink(void)
{
	pthread_t th[NTHREADS];
	int p[2], saved = dup(2);
	char buf[65536], line[256];
	size_t have = 0, lines = 0, torn = 0;

	if (pipe(p) != 0)
		abort();
	dup2(p[1], 2);
	sk_dyndbg_query("func site_1? +p");
	run(th);
	struct wait_for w = wait_for_begin();
	while (lines < 20000 && !wait_for_expired(&w)) {
		ssize_t r = read(p[0], buf + have, sizeof(buf) - have);
		if (r <= 0)
			break;
		have += (size_t)r;
		char *nl, *s = buf;
		while ((nl = memchr(s, '\n', have - (size_t)(s - buf)))) {
			size_t len = (size_t)(nl - s) + 1;
			int n;
			snprintf(line, sizeof(line), "%.*s", (int)len, s);
			if (len >= sizeof(line) || !whole(line, len, &n) ||
			    n < 10 || n > 19)
				torn++;
			lines++;
			s = nl + 1;
		}
		have -= (size_t)(s - buf);
		memmove(buf, s, have);
	}
	sk_dyndbg_query("func site_1? -p");
	/* Drained until the workers are out: one blocked in write(2) on a
	 * full pipe would never see the stop. */
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	while (__atomic_load_n(&running, __ATOMIC_ACQUIRE))
		if (read(p[0], buf, sizeof(buf)) <= 0)
			sched_yield();
	join(th);
	dup2(saved, 2);
	close(saved);
	close(p[1]);
	close(p[0]);
	CHECK(lines >= 20000, "read 20000 lines (%zu)", lines);
	CHECK(torn == 0, "%zu of %zu lines torn", torn, lines);
	printf("default sink: %zu lines from %d threads through one pipe, "
	       "%zu torn\n", lines, NTHREADS, torn);
}

int main(void)
{
	with_checking_sink();
	with_default_sink();
	return check_summary();
}
