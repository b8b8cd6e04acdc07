/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/dyndbg/catalogue.h - a statement's flags as sk_dyndbg_catalogue()
 * shows them, found by its function's name: what a test reads back after a
 * query (the catalogue is the public view of every statement).
 */
#ifndef SK_TESTS_DYNDBG_CATALOGUE_H
#define SK_TESTS_DYNDBG_CATALOGUE_H

#include <statickeys.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole catalogue, malloc'd. */
static inline char *catalogue_text(void)
{
	long n = sk_dyndbg_catalogue(NULL, 0);
	char *t = (char *)malloc((size_t)n + 1);
	if (t)
		sk_dyndbg_catalogue(t, (size_t)n + 1);
	return t;
}

/* The flags of the statement in function @func ("?" if none), in @out. */
static inline const char *flags_of(const char *func, char out[16])
{
	char *t = catalogue_text(), pat[128];
	snprintf(pat, sizeof(pat), "]%s =", func);
	const char *at = t ? strstr(t, pat) : NULL;
	strcpy(out, "?");
	if (at) {
		at += strlen(pat);
		size_t n = strcspn(at, " ");
		snprintf(out, 16, "%.*s", (int)(n < 15 ? n : 15), at);
	}
	free(t);
	return out;
}

#endif
