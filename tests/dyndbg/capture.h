/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/dyndbg/capture.h - what a piece of code writes to stderr: fd 2 is
 * pointed at a pipe while it runs (the default sink writes there with one
 * write(2)), then put back.  For output smaller than the pipe's buffer.
 */
#ifndef SK_TESTS_DYNDBG_CAPTURE_H
#define SK_TESTS_DYNDBG_CAPTURE_H

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

struct capture {
	int pipe[2];
	int saved;
};

static inline void capture_begin(struct capture *c)
{
	if (pipe(c->pipe) != 0)
		abort();
	fcntl(c->pipe[0], F_SETFL, O_NONBLOCK);
	c->saved = dup(2);
	dup2(c->pipe[1], 2);
}

/* Stop capturing; what was written, NUL-terminated, in @out. */
static inline size_t capture_end(struct capture *c, char *out, size_t size)
{
	size_t n = 0;
	ssize_t r;

	dup2(c->saved, 2);
	close(c->saved);
	close(c->pipe[1]);
	while (n + 1 < size && (r = read(c->pipe[0], out + n, size - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(c->pipe[0]);
	return n;
}

#endif
