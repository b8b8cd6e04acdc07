/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/check.h - the assertions of the C tests (also compiled as C++).
 *
 *	CHECK(cond, "what was expected, with %d", value);
 *	return check_summary();   // prints "N passed, M failed", exit code
 *	skip_test("kernel lacks membarrier SYNC_CORE");   // exit 77, reason
 *
 * A failed CHECK prints file:line and the message, and the test goes on so
 * one run shows every broken behaviour.  CHECK is thread-safe.
 */
#ifndef SK_TESTS_CHECK_H
#define SK_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SK_TEST_SKIP 77

static unsigned long check_passed_count, check_failed_count;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (cond) {                                                  \
			__atomic_fetch_add(&check_passed_count, 1,           \
					   __ATOMIC_RELAXED);                \
		} else {                                                     \
			__atomic_fetch_add(&check_failed_count, 1,           \
					   __ATOMIC_RELAXED);                \
			fprintf(stderr, "%s:%d: check failed: %s: ",         \
				__FILE__, __LINE__, #cond);                  \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
		}                                                            \
	} while (0)

static inline int check_summary(void)
{
	printf("%lu passed, %lu failed\n", check_passed_count,
	       check_failed_count);
	return check_failed_count ? 1 : 0;
}

__attribute__((noreturn)) static inline void skip_test(const char *reason)
{
	printf("SKIPPED: %s\n", reason);
	exit(SK_TEST_SKIP);
}

/* A test program with several named cases: run them all, or only the one
 * named by argv[1] (ctest registers one test per case that way). */
struct check_case {
	const char *name;
	void (*run)(void);
};

static inline int check_run_cases(const struct check_case *cases, size_t n,
				  int argc, char **argv)
{
	size_t ran = 0;

	for (size_t i = 0; i < n; i++) {
		if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
			continue;
		printf("== %s\n", cases[i].name);
		cases[i].run();
		ran++;
	}
	CHECK(ran > 0, "known case name (got %s)", argc > 1 ? argv[1] : "");
	return check_summary();
}

#endif /* SK_TESTS_CHECK_H */
