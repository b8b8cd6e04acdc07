/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/branch_bytes.c - experiment 1b: code bytes per check.
 *
 * For each kind of check, one function holds 1 check and another holds 9,
 * each on its own key or flag (as distinct tracepoints would be) and each
 * guarding a call.  The benchmark reads the functions' sizes from the symbol
 * table: (size of 9 - size of 1) / 8 is what one more check adds to the
 * text, out-of-line call and jump back included.
 */
#include <statickeys.h>


void bench_hook(int i);

#define REP9(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7) m(8)

#define DEF_KEY(i) SK_DEFINE_KEY_FALSE(bytes_key##i);
REP9(DEF_KEY)
int bytes_flag[9];

#define STATIC_CHECK(i) if (sk_branch_unlikely(&bytes_key##i)) bench_hook(i);
#define FLAG_CHECK(i) if (bytes_flag[i]) bench_hook(i);
#define EXPECT_CHECK(i) if (__builtin_expect(bytes_flag[i], 0)) bench_hook(i);
#define ATOMIC_CHECK(i)                                                      \
	if (__atomic_load_n(&bytes_flag[i], __ATOMIC_RELAXED))               \
		bench_hook(i);

#define DEF_FNS(name, check)                                                 \
	__attribute__((noipa)) void bytes_##name##_1(void) { check(0) }      \
	__attribute__((noipa)) void bytes_##name##_9(void) { REP9(check) }

DEF_FNS(static, STATIC_CHECK)
DEF_FNS(flag, FLAG_CHECK)
DEF_FNS(expect, EXPECT_CHECK)
DEF_FNS(atomic, ATOMIC_CHECK)
