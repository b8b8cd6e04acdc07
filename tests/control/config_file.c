/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * config_file.c - STATICKEYS_FILE: the state a file gives at start-up and
 * every later version of it, applied by the watcher thread as one commit.
 *
 *	config_file file PLUGIN a plain file: start-up state (STATICKEYS
 *	                        winning over it; a plugin's key at dlopen), an
 *	                        edit in place, rename-over, a bad line,
 *	                        deletion and return, 100 versions in a burst,
 *	                        a version changing exactly the keys whose
 *	                        lines changed, names no key has (a warning
 *	                        per version, `unmatched`), a file over 1 MiB,
 *	                        a writer in place stalling with the file open
 *	config_file configmap   a directory laid out as a Kubernetes ConfigMap
 *	                        volume ("..data" symlink swapped by rename):
 *	                        files in name order, a swap, a bad swap
 *	config_file configmap_file   STATICKEYS_FILE names one key's symlink
 *	                        in such a volume: swaps are followed too
 *	config_file syslog      STATICKEYS_AUDIT=syslog: the audit lines reach
 *	                        /dev/log (the test's own socket there, in a
 *	                        private mount namespace: needs root)
 *	config_file syslog_default   STATICKEYS_AUDIT unset: the same, the
 *	                        default; nothing on the program's stderr
 *
 * The test prepares the files, then runs itself again with STATICKEYS_FILE
 * (and STATICKEYS, for the environment's audit line) set and stderr going
 * to a file, so the start-up state is applied before main.  What the
 * program does is read from its own sites; the library's messages and
 * audit lines are read back from that file.  Waits for what the watcher
 * must do are deadlines (60 s: a loaded machine may keep it off a core),
 * except the latency check: an edit must be applied within 100 ms (the
 * median of the timed edits, so one scheduling hiccup of a loaded machine
 * does not decide it).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <statickeys.h>

#include "../check.h"
#include "../wait_for.h"
#include "client.h"

SK_DEFINE_KEY_FALSE(cf_a);
SK_DEFINE_KEY_FALSE(cf_b);
SK_DEFINE_KEY_FALSE(cf_c);
SK_DEFINE_KEY_FALSE(cf_d);
SK_DEFINE_KEY_FALSE(cf_env);

/* site_X(): 1 when the site of key cf_X takes its jump. */
#define SITE(x)                                                           \
	__attribute__((noinline)) static int site_##x(void)               \
	{                                                                 \
		return sk_branch_unlikely(&cf_##x) ? 1 : 0;               \
	}
SITE(a)
SITE(b)
SITE(c)
SITE(d)
SITE(env)

static char dir[64], errfile[100];

/* The four sites as a number: a=1, b=2, c=4, d=8. */
static int sites(void)
{
	return site_a() | site_b() << 1 | site_c() << 2 | site_d() << 3;
}

/* Wait until the sites read @want; the time it took in ms, or -1 after
 * WAIT_FOR_SECONDS (60). */
static double wait_sites(int want)
{
	struct wait_for w = wait_for_begin();
	while (!wait_for_expired(&w)) {
		if (sites() == want)
			return wait_for_elapsed(&w) * 1e3;
		usleep(200);
	}
	return -1;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Write a new file next to @path and rename it over @path. */
static void replace_file(const char *path, const char *text)
{
	char tmp[512];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	write_file(tmp, text);
	rename(tmp, path);
}

/* How often @needle occurs in what the library wrote to stderr. */
static int stderr_count(const char *needle)
{
	static char buf[1 << 20];
	int fd = open(errfile, O_RDONLY), n = 0;
	ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : 0;
	if (fd >= 0)
		close(fd);
	buf[len > 0 ? len : 0] = '\0';
	for (char *p = buf; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static bool wait_stderr(const char *needle, int count)
{
	struct wait_for w = wait_for_begin();
	while (!wait_for_expired(&w)) {
		if (stderr_count(needle) >= count)
			return true;
		usleep(1000);
	}
	return false;
}

/*
 * Commits, counted on every backend: the watcher applies each version under
 * one hold of the patch lock (the keys' snapshot and the commit), and
 * nothing else takes the lock while these checks run but the test's own
 * snapshots, which are not counted.  A backend that
 * patches code also runs one batch per commit; the portable one runs none
 * (it writes no code), and that is checked too.
 */
struct counts {
	uint64_t holds, batches, updates;
};

/*
 * The sites show a version's states before the watcher has counted its
 * commit: it counts the updates and the batch, then its hold of the lock as
 * it lets go, and a loaded machine can preempt it in between for longer
 * than any sleep here.  So every count is read after taking the lock once
 * (a snapshot of the keys), which waits for a commit in progress to end;
 * those holds of the test's own are not commits.
 */
static uint64_t own_holds;

static void wait_for_commit_in_progress(void)
{
	struct sk_key_info *v;
	size_t n;

	if (sk_keys_snapshot(&v, &n) == 0)
		sk_keys_snapshot_free(v);
	own_holds++;
}

static struct counts counts(void)
{
	struct sk_stats s;
	struct sk_histogram h;

	wait_for_commit_in_progress();
	sk_stats_get(&s);
	sk_stats_histogram(SK_HIST_LOCK_HOLD, &h);
	return (struct counts){ h.count - own_holds, s.batches, s.updates };
}

static bool patching(void)
{
	struct sk_stats s;
	sk_stats_get(&s);
	return strcmp(s.backend, "portable") != 0;
}

/* The commits from @c0 to @c, or -1 when the batches do not match them. */
static long commits_since_at(struct counts c0, struct counts c)
{
	uint64_t commits = c.holds - c0.holds;

	return c.batches - c0.batches == (patching() ? commits : 0)
		       ? (long)commits : -1;
}

static long commits_since(struct counts c0)
{
	return commits_since_at(c0, counts());
}

static uint64_t updates(void)
{
	return counts().updates;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Descriptors of this process whose link contains @what. */
static int fds_to(const char *what)
{
	char link[64], target[512];
	int n = 0;

	for (int fd = 0; fd < 1024; fd++) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		ssize_t len = readlink(link, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		n += strstr(target, what) != NULL;
	}
	return n;
}

static int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n - 2; /* "." and ".." */
}

static const char *const all_off = "cf_a = 0\ncf_b = 0\ncf_c = 0\ncf_d = 0\n";
static const char *const all_on = "cf_a = 1\ncf_b = 1\ncf_c = 1\ncf_d = 1\n";

/* Each edit is applied within 100 ms (median), as one commit. */
static void timed_edits(const char *path)
{
	static const struct {
		const char *text;
		int sites;
	} v[] = {
		{ "cf_a = 0\ncf_b = 1\n", 2 },
		{ "# several keys, one commit\ncf_a=1\ncf_b=0\ncf_c = on\n", 5 },
		{ "cf_c = off\ncf_d = yes\n", 9 },
		{ "cf_a = 0\ncf_d = 0\n", 0 },
		{ "cf_b = 1\ncf_c = 1\ncf_d = 1\n", 14 },
		{ all_off, 0 },
	};
	double lat[6];

	for (int i = 0; i < 6; i++) {
		struct counts c0 = counts();
		/* Even: an editor writing in place; odd: rename-over. */
		(i % 2 ? replace_file : write_file)(path, v[i].text);
		lat[i] = wait_sites(v[i].sites);
		printf("version %d (%s): applied after %.1f ms\n", i,
		       i % 2 ? "renamed over" : "written in place", lat[i]);
		CHECK(lat[i] >= 0, "version %d (%s) applied: sites %d, want %d",
		      i, i % 2 ? "renamed over" : "written in place", sites(),
		      v[i].sites);
		usleep(50000);
		long n = commits_since(c0);
		CHECK(n == 1, "version %d is one commit: %ld (-1: batches "
		      "differ)", i, n);
	}
	qsort(lat, 6, sizeof(lat[0]), cmp_double);
	printf("edit applied after %.1f ms (median; min %.1f, max %.1f)\n",
	       (lat[2] + lat[3]) / 2, lat[0], lat[5]);
	CHECK((lat[2] + lat[3]) / 2 < 100, "median %.1f ms, limit 100 ms",
	      (lat[2] + lat[3]) / 2);
}

/* A bad line applies nothing and is named; so is a deleted file. */
static void bad_and_deleted(const char *path)
{
	char needle[400];
	struct counts c0 = counts();

	write_file(path, "cf_a = 1\ncf_b = maybe\n");
	snprintf(needle, sizeof(needle), "%s:2: the value is not one of 0/1", path);
	CHECK(wait_stderr(needle, 1), "a message names %s:2", path);
	CHECK(sites() == 0 && commits_since(c0) == 0, "a bad version applies "
	      "nothing (sites %d, %ld commits)", sites(), commits_since(c0));
	unlink(path);
	snprintf(needle, sizeof(needle), "%s was removed", path);
	CHECK(wait_stderr(needle, 1), "a message says the file was removed");
	CHECK(sites() == 0 && commits_since(c0) == 0, "deletion keeps the "
	      "state");
	replace_file(path, "cf_d = 1\n");
	CHECK(wait_sites(8) >= 0, "the file applies again when it is back");
}

/* 100 versions renamed into place as fast as possible: every commit is a
 * whole version (all four keys flip together), the last one wins. */
static void burst(const char *path)
{
	replace_file(path, all_off);
	CHECK(wait_sites(0) >= 0, "burst: starts all off");
	usleep(100000);
	struct counts c0 = counts();
	for (int i = 0; i < 100; i++)
		replace_file(path, i % 2 ? all_on : all_off);
	/* Then a version whose state no burst version has (sites 5): once
	 * the sites show it, no older version is still to be applied, however
	 * long the watcher took.  It changes 2 keys from either. */
	replace_file(path, "cf_a = 1\ncf_b = 0\ncf_c = 1\ncf_d = 0\n");
	CHECK(wait_sites(5) >= 0, "burst: the last version wins: sites %d, "
	      "want 5", sites());
	usleep(100000);
	struct counts c = counts();
	long dc = commits_since_at(c0, c);
	uint64_t du = c.updates - c0.updates;
	printf("100 versions in a burst, and one more: %ld commits\n", dc);
	CHECK(sites() == 5 && dc >= 1 && dc <= 101 &&
		      du == 4 * (uint64_t)(dc - 1) + 2,
	      "every commit applied a whole version: %llu key changes in %ld "
	      "commits (-1: batches differ)", (unsigned long long)du, dc);
}

/* A new version changes exactly the keys whose lines changed: a key
 * changed since by the program (as by `skctl set`) keeps that state when
 * its line is left as it was; the same bytes again change nothing. */
static void exact_versions(const char *path)
{
	replace_file(path, all_on);
	CHECK(wait_sites(15) >= 0, "exact: starts all on");
	usleep(100000);
	CHECK(sk_key_disable(&cf_a) == 0 && sites() == 14, "cf_a turned off "
	      "from outside the file");
	uint64_t u0 = updates();
	replace_file(path, "cf_a = 1\ncf_b = 0\ncf_c = 1\ncf_d = 1\n");
	CHECK(wait_sites(12) >= 0, "a version changing cf_b's line applies: "
	      "sites %d, want 12 (cf_a still off)", sites());
	usleep(100000);
	CHECK(sites() == 12 && updates() - u0 == 1, "it changed cf_b alone "
	      "(%llu updates): cf_a, whose line did not change, stays off",
	      (unsigned long long)(updates() - u0));
	u0 = updates();
	replace_file(path, "# a comment\ncf_a = 1\ncf_b = 0\ncf_c = 1\n"
			   "cf_d = on\n");
	write_file(path, "# a comment\ncf_a = 1\ncf_b = 0\ncf_c = 1\n"
			 "cf_d = on\n"); /* the same bytes in place */
	usleep(200000);
	CHECK(sites() == 12 && updates() == u0, "new bytes with the same "
	      "states, then the same bytes again, change nothing (%llu "
	      "updates)", (unsigned long long)(updates() - u0));
}

/* A version renamed into place, then at once the file written in place with
 * the same states (an editor's save, then a tool's): the watcher, reading
 * for the rename, may read while the file is emptied, and the events of
 * the truncation, the write and the close all reach it after that read.
 * The emptied file read must not be taken as a version (the whole file
 * after it would then change every line, cf_a too).  Each round's
 * comment makes new bytes; cf_b's line changes each round so that the
 * sites show when the round has been read. */
static void in_place_right_after_rename(const char *path)
{
	char text[200];

	CHECK(sites() == 12, "after exact: cf_a off (by the program), cf_b "
	      "off, cf_c and cf_d on: sites %d", sites());
	for (int i = 0; i < 30; i++) {
		int b = i % 2 == 0;
		snprintf(text, sizeof(text), "# round %d\ncf_a = 1\ncf_b = %d\n"
			 "cf_c = 1\ncf_d = 1\n", i, b);
		replace_file(path, text);
		snprintf(text, sizeof(text), "# round %d, in place\ncf_a = 1\n"
			 "cf_b = %d\ncf_c = 1\ncf_d = 1\n", i, b);
		write_file(path, text);
		CHECK(wait_sites(12 | b << 1) >= 0, "round %d: cf_b %d, cf_a "
		      "(its line as it was) still off: sites %d", i, b, sites());
	}
	replace_file(path, "# a comment\ncf_a = 1\ncf_b = 0\ncf_c = 1\n"
			   "cf_d = on\n");
	CHECK(wait_sites(12) >= 0, "back to exact's version: sites %d",
	      sites());
}

/* A name no key has is said with FILE:LINE once per version (a typo must
 * not go unseen), and `unmatched` lists it; the start-up version's too. */
static void unknown_names(const char *path)
{
	char needle[400], sock[108];

	snprintf(needle, sizeof(needle), "%s:6: no key named \"plugin_key\"",
		 path);
	CHECK(stderr_count(needle) == 1, "the start-up version's unknown "
	      "name, said once: %s", needle);
	write_file(path, "cf_a = 1\ncf_tpyo = 1\n");
	snprintf(needle, sizeof(needle), "%s:2: no key named \"cf_tpyo\"",
		 path);
	CHECK(wait_stderr(needle, 1), "a warning names %s", needle);
	write_file(path, "cf_a = 1\ncf_tpyo = 1\n"); /* the same version */
	usleep(200000);
	CHECK(stderr_count(needle) == 1, "said once per version, not again "
	      "for the same bytes");
	replace_file(path, "cf_a = 1\ncf_tpyo = 1\ncf_b = 1\n");
	CHECK(wait_stderr(needle, 2), "and again for a new version that still "
	      "has it");
	CHECK(stderr_count("no key named \"cf_") == 2, "no other name of the "
	      "program's was taken for unknown (%d messages, want 2)",
	      stderr_count("no key named \"cf_"));
	CHECK(wait_sites(14) >= 0, "the version's changed line applied (cf_b; "
	      "cf_a, unchanged, still off): sites %d, want 14", sites());
	snprintf(sock, sizeof(sock), "%s/u.sock", dir);
	CHECK(sk_control_start(sock) == 0, "control socket at %s", sock);
	int fd = client_connect(sock);
	char *reply = fd >= 0 ? client_ask(fd, "unmatched\n") : NULL;
	snprintf(needle, sizeof(needle), "\"unmatched\":[{\"file\":\"%s\","
		 "\"line\":2,\"name\":\"cf_tpyo\"}]", path);
	CHECK(reply && strstr(reply, needle), "unmatched lists the line: %.300s",
	      reply ? reply : "(no reply)");
	free(reply);
	if (fd >= 0)
		close(fd);
	sk_control_stop();
}

/* A file over 1 MiB (docs/fleet.md, STATICKEYS_FILE) is refused as a bad line is: nothing
 * applied, one message naming it. */
static void over_one_mib(const char *path)
{
	static char text[(1 << 20) + 2];
	char needle[400];

	memset(text, '#', sizeof(text) - 2);
	text[sizeof(text) - 2] = '\n'; /* 1 MiB + 1 byte of comment */
	replace_file(path, "cf_a = 0\ncf_b = 0\ncf_c = 0\ncf_d = 0\n");
	CHECK(wait_sites(0) >= 0, "1 MiB: starts all off");
	memcpy(text, "cf_a = 1\n", 9);
	replace_file(path, text);
	snprintf(needle, sizeof(needle), "%s: not a regular file of at most "
		 "1 MiB", path);
	CHECK(wait_stderr(needle, 1), "a file of 1 MiB + 1 byte is refused, "
	      "named: %s", needle);
	CHECK(sites() == 0, "and applies nothing");
	text[sizeof(text) - 2] = '\0'; /* 1 MiB exactly: read */
	replace_file(path, text);
	CHECK(wait_sites(1) >= 0, "a file of exactly 1 MiB applies");
}

/* A program writing the file in place that stalls after truncating it (a
 * shell's `curl URL > keys.conf`): the file is read when it is closed, not
 * while it is empty or half written, even when another file of the
 * directory changes meanwhile (an event the watcher reads the file for).
 * So the version is one commit changing exactly the line that changed: a
 * key changed since by the program keeps its state, as for any version. */
static void stalled_in_place_writer(const char *path)
{
	char other[300];

	CHECK(sites() == 1, "stalled writer: starts with cf_a on: sites %d",
	      sites());
	CHECK(sk_key_disable(&cf_a) == 0 && sites() == 0, "cf_a turned off "
	      "from outside the file");
	struct counts c0 = counts();
	uint64_t u0 = updates();
	int fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0, "%s opened for writing in place", path);
	snprintf(other, sizeof(other), "%s/notes.txt", dir);
	write_file(other, "not a key file\n");
	/* Stalls longer than the watcher's quiet and burst windows (10 and
	 * 50 ms) and well short of the second after which a quiet writer's
	 * file is read all the same. */
	usleep(150000);
	CHECK(write(fd, "cf_a = 1\n", 9) == 9, "the first line written");
	usleep(150000);
	CHECK(write(fd, "cf_b = 1\n", 9) == 9, "the second line written");
	CHECK(sites() == 0 && commits_since(c0) == 0, "nothing applied while "
	      "the file is open for writing (sites %d, %ld commits)", sites(),
	      commits_since(c0));
	close(fd);
	CHECK(wait_sites(2) >= 0, "the closed version applies cf_b: sites %d, "
	      "want 2 (cf_a, whose line is as it was, still off)", sites());
	usleep(100000);
	CHECK(sites() == 2 && updates() - u0 == 1 && commits_since(c0) == 1,
	      "one commit of one change (%llu updates, %ld commits)",
	      (unsigned long long)(updates() - u0), commits_since(c0));
}

/* The audit ring, as `skctl log` reads it. */
static void check_log(const char *source)
{
	char sock[108];
	snprintf(sock, sizeof(sock), "%s/s.sock", dir);
	CHECK(sk_control_start(sock) == 0, "control socket at %s", sock);
	int fd = client_connect(sock);
	char *reply = fd >= 0 ? client_ask(fd, "log\n") : NULL;
	CHECK(reply && strstr(reply, source), "log names \"%s\": %.300s", source,
	      reply ? reply : "(no reply)");
	free(reply);
	if (fd >= 0)
		close(fd);
	sk_control_stop();
}

/* A forked child has no watcher: no thread, the descriptor closed, the
 * key states kept. */
static void fork_child_forgets_watcher(void)
{
	int before = sites();
	pid_t pid = fork();

	if (pid == 0)
		_exit(fds_to("inotify") == 0 && threads() == 1 &&
			      sites() == before ? 0 : 1);
	int status = -1;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child of a "
	      "fork: no inotify descriptor, one thread, the same key states");
}

/* The file's line for a plugin's key applies before dlopen() returns. */
static void plugin_from_file(const char *path)
{
	char needle[400];
	void *h = dlopen(getenv("SK_TEST_PLUGIN"), RTLD_NOW);
	bool (*site)(void) = h ? (bool (*)(void))dlsym(h, "plugin_site") : NULL;

	CHECK(site && site(), "plugin_key is on when dlopen returns");
	snprintf(needle, sizeof(needle), "file %s:6: plugin_key 0 -> 1: ok",
		 path);
	CHECK(stderr_count(needle) == 1, "one audit line: %s", needle);
}

static void file_mode(void)
{
	char path[300], needle[400];

	snprintf(path, sizeof(path), "%s/keys.conf", dir);
	/* STATICKEYS_FILE=keys.conf was relative to the start-up directory. */
	CHECK(chdir("/") == 0, "chdir /");
	CHECK(sites() == 1, "start-up: cf_a on before main, sites %d", sites());
	CHECK(fds_to("inotify") == 1 && fds_to("keys.conf") == 0 &&
	      threads() == 2, "one inotify descriptor, the file not held "
	      "open, one thread more: %d, %d, %d", fds_to("inotify"),
	      fds_to("keys.conf"), threads());
	CHECK(site_env(), "STATICKEYS applies too");
	snprintf(needle, sizeof(needle), "file %s:1: cf_a 0 -> 1: ok", path);
	CHECK(stderr_count(needle) == 1, "one audit line: %s", needle);
	CHECK(stderr_count("environment STATICKEYS: cf_env 0 -> 1: ok") == 1,
	      "one audit line for the environment");
	CHECK(!site_d() && stderr_count("environment STATICKEYS: cf_d 1 -> "
					"0: ok") == 1, "STATICKEYS wins over the "
	      "file (cf_d = 1 in the file, cf_d=0 in the environment)");
	plugin_from_file(path);
	fork_child_forgets_watcher();
	timed_edits(path);
	bad_and_deleted(path);
	burst(path);
	snprintf(needle, sizeof(needle), "\"source\":\"file %s:4\"", path);
	check_log(needle);
	exact_versions(path);
	in_place_right_after_rename(path);
	unknown_names(path);
	over_one_mib(path);
	stalled_in_place_writer(path);
}

/* A ConfigMap update: a new timestamped directory, "..data" renamed over. */
static void configmap_swap(const char *cm, int version, const char *a,
			   const char *b)
{
	char path[300], link[700];

	snprintf(path, sizeof(path), "%s/..v%d", cm, version);
	mkdir(path, 0755);
	snprintf(link, sizeof(link), "%s/a.conf", path);
	write_file(link, a);
	snprintf(link, sizeof(link), "%s/b.conf", path);
	write_file(link, b);
	snprintf(path, sizeof(path), "..v%d", version);
	snprintf(link, sizeof(link), "%s/..data_tmp", cm);
	CHECK(symlink(path, link) == 0, "symlink %s", link);
	snprintf(path, sizeof(path), "%s/..data", cm);
	CHECK(rename(link, path) == 0, "rename ..data_tmp over ..data");
	/* The kubelet then removes the previous version. */
	snprintf(path, sizeof(path), "rm -rf '%s/..v%d'", cm, version - 1);
	CHECK(system(path) == 0, "%s", path);
}

static void configmap_mode(void)
{
	char cm[300], needle[400];
	struct counts c0;

	snprintf(cm, sizeof(cm), "%s/cm", dir);
	CHECK(sites() == 1, "start-up: a.conf then b.conf (b wins cf_b), "
	      "notes.txt ignored: sites %d, want 1", sites());
	c0 = counts();
	configmap_swap(cm, 2, "cf_a = 0\ncf_c = 1\n", "cf_d = 1\n");
	CHECK(wait_sites(12) >= 0, "a swap applies: sites %d, want 12",
	      sites());
	usleep(50000);
	CHECK(commits_since(c0) == 1, "a swap is one commit");
	c0 = counts();
	configmap_swap(cm, 3, "cf_a = 1\n", "cf_d = 2\n");
	snprintf(needle, sizeof(needle), "%s/b.conf:1:", cm);
	CHECK(wait_stderr(needle, 1), "a bad swap names %s", needle);
	CHECK(sites() == 12 && commits_since(c0) == 0, "a bad swap applies nothing, "
	      "not even the good file's line");
	configmap_swap(cm, 4, "cf_a = 1\n", "cf_d = 0\n");
	CHECK(wait_sites(5) >= 0, "the next good swap applies: sites %d",
	      sites());
	CHECK(stderr_count("audit") == 0, "STATICKEYS_AUDIT=off: no lines");
	snprintf(needle, sizeof(needle), "\"source\":\"file %s/a.conf:1\"", cm);
	check_log(needle);
}

/* The ConfigMap volume as the kubelet first writes it. */
static void prepare_configmap(void)
{
	char path[600];
	static const char *const files[][2] = {
		{ "a.conf", "cf_a = 1\ncf_b = 1\n" },
		{ "b.conf", "# later files win\ncf_b = 0\n" },
		{ "notes.txt", "cf_c = 1\n" },
	};

	snprintf(path, sizeof(path), "%s/cm", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/cm/..v1", dir);
	mkdir(path, 0755);
	for (int i = 0; i < 3; i++) {
		char link[600], target[64];
		snprintf(path, sizeof(path), "%s/cm/..v1/%s", dir, files[i][0]);
		write_file(path, files[i][1]);
		snprintf(target, sizeof(target), "..data/%s", files[i][0]);
		snprintf(link, sizeof(link), "%s/cm/%s", dir, files[i][0]);
		CHECK(symlink(target, link) == 0, "symlink %s", link);
	}
	snprintf(path, sizeof(path), "%s/cm/..data", dir);
	CHECK(symlink("..v1", path) == 0, "symlink %s", path);
}

/* STATICKEYS_FILE=cm/a.conf, a symlink through "..data". */
static void configmap_file_mode(void)
{
	char cm[100];
	struct counts c0 = counts();

	snprintf(cm, sizeof(cm), "%s/cm", dir);
	CHECK(sites() == 3, "start-up: a.conf alone: sites %d, want 3",
	      sites());
	configmap_swap(cm, 2, "cf_a = 0\ncf_c = 1\n", "cf_d = 1\n");
	CHECK(wait_sites(6) >= 0, "a swap applies a.conf's new version: sites "
	      "%d, want 6", sites());
	usleep(50000);
	CHECK(commits_since(c0) == 1, "one commit");
	configmap_swap(cm, 3, "cf_b = 0\n", "cf_d = 1\n");
	CHECK(wait_sites(4) >= 0, "and the next: sites %d, want 4", sites());
}

/* STATICKEYS_AUDIT=syslog: the start-up changes' lines arrived at the
 * socket the parent bound at /dev/log (descriptor SK_TEST_SYSLOG_FD), and
 * none went to stderr. */
static void syslog_mode(void)
{
	char msg[1024], needle[400];
	int fd = atoi(getenv("SK_TEST_SYSLOG_FD")), n = 0;
	bool file_line = false, env_line = false;
	ssize_t len;

	CHECK(sites() == 1 && site_env(), "start-up state applied");
	while ((len = recv(fd, msg, sizeof(msg) - 1, MSG_DONTWAIT)) > 0) {
		msg[len] = '\0';
		printf("syslog got: %s\n", msg);
		snprintf(needle, sizeof(needle), "file %s/keys.conf:1: cf_a 0 -> "
			 "1: ok", dir);
		bool audit = strstr(msg, "statickeys audit:");
		file_line |= audit && strstr(msg, needle);
		env_line |= audit && strstr(msg, "environment STATICKEYS: "
						  "cf_env 0 -> 1: ok");
		n++;
	}
	/* cf_a and cf_d from the file, cf_env and cf_d from STATICKEYS. */
	CHECK(n == 4 && file_line && env_line, "four audit messages at "
	      "/dev/log (file and environment), got %d", n);
	CHECK(stderr_count("audit") == 0, "none on stderr");
}

/* The child's own /dev with a datagram socket at /dev/log, where syslog(3)
 * sends; skipped when the mount namespace cannot be made. */
static void private_dev_log(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char fdnum[16];

	if (unshare(CLONE_NEWNS) != 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", "/dev", "tmpfs", 0, "mode=0755") != 0) {
		printf("SKIPPED: a private /dev/log needs a mount namespace "
		       "(root): %s\n", strerror(errno));
		fflush(stdout);
		_exit(77);
	}
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	strcpy(a.sun_path, "/dev/log");
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0)
		_exit(1);
	snprintf(fdnum, sizeof(fdnum), "%d", fd);
	setenv("SK_TEST_SYSLOG_FD", fdnum, 1);
}

/* Prepare, run the child with the environment set, clean up. */
static int parent(const char *self, const char *mode, const char *plugin)
{
	char path[600];

	/* Without STATICKEYS_FILE the runtime holds no descriptor for it and
	 * starts no thread. */
	CHECK(fds_to("inotify") == 0 && threads() == 1, "without "
	      "STATICKEYS_FILE: %d inotify descriptors, %d threads",
	      fds_to("inotify"), threads());
	if (check_failed_count)
		return check_summary();

	snprintf(dir, sizeof(dir), "/tmp/sk-config-file-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(errfile, sizeof(errfile), "%s/stderr", dir);
	if (strncmp(mode, "configmap", 9) != 0) {
		snprintf(path, sizeof(path), "%s/keys.conf", dir);
		write_file(path, "cf_a = 1 \n\t# a comment\n;another\n\n"
				 "cf_d = 1\nplugin_key = 1\n");
		/* Relative, from the directory the child starts in; the
		 * child then moves to "/" (file_mode). */
		snprintf(path, sizeof(path), "keys.conf");
		setenv("STATICKEYS", "cf_env=1,cf_d=0", 1);
		/* syslog_default: STATICKEYS_AUDIT unset, the lines go to
		 * the system log all the same, never to the host's stderr. */
		if (strcmp(mode, "syslog") == 0)
			setenv("STATICKEYS_AUDIT", "syslog", 1);
		else if (strcmp(mode, "file") == 0)
			setenv("STATICKEYS_AUDIT", "stderr", 1);
	} else {
		prepare_configmap();
		snprintf(path, sizeof(path), "%s/cm%s", dir,
			 strcmp(mode, "configmap") ? "/a.conf" : "");
		setenv("STATICKEYS_AUDIT", "off", 1);
	}
	setenv("STATICKEYS_FILE", path, 1);
	if (plugin)
		setenv("SK_TEST_PLUGIN", plugin, 1);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (strncmp(mode, "syslog", 6) == 0)
			private_dev_log();
		int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		if (chdir(dir) != 0)
			_exit(1);
		execl(self, self, "child", mode, dir, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	snprintf(path, sizeof(path), "cat '%s' >&2; rm -rf '%s'", errfile, dir);
	(void)!system(path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && argc <= 3 && argc == 2 + !strcmp(argv[1], "file") &&
	    (!strcmp(argv[1], "file") ||
			  !strcmp(argv[1], "configmap") ||
			  !strcmp(argv[1], "configmap_file") ||
			  !strcmp(argv[1], "syslog") ||
			  !strcmp(argv[1], "syslog_default")))
	{
		/* The child starts in the test's directory: exec by full path. */
		char *self = realpath(argv[0], NULL);
		return parent(self ? self : argv[0], argv[1], argv[2]);
	}
	if (argc != 4 || strcmp(argv[1], "child")) {
		fprintf(stderr, "usage: %s file PLUGIN | configmap | "
			"configmap_file | syslog | syslog_default\n", argv[0]);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[3]);
	snprintf(errfile, sizeof(errfile), "%s/stderr", dir);
	if (!strcmp(argv[2], "file"))
		file_mode();
	else if (!strncmp(argv[2], "syslog", 6)) /* syslog, syslog_default */
		syslog_mode();
	else if (!strcmp(argv[2], "configmap_file"))
		configmap_file_mode();
	else
		configmap_mode();
	return check_summary();
}
