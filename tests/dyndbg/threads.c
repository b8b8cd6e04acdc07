/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/dyndbg/threads.c - queries while 4 threads run 1,000 statements
 * each, over and over, for seconds.  Two sets of 10 statements are switched
 * on and off in turn (each query one commit), the other 980 are never
 * switched on; the queries come from another thread (sk_dyndbg_query),
 * then, given skctl's path, from skctl over the control socket.  Checked,
 * with a sink that reads every message: each message is whole ("site N
 * from T seq S", its own site's text), was handed over with its own
 * statement's descriptor, and comes from a statement that some query
 * switched on; every switched statement printed.  Then the same with the
 * default sink writing to a pipe: every line the pipe carries is one whole
 * message (one write(2) each).
 */
#include <pthread.h>
#include <spawn.h>
#include <statickeys.h>
#include <stdio.h>
#include <sys/wait.h>

#include "../check.h"
#include "../wait_for.h"
#include "capture.h"

#define NSITES 1000
#define NTHREADS 4
#define RUN_SECONDS 2.0 /* each phase runs at least this long */

/* site_0 ... site_999, each its own statement. */
#define SITE(n)                                                              \
	static void site_##n(int t, unsigned s)                              \
	{                                                                    \
		sk_pr_debug("site %d from %d seq %u\n", n, t, s);            \
	}
#define SITE10(p)                                                            \
	SITE(p##0) SITE(p##1) SITE(p##2) SITE(p##3) SITE(p##4) SITE(p##5)    \
	SITE(p##6) SITE(p##7) SITE(p##8) SITE(p##9)
#define SITE100(p)                                                           \
	SITE10(p##0) SITE10(p##1) SITE10(p##2) SITE10(p##3) SITE10(p##4)     \
	SITE10(p##5) SITE10(p##6) SITE10(p##7) SITE10(p##8) SITE10(p##9)
SITE10() SITE10(1) SITE10(2) SITE10(3) SITE10(4) SITE10(5) SITE10(6)
SITE10(7) SITE10(8) SITE10(9) SITE100(1) SITE100(2) SITE100(3) SITE100(4)
SITE100(5) SITE100(6) SITE100(7) SITE100(8) SITE100(9)

#define P(n) site_##n,
#define P10(p) P(p##0) P(p##1) P(p##2) P(p##3) P(p##4) P(p##5) P(p##6)       \
	P(p##7) P(p##8) P(p##9)
#define P100(p) P10(p##0) P10(p##1) P10(p##2) P10(p##3) P10(p##4)           \
	P10(p##5) P10(p##6) P10(p##7) P10(p##8) P10(p##9)
static void (*const sites[NSITES])(int, unsigned) = {
	P10() P10(1) P10(2) P10(3) P10(4) P10(5) P10(6) P10(7) P10(8) P10(9)
	P100(1) P100(2) P100(3) P100(4) P100(5) P100(6) P100(7) P100(8)
	P100(9)
};

static int stop, running;
static unsigned long printed[NSITES], bad_text, bad_site, bad_desc;
static const char *skctl_path; /* argv[1]: the skctl phase */

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
	char fn[16];
	int n;

	if (!whole(msg, len, &n)) {
		__atomic_fetch_add(&bad_text, 1, __ATOMIC_RELAXED);
		return;
	}
	/* Its own descriptor: site_N's, the line of the SITE macro. */
	snprintf(fn, sizeof(fn), "site_%d", n);
	if (strcmp(site->function, fn) != 0)
		__atomic_fetch_add(&bad_desc, 1, __ATOMIC_RELAXED);
	if (n >= 20)
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

static const char *const flips[2] = { "func site_? -p; func site_1? +p",
				      "func site_? +p; func site_1? -p" };

/* One query through skctl over the control socket at @sock: its exit. */
static int skctl_query(const char *sock, const char *query)
{
	char *argv[] = { (char *)skctl_path, (char *)"-s", (char *)sock,
			 (char *)"debug", (char *)query, NULL };
	extern char **environ;
	pid_t pid;
	int status = -1;

	posix_spawn_file_actions_t quiet; /* its "20 ... matched" lines */

	posix_spawn_file_actions_init(&quiet);
	posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
	int r = posix_spawn(&pid, skctl_path, &quiet, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&quiet);
	if (r != 0)
		return -1;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Flip the two sets, in the process or (@sock) through skctl, for
 * RUN_SECONDS and until each switched statement printed and 200 queries
 * (20 through skctl, each a process) ran. */
static void *controller(void *arg)
{
	const char *sock = arg;
	int min = sock ? 20 : 200, r;
	static int queries;
	struct wait_for w = wait_for_begin();

	queries = 0;
	for (int k = 0; (k < min || !all_printed() ||
			 wait_for_elapsed(&w) < RUN_SECONDS) &&
			!wait_for_expired(&w); k++) {
		if (sock) {
			r = skctl_query(sock, flips[k % 2]);
			CHECK(r == 0, "skctl debug exits 0, not %d", r);
		} else {
			r = sk_dyndbg_query(flips[k % 2]);
			CHECK(r == 20, "each flip matches 20 statements, not "
			      "%d", r);
		}
		queries++;
	}
	return &queries;
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

/* @sock: the queries come through skctl over that control socket. */
static void with_checking_sink(const char *sock)
{
	pthread_t th[NTHREADS], ctl;
	void *queries;

	memset(printed, 0, sizeof(printed));
	bad_text = bad_site = bad_desc = 0;
	sk_static_call_update(sk_dyndbg_sink, checking_sink);
	run(th);
	start_thread(&ctl, NULL, controller, (void *)sock);
	pthread_join(ctl, &queries);
	join(th);
	sk_dyndbg_query("func site_* -p");
	sk_static_call_update(sk_dyndbg_sink, sk_dyndbg_sink_stderr);
	unsigned long total = 0;
	for (int i = 0; i < 20; i++)
		total += printed[i];
	const char *from = sock ? "skctl" : "another thread";
	CHECK(all_printed(), "%s: every switched statement printed", from);
	CHECK(bad_text == 0, "%s: %lu messages torn or not a site's text",
	      from, bad_text);
	CHECK(bad_desc == 0, "%s: %lu messages handed over with another "
	      "statement's descriptor", from, bad_desc);
	CHECK(bad_site == 0, "%s: %lu messages from statements never switched "
	      "on", from, bad_site);
	printf("%d queries from %s while %d threads ran %d statements: %lu "
	       "messages, all whole, all from switched statements\n",
	       *(int *)queries, from, NTHREADS, NSITES, total);
}

static void from_skctl(void)
{
	char sock[] = "/tmp/sk_dyndbg_threads_XXXXXX", path[64];

	if (!skctl_path) {
		printf("skctl phase not run: no skctl path given (a cross "
		       "build runs its programs under the emulator)\n");
		return;
	}
	CHECK(mkdtemp(sock) != NULL, "a directory for the socket");
	snprintf(path, sizeof(path), "%s/s.sock", sock);
	CHECK(sk_control_start(path) == 0, "control socket at %s", path);
	with_checking_sink(path);
	CHECK(sk_control_stop() == 0, "the control socket stops");
	rmdir(sock);
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

int main(int argc, char **argv)
{
	skctl_path = argc > 1 ? argv[1] : NULL;
	with_checking_sink(NULL);
	from_skctl();
	with_default_sink();
	return check_summary();
}
