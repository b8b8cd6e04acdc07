/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/churn.c - plugins come and go while keys flip and threads
 * run sites in every object.
 *
 *	sko_churn [seconds]      (default 10, or SKO_CHURN_SECONDS)
 *
 * Threads:
 *   loader    dlopen()s one of two copies of a plugin (alternating
 *             RTLD_LOCAL and RTLD_GLOBAL), checks what the plugin's
 *             constructor and first call saw, flips the plugin's own key,
 *             lends the plugin to the reader, takes it back, dlclose()s it;
 *             every fourth time it also loads a plugin whose sites bind to
 *             that key and unloads the two in either order;
 *   flipper   one per key (exe_key_false, lib_key_true): enable, disable,
 *             inc, dec at random, publishing each new state once the call
 *             returned;
 *   reader    runs the sites of both keys in the program, both libraries
 *             and, while the loader lends it, the plugin.
 *
 * The claim: once a flip has returned, every later execution of every site
 * in every object, including a plugin loaded after the flip, takes the new
 * direction.  Each key's state word is published as (generation, state,
 * busy); a probe bracketed by two equal, non-busy readings must match the
 * state.  The time starts once every thread runs, and ends once the loader
 * has completed a cycle, both keys have flipped and some probe was judged
 * (60 s more at most: a loaded machine may keep a thread off a core).
 * Run under AddressSanitizer/LeakSanitizer as objects_churn_asan:
 * unregistering a plugin must free everything and never touch freed
 * memory.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "../wait_for.h"
#include "keys.h"

struct owned {
	int id;
	struct sk_key *key;
	unsigned long word; /* generation << 2 | on << 1 | busy */
	unsigned long flips;
};

static struct owned owned[] = {
	{ SKO_EXE_FALSE, &exe_key_false.key, 0, 0 },
	{ SKO_LIB_TRUE, &lib_key_true.key, 1ul << 1, 0 },
};
#define NOWNED (sizeof(owned) / sizeof(owned[0]))

static int stop;
/* The threads and main: they start once all of them run (a thread no core
 * has run yet has every signal blocked, and an update would wait ~1 s for
 * it, then be refused with -EBUSY). */
static pthread_barrier_t start;
static unsigned long stable_checks, busy_skips, cycles, plugin_probes;

/* The plugin the loader lends to the reader; NULL while none is lent. */
static sko_probe_fn lent_probe;
static unsigned long lent_users;

static unsigned long word_of(const struct owned *o)
{
	return __atomic_load_n(&o->word, __ATOMIC_SEQ_CST);
}

static unsigned want_of(unsigned long word)
{
	return (word >> 1) & 1 ? PROBE_ON : PROBE_OFF;
}

/* Judge one probe bracketed by the state words @w1 and @w2. */
static void judge(const struct owned *o, const char *where, unsigned long w1,
		  unsigned got, unsigned long w2)
{
	if (w1 != w2 || (w1 & 1)) {
		__atomic_fetch_add(&busy_skips, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&stable_checks, 1, __ATOMIC_RELAXED);
	CHECK(got == want_of(w1),
	      "%s: sites of %s show %#x after a flip to %s returned "
	      "(generation %lu)",
	      where, sko_key_name(o->id), got, want_of(w1) ? "on" : "off",
	      w1 >> 2);
}

static void probe_and_judge(const struct owned *o, sko_probe_fn probe,
			    const char *where)
{
	unsigned long w1 = word_of(o);
	unsigned got = probe(o->id);

	judge(o, where, w1, got, word_of(o));
}

static void probe_static_objects(const struct owned *o)
{
	probe_and_judge(o, sko_exe_probe, "the program");
	probe_and_judge(o, sko_lib_a_probe, "libsko_a");
	probe_and_judge(o, sko_lib_b_probe, "libsko_b");
}

/* One random call on @key, keeping @count as the kernel does. */
static int random_op(struct sk_key *key, int *count, unsigned r)
{
	if (*count == 0 && (r & 1)) {
		*count = 1;
		return sk_key_enable(key);
	}
	if (*count == 1 && (r & 6) == 0) {
		*count = 0;
		return sk_key_disable(key);
	}
	if (*count == 0 || (*count < 3 && (r & 2))) {
		++*count;
		return sk_key_inc(key);
	}
	--*count;
	return sk_key_dec(key);
}

static void *flipper(void *arg)
{
	struct owned *o = arg;
	int count = sk_key_count(o->key);
	unsigned r = (unsigned)o->id * 7919u + 1;

	pthread_barrier_wait(&start);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		r = r * 1103515245u + 12345u;
		unsigned long w = word_of(o);
		__atomic_store_n(&o->word, w | 1, __ATOMIC_SEQ_CST);
		int ret = random_op(o->key, &count, r >> 16);
		CHECK(ret == 0, "a call on %s returned %d", o->key->name, ret);
		bool on = count > 0;
		CHECK(sk_key_enabled(o->key) == on, "%s reads %d, count %d",
		      o->key->name, !on, count);
		__atomic_store_n(&o->word,
				 (((w >> 2) + 1) << 2) | ((unsigned long)on << 1),
				 __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&o->flips, 1, __ATOMIC_RELAXED);
		probe_static_objects(o);
		usleep(50); /* leave stable windows for the other threads */
	}
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		for (size_t k = 0; k < NOWNED; k++)
			probe_static_objects(&owned[k]);
		__atomic_fetch_add(&lent_users, 1, __ATOMIC_SEQ_CST);
		sko_probe_fn p = __atomic_load_n(&lent_probe, __ATOMIC_SEQ_CST);
		if (p) {
			for (size_t k = 0; k < NOWNED; k++)
				probe_and_judge(&owned[k], p, "a lent plugin");
			__atomic_fetch_add(&plugin_probes, 1, __ATOMIC_RELAXED);
		}
		__atomic_fetch_sub(&lent_users, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

/* Lend @p to the reader for a moment, then wait until it gave it back. */
static void lend(sko_probe_fn p)
{
	__atomic_store_n(&lent_probe, p, __ATOMIC_SEQ_CST);
	usleep(200);
	__atomic_store_n(&lent_probe, NULL, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&lent_users, __ATOMIC_SEQ_CST) != 0)
		sched_yield();
}

static void check_plugin_key(void *h, sko_probe_fn probe)
{
	struct sk_key_false *pk = dlsym(h, "plugin_key");

	CHECK(pk != NULL, "plugin_key found: %s", pk ? "" : dlerror());
	if (!pk)
		return;
	CHECK(probe(SKO_PLUGIN) == PROBE_OFF, "a fresh plugin_key is off");
	CHECK(sk_key_enable(pk) == 0, "enable plugin_key");
	CHECK(probe(SKO_PLUGIN) == PROBE_ON, "plugin_key sites follow enable");
	CHECK(sk_key_disable(pk) == 0, "disable plugin_key");
	CHECK(probe(SKO_PLUGIN) == PROBE_OFF, "plugin_key sites follow disable");
}

/*
 * With an RTLD_GLOBAL plugin loaded, load a second plugin whose sites bind
 * to its plugin_key, then unload the two in either order: closing the owner
 * first must leave it loaded, and the key driving the user's sites.
 * Consumes @h (the owner's handle).
 */
static void owner_and_user(void *h, bool owner_first)
{
	void *user = dlopen(SKO_USER, RTLD_NOW | RTLD_LOCAL);
	struct sk_key_false *pk = dlsym(h, "plugin_key");
	CHECK(user && pk, "user plugin loaded: %s", user ? "" : dlerror());
	sko_probe_fn probe = user ? (sko_probe_fn)dlsym(user, SKO_PLUGIN_PROBE)
				  : NULL;
	if (!probe || !pk) {
		dlclose(h);
		if (user)
			dlclose(user);
		return;
	}
	CHECK(sk_key_enable(pk) == 0, "enable plugin_key");
	CHECK(probe(SKO_PLUGIN) == PROBE_ON, "the user's sites follow it");
	CHECK(dlclose(owner_first ? h : user) == 0, "first dlclose");
	if (owner_first) {
		CHECK(sk_key_disable(pk) == 0, "disable after the owner's dlclose");
		CHECK(probe(SKO_PLUGIN) == PROBE_OFF, "the user's sites follow");
	}
	CHECK(dlclose(owner_first ? user : h) == 0, "second dlclose");
}

static void load_cycle(unsigned long i)
{
	const char *path = i & 1 ? SKO_PLUGIN2 : SKO_PLUGIN1;
	int mode = RTLD_NOW | (i & 2 ? RTLD_GLOBAL : RTLD_LOCAL);
	unsigned long w1[NOWNED], w2[NOWNED];

	for (size_t k = 0; k < NOWNED; k++)
		w1[k] = word_of(&owned[k]);
	void *h = dlopen(path, mode);
	for (size_t k = 0; k < NOWNED; k++)
		w2[k] = word_of(&owned[k]);
	CHECK(h != NULL, "dlopen %s: %s", path, h ? "" : dlerror());
	if (!h)
		return;
	const unsigned *seen = dlsym(h, SKO_PLUGIN_CTOR_SEEN);
	sko_probe_fn probe = (sko_probe_fn)dlsym(h, SKO_PLUGIN_PROBE);
	CHECK(seen && probe, "plugin symbols found");
	if (seen && probe) {
		for (size_t k = 0; k < NOWNED; k++)
			judge(&owned[k], "a plugin's constructor", w1[k],
			      seen[owned[k].id], w2[k]);
		for (size_t k = 0; k < NOWNED; k++)
			probe_and_judge(&owned[k], probe, "a plugin's first call");
		check_plugin_key(h, probe);
		lend(probe);
	}
	if ((i & 6) == 6 && seen && probe)
		owner_and_user(h, i & 8);
	else
		CHECK(dlclose(h) == 0, "dlclose %s: %s", path, dlerror());
}

static void *loader(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		load_cycle(cycles);
		__atomic_fetch_add(&cycles, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static double seconds_to_run(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : getenv("SKO_CHURN_SECONDS");
	double v = s ? atof(s) : 10.0;

	return v > 0 ? v : 10.0;
}

int main(int argc, char **argv)
{
	double seconds = seconds_to_run(argc, argv);
	pthread_t t[NOWNED + 2];
	struct sk_stats s0, s1;

	sk_stats_get(&s0);
	pthread_barrier_init(&start, NULL, NOWNED + 3);
	for (size_t k = 0; k < NOWNED; k++)
		pthread_create(&t[k], NULL, flipper, &owned[k]);
	pthread_create(&t[NOWNED], NULL, reader, NULL);
	pthread_create(&t[NOWNED + 1], NULL, loader, NULL);
	pthread_barrier_wait(&start);
	struct timespec d = { (time_t)seconds,
			      (long)((seconds - (time_t)seconds) * 1e9) };
	nanosleep(&d, NULL);
	/* The verdicts below need each thread to have done something. */
	WAIT_FOR(__atomic_load_n(&cycles, __ATOMIC_RELAXED) > 0 &&
			 __atomic_load_n(&owned[0].flips, __ATOMIC_RELAXED) > 0 &&
			 __atomic_load_n(&owned[1].flips, __ATOMIC_RELAXED) > 0 &&
			 __atomic_load_n(&stable_checks, __ATOMIC_RELAXED) > 0,
		 "the loader completed a cycle (%lu), both keys flipped (%lu, "
		 "%lu) and a probe was judged (%lu)",
		 __atomic_load_n(&cycles, __ATOMIC_RELAXED),
		 __atomic_load_n(&owned[0].flips, __ATOMIC_RELAXED),
		 __atomic_load_n(&owned[1].flips, __ATOMIC_RELAXED),
		 __atomic_load_n(&stable_checks, __ATOMIC_RELAXED));
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (size_t i = 0; i < NOWNED + 2; i++)
		pthread_join(t[i], NULL);
	sk_stats_get(&s1);

	printf("%.0f s: %lu plugin load/unload cycles, %lu + %lu flips, "
	       "%lu lent-plugin probes\n",
	       seconds, cycles, owned[0].flips, owned[1].flips, plugin_probes);
	printf("%lu probes judged after a completed flip, %lu skipped (flip in "
	       "flight); %llu traps handled, %llu batches (%s, %s)\n",
	       stable_checks, busy_skips,
	       (unsigned long long)(s1.traps_handled - s0.traps_handled),
	       (unsigned long long)(s1.batches - s0.batches), s1.writer,
	       s1.sync_method);
	CHECK(cycles > 0, "the loader completed load/unload cycles");
	CHECK(owned[0].flips > 0 && owned[1].flips > 0, "both keys flipped");
	CHECK(stable_checks > 0, "some probes were judged");
	return check_summary();
}
