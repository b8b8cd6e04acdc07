/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/runtime.c - where the layers are wired together: start-up and fork.
 *
 *   control/   names, commits, start-up state, the control socket
 *   trace/     tracepoints: their semaphores and probes
 *   core/      keys, the registry of objects, update planning, the lock,
 *              sk_stats
 *   arch/      per architecture: site format, batch protocol, trap
 *              resolution (arch/backend.h)
 *   os/        per OS: writing code, core serialisation, processes,
 *              sockets, and the delivery of traps (os/os.h)
 *   support/   settings, messages, counters, memory, fault injection:
 *              what every layer above uses
 *   primitives what support/ asks of the OS, using nothing of the runtime:
 *              pages and the environment (os/<os>/pages.c, environ.c)
 *
 * Each layer uses only the layers below it (tools/check_layers.py checks
 * it on the built objects); only this file knows them all: it hands the
 * OS's core sync what the architecture knows (sk__os_sync_init).
 * The runtime is set up by the first object's registration: every program,
 * library and plugin with sites or keys registers from a priority-101
 * constructor (statickeys/object.h), before any of its code can run a site,
 * and a key update can only concern sites of registered objects.
 */
#include <pthread.h>

#include "arch/backend.h"
#include "control/control.h"
#include "control/dyndbg.h"
#include "core/core.h"
#include "os/os.h"
#include "statickeys/stats.h"
#include "support/settings.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void fork_prepare(void)
{
	sk__lock_before_fork();
}

static void fork_parent(void)
{
	sk__lock_after_fork_parent();
}

static void fork_child(void)
{
	sk__lock_after_fork_child();
	/* A child keeps its parent's keys and start-up state, not its
	 * history: sums of per-process statistics are then true. */
	sk_stats_reset();
	sk__os_writer_after_fork_child();
	sk__arch_after_fork_child(); /* a batch the fork cut: made whole */
	sk__config_after_fork_child();
}

static void runtime_init_once(void)
{
	/* Registering for membarrier waits for a grace period once the process
	 * has several threads, so it happens here, from the first object's
	 * constructor, while the program is usually still single-threaded.
	 * The portable backend (site size 0) writes no code: no core sync,
	 * and no warning about a missing one. */
	bool settings = sk__env_names_statickeys(); /* usually none */

	if (settings)
		sk__settings_check(); /* STATICKEYS_WRITER, _SYNC, SIGTRAP's */
	sk__arch_init();
	/* Static calls that target an unloading object are pointed elsewhere
	 * before it goes (core/static_call.c). */
	sk__object_removing_hook = sk__calls_object_leaving;
	if (sk__arch_site_size)
		sk__os_sync_init(sk__arch_tlb_ipi_serialises,
			      sk__arch_serialize_self);
	/* The library's one descriptor for files, /proc/self/mem, taken now
	 * rather than by the first update: a descriptor taken later is one
	 * the program could not plan for (os/linux/fd_slot.c).  Its fork handlers
	 * are installed before ours, so that before a fork the patch lock is
	 * taken first, then the place (the order every update takes them). */
	(void)sk__os_fdslot_init();
	/* At start-up, not before the first update, though nothing of the
	 * runtime's could be inherited half-done until then: the handlers
	 * must come before any the program installs, whose child handler may
	 * update a key (ours re-create the patch lock in the child first). */
	(void)sk__os_atfork(fork_prepare, fork_parent, fork_child);
	/* STATICKEYS, _FILE, _CONTROL, _AUDIT: with none of them set there
	 * is no start-up state, file, control socket or audit to set up. */
	if (settings)
		sk__control_init();
	/* After the start-up state's hooks, which it calls on: each object's
	 * debug statements learn their module as it registers (and take
	 * STATICKEYS_DYNDBG), whatever the environment holds. */
	sk__dd_init();
}

static bool init_done;

static void runtime_init_marked(void)
{
	runtime_init_once();
	__atomic_store_n(&init_done, true, __ATOMIC_RELEASE);
}

/* Once per process.  While it has one thread nothing can race the first
 * registration, and pthread_once's lazy binding and futex wake are not
 * needed (glibc wakes waiters even when there are none). */
static void runtime_init(void)
{
	if (__atomic_load_n(&init_done, __ATOMIC_ACQUIRE))
		return;
	if (sk__os_single_threaded())
		runtime_init_marked();
	else
		pthread_once(&init_once, runtime_init_marked);
}

/* The program registers after the libraries it links (constructors run
 * dependencies first): once it has, every object present at start-up is
 * registered with its start-up state applied, and the control server may
 * answer "no key" truly (control/startup_state.c).  The handle is the
 * program's own data; a program that defines no keys registers no object,
 * and one without program headers to look at (a static non-PIE program)
 * is told by its object's code holding the entry point. */
static void note_program(struct sk__object_handle *handle)
{
	static bool seen;
	const struct sk__object *obj = handle->object;

	if (__atomic_load_n(&seen, __ATOMIC_RELAXED))
		return;
	if (!sk__os_in_program(handle) && !(obj && sk__object_is_program(obj)))
		return;
	__atomic_store_n(&seen, true, __ATOMIC_RELAXED);
	sk__control_program_registered();
}

/* A static call's definition (statickeys/static_call.h), from its
 * constructor and destructor: as an object's registration, it may be the
 * first thing the runtime sees. */
SK_API void sk__static_call_register(struct sk_static_call_key *key)
{
	runtime_init();
	sk__calls_register(key);
}

SK_API void sk__static_call_unregister(struct sk_static_call_key *key)
{
	sk__calls_unregister(key);
}

SK_API void sk__object_register(struct sk__object_handle *handle,
				const struct sk__site_entry *sites_start,
				const struct sk__site_entry *sites_stop,
				struct sk_key *const *keys_start,
				struct sk_key *const *keys_stop)
{
	runtime_init();
	sk__objects_add(handle, sites_start, sites_stop, keys_start, keys_stop,
			sk__update_object_locked);
	note_program(handle);
}
