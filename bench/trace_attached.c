/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/trace_attached.c - the cost of one event while a tracer is attached
 * and counting: our tracepoint against a plain sys/sdt.h probe guarded by
 * its semaphore (what `dtrace -h` headers generate), in one process, for
 * the same tracer (bench/trace_attached.sh runs bpftrace on both).
 *
 *	bench_trace_attached ROUNDS PER_ROUND [with-nop10]
 *
 * Prints "ready PID", waits (up to 30 s) until the tracer is attached to
 * both probes and to bench:done (our tracepoint on, the semaphore raised,
 * bench:done on), lets the attachments settle, fires one untimed warm-up
 * round, then ROUNDS rounds of PER_ROUND events of each probe, timed with
 * CLOCK_MONOTONIC, the order alternating from round to round (on x86-64
 * also two reference site forms, bench:nop5 and bench:nop10, below).  Then it
 * fires bench:done (the tracer's cue to leave) and prints one JSON line:
 * the median and the spread of ns per event of each, and the events fired.
 * Exit 0, 2 if nobody attached, 77 without sys/sdt.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* The plain probe is sys/sdt.h's own, with its semaphore: before any
 * include, as a dtrace-generated header would have it. */
#define _SDT_HAS_SEMAPHORES 1
#include <statickeys/trace.h>

#ifndef SK__TRACE_HAVE_USDT
int main(void)
{
	printf("SKIPPED: built without sys/sdt.h (systemtap-sdt-dev): no USDT "
	       "probe for a tracer to attach to\n");
	return 77;
}
#else

SK_DECLARE_TRACE(bench, ours, SK_TP_PROTO(long i), SK_TP_ARGS(i));
SK_DEFINE_TRACE(bench, ours, SK_TP_PROTO(long i), SK_TP_ARGS(i));
SK_DECLARE_TRACE(bench, done, SK_TP_PROTO(int rounds), SK_TP_ARGS(rounds));
SK_DEFINE_TRACE(bench, done, SK_TP_PROTO(int rounds), SK_TP_ARGS(rounds));

/* The semaphore STAP_PROBE1(bench, usdt, ...) names; volatile, so that
 * each event reads it as a real program's would (nothing hoisted out of
 * the loop). */
__attribute__((used, section(".probes"))) volatile unsigned short
	bench_usdt_semaphore;

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static __attribute__((noinline)) double fire_ours(long n)
{
	double t0 = now_ns();
	for (long i = 0; i < n; i++)
		sk_trace_bench_ours(i);
	return (now_ns() - t0) / n;
}

static __attribute__((noinline)) double fire_usdt(long n)
{
	double t0 = now_ns();
	for (long i = 0; i < n; i++)
		if (__builtin_expect(bench_usdt_semaphore, 0))
			STAP_PROBE1(bench, usdt, i);
	return (now_ns() - t0) / n;
}

#if defined(__x86_64__)
/*
 * The other site forms a USDT probe can take on x86-64, for reference only
 * (the counts they must match are ours and the plain probe's): a bare
 * 5-byte NOP (what libbpf emitted until 2026: the kernel's optimized call
 * writes into the red zone, tests/trace/red_zone.c) and libbpf's 2026
 * 10-byte NOP, which kernels from late 2026 turn into a call.  The note is
 * trace.h's; only its site changes.
 */
/* fire_NAME(n): n events of bench:NAME under its semaphore, with the site
 * SK__SDT_SITE is where the macro is used; ns per event. */
#define FIRE_FORM(name)                                                      \
	SK__TP_SEMAPHORE_DEF(bench, name);                                   \
	static __attribute__((noinline)) double fire_##name(long n)          \
	{                                                                    \
		double t0 = now_ns();                                        \
		for (long i = 0; i < n; i++)                                 \
			if (__builtin_expect(SK__TP_SEM(bench, name), 0))    \
				SK__SDT_PROBE(bench, name, i);               \
		return (now_ns() - t0) / n;                                  \
	}
#undef SK__SDT_SITE
#define SK__SDT_SITE "990: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
FIRE_FORM(nop5)
#undef SK__SDT_SITE
#define SK__SDT_SITE                                                         \
	"990: .byte 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00\n"
FIRE_FORM(nop10)
#define HAVE_FORMS 1
#else
#define HAVE_FORMS 0
#endif

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Prints "name": {median, min, max} of @v (sorted in place). */
static void stats(const char *name, double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	printf("\"%s\": {\"median_ns\": %.1f, \"min_ns\": %.1f, "
	       "\"max_ns\": %.1f}", name, v[n / 2], v[0], v[n - 1]);
}

/* Whether the tracer attached to the 10-byte NOP too: some kernels refuse
 * a uprobe on it (trace_attached.sh asks first and says so). */
static int with_nop10;

static int attached(void)
{
	return sk_trace_bench_ours_enabled() && bench_usdt_semaphore &&
#if HAVE_FORMS
	       SK__TP_SEM(bench, nop5) &&
	       (!with_nop10 || SK__TP_SEM(bench, nop10)) &&
#endif
	       sk_trace_bench_done_enabled();
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 21;
	long per = argc > 2 ? atol(argv[2]) : 20000;
	with_nop10 = argc > 3 && HAVE_FORMS;
	double *ours = calloc(rounds, sizeof(*ours));
	double *usdt = calloc(rounds, sizeof(*usdt));
	double *nop5 = calloc(rounds, sizeof(*nop5));
	double *nop10 = calloc(rounds, sizeof(*nop10));

	if (rounds < 1 || per < 1 || !ours || !usdt || !nop5 || !nop10)
		return 1;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	double t0 = now_ns();
	while (!attached()) {
		if (now_ns() - t0 > 30e9) {
			printf("nobody attached in 30 s\n");
			return 2;
		}
		usleep(5000);
	}
	/* The tracer attaches its probes one after the other; the watcher
	 * turns ours on within 50 ms of its semaphore rising. */
	usleep(500000);
	fire_ours(per);
	fire_usdt(per);
#if HAVE_FORMS
	fire_nop5(per);
	if (with_nop10)
		fire_nop10(per);
#endif
	for (int r = 0; r < rounds; r++) {
		/* Alternating the order cancels what running first costs. */
		if (r & 1) {
			usdt[r] = fire_usdt(per);
			ours[r] = fire_ours(per);
		} else {
			ours[r] = fire_ours(per);
			usdt[r] = fire_usdt(per);
		}
#if HAVE_FORMS
		nop5[r] = fire_nop5(per);
		if (with_nop10)
			nop10[r] = fire_nop10(per);
#endif
	}
	sk_trace_bench_done(rounds);
	printf("{");
	stats("statickeys", ours, rounds);
	printf(", ");
	stats("usdt_semaphore", usdt, rounds);
#if HAVE_FORMS
	printf(", ");
	stats("nop5_bare", nop5, rounds);
	if (with_nop10) {
		printf(", ");
		stats("nop10", nop10, rounds);
	}
#endif
	/* The warm-up round counts: the tracer sees it too. */
	printf(", \"rounds\": %d, \"per_round\": %ld, \"fired_each\": %ld}\n",
	       rounds, per, (rounds + 1) * per);
	return 0;
}
#endif
