/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/exp_disturb.c - experiment 6: what a flip does to other threads.
 *
 * A spinner pinned to CPU 1 reads the time-stamp counter in a tight loop and
 * records every gap between two reads longer than a threshold: each is a
 * moment the CPU was taken away (an interrupt, an IPI, a VM exit).  The main
 * thread, pinned to CPU 0, first sleeps for a while (the background rate of
 * gaps), then flips a 56-site key many times.  Interruptions per flip are the
 * gaps during the flips minus the background expected in that time.
 *
 * membarrier SYNC_CORE interrupts only CPUs running *this* process, so:
 *   spinner thread, batched     ~3 per flip (one per core sync);
 *   spinner thread, one_by_one  ~3 per site: 168 for 56 sites (the kernel's
 *                               2019 IPI count);
 *   spinner process             a separate process (forked, its own address
 *                               space, never flipping) sees ~0.
 * The default and mprotect writers run on both layouts of the 56 sites
 * (packed, spread: one site per page); the mprotect writer's protection
 * changes may add TLB shootdowns, counted from /proc/interrupts ("TLB").
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <statickeys.h>

#include "experiments.h"
#include "measure.h"
#include "options.h"
#include "sites.h"

#define MAX_GAPS (1u << 20)
#define GAP_BUCKETS 7
static const double gap_bound_us[GAP_BUCKETS] = { 1, 2, 5, 10, 50, 100, 1e30 };
static const char *const gap_label[GAP_BUCKETS] = {
	"<1us", "1-2us", "2-5us", "5-10us", "10-50us", "50-100us", ">100us"
};

/* Shared with a forked spinner, hence one mmap'd block, no pointers. */
struct spin_log {
	volatile int stop, ready;
	uint64_t threshold_tsc;
	uint64_t n; /* gaps recorded */
	uint64_t start[MAX_GAPS], len[MAX_GAPS];
};

static void spin(struct spin_log *log)
{
	uint64_t prev = bench_ticks();

	log->ready = 1;
	while (!log->stop) {
		uint64_t t = bench_ticks();
		if (t - prev > log->threshold_tsc && log->n < MAX_GAPS) {
			log->start[log->n] = prev;
			log->len[log->n] = t - prev;
			log->n++;
		}
		prev = t;
	}
}

static void *spin_thread(void *arg)
{
	(void)bench_pin_cpu(1);
	spin(arg);
	return NULL;
}

struct window {
	uint64_t lo, hi; /* TSC */
};

/* Interrupts of kind @tag ("CAL:" function-call IPIs, which membarrier
 * sends; "TLB:" TLB shootdowns, which an mprotect that takes a permission
 * away sends) CPU @cpu has taken so far (/proc/interrupts), or -1. */
static long long irq_count(int cpu, const char *tag)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096];
	long long n = -1;

	while (f && fgets(line, sizeof(line), f)) {
		char *p = line;
		while (*p == ' ')
			p++;
		if (strncmp(p, tag, 4) != 0)
			continue;
		p += 4;
		for (int i = 0; i <= cpu; i++)
			n = strtoll(p, &p, 10);
		break;
	}
	if (f)
		fclose(f);
	return n;
}

static uint64_t gaps_in(const struct spin_log *log, struct window w,
			uint64_t *hist, uint64_t *total_len)
{
	uint64_t n = 0;
	double per_us = bench_ticks_per_ns() * 1e3;

	for (uint64_t i = 0; i < log->n; i++) {
		if (log->start[i] < w.lo || log->start[i] >= w.hi)
			continue;
		n++;
		if (total_len)
			*total_len += log->len[i];
		if (!hist)
			continue;
		int b = 0;
		while ((double)log->len[i] / per_us >= gap_bound_us[b])
			b++;
		hist[b]++;
	}
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&d, &d) != 0 && errno == EINTR)
		;
}

struct run {
	const char *name, *mode, *layout;
	bool other_process;
	long flips, idle_ms;
	double per_flip, raw_per_flip, background_per_s, flip_us, syncs_per_flip;
	double ipis_per_flip;  /* CPU 1's function-call IPIs, -1 if unknown */
	double tlb_per_flip;   /* CPU 1's TLB shootdowns, -1 if unknown */
	double away_fraction;  /* of the flip window, spent in gaps */
	uint64_t hist[GAP_BUCKETS];
};

/* Background window, then the flips; both bracketed with the TSC. */
static int observe(struct run *run, struct window *idle, struct window *busy)
{
	const struct site_group *g = site_group_by_layout(56, run->layout);
	double on, off;
	int r = 0;

	sleep_ms(20); /* let the spinner settle on its CPU */
	idle->lo = bench_ticks();
	sleep_ms(run->idle_ms);
	idle->hi = bench_ticks();
	struct sk_stats s0, s1;
	sk_stats_get(&s0);
	long long ipi0 = irq_count(1, "CAL:"), tlb0 = irq_count(1, "TLB:");
	busy->lo = bench_ticks();
	for (long f = 0; f < run->flips / 2 && r == 0; f++)
		r = bench_flip(g->key, &on, &off);
	busy->hi = bench_ticks();
	long long ipi1 = irq_count(1, "CAL:"), tlb1 = irq_count(1, "TLB:");
	sk_stats_get(&s1);
	run->ipis_per_flip = ipi0 < 0 || ipi1 < 0 ? -1 :
			     (double)(ipi1 - ipi0) / (double)(run->flips / 2 * 2);
	run->tlb_per_flip = tlb0 < 0 || tlb1 < 0 ? -1 :
			    (double)(tlb1 - tlb0) / (double)(run->flips / 2 * 2);
	/* The IPIs sent: one per core sync to each other CPU running us. */
	run->syncs_per_flip = (double)(s1.core_syncs - s0.core_syncs) /
			      (double)(run->flips / 2 * 2);
	return r;
}

static void analyse(struct run *run, const struct spin_log *log,
		    struct window idle, struct window busy)
{
	double tsc_s = bench_ticks_per_ns() * 1e9;
	double idle_s = (double)(idle.hi - idle.lo) / tsc_s;
	double busy_s = (double)(busy.hi - busy.lo) / tsc_s;
	uint64_t away = 0;
	double bg = (double)gaps_in(log, idle, NULL, NULL) / idle_s;
	double raw = (double)gaps_in(log, busy, run->hist, &away);
	double flips = (double)(run->flips / 2 * 2);
	double net = raw - bg * busy_s;

	run->background_per_s = bg;
	run->raw_per_flip = raw / flips;
	run->per_flip = (net > 0 ? net : 0) / flips;
	run->flip_us = busy_s * 1e6 / flips;
	/* Time the spinner was not running: while another task has its CPU,
	 * membarrier has no reason to interrupt that CPU at all. */
	run->away_fraction = (double)away / (double)(busy.hi - busy.lo);
}

static int run_thread(struct run *run, struct spin_log *log)
{
	struct window idle, busy;
	pthread_t t;

	if (pthread_create(&t, NULL, spin_thread, log) != 0)
		return -EAGAIN;
	while (!log->ready)
		;
	int r = observe(run, &idle, &busy);
	log->stop = 1;
	pthread_join(t, NULL);
	analyse(run, log, idle, busy);
	return r;
}

static int run_process(struct run *run, struct spin_log *log)
{
	struct window idle, busy;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		(void)bench_pin_cpu(1);
		spin(log);
		_exit(0);
	}
	while (!log->ready)
		;
	int r = observe(run, &idle, &busy);
	log->stop = 1;
	waitpid(pid, NULL, 0);
	analyse(run, log, idle, busy);
	return r;
}

static void emit(struct json *j, const struct run *run, long threshold_ns)
{
	json_object(j, NULL);
	json_str(j, "observer", run->other_process ? "other_process" : "thread");
	json_str(j, "mode", run->mode);
	json_str(j, "layout", run->layout);
	json_num(j, "interruptions_per_flip", run->per_flip);
	json_num(j, "raw_gaps_per_flip", run->raw_per_flip);
	json_num(j, "background_gaps_per_s", run->background_per_s);
	json_num(j, "flip_us", run->flip_us);
	json_num(j, "syncs_per_flip", run->syncs_per_flip);
	json_num(j, "cpu1_call_ipis_per_flip",
		 run->ipis_per_flip < 0 ? NAN : run->ipis_per_flip);
	json_num(j, "cpu1_tlb_shootdowns_per_flip",
		 run->tlb_per_flip < 0 ? NAN : run->tlb_per_flip);
	json_num(j, "spinner_away_fraction", run->away_fraction);
	json_int(j, "flips", run->flips / 2 * 2);
	json_int(j, "threshold_ns", threshold_ns);
	json_object(j, "gap_histogram");
	for (int b = 0; b < GAP_BUCKETS; b++)
		json_int(j, gap_label[b], (long long)run->hist[b]);
	json_end(j);
	json_end(j);
}

static int run_all(struct json *j, struct run *runs, size_t n,
		   long threshold_ns)
{
	struct spin_log *log = mmap(NULL, sizeof(*log), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int r = 0;

	if (log == MAP_FAILED)
		return -errno;
	json_array(j, "disturbance_runs");
	for (size_t i = 0; i < n && r == 0; i++) {
		memset(log, 0, sizeof(*log));
		log->threshold_tsc =
			(uint64_t)(threshold_ns * bench_ticks_per_ns());
		r = bench_set_mode(runs[i].mode);
		if (r == 0)
			r = runs[i].other_process ? run_process(&runs[i], log)
						  : run_thread(&runs[i], log);
		if (r == 0) {
			printf("%-14s %-11s %-7s %10.2f %10.2f %10.1f %10.1f "
			       "%8.1f %8.1f %8.2f %6.3f\n",
			       runs[i].name, runs[i].mode, runs[i].layout,
			       runs[i].per_flip, runs[i].raw_per_flip,
			       runs[i].background_per_s, runs[i].flip_us,
			       runs[i].syncs_per_flip, runs[i].ipis_per_flip,
			       runs[i].tlb_per_flip, runs[i].away_fraction);
			emit(j, &runs[i], threshold_ns);
		} else if (r == -ENOTSUP) {
			printf("%-14s %-11s unavailable here\n", runs[i].name,
			       runs[i].mode);
			runs[i].per_flip = NAN; /* null in the JSON */
			r = 0;
		}
	}
	json_end(j);
	munmap(log, sizeof(*log));
	(void)bench_set_mode("batched");
	return r;
}

int exp_disturbance(int argc, char **argv, struct json *j)
{
	long flips = opt_long(argc, argv, "--flips", 1000);
	long idle_ms = opt_long(argc, argv, "--idle-ms", 300);
	long threshold_ns = opt_long(argc, argv, "--threshold-ns", 500);
	struct run runs[] = {
		{ "thread", "batched", "packed", false, flips, idle_ms },
		{ "thread", "one_by_one", "packed", false, flips, idle_ms },
		{ "thread", "mprotect", "packed", false, flips, idle_ms },
		{ "other process", "batched", "packed", true, flips, idle_ms },
		{ "thread", "batched", "spread", false, flips, idle_ms },
		{ "thread", "mprotect", "spread", false, flips, idle_ms },
	};

	if (bench_ncpus() < 2 || bench_pin_cpu(0) != 0) {
		printf("disturbance: skipped, needs two CPUs to pin to\n");
		json_str(j, "skip_reason", "needs two CPUs");
		return BENCH_SKIPPED;
	}
	printf("disturbance: spinner on CPU 1, %ld flips of a 56-site key on "
	       "CPU 0, gaps > %ld ns\n", flips, threshold_ns);
	printf("%-14s %-11s %-7s %10s %10s %10s %10s %8s %8s %8s %6s\n",
	       "observer", "mode", "layout", "per_flip", "raw", "bg_per_s",
	       "flip_us", "syncs", "cpu1_ipi", "cpu1_tlb", "away");
	int r = run_all(j, runs, sizeof(runs) / sizeof(runs[0]), threshold_ns);
	if (r == 0) {
		json_object(j, "disturbance");
		json_num(j, "batched_interruptions_per_flip", runs[0].per_flip);
		json_num(j, "one_by_one_interruptions_per_flip", runs[1].per_flip);
		json_num(j, "mprotect_interruptions_per_flip", runs[2].per_flip);
		json_num(j, "other_process_interruptions_per_flip", runs[3].per_flip);
		json_num(j, "batched_spread_interruptions_per_flip",
			 runs[4].per_flip);
		json_num(j, "mprotect_spread_interruptions_per_flip",
			 runs[5].per_flip);
		json_end(j);
	} else {
		printf("failed: %s\n", strerror(-r));
	}
	return r ? 1 : 0;
}
