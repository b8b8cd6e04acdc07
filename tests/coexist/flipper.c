/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * flipper.c - the program gdb_test.sh and uprobe_test.sh run under their
 * tools: one thread flips a key back to back while two others run a
 * function holding one of its sites.
 *
 * main() runs PHASES phases of PHASE_MS each and calls phase_done(n) after
 * each one, a place for the debugger script to stop and set breakpoints.
 * with_site() holds the site after some work of its own, so `break
 * with_site` lands before the site, not on it; site_addr and
 * after_site_addr give the script the site itself and the instruction
 * after it.  At exit the program prints its flips and how many were refused
 * (-EILSEQ: a breakpoint sat on the site), and exits 1 on any other error
 * or if a thread saw the key in a state it was not in.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <statickeys.h>

SK_DEFINE_KEY_FALSE(k);
volatile unsigned long sink;
uintptr_t site_addr, after_site_addr;
static int stop, started;
static unsigned long flips, refused, other_errors, calls;

__attribute__((noinline)) void with_site(unsigned long x)
{
	sink += x * 3;
	if (sk_branch_unlikely(&k))
		sink++;
	sink ^= x;
}

__attribute__((noinline)) void phase_done(int phase)
{
	printf("phase %d done: %lu flips, %lu refused\n", phase,
	       __atomic_load_n(&flips, __ATOMIC_RELAXED),
	       __atomic_load_n(&refused, __ATOMIC_RELAXED));
	fflush(stdout);
	__asm__ __volatile__("" ::: "memory");
}

static void *worker(void *arg)
{
	unsigned long x = (uintptr_t)arg;

	__atomic_fetch_add(&started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		with_site(x++);
		__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *flipper(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		int r = sk_key_enabled(&k.key) ? sk_key_disable(&k.key)
					       : sk_key_enable(&k.key);
		if (r == 0)
			__atomic_fetch_add(&flips, 1, __ATOMIC_RELAXED);
		else if (r == -EILSEQ)
			__atomic_fetch_add(&refused, 1, __ATOMIC_RELAXED);
		else if (r != -EBUSY) /* a thread starting or exiting */
			__atomic_fetch_add(&other_errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* The site in with_site(): the one NOP5 in its first bytes (key off). */
static int find_site(void)
{
	static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	const unsigned char *f = (const unsigned char *)with_site;
	int found = 0;

	/* Byte 0 may be a uprobe's int3 (uprobe_test.sh). */
	for (int i = 0; i < 48; i++)
		if ((f[i] == nop5[0] || f[i] == 0xcc) &&
		    memcmp(f + i + 1, nop5 + 1, 4) == 0 && found++ == 0)
			site_addr = (uintptr_t)(f + i);
	after_site_addr = site_addr + 5;
	return found == 1 && site_addr != (uintptr_t)f ? 0 : -1;
}

int main(int argc, char **argv)
{
	int phases = argc > 1 ? atoi(argv[1]) : 3;
	long phase_ms = argc > 2 ? atol(argv[2]) : 300;
	pthread_t w[2], f;

	if (find_site() != 0) {
		fprintf(stderr, "with_site() does not hold one site after its "
				"first instruction\n");
		return 2;
	}
	printf("site at %p\n", (void *)site_addr);
	for (int i = 0; i < 2; i++)
		pthread_create(&w[i], NULL, worker, (void *)(uintptr_t)i);
	while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < 2)
		sched_yield();
	pthread_create(&f, NULL, flipper, NULL);
	for (int p = 1; p <= phases; p++) {
		struct timespec ts = { phase_ms / 1000, (phase_ms % 1000) * 1000000 };
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
		phase_done(p);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(f, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	struct sk_stats st;
	sk_stats_get(&st);
	printf("flips: %lu done, %lu refused, %lu other errors; %lu calls; "
	       "%llu traps resumed by the library\n", flips, refused,
	       other_errors, calls, (unsigned long long)st.traps_handled);
	return other_errors ? 1 : 0;
}
