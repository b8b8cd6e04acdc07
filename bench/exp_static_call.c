/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/exp_static_call.c - experiment 13b: static-call updates.
 *
 * 1. An update against its floor, as for a 1-site flip (exp_floor.c): one
 *    static call re-pointed between two targets (each update rewrites the
 *    trampoline's 5-byte jump with the int3 protocol), a 1-site key flip,
 *    and the protocol's system calls alone on the trampoline's page (3
 *    one-byte pwrite()s to /proc/self/mem + 3 membarriers), alternating in
 *    one run; the ratio of the medians is the figure.
 * 2. A batch: N static calls and N keys (8 sites each) changed by one
 *    sk_commit_calls(), against the same changes made one by one; core
 *    syncs per commit counted by the runtime (3 for any N in one batch).
 *
 *	bench_keys static_call [--rounds N] [--commits N]
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <statickeys.h>

#include "experiments.h"
#include "measure.h"
#include "options.h"
#include "sites.h"

__attribute__((noinline)) static int target_a(int x) { return x + 1; }
__attribute__((noinline)) static int target_b(int x) { return x + 2; }

/* 64 static calls for the batch, one for the floor. */
#define SC_EIGHT(p)                                                            \
	SK_DEFINE_STATIC_CALL(p##0, target_a);                               \
	SK_DEFINE_STATIC_CALL(p##1, target_a);                               \
	SK_DEFINE_STATIC_CALL(p##2, target_a);                               \
	SK_DEFINE_STATIC_CALL(p##3, target_a);                               \
	SK_DEFINE_STATIC_CALL(p##4, target_a);                               \
	SK_DEFINE_STATIC_CALL(p##5, target_a);                               \
	SK_DEFINE_STATIC_CALL(p##6, target_a);                               \
	SK_DEFINE_STATIC_CALL(p##7, target_a)
SC_EIGHT(sc_a);
SC_EIGHT(sc_b);
SC_EIGHT(sc_c);
SC_EIGHT(sc_d);
SC_EIGHT(sc_e);
SC_EIGHT(sc_f);
SC_EIGHT(sc_g);
SC_EIGHT(sc_h);
SK_DEFINE_STATIC_CALL(sc_floor, target_a);

#define SC_REF(p)                                                            \
	&SK__SC_DESC(p##0), &SK__SC_DESC(p##1), &SK__SC_DESC(p##2),             \
		&SK__SC_DESC(p##3), &SK__SC_DESC(p##4), &SK__SC_DESC(p##5),     \
		&SK__SC_DESC(p##6), &SK__SC_DESC(p##7)
static struct sk_static_call_key *const batch_calls[64] = {
	SC_REF(sc_a), SC_REF(sc_b), SC_REF(sc_c), SC_REF(sc_d),
	SC_REF(sc_e), SC_REF(sc_f), SC_REF(sc_g), SC_REF(sc_h),
};

static double since_us(uint64_t t0)
{
	return (double)(bench_now_ns() - t0) / 1e3;
}

static int floor_procmem(int fd, const volatile unsigned char *code)
{
	unsigned char b = *code;

	for (int step = 0; step < 3; step++) {
		if (pwrite(fd, &b, 1, (off_t)(uintptr_t)code) != 1)
			return -errno;
		if (syscall(__NR_membarrier,
			    MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0) != 0)
			return -errno;
	}
	return 0;
}

static int update_floor(struct json *j, long rounds)
{
	const struct site_group *g = site_group_by_sites(1);
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	struct samples upd = { 0 }, flip = { 0 }, fl = { 0 };
	const volatile unsigned char *tramp =
		(const volatile unsigned char *)(uintptr_t)
			SK__SC_KEY(sc_floor).tramp;
	double on, off;
	int r = fd >= 0 && tramp ? bench_set_mode("batched") : -ENOTSUP;

	/* Untimed: each page's copy-on-write fault, once. */
	if (r == 0)
		r = sk_static_call_update(sc_floor, target_b);
	if (r == 0)
		r = bench_flip(g->key, &on, &off);
	if (r == 0)
		r = floor_procmem(fd, tramp);
	for (long i = 0; i < rounds && r == 0; i++) {
		uint64_t t0 = bench_now_ns();
		r = sk_static_call_update(sc_floor, i % 2 ? target_b : target_a);
		samples_add(&upd, since_us(t0));
		if (r == 0)
			r = bench_flip(g->key, &on, &off);
		samples_add(&flip, on);
		samples_add(&flip, off);
		t0 = bench_now_ns();
		if (r == 0)
			r = floor_procmem(fd, tramp);
		samples_add(&fl, since_us(t0));
	}
	if (fd >= 0)
		close(fd);
	if (r == 0) {
		double u = samples_median(&upd), f = samples_median(&fl);
		printf("update %.2f us, 1-site flip %.2f us, floor %.2f us: "
		       "update / floor %.2fx (%zu updates)\n", u,
		       samples_median(&flip), f, f > 0 ? u / f : 0, upd.n);
		json_object(j, "update_floor");
		json_num(j, "update_median_us", u);
		json_num(j, "update_p90_us", samples_quantile(&upd, 0.9));
		json_num(j, "flip_median_us", samples_median(&flip));
		json_num(j, "floor_median_us", f);
		json_num(j, "ratio", f > 0 ? u / f : 0);
		json_int(j, "updates", (long long)upd.n);
		json_end(j);
	}
	samples_free(&upd);
	samples_free(&flip);
	samples_free(&fl);
	return r;
}

/* N static calls to @to and N keys to @on: one commit or 2N updates. */
static int change_all(size_t n, bool commit, bool on)
{
	struct sk_key_change keys[64];
	struct sk_static_call_change calls[64];
	void *to = on ? (void *)target_b : (void *)target_a;

	for (size_t i = 0; i < n; i++) {
		keys[i] = (struct sk_key_change){ multi_groups[i].key, on };
		calls[i] = (struct sk_static_call_change){ batch_calls[i], to };
	}
	if (commit)
		return sk_commit_calls(keys, n, calls, n);
	for (size_t i = 0; i < n; i++) {
		int r = sk__static_call_update(batch_calls[i], to);
		if (r == 0)
			r = on ? sk_key_enable(keys[i].key)
			       : sk_key_disable(keys[i].key);
		if (r)
			return r;
	}
	return 0;
}

static int batch_row(struct json *j, size_t n, bool commit, long commits)
{
	struct samples us = { 0 };
	struct sk_stats s0, s1;
	int r = 0;

	sk_stats_get(&s0);
	for (long i = 0; i < commits && r == 0; i++) {
		for (int on = 1; on >= 0 && r == 0; on--) {
			uint64_t t0 = bench_now_ns();
			r = change_all(n, commit, on);
			samples_add(&us, since_us(t0));
		}
	}
	sk_stats_get(&s1);
	if (r == 0) {
		double syncs = us.n ? (double)(s1.core_syncs - s0.core_syncs) /
					      (double)us.n
				    : 0;
		const char *how = commit ? "commit" : "one_by_one";
		printf("%4zu + %-4zu %-10s %10.2f %8.1f\n", n, n, how,
		       samples_median(&us), syncs);
		json_object(j, NULL);
		json_int(j, "static_calls", (long long)n);
		json_int(j, "keys", (long long)n);
		json_str(j, "mode", how);
		json_num(j, "median_us", samples_median(&us));
		json_num(j, "syncs_per_change", syncs);
		json_int(j, "changes", (long long)us.n);
		json_end(j);
	}
	samples_free(&us);
	return r;
}

int exp_static_call(int argc, char **argv, struct json *j)
{
	long rounds = opt_long(argc, argv, "--rounds", 300);
	long commits = opt_long(argc, argv, "--commits", 20);
	static const size_t ns[] = { 1, 8, 64 };

	json_object(j, "static_call_update");
	printf("static-call update against its floor, %ld rounds\n", rounds);
	int r = update_floor(j, rounds);
	if (r == 0) {
		printf("N static calls + N keys (%zu sites each): one commit or "
		       "one by one\n%11s %-10s %10s %8s\n", multi_groups[0].n,
		       "changes", "how", "median_us", "syncs");
		json_array(j, "batch");
		for (size_t i = 0; i < 3 && r == 0; i++)
			for (int c = 1; c >= 0 && r == 0; c--)
				r = batch_row(j, ns[i], c, commits);
		json_end(j);
	}
	json_end(j);
	if (r)
		printf("unavailable here: %s\n", strerror(r < 0 ? -r : r));
	return r ? BENCH_SKIPPED : 0;
}
