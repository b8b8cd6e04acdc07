/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/experiments.h - the experiments of the bench_keys program.
 *
 * Each prints a table on standard output and writes its part of
 * results.json (same field names) into the given JSON writer, inside the
 * top-level object.  Return: 0, or 77 (skipped, reason printed), or 1.
 */
#ifndef BENCH_EXPERIMENTS_H
#define BENCH_EXPERIMENTS_H

#include "json.h"

struct sk_key;

#define BENCH_SKIPPED 77

int exp_update_latency(int argc, char **argv, struct json *j);
int exp_flip_floor(int argc, char **argv, struct json *j);
int exp_commit(int argc, char **argv, struct json *j);
int exp_trap_hits(int argc, char **argv, struct json *j);
int exp_disturbance(int argc, char **argv, struct json *j);
int exp_locks(int argc, char **argv, struct json *j);
int exp_threads(int argc, char **argv, struct json *j);
int exp_static_call(int argc, char **argv, struct json *j);

/* bench_set_mode - "batched", "one_by_one" or "mprotect".
 * Return: 0, or -ENOTSUP when this process cannot use that writer. */
int bench_set_mode(const char *mode);

/* bench_flip - enable then disable @key; each call's time in @us_on/@us_off. */
int bench_flip(struct sk_key *key, double *us_on, double *us_off);

#endif /* BENCH_EXPERIMENTS_H */
