/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * nofile_server.c - a server that sizes RLIMIT_NOFILE to its connection
 * limit keeps every one of its connections while skctl flips its keys.
 *
 * The server (this process) holds its own descriptors, CONNS connections
 * and the library's documented budget (FOOTPRINT_FDS), plus one spare: a
 * client that lands on the last descriptor is refused and closed, as a
 * server that counts its descriptors does.  A child process fills the
 * server to CONNS + 1 connections and drains it, CYCLES times; during each
 * fill it runs SKCTL_AT_ONCE skctl processes at once against the server's
 * control socket, each flipping the key on a connection of its own.
 *
 * Checked: accept4() never fails with EMFILE; every fill serves exactly
 * CONNS clients and refuses the one extra; every skctl exits 0 (the
 * control clients are served in turn); the key ends in the state the last
 * skctl set.
 *
 *	footprint_nofile_server SKCTL
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <statickeys.h>

#include "../check.h"
#include "../control/client.h"
#include "fds.h"

#define CONNS 16
#define CYCLES 40
#define SKCTL_AT_ONCE 8
#define FOOTPRINT_FDS 4 /* README: "What the library takes from its host" */

SK_DEFINE_KEY_FALSE_DESC(nofile_key, "flipped by skctl during the fills");

extern char **environ;

static char service[64]; /* the server's own listening address */

/* ---- the child: clients and skctl ---------------------------------------- */

static pid_t spawn_skctl(const char *skctl, pid_t server, int cycle)
{
	char pid[16], set[64];
	posix_spawn_file_actions_t quiet;
	pid_t p;

	snprintf(pid, sizeof(pid), "%d", (int)server);
	snprintf(set, sizeof(set), "nofile_key=%d", cycle & 1);
	char *argv[] = { (char *)skctl, "-p", pid, "set", set, NULL };
	posix_spawn_file_actions_init(&quiet);
	posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
	int r = posix_spawn(&p, skctl, &quiet, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&quiet);
	return r ? -1 : p;
}

/* One fill: skctl flips and CONNS + 1 clients at once; wait for the
 * server to drain; close.  Return the number of skctl runs that failed. */
static int child_cycle(const char *skctl, pid_t server, int cycle,
		       int drained)
{
	pid_t runs[SKCTL_AT_ONCE];
	int fds[CONNS + 1], failed = 0;
	char byte;

	for (int i = 0; i < SKCTL_AT_ONCE; i++)
		runs[i] = spawn_skctl(skctl, server, cycle);
	for (int i = 0; i < CONNS + 1; i++)
		fds[i] = client_connect(service);
	(void)!read(drained, &byte, 1);
	for (int i = 0; i < CONNS + 1; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (int i = 0; i < SKCTL_AT_ONCE; i++) {
		int st = -1;
		if (runs[i] < 0 || waitpid(runs[i], &st, 0) != runs[i] ||
		    !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failed++;
	}
	return failed;
}

static void child(const char *skctl, pid_t server, int go, int drained,
		  int report)
{
	int failed = 0;
	char byte;

	for (int c = 0; c < CYCLES && read(go, &byte, 1) == 1; c++)
		failed += child_cycle(skctl, server, c, drained);
	(void)!write(report, &failed, sizeof(failed));
	_exit(0);
}

/* ---- the server ---------------------------------------------------------- */

struct fill {
	int served, refused, emfile;
};

/* Accept until CONNS clients are held and the extra one was refused (or
 * nothing arrives for 30 s: a deadline, not a measurement). */
static struct fill fill_once(int lfd, int *held, rlim_t limit)
{
	struct fill f = { 0, 0, 0 };

	while (f.served < CONNS || f.refused < 1) {
		struct pollfd p = { lfd, POLLIN, 0 };
		if (poll(&p, 1, 30000) != 1)
			break;
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			f.emfile += errno == EMFILE;
			if (errno == EMFILE)
				break; /* the client stays queued for good */
			continue;
		}
		if (f.served == CONNS || (rlim_t)fd == limit - 1) {
			close(fd); /* full, or the last descriptor: refuse */
			f.refused++;
			continue;
		}
		held[f.served++] = fd;
	}
	return f;
}

static int listen_service(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(service, sizeof(service), "@sk-nofile-test-%d", (int)getpid());
	memcpy(a.sun_path, service, strlen(service));
	a.sun_path[0] = '\0';
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				    strlen(service));
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) != 0 ||
	    listen(fd, 2 * CONNS) != 0)
		return -1;
	return fd;
}

static void serve(int lfd, int go, int drained, rlim_t limit)
{
	int held[CONNS], emfile = 0, bad_fills = 0;

	for (int c = 0; c < CYCLES; c++) {
		(void)!write(go, "g", 1);
		struct fill f = fill_once(lfd, held, limit);
		emfile += f.emfile;
		if (f.served != CONNS || f.refused != 1) {
			bad_fills++;
			fprintf(stderr, "cycle %d: served %d, refused %d\n", c,
				f.served, f.refused);
		}
		for (int i = 0; i < f.served; i++)
			close(held[i]);
		(void)!write(drained, "d", 1);
	}
	printf("%d fills of %d connections (+1 refused on the last "
	       "descriptor), %d skctl flips: %d EMFILE, %d short fills\n",
	       CYCLES, CONNS, CYCLES * SKCTL_AT_ONCE, emfile, bad_fills);
	CHECK(emfile == 0, "accept4 never fails with EMFILE (%d times)",
	      emfile);
	CHECK(bad_fills == 0, "every fill serves %d and refuses 1 (%d did "
	      "not)", CONNS, bad_fills);
}

int main(int argc, char **argv)
{
	int go[2], drained[2], report[2], failed = -1;

	if (argc < 2)
		skip_test("usage: footprint_nofile_server SKCTL");
	int counter = fds_counter_open();
	int lfd = listen_service();
	CHECK(lfd >= 0, "own listening socket");
	if (pipe2(go, O_CLOEXEC) || pipe2(drained, O_CLOEXEC) ||
	    pipe2(report, O_CLOEXEC))
		return 1;
	pid_t kid = fork();
	if (kid == 0)
		child(argv[1], getppid(), go[0], drained[0], report[1]);
	int own = fds_count(counter) - 1; /* the counter is closed now */
	close(counter);
	CHECK(sk_control_start(NULL) == 0, "control server started");
	/* Our own descriptors, the connections, the library's whole budget,
	 * and the last one, where a surplus client is refused. */
	rlim_t limit = (rlim_t)(own + CONNS + FOOTPRINT_FDS + 1);
	struct rlimit rl = { limit, limit };
	CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, "RLIMIT_NOFILE = %d",
	      (int)limit);
	printf("RLIMIT_NOFILE %d: %d of our own, %d connections, %d for the "
	       "library, 1 spare\n", (int)limit, own, CONNS, FOOTPRINT_FDS);
	serve(lfd, go[1], drained[1], limit);
	(void)!read(report[0], &failed, sizeof(failed));
	waitpid(kid, NULL, 0);
	CHECK(failed == 0, "every skctl flip succeeded (%d failed)", failed);
	CHECK(sk_branch_unlikely(&nofile_key) == ((CYCLES - 1) & 1),
	      "the key is in the state the last skctl set");
	return check_summary();
}
