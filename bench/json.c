/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/json.c - writing the benchmarks' JSON, one value at a time.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "json.h"

int json_open(struct json *j, const char *path)
{
	j->depth = 0;
	j->need_comma[0] = false;
	if (!path || (path[0] == '-' && path[1] == 0)) {
		j->f = stdout;
		return 0;
	}
	j->f = fopen(path, "w");
	return j->f ? 0 : -errno;
}

int json_close(struct json *j)
{
	fputc('\n', j->f);
	int bad = ferror(j->f);
	if (j->f != stdout)
		bad |= fclose(j->f);
	else
		fflush(j->f);
	return bad ? -EIO : 0;
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The separator and key that precede every value. */
static void begin_value(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = true;
	if (j->depth > 0)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	if (key) {
		put_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void open_nested(struct json *j, const char *key, char open, char close)
{
	begin_value(j, key);
	fputc(open, j->f);
	if (j->depth + 1 >= JSON_MAX_DEPTH)
		abort(); /* a programming error in a benchmark */
	j->close[++j->depth] = close;
	j->need_comma[j->depth] = false;
}

void json_object(struct json *j, const char *key)
{
	open_nested(j, key, '{', '}');
}

void json_array(struct json *j, const char *key)
{
	open_nested(j, key, '[', ']');
}

void json_end(struct json *j)
{
	char close = j->close[j->depth];

	if (j->depth == 0)
		abort();
	j->depth--;
	fprintf(j->f, "\n%*s%c", 2 * j->depth, "", close);
}

void json_num(struct json *j, const char *key, double v)
{
	begin_value(j, key);
	/* JSON has no NaN or infinity; a missing figure is null. */
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void json_int(struct json *j, const char *key, long long v)
{
	begin_value(j, key);
	fprintf(j->f, "%lld", v);
}

void json_str(struct json *j, const char *key, const char *v)
{
	begin_value(j, key);
	put_string(j->f, v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	begin_value(j, key);
	fputs(v ? "true" : "false", j->f);
}
