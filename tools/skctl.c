/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skctl - see and flip the static keys of a running program.
 *
 *	skctl [-p PID | -s SOCKET] [--json] COMMAND [ARGS]
 *
 * Talks to the program's control socket (statickeys/control.h): one request
 * line out, one JSON line back.  See skctl(1) or `skctl --help`.
 */
#include <errno.h>
#include <getopt.h>
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

#include "control/value.h" /* the runtime's parser of a state */
#include "skctl.h"

#define MAX_REPLY (64u << 20)

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

const char *skctl_who = "skctl";

static const char usage_text[] =
	"usage: skctl [-p PID | -s SOCKET | -a [--comm NAME]] [--json] [-t SECS] COMMAND "
	"[ARGS]\n"
	"\n"
	"Commands:\n"
	"  list                 every key: state, default, count, sites, "
	"description\n"
	"  get NAME             one key in detail\n"
	"  enable NAME...       turn keys on (one multi-key commit, at most\n"
	"                       128 keys)\n"
	"  disable NAME...      turn keys off (one multi-key commit)\n"
	"  set NAME=VALUE...    set each key's state (one multi-key commit);\n"
	"                       VALUE: 0/1, off/on, false/true, no/yes\n"
	"  stats                counters and latency histograms\n"
	"  log                  the last key changes made from outside the\n"
	"                       program (socket, STATICKEYS_FILE, STATICKEYS)\n"
	"  unmatched            the lines of the program's STATICKEYS_FILE\n"
	"                       that name no key of it (typos)\n"
	"  watch                key states and counter changes every second\n"
	"\n"
	"Options:\n"
	"  -p, --pid PID        the process to talk to (finds its socket)\n"
	"  -s, --socket PATH    the control socket to talk to\n"
	"  -a, --all            every process of this user with a control\n"
	"                       socket (root: every process)\n"
	"      --comm NAME      with --all: only processes called NAME\n"
	"      --openmetrics    stats as OpenMetrics text (with --all too)\n"
	"  -j, --json           print the replies as JSON, one per line\n"
	"  -i, --interval SECS  time between watch rounds (default 1)\n"
	"  -n, --count N        stop watch after N rounds (default: never)\n"
	"  -t, --timeout SECS   wait at most SECS for each reply (default 5)\n"
	"  -h, --help           this text\n"
	"\n"
	"NAME is a key's name as `list` shows it; FILE:NAME picks the key\n"
	"of one object when several define the same name.\n"
	"The program serves the socket if it calls sk_control_start() or runs\n"
	"with STATICKEYS_CONTROL=1.\n"
	"\n"
	"Exit status: 0 done; 1 the program refused the request (nothing\n"
	"changed); 2 usage error; 3 no control socket, or connection refused;\n"
	"4 the reply was not understood; 5 the program is exiting; 8 no reply\n"
	"within the timeout (a stopped or busy process).  With --all:\n"
	"0 every process did it; 6 some did, some did not; 7 none did; 3 no\n"
	"process to talk to.\n";

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
		struct pollfd p = { fd, POLLIN, 0 };
		if (left <= 0)
			return -ETIMEDOUT;
		int k = poll(&p, 1, (int)(left > INT_MAX ? INT_MAX : left));
		if (k < 0 && errno != EINTR)
			return -errno;
		if (k <= 0)
			continue;
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

/* Why the reply did not come, in the words of the case. */
static int no_reply(int err)
{
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

/* Send @request and parse its reply (skctl.h). */
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

/* ---- commands ------------------------------------------------------------- */

/* "VERB ARG ARG...\n"; names with blanks or newlines cannot be keys. */
char *build_request(const char *verb, char **args, int nargs)
{
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

static int run_once(int fd, const struct options *o, const char *verb,
		    char **args, int nargs)
{
	struct json *reply;
	char *raw, *req = build_request(verb, args, nargs);

	if (!req)
		return SKCTL_USAGE;
	int r = transact(fd, req, &reply, &raw);
	free(req);
	if (o->json && reply) /* a refusal too: {"ok":false,...} */
		printf("%s\n", raw);
	else if (r == SKCTL_OK && !strcmp(verb, "list"))
		print_list(reply);
	else if (r == SKCTL_OK && !strcmp(verb, "get"))
		print_key(json_get(reply, "key"));
	else if (r == SKCTL_OK && !strcmp(verb, "stats"))
		print_stats(reply);
	else if (r == SKCTL_OK && !strcmp(verb, "log"))
		print_log(reply);
	else if (r == SKCTL_OK && !strcmp(verb, "unmatched"))
		print_unmatched(reply);
	else if (r == SKCTL_OK)
		print_changed(reply);
	json_free(reply);
	free(raw);
	return r;
}

/* Why connect_to(@path) failed with @err, in the words of the case. */
static void unreachable(const struct options *o, const char *path, int err)
{
	struct stat st;

	if (err == -EPERM)
		return; /* check_server() said why */
	if (path[0] != '@' && stat(path, &st) == 0 && !S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "skctl: %s is not a socket (%s)\n", path,
			S_ISDIR(st.st_mode) ? "a directory" : "a file");
		return;
	}
	if (err == -EPROTOTYPE) {
		fprintf(stderr, "skctl: %s is not a statickeys control socket "
			"(a stream socket; statickeys serves datagrams)\n",
			path);
		return;
	}
	if (o->pid && (err == -ECONNREFUSED || err == -ENOENT))
		fprintf(stderr, "skctl: process %s has no control socket (is it "
			"running, and was it started with STATICKEYS_CONTROL=1 "
			"or does it call sk_control_start()?)\n", o->pid);
	else if (err == -ECONNREFUSED && path[0] != '@')
		fprintf(stderr, "skctl: nothing serves %s (a socket file left "
			"by a process that has ended)\n", path);
	else
		fprintf(stderr, "skctl: cannot connect to %s: %s\n", path,
			strerror(-err));
}

/* One round of watch on a fresh connection, so that any interval is fine
 * with the server's idle limit.  *@stats is kept for the next round. */
static int watch_round(const char *path, const struct options *o, long round,
		       struct json **stats, const struct json *prev)
{
	struct json *list = NULL;
	char *raw_list = NULL, *raw_stats = NULL;
	int fd = connect_to(path), r;

	if (fd < 0) {
		unreachable(o, path, fd);
		return SKCTL_UNREACHABLE;
	}
	r = transact(fd, "list\n", &list, &raw_list);
	if (r == SKCTL_OK)
		r = transact(fd, "stats\n", stats, &raw_stats);
	close(fd);
	if (r == SKCTL_OK && o->json)
		printf("%s\n%s\n", raw_list, raw_stats);
	else if (r == SKCTL_OK)
		print_watch(list, *stats, prev, (int)round);
	fflush(stdout);
	json_free(list);
	free(raw_list);
	free(raw_stats);
	return r;
}

static int watch(const char *path, const struct options *o)
{
	struct json *prev = NULL;
	struct timespec pause = { (time_t)o->interval,
				  (long)((o->interval - (time_t)o->interval) *
					 1e9) };
	int r = SKCTL_OK;

	for (long round = 1; o->count <= 0 || round <= o->count; round++) {
		struct json *stats = NULL;
		r = watch_round(path, o, round, &stats, prev);
		json_free(prev);
		prev = stats;
		if (r != SKCTL_OK)
			break;
		if (o->count <= 0 || round < o->count)
			nanosleep(&pause, NULL);
	}
	json_free(prev);
	return r;
}

static const struct {
	const char *name;
	int min_args, max_args;
} commands[] = {
	{ "list", 0, 0 },    { "get", 1, 1 },	  { "enable", 1, 128 },
	{ "disable", 1, 128 }, { "set", 1, 128 }, { "stats", 0, 0 },
	{ "watch", 0, 0 },   { "log", 0, 0 },	  { "unmatched", 0, 0 },
};

/* `set` takes NAME=VALUE, VALUE one of the words every other way of setting
 * a key takes (control/value.h, the runtime's own parser): anything else
 * is a usage error, found before the program is asked. */
static int check_set_args(char **args, int nargs)
{
	for (int i = 0; i < nargs; i++) {
		const char *eq = strrchr(args[i], '=');
		bool on;
		if (!eq || eq == args[i] ||
		    !sk__value_parse(eq + 1, strlen(eq + 1), &on)) {
			fprintf(stderr, "skctl: '%s' is not NAME=VALUE (VALUE: "
				SK__VALUE_WORDS ")\n", args[i]);
			return SKCTL_USAGE;
		}
	}
	return 0;
}

static int check_command(const char *cmd, char **args, int nargs)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(cmd, commands[i].name))
			continue;
		if (nargs >= commands[i].min_args &&
		    nargs <= commands[i].max_args)
			return strcmp(cmd, "set") ? 0 : check_set_args(args, nargs);
		if (commands[i].max_args > 1 && nargs > commands[i].max_args)
			fprintf(stderr, "skctl: %d keys named; '%s' takes at "
				"most %d in one request (one commit): run skctl "
				"again for the others\n", nargs, cmd,
				commands[i].max_args);
		else
			fprintf(stderr, "skctl: wrong number of arguments for "
				"'%s' (see skctl --help)\n", cmd);
		return SKCTL_USAGE;
	}
	fprintf(stderr, "skctl: unknown command '%s' (see skctl --help)\n", cmd);
	return SKCTL_USAGE;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, 0, 'p' },
		{ "socket", required_argument, 0, 's' },
		{ "json", no_argument, 0, 'j' },
		{ "interval", required_argument, 0, 'i' },
		{ "count", required_argument, 0, 'n' },
		{ "timeout", required_argument, 0, 't' },
		{ "all", no_argument, 0, 'a' },
		{ "comm", required_argument, 0, 'C' },
		{ "openmetrics", no_argument, 0, 'O' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;
	double timeout = SKCTL_DEFAULT_TIMEOUT_MS / 1000.0;

	/* Options may follow the command; key names never start with '-'. */
	while ((c = getopt_long(argc, argv, "p:s:ji:n:t:haC:O", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': o->pid = optarg; break;
		case 's': o->socket = optarg; break;
		case 'j': o->json = true; break;
		case 'i': o->interval = atof(optarg); break;
		case 'n': o->count = atol(optarg); break;
		case 't': timeout = atof(optarg); break;
		case 'a': o->all = true; break;
		case 'C': o->comm = optarg; break;
		case 'O': o->openmetrics = true; break;
		case 'h': fputs(usage_text, stdout); exit(SKCTL_OK);
		default: return SKCTL_USAGE;
		}
	}
	int targets = !!o->pid + !!o->socket + o->all;
	if (!(timeout > 0 && timeout <= 86400)) {
		fprintf(stderr, "skctl: bad timeout (seconds, more than 0)\n");
		return SKCTL_USAGE;
	}
	skctl_timeout_ms = (int)(timeout * 1000 + 0.5);
	if (optind >= argc || targets != 1 || o->interval <= 0 ||
	    (o->comm && !o->all) ||
	    (o->openmetrics && strcmp(argv[optind], "stats"))) {
		fprintf(stderr, "%s", optind >= argc ? "skctl: no command\n"
			: o->interval <= 0 ? "skctl: bad interval\n"
			: targets != 1 ? "skctl: give one of -p PID, -s SOCKET "
					 "or --all\n"
			: o->comm ? "skctl: --comm goes with --all\n"
				  : "skctl: --openmetrics goes with stats\n");
		return SKCTL_USAGE;
	}
	return check_command(argv[optind], argv + optind + 1, argc - optind - 1);
}

int main(int argc, char **argv)
{
	struct options o = { .interval = 1.0 };
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];

	int r = parse_options(argc, argv, &o);
	if (r) {
		fputs("usage: skctl [-p PID | -s SOCKET] [--json] COMMAND [ARGS]"
		      "; skctl --help\n", stderr);
		return r;
	}
	if (o.all) {
		path[0] = '\0';
	} else if (o.socket) {
		snprintf(path, sizeof(path), "%s", o.socket);
	} else if (find_socket(o.pid, path, sizeof(path)) != 0) {
		fprintf(stderr, "skctl: '%s' is not a process id\n", o.pid);
		return SKCTL_USAGE;
	}
	const char *cmd = argv[optind];
	if (o.all)
		return run_all(&o, cmd, argv + optind + 1, argc - optind - 1);
	if (!strcmp(cmd, "watch"))
		return watch(path, &o);
	int fd = connect_to(path);
	if (fd < 0) {
		unreachable(&o, path, fd);
		return SKCTL_UNREACHABLE;
	}
	if (o.openmetrics)
		r = run_openmetrics(fd);
	else
		r = run_once(fd, &o, cmd, argv + optind + 1, argc - optind - 1);
	close(fd);
	return r;
}
