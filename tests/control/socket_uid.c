/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * socket_uid.c - a client running as another user is refused.
 *
 * Run as root (CI does): skctl is copied where any user can run it, then
 * run as uid/gid 65534 with setpriv(1).  First against the default socket,
 * an abstract name that any user can connect to (no file modes): skctl
 * itself asks who serves it (SCM_CREDENTIALS) and will not talk to another
 * user's program, and a raw client of uid 65534 that asks anyway is
 * refused by the server's SCM_CREDENTIALS check.  Then against a socket file
 * the test deliberately opens to everyone (mode 0666 in a 0777 directory),
 * where the server's check must refuse skctl.  The same skctl run as root
 * succeeds on the same socket, so the refusal is about the uid.
 */
#define _GNU_SOURCE /* setresuid */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <statickeys.h>

#include "../check.h"
#include "client.h"

SK_DEFINE_KEY_FALSE(uid_key);

__attribute__((noinline)) static bool uid_site(void)
{
	return sk_branch_unlikely(&uid_key) ? true : false;
}

/* Run @argv, return its exit status; its stderr goes to @err. */
static int run(char *const argv[], char *err, size_t errlen)
{
	int pipefd[2];
	if (pipe(pipefd))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 2);
		dup2(pipefd[1], 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < errlen && (r = read(pipefd[0], err + n, errlen - n - 1)) > 0)
		n += (size_t)r;
	err[n] = '\0';
	close(pipefd[0]);
	int status;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int copy_file(const char *from, const char *to)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod 0755 '%s'", from, to,
		 to);
	return system(cmd);
}

static int as_nobody(const char *skctl, const char *sock, const char *cmd,
		     char *out, size_t len)
{
	char *argv[] = { "setpriv", "--reuid=65534", "--regid=65534",
			 "--clear-groups", (char *)skctl, "-s", (char *)sock,
			 (char *)cmd, "uid_key", NULL };
	return run(argv, out, len);
}

/* Connect to @sock as uid 65534 without any check of our own, ask to
 * enable the key, and put the reply line in @out. */
static void raw_client_as_nobody(const char *sock, char *out, size_t len)
{
	int pipefd[2];

	snprintf(out, len, "(no reply)");
	if (pipe(pipefd))
		return;
	pid_t pid = fork();
	if (pid == 0) {
		char *r = NULL;
		if (setresgid(65534, 65534, 65534) == 0 &&
		    setresuid(65534, 65534, 65534) == 0) {
			int fd = client_connect(sock);
			/* The refusal may close the connection before the
			 * request is sent; the reason still waits to be read. */
			if (fd >= 0)
				client_send(fd, "enable uid_key\n", 15);
			r = fd >= 0 ? client_line(fd) : NULL;
		}
		dprintf(pipefd[1], "%s", r ? r : "(none)");
		_exit(0);
	}
	close(pipefd[1]);
	ssize_t n = read(pipefd[0], out, len - 1);
	close(pipefd[0]);
	waitpid(pid, NULL, 0);
	if (n > 0)
		out[n] = '\0';
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/sk-uid-test-XXXXXX", skctl[256], sock[256], out[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: %s SKCTL\n", argv[0]);
		return 2;
	}
	if (geteuid() != 0)
		skip_test("switching to another uid needs root");
	if (system("command -v setpriv >/dev/null 2>&1") != 0)
		skip_test("setpriv (util-linux) is not installed");
	if (!mkdtemp(tmp) || chmod(tmp, 0777) != 0)
		return 1;
	snprintf(skctl, sizeof(skctl), "%s/skctl", tmp);
	CHECK(copy_file(argv[1], skctl) == 0, "copy skctl to %s", skctl);
	char *help_argv[] = { "setpriv", "--reuid=65534", "--regid=65534",
			      "--clear-groups", skctl, "--help", NULL };
	if (run(help_argv, out, sizeof(out)) != 0) {
		unlink(skctl);
		rmdir(tmp);
		skip_test("uid 65534 cannot run a program from /tmp here "
			  "(noexec mount?)");
	}

	CHECK(sk_control_start(NULL) == 0, "start at the default path");
	sk_control_socket_path(sock, sizeof(sock));
	int rc = as_nobody(skctl, sock, "enable", out, sizeof(out));
	printf("uid 65534, default socket: exit %d: %s", rc, out);
	CHECK(rc == 3, "refused with exit status 3 (got %d)", rc);
	CHECK(strstr(out, "served by uid 0, not by you") != NULL,
	      "skctl will not talk to another user's program");
	raw_client_as_nobody(sock, out, sizeof(out));
	printf("uid 65534, raw client on the default socket: %s\n", out);
	CHECK(strstr(out, "uid 65534 may not control") != NULL,
	      "a raw client is refused by the server's SCM_CREDENTIALS check");
	CHECK(!uid_site(), "uid_key unchanged");
	sk_control_stop();

	snprintf(sock, sizeof(sock), "%s/open.sock", tmp);
	CHECK(sk_control_start(sock) == 0, "start at %s", sock);
	CHECK(chmod(sock, 0666) == 0, "open the socket to everyone");
	rc = as_nobody(skctl, sock, "enable", out, sizeof(out));
	printf("uid 65534, socket mode 0666: exit %d: %s", rc, out);
	CHECK(rc == 3, "refused with exit status 3 (got %d)", rc);
	raw_client_as_nobody(sock, out, sizeof(out));
	printf("uid 65534, raw client, socket mode 0666: %s\n", out);
	CHECK(strstr(out, "uid 65534 may not control") != NULL,
	      "refused by the SCM_CREDENTIALS check");
	CHECK(!uid_site(), "uid_key unchanged");
	char *root_argv[] = { skctl, "-s", sock, "enable", "uid_key", NULL };
	rc = run(root_argv, out, sizeof(out));
	CHECK(rc == 0 && uid_site(), "the same skctl as root flips the key "
	      "(exit %d: %s)", rc, out);
	sk_control_stop();
	unlink(skctl);
	rmdir(tmp);
	return check_summary();
}
