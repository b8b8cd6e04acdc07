/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skctl - see and flip the static keys of a running program.
 *
 *	skctl [-p PID | -s SOCKET] [--json] COMMAND [ARGS]
 *
 * Talks to the program's control socket (statickeys/control.h): one request
 * line out, one JSON line back (skctl_transport.c).  This file reads the
 * command line and runs the commands; see skctl(1) or `skctl --help`.
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
#include "skctl_all.h"
#include "skctl_openmetrics.h"
#include "skctl_options.h"
#include "skctl_print.h"
#include "skctl_transport.h"

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
	"  calls                every static call: its target (symbol and\n"
	"                       label), its call sites (direct, through the\n"
	"                       trampoline, and why) and the labels it can be\n"
	"                       switched to\n"
	"  call NAME=LABEL      switch a static call to the target its program\n"
	"                       labelled LABEL (SK_STATIC_CALL_TARGET)\n"
	"  debug                every debug statement (sk_pr_debug), as the\n"
	"                       kernel's /proc/dynamic_debug/control shows them\n"
	"  debug QUERY          apply a dynamic debug query ('file f.c +p',\n"
	"                       'func send -p'; docs/dynamic-debug.md) and\n"
	"                       print how many statements it matched\n"
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
	"  -t, --timeout SECS   wait at most SECS for each reply (default 5);\n"
	"                       a process that exits is not waited for\n"
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
	"within the timeout (a stopped or busy process); 9 the process is\n"
	"gone: it exited before it answered (seen at once, not at the\n"
	"timeout).  With --all: 0 every process did it;\n"
	"6 some did, some did not (one that is gone did not); 7 none did;\n"
	"3 no process to talk to.\n";

/* ---- commands ------------------------------------------------------------- */


static void print_debug(const struct json *reply)
{
	const char *cat = json_str(reply, "catalogue", NULL);

	if (cat)
		fputs(cat, stdout);
	else
		printf("%.0f debug statements matched\n",
		       json_num(reply, "matched", 0));
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
	else if (r == SKCTL_OK && !strcmp(verb, "calls"))
		print_calls(reply);
	else if (r == SKCTL_OK && !strcmp(verb, "debug"))
		print_debug(reply);
	else if (r == SKCTL_OK && !strcmp(verb, "call"))
		print_call_changed(reply);
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

	if (fd < 0 && target_gone())
		return SKCTL_GONE;
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
	{ "calls", 0, 0 },   { "call", 1, 1 },	  { "debug", 0, 64 },
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
	/* Watched before the first request: a process that exits before it
	 * answers is "gone" at once (skctl_transport.c).  No such process:
	 * the connection says so (exit 3, as before). */
	if (o.pid)
		(void)watch_target(atol(o.pid));
	if (!strcmp(cmd, "watch"))
		return watch(path, &o);
	int fd = connect_to(path);
	if (fd < 0 && target_gone())
		return SKCTL_GONE;
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
