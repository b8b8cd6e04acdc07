/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/trace/file_on.c - a tracepoint is a key like any other: turned on by
 * a STATICKEYS_FILE line "sktest:tick = 1" before main, and off again when
 * the file says 0; STATICKEYS=sktest:other=1 turns on another.  Probes
 * registered meanwhile add their reference to the file's.
 *
 * The test writes the file, then runs itself again with the variables set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <statickeys.h>

#include "../check.h"
#include "events.h"

static int calls;
static void probe(void *data, int n, long v)
{
	(void)data;
	(void)n;
	(void)v;
	calls++;
}

static void write_file(const char *path, const char *text)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	FILE *f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path)) {
		perror(path);
		exit(1);
	}
}

static int traced_run(const char *path)
{
	CHECK(sk_trace_sktest_tick_enabled(),
	      "on before main: STATICKEYS_FILE says sktest:tick = 1");
	CHECK(sk_trace_sktest_other_enabled(),
	      "on before main: STATICKEYS=sktest:other=1");
	CHECK(sk_register_trace_sktest_tick(probe, NULL) == 0, "register");
	for (int i = 0; i < 10; i++)
		sk_trace_sktest_tick(i, i);
	CHECK(calls == 10, "the probe saw 10 firings: %d", calls);
	CHECK(sk_unregister_trace_sktest_tick(probe, NULL) == 0, "unregister");
	CHECK(sk_trace_sktest_tick_enabled(), "still on: the file's reference");

	write_file(path, "sktest:tick = 0\n");
	struct timespec ms = { 0, 1000000 };
	int waited = 0;
	while (sk_trace_sktest_tick_enabled() && waited < 5000) {
		nanosleep(&ms, NULL);
		waited++;
	}
	CHECK(!sk_trace_sktest_tick_enabled(),
	      "off after the file said 0 (waited %d ms)", waited);
	printf("the file's 0 applied within %d ms\n", waited);
	return check_summary();
}

int main(int argc, char **argv)
{
	const char *path = getenv("STATICKEYS_FILE");
	(void)argc;
	if (path)
		return traced_run(path);

	char dir[] = "/tmp/sk_trace_file_XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char file[sizeof(dir) + 16];
	snprintf(file, sizeof(file), "%s/keys.conf", dir);
	write_file(file, "sktest:tick = 1\n");
	setenv("STATICKEYS_FILE", file, 1);
	setenv("STATICKEYS", "sktest:other=1", 1);
	pid_t pid = fork();
	if (pid == 0) {
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	unlink(file);
	rmdir(dir);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
