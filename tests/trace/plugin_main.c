/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/trace/plugin_main.c - a tracepoint defined in a dlopen'ed plugin:
 * its key "sktplug:ev" appears with the plugin and goes with it, its probes
 * work, and loading and unloading it 20 times while the semaphore watcher
 * runs neither leaks a reference nor hangs.
 */
#include <dlfcn.h>
#include <stdio.h>

#include <statickeys.h>

#include "../check.h"

typedef void (*fire_fn)(int);
typedef int (*reg_fn)(void (*)(void *, int), void *);

static int sum;
static void probe(void *data, int n)
{
	(void)data;
	sum += n;
}

static void round_trip(const char *path, int i)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK(h, "dlopen %s: %s", path, dlerror());
	if (!h)
		return;
	fire_fn fire = (fire_fn)dlsym(h, "plugin_fire");
	reg_fn reg = (reg_fn)dlsym(h, "plugin_register");
	reg_fn unreg = (reg_fn)dlsym(h, "plugin_unregister");
	struct sk_key *key = sk_key_find("sktplug:ev");
	CHECK(key, "the plugin's tracepoint key sktplug:ev is listed");
	CHECK(key && !sk_key_enabled(key), "and off");
	sum = 0;
	fire(1000);
	CHECK(reg(probe, NULL) == 0, "register in the plugin");
	CHECK(key && sk_key_enabled(key), "on with a probe");
	fire(i);
	fire(1);
	CHECK(sum == i + 1, "the probe saw the firings while on: %d", sum);
	if (i % 2 == 0) /* odd rounds unload with the probe registered */
		CHECK(unreg(probe, NULL) == 0, "unregister");
	dlclose(h);
	CHECK(sk_key_find("sktplug:ev") == NULL,
	      "the key is gone with the plugin");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s PLUGIN.so\n", argv[0]);
		return 2;
	}
	for (int i = 0; i < 20; i++)
		round_trip(argv[1], i);
	printf("20 loads and unloads of a plugin defining a tracepoint\n");
	return check_summary();
}
