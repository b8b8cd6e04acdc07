/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/branch_time.c - experiment 1c: time per check, flag line evicted.
 *
 * A flag that is checked rarely is often not in the cache: the check then
 * costs a memory access, while a static branch costs the same no-op as
 * ever.  Each iteration flushes the flag's cache line (clflush + mfence)
 * and then runs one check; the same flush runs for every variant and an
 * empty loop, so (variant - empty) is the check.  The hot loop (no flush)
 * is also reported.  Timings are noisy on a shared machine: the figure that
 * matters is the ratio of a whole iteration (flush included) to the same
 * iteration with the plain flag, measured in the same run, as a median over
 * interleaved repeats.
 */
#include <stdio.h>

#include <statickeys.h>

#include "json.h"
#include "measure.h"
#include "options.h"

SK_DEFINE_KEY_FALSE(time_key_off);
SK_DEFINE_KEY_TRUE(time_key_on);
/* Alone on its cache line, so a flush evicts exactly the flag. */
int time_flag __attribute__((aligned(64)));

/* What the checks of branch_bytes.c guard; linked here so the functions
 * whose sizes are read exist in this executable. */
__attribute__((noipa)) void bench_hook(int i)
{
	(void)i;
}

/* Flush the flag's cache line, so a "cold" check misses. */
static inline void evict(int cold)
{
	if (!cold)
		return;
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("clflush %0\n\tmfence" : "+m"(time_flag)
			     : : "memory");
#elif defined(__aarch64__)
	/* Linux lets user space clean and invalidate by address (SCTLR_EL1.UCI). */
	__asm__ __volatile__("dc civac, %0\n\tdsb ish" : : "r"(&time_flag)
			     : "memory");
#else
	/* No user-mode flush known here: "cold" figures are warm ones. */
#endif
}

#define BODY() __asm__ __volatile__("nop")
#define LOOP(name, check)                                                    \
	__attribute__((noipa)) static void loop_##name(long n, int cold)     \
	{                                                                    \
		for (long i = 0; i < n; i++) {                               \
			evict(cold);                                         \
			if (check)                                           \
				BODY();                                      \
			__asm__ __volatile__("" ::: "memory");               \
		}                                                            \
	}

LOOP(empty, 0)
LOOP(static_off, sk_branch_unlikely(&time_key_off))
LOOP(static_on, sk_branch_unlikely(&time_key_on))
LOOP(flag, time_flag)
LOOP(expect, __builtin_expect(time_flag, 0))
LOOP(atomic, __atomic_load_n(&time_flag, __ATOMIC_RELAXED))

static const struct {
	const char *name;
	void (*loop)(long, int);
} variants[] = {
	{ "empty", loop_empty },   { "static_off", loop_static_off },
	{ "static_on", loop_static_on }, { "flag", loop_flag },
	{ "flag_expect", loop_expect }, { "flag_atomic", loop_atomic },
};
#define NV (sizeof(variants) / sizeof(variants[0]))

static double time_ns(void (*loop)(long, int), long n, int cold)
{
	uint64_t t0 = bench_now_ns();

	loop(n, cold);
	return (double)(bench_now_ns() - t0) / (double)n;
}

int main(int argc, char **argv)
{
	long n = opt_long(argc, argv, "--iterations", 200000);
	long reps = opt_long(argc, argv, "--repeats", 11);
	struct samples s[2][NV] = { 0 };
	struct json j;

	if (json_open(&j, opt_str(argc, argv, "--json", "-")) != 0)
		return 1;
	/* Interleave variants within each repeat so drifts in machine load
	 * hit all of them alike. */
	for (long r = 0; r < reps; r++)
		for (int cold = 0; cold < 2; cold++)
			for (size_t v = 0; v < NV; v++)
				samples_add(&s[cold][v],
					    time_ns(variants[v].loop, n, cold));
	double empty[2] = { samples_median(&s[0][0]), samples_median(&s[1][0]) };
	double flag[2] = { samples_median(&s[0][3]), samples_median(&s[1][3]) };
	printf("time per check (median of %ld x %ld), minus the empty loop\n",
	       reps, n);
	printf("%-12s %10s %10s %10s\n", "variant", "hot_ns", "cold_ns",
	       "iter/flag");
	json_object(&j, NULL);
	json_object(&j, "branch_time");
	for (size_t v = 1; v < NV; v++) {
		double hot = samples_median(&s[0][v]), cold = samples_median(&s[1][v]);
		/* The check's own cost is the difference to the empty loop;
		 * the ratio compares whole iterations, which stays meaningful
		 * when noise makes a difference of a few ns negative. */
		printf("%-12s %10.2f %10.2f %10.2f\n", variants[v].name,
		       hot - empty[0], cold - empty[1], cold / flag[1]);
		json_object(&j, variants[v].name);
		json_num(&j, "hot_ns", hot - empty[0]);
		json_num(&j, "cold_ns", cold - empty[1]);
		json_num(&j, "cold_iteration_ns", cold);
		json_num(&j, "cold_ratio_to_flag", cold / flag[1]);
		json_num(&j, "hot_ratio_to_flag", hot / flag[0]);
		json_end(&j);
	}
	json_end(&j);
	json_int(&j, "iterations", n);
	json_int(&j, "repeats", reps);
	json_str(&j, "status", "ok");
	json_end(&j);
	return json_close(&j) ? 1 : 0;
}
