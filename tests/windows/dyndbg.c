/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/windows/dyndbg.c - dynamic debug on Windows: statements off (no
 * argument evaluated) and on through sk_dyndbg_query(); the sink, the
 * DLL's exported static call, re-pointed to the program's own with
 * sk_static_call_update() (the test reads each message there: stderr has
 * no pipe to capture here); the decorations and the module (the program's
 * name without ".exe"); a hex dump; the kernel's spellings
 * (statickeys/linux.h: pr_fmt, pr_debug, DEFINE_DYNAMIC_DEBUG_METADATA,
 * DYNAMIC_DEBUG_BRANCH, whose key listing PE keeps from the enabled path);
 * the catalogue.  Last, one line through the default sink, which ctest
 * reads on stderr (PASS_REGULAR_EXPRESSION, tests/windows/CMakeLists.txt).
 * Built with and without --gc-sections (windows_dyndbg_gc).
 */
#define pr_fmt(fmt) "win: " fmt

#include <statickeys/linux.h>

#include <errno.h>
#include <statickeys.h>

#include "../check.h"

/* The program's name, its statements' module. */
#ifndef SK_EXPECT_MODULE
#define SK_EXPECT_MODULE "windows_dyndbg"
#endif

static char sunk[4096];
static const struct sk_dyndbg_site *sunk_site;
static int evaluated;

static void my_sink(const struct sk_dyndbg_site *site, const char *msg,
		    size_t len)
{
	size_t n = strlen(sunk);
	snprintf(sunk + n, sizeof(sunk) - n, "%.*s", (int)len, msg);
	sunk_site = site;
}

static int counted(int v)
{
	evaluated++;
	return v;
}

static void say(int v) { sk_pr_debug("value %d\n", counted(v)); }
static void kernel_say(int v) { pr_debug("kernel %d\n", v); }
static void driver(int v)
{
	DEFINE_DYNAMIC_DEBUG_METADATA(descriptor, "driver %d\n");
	if (DYNAMIC_DEBUG_BRANCH(descriptor))
		__dynamic_pr_debug(&descriptor, pr_fmt("driver %d\n"), v);
}
static void dump(const void *b, size_t n) { sk_print_hex_dump_debug("d: ", b, n); }

#define SUNK(code)                                                           \
	do {                                                                 \
		sunk[0] = '\0';                                              \
		code;                                                        \
	} while (0)

int main(void)
{
	CHECK(sk_static_call_update(sk_dyndbg_sink, my_sink) == 0,
	      "the sink re-pointed");
	SUNK(say(1); kernel_say(1); driver(1));
	CHECK(sunk[0] == '\0' && evaluated == 0,
	      "off: nothing (\"%s\"), no argument evaluated", sunk);

	CHECK(sk_dyndbg_query("func say +pmf") == 1, "func say matched");
	SUNK(say(2));
	CHECK(!strcmp(sunk, "value 2\n") && evaluated == 1, "on: \"%s\"", sunk);
	CHECK(sunk_site && !strcmp(sunk_site->function, "say") &&
	      sunk_site->module && !strcmp(sunk_site->module, SK_EXPECT_MODULE) &&
	      sunk_site->flags == (SK_DYNDBG_PRINT | SK_DYNDBG_MODULE | SK_DYNDBG_FUNC),
	      "the sink has the descriptor, module %s",
	      sunk_site && sunk_site->module ? sunk_site->module : "(none)");

	CHECK(sk_dyndbg_query("func kernel_say +p; format driver +p") == 2,
	      "the kernel's spellings matched");
	SUNK(kernel_say(3); driver(4));
	CHECK(!strcmp(sunk, "win: kernel 3\nwin: driver 4\n"), "pr_fmt: \"%s\"", sunk);

	unsigned char b[18];
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)(0x61 + i);
	CHECK(sk_dyndbg_query("format d: +p") == 1, "the dump matched");
	SUNK(dump(b, sizeof(b)));
	CHECK(!strcmp(sunk,
		"d: 00000000: 61 62 63 64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70  abcdefghijklmnop"
		"d: 00000010: 71 72                                            qr"),
	      "a dump, a message a row: \"%s\"", sunk);

	CHECK(sk_dyndbg_query("func say +q") == -EINVAL, "a bad query refused");
	long n = sk_dyndbg_catalogue(NULL, 0);
	char *cat = (char *)malloc((size_t)n + 1);
	CHECK(cat && sk_dyndbg_catalogue(cat, (size_t)n + 1) == n &&
	      strstr(cat, "[" SK_EXPECT_MODULE "]say =pmf \"value %d\\n\"\n") &&
	      strstr(cat, "[" SK_EXPECT_MODULE "]driver =p \"driver %d\\n\"\n"),
	      "the catalogue:\n%s", cat ? cat : "");
	free(cat);

	CHECK(sk_static_call_update(sk_dyndbg_sink, sk_dyndbg_sink_stderr) == 0,
	      "the default sink back");
	sk_dyndbg_query("func say =pf");
	say(5); /* stderr: "say: value 5" */
	return check_summary();
}
