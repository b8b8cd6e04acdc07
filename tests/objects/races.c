/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/races.c - dlopen() and dlclose() while a batch is half done.
 *
 *	sko_races dlclose_during_batch | dlopen_during_batch |
 *	          fork_during_dlopen
 *
 * Linked with the runtime built with injection hooks: the hook stops an
 * update of exe_key_false right after its int3 bytes went in (plugin sites
 * included) and, while it is stopped, another thread unloads or loads a
 * plugin holding sites of that key.
 *
 * dlclose_during_batch: the plugin's destructors start, but unregistering
 *	must wait for the batch, which still writes into the (still mapped)
 *	plugin; dlclose() returns only after the update did.
 * dlopen_during_batch: the plugin's registration waits for the batch and
 *	then patches the plugin to the key's new state, so its constructor and
 *	first call see the update that was in flight when dlopen() began.
 * fork_during_dlopen: the same, with a third thread forking meanwhile: no
 *	deadlock between the dynamic linker's lock, the patch lock and fork,
 *	and the child sees the finished update and can flip keys itself.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../src/internal.h"
#include "../check.h"
#include "../wait_for.h"
#include "keys.h"

int sko_unload_started; /* set by the plugin's destructor */

static sem_t start_other, other_done;
static int hook_fired, other_finished_in_window = -1;
static void *plugin;
static int dlclose_result = -1;

static void pause_ms(long ms)
{
	struct timespec d = { 0, ms * 1000000L };

	nanosleep(&d, NULL);
}

/* Stopped inside the batch: let the other thread go and give it time to
 * reach the patch lock; it must not get past it while we are stopped. */
static void hook(int point)
{
	if (point != SK__INJECT_AFTER_TRAP_WRITE || hook_fired++)
		return;
	sem_post(&start_other);
	pause_ms(50);
	other_finished_in_window = sem_trywait(&other_done) == 0;
}

static void *unloader(void *arg)
{
	(void)arg;
	sem_wait(&start_other);
	dlclose_result = dlclose(plugin);
	sem_post(&other_done);
	return NULL;
}

static void *loader(void *arg)
{
	(void)arg;
	sem_wait(&start_other);
	plugin = dlopen(SKO_PLUGIN1, RTLD_NOW | RTLD_LOCAL);
	sem_post(&other_done);
	return NULL;
}

static sem_t start_fork;
static pid_t child = -1;

/* In a child forked while a registration waited for the patch lock: the
 * update finished before the fork, and the runtime works in the child. */
static int child_checks(void)
{
	if (sko_exe_probe(SKO_EXE_FALSE) != PROBE_ON)
		return 1;
	if (sk_key_disable(&exe_key_false) != 0)
		return 2;
	return sko_exe_probe(SKO_EXE_FALSE) == PROBE_OFF ? 0 : 3;
}

static void *forker(void *arg)
{
	(void)arg;
	sem_wait(&start_fork);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child_checks());
	child = pid;
	return NULL;
}

static void *loader_and_fork(void *arg)
{
	(void)arg;
	sem_wait(&start_other);
	sem_post(&start_fork);
	plugin = dlopen(SKO_PLUGIN1, RTLD_NOW | RTLD_LOCAL);
	sem_post(&other_done);
	return NULL;
}

static void run_with_other(void *(*other)(void *))
{
	pthread_t t;

	sem_init(&start_other, 0, 0);
	sem_init(&other_done, 0, 0);
	/* Update once it runs (wait_for.h, start_thread()). */
	start_thread(&t, NULL, other, NULL);
	sk__inject_hook = hook;
	int r = sk_key_enable(&exe_key_false);
	sk__inject_hook = NULL;
	CHECK(r == 0, "the update returned %d (%s)", r, strerror(-r));
	CHECK(hook_fired >= 1, "the update was stopped mid-batch");
	CHECK(other_finished_in_window == 0,
	      "the other thread's dlopen/dlclose did not complete while the "
	      "batch was stopped");
	if (other_finished_in_window != 1)
		sem_wait(&other_done); /* posted when the other thread ends */
	pthread_join(t, NULL);
	struct sk_histogram wait;
	sk_stats_histogram(SK_HIST_LOCK_WAIT, &wait);
	printf("longest wait for the patch lock: %.1f ms (the other thread, "
	       "held off by the stopped batch)\n", wait.max_ns / 1e6);
}

static void dlclose_during_batch(void)
{
	plugin = dlopen(SKO_UNLOAD_MARK, RTLD_NOW | RTLD_LOCAL);
	CHECK(plugin != NULL, "dlopen: %s", plugin ? "" : dlerror());
	if (!plugin)
		return;
	run_with_other(unloader);
	CHECK(sko_unload_started == 1, "the plugin's destructor ran");
	CHECK(dlclose_result == 0, "dlclose returned %d", dlclose_result);
	void *again = dlopen(SKO_UNLOAD_MARK, RTLD_LAZY | RTLD_NOLOAD);
	CHECK(again == NULL, "the plugin is unloaded");
	CHECK(sko_exe_probe(SKO_EXE_FALSE) == PROBE_ON &&
	      sko_lib_b_probe(SKO_EXE_FALSE) == PROBE_ON,
	      "the update reached the program and the libraries");
	CHECK(sk_key_disable(&exe_key_false) == 0,
	      "a later update no longer touches the plugin");
	CHECK(sko_exe_probe(SKO_EXE_FALSE) == PROBE_OFF, "program sites off");
}

static void dlopen_during_batch(void)
{
	run_with_other(loader);
	CHECK(plugin != NULL, "dlopen: %s", plugin ? "" : dlerror());
	if (!plugin)
		return;
	const unsigned *seen = dlsym(plugin, SKO_PLUGIN_CTOR_SEEN);
	sko_probe_fn probe = (sko_probe_fn)dlsym(plugin, SKO_PLUGIN_PROBE);
	CHECK(seen && probe, "plugin symbols");
	if (!seen || !probe)
		return;
	CHECK(seen[SKO_EXE_FALSE] == PROBE_ON,
	      "the plugin's constructor saw the update (%#x)",
	      seen[SKO_EXE_FALSE]);
	CHECK(probe(SKO_EXE_FALSE) == PROBE_ON, "its first call too");
	CHECK(sk_key_disable(&exe_key_false) == 0, "disable");
	CHECK(probe(SKO_EXE_FALSE) == PROBE_OFF, "and it follows the key");
	CHECK(dlclose(plugin) == 0, "dlclose");
}

static void fork_during_dlopen(void)
{
	pthread_t f;

	sem_init(&start_fork, 0, 0);
	start_thread(&f, NULL, forker, NULL);
	run_with_other(loader_and_fork);
	pthread_join(f, NULL);
	CHECK(plugin != NULL, "dlopen: %s", plugin ? "" : dlerror());
	CHECK(child > 0, "fork");
	int status = -1;
	if (child > 0)
		waitpid(child, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child saw the update and could flip the key (status %#x)",
	      status);
	const unsigned *seen =
		plugin ? dlsym(plugin, SKO_PLUGIN_CTOR_SEEN) : NULL;
	CHECK(seen && seen[SKO_EXE_FALSE] == PROBE_ON,
	      "the plugin's constructor saw the update");
	if (plugin)
		dlclose(plugin);
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	printf("== %s\n", c);
	if (strcmp(c, "dlclose_during_batch") == 0)
		dlclose_during_batch();
	else if (strcmp(c, "dlopen_during_batch") == 0)
		dlopen_during_batch();
	else if (strcmp(c, "fork_during_dlopen") == 0)
		fork_during_dlopen();
	else
		CHECK(0, "unknown case '%s'", c);
	return check_summary();
}
