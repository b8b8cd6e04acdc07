/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * protocol.c - the request language, request by request (the fuzz targets
 * check that nothing breaks it; this checks that it means what it says).
 */
#include <errno.h>
#include <string.h>

#include "control/control.h"

#include "../check.h"

static struct sk__request req;
static char err[160];

static int parse(const char *line)
{
	err[0] = '\0';
	return sk__request_parse(line, strlen(line), &req, err, sizeof(err));
}

static bool arg_is(size_t i, const char *name, bool on)
{
	return i < req.nargs && req.args[i].len == strlen(name) &&
	       memcmp(req.args[i].name, name, req.args[i].len) == 0 &&
	       req.args[i].on == on;
}

static void test_verbs(void)
{
	CHECK(parse("list") == 0 && req.op == SK__OP_LIST && req.nargs == 0,
	      "list");
	CHECK(parse("  stats\r") == 0 && req.op == SK__OP_STATS, "stats, CR");
	CHECK(parse("help") == 0 && req.op == SK__OP_HELP, "help");
	CHECK(parse("") == 0 && req.op == SK__OP_BLANK, "empty is blank");
	CHECK(parse(" \t ") == 0 && req.op == SK__OP_BLANK, "blanks");
	CHECK(parse("get libx.so:tracing") == 0 && req.op == SK__OP_GET &&
		      arg_is(0, "libx.so:tracing", false),
	      "get with a qualified name");
	CHECK(parse("enable a\tb  c") == 0 && req.op == SK__OP_ENABLE &&
		      req.nargs == 3 && arg_is(0, "a", true) &&
		      arg_is(2, "c", true),
	      "enable three names");
	CHECK(parse("disable a") == 0 && req.op == SK__OP_DISABLE &&
		      arg_is(0, "a", false),
	      "disable");
	CHECK(parse("set a=1 b=0 c=on d=off") == 0 && req.op == SK__OP_SET &&
		      arg_is(0, "a", true) && arg_is(1, "b", false) &&
		      arg_is(2, "c", true) && arg_is(3, "d", false),
	      "set with 1/0/on/off");
	/* The one vocabulary (src/control/value.c): STATICKEYS's and
	 * STATICKEYS_FILE's words, on the socket too. */
	CHECK(parse("set a=yes b=no c=true d=false") == 0 &&
		      arg_is(0, "a", true) && arg_is(1, "b", false) &&
		      arg_is(2, "c", true) && arg_is(3, "d", false),
	      "set with yes/no/true/false");
}

static void test_errors(void)
{
	static const char *const bad[] = {
		"frob", "List", "list x", "get", "get a b", "enable",
		"enable a=1", "set", "set a", "set a=2", "set =1", "set a==1",
		"set a=ON", "set a=y", "set a=", "set a=1x",
		"get a\x01", "get \xc3\xa9",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(parse(bad[i]) == -EINVAL && err[0],
		      "\"%s\" refused with a message", bad[i]);
	}
	CHECK(parse("list\0x") == 0, "strlen stops at NUL here");
	CHECK(sk__request_parse("list\0x", 6, &req, err, sizeof(err)) ==
		      -EINVAL,
	      "an embedded NUL is refused");
}

static void test_limits(void)
{
	char line[SK__MAX_NAME + 16] = "get ";
	memset(line + 4, 'n', SK__MAX_NAME);
	line[4 + SK__MAX_NAME] = '\0';
	CHECK(parse(line) == 0, "a %d-byte name is accepted", SK__MAX_NAME);
	strcat(line, "n");
	CHECK(parse(line) == -EINVAL, "one byte more is refused");
	static char many[8 * (SK__MAX_ARGS + 2)];
	strcpy(many, "enable");
	for (int i = 0; i < SK__MAX_ARGS; i++)
		strcat(many, " k");
	CHECK(parse(many) == 0 && req.nargs == SK__MAX_ARGS,
	      "%d names accepted", SK__MAX_ARGS);
	strcat(many, " k");
	CHECK(parse(many) == -EINVAL && strstr(err, "at most"),
	      "one more is refused: %s", err);
	/* Only @len bytes are read: a name cut by the length ends there. */
	CHECK(sk__request_parse("get abcdef", 7, &req, err, sizeof(err)) == 0 &&
		      arg_is(0, "abc", false),
	      "the length bounds the parse");
}

static void test_json_strings(void)
{
	struct sk__json j;
	sk__json_init(&j, 64);
	sk__json_str(&j, "a\"b\\c\n\x01", 7);
	CHECK(j.buf && strcmp(j.buf, "\"a\\\"b\\\\c\\u000a\\u0001\"") == 0,
	      "escaped: %s", j.buf);
	for (int i = 0; i < 20; i++)
		sk__json_raw(&j, "0123456789");
	CHECK(j.overflow && j.len < 64, "a reply stops at its limit");
	sk__json_free(&j);
}

int main(void)
{
	test_verbs();
	test_errors();
	test_limits();
	test_json_strings();
	return check_summary();
}
