/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/startup_spawn.c - experiment 10's timer: how long a program takes
 * from fork to its exit, for several programs in alternation.
 *
 *	bench_startup --runs 300 PROG... [--json FILE]
 *
 * Each run forks, execs PROG (no arguments) and waits for it; the time is
 * taken around the three.  The programs take turns (run 1 of each, run 2 of
 * each, ..., the first program of a round rotating), so a load that comes
 * and goes on a shared machine falls on all of them alike.  Prints the
 * median, 10th and 90th percentile of each in microseconds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"
#include "measure.h"
#include "options.h"

#define MAX_PROGS 16

/* One fork + exec + wait of @path; its duration in us, or -1. */
static double spawn_us(const char *path)
{
	int status;
	uint64_t t0 = bench_now_ns();
	pid_t pid = fork();

	if (pid == 0) {
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	uint64_t t1 = bench_now_ns();
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return (double)(t1 - t0) / 1e3;
}

int main(int argc, char **argv)
{
	long runs = opt_long(argc, argv, "--runs", 300);
	const char *out = opt_str(argc, argv, "--json", "-");
	const char *progs[MAX_PROGS];
	struct samples s[MAX_PROGS] = { 0 };
	int n = 0;

	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--", 2) == 0) {
			i++; /* an option and its value */
			continue;
		}
		if (n < MAX_PROGS)
			progs[n++] = argv[i];
	}
	if (n == 0) {
		fprintf(stderr, "usage: %s [--runs N] [--json FILE] PROG...\n",
			argv[0]);
		return 2;
	}
	for (long r = 0; r < runs; r++) {
		for (int k = 0; k < n; k++) {
			int p = (int)((k + r) % n);
			double us = spawn_us(progs[p]);
			if (us < 0) {
				fprintf(stderr, "%s failed\n", progs[p]);
				return 1;
			}
			samples_add(&s[p], us);
		}
	}
	struct json j;
	if (json_open(&j, out) != 0)
		return 1;
	json_object(&j, NULL);
	json_array(&j, "startup");
	for (int p = 0; p < n; p++) {
		json_object(&j, NULL);
		json_str(&j, "program", progs[p]);
		json_num(&j, "median_us", samples_median(&s[p]));
		json_num(&j, "p10_us", samples_quantile(&s[p], 0.1));
		json_num(&j, "p90_us", samples_quantile(&s[p], 0.9));
		json_int(&j, "runs", (long long)s[p].n);
		json_end(&j);
		samples_free(&s[p]);
	}
	json_end(&j);
	json_str(&j, "status", "ok");
	json_end(&j);
	return json_close(&j) ? 1 : 0;
}
