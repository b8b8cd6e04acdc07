/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * handler_updates.c - updates from signal handlers however they were
 * installed, and after handlers left by a jump:
 *
 * - a handler installed with signal(), bsd_signal(), sigset(),
 *   sysv_signal() or SA_RESETHAND, or running on an alternate signal stack,
 *   that interrupted no update: updates from it work like any other;
 * - a handler that leaves by siglongjmp(): updates after the jump work, from
 *   a shallow frame and from one deeper on the stack than the handler was;
 * - sigaction() reports the program's own handler and flags as the old
 *   action, as the program set them, and SIG_IGN/SIG_DFL pass as given.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <statickeys.h>

#include "../check.h"

/* The old BSD and System V calls install handlers too: glibc declares
 * bsd_signal() only for old X/Open levels, and marks sigset() deprecated. */
void (*bsd_signal(int, void (*)(int)))(int);
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

SK_DEFINE_KEY_FALSE(key);

static volatile int got = 1;
static sigjmp_buf jump;

static void update_handler(int sig)
{
	(void)sig;
	got = sk_key_enable(&key);
}

static void update_info_handler(int sig, siginfo_t *info, void *uc)
{
	(void)info;
	(void)uc;
	update_handler(sig);
}

static void jump_handler(int sig)
{
	(void)sig;
	siglongjmp(jump, 1);
}

static void expect_updated(const char *how)
{
	CHECK(got == 0, "%s: an update from the handler returned %d, want 0",
	      how, got);
	CHECK(sk_key_enabled(&key), "%s: the key did not turn on", how);
	CHECK(sk_key_disable(&key) == 0 && !sk_key_enabled(&key),
	      "%s: the key did not turn off again", how);
	got = 1;
}

static void handlers_update(void)
{
	struct sigaction sa;

	signal(SIGUSR1, update_handler);
	raise(SIGUSR1);
	expect_updated("signal()");

	bsd_signal(SIGUSR1, update_handler);
	raise(SIGUSR1);
	expect_updated("bsd_signal()");

	sigset(SIGUSR1, update_handler);
	raise(SIGUSR1);
	expect_updated("sigset()");
	CHECK((void *)sigset(SIGUSR1, SIG_DFL) == (void *)update_handler,
	      "sigset() did not return the program's handler");

#ifdef __GLIBC__ /* musl has only __sysv_signal */
	sysv_signal(SIGUSR1, update_handler);
	raise(SIGUSR1);
	expect_updated("sysv_signal()");
#endif

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = update_info_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	expect_updated("SA_RESETHAND|SA_NODEFER");
	sigaction(SIGUSR1, NULL, &sa);
	CHECK(sa.sa_handler == SIG_DFL, "SA_RESETHAND: the handler stayed");

	/* On an alternate stack, nowhere near the thread's own. */
	stack_t ss = { .ss_sp = malloc(1 << 16), .ss_size = 1 << 16 };
	CHECK(ss.ss_sp && sigaltstack(&ss, NULL) == 0, "sigaltstack failed");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = update_handler;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR2, &sa, NULL);
	raise(SIGUSR2);
	expect_updated("sigaltstack");
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	free(ss.ss_sp);
}

/* Deeper on the stack than the handler that was left ran. */
__attribute__((noinline)) static int enable_deep(int n)
{
	volatile char pad[4096];

	pad[0] = (char)n;
	if (n > 0)
		return enable_deep(n - 1) + pad[0] - (char)n;
	return sk_key_enable(&key);
}

static void jumps_leave(bool altstack)
{
	struct sigaction sa;
	stack_t ss = { .ss_sp = malloc(1 << 16), .ss_size = 1 << 16 };

	CHECK(ss.ss_sp != NULL, "malloc");
	if (altstack)
		sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = jump_handler;
	sa.sa_flags = altstack ? SA_ONSTACK : 0;
	sigaction(SIGUSR1, &sa, NULL);
	if (sigsetjmp(jump, 1) == 0)
		raise(SIGUSR1);
	int r = sk_key_enable(&key);
	CHECK(r == 0 && sk_key_enabled(&key), "after a siglongjmp out of a "
	      "handler%s: enable returned %d", altstack ? " (altstack)" : "", r);
	sk_key_disable(&key);
	if (sigsetjmp(jump, 1) == 0)
		raise(SIGUSR1);
	r = enable_deep(8);
	CHECK(r == 0 && sk_key_enabled(&key), "after a siglongjmp out of a "
	      "handler%s, 32 KiB deeper: enable returned %d",
	      altstack ? " (altstack)" : "", r);
	sk_key_disable(&key);
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	free(ss.ss_sp);
}

static void old_action_round_trip(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = update_handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR1, NULL, &old);
	CHECK(old.sa_handler == update_handler &&
	      !(old.sa_flags & SA_SIGINFO) && (old.sa_flags & SA_RESTART),
	      "oldact of a plain handler: %p flags %#x", (void *)old.sa_handler,
	      old.sa_flags);
	sa.sa_sigaction = update_info_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, &old);
	CHECK(old.sa_handler == update_handler, "oldact when replaced: %p",
	      (void *)old.sa_handler);
	sigaction(SIGUSR1, NULL, &old);
	CHECK(old.sa_sigaction == update_info_handler &&
	      (old.sa_flags & SA_SIGINFO), "oldact of an SA_SIGINFO handler");
	CHECK((void *)signal(SIGUSR1, SIG_IGN) == (void *)update_info_handler,
	      "signal() did not return the program's handler");
	sigaction(SIGUSR1, NULL, &old);
	CHECK(old.sa_handler == SIG_IGN, "SIG_IGN did not pass as given");
	signal(SIGUSR1, SIG_DFL);
}

int main(void)
{
	handlers_update();
	jumps_leave(false);
	jumps_leave(true);
	old_action_round_trip();
	CHECK(sk_key_enable(&key) == 0, "an ordinary update failed");
	return check_summary();
}
