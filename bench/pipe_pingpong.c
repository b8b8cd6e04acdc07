/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/pipe_pingpong.c - experiment 2: the tracepoint case, end to end.
 *
 *	bench_pipe [--messages N] [--runs R] [--json FILE]
 *	bench_pipe --one VARIANT --checks C --ipc threads|processes --messages N
 *
 * Two threads (or two processes) pass a message back and forth through a
 * pair of pipes, as the kernel's pipe-test / `perf bench sched pipe` does.
 * Every message received goes through 8 or 32 disabled checks, each on its
 * own key or flag (distinct tracepoints), before it is sent back.  Variants:
 * static keys, a plain flag, an __builtin_expect flag and a relaxed atomic
 * flag.  Runs of all variants are interleaved; the figure is the median of
 * per-run elapsed times and the ratio to the plain flag in the same round.
 * "--one" runs a single configuration once (used under cachegrind).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <statickeys.h>

#include "json.h"
#include "measure.h"
#include "options.h"

#define REP8(m, b) m(b##0) m(b##1) m(b##2) m(b##3) m(b##4) m(b##5) m(b##6) m(b##7)
#define REP8_0(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7)
#define REP32(m) REP8_0(m) REP8(m, 1) REP8(m, 2) REP8(m, 3)

#define DEF_KEY(i) SK_DEFINE_KEY_FALSE(tp_key##i);
REP32(DEF_KEY)
int tp_flag[40];
unsigned long tp_hits;

/* What an enabled tracepoint would do; never called in this benchmark. */
__attribute__((noipa)) static void trace_hit(int tp, long msg)
{
	tp_hits += (unsigned long)(tp + msg);
}

#define STATIC_TP(i) if (sk_branch_unlikely(&tp_key##i)) trace_hit(i, msg);
#define FLAG_TP(i) if (tp_flag[i]) trace_hit(i, msg);
#define EXPECT_TP(i) if (__builtin_expect(tp_flag[i], 0)) trace_hit(i, msg);
#define ATOMIC_TP(i)                                                         \
	if (__atomic_load_n(&tp_flag[i], __ATOMIC_RELAXED))                  \
		trace_hit(i, msg);

#define PATHS(name, tp)                                                      \
	__attribute__((noipa)) static void name##_8(long msg) { REP8_0(tp) } \
	__attribute__((noipa)) static void name##_32(long msg) { REP32(tp) }
PATHS(static, STATIC_TP)
PATHS(flag, FLAG_TP)
PATHS(expect, EXPECT_TP)
PATHS(atomic, ATOMIC_TP)

static const struct variant {
	const char *name;
	void (*path8)(long), (*path32)(long);
} variants[] = {
	{ "static", static_8, static_32 },
	{ "flag", flag_8, flag_32 },
	{ "flag_expect", expect_8, expect_32 },
	{ "flag_atomic", atomic_8, atomic_32 },
};
#define NV (sizeof(variants) / sizeof(variants[0]))

struct side {
	int in, out;
	long messages;
	void (*path)(long);
};

/* Receive, run the checks, answer; the initiator sends first. */
static void *echo(void *arg)
{
	struct side *s = arg;
	long msg;

	for (long i = 0; i < s->messages; i++) {
		if (read(s->in, &msg, sizeof(msg)) != sizeof(msg))
			break;
		s->path(msg);
		msg++;
		if (write(s->out, &msg, sizeof(msg)) != sizeof(msg))
			break;
	}
	return NULL;
}

static void initiate(struct side *s)
{
	long msg = 0;

	for (long i = 0; i < s->messages; i++) {
		if (write(s->out, &msg, sizeof(msg)) != sizeof(msg) ||
		    read(s->in, &msg, sizeof(msg)) != sizeof(msg))
			break;
		s->path(msg);
	}
}

/* One ping-pong of @messages round-trip halves; elapsed ms, or < 0. */
static double pingpong(void (*path)(long), long messages, int processes)
{
	int a[2], b[2];

	if (pipe(a) || pipe(b))
		return -1;
	struct side init = { b[0], a[1], messages / 2, path };
	struct side peer = { a[0], b[1], messages / 2, path };
	uint64_t t0 = bench_now_ns();
	if (processes) {
		pid_t pid = fork();
		if (pid == 0) {
			echo(&peer);
			_exit(0);
		}
		initiate(&init);
		waitpid(pid, NULL, 0);
	} else {
		pthread_t t;
		pthread_create(&t, NULL, echo, &peer);
		initiate(&init);
		pthread_join(t, NULL);
	}
	double ms = (double)(bench_now_ns() - t0) / 1e6;
	close(a[0]), close(a[1]), close(b[0]), close(b[1]);
	return ms;
}

static void (*path_of(const struct variant *v, int checks))(long)
{
	return checks == 32 ? v->path32 : v->path8;
}

static void run_config(struct json *j, int checks, int processes,
		       long messages, long runs)
{
	struct samples ms[NV] = { 0 }, ratio[NV] = { 0 };

	for (long r = 0; r < runs; r++) {
		double t[NV];
		for (size_t v = 0; v < NV; v++)
			t[v] = pingpong(path_of(&variants[v], checks), messages,
					processes);
		for (size_t v = 0; v < NV; v++) {
			samples_add(&ms[v], t[v]);
			samples_add(&ratio[v], t[v] / t[1]);
		}
	}
	for (size_t v = 0; v < NV; v++) {
		const char *ipc = processes ? "processes" : "threads";
		printf("%-10s %6d  %-12s %10.1f %10.1f %10.1f %8.3f\n", ipc,
		       checks, variants[v].name, samples_median(&ms[v]),
		       samples_min(&ms[v]), samples_max(&ms[v]),
		       samples_median(&ratio[v]));
		json_object(j, NULL);
		json_str(j, "ipc", ipc);
		json_int(j, "checks", checks);
		json_str(j, "variant", variants[v].name);
		json_num(j, "median_ms", samples_median(&ms[v]));
		json_num(j, "min_ms", samples_min(&ms[v]));
		json_num(j, "max_ms", samples_max(&ms[v]));
		json_num(j, "ratio_to_flag", samples_median(&ratio[v]));
		/* The spread of the per-run ratio: the report calls a goal
		 * on the ratio inconclusive when it straddles the target. */
		json_num(j, "ratio_min", samples_min(&ratio[v]));
		json_num(j, "ratio_p25", samples_quantile(&ratio[v], 0.25));
		json_num(j, "ratio_p75", samples_quantile(&ratio[v], 0.75));
		json_num(j, "ratio_max", samples_max(&ratio[v]));
		json_int(j, "messages", messages);
		json_int(j, "runs", runs);
		json_end(j);
		samples_free(&ms[v]);
		samples_free(&ratio[v]);
	}
}

static int run_one(int argc, char **argv)
{
	const char *name = opt_str(argc, argv, "--one", "static");
	int checks = (int)opt_long(argc, argv, "--checks", 8);
	int processes = strcmp(opt_str(argc, argv, "--ipc", "threads"),
			       "processes") == 0;

	for (size_t v = 0; v < NV; v++)
		if (strcmp(variants[v].name, name) == 0)
			return pingpong(path_of(&variants[v], checks),
					opt_long(argc, argv, "--messages", 1000),
					processes) < 0;
	fprintf(stderr, "unknown variant %s\n", name);
	return 2;
}

int main(int argc, char **argv)
{
	long messages = opt_long(argc, argv, "--messages", 100000);
	long runs = opt_long(argc, argv, "--runs", 10);
	struct json j;

	if (opt_flag(argc, argv, "--one"))
		return run_one(argc, argv);
	if (json_open(&j, opt_str(argc, argv, "--json", "-")) != 0)
		return 1;
	printf("pipe ping-pong: %ld messages per run, %ld interleaved runs\n",
	       messages, runs);
	printf("%-10s %6s  %-12s %10s %10s %10s %8s\n", "ipc", "checks",
	       "variant", "median_ms", "min_ms", "max_ms", "/flag");
	json_object(&j, NULL);
	json_array(&j, "pipe");
	for (int p = 0; p < 2; p++)
		for (int c = 8; c <= 32; c += 24)
			run_config(&j, c, p, messages, runs);
	json_end(&j);
	json_str(&j, "status", "ok");
	json_end(&j);
	return json_close(&j) ? 1 : 0;
}
