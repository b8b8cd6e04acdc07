/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * got_call.c - calls to a trampoline through the GOT ("call *tramp@
 * GOTPCREL(%rip)" and the tail "jmp *"), as rustc makes them, in a program
 * linked with -Wl,--emit-relocs and assembled without relocation relaxation
 * (so the linker leaves them as they are, as it does rustc's): at the first
 * update the runtime makes each a direct call to the trampoline ("90 e8
 * rel32") and re-points it at the target itself, as every update after,
 * while two threads call through both (docs/static-calls.md, "Call
 * sites").  Where that is not done (the mprotect writer, which stores byte
 * by byte; a process that already has a second thread), they stay
 * calls through the GOT, and every call still lands where it must.  (A
 * sanitizer's own thread is not one: the C library did not make it.)
 *
 * static_call_inline_got_procmem expects the direct form,
 * static_call_inline_got_mprotect the GOT form.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <statickeys.h>

#include "../check.h"
#include "call_site.h"

static int add1(int x) { return x + 1; }
static int add2(int x) { return x + 2; }

SK_DEFINE_STATIC_CALL(adder, add1);

/* int got_call(int), int got_tail(int): the stack aligned for the call. */
int got_call(int x);
int got_tail(int x);
__asm__(".text\n"
	".globl got_call\n.hidden got_call\n.type got_call, @function\n"
	"got_call:\n"
	"\tsub $8, %rsp\n"
	"\tcall *sk__sct_adder@GOTPCREL(%rip)\n"
	"\tadd $8, %rsp\n"
	"\tret\n"
	".size got_call, . - got_call\n"
	".globl got_tail\n.hidden got_tail\n.type got_tail, @function\n"
	"got_tail:\n"
	"\tjmp *sk__sct_adder@GOTPCREL(%rip)\n"
	".size got_tail, . - got_tail\n");

/* Where each one's call or jump is: after the sub's 4 bytes, and first. */
#define CALL_AT ((const unsigned char *)(uintptr_t)got_call + 4)
#define TAIL_AT ((const unsigned char *)(uintptr_t)got_tail)

static bool expect_direct(void)
{
	const char *w = getenv("STATICKEYS_WRITER");

	return !w || strcmp(w, "mprotect") != 0;
}

/* Where the instruction at @at goes: 0 trampoline, 1 add1, 2 add2; -2
 * still through the GOT; -1 elsewhere. */
static int goes_to(const unsigned char *at)
{
	const void *dest[3] = { (const void *)SK__SC_KEY(adder).tramp,
				(const void *)add1, (const void *)add2 };

	if (at[0] == 0xff && (at[1] == 0x15 || at[1] == 0x25))
		return -2;
	if (at[0] != 0x90)
		return -1;
	return call_goes_to(at + 1, 5, dest, 3);
}

/* The call and the tail jump both go to @want (goes_to()'s numbers). */
static void check_both(int want, const char *when)
{
	CHECK(goes_to(CALL_AT) == want && goes_to(TAIL_AT) == want,
	      "%s: call %d, tail %d, want %d (1 add1, 2 add2, -2 through "
	      "the GOT)", when, goes_to(CALL_AT), goes_to(TAIL_AT), want);
}

static int stop;
static int generation; /* odd: an update is under way */
static unsigned long wrong;

static int load(const int *v)
{
	return __atomic_load_n(v, __ATOMIC_ACQUIRE);
}

static void *caller(void *arg)
{
	(void)arg;
	while (!load(&stop)) {
		int g = load(&generation);
		int a = got_call(10), b = got_tail(10);
		/* Calls that began after an update returned, and ended before
		 * the next began, land in its target. */
		if (!(g & 1) && g == load(&generation)) {
			int want = (g / 2) % 2 ? 12 : 11;
			if (a != want || b != want)
				__atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
		}
		if ((a != 11 && a != 12) || (b != 11 && b != 12))
			__atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(void)
{
	bool direct = expect_direct();

	CHECK(got_call(1) == 2 && got_tail(1) == 2, "the defined target");
	/* Call sites are looked for at the first update to another target:
	 * until then, nothing read, nothing written, nothing counted. */
	check_both(-2, "at start-up");
	struct sk_static_call_sites s;
	CHECK(sk_static_call_sites(adder, &s) == 0 &&
		      s.why == SK_CALL_SITES_PENDING && s.direct == 0 &&
		      s.trampoline == 0,
	      "before the first update: %lu direct, %lu through the "
	      "trampoline (why %d, want pending)", s.direct, s.trampoline,
	      s.why);
	CHECK(sk_static_call_update(adder, add2) == 0, "update");
	CHECK(got_call(1) == 3 && got_tail(1) == 3, "the new target");
	check_both(direct ? 2 : -2, "after the update");
	/* What the runtime says of them (skctl calls shows the same): both
	 * found; direct, or left calling the trampoline through the GOT. */
	CHECK(sk_static_call_sites(adder, &s) == 0 &&
		      s.why == SK_CALL_SITES_FOUND &&
		      s.direct == (direct ? 2u : 0u) &&
		      s.trampoline == (direct ? 0u : 2u),
	      "call sites: %lu direct, %lu through the trampoline (why %d)",
	      s.direct, s.trampoline, s.why);
	CHECK(sk_static_call_update(adder, add1) == 0, "update back");

	/* Two threads call through both while the main thread re-points. */
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, caller, NULL);
	int errors = 0;
	for (int u = 0; u < 400; u++) {
		__atomic_fetch_add(&generation, 1, __ATOMIC_ACQ_REL);
		errors += sk_static_call_update(adder, u % 2 ? add1 : add2) != 0;
		__atomic_fetch_add(&generation, 1, __ATOMIC_ACQ_REL);
		for (volatile int spin = 0; spin < 20000; spin++)
			;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	struct sk_stats st;
	sk_stats_get(&st);
	printf("400 updates while 2 threads called; %lu traps resumed\n",
	       (unsigned long)st.traps_handled);
	CHECK(errors == 0, "%d updates failed", errors);
	CHECK(wrong == 0, "%lu calls landed in the wrong target", wrong);
	return check_summary();
}
