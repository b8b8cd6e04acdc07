/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * socket.c - the control socket: where it lives and with which modes, what
 * it answers to bad requests, and that no client can stall the program.
 *
 * Checked:
 *   - the default socket is "@statickeys-PID" in the abstract namespace
 *     (no file anywhere), and is gone when the server stops;
 *   - malformed, unknown, oversized and binary requests each get an error
 *     reply and the same socket keeps working;
 *   - a client that sends requests and never reads its replies does not
 *     stop the program's own updates, and delays the next client by at
 *     most the server's send limit;
 *   - clients that send at once each get their own reply;
 *   - a forked child serves its own pid's address, the parent's keeps going;
 *   - a stale socket file is replaced; a non-socket file is refused; a
 *     server given a path is not started again in a forked child.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <statickeys.h>

#include "../check.h"
#include "client.h"

SK_DEFINE_KEY_FALSE_DESC(sock_key, "flipped through the socket");

__attribute__((noinline)) static bool sock_site(void)
{
	return sk_branch_unlikely(&sock_key) ? true : false;
}

static char path[108];

/* The abstract name appears in /proc/net/unix ("@statickeys-PID"). */
static bool listed_in_proc(const char *name)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/net/unix", "r");

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *end = line + strcspn(line, "\n");
		*end = '\0';
		size_t n = strlen(name);
		found = (size_t)(end - line) >= n && !strcmp(end - n, name);
	}
	if (f)
		fclose(f);
	return found;
}

static void test_default_path_is_abstract(void)
{
	char want[108], dir[108];

	CHECK(sk_control_start(NULL) == 0, "start at the default path");
	CHECK(sk_control_start(NULL) == -EALREADY, "second start: EALREADY");
	CHECK(sk_control_socket_path(path, sizeof(path)) == 0, "path known");
	sk_control_default_path(getpid(), NULL, want, sizeof(want));
	CHECK(strcmp(path, want) == 0 && path[0] == '@', "path %s, want %s",
	      path, want);
	CHECK(listed_in_proc(path), "%s is in /proc/net/unix", path);
	snprintf(dir, sizeof(dir), "/tmp/statickeys-%d", (int)getpid());
	CHECK(access(dir, F_OK) != 0, "no directory %s", dir);
	printf("socket %s: abstract, no file\n", path);
}

static void test_bad_requests_keep_the_socket(void)
{
	static const char *const bad[] = {
		"bogus\n", "get\n", "get a b\n", "set x\n", "set x=2\n",
		"enable a=b\n", "LIST\n", "list extra\n", "stats now\n",
		"get \x01\x02\n", "\xff\xfe\n", "enable no_such_key\n",
		"set sock_key=1 sock_key=0\n",
	};
	int fd = client_connect(path);
	CHECK(fd >= 0, "connect: %s", strerror(errno));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *r = client_ask(fd, bad[i]);
		CHECK(reply_error(r), "request %zu gets an error reply: %s", i,
		      r ? r : "(none)");
		free(r);
	}
	char nul[] = "list\0junk\n";
	client_send(fd, nul, sizeof(nul) - 1);
	char *r = client_line(fd);
	CHECK(reply_error(r) && strstr(r, "NUL"), "NUL byte refused: %s", r);
	free(r);
	char *big = malloc(10000);
	memset(big, 'a', 10000);
	client_send(fd, big, 10000);
	client_send(fd, "\n", 1);
	free(big);
	r = client_line(fd);
	CHECK(reply_error(r) && strstr(r, "longer"), "oversized: %s", r);
	free(r);
	char many[8192] = "enable";
	for (int i = 0; i < 200; i++)
		strcat(many, " k");
	strcat(many, "\n");
	r = client_ask(fd, many);
	CHECK(reply_error(r) && strstr(r, "at most"), "200 names: %s", r);
	free(r);
	r = client_ask(fd, "\n \r\n\tlist\r\n");
	CHECK(reply_ok(r) && strstr(r, "\"keys\""),
	      "blank lines get no reply; list with CRLF works: %.80s", r);
	free(r);
	r = client_ask(fd, "enable sock_key\n");
	CHECK(reply_ok(r) && sock_site(), "enable through the socket: %s", r);
	free(r);
	r = client_ask(fd, "set sock_key=0\n");
	CHECK(reply_ok(r) && !sock_site(), "set through the socket: %s", r);
	free(r);
	close(fd);
}

/* A client fills the socket with requests and never reads. */
static int stuff_without_reading(void)
{
	int fd = client_connect(path);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	long sent = 0;
	for (int i = 0; i < 100000; i++) {
		if (send(fd, "list\n", 5, MSG_NOSIGNAL) != 5)
			break;
		sent++;
	}
	printf("stuck client queued %ld requests before its socket filled\n",
	       sent);
	return fd;
}

static void test_stuck_client_delays_nothing(void)
{
	int stuck = stuff_without_reading();
	int updates = 0;
	for (int i = 0; i < 200; i++)
		updates += sk_key_enable(&sock_key) == 0 &&
			   sk_key_disable(&sock_key) == 0;
	CHECK(updates == 200, "the program's 400 updates all went through "
	      "while a client was stuck (%d pairs)", updates);
	int other = client_connect(path);
	char *r = client_ask(other, "stats\n");
	CHECK(reply_ok(r), "the next client is served (the stuck one is "
	      "skipped): %.60s", r);
	free(r);
	close(other);
	close(stuck);
}

/* Datagrams from several clients at once: each reply goes to the client
 * that asked, whatever the order they were sent in. */
static void test_replies_go_to_their_sender(void)
{
	static const char *const ask[] = { "help\n", "get sock_key\n",
					    "stats\n", "list\n" };
	static const char *const want[] = { "\"requests\"", "\"key\"",
					     "\"stats\"", "\"keys\"" };
	int fds[4];

	for (int i = 0; i < 4; i++) {
		fds[i] = client_connect(path);
		CHECK(fds[i] >= 0, "client %d has its socket", i + 1);
		client_send(fds[i], ask[i], strlen(ask[i]));
	}
	for (int i = 3; i >= 0; i--) {
		char *r = client_line(fds[i]);
		CHECK(reply_ok(r) && strstr(r, want[i]),
		      "client %d got the reply to %.*s: %.60s", i + 1,
		      (int)strlen(ask[i]) - 1, ask[i], r);
		free(r);
		close(fds[i]);
	}
}

/* A forked child serves its own pid's address (the parent served the
 * default one), and the parent's keeps serving. */
static void test_fork_child_serves_its_own(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		/* Exit code: the step that failed, for the message below. */
		char p[108], want[108];
		sk_control_default_path(getpid(), NULL, want, sizeof(want));
		if (sk_control_socket_path(p, sizeof(p)) != 0)
			_exit(1);
		if (strcmp(p, want) != 0)
			_exit(2);
		int fd = client_connect(p);
		if (fd < 0)
			_exit(3);
		char *r = client_ask(fd, "get sock_key\n");
		if (!reply_ok(r))
			_exit(4);
		_exit(sk_control_stop() == 0 ? 0 : 5);
	}
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child served its own address, and stopped it (status %#x; "
	      "exit 1: no server, 2: another address, 3: no connection, 4: "
	      "no answer, 5: not stopped)", status);
	int fd = client_connect(path);
	char *r = client_ask(fd, "help\n");
	CHECK(reply_ok(r), "the parent's server still answers: %s", r);
	free(r);
	close(fd);
}

static void test_stop_removes_the_name(void)
{
	CHECK(sk_control_stop() == 0, "stop");
	CHECK(client_connect(path) < 0 && errno == ECONNREFUSED &&
		      !listed_in_proc(path),
	      "%s is gone", path);
	CHECK(sk_control_stop() == -ESRCH, "second stop: ESRCH");
}

static void test_paths_refused_or_replaced(void)
{
	char p[108];
	struct stat st;

	snprintf(p, sizeof(p), "/tmp/sk-socket-test-%d.sock", (int)getpid());
	int stale = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	strcpy(a.sun_path, p);
	CHECK(bind(stale, (struct sockaddr *)&a, sizeof(a)) == 0, "stale bind");
	close(stale);
	CHECK(sk_control_start(p) == 0, "a stale socket is replaced");
	CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600,
	      "a socket file is mode 0600: %o", st.st_mode & 07777);
	int fd = client_connect(p);
	char *r = client_ask(fd, "get sock_key\n");
	CHECK(reply_ok(r) && strstr(r, "flipped through the socket"),
	      "served at the given path: %s", r);
	free(r);
	close(fd);
	pid_t pid = fork();
	if (pid == 0) {
		char q[108];
		_exit(sk_control_socket_path(q, sizeof(q)) == -ESRCH ? 0 : 1);
	}
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "a server given a path stays with its process: none in a child");
	sk_control_stop();
	int f = open(p, O_CREAT | O_WRONLY, 0600);
	close(f);
	CHECK(sk_control_start(p) == -EEXIST, "a regular file is not replaced");
	unlink(p);
}

int main(void)
{
	test_default_path_is_abstract();
	test_bad_requests_keep_the_socket();
	test_stuck_client_delays_nothing();
	test_replies_go_to_their_sender();
	test_fork_child_serves_its_own();
	test_stop_removes_the_name();
	test_paths_refused_or_replaced();
	return check_summary();
}
