/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skctl_transport.c - talking to a program's control socket: finding the
 * socket of a process (the rule the library uses), connecting to it with
 * a client address of its own, one request line out and one JSON line
 * back within --timeout, checking who answered (the kernel's credentials
 * on the reply), and noticing at once that the process asked has exited
 * (watch_target).  The OS's part of it is the runtime's (os/os.h:
 * sk__os_dgram_*, sk__os_creds_*, sk__os_process_*), linked in with the
 * static library.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <statickeys/control.h>

#include "os/os.h"
#include "skctl_transport.h"

#define MAX_REPLY (64u << 20)

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

const char *skctl_who = "skctl";

/* ---- finding the socket --------------------------------------------------- */

/* The value of @var in process @pid's initial environment, or NULL. */
static char *environ_of(const char *pid, const char *var)
{
	char path[64], buf[65536];
	snprintf(path, sizeof(path), "/proc/%s/environ", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f), vlen = strlen(var);
	fclose(f);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		if (!strncmp(buf + i, var, vlen) && buf[i + vlen] == '=')
			return strdup(buf + i + vlen + 1);
	return NULL;
}

static bool is_socket(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* The same rule the program used: STATICKEYS_CONTROL=path (a file, or
 * "@name" in the abstract namespace), or the default "@statickeys-PID". */
int find_socket(const char *pid, char *out, size_t len)
{
	char *control = environ_of(pid, "STATICKEYS_CONTROL");
	int r = -ENOENT;

	if (control && strcmp(control, "1") && strcmp(control, "0") &&
	    (control[0] == '@' || is_socket(control))) {
		snprintf(out, len, "%s", control);
		r = 0;
	} else if (atoi(pid) > 0) {
		r = sk_control_default_path(atoi(pid), NULL, out, len);
	}
	free(control);
	return r;
}

/* ---- talking -------------------------------------------------------------- */

/* How long a request may wait for its reply (--timeout), in ms. */
int skctl_timeout_ms = SKCTL_DEFAULT_TIMEOUT_MS;
/* Who served the last reply (the kernel's credentials on it), 0 before
 * one, -1 where the OS does not tell (macOS). */
int skctl_server_pid;

/* The server must run as our uid (root may talk to anyone): an abstract
 * name can be bound by any user, so the kernel's word on who sent the
 * reply is asked (os/os.h, sk__os_creds_read) before the reply is
 * believed. */
static int check_server(const struct sk__peer *cred, const char *path)
{
	if (cred->uid == geteuid() || geteuid() == 0)
		return 0;
	fprintf(stderr, "%s: %s is served by uid %u, not by you (uid %u); "
		"not talking to it\n", skctl_who, path, (unsigned)cred->uid,
		(unsigned)geteuid());
	return -EPERM;
}

static const char *server_path; /* for check_server()'s message */
static bool creds_known;	/* the OS names a reply's sender */

/* Socket files this process bound to be answered (os/os.h,
 * sk__os_dgram_bind_client: none on Linux), removed at exit. */
static char (*client_files)[108];
static size_t n_client_files;

static void remove_client_files(void)
{
	for (size_t i = 0; i < n_client_files; i++)
		unlink(client_files[i]);
}

static void note_client_file(const char *path)
{
	void *v = realloc(client_files, (n_client_files + 1) *
						sizeof(*client_files));
	if (!v) {
		unlink(path);
		return;
	}
	client_files = v;
	if (n_client_files == 0)
		atexit(remove_client_files);
	snprintf(client_files[n_client_files++], sizeof(*client_files), "%s",
		 path);
}

/* Where the OS cannot say who sent a reply (macOS), the server's socket
 * file must be ours (or we are root): its permissions decide who may
 * bind it.  An abstract name needs the credentials. */
static int check_server_file(const char *path)
{
	struct stat st;

	if (path[0] == '@')
		return -EPROTO;
	if (stat(path, &st) != 0)
		return -errno;
	struct sk__peer owner = { -1, (unsigned)st.st_uid };
	return check_server(&owner, path);
}

/* A datagram socket with an address of its own (the server sends the
 * reply there), connected to @path, so that only the server's datagrams
 * arrive.  "@name" is a name in the abstract namespace (no trailing NUL). */
int connect_to(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char bound[sizeof(addr.sun_path)];
	size_t n = strlen(path);

	if (n >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	int fd = sk__os_dgram_socket();
	if (fd < 0)
		return fd;
	int r = sk__os_dgram_bind_client(fd, bound, sizeof(bound));
	if (r == 0 && bound[0])
		note_client_file(bound);
	int c = r ? r : sk__os_creds_enable(fd);
	creds_known = c == 0;
	if (r == 0 && c != 0 && c != -ENOTSUP)
		r = c;
	if (r == 0 && !creds_known)
		r = check_server_file(path);
	memcpy(addr.sun_path, path, n);
	if (path[0] == '@')
		addr.sun_path[0] = '\0';
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				    n + (path[0] != '@'));
	if (r == 0 && connect(fd, (struct sockaddr *)&addr, len) != 0)
		r = -errno;
	if (r) {
		close(fd);
		return r;
	}
	server_path = path;
	return fd;
}

/* ---- the process asked ---------------------------------------------------- */

/* A datagram socket gets no word when its server dies: the server never
 * connected to us, so nothing resets our end, and a request to a process
 * killed before it answered would wait all of --timeout (issue 39: a
 * fleet of PostgreSQL backends, which exit all the time, cost `--all` a
 * minute and a half in 150 s).  So the wait watches the process too: on
 * Linux a pidfd, polled with the socket, which turns readable the moment
 * the process exits (a zombie too); elsewhere, or before Linux 5.3, the
 * wait wakes every SK__OS_PROCESS_POLL_MS to ask (os/os.h,
 * sk__os_process_gone).
 *
 * The pid was given (or found) before the request went out, and the watch
 * is opened then: a process that exits and whose pid goes to another
 * process is still gone for this request.  The pidfd names the process it
 * was opened on, whatever gets its pid later; the fallback compares the
 * start time the OS gives (Linux /proc/PID/stat, FreeBSD and macOS
 * kinfo), and where none is to be had a reused pid passes for the process
 * and the wait ends at --timeout, as before. */
static struct sk__os_process_watch target = { .fd = -1 };
static bool watching;

int watch_target(long pid)
{
	if (watching)
		sk__os_process_watch_close(&target);
	watching = false;
	if (pid <= 0)
		return 0;
	int r = sk__os_process_watch_open(&target, pid);
	watching = r == 0;
	return r == -ESRCH ? r : 0; /* can't watch: --timeout bounds it */
}

static void say_gone(void)
{
	fprintf(stderr, "%s: process %ld is gone: it exited before it "
		"answered\n", skctl_who, target.pid);
}

bool target_gone(void)
{
	if (!watching || !sk__os_process_gone(&target))
		return false;
	say_gone();
	return true;
}

/* One datagram appended to @buf (at *@n of @cap); its sender's
 * credentials into @cred.  Return: bytes, or -errno (-ETIMEDOUT once
 * @deadline, CLOCK_MONOTONIC ms, has passed). */
static ssize_t recv_part(int fd, char *buf, size_t room,
			 struct sk__peer *cred, bool *have_cred,
			 long long deadline)
{
	union sk__creds_buffer control;
	struct iovec iov = { buf, room };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = control.buf,
			    .msg_controllen = sizeof(control) };

	for (;;) {
		long long left = deadline - now_ms();
		/* The socket, and the watched process's pidfd if there is
		 * one; without it, a look every SK__OS_PROCESS_POLL_MS. */
		struct pollfd p[2] = { { fd, POLLIN, 0 },
				       { watching ? target.fd : -1, POLLIN, 0 } };
		if (left <= 0)
			return -ETIMEDOUT;
		if (watching && target.fd < 0 && left > SK__OS_PROCESS_POLL_MS)
			left = SK__OS_PROCESS_POLL_MS;
		int k = poll(p, 2, (int)(left > INT_MAX ? INT_MAX : left));
		if (k < 0 && errno != EINTR)
			return -errno;
		/* A reply sent before the process exited is queued before
		 * its exit is seen: read the socket first. */
		if (k <= 0 || !(p[0].revents & (POLLIN | POLLERR))) {
			if (watching && (p[1].revents ||
					 (target.fd < 0 &&
					  sk__os_process_gone(&target))))
				return -ESRCH;
			continue;
		}
		m.msg_controllen = sizeof(control);
		ssize_t r = recvmsg(fd, &m, MSG_DONTWAIT |
						    sk__os_dgram_recv_flags());
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return -errno;
		if (sk__os_creds_read(&m, cred))
			*have_cred = true;
		return r;
	}
}

/* One reply line (without its newline) into *@line: the datagrams up to
 * the one that ends with '\n'.  Return: 0 or -errno. */
static int read_reply(int fd, char **line)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	long long deadline = now_ms() + skctl_timeout_ms;
	struct sk__peer cred = { -1, 0 };
	bool have_cred = false;
	int r = 0;

	while (buf && r == 0) {
		if (n && buf[n - 1] == '\n')
			break;
		if (cap - n < 65536) {
			char *b = cap < MAX_REPLY ? realloc(buf, cap * 2) : NULL;
			if (!b) {
				r = -EMSGSIZE;
				break;
			}
			buf = b;
			cap *= 2;
		}
		ssize_t k = recv_part(fd, buf + n, cap - n - 1, &cred,
				      &have_cred, deadline);
		/* Without credentials (macOS), connect_to() checked the
		 * socket file's owner. */
		r = k < 0		? (int)k
		    : !creds_known	? 0
		    : !have_cred	? -EPROTO
					: check_server(&cred, server_path);
		n += k > 0 ? (size_t)k : 0;
	}
	if (r || !buf) {
		free(buf);
		return r ? r : -ENOMEM;
	}
	skctl_server_pid = (int)cred.pid;
	buf[n - 1] = '\0';
	*line = buf;
	return 0;
}

/* Why the reply did not come, in the words of the case.  A server that
 * stopped serving (ECONNREFUSED) because its process exited is "gone"
 * too: that is the process's exit, seen a moment earlier. */
static int no_reply(int err)
{
	if (err == -ESRCH || (err == -ECONNREFUSED && watching &&
			      sk__os_process_gone(&target))) {
		say_gone();
		return SKCTL_GONE;
	}
	if (err == -ETIMEDOUT)
		fprintf(stderr, "%s: no reply from %s within %g s (is the "
			"process stopped, or busy?  --timeout SECS waits "
			"longer)\n", skctl_who, server_path,
			skctl_timeout_ms / 1000.0);
	else if (err == -ECONNREFUSED)
		fprintf(stderr, "%s: the process stopped serving %s\n",
			skctl_who, server_path);
	else if (err != -EPERM) /* check_server() said why */
		fprintf(stderr, "%s: no reply from %s: %s\n", skctl_who,
			server_path, strerror(-err));
	return err == -ETIMEDOUT ? SKCTL_TIMEOUT
	       : err == -EPROTO  ? SKCTL_PROTOCOL
				 : SKCTL_UNREACHABLE;
}

/* Send @request and parse its reply (skctl_transport.h). */
int transact(int fd, const char *request, struct json **out, char **raw)
{
	char *line = NULL;
	size_t len = strlen(request);

	*out = NULL;
	*raw = NULL;
	if (len > SK_CONTROL_MAX_REQUEST) {
		fprintf(stderr, "%s: the request is %zu bytes; a program takes "
			"at most %d bytes in one request: name fewer keys at "
			"once\n", skctl_who, len, SK_CONTROL_MAX_REQUEST);
		return SKCTL_USAGE;
	}
	/* One datagram, one request: sent whole or not at all. */
	if (send(fd, request, len, MSG_NOSIGNAL) != (ssize_t)len)
		return no_reply(-errno);
	int r = read_reply(fd, &line);
	if (r)
		return no_reply(r);
	*raw = line;
	*out = json_parse(line);
	if (!*out) {
		fprintf(stderr, "%s: reply is not JSON: %.200s\n", skctl_who,
			line);
		return SKCTL_PROTOCOL;
	}
	if (!json_bool(*out, "ok", false)) {
		int err = (int)json_num(*out, "errno", 0);
		fprintf(stderr, "%s: %s\n", skctl_who,
			json_str(*out, "error", "refused"));
		/* EBUSY is a key holding references now: the server no
		 * longer turns clients away as busy, they wait their turn. */
		return err == ESHUTDOWN ? SKCTL_EXITING
		       : err == EACCES  ? SKCTL_UNREACHABLE
		       : err == E2BIG   ? SKCTL_USAGE
					: SKCTL_REFUSED;
	}
	return SKCTL_OK;
}

/* "VERB ARG ARG...\n"; names with blanks or newlines cannot be keys. */
/* "debug QUERY": the words given, joined by blanks (`skctl debug func
 * send +p` and `skctl debug 'func send +p'` say the same); a newline,
 * which would end the request, separates queries as ';' does. */
static char *debug_request(char **args, int nargs)
{
	size_t len = sizeof("debug\n");
	for (int i = 0; i < nargs; i++)
		len += strlen(args[i]) + 1;
	char *req = malloc(len);
	if (!req)
		return NULL;
	strcpy(req, "debug");
	for (int i = 0; i < nargs; i++)
		strcat(strcat(req, " "), args[i]);
	for (char *c = req; *c; c++)
		if (*c == '\n')
			*c = ';';
	return strcat(req, "\n");
}

char *build_request(const char *verb, char **args, int nargs)
{
	if (!strcmp(verb, "debug"))
		return debug_request(args, nargs);
	size_t len = strlen(verb) + 2;
	for (int i = 0; i < nargs; i++)
		len += strlen(args[i]) + 1;
	char *req = malloc(len);
	if (!req)
		return NULL;
	strcpy(req, verb);
	for (int i = 0; i < nargs; i++) {
		if (strpbrk(args[i], " \t\r\n")) {
			fprintf(stderr, "skctl: '%s' is not a key name\n",
				args[i]);
			free(req);
			return NULL;
		}
		strcat(strcat(req, " "), args[i]);
	}
	return strcat(req, "\n");
}
