/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/windows_flip.c - experiment 12: what a flip costs on Windows
 * x86-64, run under wine (bench/windows_bench.py builds it with mingw-w64
 * against the runtime built for Windows, and runs it).  Wine is not
 * Windows: these are wine's WriteProcessMemory, VirtualProtect and
 * FlushProcessWriteBuffers, on Linux.
 *
 *   windows_flip.exe [--pairs1 N] [--pairs1000 N] [--trap-pairs N]
 *                    [--calls N]
 *
 * Rows, each with both writers (sk_config_set_writer: WriteProcessMemory,
 * the default, and VirtualProtect), their blocks alternating so that load
 * on a shared machine falls on both alike:
 *   1 site       N enable + disable pairs of a key with one site;
 *   1000 sites   the same for a key with 1,000 sites in one function;
 *   1000 sites,  the same while 2 threads run the 1,000-site function in
 *   2 threads    a loop: they hit int3s mid-update, and the vectored
 *                exception handler resumes them (traps_handled).
 * Each update is timed on its own (rdtsc, calibrated against
 * QueryPerformanceCounter over the run); enable and disable are pooled;
 * medians.  Every row carries sk_stats_get()'s counters as deltas over its
 * timed updates.  Alone, for comparison: one FlushProcessWriteBuffers()
 * (the core sync, at most 3 per update), one 1-byte WriteProcessMemory()
 * on a code page, one VirtualProtect() RWX-and-back pair of a code page.
 *
 * Prints one JSON object on stdout; exit 1 if a site is found in the wrong
 * state after an update returned or an update fails.
 */
#include <windows.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statickeys.h>

#include "../tests/repeat.h"

SK_DEFINE_KEY_FALSE(bench_key1);
SK_DEFINE_KEY_FALSE(bench_key1000);

__attribute__((noinline)) static int sites1(void)
{
	return sk_branch_unlikely(&bench_key1) ? 1 : 0;
}

/* 1,000 sites = 3 x 256 + 14 x 16 + 2 x 4. */
#define SITE if (sk_branch_unlikely(&bench_key1000)) n++;
__attribute__((noinline)) static int sites1000(void)
{
	int n = 0;
	REP256(SITE) REP256(SITE) REP256(SITE)
	REP16(SITE) REP16(SITE) REP16(SITE) REP16(SITE) REP16(SITE)
	REP16(SITE) REP16(SITE) REP16(SITE) REP16(SITE) REP16(SITE)
	REP16(SITE) REP16(SITE) REP16(SITE) REP16(SITE)
	REP4(SITE) REP4(SITE)
	return n;
}

static inline uint64_t ticks(void)
{
	return __builtin_ia32_rdtsc();
}

struct row {
	int sites;
	int writer; /* SK_WRITER_PROCMEM, SK_WRITER_MPROTECT */
	int threads;
	const char *writer_name; /* the STATICKEYS_WRITER word, then sk_stats' */
	uint64_t *samples; /* ticks per update */
	size_t n, cap;
	struct sk_stats delta;
	unsigned long long thread_calls;
	int errors;
};

static int failures;

static void add_stats(struct sk_stats *d, const struct sk_stats *a,
		      const struct sk_stats *b)
{
	d->updates += b->updates - a->updates;
	d->batches += b->batches - a->batches;
	d->sites_written += b->sites_written - a->sites_written;
	d->text_writes += b->text_writes - a->text_writes;
	d->core_syncs += b->core_syncs - a->core_syncs;
	d->traps_handled += b->traps_handled - a->traps_handled;
}

/* ---- the 2 threads running the 1,000-site function ---------------------- */

static volatile LONG run_threads;
static volatile LONG64 calls_made;

static void *runner(void *arg)
{
	long long calls = 0;
	volatile int sink = 0;

	(void)arg;
	while (InterlockedCompareExchange(&run_threads, 0, 0)) {
		sink += sites1000();
		calls++;
	}
	InterlockedExchangeAdd64(&calls_made, calls);
	(void)sink;
	return NULL;
}

/* ---- one block of a row: PAIRS enable + disable pairs ------------------- */

static int check_state(const struct row *r, int on)
{
	int want = on ? r->sites : 0;
	int got = r->sites == 1 ? sites1() : sites1000();

	if (got == want)
		return 0;
	fprintf(stderr, "%d sites, %s: %d of %d sites on after the update "
		"returned (wanted %d)\n", r->sites, r->writer_name, got,
		r->sites, want);
	return 1;
}

static void block(struct row *r, int pairs)
{
	struct sk_key *key = r->sites == 1 ? &bench_key1.key
					   : &bench_key1000.key;
	pthread_t th[2];
	struct sk_stats s0, s1;

	if (sk_config_set_writer(r->writer) != 0) {
		fprintf(stderr, "sk_config_set_writer(%s) refused\n",
			r->writer_name);
		r->errors++;
		return;
	}
	if (r->threads) {
		InterlockedExchange(&run_threads, 1);
		calls_made = 0;
		for (int i = 0; i < r->threads; i++)
			pthread_create(&th[i], NULL, runner, NULL);
		Sleep(1); /* let them start */
	}
	sk_stats_get(&s0);
	r->writer_name = s0.writer; /* the runtime's own name for it */
	for (int i = 0; i < pairs; i++) {
		for (int on = 1; on >= 0; on--) {
			uint64_t t0 = ticks();
			int e = on ? sk_key_enable(key) : sk_key_disable(key);
			uint64_t t1 = ticks();
			if (e != 0) {
				fprintf(stderr, "update failed: %d\n", e);
				r->errors++;
				continue;
			}
			if (r->n < r->cap)
				r->samples[r->n++] = t1 - t0;
			r->errors += check_state(r, on);
		}
	}
	sk_stats_get(&s1);
	add_stats(&r->delta, &s0, &s1);
	if (r->threads) {
		InterlockedExchange(&run_threads, 0);
		for (int i = 0; i < r->threads; i++)
			pthread_join(th[i], NULL);
		r->thread_calls += (unsigned long long)calls_made;
	}
}

/* ---- the calls a flip is made of, alone --------------------------------- */

static uint64_t *time_calls(int which, int n)
{
	uint64_t *t = calloc((size_t)n, sizeof(*t));
	unsigned char *code = (unsigned char *)(uintptr_t)&sites1;
	SYSTEM_INFO si;

	GetSystemInfo(&si);
	void *page = (void *)((uintptr_t)code & ~(uintptr_t)(si.dwPageSize - 1));
	for (int i = 0; t && i < n; i++) {
		unsigned char b = *(volatile unsigned char *)code;
		SIZE_T done = 0;
		DWORD old, ignored;
		BOOL ok = TRUE;
		uint64_t t0 = ticks();
		if (which == 0) {
			FlushProcessWriteBuffers();
		} else if (which == 1) {
			ok = WriteProcessMemory(GetCurrentProcess(), code, &b, 1,
						&done);
		} else {
			ok = VirtualProtect(page, si.dwPageSize,
					    PAGE_EXECUTE_READWRITE, &old) &&
			     VirtualProtect(page, si.dwPageSize, old, &ignored);
		}
		t[i] = ticks() - t0;
		if (!ok)
			failures++;
	}
	return t;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double ns_per_tick;

/* The sample at fraction q of the sorted ones, in ns. */
static double quantile_ns(uint64_t *s, size_t n, double q)
{
	if (n == 0)
		return 0;
	qsort(s, n, sizeof(*s), cmp_u64);
	size_t i = (size_t)(q * (double)(n - 1) + 0.5);
	return (double)s[i] * ns_per_tick;
}

static void print_calls(const char *name, uint64_t *t, int n, int last)
{
	printf("  \"%s\": {\"calls\": %d, \"median_ns\": %.0f, "
	       "\"min_ns\": %.0f, \"p90_ns\": %.0f}%s\n", name, n,
	       quantile_ns(t, (size_t)n, 0.5), quantile_ns(t, (size_t)n, 0),
	       quantile_ns(t, (size_t)n, 0.9), last ? "" : ",");
}

static int arg(int argc, char **argv, const char *name, int dflt)
{
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return atoi(argv[i + 1]);
	return dflt;
}

int main(int argc, char **argv)
{
	int pairs1 = arg(argc, argv, "--pairs1", 200);
	int pairs1000 = arg(argc, argv, "--pairs1000", 20);
	int trap_pairs = arg(argc, argv, "--trap-pairs", 10);
	int calls = arg(argc, argv, "--calls", 2000);
	/* Each shape (sites, threads running them) with both writers; a
	 * row's writer is named as sk_stats reports it once chosen (block()). */
	static const int shapes[3][2] = { { 1, 0 }, { 1000, 0 }, { 1000, 2 } };
	static const int writers[2] = { SK_WRITER_PROCMEM, SK_WRITER_MPROTECT };
	struct row rows[6] = { { 0 } };
	for (int i = 0; i < 6; i++) {
		rows[i].sites = shapes[i / 2][0];
		rows[i].threads = shapes[i / 2][1];
		rows[i].writer = writers[i % 2];
		rows[i].writer_name = writers[i % 2] == SK_WRITER_PROCMEM
					      ? "procmem" : "mprotect";
	}
	const int nrows = (int)(sizeof(rows) / sizeof(rows[0]));
	LARGE_INTEGER qf, q0, q1;
	struct sk_stats st;

	QueryPerformanceFrequency(&qf);
	QueryPerformanceCounter(&q0);
	uint64_t c0 = ticks();

	/* Warm-up: each writer probed, each key's sites written once. */
	for (int i = 0; i < nrows; i++) {
		int pairs = rows[i].threads ? trap_pairs
			    : rows[i].sites == 1 ? pairs1 : pairs1000;
		rows[i].cap = 2 * (size_t)pairs;
		rows[i].samples = calloc(rows[i].cap, sizeof(uint64_t));
		if (!rows[i].samples)
			return 1;
		if (sk_config_set_writer(rows[i].writer) == 0) {
			sk_key_enable(rows[i].sites == 1 ? &bench_key1.key
							 : &bench_key1000.key);
			sk_key_disable(rows[i].sites == 1 ? &bench_key1.key
							  : &bench_key1000.key);
		}
	}
	/* Blocks of each row in turn, the writers alternating. */
	const int blocks = 5;
	for (int b = 0; b < blocks; b++) {
		for (int i = 0; i < nrows; i++) {
			int pairs = (int)rows[i].cap / 2;
			int per = pairs / blocks + (b < pairs % blocks);
			block(&rows[i], per);
		}
	}
	sk_config_set_writer(SK_WRITER_PROCMEM);
	uint64_t *fpwb = time_calls(0, calls);
	uint64_t *wpm = time_calls(1, calls);
	uint64_t *vp = time_calls(2, calls);

	QueryPerformanceCounter(&q1);
	uint64_t c1 = ticks();
	double secs = (double)(q1.QuadPart - q0.QuadPart) / (double)qf.QuadPart;
	ns_per_tick = secs * 1e9 / (double)(c1 - c0);
	sk_stats_get(&st);

	printf("{\n  \"status\": \"ok\",\n  \"backend\": \"%s\",\n"
	       "  \"sync_method\": \"%s\",\n  \"tsc_ghz\": %.3f,\n"
	       "  \"qpc_hz\": %lld,\n  \"seconds\": %.2f,\n  \"rows\": [\n",
	       st.backend, st.sync_method, 1.0 / ns_per_tick,
	       (long long)qf.QuadPart, secs);
	double worst = 0;
	for (int i = 0; i < nrows; i++) {
		struct row *r = &rows[i];
		struct sk_stats *d = &r->delta;
		double u = d->updates ? (double)d->updates : 1;
		double syncs = (double)d->core_syncs / u;
		if (syncs > worst)
			worst = syncs;
		failures += r->errors;
		printf("    {\"sites\": %d, \"writer\": \"%s\", \"threads\": %d, "
		       "\"timed_updates\": %zu, \"median_ns\": %.0f, "
		       "\"min_ns\": %.0f, \"p90_ns\": %.0f,\n"
		       "     \"stats\": {\"updates\": %llu, \"batches\": %llu, "
		       "\"sites_written\": %llu, \"text_writes\": %llu, "
		       "\"core_syncs\": %llu, \"traps_handled\": %llu},\n"
		       "     \"core_syncs_per_update\": %.3f, "
		       "\"sites_written_per_update\": %.1f, "
		       "\"text_writes_per_update\": %.1f, "
		       "\"traps_per_update\": %.2f, \"thread_calls\": %llu, "
		       "\"errors\": %d}%s\n",
		       r->sites, r->writer_name, r->threads, r->n,
		       quantile_ns(r->samples, r->n, 0.5),
		       quantile_ns(r->samples, r->n, 0),
		       quantile_ns(r->samples, r->n, 0.9),
		       (unsigned long long)d->updates,
		       (unsigned long long)d->batches,
		       (unsigned long long)d->sites_written,
		       (unsigned long long)d->text_writes,
		       (unsigned long long)d->core_syncs,
		       (unsigned long long)d->traps_handled, syncs,
		       (double)d->sites_written / u,
		       (double)d->text_writes / u,
		       (double)d->traps_handled / u, r->thread_calls, r->errors,
		       i + 1 < nrows ? "," : "");
	}
	printf("  ],\n  \"core_syncs_per_update_max\": %.3f,\n", worst);
	print_calls("flush_process_write_buffers", fpwb, calls, 0);
	print_calls("write_process_memory_1byte", wpm, calls, 0);
	print_calls("virtual_protect_pair", vp, calls, 0);
	printf("  \"failures\": %d\n}\n", failures);
	fflush(stdout);
	return failures ? 1 : 0;
}
