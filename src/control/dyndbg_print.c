/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/dyndbg_print.c - what an enabled debug statement prints.
 *
 * The message is formatted once, on the stack (no heap, no stdio lock: a
 * statement may run in a signal handler's interrupted thread), and handed
 * to the static call sk_dyndbg_sink, exported so that a program or a
 * plugin re-points it with one sk_static_call_update().  The default sink
 * adds the decorations in the kernel's order (lib/dynamic_debug.c's
 * prefix: "[tid] module:function:file:line: ") and writes the line with one
 * write(2), so that two threads' lines never interleave.  A hex dump is
 * one message per row, laid out as the kernel's print_hex_dump()
 * (sk_print_hex_dump_debug: DUMP_PREFIX_OFFSET, 16 bytes a row, 1 a group,
 * ASCII; statickeys/linux.h's print_hex_dump_debug: all its arguments).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "control/dyndbg.h"
#include "os/os.h"
#include "support/message.h"

#define MSG_MAX 1024

/*
 * The sink: SK_DEFINE_STATIC_CALL's descriptor and trampoline, without its
 * constructor.  Registering a static call rewrites its trampoline, an
 * update, and the library must not patch anything of its own as it loads
 * (a program that never enables a statement never pays for one); until
 * registered, the trampoline jumps through the descriptor's slot, and the
 * first sk_static_call_update() of the sink registers it (core/
 * static_call.c's find_or_add), as for any static call the runtime has
 * not yet seen.
 */
SK__SC_DECLARE_FN(sk_dyndbg_sink, __typeof__(sk_dyndbg_sink_stderr));
__attribute__((SK__SC_KEY_ATTR)) struct sk_static_call_key
	SK__SC_DESC(sk_dyndbg_sink) = {
	SK__FN_PTR(sk_dyndbg_sink_stderr), SK__FN_PTR(sk_dyndbg_sink_stderr),
	"sk_dyndbg_sink", SK__SC_TRAMP_ADDR(sk_dyndbg_sink),
	SK__STATIC_CALL_MAGIC, 0, SK__FN_PTR(sk_dyndbg_sink_stderr)
};
SK__SC_DEFINE_TRAMP(sk_dyndbg_sink);
SK_EXPORT_STATIC_CALL(sk_dyndbg_sink);
#ifdef _WIN32
/* The DLL exports its SK_API functions alone (dllexport): the sink's
 * descriptor and trampoline, which a program names through
 * SK_DECLARE_STATIC_CALL, are exported by the linker's directive section
 * (mingw-w64's ld reads -export: there); tests/windows/dyndbg.c
 * re-points it. */
__asm__(".section .drectve\n\t"
	".ascii \" -export:sk__scd_sk_dyndbg_sink,data\"\n\t"
	".ascii \" -export:sk__sct_sk_dyndbg_sink\"\n\t"
	".text");
#endif

/* Append at *@n in @buf (of @size), clamping as snprintf cuts. */
static void add(char *buf, size_t size, size_t *n, const char *fmt, ...)
	__attribute__((format(SK__PRINTF, 4, 5)));
static void add(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
	va_list ap;

	if (*n >= size)
		return;
	va_start(ap, fmt);
	int r = vsnprintf(buf + *n, size - *n, fmt, ap);
	va_end(ap);
	if (r > 0)
		*n = *n + (size_t)r < size ? *n + (size_t)r : size - 1;
}

static const char *source_name(const char *file)
{
	const char *slash = strrchr(file, '/');
	return slash ? slash + 1 : file;
}

SK_API void sk_dyndbg_sink_stderr(const struct sk_dyndbg_site *site,
				  const char *msg, size_t len)
{
	char line[MSG_MAX + 256];
	unsigned flags = __atomic_load_n(&site->flags, __ATOMIC_RELAXED);
	const char *module = __atomic_load_n(&site->module, __ATOMIC_ACQUIRE);
	size_t n = 0, before;

	if (flags & SK_DYNDBG_TID)
		add(line, sizeof(line), &n, "[%" PRIu32 "] ",
		    sk__os_thread_id());
	before = n;
	if (flags & SK_DYNDBG_MODULE)
		add(line, sizeof(line), &n, "%s:", module ? module : "?");
	if (flags & SK_DYNDBG_FUNC)
		add(line, sizeof(line), &n, "%s:", site->function);
	if (flags & SK_DYNDBG_SOURCE)
		add(line, sizeof(line), &n, "%s:", source_name(site->file));
	if (flags & SK_DYNDBG_LINE)
		add(line, sizeof(line), &n, "%u:", site->line);
	if (n != before)
		add(line, sizeof(line), &n, " ");
	if (len > sizeof(line) - 1 - n)
		len = sizeof(line) - 1 - n;
	memcpy(line + n, msg, len);
	n += len;
	if (n == 0 || line[n - 1] != '\n')
		line[n++] = '\n';
	sk__write_stderr(line, n);
}

SK_API void sk__dyndbg_printf(struct sk_dyndbg_site *site, const char *fmt,
			      ...)
{
	char msg[MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	int r = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	size_t len = r < 0 ? 0 : (size_t)r < sizeof(msg) ? (size_t)r
							 : sizeof(msg) - 1;
	msg[len] = '\0';
	sk_static_call(sk_dyndbg_sink)(site, msg, len);
}

/* How a hex dump lays out its rows (the kernel's print_hex_dump()
 * arguments, checked as lib/hexdump.c checks them). */
struct hex_layout {
	const char *prefix;
	int prefix_type; /* 0 none, 1 address, 2 offset (DUMP_PREFIX_*) */
	size_t rowsize;  /* 16 or 32 */
	size_t groupsize; /* 1, 2, 4 or 8 */
	int ascii;
};

/* One group of @n bytes at @b as a number in the machine's byte order, as
 * the kernel reads it (get_unaligned). */
static uint64_t group_value(const unsigned char *b, size_t n)
{
	uint16_t v2;
	uint32_t v4;
	uint64_t v8;

	switch (n) {
	case 2: memcpy(&v2, b, 2); return v2;
	case 4: memcpy(&v4, b, 4); return v4;
	case 8: memcpy(&v8, b, 8); return v8;
	default: return b[0];
	}
}

/* One row of @n bytes at @b, @off bytes into the dump:
 * "PREFIX00000010: 41 42 ...  AB..", the ASCII column at
 * rowsize * 2 + rowsize / groupsize + 1 after the hex begins, as the
 * kernel's hex_dump_to_buffer() pads it.  A row whose length is not a
 * multiple of the group size is printed a byte a group, as there. */
static size_t hex_row(const struct hex_layout *h, const unsigned char *b,
		      size_t off, size_t n, char *out, size_t size)
{
	size_t group = n % h->groupsize ? 1 : h->groupsize;
	size_t len = 0;

	if (h->prefix_type == 1)
		add(out, size, &len, "%s%0*" PRIxPTR ": ", h->prefix,
		    (int)(2 * sizeof(void *)), (uintptr_t)b);
	else if (h->prefix_type == 2)
		add(out, size, &len, "%s%08zx: ", h->prefix, off);
	else
		add(out, size, &len, "%s", h->prefix);
	size_t hex_at = len;
	for (size_t k = 0; k < n; k += group)
		add(out, size, &len, "%s%0*" PRIx64, k ? " " : "",
		    (int)(2 * group), group_value(b + k, group));
	if (h->ascii) {
		size_t column = hex_at + h->rowsize * 2 + h->rowsize / group + 1;
		while (len < column && len + 1 < size)
			out[len++] = ' ';
		for (size_t k = 0; k < n && len + 1 < size; k++)
			out[len++] = b[k] >= 0x20 && b[k] < 0x7f ? (char)b[k]
								 : '.';
	}
	out[len] = '\0';
	return len;
}

/* Each row one message through the sink. */
static void hex_dump(struct sk_dyndbg_site *site, const struct hex_layout *h,
		     const unsigned char *b, size_t len)
{
	char row[MSG_MAX];

	for (size_t off = 0; off < len; off += h->rowsize) {
		size_t n = len - off < h->rowsize ? len - off : h->rowsize;
		size_t rl = hex_row(h, b + off, off, n, row, sizeof(row));
		sk_static_call(sk_dyndbg_sink)(site, row, rl);
	}
}

SK_API void sk__dyndbg_hexdump(struct sk_dyndbg_site *site, const void *buf,
			       size_t len)
{
	struct hex_layout h = { site->format ? site->format : "", 2, 16, 1, 1 };

	hex_dump(site, &h, buf, len);
}

/* The kernel's checks (lib/hexdump.c): a row is 16 or 32 bytes, a group
 * 1, 2, 4 or 8; anything else is the default, not an error. */
SK_API void sk__dyndbg_hex_dump(struct sk_dyndbg_site *site,
				const char *prefix_str, int prefix_type,
				int rowsize, int groupsize, const void *buf,
				size_t len, int ascii)
{
	struct hex_layout h = {
		prefix_str ? prefix_str : "", prefix_type,
		rowsize == 32 ? 32 : 16,
		groupsize == 2 || groupsize == 4 || groupsize == 8
			? (size_t)groupsize : 1,
		ascii
	};

	hex_dump(site, &h, buf, len);
}
