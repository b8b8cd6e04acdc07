/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * host_descriptors.c - the host closes, reuses and overwrites descriptor
 * numbers as daemons do, at the moments that hurt most, and the library
 * never touches the host's descriptor and keeps updating.
 *
 * The library holds one descriptor (fd_slot.c): a stand-in (an empty
 * memfd) from start-up, /proc/self/mem after the first update.  Each case
 * runs in a fresh process (this program re-executes itself with the case's
 * name), so that "start-up" really is the stand-in:
 *
 *   standin_eventfd    before any update: close 3..1023 (a daemon's
 *                      close-all loop), then the host's own eventfd takes
 *                      the lowest number, the library's old one
 *   mem_close_all      after an update: close-all, then updates
 *   mem_reused_by_file after an update: close-all, then the host's file
 *                      (with data and a position) and eventfd take the
 *                      low numbers: no byte of the file changes, nor its
 *                      size or position
 *   close_range        close_range(3, ~0) in place of the loop
 *   dup2_onto_ours     the host dup2()s its eventfd onto the library's
 *                      number (after an update)
 *   dup2_onto_standin  the same before any update
 *   lend_after_close   close-all, then a new thread: the update lends the
 *                      place to read the thread's state (threads_check.c)
 *   fork_child         after an update, a child closes everything, takes
 *                      an eventfd and updates; the parent updates after
 *   exec               the library's descriptor does not survive exec
 *   control_close_all  the control server running: close-all, then the
 *                      host's socketpair and eventfd take the low numbers
 *                      (the server's socket's among them); the server
 *                      leaves them alone, binds a new socket and answers
 *                      (control/server.c), and stops cleanly
 *   config_close_all   STATICKEYS_FILE followed (control/config_watch.c):
 *                      close-all, then the host's own inotify, watching
 *                      the same directory, and a readable eventfd take the
 *                      low numbers (the watch's among them); the watcher
 *                      reads neither, takes a new watch, and the next
 *                      version of the file still applies
 *
 * In each: every update returns 0 and the site then takes the new branch;
 * the host's eventfd still counts (a write and a read through it); the
 * library holds exactly one descriptor besides the host's; and the library
 * says once, on stderr, that it left a descriptor alone (checked by the
 * parent, which reads the case's stderr).  The host's eventfds do not
 * block: a read from one the library took fails at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <statickeys.h>

#include "../check.h"
#include "../wait_for.h"
#include "../control/client.h"

#define WARNING "is no longer the library's"
/* What the library's descriptor names: the stand-in, /proc/self/mem. */
#define STAND_IN "/memfd:statickeys (deleted)"
#define PROC_MEM "/mem"

SK_DEFINE_KEY_FALSE(host_key);

__attribute__((noinline)) static int host_site(void)
{
	return sk_branch_unlikely(&host_key) ? 1 : 0;
}

/* What a descriptor names ("" when closed). */
static void fd_target(int fd, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(path, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/* The lowest descriptor >= 3 whose target ends in @what, or -1. */
static int find_fd(const char *what)
{
	char target[256];
	size_t wl = strlen(what);

	for (int fd = 3; fd < 1024; fd++) {
		fd_target(fd, target, sizeof(target));
		size_t tl = strlen(target);
		if (tl >= wl && strcmp(target + tl - wl, what) == 0)
			return fd;
	}
	return -1;
}

/* Open descriptors >= 3. */
static int count_fds(void)
{
	int n = 0;

	for (int fd = 3; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* Descriptors the case inherited (the test harness's), not closed yet. */
static int inherited;

static void close_all(void)
{
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	inherited = 0;
}

/* An update both ways, each returning 0 and each seen by the site. */
static void flip(const char *when)
{
	int r = sk_key_enable(&host_key);
	CHECK(r == 0, "%s: enable returned %d", when, r);
	CHECK(host_site() == 1, "%s: the site took the enabled branch", when);
	r = sk_key_disable(&host_key);
	CHECK(r == 0, "%s: disable returned %d", when, r);
	CHECK(host_site() == 0, "%s: the site took the disabled branch", when);
}

/* The host's eventfd at @fd still counts: what is written is read back. */
static void check_eventfd(int fd, int reader, const char *when)
{
	char target[256];
	uint64_t v = 7, got = 0;

	fd_target(fd, target, sizeof(target));
	CHECK(strstr(target, "eventfd") != NULL, "%s: descriptor %d is still "
	      "the host's eventfd (it names \"%s\")", when, fd, target);
	CHECK(write(fd, &v, sizeof(v)) == sizeof(v), "%s: write to the host's "
	      "eventfd %d: %s", when, fd, strerror(errno));
	CHECK(read(reader, &got, sizeof(got)) == sizeof(got) && got == 7,
	      "%s: read back from the host's eventfd: %llu (%s)", when,
	      (unsigned long long)got, strerror(errno));
}

/* The library holds at most one descriptor besides the host's @host ones
 * (the mprotect writer takes a new one only when it reads a file). */
static void check_footprint(int host, const char *when)
{
	int n = count_fds() - inherited;
	CHECK(n == host + 1 || n == host, "%s: %d descriptors open, the "
	      "host's %d and the library's 1 at most", when, n, host);
}

static void standin_eventfd(void)
{
	int standin = find_fd(STAND_IN);
	CHECK(standin >= 3, "the stand-in is open before main() (%d)", standin);
	close_all();
	int e = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	CHECK(e == 3, "the host's eventfd took number 3 (%d)", e);
	flip("first update after the close-all");
	check_eventfd(e, e, "after the first update");
	flip("second update");
	check_eventfd(e, e, "after the second update");
	check_footprint(1, "after the updates");
	CHECK(find_fd(PROC_MEM) > e, "the library's /proc/self/mem took another "
	      "number (%d)", find_fd(PROC_MEM));
}

static void mem_close_all(void)
{
	flip("before the close-all");
	CHECK(find_fd(PROC_MEM) >= 3, "/proc/self/mem is open after an update");
	close_all();
	CHECK(count_fds() == 0, "everything closed");
	for (int i = 0; i < 3; i++)
		flip("after the close-all");
	check_footprint(0, "after the updates");
}

static void mem_reused_by_file(void)
{
	static const char data[] = "host data";
	char path[] = "/tmp/sk_host_descriptors_XXXXXX", back[sizeof(data)];
	struct stat st;

	flip("before the close-all");
	close_all();
	int f = mkstemp(path);
	CHECK(f == 3, "the host's file took number 3 (%d)", f);
	unlink(path);
	CHECK(write(f, data, sizeof(data)) == sizeof(data), "host data written");
	CHECK(lseek(f, 3, SEEK_SET) == 3, "host's position set");
	int e = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	flip("with the host's file and eventfd in the low numbers");
	flip("again");
	CHECK(fstat(f, &st) == 0 && st.st_size == (off_t)sizeof(data),
	      "the host's file kept its size (%lld)", (long long)st.st_size);
	CHECK(lseek(f, 0, SEEK_CUR) == 3, "the host's file kept its position");
	CHECK(pread(f, back, sizeof(back), 0) == sizeof(back) &&
	      memcmp(back, data, sizeof(data)) == 0,
	      "the host's file kept its bytes");
	check_eventfd(e, e, "after the updates");
	check_footprint(2, "after the updates");
}

static void close_range_case(void)
{
	flip("before close_range");
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
		skip_test("close_range() is not available on this kernel");
	inherited = 0;
#else
	skip_test("no close_range() system call number at build time");
#endif
	int e = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	flip("after close_range");
	check_eventfd(e, e, "after the updates");
	check_footprint(1, "after the updates");
}

static void dup2_onto(const char *what, bool update_first)
{
	if (update_first)
		flip("before the dup2");
	int ours = find_fd(what);
	CHECK(ours >= 3, "the library's descriptor (%s) is open: %d", what,
	      ours);
	int e = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	CHECK(dup2(e, ours) == ours, "host's dup2 onto %d", ours);
	flip("after the dup2");
	/* Written through the library's old number, read through the
	 * host's first number: the same eventfd. */
	check_eventfd(ours, e, "after the updates");
	check_footprint(2, "after the updates");
}

static void dup2_onto_ours(void)
{
	dup2_onto(PROC_MEM, true);
}

static void dup2_onto_standin(void)
{
	dup2_onto(STAND_IN, false);
}

static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;

static void *idle_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&idle_lock); /* until main() lets it end */
	pthread_mutex_unlock(&idle_lock);
	return NULL;
}

static void lend_after_close(void)
{
	pthread_t t;

	flip("before the close-all");
	close_all();
	int e = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pthread_mutex_lock(&idle_lock);
	/* Running (its mask restored) but not yet scanned by the library. */
	CHECK(start_thread(&t, NULL, idle_thread, NULL) == 0, "thread");
	flip("with a thread the library has not seen");
	pthread_mutex_unlock(&idle_lock);
	pthread_join(t, NULL);
	check_eventfd(e, e, "after the updates");
	check_footprint(1, "after the updates");
}

static void fork_child(void)
{
	int status = -1;

	flip("in the parent, before fork");
	pid_t kid = fork();
	if (kid == 0) {
		close_all();
		int e = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		flip("in the child, after its close-all");
		check_eventfd(e, e, "in the child");
		check_footprint(1, "in the child");
		fflush(NULL);
		_exit(check_failed_count ? 1 : 0);
	}
	CHECK(waitpid(kid, &status, 0) == kid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "the child's checks passed (0x%x)",
	      status);
	flip("in the parent, after the child");
	check_footprint(0, "in the parent");
}

static void exec_case(void)
{
	flip("before exec");
	fflush(NULL);
	execl("/proc/self/exe", "host_descriptors", "exec_image", (char *)NULL);
	CHECK(0, "exec: %s", strerror(errno));
}

/* The new image: its own library's stand-in only, no /proc/self/mem. */
static void exec_image(void)
{
	CHECK(find_fd(PROC_MEM) < 0, "no /proc/self/mem crossed exec");
	int standins = 0;
	for (int fd = find_fd(STAND_IN); fd >= 0; fd = -1) {
		char target[256];
		for (int i = fd; i < 1024; i++) {
			fd_target(i, target, sizeof(target));
			standins += strstr(target, STAND_IN) != NULL;
		}
	}
	CHECK(standins == 1, "the new image holds only its own stand-in (%d)",
	      standins);
	flip("in the new image");
}

/* One request to the control server at @path: its reply, or NULL after
 * 2 s (a request the old socket swallowed is asked again). */
static char *ask_control(const char *path, const char *req)
{
	char *reply = NULL;
	int fd = client_connect(path);

	if (fd >= 0 && client_send(fd, req, strlen(req)) == 0) {
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, 2000) == 1)
			reply = client_line(fd);
	}
	if (fd >= 0)
		close(fd);
	return reply;
}

static void control_close_all(void)
{
	char path[108], *reply = NULL;
	int pair[2];

	CHECK(sk_control_start(NULL) == 0, "control server started");
	CHECK(sk_control_socket_path(path, sizeof(path)) == 0, "its path");
	char *first = ask_control(path, "list\n");
	CHECK(reply_ok(first), "it answers (%s)", first ? first : "nothing");
	free(first);
	flip("with the server running");
	close_all();
	CHECK(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pair) == 0,
	      "host's socketpair");
	int e = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	struct wait_for w = wait_for_begin();
	while (!reply_ok(reply) && !wait_for_expired(&w)) {
		free(reply);
		reply = ask_control(path, "list\n");
	}
	CHECK(reply_ok(reply), "the server answers again after the close-all "
	      "(%.1f s): %s", wait_for_elapsed(&w), reply ? reply : "nothing");
	free(reply);
	flip("after the server's new socket");
	/* Nothing was read from or written to the host's sockets. */
	char byte;
	CHECK(recv(pair[0], &byte, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN &&
	      recv(pair[1], &byte, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN,
	      "the host's sockets received nothing");
	CHECK(send(pair[0], "x", 1, 0) == 1 && recv(pair[1], &byte, 1, 0) == 1 &&
	      byte == 'x', "the host's socketpair still works");
	check_eventfd(e, e, "after the server's new socket");
	CHECK(sk_control_stop() == 0, "the server stops");
	check_eventfd(e, e, "after the stop");
	CHECK(send(pair[1], "y", 1, 0) == 1 && recv(pair[0], &byte, 1, 0) == 1 &&
	      byte == 'y', "the host's socketpair works after the stop");
}

/* The file STATICKEYS_FILE names in the config_close_all case (set by
 * main() for that case's process). */
#define CONFIG_ENV "SK_TEST_HOST_CONFIG"

/* Write a version of the followed file: a new file renamed over it. */
static void config_write(const char *path, const char *text)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "wrote %s", tmp);
	CHECK(rename(tmp, path) == 0, "renamed over %s", path);
}

static void config_close_all(void)
{
	const char *path = getenv(CONFIG_ENV);
	char dir[PATH_MAX], ev[4096];
	uint64_t got = 0, one = 1;

	int watch = find_fd("anon_inode:inotify");
	CHECK(path && watch >= 3, "the watcher's inotify is open "
	      "(STATICKEYS_FILE=%s)", path ? path : "unset");
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	flip("before the close-all");
	close_all();
	/* The host's own watch of the same directory, as a program that
	 * follows its own configuration has, and an eventfd with a count,
	 * on the watch's old number too: readable, none the library's. */
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	CHECK(in == 3, "the host's inotify took number 3 (%d)", in);
	CHECK(inotify_add_watch(in, dir, IN_MOVED_TO | IN_CLOSE_WRITE) >= 0,
	      "the host watches %s", dir);
	int e = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), host = 2;
	CHECK(e == 4 && write(e, &one, sizeof(one)) == sizeof(one),
	      "the host's eventfd took number 4 (%d) and counts 1", e);
	if (watch > e) {
		CHECK(dup2(e, watch) == watch, "the host's eventfd also on the "
		      "watch's number %d", watch);
		host++;
	}
	config_write(path, "host_key = 1\n");
	WAIT_FOR(host_site() == 1, "the version written after the close-all "
		 "was applied");
	config_write(path, "host_key = 0\n");
	WAIT_FOR(host_site() == 0, "and the next one");
	/* The host's queue holds its events (the library read none). */
	ssize_t n = read(in, ev, sizeof(ev));
	bool named = false;
	for (char *p = ev; n > 0 && p < ev + n;) {
		const struct inotify_event *ie = (const void *)p;
		named |= ie->len && strstr(path, ie->name) != NULL;
		p += sizeof(*ie) + ie->len;
	}
	CHECK(named, "the host's inotify still holds its events for the file "
	      "(%zd bytes)", n);
	CHECK(read(e, &got, sizeof(got)) == sizeof(got) && got == 1,
	      "the host's eventfd still counts 1 (%llu)",
	      (unsigned long long)got);
	flip("after the new watch");
	/* The host's, and the library's watch and its place for files. */
	int fds = count_fds() - inherited;
	CHECK(fds == host + 2 || fds == host + 1, "%d descriptors open, the "
	      "host's %d and the library's 2 at most", fds, host);
}

static const struct check_case cases[] = {
	{ "standin_eventfd", standin_eventfd },
	{ "mem_close_all", mem_close_all },
	{ "mem_reused_by_file", mem_reused_by_file },
	{ "close_range", close_range_case },
	{ "dup2_onto_ours", dup2_onto_ours },
	{ "dup2_onto_standin", dup2_onto_standin },
	{ "lend_after_close", lend_after_close },
	{ "fork_child", fork_child },
	{ "exec", exec_case },
	{ "exec_image", exec_image },
	{ "control_close_all", control_close_all },
	{ "config_close_all", config_close_all },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* Run one case in a fresh process; its stderr is read to count the
 * library's warnings.  Return: its exit status (77: skipped). */
static int run_case(const char *name, int want_warnings)
{
	int err[2], status = -1;
	char buf[65536];
	size_t len = 0;

	if (pipe2(err, O_CLOEXEC))
		return 1;
	fflush(NULL);
	pid_t kid = fork();
	if (kid == 0) {
		dup2(err[1], 2);
		const char *conf = getenv(CONFIG_ENV);
		if (strcmp(name, "config_close_all") == 0 && conf)
			setenv("STATICKEYS_FILE", conf, 1);
		execl("/proc/self/exe", "host_descriptors", name, (char *)NULL);
		_exit(127);
	}
	close(err[1]);
	for (ssize_t n; len < sizeof(buf) - 1 &&
			(n = read(err[0], buf + len, sizeof(buf) - 1 - len)) > 0;)
		len += (size_t)n;
	buf[len] = '\0';
	close(err[0]);
	waitpid(kid, &status, 0);
	fputs(buf, stderr);
	int warnings = 0;
	for (const char *p = buf; (p = strstr(p, WARNING)); p++)
		warnings++;
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	CHECK(code == 0 || code == SK_TEST_SKIP, "case %s passed (exit %d)",
	      name, code);
	/* The mprotect writer does not use the descriptor on every update:
	 * it may never find the number gone, and then says nothing. */
	const char *w = getenv("STATICKEYS_WRITER");
	bool procmem = !w || strcmp(w, "mprotect") != 0;
	if (code == 0)
		CHECK(procmem ? warnings == want_warnings
			      : warnings <= want_warnings,
		      "case %s: the library warned %d times that it left a "
		      "descriptor alone (want %s%d)", name, warnings,
		      procmem ? "" : "at most ", want_warnings);
	return code;
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		/* Open now: the harness's and the library's stand-in. */
		inherited = count_fds() - 1;
		return check_run_cases(cases, NCASES, argc, argv);
	}
	/* The followed file of config_close_all, in a directory of its
	 * own (the host watches that directory too). */
	char conf_dir[] = "/tmp/sk_host_config_XXXXXX", conf[PATH_MAX];
	CHECK(mkdtemp(conf_dir) != NULL, "a directory for the config file");
	snprintf(conf, sizeof(conf), "%s/keys.conf", conf_dir);
	config_write(conf, "host_key = 0\n");
	setenv(CONFIG_ENV, conf, 1);
	for (size_t i = 0; i < NCASES; i++) {
		const char *name = cases[i].name;
		if (strcmp(name, "exec_image") == 0)
			continue; /* run by "exec" */
		int warnings = !strcmp(name, "exec") ? 0
			       : !strcmp(name, "control_close_all") ||
					 !strcmp(name, "config_close_all")
				       ? 2 : 1;
		int code = run_case(name, warnings);
		printf("%s: %s\n", name, code == 0 ? "passed"
				       : code == SK_TEST_SKIP ? "skipped"
							      : "FAILED");
	}
	unlink(conf);
	rmdir(conf_dir);
	return check_summary();
}
