/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/dyndbg/kernel_api.c - dynamic debug in the kernel's spellings
 * (statickeys/linux.h), written as a driver is: pr_fmt defined before the
 * include, pr_debug() and print_hex_dump_debug(), and the pattern of
 * net_dbg_ratelimited(): DEFINE_DYNAMIC_DEBUG_METADATA, then
 * DYNAMIC_DEBUG_BRANCH() and a condition of the driver's own before
 * __dynamic_pr_debug().  Checks what each prints once enabled through
 * sk_dyndbg_query(): the pr_fmt prefix and its added argument, the bare
 * format in the catalogue and in `format` queries, every prefix type, row
 * size, group size and the ASCII column of the kernel's print_hex_dump().
 */
#define KBUILD_MODNAME "mydrv"
#define pr_fmt(fmt) KBUILD_MODNAME ": %s: " fmt, __func__

#include <statickeys/linux.h>

#include <stdint.h>

#include "../check.h"
#include "capture.h"
#include "catalogue.h"

static int evaluated, ratelimit_calls, ratelimit_ok = 1;

static int counted(int v)
{
	evaluated++;
	return v;
}

static void queue_work(int q) { pr_debug("queue %d busy\n", counted(q)); }
static void no_args(void) { pr_debug("idle\n"); }
static void many_args(void)
{
	pr_debug("%d %d %d %d %d %d %d %d %d %d\n", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
}
static void dynamic(int v) { dynamic_pr_debug("dynamic %d\n", v); }

/* The driver's own condition, as net_ratelimit() in the kernel: counted,
 * to show it is not even called while the statement is off. */
static int net_ratelimit(void)
{
	ratelimit_calls++;
	return ratelimit_ok;
}

/* include/linux/net.h's net_dbg_ratelimited(), written out. */
#define my_dbg_ratelimited(fmt, v)                                           \
	do {                                                                 \
		DEFINE_DYNAMIC_DEBUG_METADATA(descriptor, fmt);              \
		if (DYNAMIC_DEBUG_BRANCH(descriptor) && net_ratelimit())     \
			__dynamic_pr_debug(&descriptor, pr_fmt(fmt), v);     \
	} while (0)

static void rx_drop(int len) { my_dbg_ratelimited("dropped %d bytes\n", len); }

static void dump(const char *prefix_str, int type, int rowsize, int groupsize,
		 const void *buf, size_t len, bool ascii)
{
	print_hex_dump_debug(prefix_str, type, rowsize, groupsize, buf, len,
			     ascii);
}
static void dump_bytes(const void *buf, size_t len)
{
	print_hex_dump_bytes("b: ", DUMP_PREFIX_NONE, buf, len);
}

static void runtime_prefix(int n, const void *buf)
{
	char prefix[16];

	snprintf(prefix, sizeof(prefix), "rt%d: ", n);
	print_hex_dump_debug(prefix, DUMP_PREFIX_NONE, 16, 1, buf, 1, false);
}

static char out[8192];

#define CAPTURED(code)                                                       \
	do {                                                                 \
		struct capture c_;                                           \
		capture_begin(&c_);                                          \
		code;                                                        \
		capture_end(&c_, out, sizeof(out));                          \
	} while (0)

static void pr_debug_with_pr_fmt(void)
{
	CAPTURED(queue_work(1));
	CHECK(out[0] == '\0' && evaluated == 0,
	      "off: nothing printed (\"%s\"), no argument evaluated (%d)", out,
	      evaluated);
	CHECK(sk_dyndbg_query("func queue_work +p") == 1, "func queue_work matched");
	CAPTURED(queue_work(3));
	CHECK(!strcmp(out, "mydrv: queue_work: queue 3 busy\n"),
	      "pr_fmt's prefix and its __func__: \"%s\"", out);
	CHECK(evaluated == 1, "the argument evaluated once (%d)", evaluated);

	sk_dyndbg_query("func no_args +p; func many_args +p; func dynamic +p");
	CAPTURED(no_args());
	CHECK(!strcmp(out, "mydrv: no_args: idle\n"), "no arguments: \"%s\"", out);
	CAPTURED(many_args());
	CHECK(!strcmp(out, "mydrv: many_args: 1 2 3 4 5 6 7 8 9 10\n"),
	      "ten arguments: \"%s\"", out);
	CAPTURED(dynamic(5));
	CHECK(!strcmp(out, "mydrv: dynamic: dynamic 5\n"),
	      "dynamic_pr_debug: \"%s\"", out);
}

/* The descriptor's format is the bare fmt, as in the kernel: the catalogue
 * shows it and `format` matches it, not the prefix. */
static void bare_format_in_catalogue(void)
{
	char *t = catalogue_text();

	CHECK(t && strstr(t, "]queue_work =p \"queue %d busy\\n\"\n"),
	      "the catalogue shows the bare format:\n%s", t ? t : "");
	free(t);
	CHECK(sk_dyndbg_query("format \"queue %d busy\" -p") == 1,
	      "format matches the bare format");
	CHECK(sk_dyndbg_query("format mydrv -p") == 0,
	      "format does not match pr_fmt's prefix");
	CAPTURED(queue_work(4));
	CHECK(out[0] == '\0', "off again: \"%s\"", out);
}

static void metadata_and_branch(void)
{
	char flags[16];

	CAPTURED(rx_drop(60));
	CHECK(out[0] == '\0' && ratelimit_calls == 0,
	      "off: nothing printed (\"%s\"), the driver's condition not run (%d)",
	      out, ratelimit_calls);
	CHECK(sk_dyndbg_query("format dropped +pl") == 1, "the descriptor matched");
	CHECK(!strcmp(flags_of("rx_drop", flags), "pl"),
	      "DEFINE_DYNAMIC_DEBUG_METADATA's descriptor is in the catalogue: %s",
	      flags);
	CAPTURED(rx_drop(61));
	CHECK(strstr(out, ": mydrv: rx_drop: dropped 61 bytes\n") &&
	      out[0] >= '1' && out[0] <= '9',
	      "DYNAMIC_DEBUG_BRANCH true, __dynamic_pr_debug printed with the line: \"%s\"",
	      out);
	CHECK(ratelimit_calls == 1, "the driver's condition ran once (%d)",
	      ratelimit_calls);
	ratelimit_ok = 0;
	CAPTURED(rx_drop(62));
	CHECK(out[0] == '\0', "the driver's condition false: \"%s\"", out);
	sk_dyndbg_query("func rx_drop =_");
	CAPTURED(rx_drop(63));
	CHECK(out[0] == '\0' && ratelimit_calls == 2, "off again: \"%s\", %d", out,
	      ratelimit_calls);
}

static void hex_dumps(void)
{
	unsigned char b[20];
	char want[512];
	uint32_t w;

	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)(0x41 + i);
	b[3] = 0;
	CAPTURED(dump("pkt: ", DUMP_PREFIX_OFFSET, 16, 1, b, sizeof(b), true));
	CHECK(out[0] == '\0', "an off dump printed \"%s\"", out);
	CHECK(sk_dyndbg_query("func dump +p; func dump_bytes +p") == 2,
	      "both dumps matched");

	CAPTURED(dump("pkt: ", DUMP_PREFIX_OFFSET, 16, 1, b, sizeof(b), true));
	CHECK(!strcmp(out,
		"pkt: 00000000: 41 42 43 00 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50  ABC.EFGHIJKLMNOP\n"
		"pkt: 00000010: 51 52 53 54                                      QRST\n"),
	      "offset, 16 a row, 1 a group, ASCII: \"%s\"", out);

	CAPTURED(dump("", DUMP_PREFIX_NONE, 32, 1, b, sizeof(b), false));
	CHECK(!strcmp(out, "41 42 43 00 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50 51 52 53 54\n"),
	      "no prefix, 32 a row, no ASCII: \"%s\"", out);

	/* Groups are numbers in the machine's byte order (get_unaligned). */
	memcpy(&w, b, 4);
	CAPTURED(dump("w ", DUMP_PREFIX_NONE, 16, 4, b, 8, true));
	snprintf(want, sizeof(want), "w %08x ", (unsigned)w);
	CHECK(!strncmp(out, want, strlen(want)) &&
	      strstr(out, "  ABC.EFGH\n") &&
	      strlen(out) == strlen("w ") + 16 * 2 + 16 / 4 + 1 + 8 + 1,
	      "4 a group, the ASCII column at 16*2+16/4+1: \"%s\" (first \"%s\")",
	      out, want);
	CAPTURED(dump("", DUMP_PREFIX_NONE, 16, 4, b, 6, false));
	CHECK(!strcmp(out, "41 42 43 00 45 46\n"),
	      "a row that is no multiple of the group: a byte a group: \"%s\"", out);
	CAPTURED(dump("", DUMP_PREFIX_NONE, 16, 3, b, 3, false));
	CHECK(!strcmp(out, "41 42 43\n"), "group size 3 is 1: \"%s\"", out);
	CAPTURED(dump("", DUMP_PREFIX_NONE, 7, 1, b, 17, false));
	CHECK(!strcmp(out, "41 42 43 00 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50\n51\n"),
	      "row size 7 is 16: \"%s\"", out);

	CAPTURED(dump("a: ", DUMP_PREFIX_ADDRESS, 16, 1, b, 2, false));
	snprintf(want, sizeof(want), "a: %0*lx: 41 42\n",
		 (int)(2 * sizeof(void *)), (unsigned long)(uintptr_t)b);
	CHECK(!strcmp(out, want), "address: \"%s\", not \"%s\"", out, want);

	CAPTURED(dump_bytes(b, 4));
	CHECK(!strcmp(out, "b: 41 42 43 00                                      ABC.\n"),
	      "print_hex_dump_bytes: \"%s\"", out);

	/* A prefix the compiler cannot know: printed; the format "hexdump". */
	CAPTURED(runtime_prefix(7, b));
	CHECK(out[0] == '\0', "off: \"%s\"", out);
	CHECK(sk_dyndbg_query("func runtime_prefix format hexdump +p") == 1,
	      "a run-time prefix's format is \"hexdump\"");
	CAPTURED(runtime_prefix(7, b));
	CHECK(!strcmp(out, "rt7: 41\n"), "the run-time prefix printed: \"%s\"", out);
}

int main(void)
{
	pr_debug_with_pr_fmt();
	bare_format_in_catalogue();
	metadata_and_branch();
	hex_dumps();
	return check_summary();
}
