/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * exiting.c - a request that arrives while the program exits is answered
 * "exiting", never with a false "no key".
 *
 * The program's own atexit handler is registered before the control server
 * starts, so it runs after the library's (atexit handlers run in reverse):
 * the program is exiting.  From inside it, a raw client asks to flip the
 * key and to read it, and skctl -p (a real process) asks to flip it.
 *
 * Checked: both raw requests get errno ESHUTDOWN and the word "exiting";
 * skctl exits 5 and says the program is exiting; the key is unchanged.
 * The verdict is printed from the handler, which ends the process.
 *
 *	footprint_exiting SKCTL
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>

#include <statickeys.h>

#include "../check.h"
#include "../control/client.h"

SK_DEFINE_KEY_FALSE_DESC(exiting_key, "asked for while the program exits");

static const char *skctl;
static char sock[108];

static int run_skctl(char *err, size_t len)
{
	int pipefd[2], st = -1;
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (pipe(pipefd))
		return -1;
	pid_t p = fork();
	if (p == 0) {
		dup2(pipefd[1], 2);
		execl(skctl, skctl, "-p", pid, "set", "exiting_key=1",
		      (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	ssize_t n = read(pipefd[0], err, len - 1);
	err[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void ask_while_exiting(const char *request)
{
	int fd = client_connect(sock);
	char *r = fd >= 0 ? client_ask(fd, request) : NULL;

	printf("while exiting, %.*s -> %s\n", (int)strcspn(request, "\n"),
	       request, r ? r : "(none)");
	CHECK(r && reply_error(r) && strstr(r, "\"errno\":108") &&
		      strstr(r, "exiting"),
	      "answered exiting (ESHUTDOWN): %s", r ? r : "(none)");
	CHECK(!r || !strstr(r, "no key"), "never a false 'no key'");
	free(r);
	if (fd >= 0)
		close(fd);
}

static void at_exit(void)
{
	char err[512];

	ask_while_exiting("set exiting_key=1\n");
	ask_while_exiting("get exiting_key\n");
	int rc = run_skctl(err, sizeof(err));
	printf("while exiting, skctl set: exit %d: %s", rc, err);
	CHECK(rc == 5, "skctl exits 5 (got %d)", rc);
	CHECK(strstr(err, "exiting") != NULL, "skctl says it is exiting");
	CHECK(!sk_branch_unlikely(&exiting_key), "the key is unchanged");
	int failed = check_summary();
	fflush(stdout);
	_exit(failed);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		skip_test("usage: footprint_exiting SKCTL");
	skctl = argv[1];
	atexit(at_exit); /* before the server's: it runs after it */
	CHECK(sk_control_start(NULL) == 0, "control server started");
	sk_control_socket_path(sock, sizeof(sock));
	int fd = client_connect(sock);
	char *r = client_ask(fd, "get exiting_key\n");
	CHECK(reply_ok(r), "before exit, the key is found: %s", r);
	free(r);
	close(fd);
	exit(0);
}
