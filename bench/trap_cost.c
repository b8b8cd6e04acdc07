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
		/* int3 leaves the ip after itself: returning resumes here. */
		__asm__ __volatile__("int3" ::: "memory");
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

int main(int argc, char **argv)
{
	long traps = opt_long(argc, argv, "--traps", 2000);
	static const size_t sizes[] = { 1, 56, 1000, 10000 };
	struct json j;
	double clock = clock_ns(traps);
	double bare = bare_trap_ns(traps) - clock, handler = 0, med = 0, p99 = 0;
	size_t last = 0;

	if (json_open(&j, opt_str(argc, argv, "--json", "-")) != 0)
		return 1;
	printf("trap path: %ld traps per batch size; bare int3 round trip "
	       "%.0f ns\n", traps, bare);
	printf("%8s %12s %12s %12s\n", "sites", "trap_ns", "p99_ns", "handler_ns");
	json_object(&j, NULL);
	json_array(&j, "trap_cost");
	for (size_t i = 0; i < 4; i++) {
		const struct site_group *g = site_group_by_sites(sizes[i]);
		double call = plain_call_ns(g, traps);
		if (measure(g, traps, &med, &p99) != 0)
			return 1;
		/* Both medians include one clock read; the plain call is
		 * the site's own cost outside the trap. */
		handler = (med - call) - bare;
		last = g->n;
		printf("%8zu %12.0f %12.0f %12.0f\n", g->n, med, p99, handler);
		json_object(&j, NULL);
		json_int(&j, "sites", (long long)g->n);
		json_num(&j, "trap_ns_median", med);
		json_num(&j, "trap_ns_p99", p99);
		json_num(&j, "plain_call_ns_median", call);
		json_num(&j, "handler_ns_median", handler);
		json_end(&j);
	}
	json_end(&j);
	json_object(&j, "trap");
	json_num(&j, "handler_ns_median", handler);
	json_int(&j, "sites", (long long)last);
	json_num(&j, "trap_ns_median", med);
	json_num(&j, "bare_int3_ns_median", bare);
	json_end(&j);
	json_str(&j, "status", "ok");
	json_end(&j);
	return json_close(&j) ? 1 : 0;
}
