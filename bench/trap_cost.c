/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/trap_cost.c - experiment 5a: what a thread pays when it hits a site
 * mid-update.
 *
 * Built against the runtime's fault-injection variant (statickeys_inject),
 * whose hook runs inside the patch engine right after step 1: every site of
 * the batch then holds int3.  From that hook this thread executes sites of
 * the batch, each time taking the real path: int3, SIGTRAP delivery, the
 * runtime's handler (binary search of the batch), resume at the new
 * destination.  A bare int3 caught by an empty SIGTRAP handler, measured
 * first, is the kernel's share of that round trip; the difference is the
 * handler's own work, which grows with log2 of the batch size.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <statickeys.h>

#include "internal.h" /* sk__inject_hook: the runtime's test-only hook */
#include "json.h"
#include "measure.h"
#include "options.h"
#include "sites.h"

static const struct site_group *hook_group;
static struct samples hook_samples;
static long hook_traps;

static void empty_handler(int sig)
{
	(void)sig;
}

/* The kernel's part: int3 -> signal frame -> empty handler -> sigreturn. */
static double bare_trap_ns(long n)
{
	struct sigaction sa, old;
	struct samples s = { 0 };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = empty_handler;
	sigaction(SIGTRAP, &sa, &old);
	for (long i = 0; i < n; i++) {
		uint64_t t0 = bench_now_ns();
		/* int3 leaves the ip after itself: returning resumes here.
		 * (Only x86 gets here: main() skips elsewhere.) */
#if defined(__x86_64__) || defined(__i386__)
		__asm__ __volatile__("int3" ::: "memory");
#else
		raise(SIGTRAP);
#endif
		samples_add(&s, (double)(bench_now_ns() - t0));
	}
	sigaction(SIGTRAP, &old, NULL);
	double m = samples_median(&s);
	samples_free(&s);
	return m;
}

static void in_batch(int point)
{
	if (point != SK__INJECT_AFTER_TRAP_WRITE || !hook_group)
		return;
	/* Spread the hits over the batch so the search is not always the
	 * same path through the same cache lines. */
	for (long i = 0; i < hook_traps; i++) {
		size_t site = (size_t)(i * 7919) % hook_group->n;
		uint64_t t0 = bench_now_ns();
		hook_group->fn[site]();
		samples_add(&hook_samples, (double)(bench_now_ns() - t0));
	}
}

/* Median of two back-to-back clock reads: the timer's own cost. */
static double clock_ns(long n)
{
	struct samples s = { 0 };

	for (long i = 0; i < n; i++) {
		uint64_t t0 = bench_now_ns();
		samples_add(&s, (double)(bench_now_ns() - t0));
	}
	double m = samples_median(&s);
	samples_free(&s);
	return m;
}

/* Median time of a site that does not trap: the clock and call overhead. */
static double plain_call_ns(const struct site_group *g, long n)
{
	struct samples s = { 0 };

	for (long i = 0; i < n; i++) {
		uint64_t t0 = bench_now_ns();
		g->fn[(size_t)(i * 7919) % g->n]();
		samples_add(&s, (double)(bench_now_ns() - t0));
	}
	double m = samples_median(&s);
	samples_free(&s);
	return m;
}

static int measure(const struct site_group *g, long traps, double *med,
		   double *p99)
{
	hook_group = g;
	hook_traps = traps;
	sk__inject_hook = in_batch;
	int r = sk_key_enable(g->key);
	sk__inject_hook = NULL;
	hook_group = NULL;
	if (r == 0)
		r = sk_key_disable(g->key);
	*med = samples_median(&hook_samples);
	*p99 = samples_quantile(&hook_samples, 0.99);
	samples_free(&hook_samples);
	return r;
}

struct size_result {
	double trap, p99, call, bare, handler;
};

/*
 * Alternate rounds of bare int3s and of traps in the batch, and estimate the
 * handler's own work in each round from the two: machine load drifts over a
 * run, and a difference of medians taken minutes apart would be mostly drift.
 */
static int measure_size(const struct site_group *g, long traps, long rounds,
			struct size_result *out)
{
	struct samples trap = { 0 }, p99 = { 0 }, bare = { 0 }, handler = { 0 };
	double clock = clock_ns(traps / rounds), call = 0;
	int r = 0;

	for (long i = 0; i < rounds && r == 0; i++) {
		double b = bare_trap_ns(traps / rounds) - clock, med, q;
		call = plain_call_ns(g, traps / rounds);
		r = measure(g, traps / rounds, &med, &q);
		samples_add(&trap, med);
		samples_add(&p99, q);
		samples_add(&bare, b);
		/* Both medians include one clock read; the plain call is
		 * the site's own cost outside the trap. */
		samples_add(&handler, (med - call) - b);
	}
	out->trap = samples_median(&trap);
	out->p99 = samples_median(&p99);
	out->call = call;
	out->bare = samples_median(&bare);
	out->handler = samples_median(&handler);
	samples_free(&trap);
	samples_free(&p99);
	samples_free(&bare);
	samples_free(&handler);
	return r;
}

static void emit_size(struct json *j, size_t n, const struct size_result *m)
{
	printf("%8zu %12.0f %12.0f %12.0f %12.0f\n", n, m->trap, m->p99,
	       m->bare, m->handler);
	json_object(j, NULL);
	json_int(j, "sites", (long long)n);
	json_num(j, "trap_ns_median", m->trap);
	json_num(j, "trap_ns_p99", m->p99);
	json_num(j, "plain_call_ns_median", m->call);
	json_num(j, "bare_int3_ns_median", m->bare);
	json_num(j, "handler_ns_median", m->handler);
	json_end(j);
}

int main(int argc, char **argv)
{
	long traps = opt_long(argc, argv, "--traps", 2000);
	long rounds = opt_long(argc, argv, "--rounds", 5);
	static const size_t sizes[] = { 1, 56, 1000, 10000 };
	struct size_result m = { 0 };
	struct json j;

	if (json_open(&j, opt_str(argc, argv, "--json", "-")) != 0)
		return 1;
	const char *no_traps = bench_no_traps_reason();
	if (no_traps) {
		printf("trap path: skipped, %s\n", no_traps);
		json_object(&j, NULL);
		json_str(&j, "skip_reason", no_traps);
		json_str(&j, "status", "skipped");
		json_end(&j);
		return json_close(&j) ? 1 : 77;
	}
	if (rounds < 1 || traps < rounds)
		rounds = 1;
	printf("trap path: %ld traps per batch size in %ld rounds\n", traps,
	       rounds);
	printf("%8s %12s %12s %12s %12s\n", "sites", "trap_ns", "p99_ns",
	       "bare_ns", "handler_ns");
	json_object(&j, NULL);
	json_array(&j, "trap_cost");
	size_t largest = 0;
	for (size_t i = 0; i < 4; i++) {
		const struct site_group *g = site_group_by_sites(sizes[i]);
		if (!g)
			continue; /* not built (bench/CMakeLists.txt) */
		if (measure_size(g, traps, rounds, &m) != 0)
			return 1;
		emit_size(&j, g->n, &m);
		largest = g->n;
	}
	json_end(&j);
	json_object(&j, "trap");
	json_num(&j, "handler_ns_median", m.handler);
	json_int(&j, "sites", (long long)largest);
	json_num(&j, "trap_ns_median", m.trap);
	json_num(&j, "bare_int3_ns_median", m.bare);
	json_end(&j);
	json_str(&j, "status", "ok");
	json_end(&j);
	return json_close(&j) ? 1 : 0;
}
