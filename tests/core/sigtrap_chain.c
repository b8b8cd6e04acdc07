/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * sigtrap_chain.c - the program's own SIGTRAP handling keeps working.
 *
 * The runtime installs its handler when it first patches code and re-checks
 * before every batch.  Traps that are not at a site mid-update go to the
 * handler that was installed before (or after) it, or to the default action.
 */
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <statickeys.h>

#include "../check.h"

SK_DEFINE_KEY_FALSE(chain_key);

__attribute__((noinline)) static bool chain_site(void)
{
	return sk_branch_unlikely(&chain_key);
}

static volatile sig_atomic_t program_traps;

static void program_handler(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)info;
	(void)uc;
	program_traps++;
}

static void install_program_handler(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = program_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
}

static void flip_twice(void)
{
	CHECK(sk_key_enable(&chain_key) == 0 && chain_site(), "enable works");
	CHECK(sk_key_disable(&chain_key) == 0 && !chain_site(), "disable works");
}

static void own_int3_reaches_program(const char *when)
{
	sig_atomic_t before = program_traps;
	__asm__ __volatile__("int3");
	CHECK(program_traps == before + 1, "%s: the program's int3 reached "
	      "its handler (%d traps)", when, (int)(program_traps - before));
	raise(SIGTRAP);
	CHECK(program_traps == before + 2, "%s: raise(SIGTRAP) reached it",
	      when);
}

/* In a child with no SIGTRAP handler of its own, a stray int3 must still
 * kill the process with SIGTRAP, as it would without the library. */
static void default_action_survives(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGTRAP, SIG_DFL);
		sk_key_enable(&chain_key); /* installs the runtime's handler */
		sk_key_disable(&chain_key);
		/* No core file for an expected death. */
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		__asm__ __volatile__("int3");
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTRAP,
	      "a stray int3 with the default action killed the child "
	      "(status %#x)", status);
}

int main(void)
{
	install_program_handler();       /* before the runtime's */
	flip_twice();
	own_int3_reaches_program("handler installed before the runtime");
	install_program_handler();       /* replaces the runtime's */
	flip_twice();                    /* runtime re-installs, chaining */
	own_int3_reaches_program("handler installed after the runtime");
	struct sk_stats st;
	sk_stats_get(&st);
	CHECK(st.traps_chained >= 4, "chained traps counted: %lu",
	      (unsigned long)st.traps_chained);
	default_action_survives();
	return check_summary();
}
