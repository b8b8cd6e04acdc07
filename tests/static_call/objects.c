/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * objects.c - static calls across objects: one defined in a shared library
 * and called from the program (through the PLT) and from the library (a
 * direct call); targets in the program, the library and plugins; a plugin
 * that registers is unloaded while it holds the target (the static call
 * goes back to its defined target first, and the plugin is really gone); a
 * plugin that does not register is pinned by the update (dlclose leaves it
 * mapped); and dlopen/dlclose churn while a thread calls through it, which
 * must never crash or land anywhere but the targets (the thread is parked
 * outside the plugin while it unloads: one still inside the old target is
 * the caller's business, docs/static-calls.md).
 *
 *   objects PLUGIN_THAT_REGISTERS PLAIN_PLUGIN
 *
 * static_call_objects_sites: the library linked with -Wl,--emit-relocs
 * (SC_EXPECT_SITES): its call site in lib_call() is patched, so it leads
 * to each target itself, a plugin's too, and checked so at the start.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>

#include "objects_lib.h"

#include "../check.h"
#include "call_site.h"

static int exe_op(int x)
{
	return 2000 + x;
}

static int stop;
static unsigned long long calls, stray;

/* A thread still running the old target when an update returns goes on
 * running it (the caller's business, as in the kernel): before it unloads
 * the plugin, the main thread parks the caller outside any target, as a
 * program would wait for its users (RCU, a reference count). */
static int park, parked;

static void *caller(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&park, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&parked, 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&park, __ATOMIC_ACQUIRE))
				sched_yield();
			__atomic_store_n(&parked, 0, __ATOMIC_RELEASE);
		}
		int v = sk_static_call(shared_op)(1);
		int w = lib_call(1);
		__atomic_fetch_add(&calls, 2, __ATOMIC_RELAXED);
		if ((v != 1001 && v != 501 && v != 2001) ||
		    (w != 1001 && w != 501 && w != 2001))
			stray++;
	}
	return NULL;
}

static int (*open_plugin(const char *path, void **handle))(int)
{
	*handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK(*handle != NULL, "dlopen %s: %s", path, dlerror());
	return *handle ? (int (*)(int))dlsym(*handle, "plugin_op") : NULL;
}

int main(int argc, char **argv)
{
	void *h;

	if (argc != 3) {
		fprintf(stderr, "usage: objects PLUGIN PLAIN_PLUGIN\n");
		return 2;
	}
	CHECK(sk_static_call(shared_op)(1) == 1001 && lib_call(1) == 1001,
	      "the library's defined target, from both objects");
#ifdef SC_EXPECT_SITES
	/* Call sites are re-pointed from the first update to another
	 * target on: until then the library's calls its trampoline. */
	const void *dest[3] = { (const void *)SK__SC_KEY(shared_op).tramp,
				(const void *)lib_default,
				(const void *)exe_op };
	CHECK(call_goes_to((const void *)lib_call, 64, dest, 3) == 0,
	      "before any update, the library's call site calls the "
	      "trampoline");
#endif
	CHECK(sk_static_call_update(shared_op, exe_op) == 0, "to the program");
	CHECK(sk_static_call(shared_op)(1) == 2001 && lib_call(1) == 2001,
	      "the program's target, from both objects");
#ifdef SC_EXPECT_SITES
	/* The program's target is beyond the library's call's reach. */
	CHECK(call_goes_to((const void *)lib_call, 64, dest, 3) == 0,
	      "the library's call site calls the trampoline for a target "
	      "beyond its reach");
#endif

	/* A registered plugin unloads while it holds the target. */
	int (*op)(int) = open_plugin(argv[1], &h);
	if (!op)
		return check_summary();
	CHECK(sk_static_call_update(shared_op, op) == 0, "to the plugin");
	CHECK(lib_call(1) == 501, "the plugin's target: %d", lib_call(1));
	dlclose(h);
	CHECK(dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD) == NULL,
	      "the registered plugin is really unloaded (not pinned)");
	CHECK((void *)sk_static_call_query(shared_op) == (void *)lib_default,
	      "back at the defined target");
	CHECK(sk_static_call(shared_op)(1) == 1001 && lib_call(1) == 1001,
	      "calls after the unload land in the defined target");
#ifdef SC_EXPECT_SITES
	CHECK(call_goes_to((const void *)lib_call, 64, dest, 3) == 1,
	      "and the library's call site leads to that target itself");
#endif

	/* A plugin that does not register is pinned by the update. */
	op = open_plugin(argv[2], &h);
	if (!op)
		return check_summary();
	CHECK(sk_static_call_update(shared_op, op) == 0, "to the plain plugin");
	dlclose(h);
	void *still = dlopen(argv[2], RTLD_NOW | RTLD_NOLOAD);
	CHECK(still != NULL, "the plain plugin is pinned: still loaded");
	CHECK(lib_call(1) == 501, "and its target still runs");
	CHECK(sk_static_call_update(shared_op, lib_default) == 0, "back");

	/* Churn: load, point, unload, while a thread calls. */
	pthread_t t;
	pthread_create(&t, NULL, caller, NULL);
	int churn_ok = 0;
	for (int i = 0; i < 200; i++) {
		op = open_plugin(argv[1], &h);
		if (!op)
			break;
		churn_ok += sk_static_call_update(shared_op, op) == 0 &&
			    lib_call(1) == 501;
		/* The caller runs through the plugin for a while, then is
		 * parked while it unloads (which re-points the call). */
		unsigned long long seen =
			__atomic_load_n(&calls, __ATOMIC_RELAXED);
		while (__atomic_load_n(&calls, __ATOMIC_RELAXED) < seen + 64)
			sched_yield();
		__atomic_store_n(&park, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&parked, __ATOMIC_ACQUIRE))
			sched_yield();
		dlclose(h);
		__atomic_store_n(&park, 0, __ATOMIC_RELEASE);
		churn_ok += sk_static_call(shared_op)(1) == 1001;
		if (i % 50 == 49)
			CHECK(sk_static_call_update(shared_op, exe_op) == 0,
			      "to the program");
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	printf("churn: 200 loads and unloads, %llu calls from a thread\n",
	       calls);
	CHECK(churn_ok == 400, "%d of 400 churn checks", churn_ok);
	CHECK(stray == 0, "%llu calls landed outside the targets", stray);
	return check_summary();
}
