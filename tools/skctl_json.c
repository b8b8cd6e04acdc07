/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skctl_json.c - a recursive-descent parser for the server's replies.
 *
 * Depth is bounded (a reply is at most a few levels deep), so a hostile or
 * broken peer cannot exhaust the stack.
 */
#include <stdlib.h>
#include <string.h>

#include "skctl_json.h"

#define MAX_DEPTH 32

struct parser {
	const char *p;
	int depth;
};

static struct json *parse_value(struct parser *ps);

/* The next character, never stepping past the terminating NUL. */
static char take(struct parser *ps)
{
	char c = *ps->p;

	if (c)
		ps->p++;
	return c;
}

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' ||
	       *ps->p == '\r')
		ps->p++;
}

static struct json *node(enum json_type t)
{
	struct json *j = calloc(1, sizeof(*j));
	if (j)
		j->type = t;
	return j;
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A string at ps->p (after the opening quote); UTF-8 for \u escapes. */
static char *parse_string(struct parser *ps)
{
	size_t cap = strlen(ps->p) + 1, n = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	while (*ps->p && *ps->p != '"') {
		char c = take(ps);
		if (c != '\\') {
			out[n++] = c;
			continue;
		}
		c = take(ps);
		if (c == 'u') {
			unsigned v = 0;
			for (int i = 0; i < 4; i++) {
				int h = hex(*ps->p);
				if (h < 0)
					goto bad;
				v = v * 16 + (unsigned)h;
				ps->p++;
			}
			if (v < 0x80) {
				out[n++] = (char)v;
			} else if (v < 0x800) {
				out[n++] = (char)(0xc0 | (v >> 6));
				out[n++] = (char)(0x80 | (v & 0x3f));
			} else {
				out[n++] = (char)(0xe0 | (v >> 12));
				out[n++] = (char)(0x80 | ((v >> 6) & 0x3f));
				out[n++] = (char)(0x80 | (v & 0x3f));
			}
		} else if (c && strchr("\"\\/", c)) {
			out[n++] = c;
		} else if (c == 'n' || c == 't' || c == 'r' || c == 'b' ||
			   c == 'f') {
			out[n++] = c == 'n' ? '\n' : c == 't' ? '\t' : ' ';
		} else {
			goto bad;
		}
	}
	if (*ps->p != '"')
		goto bad;
	ps->p++;
	out[n] = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

/* Elements of an array or members of an object, up to @close. */
static struct json *parse_container(struct parser *ps, enum json_type t,
				    char close)
{
	struct json *j = node(t), **tail;

	if (!j || ++ps->depth > MAX_DEPTH)
		goto bad;
	tail = &j->child;
	skip_ws(ps);
	if (*ps->p == close) {
		ps->p++;
		ps->depth--;
		return j;
	}
	for (;;) {
		char *key = NULL;
		skip_ws(ps);
		if (t == JSON_OBJECT) {
			if (take(ps) != '"' || !(key = parse_string(ps)))
				goto bad;
			skip_ws(ps);
			if (take(ps) != ':') {
				free(key);
				goto bad;
			}
		}
		struct json *v = parse_value(ps);
		if (!v) {
			free(key);
			goto bad;
		}
		v->key = key;
		*tail = v;
		tail = &v->next;
		skip_ws(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (take(ps) != close)
			goto bad;
		ps->depth--;
		return j;
	}
bad:
	json_free(j);
	return NULL;
}

static struct json *parse_value(struct parser *ps)
{
	struct json *j;

	skip_ws(ps);
	char c = *ps->p;
	if (c == '{' || c == '[') {
		ps->p++;
		return parse_container(ps, c == '{' ? JSON_OBJECT : JSON_ARRAY,
				       c == '{' ? '}' : ']');
	}
	if (c == '"') {
		ps->p++;
		char *s = parse_string(ps);
		if (!s || !(j = node(JSON_STRING))) {
			free(s);
			return NULL;
		}
		j->string = s;
		return j;
	}
	static const struct { const char *word; enum json_type t; bool b; }
	words[] = { { "true", JSON_BOOL, true }, { "false", JSON_BOOL, false },
		    { "null", JSON_NULL, false } };
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(words[i].word);
		if (strncmp(ps->p, words[i].word, n) == 0 && (j = node(words[i].t))) {
			ps->p += n;
			j->boolean = words[i].b;
			return j;
		}
	}
	char *end;
	double d = strtod(ps->p, &end);
	if (end == ps->p || !(j = node(JSON_NUMBER)))
		return NULL;
	ps->p = end;
	j->number = d;
	return j;
}

struct json *json_parse(const char *text)
{
	struct parser ps = { text, 0 };
	struct json *j = parse_value(&ps);

	skip_ws(&ps);
	if (j && *ps.p) {
		json_free(j);
		return NULL;
	}
	return j;
}

void json_free(struct json *j)
{
	while (j) {
		struct json *next = j->next;
		json_free(j->child);
		free(j->string);
		free(j->key);
		free(j);
		j = next;
	}
}

const struct json *json_get(const struct json *obj, const char *key)
{
	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (const struct json *m = obj->child; m; m = m->next)
		if (m->key && strcmp(m->key, key) == 0)
			return m;
	return NULL;
}

const char *json_str(const struct json *obj, const char *key,
		     const char *fallback)
{
	const struct json *m = json_get(obj, key);
	return m && m->type == JSON_STRING ? m->string : fallback;
}

double json_num(const struct json *obj, const char *key, double fallback)
{
	const struct json *m = json_get(obj, key);
	return m && m->type == JSON_NUMBER ? m->number : fallback;
}

bool json_bool(const struct json *obj, const char *key, bool fallback)
{
	const struct json *m = json_get(obj, key);
	return m && m->type == JSON_BOOL ? m->boolean : fallback;
}
