/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * foreign_writer.c - a byte another tool writes next to our sites is never
 * reverted by a key update.
 *
 * Eight functions, each 64-byte aligned, each starting with a site of key
 * k (so every site but the first has alignment padding right before it,
 * between it and the previous site: bytes no thread ever executes).  A
 * "foreign" thread plays a debugger inserting and removing a breakpoint:
 * through /proc/self/mem, as gdb does, it writes int3 into the padding byte
 * just before sites 1..7, checks it stays there for a while, writes the
 * original byte back, checks that, and so on.  Meanwhile the main thread
 * flips k back to back and a reader runs the sites.  If an update ever
 * writes a byte that is not a site's own, the foreign thread sees its byte
 * change under it (a revert).  STATICKEYS_WRITER picks the writer;
 * SK_COEXIST_SECONDS the duration (default 2).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <statickeys.h>

#include "../check.h"

#define NFN 8

SK_DEFINE_KEY_FALSE(k);
static volatile unsigned long taken;

#define SITE_FN(i)                                                           \
	__attribute__((noinline, aligned(64))) void site_fn##i(void)         \
	{                                                                    \
		if (sk_branch_unlikely(&k))                                  \
			taken++;                                             \
	}
SITE_FN(0) SITE_FN(1) SITE_FN(2) SITE_FN(3)
SITE_FN(4) SITE_FN(5) SITE_FN(6) SITE_FN(7)
static void (*const fns[NFN])(void) = { site_fn0, site_fn1, site_fn2, site_fn3,
					site_fn4, site_fn5, site_fn6, site_fn7 };

static int stop, started;
static unsigned long rounds, reverted, flips;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Hold @v at @a for a while; count each time it is found changed. */
static void hold(volatile unsigned char *a, unsigned char v)
{
	for (int i = 0; i < 20000; i++) {
		if (*a != v) {
			__atomic_fetch_add(&reverted, 1, __ATOMIC_RELAXED);
			return;
		}
	}
}

static void *foreign(void *arg)
{
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	const unsigned char int3 = 0xcc;
	unsigned char orig[NFN];

	(void)arg;
	CHECK(fd >= 0, "/proc/self/mem opens for writing");
	for (int i = 1; i < NFN; i++)
		orig[i] = *((const unsigned char *)fns[i] - 1);
	__atomic_fetch_add(&started, 1, __ATOMIC_RELEASE);
	while (fd >= 0 && !__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		for (int i = 1; i < NFN; i++) {
			uintptr_t a = (uintptr_t)fns[i] - 1;
			CHECK(pwrite(fd, &int3, 1, (off_t)a) == 1, "insert");
			hold((volatile unsigned char *)a, int3);
		}
		for (int i = 1; i < NFN; i++) {
			uintptr_t a = (uintptr_t)fns[i] - 1;
			CHECK(pwrite(fd, &orig[i], 1, (off_t)a) == 1, "remove");
			hold((volatile unsigned char *)a, orig[i]);
		}
		rounds++;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		for (int i = 0; i < NFN; i++)
			fns[i]();
	return NULL;
}

int main(void)
{
	const char *env = getenv("SK_COEXIST_SECONDS");
	double seconds = env ? atof(env) : 2.0, t0 = now();
	pthread_t ft, rt;
	struct sk_stats st;

	/* The toggled bytes must be padding: each function is far shorter
	 * than its 64-byte alignment, and starts with its site. */
	for (int i = 0; i < NFN; i++) {
		const unsigned char *c = (const unsigned char *)fns[i];
		CHECK(c[0] == 0x0f && c[1] == 0x1f,
		      "site_fn%d starts with its site (NOP5), found %02x %02x",
		      i, c[0], c[1]);
	}
	pthread_create(&ft, NULL, foreign, NULL);
	pthread_create(&rt, NULL, reader, NULL);
	/* A thread still starting has every signal blocked; the runtime would
	 * refuse updates (-EBUSY) for fear of killing it with an int3. */
	while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < 2)
		sched_yield();
	t0 = now();
	while (now() - t0 < seconds) {
		int r = sk_key_enabled(&k.key) ? sk_key_disable(&k.key)
					       : sk_key_enable(&k.key);
		CHECK(r == 0, "flip returned %d", r);
		flips++;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(ft, NULL);
	pthread_join(rt, NULL);
	if (sk_key_enabled(&k.key))
		sk_key_disable(&k.key);
	sk_stats_get(&st);
	printf("writer %s: %lu flips, %lu foreign insert/remove rounds over "
	       "%d bytes next to sites, %lu reverted, %llu traps resumed\n",
	       st.writer, flips, rounds, NFN - 1, reverted,
	       (unsigned long long)st.traps_handled);
	CHECK(flips > 100 && rounds > 10, "both sides ran (%lu flips, %lu rounds)",
	      flips, rounds);
	CHECK(reverted == 0, "no foreign byte reverted (%lu were)", reverted);
	return check_summary();
}
