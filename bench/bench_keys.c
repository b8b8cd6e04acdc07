/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/bench_keys.c - experiments that flip real keys with many sites.
 *
 *	bench_keys latency|floor|commit|traps|disturb|locks|threads|static_call
 *		   [--json FILE]
 *		   [options]
 *
 * One experiment per run, so each starts from a fresh process: no patched
 * page, trap handler or membarrier registration carries over from another.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <statickeys.h>

#include "experiments.h"
#include "measure.h"
#include "options.h"

int bench_set_mode(const char *mode)
{
	int writer = strcmp(mode, "mprotect") == 0 ? SK_WRITER_MPROTECT
						   : SK_WRITER_PROCMEM;
	size_t limit = strcmp(mode, "one_by_one") == 0 ? 1 : 0;
	int r = sk_config_set_writer(writer);

	if (r == 0)
		r = sk_config_set_batch_limit(limit);
	return r;
}

int bench_flip(struct sk_key *key, double *us_on, double *us_off)
{
	uint64_t t0 = bench_now_ns();
	int r = sk_key_enable(key);
	uint64_t t1 = bench_now_ns();

	if (r == 0)
		r = sk_key_disable(key);
	uint64_t t2 = bench_now_ns();
	*us_on = (double)(t1 - t0) / 1e3;
	*us_off = (double)(t2 - t1) / 1e3;
	return r;
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv, struct json *j);
} experiments[] = {
	{ "latency", exp_update_latency },
	{ "floor", exp_flip_floor },
	{ "commit", exp_commit },
	{ "traps", exp_trap_hits },
	{ "disturb", exp_disturbance },
	{ "locks", exp_locks },
	{ "threads", exp_threads },
	{ "static_call", exp_static_call },
};

static void *no_op_thread(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	/* A process with threads, as the servers that flip keys are: the
	 * update protocol such a process needs.  One that has only ever had
	 * one thread writes each site whole (arch/x86_64/int3_batch.c),
	 * cheaper: --single-threaded measures that instead. */
	if (!opt_flag(argc, argv, "--single-threaded")) {
		pthread_t t;
		if (pthread_create(&t, NULL, no_op_thread, NULL) == 0)
			pthread_join(t, NULL);
	}
	if (argc < 2) {
		fprintf(stderr, "usage: %s latency|floor|commit|traps|disturb|locks|threads|static_call "
				"[--json FILE] [options]\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < sizeof(experiments) / sizeof(experiments[0]); i++) {
		if (strcmp(argv[1], experiments[i].name) != 0)
			continue;
		struct json j;
		int r = json_open(&j, opt_str(argc, argv, "--json", "-"));
		if (r) {
			fprintf(stderr, "cannot write JSON: %s\n", strerror(-r));
			return 1;
		}
		json_object(&j, NULL);
		int status = experiments[i].run(argc, argv, &j);
		json_str(&j, "status", status == 0 ? "ok"
				       : status == BENCH_SKIPPED ? "skipped"
								 : "failed");
		json_end(&j);
		if (json_close(&j) != 0)
			return 1;
		return status;
	}
	fprintf(stderr, "unknown experiment '%s'\n", argv[1]);
	return 2;
}
