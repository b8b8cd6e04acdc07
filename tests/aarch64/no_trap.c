/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * no_trap.c - aarch64 runs none of the x86-64 trap machinery.
 *
 * A site changes with one store on aarch64, so the runtime must not install
 * a SIGTRAP handler, must not refuse updates because a thread blocks
 * SIGTRAP, and must not rewrite the program's signal masks (sigmask.c is an
 * x86-64 matter).  Checked, with real threads: a worker blocks every signal
 * (SIGTRAP included) and runs sites while the main thread flips the key
 * FLIPS times; every flip succeeds, the worker's mask still blocks SIGTRAP
 * afterwards, SIGTRAP's disposition is still the default, and the site
 * follows the last flip.  Skipped on x86-64, whose SIGTRAP
 * guarantees are tested by faults_thread_models and faults_blocked_sigtrap.
 */
#include <pthread.h>
#include <signal.h>
#include <statickeys.h>

#include "../check.h"

#define FLIPS 2000

SK_DEFINE_KEY_FALSE(flipped);

static volatile int stop;
static unsigned long seen_on, seen_off;
static int worker_mask_blocks_sigtrap = -1;

__attribute__((noinline)) static bool site(void)
{
	return sk_branch_unlikely(&flipped);
}

__attribute__((unused)) static void *worker(void *arg)
{
	sigset_t all, cur;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		if (site())
			seen_on++;
		else
			seen_off++;
	}
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	worker_mask_blocks_sigtrap = sigismember(&cur, SIGTRAP);
	return NULL;
}

int main(void)
{
#if !defined(__aarch64__) || !SK_HAVE_PATCHED_SITES
	skip_test("not an aarch64 build with patched sites (x86-64's SIGTRAP "
		  "handling is tested by faults_thread_models)");
#else
	pthread_t t;
	struct sigaction sa;
	int failed = 0;

	CHECK(pthread_create(&t, NULL, worker, NULL) == 0, "worker started");
	for (int i = 0; i < FLIPS; i++) {
		int r = i % 2 ? sk_key_disable(&flipped) : sk_key_enable(&flipped);
		failed += r != 0;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	CHECK(failed == 0, "%d of %d flips refused while a thread blocks "
	      "SIGTRAP", failed, FLIPS);
	CHECK(worker_mask_blocks_sigtrap == 1,
	      "the worker's mask still blocks SIGTRAP (no mask wrappers)");
	CHECK(sigaction(SIGTRAP, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL &&
		      !(sa.sa_flags & SA_SIGINFO),
	      "SIGTRAP still has its default disposition (no handler)");
	CHECK(!site(), "the site follows the last flip (off)");
	struct sk_stats st;
	CHECK(sk_stats_get(&st) == 0 && st.traps_handled == 0,
	      "no trap handled");
	printf("%d flips while a thread blocking every signal ran the site "
	       "(%lu on, %lu off): %d refused, SIGTRAP default, mask kept\n",
	       FLIPS, seen_on, seen_off, failed);
	return check_summary();
#endif
}
