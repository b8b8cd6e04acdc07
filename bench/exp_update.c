/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/exp_update.c - experiment 3: how long one key flip takes.
 *
 * One key with N = 1, 56, 1000, 10000 sites, flipped on and off >= 20 times
 * in each mode:
 *   batched     the default: one int3 protocol for all sites, 3 core syncs;
 *   one_by_one  sk_config_set_batch_limit(1): one protocol per site, 3 syncs
 *               per site, as the kernel did before its 2019 batching patch;
 *   mprotect    batched, with the temporary-mprotect writer.
 * and in two layouts:
 *   packed      the sites are consecutive tiny functions (~16 bytes apart);
 *   spread      each site function in its own 4 KiB page, over eight source
 *               files, as the sites of a widely used key are spread over a
 *               real program (N = 56 and 1000).
 * Each flip is timed from the call to its return (median and p99, both
 * directions pooled); core syncs and code writes per flip come from the
 * runtime's counters.
 *
 * The reference for the default writer on the spread layout, measured in the
 * same run: one 1-byte pwrite() to /proc/self/mem on a code page already
 * written once (each of the spread sites' pages, writing back the byte that
 * is there: nothing changes).  The runtime cannot do better than one such
 * write per site and protocol step.
 */
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <statickeys.h>

#include "experiments.h"
#include "measure.h"
#include "options.h"
#include "sites.h"

static const size_t all_sizes[] = { 1, 56, 1000, 10000 };
static const char *const all_modes[] = { "batched", "one_by_one", "mprotect" };
static const char *const all_layouts[] = { "packed", "spread" };

struct flip_result {
	struct samples us, on_us, off_us;
	double syncs_per_flip, writes_per_flip, sites_per_flip;
};

static int measure(const struct site_group *g, long flips,
		   struct flip_result *out)
{
	struct sk_stats s0, s1;
	double on, off;
	/* One untimed flip first: it takes the copy-on-write fault of each
	 * text page written through /proc/self/mem, which happens once per
	 * page and process, not once per flip. */
	int r = bench_flip(g->key, &on, &off);

	sk_stats_get(&s0);
	for (long f = 0; f < flips && r == 0; f++) {
		r = bench_flip(g->key, &on, &off);
		samples_add(&out->us, on);
		samples_add(&out->us, off);
		samples_add(&out->on_us, on);
		samples_add(&out->off_us, off);
	}
	sk_stats_get(&s1);
	out->syncs_per_flip = (double)(s1.core_syncs - s0.core_syncs) / (2.0 * flips);
	out->writes_per_flip = (double)(s1.text_writes - s0.text_writes) / (2.0 * flips);
	/* Must equal N: proof that every generated site really exists and
	 * was rewritten, not folded away by the compiler. */
	out->sites_per_flip = (double)(s1.sites_written - s0.sites_written) / (2.0 * flips);
	return r;
}

static void emit(struct json *j, size_t sites, const char *mode,
		 const char *layout, long flips, const struct flip_result *fr)
{
	json_object(j, NULL);
	json_int(j, "sites", (long long)sites);
	json_str(j, "mode", mode);
	json_str(j, "layout", layout);
	json_num(j, "median_us", samples_median(&fr->us));
	json_num(j, "p99_us", samples_quantile(&fr->us, 0.99));
	json_num(j, "min_us", samples_min(&fr->us));
	json_num(j, "max_us", samples_max(&fr->us));
	json_num(j, "enable_median_us", samples_median(&fr->on_us));
	json_num(j, "disable_median_us", samples_median(&fr->off_us));
	json_num(j, "syncs_per_flip", fr->syncs_per_flip);
	json_num(j, "text_writes_per_flip", fr->writes_per_flip);
	json_num(j, "sites_written_per_flip", fr->sites_per_flip);
	json_int(j, "flips", 2 * flips);
	json_end(j);
}

static int run_one(struct json *j, size_t sites, const char *mode,
		   const char *layout, long flips)
{
	const struct site_group *g = site_group_by_layout(sites, layout);
	struct flip_result fr = { 0 };

	if (!g)
		return 0; /* no such layout for this N */
	int r = bench_set_mode(mode);
	if (r == 0)
		r = measure(g, flips, &fr);
	if (r == 0) {
		printf("%8zu  %-11s %-7s %10.1f %10.1f %8.2f %8.2f %7ld\n",
		       sites, mode, layout, samples_median(&fr.us),
		       samples_quantile(&fr.us, 0.99), fr.syncs_per_flip,
		       fr.writes_per_flip, 2 * flips);
		emit(j, sites, mode, layout, flips, &fr);
	} else {
		printf("%8zu  %-11s %-7s unavailable here: %s\n", sites, mode,
		       layout, strerror(-r));
	}
	samples_free(&fr.us);
	samples_free(&fr.on_us);
	samples_free(&fr.off_us);
	(void)bench_set_mode("batched");
	return r == -ENOTSUP ? 0 : r;
}

/* Flips for one configuration: fewer for the slowest one-by-one sizes
 * keeps the full run within its time budget (never fewer than asked for
 * by --min-flips). */
static long flips_for(size_t sites, const char *mode, long flips, long min)
{
	if (strcmp(mode, "one_by_one") == 0 && sites >= 10000 && flips > min)
		return min;
	return flips;
}

/* Median cost of one 1-byte pwrite() to /proc/self/mem, writing back the
 * current first byte of each site of @g in turn (pages already written). */
static double pwrite_reference_us(const struct site_group *g, int rounds)
{
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	struct samples s = { 0 };
	double median = -1;

	if (fd < 0)
		return -1;
	for (int i = 0; i < rounds; i++) {
		const unsigned char *a = (const unsigned char *)g->fn[i % g->n];
		unsigned char b = *(const volatile unsigned char *)a;
		uint64_t t0 = bench_now_ns();
		ssize_t n = pwrite(fd, &b, 1, (off_t)(uintptr_t)a);
		uint64_t t1 = bench_now_ns();
		if (n != 1)
			break;
		samples_add(&s, (double)(t1 - t0) / 1e3);
		median = 0;
	}
	if (median == 0)
		median = samples_median(&s);
	samples_free(&s);
	close(fd);
	return median;
}

int exp_update_latency(int argc, char **argv, struct json *j)
{
	long flips = opt_long(argc, argv, "--flips", 20);
	long min_flips = opt_long(argc, argv, "--min-flips", 20);
	long only_sites = opt_long(argc, argv, "--sites", 0);
	const char *only_mode = opt_str(argc, argv, "--mode", NULL);
	const char *only_layout = opt_str(argc, argv, "--layout", NULL);
	int r = 0;

	printf("update latency: one key, N sites, %ld flips each way\n", flips);
	printf("%8s  %-11s %-7s %10s %10s %8s %8s %7s\n", "sites", "mode",
	       "layout", "median_us", "p99_us", "syncs", "writes", "flips");
	json_array(j, "update_latency");
	for (size_t m = 0; m < 3 && r == 0; m++) {
		if (only_mode && strcmp(only_mode, all_modes[m]) != 0)
			continue;
		for (size_t l = 0; l < 2 && r == 0; l++) {
			if (only_layout && strcmp(only_layout, all_layouts[l]))
				continue;
			for (size_t i = 0; i < 4 && r == 0; i++) {
				if (only_sites &&
				    (size_t)only_sites != all_sizes[i])
					continue;
				r = run_one(j, all_sizes[i], all_modes[m],
					    all_layouts[l],
					    flips_for(all_sizes[i], all_modes[m],
						      flips, min_flips));
			}
		}
	}
	json_end(j);
	/* After the flips: every spread site's page has been written. */
	double ref = pwrite_reference_us(site_group_by_layout(56, "spread"),
					 2000);
	printf("one 1-byte pwrite to /proc/self/mem (code page): %.2f us "
	       "median\n", ref);
	if (ref >= 0)
		json_num(j, "pwrite_1byte_us", ref);
	struct sk_stats st;
	sk_stats_get(&st);
	json_int(j, "core_syncs_total", (long long)st.core_syncs);
	json_str(j, "writer", st.writer);
	json_str(j, "sync_method", st.sync_method);
	return r ? 1 : 0;
}
