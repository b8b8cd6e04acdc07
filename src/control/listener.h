/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/listener.h - the control socket's address and listening
 * socket (listener.c), for server.c: Unix datagram sockets, so apart from
 * control/control.h, which every OS builds.
 */
#ifndef SK_CONTROL_LISTENER_H
#define SK_CONTROL_LISTENER_H

#include <sys/socket.h>

struct sockaddr_un;

/* sk__sockaddr - @path as an address: a file path, or "@name" for a name in
 * the abstract namespace.  Return: 0, -EINVAL (empty), -ENAMETOOLONG. */
int sk__sockaddr(const char *path, struct sockaddr_un *addr, socklen_t *len);

/* sk__listener_open - a datagram socket (close-on-exec) bound at @path (a
 * file of mode 0600, replacing a stale one, or "@name").
 * Return: the descriptor, or a negative errno (-EADDRINUSE: live). */
int sk__listener_open(const char *path);

/* sk__listener_remove - remove @path's file (nothing for "@name"). */
void sk__listener_remove(const char *path);

#endif /* SK_CONTROL_LISTENER_H */
