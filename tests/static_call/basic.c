/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * basic.c - static calls, one thread: the three definitions (a target,
 * NULL, RET0), updates and queries, the trampoline's bytes where there are
 * trampolines (a direct jump to the target: no load, no indirect branch),
 * a target more than 2 GiB away, a commit of keys and static calls in one
 * batch, and refused misuse.  Also built with SK_NO_ASM_GOTO: the pointer
 * form behind the same API.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#ifdef __linux__
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <statickeys.h>

#include "../check.h"

/* The targets read a global, so that on ppc64le they set up their TOC
 * pointer (r2): the trampoline jumps straight to such a target's local
 * entry point; one without a TOC of its own goes through the far form
 * (statickeys/arch/ppc64le_static_call.h). */
static volatile int zero;
static int add1(int x) { return x + 1 + zero; }
static int add2(int x) { return x + 2 + zero; }
static int add3(int x) { return x + 3 + zero; }

SK_DEFINE_STATIC_CALL(adder, add1);

static int hits;
static void hit(int n) { hits += n; }
static void hit_twice(int n) { hits += 2 * n; }
SK_DEFINE_STATIC_CALL_NULL(hook, hit);

static long forty_two(void) { return 42; }
SK_DEFINE_STATIC_CALL_RET0(answer, forty_two);

SK_DEFINE_KEY_FALSE(feature);

__attribute__((noinline)) static int call_adder(int x)
{
	return sk_static_call(adder)(x);
}

__attribute__((noinline)) static bool feature_on(void)
{
	return sk_branch_unlikely(&feature);
}

/* Where the trampoline's own "return 0" and far form are, and whether its
 * jump leads to @to (statickeys/static_call.h: x86-64 and aarch64). */
#if defined(__aarch64__) || defined(__riscv) || defined(__powerpc64__) || \
	defined(__loongarch__) || defined(__arm__)
#define TRAMP_RET0 4
#define TRAMP_FAR 12
#elif defined(__s390x__)
#define TRAMP_RET0 14
#define TRAMP_FAR 6
#else
#define TRAMP_RET0 5
#define TRAMP_FAR 8
#endif
/* Where the trampoline's jump is: past its endbr64 where the program was
 * built for IBT (x86-64, -fcf-protection: statickeys/static_call.h), and
 * 24 bytes on on ppc64le, past the code that sets its TOC pointer; a
 * Thumb trampoline's symbol (32-bit Arm) has bit 0 set. */
__attribute__((unused))
static unsigned char *tramp_jump(const void *tramp)
{
	unsigned char *t = (unsigned char *)(uintptr_t)tramp;
#if defined(__x86_64__)
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };

	if (memcmp(t, endbr64, sizeof(endbr64)) == 0)
		return t + sizeof(endbr64);
#elif defined(__powerpc64__)
	return t + 24;
#elif defined(__arm__)
	return (unsigned char *)((uintptr_t)t & ~(uintptr_t)1);
#endif
	return t;
}

__attribute__((unused))
static bool tramp_jumps_to(const void *tramp, const void *to)
{
	const unsigned char *t = tramp_jump(tramp);
#if defined(__aarch64__)
	uint32_t b;

	memcpy(&b, t, 4);
	if ((b & 0xfc000000u) != 0x14000000u)
		return false;
	int32_t words = (int32_t)(b << 6) >> 6;
	return (uintptr_t)t + (intptr_t)words * 4 == (uintptr_t)to;
#elif defined(__powerpc64__)
	uint32_t b; /* b: LI in bits 6..29 */
	static const uint32_t toc_pair[] = { 0x3c4c0000u, 0x38420000u };
	uint32_t g[2];

	memcpy(&b, t, 4);
	if ((b & 0xfc000003u) != 0x48000000u)
		return false;
	uintptr_t dest = (uintptr_t)t + (intptr_t)((int32_t)(b << 6) >> 6);
	/* A function whose global entry sets r2 (addis r2,r12 / addi r2,r2)
	 * is entered 8 bytes on, past that, with the trampoline's r2. */
	memcpy(g, to, sizeof(g));
	if ((g[0] & 0xffff0000u) == toc_pair[0] &&
	    (g[1] & 0xffff0000u) == toc_pair[1])
		return dest == (uintptr_t)to + 8;
	return dest == (uintptr_t)to;
#elif defined(__arm__)
	uint32_t b; /* b.w (T4): f000|S|imm10, 9000|J1|J2|imm11 */

	memcpy(&b, t, 4);
	if ((b & 0xd000f800u) != 0x9000f000u)
		return false;
	uint32_t s = (b >> 10) & 1u, hi = b & 0xffffu, lo = b >> 16;
	uint32_t off = (s << 24) | ((((lo >> 13) & 1u) ^ 1u ^ s) << 23) |
		       ((((lo >> 11) & 1u) ^ 1u ^ s) << 22) |
		       ((hi & 0x3ffu) << 12) | ((lo & 0x7ffu) << 1);
	/* To the function's code: a Thumb function's address has bit 0. */
	return (uintptr_t)t + 4 + (intptr_t)((int32_t)(off << 7) >> 7) ==
	       ((uintptr_t)to & ~(uintptr_t)1);
#elif defined(__loongarch__)
	uint32_t b; /* b: offs[15:0] in bits 25..10, offs[25:16] in 9..0 */

	memcpy(&b, t, 4);
	if ((b & 0xfc000000u) != 0x50000000u)
		return false;
	uint32_t w = ((b >> 10) & 0xffffu) | ((b & 0x3ffu) << 16);
	int32_t words = (int32_t)(w << 6) >> 6;
	return (uintptr_t)t + (intptr_t)words * 4 == (uintptr_t)to;
#elif defined(__s390x__)
	/* brcl 15: c0 f4 and a signed count of halfwords (big-endian);
	 * brcl 0 (c0 04) falls through to the far form at +6. */
	if (t[0] != 0xc0 || (t[1] != 0xf4 && t[1] != 0x04))
		return false;
	int32_t half = (int32_t)((uint32_t)t[2] << 24 | (uint32_t)t[3] << 16 |
				 (uint32_t)t[4] << 8 | t[5]);
	if (t[1] == 0x04)
		return (uintptr_t)t + 6 == (uintptr_t)to;
	return (uintptr_t)t + (intptr_t)half * 2 == (uintptr_t)to;
#elif defined(__riscv)
	uint32_t j; /* jal x0: imm[20|10:1|11|19:12] */

	memcpy(&j, t, 4);
	if ((j & 0xfffu) != 0x06fu)
		return false;
	int32_t imm = (int32_t)((((j >> 31) & 1u) << 20) |
				(((j >> 21) & 0x3ffu) << 1) |
				(((j >> 20) & 1u) << 11) |
				(((j >> 12) & 0xffu) << 12));
	imm = (imm << 11) >> 11; /* sign-extend 21 bits */
	return (uintptr_t)t + (intptr_t)imm == (uintptr_t)to;
#else
	int32_t rel;

	if (t[0] != 0xe9)
		return false;
	memcpy(&rel, t + 1, 4);
	return (uintptr_t)t + 5 + (intptr_t)rel == (uintptr_t)to;
#endif
}

static void definitions(void)
{
	CHECK(call_adder(1) == 2, "defined target: %d", call_adder(1));
	CHECK(sk_static_call_query(adder) == add1, "query: the defined target");
	CHECK(sk_static_call_query(hook) == NULL, "a _NULL call has no target");
	sk_static_call_cond(hook)(5);
	CHECK(hits == 0, "cond with no target calls nothing (hits %d)", hits);
	CHECK(sk_static_call(answer)() == 0, "RET0 returns 0");
	CHECK((void *)sk_static_call_query(answer) ==
		      (void *)sk_static_call_return0,
	      "RET0's target is sk_static_call_return0");
#if SK_HAVE_STATIC_CALL_TRAMPOLINES
	CHECK(tramp_jumps_to((const void *)&sk__sct_adder, (const void *)add1),
	      "registration made the trampoline a direct jump to add1");
#if defined(__x86_64__) && defined(__CET__) && (__CET__ & 1)
	CHECK(tramp_jump((const void *)&sk__sct_adder) !=
		      (const void *)&sk__sct_adder,
	      "built for IBT: the trampoline starts with endbr64");
#elif defined(__x86_64__)
	CHECK(tramp_jump((const void *)&sk__sct_adder) ==
		      (const void *)&sk__sct_adder,
	      "built without IBT: the trampoline starts with its jump");
#endif
#endif
}

static void updates(void)
{
	CHECK(sk_static_call_update(adder, add2) == 0, "update");
	CHECK(call_adder(1) == 3, "after update: %d", call_adder(1));
	CHECK(sk_static_call_query(adder) == add2, "query after update");
#if SK_HAVE_STATIC_CALL_TRAMPOLINES
	CHECK(tramp_jumps_to((const void *)&sk__sct_adder, (const void *)add2),
	      "the trampoline jumps straight to add2");
#endif
	/* The target it already has: a no-op (no batch, no code written, no
	 * core sync), as docs/static-calls.md says. */
	struct sk_stats before, after;
	sk_stats_get(&before);
	CHECK(sk_static_call_update(adder, add2) == 0, "same target again");
	sk_stats_get(&after);
	CHECK(after.batches == before.batches &&
		      after.text_writes == before.text_writes &&
		      after.core_syncs == before.core_syncs,
	      "the same target: no batch, write or sync (%llu, %llu, %llu)",
	      (unsigned long long)(after.batches - before.batches),
	      (unsigned long long)(after.text_writes - before.text_writes),
	      (unsigned long long)(after.core_syncs - before.core_syncs));
	CHECK(call_adder(1) == 3, "still add2: %d", call_adder(1));
	CHECK(sk_static_call_update(adder, add3) == 0, "update");
	CHECK(call_adder(1) == 4, "add3: %d", call_adder(1));

	CHECK(sk_static_call_update(hook, hit_twice) == 0, "NULL -> func");
	sk_static_call_cond(hook)(3);
	sk_static_call(hook)(1);
	CHECK(hits == 8, "hook ran twice, doubled (hits %d)", hits);
	CHECK(sk_static_call_update(hook, NULL) == 0, "func -> NULL");
	sk_static_call_cond(hook)(100);
	CHECK(hits == 8, "no target again (hits %d)", hits);

	CHECK(sk_static_call_update(answer, forty_two) == 0, "RET0 -> func");
	CHECK(sk_static_call(answer)() == 42, "forty_two");
	CHECK(sk_static_call_update(answer, sk_static_call_return0) == 0,
	      "func -> RET0");
	CHECK(sk_static_call(answer)() == 0, "0 again");
#if SK_HAVE_STATIC_CALL_TRAMPOLINES
	CHECK(tramp_jumps_to((const void *)&sk__sct_answer,
			     tramp_jump((const void *)&sk__sct_answer) + TRAMP_RET0),
	      "RET0: the trampoline's own return of 0");
#endif
	CHECK(sk_static_call_update(adder, add1) == 0, "back");
}

/* A target beyond the trampoline's jump (x86-64: 2 GiB; aarch64: 128 MiB;
 * Thumb-2: 16 MiB): code copied to a page mapped 8-64 GiB away (32-bit
 * Arm: 32-512 MiB), returning 77. */
static void far_target(void)
{
#if !defined(__linux__) ||                                                   \
	!(defined(__x86_64__) || defined(__aarch64__) || defined(__riscv) ||  \
	  defined(__powerpc64__) || defined(__loongarch__) ||                 \
	  defined(__s390x__) || defined(__arm__))
	printf("far target: not run (x86-64, aarch64, riscv64, ppc64le, "
	       "s390x, loongarch64 and arm Linux only: "
	       "code copied to a page mmap'd at a chosen address)\n");
#else
#if defined(__x86_64__)
	static const unsigned char code[] = { 0xb8, 77, 0, 0, 0, 0xc3 };
#elif defined(__aarch64__) /* mov w0, #77; ret */
	static const unsigned char code[] = { 0xa0, 0x09, 0x80, 0x52,
					      0xc0, 0x03, 0x5f, 0xd6 };
#elif defined(__powerpc64__) /* li r3, 77; blr (little-endian) */
	static const unsigned char code[] = { 0x4d, 0x00, 0x60, 0x38,
					      0x20, 0x00, 0x80, 0x4e };
#elif defined(__loongarch__) /* addi.w $a0, $zero, 77; jirl $zero, $ra, 0 */
	static const unsigned char code[] = { 0x04, 0x34, 0x81, 0x02,
					      0x20, 0x00, 0x00, 0x4c };
#elif defined(__arm__) /* Thumb: movs r0, #77; bx lr */
	static const unsigned char code[] = { 0x4d, 0x20, 0x70, 0x47 };
#elif defined(__s390x__) /* lghi %r2, 77; br %r14 */
	static const unsigned char code[] = { 0xa7, 0x29, 0x00, 0x4d,
					      0x07, 0xfe };
#else /* addi a0, x0, 77; ret */
	static const unsigned char code[] = { 0x13, 0x05, 0xd0, 0x04,
					      0x67, 0x80, 0x00, 0x00 };
#endif
	uintptr_t near = (uintptr_t)&call_adder;
	void *far = MAP_FAILED;

#if defined(__arm__) /* a 32-bit address space: 32-512 MiB away */
	const uintptr_t from = (uintptr_t)32 << 20, last = (uintptr_t)512 << 20;
	const uintptr_t step = (uintptr_t)32 << 20;
#else
	const uintptr_t from = (uintptr_t)8 << 30, last = (uintptr_t)64 << 30;
	const uintptr_t step = (uintptr_t)4 << 30;
#endif
	for (uintptr_t d = from; d <= last && far == MAP_FAILED; d += step) {
		void *hint = (void *)((near + d) & ~(uintptr_t)0xfff);
		far = mmap(hint, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			   -1, 0);
	}
	if (far == MAP_FAILED) {
		printf("far target: not run (no page mapped that far from "
		       "the code)\n");
		return;
	}
	memcpy(far, code, sizeof(code));
	__builtin___clear_cache((char *)far, (char *)far + sizeof(code));
#if defined(__arm__)
	/* Thumb code: its address carries bit 0. */
	int (*far_fn)(int) = (int (*)(int))((uintptr_t)far | 1);
#else
	int (*far_fn)(int) = (int (*)(int))far;
#endif
	CHECK(sk_static_call_update(adder, far_fn) == 0, "far update");
	CHECK(call_adder(1) == 77, "far target reached: %d", call_adder(1));
#if SK_HAVE_STATIC_CALL_TRAMPOLINES
	CHECK(tramp_jumps_to((const void *)&sk__sct_adder,
			     tramp_jump((const void *)&sk__sct_adder) + TRAMP_FAR),
	      "the far form: the trampoline's jump through its slot");
#endif
#if defined(__arm__)
	/* An Arm-state function (mov r0, #78; bx lr; bit 0 clear), which no
	 * B.W can enter: the far form, whose LDR to the pc switches state. */
	static const unsigned char arm_code[] = { 0x4e, 0x00, 0xa0, 0xe3,
						  0x1e, 0xff, 0x2f, 0xe1 };
	memcpy((char *)far + 16, arm_code, sizeof(arm_code));
	__builtin___clear_cache((char *)far + 16,
				(char *)far + 16 + sizeof(arm_code));
	CHECK(sk_static_call_update(adder,
				    (int (*)(int))((char *)far + 16)) == 0,
	      "update to an Arm-state function");
	CHECK(call_adder(1) == 78, "Arm-state target reached: %d",
	      call_adder(1));
#if SK_HAVE_STATIC_CALL_TRAMPOLINES
	CHECK(tramp_jumps_to((const void *)&sk__sct_adder,
			     tramp_jump((const void *)&sk__sct_adder) + TRAMP_FAR),
	      "an Arm-state target: the far form");
#endif
#endif
	CHECK(sk_static_call_update(adder, add2) == 0, "near again");
	CHECK(call_adder(1) == 3, "add2 after far: %d", call_adder(1));
	munmap(far, 4096);
#endif
}

static void commit(void)
{
	struct sk_key_change keys[] = { SK_KEY_CHANGE(&feature, true) };
	struct sk_static_call_change calls[] = {
		SK_STATIC_CALL_CHANGE(adder, add3),
		SK_STATIC_CALL_CHANGE(hook, hit),
	};
	struct sk_stats before, after;

	sk_stats_get(&before);
	CHECK(sk_commit_calls(keys, 1, calls, 2) == 0, "commit");
	sk_stats_get(&after);
	CHECK(feature_on() && call_adder(1) == 4, "key on, add3: %d",
	      call_adder(1));
	hits = 0;
	sk_static_call_cond(hook)(1);
	CHECK(hits == 1, "hook is hit (hits %d)", hits);
	if (SK_HAVE_PATCHED_SITES && SK_HAVE_STATIC_CALL_TRAMPOLINES)
		CHECK(after.batches - before.batches == 1 &&
			      after.core_syncs - before.core_syncs <= 3,
		      "one batch, <= 3 syncs (%llu batches, %llu syncs)",
		      (unsigned long long)(after.batches - before.batches),
		      (unsigned long long)(after.core_syncs - before.core_syncs));

	/* A call named twice with two targets: refused, nothing changed. */
	struct sk_static_call_change twice[] = {
		SK_STATIC_CALL_CHANGE(adder, add1),
		SK_STATIC_CALL_CHANGE(adder, add2),
	};
	struct sk_key_change off[] = { SK_KEY_CHANGE(&feature, false) };
	CHECK(sk_commit_calls(off, 1, twice, 2) == -EINVAL, "twice: -EINVAL");
	CHECK(feature_on() && call_adder(1) == 4, "nothing changed");
	CHECK(sk_commit_calls(off, 1, NULL, 0) == 0, "keys alone");
	CHECK(!feature_on(), "key off");
}

/* Another tool's int3 over the trampoline's jump (a debugger's breakpoint,
 * written as one would: through /proc/self/mem): the update is refused,
 * -EILSEQ, and nothing is written; once the byte is back, it updates. */
static void foreign_breakpoint(void)
{
#if SK_HAVE_STATIC_CALL_TRAMPOLINES && defined(__linux__)
	unsigned char *t = tramp_jump((const void *)&sk__sct_adder), was = t[0];
	unsigned char int3 = 0xcc;
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("foreign_breakpoint: not run (no /proc/self/mem)\n");
		return;
	}
	CHECK(pwrite(fd, &int3, 1, (off_t)(uintptr_t)t) == 1, "int3 written");
	CHECK(sk_static_call_update(adder, add1) == -EILSEQ,
	      "an update over another tool's int3 is refused");
	CHECK(t[0] == 0xcc, "the breakpoint is left as it is");
	CHECK(pwrite(fd, &was, 1, (off_t)(uintptr_t)t) == 1, "int3 removed");
	close(fd);
	CHECK(sk_static_call_update(adder, add1) == 0, "then it updates");
	CHECK(call_adder(1) == 2, "add1: %d", call_adder(1));
	CHECK(sk_static_call_update(adder, add3) == 0, "back to add3");
#else
	printf("foreign_breakpoint: not run (Linux trampolines only: the "
	       "int3 is written through /proc/self/mem)\n");
#endif
}

static void misuse(void)
{
	struct sk_static_call_key bogus;

	memset(&bogus, 0, sizeof(bogus));
	CHECK(sk__static_call_update(&bogus, (void *)add1) == -EINVAL,
	      "a descriptor SK_DEFINE_STATIC_CALL did not make: -EINVAL");
	CHECK(sk__static_call_update(NULL, (void *)add1) == -EINVAL,
	      "NULL descriptor: -EINVAL");
	struct sk_static_call_change bad[] = { { &bogus, (void *)add1 } };
	CHECK(sk_commit_calls(NULL, 0, bad, 1) == -EINVAL, "commit: -EINVAL");
	CHECK(call_adder(1) == 4, "nothing changed");
	struct sk_static_call_sites s;
	CHECK(sk_static_call_sites_of(&bogus, &s) == -EINVAL &&
		      sk_static_call_sites_of(NULL, &s) == -EINVAL &&
		      sk_static_call_sites(adder, NULL) == -EINVAL,
	      "call sites of a bogus descriptor, or into NULL: -EINVAL");
}

/* What the runtime says of the call sites: direct ones where the program
 * was linked with -Wl,--emit-relocs (SK_TEST_EMIT_RELOCS), none and why
 * otherwise (skctl calls shows the same). */
static void call_sites(void)
{
	struct sk_static_call_sites s;
	int want;

#if SK_HAVE_STATIC_CALL_TRAMPOLINES && defined(__x86_64__) &&                \
	defined(__linux__) && defined(SK_TEST_EMIT_RELOCS)
	want = SK_CALL_SITES_FOUND;
#elif SK_HAVE_STATIC_CALL_TRAMPOLINES && defined(__x86_64__) &&              \
	defined(__linux__)
	want = SK_CALL_SITES_NO_RELOCS;
#else /* other architectures, Windows, macOS: the trampoline only */
	want = SK_CALL_SITES_NOT_PATCHED;
#endif
	CHECK(sk_static_call_sites(adder, &s) == 0, "adder's call sites");
	printf("adder: %lu direct, %lu through the trampoline, why %d\n",
	       s.direct, s.trampoline, s.why);
	CHECK(s.why == want, "why %d, want %d", s.why, want);
	if (want == SK_CALL_SITES_FOUND)
		CHECK(s.direct >= 1 && s.trampoline == 0, "call_adder's call "
		      "is direct: %lu direct, %lu not", s.direct, s.trampoline);
	else
		CHECK(s.direct == 0 && s.trampoline == 0, "none counted: %lu, "
		      "%lu", s.direct, s.trampoline);
	CHECK(sk_static_call_sites(hook, &s) == 0 && s.why == want,
	      "the _NULL one's too: why %d", s.why);
}

int main(int argc, char **argv)
{
	static const struct check_case cases[] = {
		{ "definitions", definitions }, { "updates", updates },
		{ "far_target", far_target },   { "commit", commit },
		{ "foreign_breakpoint", foreign_breakpoint },
		{ "misuse", misuse },           { "call_sites", call_sites },
	};
	return check_run_cases(cases, sizeof(cases) / sizeof(cases[0]), argc,
			       argv);
}
