/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/repeat.h - many distinct sites from one line of source.
 * REP16(if (sk_branch_unlikely(&k)) n++;) expands to 16 separate sites.
 */
#ifndef SK_TESTS_REPEAT_H
#define SK_TESTS_REPEAT_H

#define REP4(x) x x x x
#define REP16(x) REP4(REP4(x))
#define REP256(x) REP16(REP16(x))

#endif /* SK_TESTS_REPEAT_H */
