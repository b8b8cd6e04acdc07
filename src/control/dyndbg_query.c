/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/dyndbg_query.c - the kernel's dynamic debug query language
 * (Documentation/admin-guide/dynamic-debug-howto.rst), parsed and matched.
 *
 *	file queue.c line 10-20 +pfl ; func *_flush -p
 *	format "^sent %d\n" =p          (quoted, with C escapes)
 *
 * A text holds queries separated by ';' or newlines (outside quotes); a
 * query is keyword/value pairs (file, func, line, module, format, class,
 * each at most once) and then one flags word: an operator (+ - =) and
 * flags (p m f s l t, or _ for none).  '#' at the start of a word comments
 * out the rest of its line.  The whole text is parsed before anything is
 * applied, so a text with one bad word changes nothing: the warning names
 * the word, its query and its byte offset.
 *
 * Matching, as the kernel's ddebug_change(): every given keyword must
 * match; file matches the path as compiled or its base name; file, func
 * and module take '*' and '?' wildcards; format matches anywhere in the
 * format ('^' anchors it at the start; wildcards allowed too); a site
 * with a class is matched only by a query naming that class.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/dyndbg.h"
#include "support/message.h"

#define MAX_WORDS 16 /* 6 pairs and the flags, with room to say "too many" */

static const char flag_chars[] = "pmfslt";

/* A word as the tokenizer found it: its text (unquoted, in the copy) and
 * where it began in the caller's text. */
struct word {
	char *s;
	size_t at;
};

struct parser {
	const char *text;
	const char *who;
	size_t query; /* 1-based, for messages */
	char *err;    /* NULL: warn */
	size_t errlen;
};

static int fail(const struct parser *p, const struct word *w,
		const char *what)
{
	if (p->err)
		snprintf(p->err, p->errlen, "query %zu, byte %zu: %s \"%s\"; "
			 "nothing changed", p->query, w->at + 1, what, w->s);
	else
		sk__warn("%s: query %zu, byte %zu: %s \"%s\"; nothing "
			 "changed", p->who, p->query, w->at + 1, what, w->s);
	return -EINVAL;
}

/* ---- the tokenizer ------------------------------------------------------ */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/*
 * Read one word at text[*i] into *out (advancing *out), unquoting '...' and
 * "..." (a backslash keeps the next byte in the word: escapes are decoded
 * later, for formats).  Return: 1 a word, 0 the query ended, -1 an
 * unterminated quote.
 */
static int next_word(const char *t, size_t *i, char **out, struct word *w)
{
	while (is_blank(t[*i]))
		(*i)++;
	if (t[*i] == '#')
		while (t[*i] && t[*i] != '\n')
			(*i)++;
	if (!t[*i] || t[*i] == ';' || t[*i] == '\n')
		return 0;
	w->s = *out;
	w->at = *i;
	char quote = 0;
	for (; t[*i]; (*i)++) {
		char c = t[*i];
		if (quote) {
			if (c == quote) {
				quote = 0;
				continue;
			}
			if (c == '\\' && t[*i + 1])
				*(*out)++ = t[(*i)++];
			*(*out)++ = t[*i];
			continue;
		}
		if (is_blank(c) || c == ';' || c == '\n')
			break;
		if (c == '"' || c == '\'')
			quote = c;
		else
			*(*out)++ = c;
	}
	*(*out)++ = '\0';
	return quote ? -1 : 1;
}

/* ---- values --------------------------------------------------------------- */

/* C escapes in a format, in place: \n \t \r \f \v \a \e \\ \" \' \OOO
 * (the kernel's UNESCAPE_SPACE | UNESCAPE_OCTAL | UNESCAPE_SPECIAL). */
static bool unescape(char *s)
{
	static const char from[] = "ntrfvae\\\"'", to[] = "\n\t\r\f\v\a\033\\\"'";
	char *o = s;

	for (; *s; s++) {
		if (*s != '\\') {
			*o++ = *s;
			continue;
		}
		s++;
		const char *e = *s ? strchr(from, *s) : NULL;
		if (e) {
			*o++ = to[e - from];
		} else if (*s >= '0' && *s <= '7') {
			unsigned v = 0;
			for (int k = 0; k < 3 && *s >= '0' && *s <= '7'; k++)
				v = v * 8 + (unsigned)(*s++ - '0');
			s--;
			if (v == 0 || v > 0xff)
				return false;
			*o++ = (char)v;
		} else {
			return false;
		}
	}
	*o = '\0';
	return true;
}

static bool parse_uint(const char *s, size_t n, unsigned *out)
{
	unsigned long v = 0;

	if (n == 0 || n > 9)
		return false;
	for (size_t k = 0; k < n; k++) {
		if (s[k] < '0' || s[k] > '9')
			return false;
		v = v * 10 + (unsigned long)(s[k] - '0');
	}
	*out = (unsigned)v;
	return true;
}

/* "N", "N-M", "-M" (from 0) or "N-" (to the end). */
static bool parse_lines(const char *s, struct sk__dd_query *q)
{
	const char *dash = strchr(s, '-');

	q->has_line = true;
	if (!dash)
		return parse_uint(s, strlen(s), &q->first) &&
		       (q->last = q->first, true);
	if (dash == s && !dash[1])
		return false;
	q->first = 0;
	q->last = ~0u;
	if (dash > s && !parse_uint(s, (size_t)(dash - s), &q->first))
		return false;
	if (dash[1] && !parse_uint(dash + 1, strlen(dash + 1), &q->last))
		return false;
	return q->first <= q->last;
}

/* "+pf", "-p", "=_", "=": the operator and the flags. */
static bool parse_flags(const char *s, struct sk__dd_query *q)
{
	unsigned flags = 0;

	if (!*s || !strchr("+-=", *s))
		return false;
	for (const char *c = s + 1; *c; c++) {
		const char *f = strchr(flag_chars, *c);
		if (*c == '_')
			continue;
		if (!f)
			return false;
		flags |= 1u << (f - flag_chars);
	}
	q->mask = *s == '=' ? 0 : *s == '+' ? ~0u : ~flags;
	q->set = *s == '-' ? 0 : flags;
	return true;
}

void sk__dd_flags_text(unsigned flags, char out[8])
{
	size_t n = 0;

	for (size_t k = 0; flag_chars[k]; k++)
		if (flags & (1u << k))
			out[n++] = flag_chars[k];
	if (!n)
		out[n++] = '_';
	out[n] = '\0';
}

/* ---- one query ------------------------------------------------------------ */

static const char *const keywords[] = { "file", "func", "line", "module",
					"format", "class", NULL };

static int set_value(const struct parser *p, struct sk__dd_query *q, int kw,
		     struct word *val)
{
	char *v = val->s;

	switch (kw) {
	case 0: { /* file F, or file F:N[-M] as the kernel allows */
		char *colon = strchr(v, ':');
		if (colon) {
			*colon = '\0';
			if (q->has_line || !parse_lines(colon + 1, q)) {
				*colon = ':';
				return fail(p, val, "bad line range in");
			}
		}
		q->file = v;
		break;
	}
	case 1:
		q->func = v;
		break;
	case 2:
		if (q->has_line || !parse_lines(v, q))
			return fail(p, val, "bad line range");
		break;
	case 3:
		q->module = v;
		break;
	case 4:
		if (!unescape(v))
			return fail(p, val, "bad escape in format");
		q->format = v;
		break;
	default:
		q->cls = v;
		break;
	}
	return 0;
}

static int parse_query(const struct parser *p, struct word *w, size_t n,
		       struct sk__dd_query *q)
{
	bool seen[6] = { false };

	memset(q, 0, sizeof(*q));
	if (n > 13)
		return fail(p, &w[13], "too many words from");
	if (n % 2 == 0)
		return fail(p, &w[n - 1], "expected flags (+p, -p, =pf...) "
					  "after the last value, not");
	for (size_t k = 0; k + 1 < n; k += 2) {
		int kw = 0;
		while (keywords[kw] && strcmp(keywords[kw], w[k].s) != 0)
			kw++;
		if (!keywords[kw])
			return fail(p, &w[k], "unknown keyword (file, func, "
					      "line, module, format, class)");
		if (seen[kw])
			return fail(p, &w[k], "keyword given twice");
		seen[kw] = true;
		int r = set_value(p, q, kw, &w[k + 1]);
		if (r)
			return r;
	}
	if (!parse_flags(w[n - 1].s, q))
		return fail(p, &w[n - 1], "bad flags (an operator + - = and "
					  "flags from p m f s l t _)");
	return 0;
}

int sk__dd_parse(const char *text, const char *who, struct sk__dd_queries *out,
		 char *err, size_t errlen)
{
	size_t len = strlen(text), cap = 1, i = 0;

	for (size_t k = 0; k < len; k++)
		cap += text[k] == ';' || text[k] == '\n';
	memset(out, 0, sizeof(*out));
	out->words = malloc(len + MAX_WORDS + 1);
	out->v = calloc(cap, sizeof(*out->v));
	if (!out->words || !out->v) {
		sk__dd_free(out);
		return -ENOMEM;
	}
	struct parser p = { text, who, 0, err, errlen };
	char *o = out->words;
	while (out->n < cap) {
		struct word w[MAX_WORDS];
		size_t n = 0;
		int r;
		p.query++;
		while ((r = next_word(text, &i, &o, &w[n < MAX_WORDS - 1 ? n : MAX_WORDS - 1])) > 0)
			n += n < MAX_WORDS - 1;
		if (r < 0) {
			struct word *bad = &w[n < MAX_WORDS - 1 ? n : MAX_WORDS - 1];
			fail(&p, bad, "unterminated quote in");
			sk__dd_free(out);
			return -EINVAL;
		}
		if (n && (r = parse_query(&p, w, n, &out->v[out->n++])) != 0) {
			sk__dd_free(out);
			return r;
		}
		if (!text[i])
			break;
		i++; /* the ';' or newline */
	}
	return 0;
}

void sk__dd_free(struct sk__dd_queries *q)
{
	free(q->v);
	free(q->words);
	memset(q, 0, sizeof(*q));
}

/* ---- matching --------------------------------------------------------------- */

/* Glob @p over @s, '*' any run, '?' one byte; @prefix: @p need match only
 * the start of @s. */
static bool glob(const char *p, const char *s, bool prefix)
{
	const char *star = NULL, *resume = NULL;

	for (;;) {
		if (!*p && (prefix || !*s))
			return true;
		if (*p == '*') {
			star = ++p;
			resume = s;
			continue;
		}
		if (*s && (*p == '?' || *p == *s)) {
			p++;
			s++;
			continue;
		}
		if (!star || !*resume)
			return false;
		p = star;
		s = ++resume;
	}
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
#ifdef _WIN32
	const char *bs = strrchr(path, '\\');
	if (bs && (!slash || bs > slash))
		slash = bs;
#endif
	return slash ? slash + 1 : path;
}

static bool format_matches(const char *want, const char *format)
{
	if (*want == '^')
		return glob(want + 1, format, true);
	for (const char *s = format; *s; s++)
		if (glob(want, s, true))
			return true;
	return !*want;
}

/* Every word of @q holds for @site; the cheap ones are asked first (the
 * line range: a query naming one statement by file and line then matches
 * a file's path only for the statements on that line). */
bool sk__dd_matches(const struct sk__dd_query *q,
		    const struct sk_dyndbg_site *site)
{
	if (q->has_line && (site->line < q->first || site->line > q->last))
		return false;
	if (q->cls ? !site->cls || strcmp(q->cls, site->cls) != 0 : site->cls != NULL)
		return false;
	if (q->module && !glob(q->module, site->module ? site->module : "",
			       false))
		return false;
	if (q->func && !glob(q->func, site->function, false))
		return false;
	if (q->file && !glob(q->file, site->file, false) &&
	    !glob(q->file, base_name(site->file), false))
		return false;
	if (q->format && !format_matches(q->format, site->format))
		return false;
	return true;
}
