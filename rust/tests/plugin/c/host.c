/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * A C program that loads a Rust cdylib plugin (Rust sites and C sites of
 * its Rust key, so two registration constructors for one object), flips
 * keys while a thread runs the plugin's sites, unloads it and loads it
 * again, three times.
 *
 * HOST_SYSTEM (the plugin and this program share the installed shared
 * runtime): the plugin also tests this program's key, which reaches its
 * sites, also when flipped before dlopen(), and in one sk_commit() batch
 * with the plugin's key; dlclose() unmaps the plugin and a reload starts
 * from the key's initial state.  Otherwise (bundled: the plugin carries its
 * own static copy of the runtime, this program another) the plugin's own
 * key still works, and the plugin stays loaded after dlclose(), as
 * documented for a plugin that carries a copy of the runtime.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <statickeys.h>

static int failures, checks;
#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		__atomic_fetch_add(&checks, 1, __ATOMIC_RELAXED);            \
		if (!(cond)) {                                               \
			__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);  \
			fprintf(stderr, "host.c:%d: check failed: %s: ",     \
				__LINE__, #cond);                            \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
		}                                                            \
	} while (0)

SK_DEFINE_KEY_FALSE_DESC(host_key, "a key of the C host program");

__attribute__((noinline)) static int host_site(void)
{
	return sk_branch_unlikely(&host_key) ? 1 : 0;
}

struct plugin {
	void *h;
	int (*sites)(void);
	int (*set)(int);
	struct sk_key *(*key)(void);
};

static struct plugin load(const char *path)
{
	struct plugin p = { dlopen(path, RTLD_NOW | RTLD_LOCAL), 0, 0, 0 };
	if (!p.h) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		exit(1);
	}
	*(void **)&p.sites = dlsym(p.h, "plugin_sites");
	*(void **)&p.set = dlsym(p.h, "plugin_set");
	*(void **)&p.key = dlsym(p.h, "plugin_key");
	if (!p.sites || !p.set || !p.key) {
		fprintf(stderr, "plugin symbols missing\n");
		exit(1);
	}
	return p;
}

static volatile int reading, started;
static unsigned long reads;

static void *reader(void *arg)
{
	struct plugin *p = arg;
	__atomic_store_n(&started, 1, __ATOMIC_SEQ_CST);
	while (reading) {
		int bits = p->sites();
		/* both sites of a key always agree once it is not flipping;
		 * while flipping any mix is fine: this only must not crash */
		(void)bits;
		reads++;
	}
	return NULL;
}

/* Rust sites of the plugin key: bits 1|2; its C sites in the plugin:
 * 16|32; the plugin's Rust sites of the host key: 4|8. */
static volatile int churning;
static unsigned long flips;

static void *flipper(void *arg)
{
	(void)arg;
	__atomic_store_n(&started, 1, __ATOMIC_SEQ_CST);
	while (churning) {
		int on = flips % 2 == 0;
		int r = on ? sk_key_enable(&host_key) : sk_key_disable(&host_key);
		CHECK(r == 0, "churn: host key flip (got %d)", r);
		CHECK(host_site() == on, "churn: host site after flip %lu", flips);
		flips++;
	}
	return NULL;
}

static int expect(int plugin_on, int host_on)
{
#ifdef HOST_SYSTEM
	return (plugin_on ? 3 | 48 : 0) | (host_on ? 12 : 0);
#else
	(void)host_on;
	return plugin_on ? 3 | 48 : 0;
#endif
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PLUGIN.so\n", argv[0]);
		return 2;
	}
	int host_on = 0, plugin_on_at_load = 0;

	for (int round = 0; round < 3; round++) {
		/* Round 1: the host key flips before the plugin is loaded. */
		if (round == 1) {
			CHECK(sk_key_enable(&host_key) == 0, "enable host_key");
			host_on = 1;
		}
		struct plugin p = load(argv[1]);
		CHECK(p.sites() == expect(plugin_on_at_load, host_on),
		      "round %d: sites at load are %d", round, p.sites());

		pthread_t t;
		reading = 1;
		started = 0;
		pthread_create(&t, NULL, reader, &p);
		/* A starting thread has every signal blocked (glibc); an update
		 * meanwhile may be refused with -EBUSY, as documented. */
		while (!__atomic_load_n(&started, __ATOMIC_SEQ_CST))
			sched_yield();
		for (int i = 0; i < 50; i++) {
			int on = i % 2 == 0;
			int r = p.set(on);
		CHECK(r == 0, "plugin flips its key (got %d)", r);
			CHECK(p.sites() == expect(on, host_on),
			      "round %d flip %d: plugin key %d", round, i, on);
#ifdef HOST_SYSTEM
			struct sk_stats a, b;
			sk_stats_get(&a);
			struct sk_key_change ch[2] = {
				{ &host_key.key, !host_on }, { p.key(), !on },
			};
			CHECK(sk_commit(ch, 2) == 0, "commit host + plugin key");
			sk_stats_get(&b);
			host_on = !host_on;
			CHECK(b.batches - a.batches == 1, "one batch for both");
			CHECK(p.sites() == expect(!on, host_on) &&
				      host_site() == host_on,
			      "round %d flip %d: after the commit", round, i);
#endif
		}
		reading = 0;
		pthread_join(t, NULL);
		/* Leave the plugin's key on: a reload must start from its
		 * initial state if the plugin was really unloaded. */
		CHECK(p.set(1) == 0, "plugin key on before dlclose");
		CHECK(dlclose(p.h) == 0, "dlclose");
		void *again = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
#ifdef HOST_SYSTEM
		CHECK(again == NULL, "round %d: the plugin was unmapped", round);
		plugin_on_at_load = 0;
#else
		CHECK(again != NULL, "round %d: a plugin carrying its own "
				     "runtime stays loaded", round);
		plugin_on_at_load = 1;
#endif
		if (again)
			dlclose(again);
		/* Flips after the unload must not touch the plugin's code. */
		CHECK(sk_key_disable(&host_key) == 0 && host_site() == 0,
		      "host key after dlclose");
		CHECK(sk_key_enable(&host_key) == 0 && host_site() == 1,
		      "host key after dlclose");
		host_on = 1;
		if (round == 0) {
			CHECK(sk_key_disable(&host_key) == 0, "reset");
			host_on = 0;
		}
	}
	/* Churn: load, flip and unload the plugin in a loop for a second
	 * while another thread keeps flipping the host key (which the
	 * plugin's sites also name with the system runtime) and checks the
	 * host's site after each flip returns. */
	sk_key_disable(&host_key);
	pthread_t f;
	started = 0;
	churning = 1;
	pthread_create(&f, NULL, flipper, NULL);
	while (!__atomic_load_n(&started, __ATOMIC_SEQ_CST))
		sched_yield();
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned long cycles = 0;
	do {
		struct plugin p = load(argv[1]);
		CHECK(p.set(1) == 0 && (p.sites() & 51) == 51,
		      "churn: plugin key on in its Rust and C sites");
		CHECK(p.set(0) == 0 && (p.sites() & 51) == 0,
		      "churn: plugin key off");
		CHECK(dlclose(p.h) == 0, "churn: dlclose");
		cycles++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - t0.tv_sec) * 1000000000L +
			 (now.tv_nsec - t0.tv_nsec) < 1000000000L);
	churning = 0;
	pthread_join(f, NULL);
	printf("churn: %lu load/flip/unload cycles while another thread made "
	       "%lu host key flips\n", cycles, flips);

	printf("%s runtime: 3 load/unload rounds, %lu concurrent plugin "
	       "calls; %d checks, %d failed\n",
#ifdef HOST_SYSTEM
	       "system (shared)",
#else
	       "bundled (static copy in each)",
#endif
	       reads, checks, failures);
	return failures ? 1 : 0;
}
