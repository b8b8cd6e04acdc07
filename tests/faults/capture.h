/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/faults/capture.h - what the runtime printed on stderr during a call.
 *
 *	struct capture c;
 *	capture_begin(&c);
 *	r = sk_key_enable(&key);
 *	capture_end(&c);      // c.text holds the lines, NUL-terminated
 *
 * stderr is pointed at an anonymous file for the duration, then restored;
 * the captured text is also copied to the real stderr so logs stay complete.
 */
#ifndef SK_TESTS_FAULTS_CAPTURE_H
#define SK_TESTS_FAULTS_CAPTURE_H

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

struct capture {
	int saved_fd, file_fd;
	char text[4096];
};

static inline void capture_begin(struct capture *c)
{
	fflush(stderr);
	c->text[0] = '\0';
	c->saved_fd = dup(2);
	c->file_fd = memfd_create("captured-stderr", 0);
	dup2(c->file_fd, 2);
}

static inline void capture_end(struct capture *c)
{
	fflush(stderr);
	dup2(c->saved_fd, 2);
	close(c->saved_fd);
	ssize_t n = pread(c->file_fd, c->text, sizeof(c->text) - 1, 0);
	c->text[n > 0 ? n : 0] = '\0';
	close(c->file_fd);
	fputs(c->text, stderr);
}

#endif /* SK_TESTS_FAULTS_CAPTURE_H */
