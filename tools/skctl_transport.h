/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skctl_transport.h - talking to a program's control socket
 * (skctl_transport.c): finding it, one request out and its reply back;
 * and skctl's exit codes, which say how that went.
 */
#ifndef SKCTL_TRANSPORT_H
#define SKCTL_TRANSPORT_H

#include "skctl_json.h"

/* Exit codes, also listed in skctl(1). */
enum {
	SKCTL_OK = 0,
	SKCTL_REFUSED = 1,     /* the process refused the request */
	SKCTL_USAGE = 2,       /* bad command line */
	SKCTL_UNREACHABLE = 3, /* no socket, or the connection was refused */
	SKCTL_PROTOCOL = 4,    /* the reply was not understood */
	SKCTL_EXITING = 5,     /* the program is exiting */
	SKCTL_SOME = 6,        /* --all: some processes failed, some did not */
	SKCTL_NONE = 7,        /* --all: every process failed */
	SKCTL_TIMEOUT = 8,     /* no reply within --timeout */
	SKCTL_GONE = 9,        /* the process exited before it answered */
};

/* --timeout's default: a request waits at most this long for its reply. */
#define SKCTL_DEFAULT_TIMEOUT_MS 5000

/* skctl_who - "skctl", or "skctl: pid N (COMM)" while --all talks to N. */
extern const char *skctl_who;
/* skctl_timeout_ms - how long a request waits for its reply (--timeout), in ms. */
extern int skctl_timeout_ms;
/* skctl_server_pid - the pid that sent the last reply (the kernel's word), or 0. */
extern int skctl_server_pid;
/* find_socket - the socket of process @pid (the rule the library uses). */
int find_socket(const char *pid, char *out, size_t len);
/* connect_to - a datagram socket connected to @path, or -errno. */
int connect_to(const char *path);
/* transact - send @request, read and parse its reply.  Return an exit code;
 * *@out is the parsed reply when it is 0 or SKCTL_REFUSED, *@raw its text.
 * Errors go to stderr, prefixed with skctl_who. */
int transact(int fd, const char *request, struct json **out, char **raw);
/* watch_target - from now on, until watch_target() is called again, the
 * requests are for process @pid: a wait for a reply ends as soon as it
 * has exited (transact() then says so and returns SKCTL_GONE), not at
 * --timeout.  @pid 0: no process known (-s SOCKET); waits are bounded by
 * --timeout alone.  Return: 0, or -ESRCH if there is no process @pid
 * (nothing is watched then). */
int watch_target(long pid);
/* target_gone - the watched process has exited: say so on stderr, as
 * transact() would, and return true; false (silent) otherwise, or if
 * nothing is watched. */
bool target_gone(void);
/* build_request - "VERB ARG...\n", or NULL if an argument is not a key name
 * ("debug": its words are a query, blanks and all). */
char *build_request(const char *verb, char **args, int nargs);

#endif /* SKCTL_TRANSPORT_H */
