/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/protocol.c - the control socket's request language and the
 * JSON it answers in.
 *
 * A request is one line of words separated by blanks:
 *
 *	list | stats | log | unmatched | help | get NAME | enable NAME...
 *	| disable NAME... | set NAME=VALUE... | calls | call NAME=LABEL
 *	| debug [QUERY]
 *
 * (VALUE: control/value.h's words, 0/1, off/on, false/true, no/yes.)
 *
 * This file only turns bytes into a struct sk__request and values into JSON
 * text; it touches no runtime state, so it can be fuzzed on its own.  The
 * parser reads exactly @len bytes (the line need not be NUL-terminated),
 * copies nothing, and every name it returns points into the line.  Names are
 * printable ASCII without '=' and at most SK__MAX_NAME bytes long, so a
 * reply can always quote them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/control.h"
#include "control/value.h"
#include "support/message.h"

static const struct {
	const char *word;
	enum sk__op op;
	int min_args, max_args;
} verbs[] = {
	{ "list", SK__OP_LIST, 0, 0 },
	{ "stats", SK__OP_STATS, 0, 0 },
	{ "help", SK__OP_HELP, 0, 0 },
	{ "log", SK__OP_LOG, 0, 0 },
	{ "unmatched", SK__OP_UNMATCHED, 0, 0 },
	{ "get", SK__OP_GET, 1, 1 },
	{ "enable", SK__OP_ENABLE, 1, SK__MAX_ARGS },
	{ "disable", SK__OP_DISABLE, 1, SK__MAX_ARGS },
	{ "set", SK__OP_SET, 1, SK__MAX_ARGS },
	{ "calls", SK__OP_CALLS, 0, 0 },
	{ "call", SK__OP_CALL, 1, 1 },
	{ "debug", SK__OP_DEBUG, 0, 1 },
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The next word of line[*pos..len), or len 0 at the end. */
static size_t next_word(const char *line, size_t len, size_t *pos,
			const char **word)
{
	size_t i = *pos;

	while (i < len && is_blank(line[i]))
		i++;
	*word = line + i;
	size_t start = i;
	while (i < len && !is_blank(line[i]))
		i++;
	*pos = i;
	return i - start;
}

static bool valid_name(const char *s, size_t n)
{
	if (n == 0 || n > SK__MAX_NAME)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x21 || s[i] > 0x7e || s[i] == '=')
			return false;
	return true;
}

/* One argument of "set": NAME=VALUE, VALUE one of control/value.h's words
 * (the words STATICKEYS, STATICKEYS_FILE and skctl take). */
static int parse_assignment(const char *w, size_t n, struct sk__arg *a)
{
	const char *eq = memchr(w, '=', n);

	if (!eq)
		return -EINVAL;
	size_t vlen = n - (size_t)(eq - w) - 1;
	if (!sk__value_parse(eq + 1, vlen, &a->on))
		return -EINVAL;
	a->name = w;
	a->len = (size_t)(eq - w);
	return valid_name(a->name, a->len) ? 0 : -EINVAL;
}

/* The argument of "call": NAME=LABEL, both names. */
static int parse_label(const char *w, size_t n, struct sk__arg *a)
{
	const char *eq = memchr(w, '=', n);

	if (!eq)
		return -EINVAL;
	a->name = w;
	a->len = (size_t)(eq - w);
	a->value = eq + 1;
	a->vlen = n - a->len - 1;
	return valid_name(a->name, a->len) && valid_name(a->value, a->vlen)
		       ? 0
		       : -EINVAL;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(SK__PRINTF, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_args(const char *line, size_t len, size_t pos, int verb,
		      struct sk__request *req, char *err, size_t errlen)
{
	const char *w;
	size_t n;

	while ((n = next_word(line, len, &pos, &w)) != 0) {
		if (req->nargs == (size_t)verbs[verb].max_args)
			return fail(err, errlen, "'%s' takes at most %d name%s",
				    verbs[verb].word, verbs[verb].max_args,
				    verbs[verb].max_args == 1 ? "" : "s");
		struct sk__arg *a = &req->args[req->nargs];
		if (req->op == SK__OP_CALL) {
			if (parse_label(w, n, a))
				return fail(err, errlen, "'call' takes "
					    "NAME=LABEL (a static call and "
					    "one of its targets' labels)");
		} else if (req->op == SK__OP_SET) {
			if (parse_assignment(w, n, a))
				return fail(err, errlen, "argument %zu of 'set' "
					    "is not NAME=VALUE (" SK__VALUE_WORDS ")",
					    req->nargs + 1);
		} else {
			a->name = w;
			a->len = n;
			a->on = req->op == SK__OP_ENABLE;
			if (!valid_name(w, n))
				return fail(err, errlen, "argument %zu is not "
					    "a key name (printable, no '=', "
					    "at most %d bytes)",
					    req->nargs + 1, SK__MAX_NAME);
		}
		req->nargs++;
	}
	if (req->nargs < (size_t)verbs[verb].min_args)
		return fail(err, errlen, "'%s' needs a key name",
			    verbs[verb].word);
	return 0;
}

/* The argument of "debug": the rest of the line, blanks at its ends
 * trimmed, unchecked here (a dynamic debug query has its own grammar,
 * control/dyndbg_query.c); none asks for the catalogue. */
static int parse_query(const char *line, size_t len, size_t pos,
		       struct sk__request *req)
{
	while (pos < len && is_blank(line[pos]))
		pos++;
	while (len > pos && is_blank(line[len - 1]))
		len--;
	if (len > pos) {
		req->args[0].name = line + pos;
		req->args[0].len = len - pos;
		req->nargs = 1;
	}
	return 0;
}

int sk__request_parse(const char *line, size_t len, struct sk__request *req,
		      char *err, size_t errlen)
{
	size_t pos = 0;
	const char *w;
	size_t n = next_word(line, len, &pos, &w);

	req->nargs = 0;
	req->op = SK__OP_BLANK;
	if (n == 0)
		return 0;
	if (memchr(line, '\0', len))
		return fail(err, errlen, "request contains a NUL byte");
	for (size_t v = 0; v < sizeof(verbs) / sizeof(verbs[0]); v++) {
		if (strlen(verbs[v].word) == n && !memcmp(verbs[v].word, w, n)) {
			req->op = verbs[v].op;
			if (req->op == SK__OP_DEBUG)
				return parse_query(line, len, pos, req);
			return parse_args(line, len, pos, (int)v, req, err,
					  errlen);
		}
	}
	return fail(err, errlen, "unknown request; try 'help'");
}

/* ---- JSON output -------------------------------------------------------- */

void sk__json_init(struct sk__json *j, size_t limit)
{
	memset(j, 0, sizeof(*j));
	j->limit = limit;
}

void sk__json_free(struct sk__json *j)
{
	free(j->buf);
	sk__json_init(j, j->limit);
}

void sk__json_reset(struct sk__json *j)
{
	j->len = 0;
	j->overflow = false;
	if (j->buf)
		j->buf[0] = '\0';
}

static void append(struct sk__json *j, const char *s, size_t n)
{
	if (j->overflow)
		return;
	if (j->len + n + 1 > j->limit) {
		j->overflow = true;
		return;
	}
	if (j->len + n + 1 > j->cap) {
		size_t cap = j->cap ? j->cap : 256;
		while (cap < j->len + n + 1)
			cap *= 2;
		char *buf = realloc(j->buf, cap);
		if (!buf) {
			j->overflow = true;
			return;
		}
		j->buf = buf;
		j->cap = cap;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

void sk__json_raw(struct sk__json *j, const char *s)
{
	append(j, s, strlen(s));
}

void sk__json_str(struct sk__json *j, const char *s, size_t n)
{
	append(j, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[8];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			append(j, esc, 2);
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			append(j, esc, 6);
		} else {
			append(j, (const char *)&s[i], 1);
		}
	}
	append(j, "\"", 1);
}

void sk__json_printf(struct sk__json *j, const char *fmt, ...)
{
	char small[256];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		append(j, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		j->overflow = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	append(j, big, (size_t)n);
	free(big);
}
