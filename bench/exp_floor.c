/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/exp_floor.c - experiment 3b: a 1-site flip against its physical
 * floor, measured in the same run.
 *
 * What a flip of one site cannot avoid is the int3 protocol's system calls:
 *   procmem writer   3 one-byte pwrite()s to /proc/self/mem on a code page
 *                    + 3 membarrier(PRIVATE_EXPEDITED_SYNC_CORE);
 *   mprotect writer  mprotect() of the code page to RWX, 3 byte stores,
 *                    2 membarriers, mprotect() back (the TLB shootdown of
 *                    taking write access away is the third sync).
 * The floor is exactly those calls on the page of the 1-site key's site,
 * writing back the byte that is there (nothing changes).  Rounds alternate
 * flip, floor, flip, floor, ... (each flip timed on its own, enable and
 * disable pooled), so load on a shared machine falls on both alike; the
 * ratio of the medians is the figure.
 *
 * Each row gives the median and the 99th percentile of its flips (10,000
 * in `make bench`): the tail says whether some updates pay for work the
 * others do not (a periodic rescan of every thread, os/linux/
 * threads_check.c).  --no-busy leaves out the rows below (the fully static
 * build's run).
 *
 * Then the same with busy cores (default writer): 0, 1, 3, 7 and 15 other
 * threads, as many as the machine has CPUs besides the updater's, each
 * running the key's site in a loop.  A thread that meets the int3 traps and
 * is resumed by the handler (the traps per flip are counted), and each core
 * sync interrupts the running threads' CPUs, where the floor's interrupts
 * the same CPUs but no thread traps: the rows say what running code costs
 * a flip.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <statickeys.h>

#include "experiments.h"
#include "measure.h"
#include "options.h"
#include "sites.h"

static int sync_cores(void)
{
	return (int)syscall(__NR_membarrier,
			    MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0);
}

static int floor_procmem(int fd, const volatile unsigned char *code)
{
	unsigned char b = *code;
	int r = 0;

	for (int step = 0; step < 3 && r == 0; step++) {
		if (pwrite(fd, &b, 1, (off_t)(uintptr_t)code) != 1)
			return -errno;
		r = sync_cores();
	}
	return r;
}

static int floor_mprotect(volatile unsigned char *code)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = (void *)((uintptr_t)code & ~(uintptr_t)(page - 1));
	unsigned char b = *code;
	int r = mprotect(p, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC);

	for (int step = 0; step < 3 && r == 0; step++) {
		*code = b;
		if (step < 2)
			r = sync_cores();
	}
	if (mprotect(p, (size_t)page, PROT_READ | PROT_EXEC) != 0)
		r = -1;
	return r;
}

struct pair {
	struct samples flip, floor;
};

static double elapsed_us(uint64_t t0, uint64_t t1)
{
	return (double)(t1 - t0) / 1e3;
}

/* One round: two flips (on, off) and two floors, alternating. */
static int round_of(const struct site_group *g, bool mprotect_writer, int fd,
		    struct pair *p)
{
	volatile unsigned char *code = (volatile unsigned char *)g->fn[0];
	double on, off;
	int r = bench_flip(g->key, &on, &off);

	samples_add(&p->flip, on);
	samples_add(&p->flip, off);
	for (int i = 0; i < 2 && r == 0; i++) {
		uint64_t t0 = bench_now_ns();
		r = mprotect_writer ? floor_mprotect(code)
				    : floor_procmem(fd, code);
		samples_add(&p->floor, elapsed_us(t0, bench_now_ns()));
	}
	return r;
}

/* The median and the tail: the 99th percentile against the median says
 * whether some updates pay for work the others do not (seed 002). */
static void emit(struct json *j, const char *writer, const struct pair *p)
{
	double flip = samples_median(&p->flip), fl = samples_median(&p->floor);
	double p99 = samples_quantile(&p->flip, 0.99);

	printf("%-9s %10.2f %10.2f %10.2f %7.2fx %7.2fx %7zu\n", writer, flip,
	       p99, fl, fl > 0 ? flip / fl : 0, flip > 0 ? p99 / flip : 0,
	       p->flip.n);
	json_object(j, writer);
	json_num(j, "flip_median_us", flip);
	json_num(j, "flip_p90_us", samples_quantile(&p->flip, 0.9));
	json_num(j, "flip_p99_us", p99);
	json_num(j, "flip_max_us", samples_quantile(&p->flip, 1.0));
	json_num(j, "p99_over_median", flip > 0 ? p99 / flip : 0);
	json_num(j, "floor_median_us", fl);
	json_num(j, "floor_p90_us", samples_quantile(&p->floor, 0.9));
	json_num(j, "floor_p99_us", samples_quantile(&p->floor, 0.99));
	json_num(j, "ratio", fl > 0 ? flip / fl : 0);
	json_int(j, "flips", (long long)p->flip.n);
	json_end(j);
}

/* Threads running the 1-site key's site until told to stop. */
struct busy {
	const struct site_group *g;
	int stop;
	unsigned long runs;
};

static void *busy_thread(void *arg)
{
	struct busy *b = arg;

	while (!__atomic_load_n(&b->stop, __ATOMIC_RELAXED)) {
		b->g->fn[0]();
		__atomic_fetch_add(&b->runs, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static const long busy_counts[] = { 0, 1, 3, 7, 15 };

/* One row: @n busy threads, @rounds alternating flips and floors. */
static int busy_row(struct json *j, const struct site_group *g, int fd,
		    long n, long rounds)
{
	pthread_t t[15];
	struct busy b = { g, 0, 0 };
	struct pair p = { 0 };
	struct sk_stats before, after;
	long started = 0;
	int r = 0;

	for (; started < n && r == 0; started++)
		r = -pthread_create(&t[started], NULL, busy_thread, &b);
	if (r)
		started--;
	/* Every thread running the site before the first timed flip. */
	while (r == 0 && __atomic_load_n(&b.runs, __ATOMIC_RELAXED) <
				 (unsigned long)(1000 * n))
		sched_yield();
	if (r == 0)
		r = sk_stats_get(&before);
	for (long i = 0; i < rounds && r == 0; i++)
		r = round_of(g, false, fd, &p);
	if (r == 0)
		r = sk_stats_get(&after);
	__atomic_store_n(&b.stop, 1, __ATOMIC_RELAXED);
	for (long i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	if (r == 0) {
		double flip = samples_median(&p.flip);
		double fl = samples_median(&p.floor);
		double traps = p.flip.n ? (double)(after.traps_handled -
						   before.traps_handled) /
						  (double)p.flip.n
					: 0;
		printf("%6ld %10.2f %10.2f %7.2fx %12.2f\n", n, flip, fl,
		       fl > 0 ? flip / fl : 0, traps);
		json_object(j, NULL);
		json_int(j, "busy_threads", n);
		json_num(j, "flip_median_us", flip);
		json_num(j, "floor_median_us", fl);
		json_num(j, "ratio", fl > 0 ? flip / fl : 0);
		json_num(j, "traps_per_flip", traps);
		json_int(j, "flips", (long long)p.flip.n);
		json_end(j);
	}
	samples_free(&p.flip);
	samples_free(&p.floor);
	return r;
}

/* The busy-core rows: as many busy threads as there are other CPUs. */
static int busy_rows(struct json *j, const struct site_group *g, int fd,
		     long rounds)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int r = bench_set_mode("batched");

	printf("1-site flip against its floor with busy threads running the "
	       "site (default writer, %ld CPUs)\n", cpus);
	printf("%6s %10s %10s %8s %12s\n", "busy", "flip_us", "floor_us",
	       "ratio", "traps/flip");
	json_int(j, "cpus", cpus);
	json_array(j, "busy");
	for (size_t i = 0; i < sizeof(busy_counts) / sizeof(busy_counts[0]) &&
			   r == 0; i++)
		if (busy_counts[i] < cpus)
			r = busy_row(j, g, fd, busy_counts[i], rounds);
	json_end(j);
	return r;
}

int exp_flip_floor(int argc, char **argv, struct json *j)
{
	long rounds = opt_long(argc, argv, "--rounds", 500);
	const struct site_group *g = site_group_by_sites(1);
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	struct pair p[2] = { 0 };
	double on, off;
	int r = fd >= 0 ? 0 : -errno;

	printf("1-site flip against its floor, %ld rounds alternating\n", rounds);
	printf("%-9s %10s %10s %10s %8s %8s %7s\n", "writer", "flip_us",
	       "flip_p99", "floor_us", "ratio", "p99/med", "flips");
	json_object(j, "flip_floor");
	for (int w = 0; w < 2 && r == 0; w++) {
		r = bench_set_mode(w ? "mprotect" : "batched");
		/* Untimed: the copy-on-write fault of the page, once. */
		if (r == 0)
			r = bench_flip(g->key, &on, &off);
		if (r == 0)
			r = w ? floor_mprotect((unsigned char *)g->fn[0])
			      : floor_procmem(fd, (unsigned char *)g->fn[0]);
		for (long i = 0; i < rounds && r == 0; i++)
			r = round_of(g, w == 1, fd, &p[w]);
		if (r == 0)
			emit(j, w ? "mprotect" : "procmem", &p[w]);
		samples_free(&p[w].flip);
		samples_free(&p[w].floor);
	}
	if (r == 0 && !opt_flag(argc, argv, "--no-busy"))
		r = busy_rows(j, g, fd, rounds);
	json_end(j);
	(void)bench_set_mode("batched");
	if (fd >= 0)
		close(fd);
	if (r)
		printf("unavailable here: %s\n", strerror(r < 0 ? -r : r));
	return r ? BENCH_SKIPPED : 0;
}
