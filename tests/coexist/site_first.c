/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * site_first.c - the program gdb_site_first_test.sh runs under gdb: work()
 * starts with a site (its first instruction), the place `break work` lands.
 *
 * main() calls work() CALLS times and flips the key after each call, while
 * a second thread runs another site back to back (so updates do meet
 * threads on their int3).  At exit it prints its calls, flips and refused
 * updates (-EILSEQ: a debugger's int3 sat on a site); it exits 1 on a
 * wrong result, a refused update or any other error.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <statickeys.h>

#define CALLS 40

SK_DEFINE_KEY_FALSE(k);
SK_DEFINE_KEY_FALSE(busy_key);
volatile unsigned long sink;
static int stop;
static unsigned long flips, refused, other_errors;

__attribute__((noinline)) int work(int x)
{
	if (sk_branch_unlikely(&k))
		return x * 7;
	return x + 1;
}

__attribute__((noinline)) void busy_site(void)
{
	if (sk_branch_unlikely(&busy_key))
		sink++;
}

static void *busy(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		busy_site();
	return NULL;
}

__attribute__((noinline)) void flip(int on)
{
	int r = on ? sk_key_enable(&k) : sk_key_disable(&k);
	/* Only after k changed: a refused flip leaves no trap to meet, so
	 * gdb_site_first_test.sh knows what stops next. */
	int r2 = r ? 0 : on ? sk_key_enable(&busy_key) : sk_key_disable(&busy_key);

	if (r == 0 && r2 == 0)
		flips++;
	else if (r == -EILSEQ || r2 == -EILSEQ)
		refused++;
	else
		other_errors++;
}

int main(void)
{
	pthread_t t;
	int wrong = 0;

	if (pthread_create(&t, NULL, busy, NULL) != 0)
		return 1;
	for (int i = 0; i < CALLS; i++) {
		int want = sk_key_enabled(&k.key) ? i * 7 : i + 1;
		if (work(i) != want)
			wrong++;
		flip(i % 2 == 0);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	printf("site_first: %d calls, %lu flips, %lu refused, %lu other errors, "
	       "%d wrong\n", CALLS, flips, refused, other_errors, wrong);
	return wrong || refused || other_errors ? 1 : 0;
}
