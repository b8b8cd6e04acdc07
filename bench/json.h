/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/json.h - writing the benchmarks' JSON, one value at a time.
 *
 *	struct json j;
 *	json_open(&j, path);              // "-" or NULL: standard output
 *	json_object(&j, NULL);            // the top-level object
 *	json_array(&j, "update_latency");
 *	json_object(&j, NULL);
 *	json_int(&j, "sites", 56);
 *	json_end(&j); json_end(&j); json_end(&j);
 *	json_close(&j);
 *
 * Keys are given inside objects and NULL inside arrays.  Commas and nesting
 * are tracked here so the benchmarks cannot emit malformed JSON.
 */
#ifndef BENCH_JSON_H
#define BENCH_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
	char close[JSON_MAX_DEPTH];
};

/* json_open - write to @path ("-" or NULL: stdout). Return: 0 or -errno. */
int json_open(struct json *j, const char *path);
/* json_close - finish the file. Return: 0, or -EIO if a write failed. */
int json_close(struct json *j);
void json_object(struct json *j, const char *key);
void json_array(struct json *j, const char *key);
void json_end(struct json *j);
void json_num(struct json *j, const char *key, double v);
void json_int(struct json *j, const char *key, long long v);
void json_str(struct json *j, const char *key, const char *v);
void json_bool(struct json *j, const char *key, bool v);

#endif /* BENCH_JSON_H */
