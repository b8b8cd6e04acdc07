/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skctl.h - the parts of skctl: finding and talking to a process
 * (skctl.c), showing its replies to a person (skctl_print.c), every process
 * at once (skctl_all.c) and OpenMetrics text (skctl_openmetrics.c).
 */
#ifndef SKCTL_H
#define SKCTL_H

#include <stdbool.h>

#include "skctl_json.h"
/* The runtime's OS layer, linked in with the static library: the kernel's
 * word for who serves a socket (SO_PEERCRED, LOCAL_PEERCRED...). */
#include "os/os.h"

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
};

/* --timeout's default: a request waits at most this long for its reply. */
#define SKCTL_DEFAULT_TIMEOUT_MS 5000

struct options {
	const char *pid;
	const char *socket;
	bool json;
	bool all;         /* --all: every process of ours with a socket */
	const char *comm; /* --comm: only processes of this name */
	bool openmetrics; /* stats --openmetrics */
	double interval;
	long count;
};

/* skctl.c: "skctl", or "skctl: pid N (COMM)" while --all talks to N. */
extern const char *skctl_who;
/* skctl.c: how long a request waits for its reply (--timeout), in ms. */
extern int skctl_timeout_ms;
/* skctl.c: the pid that sent the last reply (the kernel's word), or 0. */
extern int skctl_server_pid;
/* skctl.c: the socket of process @pid (the rule the library uses). */
int find_socket(const char *pid, char *out, size_t len);
/* skctl.c: a datagram socket connected to @path, or -errno. */
int connect_to(const char *path);
/* skctl.c: send @request, read and parse its reply.  Return an exit code;
 * *@out is the parsed reply when it is 0 or SKCTL_REFUSED, *@raw its text.
 * Errors go to stderr, prefixed with skctl_who. */
int transact(int fd, const char *request, struct json **out, char **raw);
/* skctl.c: "VERB ARG...\n", or NULL if an argument is not a key name. */
char *build_request(const char *verb, char **args, int nargs);

/* skctl_all.c: the command name of @pid (/proc/PID/comm), with quotes,
 * backslashes and control bytes shown as '?'; "?" if unknown. */
void proc_comm(int pid, char *out, size_t len);
/* skctl_all.c: COMMAND for every process (skctl --all).  Exit code: 0 all
 * succeeded, SKCTL_SOME, SKCTL_NONE, or SKCTL_UNREACHABLE when there is no
 * process to talk to. */
int run_all(const struct options *o, const char *verb, char **args,
	    int nargs);

/* skctl_openmetrics.c: one process's metrics, as read from it. */
struct om_process {
	int pid;
	char comm[64];
	struct json *list, *stats;
};

/* om_fetch - ask the process on @fd for `list` and `stats` (its pid from
 * the credentials on its reply).  Return an exit code; on 0, free with om_free(). */
int om_fetch(int fd, struct om_process *p);
void om_free(struct om_process *p);
/* om_print - the OpenMetrics text of @n processes, "# EOF" included. */
void om_print(const struct om_process *v, size_t n);
/* run_openmetrics - `stats --openmetrics` for the process on @fd.
 * Return an exit code. */
int run_openmetrics(int fd);

void print_list(const struct json *reply);
void print_key(const struct json *key);
void print_changed(const struct json *reply);
void print_stats(const struct json *reply);
void print_log(const struct json *reply);
/* print_unmatched - `skctl unmatched`: "FILE:LINE: NAME" per line of the
 * program's STATICKEYS_FILE that names no key, or why there is none. */
void print_unmatched(const struct json *reply);
/* print_watch - one screen of `skctl watch`: key states and what changed
 * since @prev_stats (NULL on the first one). */
void print_watch(const struct json *list, const struct json *stats,
		 const struct json *prev_stats, int round);

#endif /* SKCTL_H */
