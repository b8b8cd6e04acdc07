/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/dyndbg/output.c - what an enabled statement prints: nothing and no
 * argument evaluated while off; the message alone with p; the decorations
 * in the kernel's order ("[tid] module:function:file:line: "); a newline
 * added when the format has none; a hex dump in the kernel's layout; the
 * sink re-pointed with sk_static_call_update() and back; the message of a
 * refused query naming the word and its byte.
 */
#include <errno.h>
#include <statickeys.h>
#include <sys/syscall.h>

#include "../check.h"
#include "capture.h"
#include "catalogue.h"

static int evaluated, say_line;

static int counted(int v)
{
	evaluated++;
	return v;
}

static void say(int v) { say_line = __LINE__; sk_pr_debug("value %d\n", counted(v)); }
static void bare(void) { sk_pr_debug("no newline"); }
static void dump(const void *b, size_t n) { sk_print_hex_dump_debug("buf: ", b, n); }

static char out[8192];

#define CAPTURED(code)                                                       \
	do {                                                                 \
		struct capture c_;                                           \
		capture_begin(&c_);                                          \
		code;                                                        \
		capture_end(&c_, out, sizeof(out));                          \
	} while (0)

static void off_and_on(void)
{
	CAPTURED(say(1));
	CHECK(out[0] == '\0', "an off statement printed \"%s\"", out);
	CHECK(evaluated == 0, "an off statement evaluated its arguments");
	CHECK(sk_dyndbg_query("func say +p") == 1, "func say matched");
	CAPTURED(say(7));
	CHECK(!strcmp(out, "value 7\n"), "p alone prints the message: \"%s\"", out);
	CHECK(evaluated == 1, "an on statement evaluated its argument once");
	sk_dyndbg_query("func bare +p");
	CAPTURED(bare());
	CHECK(!strcmp(out, "no newline\n"), "a newline is added: \"%s\"", out);
}

static void decorations(void)
{
	char want[256];

	sk_dyndbg_query("func say =pm");
	CAPTURED(say(2));
	CHECK(!strcmp(out, "dyndbg_output: value 2\n"), "m: \"%s\"", out);
	sk_dyndbg_query("func say =pf");
	CAPTURED(say(3));
	CHECK(!strcmp(out, "say: value 3\n"), "f: \"%s\"", out);
	sk_dyndbg_query("func say =pl");
	CAPTURED(say(4));
	snprintf(want, sizeof(want), "%d: value 4\n", say_line);
	CHECK(!strcmp(out, want), "l: \"%s\", not \"%s\"", out, want);
	sk_dyndbg_query("func say =ps");
	CAPTURED(say(5));
	CHECK(!strcmp(out, "output.c: value 5\n"), "s: \"%s\"", out);
	sk_dyndbg_query("func say =pmfslt");
	CAPTURED(say(6));
	snprintf(want, sizeof(want), "[%ld] dyndbg_output:say:output.c:%d: value 6\n",
		 (long)syscall(SYS_gettid), say_line);
	CHECK(!strcmp(out, want), "all, in the kernel's order: \"%s\", not \"%s\"",
	      out, want);
	sk_dyndbg_query("func say =pt");
	CAPTURED(say(8));
	snprintf(want, sizeof(want), "[%ld] value 8\n", (long)syscall(SYS_gettid));
	CHECK(!strcmp(out, want), "t: \"%s\", not \"%s\"", out, want);
	sk_dyndbg_query("func say =_");
	CAPTURED(say(9));
	CHECK(out[0] == '\0', "off again: \"%s\"", out);
}

static void hexdump(void)
{
	unsigned char b[20];

	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)(0x41 + i);
	b[3] = 0x00;
	b[4] = 0x7f;
	CAPTURED(dump(b, sizeof(b)));
	CHECK(out[0] == '\0', "an off hex dump printed");
	CHECK(sk_dyndbg_query("format buf: +p") == 1, "the dump's prefix is its format");
	CAPTURED(dump(b, sizeof(b)));
	static const char want[] =
		"buf: 00000000: 41 42 43 00 7f 46 47 48 49 4a 4b 4c 4d 4e 4f 50  ABC..FGHIJKLMNOP\n"
		"buf: 00000010: 51 52 53 54                                      QRST\n";
	CHECK(!strcmp(out, want), "the kernel's layout: \"%s\"", out);
	CAPTURED(dump(b, 0));
	CHECK(out[0] == '\0', "an empty dump prints nothing");
}

static char sunk[256];
static const struct sk_dyndbg_site *sunk_site;

static void my_sink(const struct sk_dyndbg_site *site, const char *msg,
		    size_t len)
{
	snprintf(sunk, sizeof(sunk), "%.*s", (int)len, msg);
	sunk_site = site;
}

static void sink(void)
{
	sk_dyndbg_query("func say =pmf");
	CHECK(sk_static_call_update(sk_dyndbg_sink, my_sink) == 0, "sink re-pointed");
	CAPTURED(say(10));
	CHECK(out[0] == '\0', "the default sink is not called: \"%s\"", out);
	CHECK(!strcmp(sunk, "value 10\n"), "my sink has the message: \"%s\"", sunk);
	CHECK(sunk_site && sunk_site->line == (unsigned)say_line &&
	      !strcmp(sunk_site->function, "say") &&
	      sunk_site->module && !strcmp(sunk_site->module, "dyndbg_output") &&
	      sunk_site->flags == (SK_DYNDBG_PRINT | SK_DYNDBG_MODULE | SK_DYNDBG_FUNC),
	      "my sink has the site's descriptor");
	CHECK(sk_static_call_update(sk_dyndbg_sink, sk_dyndbg_sink_stderr) == 0,
	      "sink back");
	CAPTURED(say(11));
	CHECK(!strcmp(out, "dyndbg_output:say: value 11\n"), "default again: \"%s\"", out);
}

static void refusal_message(void)
{
	CAPTURED(CHECK(sk_dyndbg_query("func say +q") == -EINVAL, "refused"));
	CHECK(strstr(out, "byte 10") && strstr(out, "\"+q\""),
	      "the warning names the word and its byte: \"%s\"", out);
}

static void catalogue(void)
{
	char *t = catalogue_text(), want[256];

	snprintf(want, sizeof(want), "%s:%d [dyndbg_output]say =pmf \"value %%d\\n\"\n",
		 __FILE__, say_line);
	CHECK(t && !strncmp(t, "# filename:lineno [module]function flags format\n",
			    48), "the catalogue's header");
	CHECK(t && strstr(t, want), "the kernel's format: \"%s\" in\n%s", want, t ? t : "");
	CHECK(t && strstr(t, "]bare =p \"no newline\"\n"), "bare's line");
	free(t);
}

int main(void)
{
	off_and_on();
	decorations();
	hexdump();
	sink();
	refusal_message();
	catalogue();
	return check_summary();
}
