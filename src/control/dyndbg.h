/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/dyndbg.h - dynamic debug's private interfaces (prefix
 * sk__dd_): the query language (dyndbg_query.c), the statements of the
 * registered objects and what a query does to them (dyndbg_sites.c), and
 * the enabled statements' output (dyndbg_print.c).  Public side:
 * include/statickeys/dyndbg.h.
 */
#ifndef SK_CONTROL_DYNDBG_H
#define SK_CONTROL_DYNDBG_H

#include <stdbool.h>
#include <stddef.h>

#include "control/control.h"
#include "statickeys/dyndbg.h"

/* The words of one query: each may be set once; NULL when absent. */
struct sk__dd_query {
	const char *file, *func, *module, *format, *cls;
	bool has_line;
	unsigned first, last; /* line range, inclusive */
	unsigned mask, set;   /* new flags = (old & mask) | set */
};

/* sk__dd_queries - a parsed text: its queries and the storage their words
 * point into (one malloc; sk__dd_free). */
struct sk__dd_queries {
	struct sk__dd_query *v;
	size_t n;
	char *words;
};

/* sk__dd_parse - parse @text (the kernel's control-file language).
 * @who names the caller in the warning ("sk_dyndbg_query",
 * "STATICKEYS_DYNDBG").  Return: 0, or -EINVAL after one warning naming
 * the bad word and its position (then @out holds nothing), -ENOMEM.
 * With @err, the message goes there instead of to the warning. */
int sk__dd_parse(const char *text, const char *who, struct sk__dd_queries *out,
		 char *err, size_t errlen);
void sk__dd_free(struct sk__dd_queries *q);

/* sk__dd_matches - @site is one that query @q selects. */
bool sk__dd_matches(const struct sk__dd_query *q,
		    const struct sk_dyndbg_site *site);

/* sk__dd_site_of - @key is a debug statement's key: its descriptor. */
struct sk_dyndbg_site *sk__dd_site_of(struct sk_key *key);

/* sk__dd_apply_locked - apply @qs in order, each as one commit, to the
 * statements of @only (NULL: of every registered object); audited as from
 * @src when not NULL.  Under the patch lock.  Return: the statements
 * matched, or the first commit's error. */
int sk__dd_apply_locked(const struct sk__dd_queries *qs,
			struct sk__object *only,
			const struct sk__audit_src *src);

/* sk__dd_query_from - parse and apply @text, taking the lock (the control
 * socket: @src its peer, @err where a parse error is told). */
int sk__dd_query_from(const char *text, const struct sk__audit_src *src,
		      char *err, size_t errlen);

/* sk__dd_init - once, from runtime init: name each registering object's
 * statements' module and apply STATICKEYS_DYNDBG to them. */
void sk__dd_init(void);

/* sk__dd_flags_text - @flags as the catalogue shows them ("pmf", "_"). */
void sk__dd_flags_text(unsigned flags, char out[8]);

#endif /* SK_CONTROL_DYNDBG_H */
