/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/dyndbg.h - dynamic debug: every debug statement its own key.
 *
 *	sk_pr_debug("queue %d: %zu items\n", q, n);   // one NOP while off
 *	sk_pr_debug_class("net", "sent %zu\n", len);  // only `class net` queries
 *	sk_print_hex_dump_debug("pkt: ", buf, len);   // 16 bytes a row
 *
 *	sk_dyndbg_query("file queue.c +p");           // the kernel's language
 *
 * As the kernel's CONFIG_DYNAMIC_DEBUG (Documentation/admin-guide/
 * dynamic-debug-howto.rst): each statement is a call site with a descriptor
 * recorded at build time (file, function, line, format, class, flags) and a
 * static key of its own, off by default, so a statement that is off costs
 * the one no-op of a key site and does not evaluate its arguments.  The
 * descriptor lives in the object's writable data beside its key; its key is
 * listed in the object's "sk_keys" section like any key, so the runtime
 * finds the statements of the program, its libraries and each dlopen'ed
 * plugin as they register, and forgets them as they unload: no heap per
 * statement.  The kernel's "module" is the object's file name without
 * folders and extension (libfoo.so.1: libfoo), set by the runtime.
 *
 * An enabled statement formats its message once, on the stack, and hands
 * it to the static call sk_dyndbg_sink, whose default writes one line to
 * stderr with one write(2).  Re-point it with one
 *	sk_static_call_update(sk_dyndbg_sink, my_sink);
 * See docs/dynamic-debug.md.
 */
#ifndef STATICKEYS_DYNDBG_H
#define STATICKEYS_DYNDBG_H

#include <stddef.h>
#include <stdio.h> /* mingw-w64 defines __MINGW_PRINTF_FORMAT there */

#include "statickeys/branch.h"
#include "statickeys/export.h"
#include "statickeys/key.h"
#include "statickeys/static_call.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The flags of a statement, as the kernel names them (catalogue order). */
#define SK_DYNDBG_PRINT 0x01u  /* p: print (the key is on) */
#define SK_DYNDBG_MODULE 0x02u /* m: prefix the module */
#define SK_DYNDBG_FUNC 0x04u   /* f: prefix the function */
#define SK_DYNDBG_SOURCE 0x08u /* s: prefix the source file */
#define SK_DYNDBG_LINE 0x10u   /* l: prefix the line */
#define SK_DYNDBG_TID 0x20u    /* t: prefix the thread id */

/* Written into every descriptor: with the key's description, it tells the
 * runtime that a listed key is a debug statement's. */
#define SK__DYNDBG_MAGIC 0x646462u
#define SK__DYNDBG_DESC "a debug statement (sk_pr_debug)"

/**
 * struct sk_dyndbg_site - one debug statement's descriptor (the kernel's
 * struct _ddebug).  Defined by the sk_pr_debug() macros; treat as read-only.
 * @key:      its static key, off by default; the first member.
 * @magic:    SK__DYNDBG_MAGIC.
 * @file:     __FILE__ as the compiler spelled it.
 * @function: __func__.
 * @format:   the format string (for a hex dump: its prefix).
 * @cls:      the class name, or NULL (matched only by `class` queries).
 * @module:   the object's name, set by the runtime as the object registers.
 * @line:     __LINE__.
 * @flags:    SK_DYNDBG_* (accessed atomically; changed by queries only).
 */
struct sk_dyndbg_site {
	struct sk_key_false key;
	unsigned int magic;
	unsigned int line;
	const char *file;
	const char *function;
	const char *format;
	const char *cls;
	const char *module;
	unsigned int flags;
};

/**
 * sk_dyndbg_query() - apply a query, as a write to the kernel's
 * /proc/dynamic_debug/control: "[file F] [func F] [line N[-M]] [module M]
 * [format F] [class C] (+|-|=)FLAGS", several separated by ';' or newlines.
 * @query: the text.
 *
 * Each query is one commit of all the keys it changes (one batch).
 * Return: how many statements the queries matched (0 is no error), or
 * -EINVAL when any part does not parse (a warning names the word and its
 * position; nothing has changed), or an error of sk_commit().
 */
SK_API int sk_dyndbg_query(const char *query);

/**
 * sk_dyndbg_catalogue() - every statement in the kernel's control-file
 * format, "file:line [module]function =flags \"format\"", one a line, after
 * a "# filename:lineno [module]function flags format" header.
 * @buf: where to write, or NULL; @size: its size.
 *
 * Return: the length the whole text has (as snprintf: the text is cut
 * when it is @size or more), or a negative errno.
 */
SK_API long sk_dyndbg_catalogue(char *buf, size_t size);

/**
 * sk_dyndbg_sink_stderr() - the default sink: the decorations the site's
 * flags ask for, in the kernel's order ("[tid] module:function:file:line: "),
 * then @msg, a newline added if it has none, written to stderr with one
 * write(2) so that a line never interleaves with another.
 */
SK_API void sk_dyndbg_sink_stderr(const struct sk_dyndbg_site *site,
				  const char *msg, size_t len);

/* sk_dyndbg_sink - the static call every enabled statement's message goes
 * through (@msg: the formatted message, @len bytes, NUL-terminated; its
 * site's flags say which decorations it wants). */
SK_DECLARE_STATIC_CALL(sk_dyndbg_sink, sk_dyndbg_sink_stderr);

/* The C library's printf formats (mingw-w64: the runtime's are C99's). */
#ifdef __MINGW_PRINTF_FORMAT
#define SK__DYNDBG_PRINTF __MINGW_PRINTF_FORMAT
#else
#define SK__DYNDBG_PRINTF printf
#endif

/* The enabled paths, out of line (the statement's cold code). */
SK_API void sk__dyndbg_printf(struct sk_dyndbg_site *site, const char *fmt,
			      ...)
	__attribute__((format(SK__DYNDBG_PRINTF, 2, 3), cold));
SK_API void sk__dyndbg_hexdump(struct sk_dyndbg_site *site, const void *buf,
			       size_t len) __attribute__((cold));
/* The kernel's print_hex_dump() (statickeys/linux.h's
 * print_hex_dump_debug): @prefix_type 0 none, 1 address, 2 offset (the
 * kernel's DUMP_PREFIX_*); @rowsize 16 or 32 (else 16); @groupsize 1, 2, 4
 * or 8 bytes a group, read in the machine's byte order (else, or when @len
 * is not a multiple of it, 1); @ascii: the ASCII column. */
SK_API void sk__dyndbg_hex_dump(struct sk_dyndbg_site *site,
				const char *prefix_str, int prefix_type,
				int rowsize, int groupsize, const void *buf,
				size_t len, int ascii) __attribute__((cold));

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
/*
 * C++: what the enabled path passes to printf's "..." must be what printf
 * reads.  g++ passes a class object (std::string_view, a trivially copyable
 * std::string-like view) through "..." with at most a -Wformat warning, and
 * printf then reads garbage, so a statement given an object of class or
 * union type does not compile, whatever the warnings: the arguments'
 * types are checked in an unevaluated sizeof (no code, nothing evaluated).
 */
template <typename... A> struct sk__dyndbg_printable {
	static const bool value = true;
};
template <typename A, typename... R> struct sk__dyndbg_printable<A, R...> {
	static const bool value = !__is_class(A) && !__is_union(A) &&
				  sk__dyndbg_printable<R...>::value;
};
template <typename... A> struct sk__dyndbg_checked {
	static_assert(sk__dyndbg_printable<A...>::value,
		      "sk_pr_debug: an argument is a class object (std::string, "
		      "std::string_view...), which printf's \"...\" cannot "
		      "take: pass s.c_str(), or \"%.*s\" with (int)v.size(), "
		      "v.data()");
	char c;
};
template <typename... A> sk__dyndbg_checked<A...> sk__dyndbg_args(const A &...);
#define SK__DYNDBG_CHECK_ARGS(...) (void)sizeof(::sk__dyndbg_args(__VA_ARGS__))
#else
#define SK__DYNDBG_CHECK_ARGS(...) ((void)0)
#endif
/* The enabled path's call: printf-checked, and in C++ type-checked. */
#define SK__DYNDBG_CALL(...)                                                 \
	(SK__DYNDBG_CHECK_ARGS(__VA_ARGS__), sk__dyndbg_printf(__VA_ARGS__))

/* The key's name, for `skctl list` and the audit trail: dyndbg:FILE:LINE. */
#define SK__DYNDBG_STR2(x) #x
#define SK__DYNDBG_STR(x) SK__DYNDBG_STR2(x)
#define SK__DYNDBG_INIT(cls, fmt)                                            \
	{ { SK__KEY_INIT(0, "dyndbg:" __FILE__ ":" SK__DYNDBG_STR(__LINE__),  \
			 SK__DYNDBG_DESC) },                                  \
	  SK__DYNDBG_MAGIC, __LINE__, __FILE__, __func__, (fmt), (cls), 0, 0 }

/* PE: the listing entry is kept by a reference from the enabled path (its
 * keeper of statickeys/section_pe.h is a function, which a block cannot
 * define); the path is cold and the reference costs nothing there. */
#ifdef _WIN32
#define SK__DYNDBG_KEEP(ref) __asm__ volatile("" : : "r"(&ref))
#else
#define SK__DYNDBG_KEEP(ref) ((void)0)
#endif

/* The key's listing entry @ref for the descriptor @site.  C++ on ELF: the
 * assembler's (statickeys/section.h's SK__CXX_LISTING), in the code's
 * section group: a static local of an inline function is in a COMDAT
 * group, and g++ refuses such an entry beside the file's plain ones ("section
 * type conflict"). */
#if defined(__cplusplus) && defined(SK__CXX_LISTING_ELF)
#define SK__DYNDBG_LISTING(site, ref) SK__CXX_LISTING(&(site).key.key)
#else
#define SK__DYNDBG_LISTING(site, ref)                                        \
	static struct sk_key *const ref __attribute__((                      \
		SK__KEYS_SECTION_ATTR)) = &(site).key.key
#endif

/* One statement: its descriptor, its key's listing, its site. */
#define SK__DYNDBG_SITE(cls, fmt, call)                                      \
	do {                                                                 \
		static struct sk_dyndbg_site sk__dd_site =                   \
			SK__DYNDBG_INIT(cls, fmt);                           \
		SK__DYNDBG_LISTING(sk__dd_site, sk__dd_ref);                 \
		if (sk_branch_unlikely(&sk__dd_site.key)) {                  \
			SK__DYNDBG_KEEP(sk__dd_ref);                         \
			call;                                                \
		}                                                            \
	} while (0)

/**
 * sk_pr_debug() - a debug statement: printf(@fmt, ...) when enabled.
 */
#define sk_pr_debug(...) sk_pr_debug_class(0, __VA_ARGS__)
/**
 * sk_pr_debug_class() - the same in class @cls (a string literal), which
 * only queries with `class CLS` match.
 */
#define sk_pr_debug_class(cls, ...)                                          \
	SK__DYNDBG_SITE(cls, SK__DYNDBG_FIRST(__VA_ARGS__, ""),              \
			SK__DYNDBG_CALL(&sk__dd_site, __VA_ARGS__))
/* The format: the first argument (the "" is never used: C99 needs one
 * argument in a "..."). */
#define SK__DYNDBG_FIRST(first, ...) first
/**
 * sk_print_hex_dump_debug() - a hex dump statement: @len bytes at @buf,
 * 16 a row as "@prefix00000000: 00 01 ... 0f  ................".
 */
#define sk_print_hex_dump_debug(prefix, buf, len)                            \
	SK__DYNDBG_SITE(0, prefix,                                           \
			sk__dyndbg_hexdump(&sk__dd_site, (buf), (len)))

#endif /* STATICKEYS_DYNDBG_H */
