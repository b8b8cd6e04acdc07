/*
 * src/threads_check.c - may this update run, given the state of our threads?
 *
 * Two questions are asked before code is rewritten.
 *
 * 1. Is the caller running a signal handler?  The slow paths take a mutex and
 *    allocate memory, neither of which is async-signal-safe: a handler that
 *    interrupted malloc, or our own trap handler, would deadlock.  We find
 *    out by unwinding the caller's stack with the compiler's unwinder, which
 *    marks the frame the kernel pushed for a signal (glibc's __restore_rt
 *    carries "signal frame" unwind information).  A frame without unwind
 *    information stops the walk early; the answer is then "no", as before
 *    this check existed.
 *
 * 2. Does another thread block SIGTRAP?  While a batch runs, the first byte
 *    of each changing site is int3.  A thread that executes it with SIGTRAP
 *    blocked is not given to our handler: the kernel resets SIGTRAP to its
 *    default action and kills the whole process.  Programs often block every
 *    signal in worker threads, so before a batch we read SigBlk from
 *    /proc/self/task/<tid>/status for every other thread.  glibc blocks all
 *    signals for a few microseconds inside pthread_create() and for the
 *    duration of a vfork inside posix_spawn(); those threads run no sites,
 *    so a blocked thread is re-checked with growing pauses (about 40 ms in
 *    all) before the update is refused with -EBUSY, naming the thread.
 *    STATICKEYS_BLOCKED_SIGTRAP=warn makes it a warning instead, for programs
 *    whose signal-blocking threads never execute sites (glibc's timer and
 *    AIO helper threads, for example).
 *
 *    Without /proc (a mount namespace that hides it) the threads cannot be
 *    inspected; the update goes ahead and a warning says so once.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <unwind.h>

#include "internal.h"

/* ---- 1. called from a signal handler? ------------------------------------ */

static _Unwind_Reason_Code note_signal_frame(struct _Unwind_Context *ctx,
					     void *arg)
{
	int before_insn = 0;

	(void)_Unwind_GetIPInfo(ctx, &before_insn);
	if (before_insn) {
		/* Only signal frames resume *at* their IP, not after a call. */
		*(bool *)arg = true;
		return _URC_END_OF_STACK;
	}
	return _URC_NO_REASON;
}

bool sk__in_signal_handler(void)
{
	bool found = false;

	_Unwind_Backtrace(note_signal_frame, &found);
	return found;
}

/* ---- 2. threads that block SIGTRAP -------------------------------------- */

#define RECHECKS 10
#define FIRST_PAUSE_NS 100000L  /* 0.1 ms, doubled each time ... */
#define MAX_PAUSE_NS 10000000L  /* ... up to 10 ms */

enum policy { POLICY_UNSET, POLICY_REFUSE, POLICY_WARN };

static enum policy policy = POLICY_UNSET;
static bool warned_no_proc;

static enum policy current_policy(void)
{
	if (policy == POLICY_UNSET) {
		const char *env = getenv("STATICKEYS_BLOCKED_SIGTRAP");
		policy = POLICY_REFUSE;
		if (env && strcmp(env, "warn") == 0)
			policy = POLICY_WARN;
		else if (env && *env && strcmp(env, "refuse") != 0)
			sk__warn("STATICKEYS_BLOCKED_SIGTRAP=%s is not refuse or "
				 "warn; refusing updates", env);
	}
	return policy;
}

/* The thread a status file describes: its id and name. */
struct blocker {
	long tid;
	char name[32];
};

static void parse_name(const char *status, char *out, size_t len)
{
	const char *p = strstr(status, "Name:\t");
	size_t n = 0;

	if (p)
		for (p += 6; *p && *p != '\n' && n + 1 < len; p++)
			out[n++] = *p;
	out[n] = '\0';
}

/* 1 if thread @tid blocks SIGTRAP, 0 if not (or it is gone), -errno. */
static int thread_blocks_sigtrap(int dirfd, const char *tid, struct blocker *b)
{
	char path[64], buf[4096];
	int fd;

	strcpy(path, tid);
	strcat(path, "/status");
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0; /* the thread exited between readdir and read */
	buf[n] = '\0';
	const char *p = strstr(buf, "\nSigBlk:\t");
	if (!p)
		return 0;
	unsigned long long mask = strtoull(p + 9, NULL, 16);
	if (!(mask & (1ull << (SIGTRAP - 1))))
		return 0;
	b->tid = atol(tid);
	parse_name(buf, b->name, sizeof(b->name));
	return 1;
}

/* One pass over the threads: 1 with *b filled if one blocks SIGTRAP. */
static int scan_threads(struct blocker *b)
{
	DIR *d = opendir("/proc/self/task");
	long self = (long)gettid();
	struct dirent *e;
	int r = 0;

	if (!d)
		return -errno;
	while (r == 0 && (e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9' ||
		    atol(e->d_name) == self)
			continue;
		r = thread_blocks_sigtrap(dirfd(d), e->d_name, b);
	}
	closedir(d);
	return r;
}

static void pause_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	nanosleep(&ts, NULL);
}

int sk__threads_check_sigtrap(void)
{
	struct blocker b;
	long pause = FIRST_PAUSE_NS;
	int r = scan_threads(&b);

	for (int i = 0; r == 1 && i < RECHECKS; i++) {
		pause_ns(pause);
		pause = pause * 2 > MAX_PAUSE_NS ? MAX_PAUSE_NS : pause * 2;
		r = scan_threads(&b);
	}
	if (r < 0) {
		if (!warned_no_proc)
			sk__warn("cannot check threads for a blocked SIGTRAP "
				 "(/proc/self/task: %s); updating anyway",
				 strerror(-r));
		warned_no_proc = true;
		return 0;
	}
	if (r == 0)
		return 0;
	if (current_policy() == POLICY_WARN) {
		sk__warn("thread %ld (\"%s\") blocks SIGTRAP; updating anyway "
			 "(STATICKEYS_BLOCKED_SIGTRAP=warn): it dies if it runs "
			 "a changing site", b.tid, b.name);
		return 0;
	}
	sk__warn("thread %ld (\"%s\") blocks SIGTRAP and would be killed if it "
		 "ran a site during the update; refusing (EBUSY). Unblock "
		 "SIGTRAP in that thread, or set STATICKEYS_BLOCKED_SIGTRAP=warn "
		 "if it never runs sites", b.tid, b.name);
	return -EBUSY;
}
