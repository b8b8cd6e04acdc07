/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * nofile_server.c - a server that sizes its descriptor table as memcached
 * does keeps serving while skctl flips its keys every 1-5 ms, threads come
 * and go and the thread check runs (issue 32: memcached's own maxconns
 * test hung under flips).
 *
 * The server (this process) does what memcached 1.6 does with `-c`:
 *   - RLIMIT_NOFILE is its connection limit, LIMIT;
 *   - it counts its own connections, plus a fixed reserve for everything
 *     else it holds (here: every descriptor open once it is set up, the
 *     library's among them, counted before any key is flipped);
 *   - a client accepted when connections + reserve >= LIMIT - 1 is told
 *     "ERROR Too many open connections" and closed (memcached's
 *     maxconns_fast): the last descriptor is kept for that;
 *   - EMFILE from accept() means "stop accepting until a connection
 *     closes" (memcached's accept_new_conns(false)).
 * So the table is exactly full at the limit: one descriptor more, taken by
 * anyone at the wrong moment, and accept() fails, the server stops
 * accepting, and the client waiting in the backlog waits for good.
 *
 * A child process fills the server as t/maxconns.t does, again and again
 * for SECONDS: it connects, says hello and waits for "OK" or the ERROR,
 * until the ERROR; then it closes every connection and waits for the
 * server to drain (for SECONDS, and on until WANT_FLIPS flips were made,
 * at most MAX_SECONDS).  A reply that does not come within REPLY_MS is a
 * hang.
 * Another child runs `skctl -p SERVER set` every 1-5 ms (one process, one
 * request each), as the flips did.  The server runs a thread that
 * creates threads all the time (so updates read new threads' masks:
 * /proc/self/task/TID/stat) and BLOCKERS threads that block every signal.
 *
 *	footprint_nofile_server SKCTL plain|file
 *
 * "file" adds STATICKEYS_FILE, rewritten every ~20 ms by the flipper (the
 * watcher reads it: its descriptor), and the audit to syslog when
 * /dev/log is there (to stderr otherwise: said so); both runs
 * record the audit, whose line names each client's command (/proc/PID/comm).
 * The control socket is started by STATICKEYS_CONTROL=1 (the test runs
 * itself again with the variables set).
 *
 * Checked: accept() never fails with EMFILE; no reply is ever late; every
 * fill keeps exactly CONNS connections and is refused at the limit; every
 * skctl run succeeded, and there were at least MIN_FLIPS during the fills.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#include <statickeys.h>

#include "../check.h"
#include "fds.h"

#define CONNS 40
#define SECONDS 10     /* fills go on at least this long ... */
#define MAX_SECONDS 25 /* ... and until WANT_FLIPS, at most this long */
#define REPLY_MS 5000
#define BLOCKERS 8
#define WANT_FLIPS 300
#define MIN_FLIPS 20 /* a loaded machine runs fewer skctl in the time */

static const char too_many[] = "ERROR Too many open connections\r\n";

SK_DEFINE_KEY_FALSE_DESC(nofile_key, "flipped by skctl during the fills");
SK_DEFINE_KEY_FALSE_DESC(file_key, "flipped through STATICKEYS_FILE");

extern char **environ;

static char service[64]; /* the server's own listening address */
static int stop;
static int *flips_done; /* shared with the children (MAP_SHARED) */

__attribute__((noinline)) static int nofile_site(void)
{
	return (sk_branch_unlikely(&nofile_key) ? 1 : 0) +
	       (sk_branch_unlikely(&file_key) ? 2 : 0);
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static socklen_t service_addr(struct sockaddr_un *a)
{
	*a = (struct sockaddr_un){ .sun_family = AF_UNIX };
	memcpy(a->sun_path, service, strlen(service));
	a->sun_path[0] = '\0';
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			   strlen(service));
}

/* ---- the clients, as t/maxconns.t ---------------------------------------- */

struct fills {
	int cycles, short_fills, hangs;
};

/* Connect and say hello: 1 kept ("OK"), 0 refused (the ERROR), -1 late. */
static int one_client(int *fd)
{
	struct sockaddr_un a;
	socklen_t len = service_addr(&a);
	char buf[64];

	*fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd < 0 || connect(*fd, (struct sockaddr *)&a, len) != 0)
		return -1;
	/* A refused client may find the connection closed already: its
	 * ERROR line is still there to read. */
	(void)send(*fd, "hello\n", 6, MSG_NOSIGNAL);
	struct pollfd p = { *fd, POLLIN, 0 };
	if (poll(&p, 1, REPLY_MS) != 1)
		return -1;
	ssize_t n = read(*fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	return !strcmp(buf, "OK\n") ? 1 : !strcmp(buf, too_many) ? 0 : -1;
}

static void clients(int drained, int report)
{
	struct fills f = { 0, 0, 0 };
	long long start = now_ms();
	int fds[CONNS + 3];
	char byte;

	while (f.hangs == 0 && now_ms() < start + MAX_SECONDS * 1000 &&
	       (now_ms() < start + SECONDS * 1000 ||
		__atomic_load_n(flips_done, __ATOMIC_RELAXED) < WANT_FLIPS)) {
		int kept = 0, n = 0, r = 1;
		while (n < CONNS + 2 && (r = one_client(&fds[n])) == 1)
			n++, kept++;
		if (r != 1)
			n += fds[n] >= 0; /* the refused or late one */
		f.hangs += r < 0;
		f.short_fills += r >= 0 && kept != CONNS;
		if (r >= 0 && kept != CONNS)
			fprintf(stderr, "fill %d: %d kept\n", f.cycles, kept);
		for (int i = 0; i < n; i++)
			close(fds[i]);
		f.cycles++;
		struct pollfd p = { drained, POLLIN, 0 };
		if (r >= 0 && (poll(&p, 1, REPLY_MS) != 1 ||
			       read(drained, &byte, 1) != 1))
			f.hangs++;
	}
	(void)!write(report, &f, sizeof(f));
	_exit(0);
}

/* ---- the flipper: skctl every 1-5 ms ------------------------------------- */

struct flips {
	int runs, failed, file_writes;
};

static int run_skctl(const char *skctl, pid_t server, int state)
{
	char pid[16], set[64];
	posix_spawn_file_actions_t quiet;
	pid_t p;
	int st = -1;

	snprintf(pid, sizeof(pid), "%d", (int)server);
	snprintf(set, sizeof(set), "nofile_key=%d", state);
	char *argv[] = { (char *)skctl, "-p", pid, "set", set, NULL };
	posix_spawn_file_actions_init(&quiet);
	posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
	int r = posix_spawn(&p, skctl, &quiet, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&quiet);
	if (r || waitpid(p, &st, 0) != p)
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Replace the followed file whole (rename), as an editor or a ConfigMap. */
static void write_file(const char *path, int state)
{
	char tmp[4200], text[32];

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	snprintf(text, sizeof(text), "file_key = %d\n", state);
	FILE *f = fopen(tmp, "w");
	if (f && fputs(text, f) >= 0 && fclose(f) == 0)
		rename(tmp, path);
}

static void flipper(const char *skctl, pid_t server, int quit, int report)
{
	struct flips f = { 0, 0, 0 };
	const char *file = getenv("STATICKEYS_FILE");
	long long next_file = 0;
	struct pollfd p = { quit, POLLIN, 0 };

	srand((unsigned)getpid());
	while (poll(&p, 1, 1 + rand() % 5) == 0) {
		f.failed += run_skctl(skctl, server, f.runs & 1) != 0;
		f.runs++;
		__atomic_store_n(flips_done, f.runs, __ATOMIC_RELAXED);
		if (file && now_ms() >= next_file) {
			write_file(file, f.file_writes++ & 1);
			next_file = now_ms() + 20;
		}
	}
	(void)!write(report, &f, sizeof(f));
	_exit(0);
}

/* ---- the server's threads ------------------------------------------------ */

static void *short_lived(void *arg)
{
	nofile_site();
	return arg;
}

/* Threads come and go: each update reads the new ones' masks. */
static void *churn(void *arg)
{
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		pthread_t t;
		if (pthread_create(&t, NULL, short_lived, NULL) == 0)
			pthread_join(t, NULL);
		usleep(200);
	}
	return arg;
}

static void *blocks_everything(void *arg)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		nofile_site();
		usleep(1000);
	}
	return arg;
}

/* ---- the server, as memcached -------------------------------------------- */

struct server {
	int lfd, drained, done;
	int conns[CONNS + 1], n;
	bool accepting, refused; /* refused: a fill reached the limit */
	int reserve, limit, emfile, rejected;
};

static void accept_one(struct server *s)
{
	int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0) {
		if (errno == EMFILE) { /* memcached: accept_new_conns(false) */
			s->emfile++;
			s->accepting = false;
		}
		return;
	}
	if (s->n + s->reserve >= s->limit - 1) { /* maxconns_fast */
		(void)!write(fd, too_many, sizeof(too_many) - 1);
		close(fd);
		s->rejected++;
		s->refused = true;
		return;
	}
	s->conns[s->n++] = fd;
}

/* A connection's hello gets "OK"; its end frees its place. */
static void serve_conn(struct server *s, int i)
{
	char buf[64];
	ssize_t n = read(s->conns[i], buf, sizeof(buf));

	if (n > 0) {
		(void)!write(s->conns[i], "OK\n", 3);
		return;
	}
	close(s->conns[i]);
	s->conns[i] = s->conns[--s->n];
	s->accepting = true; /* a connection closed: accept again */
	if (s->n == 0 && s->refused) {
		s->refused = false;
		(void)!write(s->drained, "d", 1);
	}
}

static void serve(struct server *s)
{
	struct pollfd p[CONNS + 2];

	for (;;) {
		p[0] = (struct pollfd){ s->done, POLLIN, 0 };
		p[1] = (struct pollfd){ s->accepting ? s->lfd : -1, POLLIN, 0 };
		for (int i = 0; i < s->n; i++)
			p[2 + i] = (struct pollfd){ s->conns[i], POLLIN, 0 };
		if (poll(p, (nfds_t)(2 + s->n), -1) < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			break; /* the clients are done */
		for (int i = s->n - 1; i >= 0; i--)
			if (p[2 + i].revents)
				serve_conn(s, i);
		if (p[1].revents & POLLIN)
			accept_one(s);
	}
}

static int listen_service(void)
{
	struct sockaddr_un a;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(service, sizeof(service), "@sk-nofile-test-%d", (int)getpid());
	socklen_t len = service_addr(&a);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) != 0 ||
	    listen(fd, 2 * CONNS) != 0)
		return -1;
	return fd;
}

/* ---- set-up -------------------------------------------------------------- */

/* Run this test again with the control socket (and, for "file", the file
 * and the audit) set up at start-up, as a user would. */
static void reexec(char **argv)
{
	static char file[4096];
	bool with_file = !strcmp(argv[2], "file");
	struct stat st;

	setenv("STATICKEYS_CONTROL", "1", 1);
	if (with_file) {
		snprintf(file, sizeof(file), "/tmp/sk-nofile-%d.conf",
			 (int)getpid());
		write_file(file, 0);
		setenv("STATICKEYS_FILE", file, 1);
		bool syslog = stat("/dev/log", &st) == 0 && S_ISSOCK(st.st_mode);
		setenv("STATICKEYS_AUDIT", syslog ? "syslog" : "stderr", 1);
		printf("audit to %s\n", syslog ? "syslog" : "stderr: no /dev/log "
		       "here");
	} else {
		setenv("STATICKEYS_AUDIT", "off", 1);
	}
	fflush(stdout);
	execv("/proc/self/exe", argv);
	exit(1);
}

static void start_threads(pthread_t *t)
{
	pthread_create(&t[0], NULL, churn, NULL);
	for (int i = 1; i <= BLOCKERS; i++)
		pthread_create(&t[i], NULL, blocks_everything, NULL);
}

static void report(const struct server *s, const struct fills *f,
		   const struct flips *k)
{
	printf("RLIMIT_NOFILE %d = %d connections + a reserve of %d (the "
	       "library's %s) + 1 to refuse with\n", s->limit, CONNS,
	       s->reserve, "included");
	printf("%d fills in at least %d s, %d skctl flips (1-5 ms apart), %d file "
	       "versions: %d EMFILE, %d late replies, %d short fills, %d "
	       "refused, %d skctl failed\n", f->cycles, SECONDS, k->runs,
	       k->file_writes, s->emfile, f->hangs, f->short_fills,
	       s->rejected, k->failed);
	CHECK(s->emfile == 0, "accept() never fails with EMFILE (%d times)",
	      s->emfile);
	CHECK(f->hangs == 0, "no client waits for a reply (%d did)", f->hangs);
	CHECK(f->cycles >= 5 && f->short_fills == 0, "every one of %d fills "
	      "kept %d connections and was refused at the limit (%d were "
	      "not)", f->cycles, CONNS, f->short_fills);
	CHECK(k->failed == 0 && k->runs >= MIN_FLIPS, "every one of %d skctl "
	      "flips succeeded (%d failed), and there were at least %d",
	      k->runs, k->failed, MIN_FLIPS);
}

int main(int argc, char **argv)
{
	int drained[2], done[2], quit[2], fill_rep[2], flip_rep[2];
	pthread_t threads[BLOCKERS + 1];
	struct server s = { .accepting = true };
	struct fills f = { 0, 0, 0 };
	struct flips k = { 0, 0, 0 };

	if (argc < 3)
		skip_test("usage: footprint_nofile_server SKCTL plain|file");
	if (!getenv("STATICKEYS_CONTROL"))
		reexec(argv);
	flips_done = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(flips_done != MAP_FAILED, "shared counter");
	s.lfd = listen_service();
	CHECK(s.lfd >= 0, "own listening socket");
	if (pipe2(drained, O_CLOEXEC) || pipe2(done, O_CLOEXEC) ||
	    pipe2(quit, O_CLOEXEC) || pipe2(fill_rep, O_CLOEXEC) ||
	    pipe2(flip_rep, O_CLOEXEC))
		return 1;
	pid_t kids[2] = { fork(), -1 };
	if (kids[0] == 0) {
		close(quit[1]);
		clients(drained[0], fill_rep[1]);
	}
	if ((kids[1] = fork()) == 0) {
		close(quit[1]); /* the server's end: closed means stop */
		flipper(argv[1], getppid(), quit[0], flip_rep[1]);
	}
	start_threads(threads);
	/* The reserve: everything open now, counted once, as a fixed number;
	 * no key has been flipped yet. */
	int counter = fds_counter_open();
	s.reserve = fds_count(counter) - 1;
	close(counter);
	s.limit = s.reserve + CONNS + 1;
	s.drained = drained[1];
	s.done = fill_rep[0];
	struct rlimit rl = { (rlim_t)s.limit, (rlim_t)s.limit };
	CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, "RLIMIT_NOFILE = %d",
	      s.limit);
	serve(&s); /* until the clients report */
	(void)!read(fill_rep[0], &f, sizeof(f));
	close(quit[1]);
	(void)!read(flip_rep[0], &k, sizeof(k));
	waitpid(kids[0], NULL, 0);
	waitpid(kids[1], NULL, 0);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i <= BLOCKERS; i++)
		pthread_join(threads[i], NULL);
	report(&s, &f, &k);
	if (getenv("STATICKEYS_FILE"))
		unlink(getenv("STATICKEYS_FILE"));
	return check_summary();
}
