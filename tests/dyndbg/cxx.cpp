/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/dyndbg/cxx.cpp - sk_pr_debug() from C++ (built with -Wall -Wextra
 * -Werror by g++ and by clang++, dyndbg_cxx and dyndbg_cxx_clang): in a
 * function, in a function template (a statement per instantiation, as a
 * static local is), in an inline function of a header included by two
 * files (one statement: the linker keeps one copy), in a lambda (its
 * function is "operator()"), and with std::string's c_str() and a
 * string_view through "%.*s", each printed once enabled.  What must not
 * compile is in cxx_misuse_cases.cpp.
 */
#include <statickeys.h>

#include <string>
#include <string_view>

#include "../check.h"
#include "capture.h"
#include "catalogue.h"
#include "cxx_inline.hpp"

static char out[8192];

#define CAPTURED(code)                                                       \
	do {                                                                 \
		struct capture c_;                                           \
		capture_begin(&c_);                                          \
		code;                                                        \
		capture_end(&c_, out, sizeof(out));                          \
	} while (0)

static void plain(int v) { sk_pr_debug("plain %d\n", v); }

template <typename T> static void tmpl(T v)
{
	sk_pr_debug("tmpl %d bytes\n", static_cast<int>(sizeof(v)));
}

static void strings(const std::string &s, std::string_view sv)
{
	sk_pr_debug("strings %s %.*s\n", s.c_str(), static_cast<int>(sv.size()),
		    sv.data());
}

/* How many catalogue lines contain @what. */
static int lines_with(const char *what)
{
	char *t = catalogue_text();
	int n = 0;

	for (const char *at = t; at && (at = strstr(at, what)); at++)
		n++;
	free(t);
	return n;
}

static void in_a_function(void)
{
	CAPTURED(plain(1));
	CHECK(out[0] == '\0', "off: \"%s\"", out);
	CHECK(sk_dyndbg_query("func plain +p") == 1, "func plain matched");
	CAPTURED(plain(2));
	CHECK(!strcmp(out, "plain 2\n"), "on: \"%s\"", out);
}

static void in_a_template(void)
{
	CAPTURED(tmpl<char>('a'); tmpl<long long>(1));
	CHECK(out[0] == '\0', "off: \"%s\"", out);
	CHECK(sk_dyndbg_query("format \"tmpl %d\" +p") == 2,
	      "two instantiations, two statements");
	CAPTURED(tmpl<char>('a'); tmpl<long long>(1));
	CHECK(!strcmp(out, "tmpl 1 bytes\ntmpl 8 bytes\n"), "both print: \"%s\"", out);
}

static void in_an_inline_function(void)
{
	CHECK(lines_with("]in_header =") == 1,
	      "the inline function's statement is listed once");
	CHECK(sk_dyndbg_query("func in_header +p") == 1, "func in_header matched once");
	CAPTURED(in_header(3); call_in_header_from_other(4));
	CHECK(!strcmp(out, "in_header 3\nin_header 4\n"),
	      "both files' calls print: \"%s\"", out);
}

static void in_a_lambda(void)
{
	int captured = 5;
	auto lambda = [&captured](int v) { sk_pr_debug("lambda %d %d\n", captured, v); };

	CAPTURED(lambda(6));
	CHECK(out[0] == '\0', "off: \"%s\"", out);
	CHECK(sk_dyndbg_query("format lambda +pf") == 1, "the lambda's statement matched");
	CAPTURED(lambda(7));
	CHECK(!strcmp(out, "operator(): lambda 5 7\n"),
	      "on, with its function \"operator()\": \"%s\"", out);
}

static void with_strings(void)
{
	std::string s = "std::string";
	std::string_view sv = "a string_view, cut here";

	sk_dyndbg_query("func strings +p");
	CAPTURED(strings(s, sv.substr(0, 13)));
	CHECK(!strcmp(out, "strings std::string a string_view\n"),
	      "c_str() and %%.*s: \"%s\"", out);
}

int main()
{
	in_a_function();
	in_a_template();
	in_an_inline_function();
	in_a_lambda();
	with_strings();
	return check_summary();
}
