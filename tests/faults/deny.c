/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * deny.c - run a program in a hostile environment, set up for real.
 *
 *	faults_deny [--membarrier=ENOSYS|EPERM] [--pwrite=EPERM] [--rwx=EACCES]
 *	            [--no-proc] -- program [args...]
 *
 * --membarrier, --pwrite, --rwx install a seccomp filter (seccomp_filter.h)
 * that makes those calls fail with the given errno.  --no-proc enters a new
 * mount namespace (inside a new user namespace when not root) and mounts an
 * empty tmpfs over /proc, so /proc/self/mem and /proc/self/task do not
 * exist.  Then the program is executed: the filters and the namespace are
 * inherited, so the runtime meets them from its very first constructor.
 *
 * Exit code 77 (skipped, with the reason) when the kernel refuses to set up
 * the environment; otherwise the program's own exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "../check.h"
#include "seccomp_filter.h"

static int errno_named(const char *name)
{
	static const struct { const char *n; int e; } names[] = {
		{ "ENOSYS", ENOSYS }, { "EPERM", EPERM },
		{ "EACCES", EACCES }, { "EINVAL", EINVAL },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i].n) == 0)
			return names[i].e;
	fprintf(stderr, "faults_deny: unknown errno name %s\n", name);
	exit(2);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd >= 0) {
		(void)!write(fd, text, strlen(text));
		close(fd);
	}
}

/* A private mount namespace whose /proc is an empty tmpfs. */
static void hide_proc(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	skip_test("sanitizer run-times read /proc/self/maps at start-up; "
		  "a process without /proc cannot host them");
#endif
	if (unshare(CLONE_NEWNS) != 0) {
		/* Not root: a user namespace grants the right to mount. */
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
			skip_test("unshare of a mount namespace refused here");
		write_file("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
		write_file("/proc/self/uid_map", map);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
		write_file("/proc/self/gid_map", map);
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("none", "/proc", "tmpfs", MS_NOSUID | MS_NODEV, "size=4k") != 0)
		skip_test("mounting over /proc refused in the new namespace");
	if (access("/proc/self/mem", F_OK) == 0) {
		fprintf(stderr, "faults_deny: /proc/self/mem still visible\n");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct denial d = { 0 };
	bool no_proc = false;
	int i = 1;

	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strncmp(argv[i], "--membarrier=", 13) == 0)
			d.membarrier = errno_named(argv[i] + 13);
		else if (strncmp(argv[i], "--pwrite=", 9) == 0)
			d.pwrite = errno_named(argv[i] + 9);
		else if (strncmp(argv[i], "--rwx=", 6) == 0)
			d.rwx = errno_named(argv[i] + 6);
		else if (strcmp(argv[i], "--no-proc") == 0)
			no_proc = true;
		else
			break;
	}
	if (i + 1 >= argc || strcmp(argv[i], "--") != 0) {
		fprintf(stderr, "usage: faults_deny [options] -- program...\n");
		return 2;
	}
	if (no_proc)
		hide_proc();
	if ((d.membarrier || d.pwrite || d.rwx) && deny_install(&d, 0) != 0)
		skip_test("this kernel refuses seccomp filters");
	fflush(stdout);
	execv(argv[i + 1], argv + i + 1);
	perror("faults_deny: exec");
	return 2;
}
