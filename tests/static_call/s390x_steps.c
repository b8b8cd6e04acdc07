/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * s390x_steps.c - on s390x a static call's jump (brcl M, a 6-byte
 * instruction) moves to another target in up to three steps, each ended
 * by a core sync (src/arch/s390x/batch.c): its mask to 0, so that calls
 * fall through to the far form; its offset; its mask back to 15.  Seen
 * from the runtime's injection point between two steps (the
 * statickeys_inject build): what the trampoline holds there, and where a
 * call made there lands (this thread, mid-update: through the far form, so
 * at the old target, or at the new one where it is the far form's).  From
 * the runtime's counters: 3 syncs for a jump that moves, 2 to or from the
 * far form, 1 for key sites alone, and a commit of both in one batch.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <statickeys.h>

#include "support/inject.h"

#include "../check.h"

#if defined(__s390x__) && SK_HAVE_STATIC_CALL_TRAMPOLINES
__attribute__((noinline)) static int one(int x) { return x + 1; }
__attribute__((noinline)) static int two(int x) { return x + 2; }
SK_DEFINE_STATIC_CALL(route, one);
SK_DEFINE_KEY_FALSE(flag);

__attribute__((noinline)) static int call_route(int x)
{
	return sk_static_call(route)(x);
}

__attribute__((noinline)) static bool flag_on(void)
{
	return sk_branch_unlikely(&flag);
}

static const volatile unsigned char *jump(void)
{
	return (const volatile unsigned char *)(uintptr_t)SK__SC_KEY(route)
		.tramp;
}

/* Where the brcl's offset points (taken or not). */
static uintptr_t offset_to(void)
{
	const volatile unsigned char *t = jump();
	int32_t half = (int32_t)((uint32_t)t[2] << 24 | (uint32_t)t[3] << 16 |
				 (uint32_t)t[4] << 8 | t[5]);

	return (uintptr_t)t + (intptr_t)half * 2;
}

/* What the hook saw at each point between two steps. */
static struct {
	int n;
	unsigned char mask[4];
	uintptr_t to[4];
	int result[4];
} seen;

static void between_steps(int point)
{
	if (point != SK__INJECT_BETWEEN_STEPS || seen.n == 4)
		return;
	seen.mask[seen.n] = jump()[1];
	seen.to[seen.n] = offset_to();
	seen.result[seen.n] = call_route(100);
	seen.n++;
}

/* Run @update; check its batch, syncs and the points between its steps,
 * each given as the offset's target and the result of a call there. */
static void measure(const char *what, int r, uint64_t syncs, int npoints,
		    const uintptr_t *to, const int *result)
{
	struct sk_stats st;

	CHECK(r == 0, "%s: succeeds (%d)", what, r);
	CHECK(sk_stats_get(&st) == 0, "stats readable");
	printf("%s: %llu batch, %llu core syncs, %d points between steps\n",
	       what, (unsigned long long)st.batches,
	       (unsigned long long)st.core_syncs, seen.n);
	CHECK(st.batches == 1, "%s: one batch (%llu)", what,
	      (unsigned long long)st.batches);
	CHECK(st.core_syncs == syncs, "%s: %llu core syncs (%llu)", what,
	      (unsigned long long)syncs, (unsigned long long)st.core_syncs);
	CHECK(seen.n == npoints, "%s: %d points between steps (%d)", what,
	      npoints, seen.n);
	for (int i = 0; i < npoints && i < seen.n; i++) {
		CHECK(seen.mask[i] == 0x04, "%s, point %d: the mask is 0 "
		      "(byte 1 %#x)", what, i, seen.mask[i]);
		CHECK(seen.to[i] == to[i], "%s, point %d: the offset leads "
		      "where it should", what, i);
		CHECK(seen.result[i] == result[i], "%s, point %d: a call "
		      "lands in %d (got %d)", what, i, result[i],
		      seen.result[i]);
	}
	memset(&seen, 0, sizeof(seen));
	sk_stats_reset();
}

static int update(int (*to)(int))
{
	return sk_static_call_update(route, to);
}

static void far_target(void)
{
	/* lghi %r2, 77; br %r14, on a page beyond brcl's +-4 GiB */
	static const unsigned char code[] = { 0xa7, 0x29, 0x00, 0x4d,
					      0x07, 0xfe };
	uintptr_t near = (uintptr_t)&call_route;
	void *far = MAP_FAILED;

	for (uintptr_t d = (uintptr_t)8 << 30;
	     d <= (uintptr_t)64 << 30 && far == MAP_FAILED;
	     d += (uintptr_t)4 << 30)
		far = mmap((void *)((near + d) & ~(uintptr_t)0xfff), 4096,
			   PROT_READ | PROT_WRITE | PROT_EXEC,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			   -1, 0);
	if (far == MAP_FAILED) {
		printf("far target: not run (no page mapped 8-64 GiB from the "
		       "code)\n");
		return;
	}
	memcpy(far, code, sizeof(code));
	int (*far_fn)(int) = (int (*)(int))far;
	uintptr_t t = (uintptr_t)jump();

	/* To the far form: mask 0, then the offset to it (+6); calls
	 * already reach the far target, whose slot was set first. */
	const uintptr_t to_far[] = { (uintptr_t)one };
	const int far_result[] = { 77 };
	measure("one -> far", update(far_fn), 2, 1, to_far, far_result);
	CHECK(jump()[1] == 0x04 && offset_to() == t + 6,
	      "the jump is brcl 0 to the far form");
	CHECK(call_route(1) == 77, "the far target: %d", call_route(1));

	/* Back: the offset (the mask is 0 already), then the mask. */
	const uintptr_t from_far[] = { (uintptr_t)one };
	measure("far -> one", update(one), 2, 1, from_far, far_result);
	CHECK(jump()[1] == 0xf4 && offset_to() == (uintptr_t)one,
	      "brcl 15 to one again");
	CHECK(call_route(1) == 2, "one again: %d", call_route(1));
	munmap(far, 4096);
}

int main(void)
{
	CHECK(jump()[0] == 0xc0 && jump()[1] == 0xf4 &&
	      offset_to() == (uintptr_t)one,
	      "registration made the jump brcl 15 to one");
	sk__inject_hook = between_steps;
	sk_stats_reset();

	/* A move: mask 0 (calls take the far form to one), the offset to
	 * two (still one: the far form's slot), then the mask. */
	const uintptr_t move[] = { (uintptr_t)one, (uintptr_t)two };
	const int old[] = { 101, 101 };
	measure("one -> two", update(two), 3, 2, move, old);
	CHECK(jump()[1] == 0xf4 && offset_to() == (uintptr_t)two,
	      "brcl 15 to two");
	CHECK(call_route(1) == 3, "two: %d", call_route(1));

	/* A key's site: its mask alone, one store and one sync. */
	measure("key on", sk_key_enable(&flag), 1, 0, NULL, NULL);
	CHECK(flag_on(), "the key's site is on");

	/* Both in one commit: the key's mask goes with the last step. */
	struct sk_key_change keys[] = { SK_KEY_CHANGE(&flag, false) };
	struct sk_static_call_change calls[] = {
		SK_STATIC_CALL_CHANGE(route, one),
	};
	const uintptr_t back[] = { (uintptr_t)two, (uintptr_t)one };
	const int via_two[] = { 102, 102 };
	measure("commit", sk_commit_calls(keys, 1, calls, 1), 3, 2, back,
		via_two);
	CHECK(!flag_on() && call_route(1) == 2, "key off, one: %d",
	      call_route(1));

	far_target();
	sk__inject_hook = NULL;
	return check_summary();
}
#else
int main(void)
{
	skip_test("s390x's trampolines only");
}
#endif
