/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * churn.c - a DLL comes and goes while keys flip and threads run sites.
 *
 *   readers   run 32 sites of each of the program's two keys in a loop;
 *             a call made while neither the key's state nor its flip
 *             count changed must find every site in that state
 *   flipper   flips the program's keys, publishing each state after the
 *             update returned
 *   main      LoadLibrary(windows_plugin.dll), its sites at their
 *             defined states, its key enabled and disabled (its sites
 *             follow), FreeLibrary; for SK_CHURN_ROUNDS rounds (200)
 *
 * Registration and unregistration (the DLL's constructors and destructors,
 * under the loader's lock) run between the flipper's updates, and the
 * DLL's sites are patched as it loads when its keys' states ask.
 * Afterwards: 0 wrong calls, every round's checks passed, traps resumed
 * counted.
 */
#include <windows.h>

#include <pthread.h>
#include <stdlib.h>

#include <statickeys.h>

#include "../check.h"
#include "../repeat.h"

SK_DEFINE_KEY_FALSE(churn_a);
SK_DEFINE_KEY_TRUE(churn_b);

#define SITES 32

#define SITE_FN(k)                                                           \
	__attribute__((noinline)) static int sites_##k(void)                 \
	{                                                                    \
		int n = 0;                                                   \
		REP16(if (sk_branch_unlikely(&k)) n++;                       \
		      if (sk_branch_likely(&k)) n++;)                        \
		return n;                                                    \
	}
SITE_FN(churn_a)
SITE_FN(churn_b)

static struct sk_key *const keys[2] = { &churn_a.key, &churn_b.key };
static int (*const site_fns[2])(void) = { sites_churn_a, sites_churn_b };
static unsigned long seq[2];
static int state[2] = { 0, 1 }; /* the keys' defined states */
static int stop;
static unsigned long stable_calls, wrong_calls;

static void *reader(void *arg)
{
	unsigned k = (unsigned)(uintptr_t)arg;
	unsigned long stable = 0, wrong = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		k ^= 1;
		unsigned long s0 = __atomic_load_n(&seq[k], __ATOMIC_ACQUIRE);
		int on = __atomic_load_n(&state[k], __ATOMIC_ACQUIRE);
		int n = site_fns[k]();
		if ((s0 & 1) || __atomic_load_n(&seq[k], __ATOMIC_ACQUIRE) != s0)
			continue; /* a flip ran meanwhile: either is right */
		stable++;
		if (n != (on ? SITES : 0) && wrong++ < 5)
			fprintf(stderr, "key %u, %s: %d of %d sites on\n", k,
				on ? "on" : "off", n, SITES);
	}
	__atomic_fetch_add(&stable_calls, stable, __ATOMIC_RELAXED);
	__atomic_fetch_add(&wrong_calls, wrong, __ATOMIC_RELAXED);
	return NULL;
}

static void *flipper(void *arg)
{
	unsigned long flips = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		unsigned k = flips++ & 1;
		int on = !state[k];
		/* Odd sequence numbers mark a flip in flight. */
		__atomic_fetch_add(&seq[k], 1, __ATOMIC_ACQ_REL);
		int r = on ? sk_key_enable(keys[k]) : sk_key_disable(keys[k]);
		if (r == 0)
			__atomic_store_n(&state[k], on, __ATOMIC_RELEASE);
		__atomic_fetch_add(&seq[k], 1, __ATOMIC_ACQ_REL);
		if (r != 0)
			CHECK(0, "flip %lu: error %d", flips, r);
		Sleep(0);
	}
	return (void *)(uintptr_t)flips;
}

typedef int (*sites_fn)(void);
typedef struct sk_key *(*key_fn)(void);

static void round_trip(int round)
{
	HMODULE h = LoadLibraryA("windows_plugin.dll");
	if (!h) {
		CHECK(0, "round %d: LoadLibrary: error %lu", round,
		      (unsigned long)GetLastError());
		return;
	}
	sites_fn sites = (sites_fn)(void (*)(void))GetProcAddress(h, "plugin_sites");
	key_fn key = (key_fn)(void (*)(void))GetProcAddress(h, "plugin_key_address");
	if (!sites || !key) {
		CHECK(0, "round %d: the DLL's functions", round);
	} else {
		bool defined = sites() == 2;
		bool on = sk_key_enable(key()) == 0 && sites() == 3;
		bool off = sk_key_disable(key()) == 0 && sites() == 2;
		if (!defined || !on || !off)
			CHECK(0, "round %d: the DLL's sites (defined %d, on %d, "
			      "off %d)", round, defined, on, off);
	}
	if (!FreeLibrary(h))
		CHECK(0, "round %d: FreeLibrary", round);
}

int main(void)
{
	int rounds = getenv("SK_CHURN_ROUNDS") ? atoi(getenv("SK_CHURN_ROUNDS"))
					       : 200;
	pthread_t readers[2], flip;
	struct sk_stats s0, s1;

	sk_stats_get(&s0);
	for (unsigned i = 0; i < 2; i++)
		pthread_create(&readers[i], NULL, reader, (void *)(uintptr_t)i);
	pthread_create(&flip, NULL, flipper, NULL);
	for (int round = 1; round <= rounds; round++)
		round_trip(round);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	void *flips;
	pthread_join(flip, &flips);
	for (unsigned i = 0; i < 2; i++)
		pthread_join(readers[i], NULL);
	sk_stats_get(&s1);
	printf("%d DLL rounds, %lu flips, %lu stable calls, %lu wrong, "
	       "%llu traps resumed\n", rounds, (unsigned long)(uintptr_t)flips,
	       stable_calls, wrong_calls,
	       (unsigned long long)(s1.traps_handled - s0.traps_handled));
	CHECK(wrong_calls == 0 && stable_calls > 0,
	      "%lu of %lu stable calls wrong", wrong_calls, stable_calls);
	CHECK((uintptr_t)flips > 0, "keys flipped while the DLL came and went");
	CHECK(sk_key_find("plugin_key") == NULL, "the DLL's key is gone");
	return check_summary();
}
