/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * client.h - a raw control-socket client for the tests: a datagram socket
 * with an address of its own, connected to the server; one request per
 * datagram, one reply line in one or more datagrams (the last ends with a
 * newline).  Reads give up after 30 s so a broken server fails the test
 * instead of hanging it (a deadline, not a measurement).
 */
#ifndef SK_TESTS_CONTROL_CLIENT_H
#define SK_TESTS_CONTROL_CLIENT_H

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* @path: a file, or "@name" in the abstract namespace. */
static inline int client_connect(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	socklen_t len = sizeof(a);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(sa_family_t))) {
		close(fd);
		return -1;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (path[0] == '@') {
		a.sun_path[0] = '\0';
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				  strlen(path));
	}
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, len) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* @n bytes as one datagram: one request (or several lines of them). */
static inline int client_send(int fd, const void *buf, size_t n)
{
	return send(fd, buf, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

/* One reply line (newline stripped) into a malloc'd string, or NULL when
 * nothing came for 30 s. */
static inline char *client_line(int fd)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = (char *)malloc(cap);

	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, 30000) <= 0)
			break;
		if (cap - n < (1 << 16))
			buf = (char *)realloc(buf, cap *= 2);
		ssize_t r = recv(fd, buf + n, cap - n - 1, 0);
		if (r <= 0)
			break;
		n += (size_t)r;
		if (buf[n - 1] == '\n') {
			buf[n - 1] = '\0';
			return buf;
		}
	}
	free(buf);
	return NULL;
}

/* Send @req (a full line) and return its reply line. */
static inline char *client_ask(int fd, const char *req)
{
	if (client_send(fd, req, strlen(req)) != 0)
		return NULL;
	return client_line(fd);
}

static inline int reply_ok(const char *line)
{
	return line && strncmp(line, "{\"ok\":true", 10) == 0;
}

static inline int reply_error(const char *line)
{
	return line && strncmp(line, "{\"ok\":false", 11) == 0;
}

#endif /* SK_TESTS_CONTROL_CLIENT_H */
