/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/support/message.c - messages a person reads: one warning line on
 * stderr, and the name of an error code.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "support/message.h"

const char *sk__strerror(int err)
{
	/* Microsoft's C library names the codes up to 42 only. */
	if (err == ENOTSUP)
		return "Operation not supported";
	return strerror(err);
}

void sk__write_stderr(const char *buf, size_t len)
{
	ssize_t w = write(STDERR_FILENO, buf, len);
	(void)w;
}

void sk__warn(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	/* Formatted on the stack and written with one write(): no stdio lock,
	 * which a signal handler's interrupted code may hold (an update may
	 * run in a handler: core/lock.c), and one line stays one line when
	 * threads or processes write at once. */
	static const char prefix[] = "statickeys: ";
	memcpy(line, prefix, sizeof(prefix) - 1);
	va_start(ap, fmt);
	int n = vsnprintf(line + sizeof(prefix) - 1,
			  sizeof(line) - sizeof(prefix), fmt, ap);
	va_end(ap);
	size_t len = sizeof(prefix) - 1 +
		     (n < 0 ? 0 : (size_t)n < sizeof(line) - sizeof(prefix)
				      ? (size_t)n
				      : sizeof(line) - sizeof(prefix) - 1);
	line[len++] = '\n';
	ssize_t w = write(STDERR_FILENO, line, len);
	(void)w;
}
