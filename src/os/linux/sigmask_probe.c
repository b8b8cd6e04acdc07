/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/sigmask_probe.c - are sigmask.c's wrappers in effect, and
 * what STATICKEYS_KEEP_SIGTRAP asks of them.
 *
 * Apart from the wrappers themselves, so that the static library can leave
 * them out of a program that was not linked with them: there they are named
 * __wrap_<function> and call __real_<function>, names that exist only when
 * the program is linked with -Wl,--wrap=<function> for each (the link line
 * `pkg-config --static --libs statickeys` prints, and the static CMake
 * target carries; SK_WRAP_FUNCTIONS in src/CMakeLists.txt).  Without those
 * options nothing refers to them, the linker leaves them out, and this file
 * finds the wrappers are not reached.
 *
 * A program without a dynamic linker and without the wrappers cannot be
 * updated safely: a thread that blocks every signal would be killed at a
 * changing site.  Its
 * updates are refused with -ENOTSUP and a message that gives the link line
 * (sk__sigmask_link_check).  A program with a dynamic linker that does not
 * reach the wrappers (the runtime loaded late by dlopen) keeps going: its
 * threads are scanned for a blocked SIGTRAP (threads_check.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "os/linux/sigmask_probe.h"
#include "os/os.h"
#include "support/message.h"
#include "support/settings.h"

/* -1: not decided yet; 0: masks honoured as given; 1: SIGTRAP kept out. */
static int keep = -1;

bool sk__sigmask_keeps_sigtrap(void)
{
	int k = __atomic_load_n(&keep, __ATOMIC_RELAXED);

	if (k < 0) {
		/* Only before our constructor (another library's constructor
		 * setting a mask): the environment is readable by then.  Not
		 * sk__getenv: a sanitizer's start-up calls us before
		 * instrumented code (support/settings.c) may run. */
		const char *env = sk__env_names_statickeys()
					  ? secure_getenv("STATICKEYS_KEEP_SIGTRAP")
					  : NULL;
		k = !(env && strcmp(env, "0") == 0);
		__atomic_store_n(&keep, k, __ATOMIC_RELAXED);
	}
	return k;
}

/* SIGTRAP's action changed through the sigaction wrapper this many times:
 * while the wrappers are in effect, the trap handler's installer need not
 * ask the kernel at every batch whether ours is still the one installed
 * (sk__os_trap_install). */
static unsigned long sigtrap_actions;

void sk__sigmask_note_sigtrap_action(void)
{
	__atomic_fetch_add(&sigtrap_actions, 1, __ATOMIC_SEQ_CST);
}

unsigned long sk__sigmask_sigtrap_actions(void)
{
	return __atomic_load_n(&sigtrap_actions, __ATOMIC_SEQ_CST);
}

/* Calls that reached the pthread_sigmask wrapper while
 * sk__sigmask_wrappers_reached() was watching (any thread's call proves the
 * same thing). */
static int probing;
static unsigned long probe_hits;

void sk__sigmask_probe_note(void)
{
	if (__atomic_load_n(&probing, __ATOMIC_RELAXED))
		__atomic_fetch_add(&probe_hits, 1, __ATOMIC_RELAXED);
}

typedef int mask_fn(int, const sigset_t *, sigset_t *);

/* The pthread_sigmask the program's own calls reach. */
static mask_fn *programs_pthread_sigmask(void)
{
#if defined(SK_SIGMASK_LD_WRAP) || defined(SK_SIGMASK_STATIC_GLIBC) ||      \
	defined(SK_SIGMASK_STATIC_MUSL)
	/* A reference from this file is rewritten by --wrap like the
	 * program's own, or binds to sigmask.c's in place of the C
	 * library's (no dynamic linker to ask). */
	return pthread_sigmask;
#else
	/* The first definition in the global search order: ours, or a
	 * sanitizer's interceptor that passes the call on to ours
	 * (dlsym(RTLD_NEXT) from the sanitizer runtime finds us), or, when the
	 * runtime was loaded late by dlopen, the C library's, which never
	 * calls us. */
	return (mask_fn *)dlsym(RTLD_DEFAULT, "pthread_sigmask");
#endif
}

/* -1: not probed yet; else whether the wrappers are reached. */
static int reached = -1;

/* One call through the program's pthread_sigmask that only reads this
 * thread's mask: does it reach the wrappers?  *@trap_blocked: SIGTRAP is in
 * the mask (the kernel's sigset, whose first word holds signals 1 to 64). */
static void probe(bool *trap_blocked)
{
	mask_fn *first = programs_pthread_sigmask();
	sigset_t cur;
	uint64_t word;

	*trap_blocked = true; /* unknown */
	__atomic_store_n(&probing, 1, __ATOMIC_SEQ_CST);
	if (first && first(SIG_BLOCK, NULL, &cur) == 0) {
		memcpy(&word, &cur, sizeof(word));
		*trap_blocked = word & 1ull << (SIGTRAP - 1);
	}
	__atomic_store_n(&probing, 0, __ATOMIC_SEQ_CST);
	reached = __atomic_load_n(&probe_hits, __ATOMIC_SEQ_CST) > 0;
}

bool sk__sigmask_wrappers_reached(void)
{
	bool trap_blocked;

	if (reached < 0)
		probe(&trap_blocked);
	return reached;
}

bool sk__sigmask_wrappers_active(void)
{
	return sk__sigmask_keeps_sigtrap() && sk__sigmask_wrappers_reached();
}

int sk__sigmask_link_check(void)
{
	static bool told;

	/* AT_BASE is where the dynamic linker was loaded: 0 without one. */
	if (sk__sigmask_wrappers_reached() || getauxval(AT_BASE) != 0)
		return 0;
	if (!__atomic_exchange_n(&told, true, __ATOMIC_RELAXED))
		sk__warn("this program is linked statically without the "
			 "runtime's signal wrappers, so code cannot be "
			 "changed safely: updates are refused (ENOTSUP). "
			 "Link with the options `pkg-config --static --libs "
			 "statickeys` prints (-Wl,--wrap=pthread_sigmask "
			 "and the others), or the CMake target "
			 "statickeys::statickeys_static");
	return -ENOTSUP;
}

void sk__sigmask_probe_start(void)
{
	(void)sk__sigmask_keeps_sigtrap();
	/* Probed here, in this thread, unless a wrapper called before this
	 * constructor did (then the mask is not known). */
	bool trap_blocked = true;
	if (reached < 0)
		probe(&trap_blocked);
	/* A program started with SIGTRAP blocked (an inherited mask survives
	 * exec) would keep it in this thread and every thread it creates. */
	if (trap_blocked && sk__sigmask_wrappers_active()) {
		/* The kernel's sigset (8 bytes on x86-64 and i386), built
		 * here rather than by sigaddset(): start-up calls into the C
		 * library as little as it can (each first call of a function
		 * is a lazy binding). */
		uint64_t trap = 1ull << (SIGTRAP - 1);
		syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &trap, NULL,
			sizeof(trap));
	}
}
