/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/config_file.c - the syntax of STATICKEYS_FILE: sysctl.conf's.
 *
 *	# comment            (also "; comment")
 *	tracing = 1
 *	libplugin.so:verbose = off
 *	dyndbg = file queue.c +p
 *
 * One "name = value" per line, blanks around both allowed; the value is one
 * of control/value.h's words (0/1, off/on, false/true, no/yes).  Names are
 * printable ASCII without blanks or '=' (as on the socket), "identifier"
 * or "FILE:identifier".  When a name appears twice, the last line wins,
 * across files too (a directory's files are parsed in name order, as
 * /etc/sysctl.d/ is).  "dyndbg" is no key: its value is a dynamic debug
 * query (the kernel's language, docs/dynamic-debug.md), and every such
 * line is kept, in order, as the kernel's dyndbg= options are.
 *
 * Any bad line makes the whole text bad: the caller applies nothing and
 * shows the one message this file writes, "FILE:LINE: reason".  A half-
 * written file must never half-apply.  This file touches no runtime state,
 * so it can be fuzzed on its own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "control/control.h"
#include "control/dyndbg.h"
#include "control/value.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* @s[0..*n) without leading and trailing blanks. */
static const char *trim(const char *s, size_t *n)
{
	while (*n && is_blank(*s))
		s++, (*n)--;
	while (*n && is_blank(s[*n - 1]))
		(*n)--;
	return s;
}

static const char *bad_name(const char *s, size_t n)
{
	if (n == 0)
		return "no key name before '='";
	if (n > SK__MAX_NAME)
		return "key name longer than 512 bytes";
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x21 || s[i] > 0x7e)
			return "key name with a blank or a non-printable byte";
	return NULL;
}

/* Record @name = @on, replacing an earlier line of the same name. */
static int add(struct sk__conf *conf, const char *name, size_t n, bool on,
	       unsigned line)
{
	struct sk__conf_entry *e = NULL;

	for (size_t i = 0; i < conf->n && !e; i++)
		if (strlen(conf->v[i].name) == n &&
		    memcmp(conf->v[i].name, name, n) == 0)
			e = &conf->v[i];
	if (!e) {
		if (conf->n == SK__CONF_MAX)
			return -E2BIG;
		e = &conf->v[conf->n++];
		memcpy(e->name, name, n);
		e->name[n] = '\0';
	}
	e->on = on;
	e->line = line;
	e->file = (unsigned)conf->nfiles - 1;
	return 0;
}

/* A "dyndbg = QUERY" line: the query checked (it must parse: a version
 * with a bad one applies nothing) and kept.  Return: NULL, or why not. */
static const char *add_query(struct sk__conf *conf, const char *q, size_t n,
			     unsigned line)
{
	static char why[300];
	struct sk__dd_queries parsed;

	if (conf->nq == SK__CONF_QUERIES ||
	    conf->qlen + n + 1 > sizeof(conf->qtext))
		return "more than 64 dyndbg lines, or 8 KiB of them";
	char *text = conf->qtext + conf->qlen;
	memcpy(text, q, n);
	text[n] = '\0';
	char err[256] = "";
	int r = sk__dd_parse(text, "STATICKEYS_FILE", &parsed, err,
			     sizeof(err));
	if (r == 0)
		sk__dd_free(&parsed);
	if (r == -EINVAL) {
		/* The parser's "; nothing changed" is the caller's to say,
		 * for the whole version. */
		char *tail = strstr(err, "; nothing changed");
		if (tail)
			*tail = '\0';
		snprintf(why, sizeof(why), "dyndbg: %s", err);
		return why;
	}
	if (r)
		return "dyndbg: out of memory";
	conf->q[conf->nq++] = (struct sk__conf_query){
		(unsigned)conf->qlen, line, (unsigned)conf->nfiles - 1 };
	conf->qlen += n + 1;
	return NULL;
}

/* One line (no newline).  Return: NULL, or why it is bad. */
static const char *parse_line(struct sk__conf *conf, const char *s, size_t n,
			      unsigned line)
{
	s = trim(s, &n);
	if (n == 0 || *s == '#' || *s == ';')
		return NULL;
	const char *eq = memchr(s, '=', n);
	if (!eq)
		return "not \"name = 0|1\" (no '=')";
	size_t nlen = (size_t)(eq - s), vlen = n - nlen - 1;
	const char *name = trim(s, &nlen), *value = trim(eq + 1, &vlen);
	const char *why = bad_name(name, nlen);
	bool on;
	if (why)
		return why;
	if (nlen == 6 && memcmp(name, "dyndbg", 6) == 0)
		return add_query(conf, value, vlen, line);
	if (!sk__value_parse(value, vlen, &on))
		return "the value is not one of " SK__VALUE_WORDS;
	if (add(conf, name, nlen, on, line) != 0)
		return "more than 256 keys";
	return NULL;
}

int sk__conf_parse(struct sk__conf *conf, const char *file, const char *text,
		   size_t len, char *err, size_t errlen)
{
	if (conf->nfiles == SK__CONF_FILES) {
		snprintf(err, errlen, "%s: more than %d files", file,
			 SK__CONF_FILES);
		return -E2BIG;
	}
	snprintf(conf->files[conf->nfiles++], sizeof(conf->files[0]), "%s",
		 file);
	unsigned line = 1;
	for (size_t pos = 0; pos < len; line++) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		if (memchr(text + pos, '\0', n)) {
			snprintf(err, errlen, "%s:%u: a NUL byte (not a text "
				 "file?)", file, line);
			return -EINVAL;
		}
		const char *why = parse_line(conf, text + pos, n, line);
		if (why) {
			snprintf(err, errlen, "%s:%u: %s", file, line, why);
			return -EINVAL;
		}
		pos += n + 1;
	}
	return 0;
}
