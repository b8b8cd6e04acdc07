/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/dyndbg/grammar.c - the kernel's query language, keyword by keyword
 * (file, func, line ranges, module, format, class), wildcards, quoting and
 * escapes, flags with + - =, several queries in one text, comments; and
 * every malformed text refused with -EINVAL and nothing changed (the
 * catalogue before and after is the same text).
 */
#include <errno.h>
#include <statickeys.h>

#include "../check.h"
#include "catalogue.h"

static int line_alpha, line_alpha_two, line_beta, line_delta;

static void alpha(void) { line_alpha = __LINE__; sk_pr_debug("alpha one %d\n", 1); }
static void alpha_two(void) { line_alpha_two = __LINE__; sk_pr_debug("alpha two\n"); }
static void beta(void) { line_beta = __LINE__; sk_pr_debug("beta \"quoted\" word; tab\tend\n"); }
static void gamma_net(void) { sk_pr_debug_class("net", "gamma net\n"); }
static void delta(void) { line_delta = __LINE__; sk_print_hex_dump_debug("delta: ", "x", 1); }

static char f[16];
#define FLAGS(fn) flags_of(#fn, f)

static void all_off(void)
{
	sk_dyndbg_query("=_; class net =_");
}

/* @query matches @n statements, and @fn then has @flags. */
static void expect(const char *query, int n, const char *fn,
		   const char *flags)
{
	int r = sk_dyndbg_query(query);
	CHECK(r == n, "'%s' matched %d statements, not %d", query, r, n);
	if (fn)
		CHECK(!strcmp(flags_of(fn, f), flags), "after '%s', %s has "
		      "flags %s, not %s", query, fn, f, flags);
}

static void keywords(void)
{
	expect("func alpha +p", 1, "alpha", "p");
	CHECK(!strcmp(FLAGS(alpha_two), "_"), "func alpha left alpha_two (%s)", f);
	all_off();
	expect("func alpha* +p", 2, "alpha_two", "p");
	all_off();
	expect("func alph? +p", 1, "alpha", "p");
	all_off();
	expect("func ?lpha_*o +p", 1, "alpha_two", "p");
	all_off();
	/* file: the base name, the path as compiled, a wildcard over it; the
	 * classed statement is not matched. */
	expect("file grammar.c +p", 4, "beta", "p");
	CHECK(!strcmp(FLAGS(gamma_net), "_"), "file without class left the "
	      "classed statement alone (%s)", f);
	all_off();
	expect("file " __FILE__ " +p", 4, "delta", "p");
	all_off();
	expect("file *dyndbg/gram*.c +p", 4, "alpha", "p");
	all_off();
	expect("file nosuch.c +p", 0, "alpha", "_");
	/* module: the program's name. */
	expect("module dyndbg_grammar +p", 4, "alpha", "p");
	all_off();
	expect("module dyndbg_gr?mmar -p", 4, "alpha", "_");
	expect("module libnosuch +p", 0, NULL, NULL);
	/* class: only with the keyword, and then only that class. */
	expect("class net +p", 1, "gamma_net", "p");
	CHECK(!strcmp(FLAGS(alpha), "_"), "class net left alpha (%s)", f);
	expect("class nosuch +p", 0, NULL, NULL);
	all_off();
}

static void lines(void)
{
	char q[128];

	snprintf(q, sizeof(q), "line %d +p", line_alpha_two);
	expect(q, 1, "alpha_two", "p");
	all_off();
	snprintf(q, sizeof(q), "line %d-%d +p", line_alpha, line_beta);
	expect(q, 3, "beta", "p");
	all_off();
	snprintf(q, sizeof(q), "line -%d +p", line_alpha_two);
	expect(q, 2, "alpha", "p");
	all_off();
	snprintf(q, sizeof(q), "line %d- +p", line_beta);
	expect(q, 2, "delta", "p");
	CHECK(!strcmp(FLAGS(alpha), "_"), "'%s' left alpha (%s)", q, f);
	all_off();
	snprintf(q, sizeof(q), "file grammar.c:%d +p", line_delta);
	expect(q, 1, "delta", "p");
	all_off();
	snprintf(q, sizeof(q), "func alpha line %d +p", line_beta);
	expect(q, 0, "alpha", "_");
}

static void formats(void)
{
	expect("format two +p", 1, "alpha_two", "p");
	all_off();
	expect("format 'alpha one' +p", 1, "alpha", "p");
	all_off();
	expect("format '^alpha' +p", 2, "alpha", "p");
	all_off();
	expect("format '^one' +p", 0, NULL, NULL);
	expect("format \"\\\"quoted\\\"\" +p", 1, "beta", "p");
	all_off();
	expect("format 'word; tab\\tend' +p", 1, "beta", "p");
	all_off();
	expect("format \"two\\n\" +p", 1, "alpha_two", "p");
	all_off();
	expect("format al*two +p", 1, "alpha_two", "p");
	all_off();
	expect("format 'one ?d' +p", 1, "alpha", "p");
	all_off();
	expect("format delta: +p", 1, "delta", "p");
	all_off();
	expect("format \"\\164wo\" +p", 1, "alpha_two", "p"); /* \164: 't' */
	all_off();
}

static void flags(void)
{
	expect("func alpha +pfl", 1, "alpha", "pfl");
	expect("func alpha -f", 1, "alpha", "pl");
	expect("func alpha +mst", 1, "alpha", "pmslt");
	expect("func alpha =m", 1, "alpha", "m");
	expect("func alpha =_", 1, "alpha", "_");
	expect("func alpha +p_", 1, "alpha", "p");
	expect("func alpha =", 1, "alpha", "_");
	expect("+p", 4, "beta", "p");
	expect("-p", 4, "beta", "_");
}

static void several(void)
{
	expect("func alpha +p; func beta +p\nfunc delta +p", 3, "delta", "p");
	CHECK(!strcmp(FLAGS(beta), "p") && !strcmp(FLAGS(alpha), "p"),
	      "every query of the text applied");
	all_off();
	/* Later queries see what earlier ones did, as in the kernel. */
	expect("func alpha +pf; func alpha -p", 2, "alpha", "f");
	all_off();
	expect("# a comment only", 0, NULL, NULL);
	expect("", 0, NULL, NULL);
	expect("  ;  ;\n", 0, NULL, NULL);
	expect("func alpha +p # the rest is a comment", 1, "alpha", "p");
	expect("func 'alpha' -p", 1, "alpha", "_");
	expect("func \"alpha_two\" +p ;", 1, "alpha_two", "p");
	all_off();
}

static void refused(void)
{
	static const char *const bad[] = {
		"fil x +p",                 /* unknown keyword */
		"func +p",                  /* a keyword without its value */
		"func alpha",               /* no flags */
		"func alpha p",             /* flags without an operator */
		"func alpha +x",            /* an unknown flag */
		"func alpha func beta +p",  /* a keyword twice */
		"line 9-3 +p",              /* a range backwards */
		"line abc +p",
		"line - +p",
		"line 1-2x +p",
		"line 3 line 4 +p",
		"file grammar.c:x +p",
		"format \"unterminated +p",
		"format 'bad \\q escape' +p",
		"format '\\0' +p",
		"func alpha +p; fil x +p",  /* the first query is not applied */
		"func alpha +p\nfunc beta +p garbage",
		"func a func b func c func d func e func f func g +p",
	};
	all_off();
	expect("func delta +p", 1, "delta", "p");
	char *before = catalogue_text();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = sk_dyndbg_query(bad[i]);
		CHECK(r == -EINVAL, "'%s' refused with -EINVAL, not %d", bad[i], r);
		char *after = catalogue_text();
		CHECK(before && after && !strcmp(before, after),
		      "'%s' changed nothing", bad[i]);
		free(after);
	}
	free(before);
	CHECK(sk_dyndbg_query(NULL) == -EINVAL, "a NULL query is refused");
	all_off();
}

int main(void)
{
	alpha();
	alpha_two();
	beta();
	gamma_net();
	delta();
	keywords();
	lines();
	formats();
	flags();
	several();
	refused();
	printf("checked every keyword, ranges, wildcards, quoting, flags and "
	       "18 refused texts\n");
	return check_summary();
}
