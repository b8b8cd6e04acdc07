/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/options.h - "--name value" options of the benchmark programs.
 *
 * Every program takes its sizes from the command line so that the same
 * binary serves the full run, QUICK=1 and the ctest smoke test.
 */
#ifndef BENCH_OPTIONS_H
#define BENCH_OPTIONS_H

/* opt_long - the value after @name in argv, or @def if absent. */
long opt_long(int argc, char **argv, const char *name, long def);
/* opt_str - the string after @name in argv, or @def if absent. */
const char *opt_str(int argc, char **argv, const char *name, const char *def);
/* opt_flag - whether @name appears in argv. */
int opt_flag(int argc, char **argv, const char *name);

#endif /* BENCH_OPTIONS_H */
