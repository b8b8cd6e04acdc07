/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/support/message.h - messages a person reads: one warning line on
 * stderr (sk__warn) and the name of an error code (message.c).
 *
 * The support layer (src/support/) is what every layer of the runtime uses
 * and that is no OS's: settings, messages, statistics, the update path's
 * memory, the tests' fault injection.  It sits below os/ and calls no other
 * layer (but for the two OS primitives that settings.h and mem.h name).
 */
#ifndef SK_SUPPORT_MESSAGE_H
#define SK_SUPPORT_MESSAGE_H

#include <stdio.h> /* mingw-w64 defines __MINGW_PRINTF_FORMAT there */

/* The C library's printf formats, for format attributes: C99's (%zu...).
 * mingw-w64's "printf" is Microsoft's; the runtime is built there with
 * __USE_MINGW_ANSI_STDIO, whose functions take C99's, which it names. */
#ifdef __MINGW_PRINTF_FORMAT
#define SK__PRINTF __MINGW_PRINTF_FORMAT
#else
#define SK__PRINTF printf
#endif

/* sk__strerror - strerror(@err), also for the POSIX codes a C library does
 * not name (mingw-w64's msvcrt: "Unknown error" for ENOTSUP). */
const char *sk__strerror(int err);

/* sk__warn - one line on stderr, prefixed "statickeys: ". */
void sk__warn(const char *fmt, ...) __attribute__((format(SK__PRINTF, 1, 2)));


/* sk__warn - one line on stderr, prefixed "statickeys: ". */
void sk__warn(const char *fmt, ...) __attribute__((format(SK__PRINTF, 1, 2)));

/* sk__write_stderr - @len bytes to stderr with one write(2) (a line that
 * must not interleave with another thread's: dynamic debug's output). */
void sk__write_stderr(const char *buf, size_t len);

#endif /* SK_SUPPORT_MESSAGE_H */
