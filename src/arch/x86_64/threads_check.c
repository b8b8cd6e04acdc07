/*
 * src/arch/x86_64/threads_check.c - may this update run, given the state of
 * our threads?
 *
 * Before code is rewritten: does another thread block SIGTRAP?
 *
 * While a batch runs, the first byte of each changing site is int3.  A
 * thread that executes it with SIGTRAP blocked is not given to our handler:
 * the kernel resets SIGTRAP to its default action and kills the whole
 * process.  sigmask.c keeps SIGTRAP out of every mask set through the C
 * library, so what is left to find here is what it cannot see: raw
 * rt_sigprocmask system calls, the C library's own helper threads (timers,
 * AIO), masks set before the runtime was loaded by dlopen, or everything
 * when the wrappers are off.  We read the blocked mask of each thread from
 * /proc/self/task/<tid>/stat.
 *
 * That read costs a few microseconds per thread, so it is not repeated on
 * every update while the wrappers are in effect.  A full scan is made when
 * the number of threads changed since the last clean scan (the link count
 * of /proc/self/task is 2 + the number of threads: one fstat), while a
 * blocking thread is known, and otherwise at most once every REVALIDATE_NS,
 * to catch a raw system call in an old thread.  An update therefore costs
 * the same with 500 threads as with 1.  The hole: a thread that blocks
 * SIGTRAP by a raw system call and runs a changing site within
 * REVALIDATE_NS of the last scan, with no thread created or ended in
 * between, is killed.  Without the wrappers every update scans.
 *
 * glibc blocks all signals for a few microseconds inside pthread_create()
 * and for the duration of a vfork inside posix_spawn(); those threads run no
 * sites, so a newly found blocked thread is re-checked with growing pauses
 * (about 1 s in all: on a loaded machine a new thread can wait a long time
 * for a CPU before glibc restores its mask) before the update is refused
 * with -EBUSY, naming the thread and why.  A thread refused for before is
 * refused again at once, without the pauses or a second warning.
 * STATICKEYS_BLOCKED_SIGTRAP=warn makes it a warning instead (once per
 * thread, without waiting), for programs whose signal-blocking threads never
 * execute sites (glibc's timer and AIO helper threads, for example).  Our
 * own trap handler runs with SA_NODEFER (trap.c), so a thread inside it does
 * not show SIGTRAP blocked.
 *
 * Without /proc (a mount namespace that hides it) the threads cannot be
 * inspected; the update goes ahead and a warning says so once.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arch/x86_64/x86_64.h"

#define RECHECKS 28
#define FIRST_PAUSE_NS 100000L  /* 0.1 ms, doubled each time ... */
#define MAX_PAUSE_NS 50000000L  /* ... up to 50 ms: about 1 s in all */
#define REVALIDATE_NS 1000000000ull /* a full scan at least once a second */

enum policy { POLICY_UNSET, POLICY_REFUSE, POLICY_WARN };

static enum policy policy = POLICY_UNSET;
static bool warned_no_proc;

static enum policy current_policy(void)
{
	if (policy == POLICY_UNSET) {
		const char *env = secure_getenv("STATICKEYS_BLOCKED_SIGTRAP");
		policy = POLICY_REFUSE;
		if (env && strcmp(env, "warn") == 0)
			policy = POLICY_WARN;
		else if (env && *env && strcmp(env, "refuse") != 0)
			sk__warn("STATICKEYS_BLOCKED_SIGTRAP=%s is not refuse or "
				 "warn; refusing updates", env);
	}
	return policy;
}

/* The thread found blocking SIGTRAP: its id and name. */
struct blocker {
	long tid;
	char name[32];
};

/*
 * Reading a thread's mask costs a few microseconds if its stat file is
 * already open (pread regenerates it) and several times that to open it, so
 * the files of the threads seen last time stay open, up to CACHE_MAX of
 * them, along with /proc/self/task.  Only descriptors are cached, never a
 * mask: a thread may change its mask at any time.  A descriptor names one
 * thread for good; if that thread exits, reads fail, and a new thread that
 * reuses the id is not seen through it (ids are matched against the
 * directory listing each time, and a failing read drops the entry).
 */
#define CACHE_MAX 64

struct task_file {
	long tid;
	int fd;
};

static int task_dir = -1;
static struct task_file cache[CACHE_MAX];
static size_t ncache;

/* What the last scan found: the link count of /proc/self/task before it
 * (-1: scan next time), when it ended, and the thread refused for. */
static long scanned_count = -1;
static uint64_t scanned_ns;
static long refused_tid;

/* Parse "tid (name) state ... blocked ..." (proc(5): blocked is field 32). */
static int stat_blocks_sigtrap(const char *stat, struct blocker *b)
{
	const char *open_ = strchr(stat, '('), *close_ = strrchr(stat, ')');
	int field = 2; /* the one that ends at ")" */

	if (!open_ || !close_ || close_ < open_)
		return 0;
	const char *p = close_ + 1;
	while (*p && field < 32) {
		if (*p++ == ' ' && *p != ' ')
			field++;
	}
	unsigned long long blocked = strtoull(p, NULL, 10);
	if (!(blocked & (1ull << (SIGTRAP - 1))))
		return 0;
	size_t n = (size_t)(close_ - open_ - 1);
	if (n >= sizeof(b->name))
		n = sizeof(b->name) - 1;
	memcpy(b->name, open_ + 1, n);
	b->name[n] = '\0';
	return 1;
}

/* The open stat file of @tid: from the old cache, or newly opened. */
static int task_fd(long tid, const char *name, struct task_file *old,
		   size_t nold)
{
	char path[sizeof(((struct dirent64 *)0)->d_name) + 8];

	for (size_t i = 0; i < nold; i++) {
		if (old[i].tid == tid) {
			int fd = old[i].fd;
			old[i].fd = -1; /* moved to the new cache */
			return fd;
		}
	}
	snprintf(path, sizeof(path), "%s/stat", name);
	return openat(task_dir, path, O_RDONLY | O_CLOEXEC);
}

/* 1 if thread @tid blocks SIGTRAP (*b filled), else 0; keeps its fd. */
static int check_task(long tid, const char *name, struct task_file *old,
		      size_t nold, struct blocker *b)
{
	char buf[1024];
	int fd = task_fd(tid, name, old, nold);

	if (fd < 0)
		return 0; /* exited since the listing */
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n > 0 && ncache < CACHE_MAX) {
		cache[ncache].tid = tid;
		cache[ncache++].fd = fd;
	} else {
		close(fd);
	}
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	b->tid = tid;
	return stat_blocks_sigtrap(buf, b);
}

static int open_task_dir(void)
{
	if (task_dir < 0)
		task_dir = open("/proc/self/task",
				O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return task_dir < 0 ? -1 : 0;
}

/* One pass over the threads: 1 with *b filled if one blocks SIGTRAP. */
static int scan_threads(struct blocker *b)
{
	struct task_file old[CACHE_MAX];
	size_t nold = ncache;
	long self = (long)gettid();
	char dents[4096];
	int found = 0;
	long n;

	if (open_task_dir() != 0)
		return -errno;
	memcpy(old, cache, nold * sizeof(old[0]));
	ncache = 0;
	lseek(task_dir, 0, SEEK_SET);
	while ((n = syscall(SYS_getdents64, task_dir, dents, sizeof(dents))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *e = (struct dirent64 *)(dents + off);
			off += e->d_reclen;
			long tid = atol(e->d_name);
			if (tid <= 0 || tid == self || found)
				continue;
			found = check_task(tid, e->d_name, old, nold, b);
		}
	}
	for (size_t i = 0; i < nold; i++) /* threads that are gone */
		if (old[i].fd >= 0)
			close(old[i].fd);
	return found;
}

void sk__threads_after_fork_child(void)
{
	/* The descriptors name the parent's threads and its task list. */
	for (size_t i = 0; i < ncache; i++)
		close(cache[i].fd);
	ncache = 0;
	if (task_dir >= 0)
		close(task_dir);
	task_dir = -1;
	scanned_count = -1;
	refused_tid = 0;
}

/* Whether the threads must be scanned before this update; *count is the
 * link count of /proc/self/task now, -1 if unknown. */
static bool scan_needed(long *count)
{
	struct stat st;

	*count = -1;
	if (open_task_dir() != 0 || fstat(task_dir, &st) != 0)
		return true;
	*count = (long)st.st_nlink;
	if (!sk__sigmask_wrappers_active() || refused_tid ||
	    *count != scanned_count)
		return true;
	return sk__now_ns() - scanned_ns > REVALIDATE_NS;
}

/* Why a thread can block SIGTRAP in this process, for the message. */
static const char *blocked_because(void)
{
	if (!sk__sigmask_keeps_sigtrap())
		return "STATICKEYS_KEEP_SIGTRAP=0 has masks honoured as set";
	if (!sk__sigmask_wrappers_active())
		return "statickeys was loaded late, by dlopen, and cannot "
		       "keep SIGTRAP out of the masks threads set: link the "
		       "program with it, or preload it, to have it do so";
	return "it was blocked by a path statickeys cannot see: a raw "
	       "rt_sigprocmask system call, a C library helper thread, or a "
	       "mask set before statickeys was loaded";
}

static void pause_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	nanosleep(&ts, NULL);
}

int sk__arch_update_allowed(void)
{
	static long last_warned;
	struct blocker b;
	bool warn = current_policy() == POLICY_WARN;
	long pause = FIRST_PAUSE_NS, count;
	int linked = sk__sigmask_link_check(); /* a static program's link */

	if (linked)
		return linked;
	if (!scan_needed(&count))
		return 0;
	int r = scan_threads(&b);
	/* Waiting out a transient block is only worth it when refusing, and
	 * only for a thread not already refused for. */
	for (int i = 0; r == 1 && !warn && b.tid != refused_tid &&
			i < RECHECKS; i++) {
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
	if (r == 0) {
		scanned_count = count;
		scanned_ns = sk__now_ns();
		refused_tid = 0;
		return 0;
	}
	if (warn) {
		/* Accepted: cached as a clean scan would be, so that such a
		 * thread (a timer helper, say) does not make every update
		 * scan. */
		scanned_count = count;
		scanned_ns = sk__now_ns();
		if (b.tid != last_warned) /* once per thread, not per update */
			sk__warn("thread %ld (\"%s\") blocks SIGTRAP; updating "
				 "anyway (STATICKEYS_BLOCKED_SIGTRAP=warn): it "
				 "dies if it runs a changing site. Why: %s",
				 b.tid, b.name, blocked_because());
		last_warned = b.tid;
		return 0;
	}
	if (b.tid != refused_tid) /* once per thread, not per update */
		sk__warn("thread %ld (\"%s\") blocks SIGTRAP and would be "
			 "killed if it ran a site during the update; refusing "
			 "(EBUSY). Why: %s. Unblock SIGTRAP in that thread, or "
			 "set STATICKEYS_BLOCKED_SIGTRAP=warn if it never runs "
			 "sites", b.tid, b.name, blocked_because());
	refused_tid = b.tid;
	return -EBUSY;
}
