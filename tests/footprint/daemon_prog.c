/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * daemon_prog.c - a program that knows nothing of the control socket
 * (STATICKEYS_CONTROL=1 starts it) and leaves in one of several ways.
 *
 *	daemon_prog daemon FILE   daemon(3); the child writes FILE.pid, then
 *	                          FILE.state ("on"/"off": what its site does)
 *	daemon_prog setsid FILE   the same by fork + setsid, the parent exits
 *	daemon_prog exec|abort|_exit|exit
 *	                          prints its pid, waits for a line on stdin,
 *	                          then ends that way
 *
 * A daemon runs for 60 s at most, in case nobody kills it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <statickeys.h>

SK_DEFINE_KEY_FALSE_DESC(daemon_key, "flipped in the daemonized child");

__attribute__((noinline)) static const char *daemon_site(void)
{
	return sk_branch_unlikely(&daemon_key) ? "on\n" : "off\n";
}

static void write_file(const char *base, const char *ext, const char *text)
{
	char path[4096], tmp[4200];

	snprintf(path, sizeof(path), "%s%s", base, ext);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	rename(tmp, path); /* whole, never half-written */
}

static void run_daemon(const char *file)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	write_file(file, ".pid", pid);
	for (int i = 0; i < 60 * 200; i++) {
		write_file(file, ".state", daemon_site());
		usleep(5000);
	}
	exit(0);
}

static void leave(const char *how)
{
	char line[16];

	printf("%d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return;
	if (!strcmp(how, "exec"))
		execl("/bin/sleep", "sleep", "0.2", (char *)NULL);
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "_exit"))
		_exit(0);
	exit(0);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "daemon") && argc > 2) {
		if (daemon(1, 1) != 0)
			return 1;
		run_daemon(argv[2]);
	}
	if (!strcmp(argv[1], "setsid") && argc > 2) {
		pid_t p = fork();
		if (p < 0)
			return 1;
		if (p > 0)
			exit(0);
		setsid();
		run_daemon(argv[2]);
	}
	leave(argv[1]);
	return 0;
}
