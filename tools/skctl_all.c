/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skctl_all.c - `skctl --all COMMAND`: the command for every process of
 * the caller's user that serves a control socket, as kill(1) would reach
 * them: another user's processes are never looked at, root's choice is its
 * own (root sees every process).  `--comm NAME` keeps the processes whose
 * command name (the OS's: proc_comm) is NAME.
 *
 * Each process gets its own socket and at most --timeout (5 s by default)
 * for its reply; one that hangs or refuses is reported on its line and the
 * others go on.  One that exits before it answers is reported "gone" as
 * soon as it has exited (skctl_transport.c, watch_target), not at
 * --timeout: a fleet whose processes come and go (database backends)
 * would otherwise cost --timeout per exit.  The exit status counts the
 * processes: 0 when every one did it, SKCTL_SOME when some did,
 * SKCTL_NONE when none did; a process gone did not do it, as one killed
 * mid-way never did.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <statickeys/control.h>

#include "skctl_all.h"
#include "skctl_openmetrics.h"
#include "skctl_print.h"
#include "skctl_transport.h"

struct proc {
	int pid;
	char comm[64];
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* The pids whose default server (the abstract name "@statickeys-PID") is
 * bound, from /proc/net/unix (a datagram socket of that name), sorted.  An abstract name has no file to look for. */
struct pid_set {
	int *v;
	size_t n;
};

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static struct pid_set bound_default_servers(void)
{
	struct pid_set s = { NULL, 0 };
	size_t cap = 0;
	char line[512];
	FILE *f = fopen("/proc/net/unix", "re");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned type;
		char path[256];
		int pid, end = 0;
		/* A bound datagram socket (type 2) by the server's name. */
		if (sscanf(line, "%*s %*s %*s %*s %x %*s %*s %255s", &type,
			   path) != 2 || type != SOCK_DGRAM ||
		    sscanf(path, "@statickeys-%d%n", &pid, &end) != 1 ||
		    path[end] != '\0')
			continue;
		if (s.n == cap) {
			int *nv = realloc(s.v, (cap = cap * 2 + 16) * sizeof(int));
			if (!nv)
				break;
			s.v = nv;
		}
		s.v[s.n++] = pid;
	}
	if (f)
		fclose(f);
	if (s.n)
		qsort(s.v, s.n, sizeof(int), int_cmp);
	return s;
}

/* Process @name of /proc, if it is ours (or we are root), matches --comm
 * and has a control socket (a file found by find_socket(), or its default
 * name among @servers). */
static bool candidate(const struct options *o, const char *name,
		      const struct pid_set *servers, struct proc *p)
{
	char dir[64];
	struct stat st;

	p->pid = atoi(name);
	snprintf(dir, sizeof(dir), "/proc/%d", p->pid);
	if (p->pid == getpid() || stat(dir, &st) != 0)
		return false;
	if (geteuid() != 0 && st.st_uid != geteuid())
		return false;
	proc_comm(p->pid, p->comm, sizeof(p->comm));
	/* The kernel keeps the first 15 bytes of a command name. */
	if (o->comm && strncmp(o->comm, p->comm, 15) != 0)
		return false;
	if (find_socket(name, p->path, sizeof(p->path)) != 0)
		return false;
	return p->path[0] != '@' || bsearch(&p->pid, servers->v, servers->n,
					    sizeof(int), int_cmp) != NULL;
}

static int by_pid(const void *a, const void *b)
{
	return ((const struct proc *)a)->pid - ((const struct proc *)b)->pid;
}

static size_t find_processes(const struct options *o, struct proc **out)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0, cap = 0;
	struct proc *v = NULL, p;
	struct pid_set servers = bound_default_servers();

	while (d && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]) ||
		    !candidate(o, e->d_name, &servers, &p))
			continue;
		if (n == cap) {
			struct proc *nv = realloc(v, (cap = cap * 2 + 16) *
							     sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n++] = p;
	}
	if (d)
		closedir(d);
	free(servers.v);
	if (n)
		qsort(v, n, sizeof(*v), by_pid);
	*out = v;
	return n;
}

#define ANOTHERS_SOCKET (-10000)

/* A socket connected to process @p's address; its replies give up after
 * --timeout (transact()), so a stopped process cannot hold up the others.
 * Return: the descriptor, -errno, or ANOTHERS_SOCKET when the server is
 * not process @p (a child that inherited its parent's
 * STATICKEYS_CONTROL=PATH): a path other than @p's default name is asked
 * who serves it ("help", which changes nothing) before the request. */
static int connect_bounded(const struct proc *p)
{
	char own[sizeof(p->path)], *raw = NULL;
	struct json *reply = NULL;
	int fd = connect_to(p->path);

	if (fd < 0 || (sk_control_default_path(p->pid, NULL, own,
					       sizeof(own)) == 0 &&
		       !strcmp(own, p->path)))
		return fd;
	int r = transact(fd, "help\n", &reply, &raw);
	json_free(reply);
	free(raw);
	if (r == SKCTL_OK && skctl_server_pid >= 0 &&
	    skctl_server_pid != p->pid) {
		close(fd);
		return ANOTHERS_SOCKET;
	}
	return fd;
}

static void print_rows(const struct proc *p, const struct json *reply,
		       bool *header)
{
	const struct json *keys = json_get(reply, "keys");

	if (!*header)
		printf("%7s %-15s %-24s %-5s %-7s %s\n", "PID", "COMMAND",
		       "NAME", "STATE", "DEFAULT", "DESCRIPTION");
	*header = true;
	for (const struct json *k = keys ? keys->child : NULL; k; k = k->next)
		printf("%7d %-15s %-24s %-5s %-7s %s\n", p->pid, p->comm,
		       json_str(k, "name", "?"),
		       json_bool(k, "enabled", false) ? "on" : "off",
		       json_bool(k, "initial", false) ? "on" : "off",
		       json_str(k, "description", ""));
}

/* get, stats, log and unmatched: the usual output under a line naming the
 * process. */
static void print_section(const struct proc *p, const char *verb,
			  const struct json *reply)
{
	printf("== %d %s\n", p->pid, p->comm);
	if (!strcmp(verb, "stats"))
		print_stats(reply);
	else if (!strcmp(verb, "log"))
		print_log(reply);
	else if (!strcmp(verb, "unmatched"))
		print_unmatched(reply);
	else
		print_key(json_get(reply, "key"));
}

/* One process: send @req, print its line(s).  Return an exit code, or
 * ANOTHERS_SOCKET (nothing printed: the process serves no socket). */
static int one(const struct options *o, const struct proc *p,
	       const char *verb, const char *req, bool *header)
{
	struct json *reply = NULL;
	char *raw = NULL, who[128];

	snprintf(who, sizeof(who), "skctl: pid %d (%s)", p->pid, p->comm);
	skctl_who = who;
	/* Exited since the scan: gone, whatever the connection says. */
	bool gone = watch_target(p->pid) == -ESRCH;
	int fd = gone ? -ESRCH : connect_bounded(p), r;

	if (fd == ANOTHERS_SOCKET) {
		skctl_who = "skctl";
		return fd;
	}
	if (gone)
		fprintf(stderr, "%s: process %d is gone: it exited before it "
			"answered\n", who, p->pid);
	if (gone || (fd < 0 && target_gone())) {
		r = SKCTL_GONE;
	} else if (fd < 0) {
		fprintf(stderr, "%s: cannot connect: %s\n", who, strerror(-fd));
		r = SKCTL_UNREACHABLE;
	} else {
		r = transact(fd, req, &reply, &raw);
		close(fd);
	}
	skctl_who = "skctl";
	if (o->json)
		printf("{\"pid\":%d,\"comm\":\"%s\",\"reply\":%s}\n", p->pid,
		       p->comm, reply ? raw : "null");
	else if (r == SKCTL_OK && !strcmp(verb, "list"))
		print_rows(p, reply, header);
	else if (r == SKCTL_OK && strcmp(verb, "stats") &&
		 strcmp(verb, "log") && strcmp(verb, "get") &&
		 strcmp(verb, "unmatched"))
		printf("%d %s: ok\n", p->pid, p->comm);
	else if (r == SKCTL_OK)
		print_section(p, verb, reply);
	else
		printf("%d %s: failed: %s\n", p->pid, p->comm,
		       reply ? json_str(reply, "error", "refused")
		       : r == SKCTL_GONE ? "gone (exited before it answered)"
		       : fd < 0 ? "cannot connect (exited?)"
				: "no reply (stopped, or busy?)");
	json_free(reply);
	free(raw);
	return r;
}

/* Every process's metrics in one exposition; *@n drops the processes
 * that turn out to serve no socket of their own. */
static void openmetrics_all(const struct proc *v, size_t *n, size_t *ok)
{
	struct om_process *m = calloc(*n ? *n : 1, sizeof(*m));
	size_t all = *n;

	if (!m)
		return;
	for (size_t i = 0; i < all; i++) {
		(void)watch_target(v[i].pid); /* not waited on if it exits */
		int fd = connect_bounded(&v[i]);
		if (fd == ANOTHERS_SOCKET)
			(*n)--;
		else if (fd < 0 || om_fetch(fd, &m[*ok]) != SKCTL_OK)
			fprintf(stderr, "skctl: pid %d (%s): no metrics\n",
				v[i].pid, v[i].comm);
		else
			(*ok)++;
		if (fd >= 0)
			close(fd);
	}
	om_print(m, *ok);
	for (size_t i = 0; i < *ok; i++)
		om_free(&m[i]);
	free(m);
}

int run_all(const struct options *o, const char *verb, char **args,
	    int nargs)
{
	struct proc *v;
	size_t n = find_processes(o, &v), ok = 0;
	bool header = false;

	if (!strcmp(verb, "watch")) {
		fprintf(stderr, "skctl: watch shows one process; not --all\n");
		free(v);
		return SKCTL_USAGE;
	}
	char *req = build_request(verb, args, nargs);
	if (!req || n == 0) {
		if (req)
			fprintf(stderr, "skctl: no process of uid %u%s%s has a "
				"control socket\n", (unsigned)geteuid(),
				o->comm ? " called " : "",
				o->comm ? o->comm : "");
		free(v);
		free(req);
		return req ? SKCTL_UNREACHABLE : SKCTL_USAGE;
	}
	if (o->openmetrics) {
		openmetrics_all(v, &n, &ok);
	} else {
		size_t all = n;
		for (size_t i = 0; i < all; i++) {
			int r = one(o, &v[i], verb, req, &header);
			n -= r == ANOTHERS_SOCKET;
			ok += r == SKCTL_OK;
		}
	}
	fflush(stdout);
	free(v);
	free(req);
	if (n == 0)
		fprintf(stderr, "skctl: no process has a control socket of "
			"its own\n");
	return n == 0 ? SKCTL_UNREACHABLE : ok == n ? SKCTL_OK
		: ok ? SKCTL_SOME : SKCTL_NONE;
}
