/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/control.h - the control socket: see and flip keys from outside.
 *
 *	sk_control_start(NULL);        // or run with STATICKEYS_CONTROL=1
 *	$ skctl -p PID list
 *	$ skctl -p PID set tracing=1 fast_path=0
 *
 * The server is opt-in.  It is one thread serving a Unix datagram socket,
 * by default "@statickeys-PID" in Linux's abstract namespace (no file: the
 * name goes with the process, however it ends).  A client binds an address
 * of its own, sends each request as one datagram and reads the reply from
 * datagrams sent to that address: the program holds no descriptor per
 * client.  Every datagram carries its sender's credentials from the kernel
 * (SCM_CREDENTIALS): any uid other than the process's own and root's is
 * refused.  Requests are lines of text, replies are one line of JSON each
 * (a long reply in several datagrams, the last ending with the newline):
 *
 *	list                      every key: name, state, count, sites ...
 *	get NAME                  one key
 *	enable NAME...            one commit turning the keys on
 *	disable NAME...           one commit turning the keys off
 *	set NAME=VALUE...         one commit, each key to its state (VALUE:
 *	                          0/1, off/on, false/true, no/yes)
 *	stats                     counters and histograms
 *	help                      the requests above
 *
 * The server never holds the patch lock while it reads or writes the
 * socket, answers one request at a time (SK_CONTROL_MAX_CLIENTS), bounds
 * each request to SK_CONTROL_MAX_REQUEST bytes (one datagram) and waits at
 * most a second for a client that does not read its reply.  It holds one
 * descriptor, the socket, from start to stop.  After fork() the child serves its
 * own pid's default address if the parent served its own; a server started
 * at a given path stays with the parent.  While the program exits, every
 * request is answered with errno ESHUTDOWN ("exiting").
 */
#ifndef STATICKEYS_CONTROL_H
#define STATICKEYS_CONTROL_H

#include <stddef.h>
#include <sys/types.h>

#include "statickeys/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_CONTROL_MAX_CLIENTS 1
#define SK_CONTROL_MAX_REQUEST 4096
#define SK_CONTROL_IDLE_SECONDS 30 /* kept for source compatibility: a
					 * datagram server has no idle clients */

/**
 * sk_control_start() - start serving the control socket.
 * @path: where to create the socket (a file of mode 0600), "@name" for a
 *        name in the abstract namespace, or NULL for the default address
 *        (sk_control_default_path() with this process's pid).  A stale
 *        socket file left at @path is replaced; a live one is not.
 *
 * Return: 0; -EALREADY if the server runs; -EADDRINUSE if another process
 * serves @path; -ENAMETOOLONG; other errors from socket(2), bind(2),
 * pthread_create(3).
 */
SK_API int sk_control_start(const char *path);

/**
 * sk_control_stop() - stop the server, remove its socket file if it has
 * one.  Return: 0, or -ESRCH if it was not running.
 */
SK_API int sk_control_stop(void);

/**
 * sk_control_socket_path() - copy the path being served into @buf.
 * Return: 0, -ESRCH if the server is not running, -ENAMETOOLONG.
 */
SK_API int sk_control_socket_path(char *buf, size_t len);

/**
 * sk_control_default_path() - the default socket address of process @pid:
 * "@statickeys-PID", a name in the abstract namespace ('@' stands for the
 * leading NUL byte of sun_path; the name has no trailing NUL).  On an OS
 * without that namespace (FreeBSD, macOS): the socket file
 * "<runtime_dir>/statickeys-PID.sock", /tmp when @runtime_dir is NULL.
 * @runtime_dir: ignored on Linux (the address needs no directory).
 * Return: 0 or -ENAMETOOLONG.
 */
SK_API int sk_control_default_path(pid_t pid, const char *runtime_dir,
				   char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* STATICKEYS_CONTROL_H */
