/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * thread_churn.c - updates while another thread creates and joins threads
 * without pause.  musl blocks every application signal, SIGTRAP included,
 * with raw system calls inside pthread_create() (the creating thread, and
 * the new thread until it restores its mask): an update that finds such a
 * thread waits for it (threads_check.c) and must then go ahead, never fail
 * and never let a thread meet a changing site with SIGTRAP blocked (the
 * kernel would kill the process).  The new threads run the site.  Prints
 * how long the updates took.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include <statickeys.h>

SK_DEFINE_KEY_FALSE(key);

static int stop;

__attribute__((noinline)) static int site(void)
{
	return sk_branch_unlikely(&key) ? 1 : 0;
}

static void *short_lived(void *arg)
{
	for (int i = 0; i < 100; i++)
		(void)site();
	return arg;
}

static void *churn(void *arg)
{
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		pthread_t t;
		if (pthread_create(&t, NULL, short_lived, NULL) == 0)
			pthread_join(t, NULL);
	}
	return arg;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	enum { N = 2000 };
	double worst = 0, sum = 0;
	int failed = 0, slow = 0;
	pthread_t c;

	pthread_create(&c, NULL, churn, NULL);
	for (int i = 0; i < N; i++) {
		double t0 = now();
		int r = i & 1 ? sk_key_disable(&key) : sk_key_enable(&key);
		double d = now() - t0;
		failed += r != 0;
		sum += d;
		worst = d > worst ? d : worst;
		slow += d > 1e-3;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(c, NULL);
	printf("%d updates while a thread creates threads: %d failed, mean "
	       "%.1f us, slowest %.2f ms, %d over 1 ms\n", N, failed,
	       sum / N * 1e6, worst * 1e3, slow);
	return failed ? 1 : 0;
}
