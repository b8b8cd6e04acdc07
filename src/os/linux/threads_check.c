/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/threads_check.c - may this update run, given the state of
 * our threads?  (Linux's trap delivery: sk__os_trap_update_allowed.)
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
 * every update while the wrappers are in effect.  The threads are looked at
 * when their number changed since the last clean scan, and then only the
 * new ones; all of them while a blocking thread is known, and otherwise at
 * most once every REVALIDATE_NS, to catch a raw system call in an old
 * thread.  An update therefore costs the same with 500 threads as with 1.
 * The hole: a thread that blocks SIGTRAP by a raw system call and runs a
 * changing site within REVALIDATE_NS of the last full scan is killed.
 * Without the wrappers every update reads every thread.
 *
 * The number of threads, on every update, without a system call where it
 * can: glibc counts the threads its pthread_create() made (the main thread
 * included, its own helper threads too) in __nptl_nthreads, the variable
 * libthread_db reads for debuggers (found with dlsym at start-up,
 * threads_check.h; the shared library never links to it, the static one
 * names it weakly for fully static programs, where dlsym finds nothing).  It
 * is trusted only while it equals the number of entries of /proc/self/task
 * at the last listing (read before and after it): a thread made by a raw
 * clone() is not counted there, and a listing that shows one puts updates
 * back on a stat() of /proc/PID/task (its link count is 2 + the number of
 * threads; ~1.9 us, a third of a 1-site flip's floor) until a listing
 * agrees again.  Without glibc's count (musl, a program whose threads are
 * raw clone()s) the stat() is the count: nothing cheaper is sound there.
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
 * own trap handler runs with SA_NODEFER (trap_signal.c), so a thread inside it does
 * not show SIGTRAP blocked.
 *
 * Without /proc (a mount namespace that hides it) the threads cannot be
 * inspected; the update goes ahead and a warning says so once.
 */
#include <dirent.h>
#include <dlfcn.h>
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

#include "os/linux/sigmask_probe.h"
#include "os/linux/threads_check.h"
#include "os/os.h"
#include "support/mem.h"
#include "support/message.h"
#include "support/settings.h"
#include "support/stats.h"

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
		policy = sk__setting(SK__SETTING_BLOCKED_SIGTRAP)
				 ? POLICY_WARN : POLICY_REFUSE;
	}
	return policy;
}

/* The thread found blocking SIGTRAP: its id and name. */
struct blocker {
	long tid;
	char name[32];
};

/*
 * Descriptors: none of its own.  The files this reads take the library's
 * one place in the descriptor table (os/linux/fd_slot.c), lent by /proc/self/mem
 * for the scan and taken back after it: the directory is listed into
 * memory and closed, then each thread's stat file is opened, read and
 * closed in turn.  Whether the thread count changed is asked with a stat()
 * of /proc/self/task by path (~1.7 us; an fstat() of a kept directory took
 * ~0.45 us, but a kept directory is a second descriptor, taken when the
 * program cannot plan for it: issue 32).
 *
 * Cost: opening a stat file by path costs a few microseconds, about three
 * times a read of an already open one, so a scan does not open every
 * thread's file every time.  The ids of the threads seen at the last
 * accepted scan are kept (sorted, in memory: one pid_t per thread); when
 * the thread count changed, only the ids not among them are read.  Every
 * REVALIDATE_NS, while a blocking thread is known, and whenever the wrappers
 * are not in effect, every thread is read.  An id that was seen clean is not
 * read again before the next full scan, even if its thread ended and a new
 * one took the id: the same hole as a raw system call in an old thread,
 * with the same bound.
 */
struct tids {
	pid_t *v;
	size_t n, cap;
};

static char task_path_buf[32]; /* "/proc/PID/task"; "" after fork */

/* glibc's count of its threads (libthread_db's __nptl_nthreads), NULL
 * where there is none; found at start-up, before any update. */
static const unsigned int *glibc_threads;
/* Whether glibc's count equalled /proc/self/task at the last listing:
 * then the counts below are glibc's, else /proc/PID/task's link count. */
static bool glibc_count_trusted;

/* /proc/PID/task rather than /proc/self/task: the "self" link costs a
 * third of the stat() (~2.2 us against ~2.8). */
static const char *task_path(void)
{
	if (!task_path_buf[0])
		snprintf(task_path_buf, sizeof(task_path_buf), "/proc/%d/task",
			 (int)getpid());
	return task_path_buf;
}

static struct tids clean; /* sorted: accepted at the last scan */
static struct tids listed; /* sorted: in /proc/self/task now */

/* What the last accepted scan found: the thread count (glibc's, or the link
 * count of /proc/self/task: glibc_count_trusted says which) as of its
 * listing (-1: scan next time), when the last full scan ended, and the
 * thread refused for. */
static long scanned_count = -1;
static uint64_t full_scan_ns;
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

/* 1 if thread @tid blocks SIGTRAP (*b filled), else 0.  One descriptor,
 * in the lent place, closed before returning. */
static int check_task(pid_t tid, struct blocker *b)
{
	char path[64], buf[1024];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* exited since the listing */
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	b->tid = tid;
	return stat_blocks_sigtrap(buf, b);
}

static int tids_push(struct tids *t, pid_t tid)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		pid_t *v = sk__mem_realloc(t->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = tid;
	return 0;
}

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* Read the ids in /proc/self/task into @listed, sorted; the directory is
 * closed before this returns, so that stat files can take its place.
 * Call with the place lent (sk__os_fdslot_lend). */
static int list_threads(void)
{
	char dents[4096];
	long n;
	int r = 0;
	int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dir < 0)
		return -errno; /* open()'s */
	listed.n = 0;
	while (r == 0 &&
	       (n = syscall(SYS_getdents64, dir, dents, sizeof(dents))) > 0) {
		for (long off = 0; off < n && r == 0;) {
			struct dirent64 *e = (struct dirent64 *)(dents + off);
			off += e->d_reclen;
			long tid = atol(e->d_name);
			if (tid > 0)
				r = tids_push(&listed, (pid_t)tid);
		}
	}
	close(dir);
	if (listed.n > 1)
		sk__sort(listed.v, listed.n, sizeof(pid_t), cmp_tid);
	return r;
}

/* One pass over the threads (all of them if @full, else those not seen at
 * the last accepted scan): 1 with *b filled if one blocks SIGTRAP (the
 * first found).  Every thread is read even after one is found, so that a
 * scan accepted anyway (STATICKEYS_BLOCKED_SIGTRAP=warn) leaves none
 * unread among the ids it remembers. */
static int scan_threads(bool full, struct blocker *b)
{
	pid_t self = gettid();

	sk__os_fdslot_lend();
	int r = list_threads(), found = 0;

	for (size_t i = 0; r == 0 && i < listed.n; i++) {
		pid_t tid = listed.v[i];
		struct blocker t;
		if (tid == self || (!full && clean.n &&
				    bsearch(&tid, clean.v, clean.n,
					    sizeof(pid_t), cmp_tid)))
			continue;
		if (check_task(tid, &t) && !found) {
			*b = t;
			found = 1;
		}
	}
	sk__os_fdslot_return();
	return r ? r : found;
}

/* In a fully static program dlsym() finds nothing: the static library
 * (SK_STATIC_RUNTIME) names the count at link time instead, weakly (NULL
 * where the program links no glibc threads, or another C library).  The
 * shared library never does: that would make it depend on GLIBC_PRIVATE. */
#if defined(SK_STATIC_RUNTIME) && defined(__GLIBC__)
extern unsigned int __nptl_nthreads __attribute__((weak));
#define STATIC_COUNT (&__nptl_nthreads)
#else
#define STATIC_COUNT ((const unsigned int *)NULL)
#endif

void sk__threads_check_lookup(void)
{
	const unsigned int *p = dlsym(RTLD_DEFAULT, "__nptl_nthreads");

	if (!p)
		p = STATIC_COUNT;

	__atomic_store_n(&glibc_threads, p, __ATOMIC_RELEASE);
}

static long glibc_count(void)
{
	const unsigned int *p = __atomic_load_n(&glibc_threads,
						__ATOMIC_ACQUIRE);

	return p ? (long)__atomic_load_n(p, __ATOMIC_ACQUIRE) : -1;
}

/* The scan was accepted: remember what it saw.  @glibc_before: glibc's
 * count read before the listing. */
static void scan_accepted(long glibc_before, bool full)
{
	struct tids t = clean;
	long n = (long)listed.n;

	/* Equal before and after the listing, and to it: no thread was being
	 * made or ending, and every thread is one glibc counts. */
	glibc_count_trusted = glibc_before == n && glibc_count() == n;
	clean = listed; /* the listing becomes the clean set ... */
	listed = t;     /* ... and the old set's memory the next listing's */
	scanned_count = glibc_count_trusted ? n : n + 2; /* + "." and ".." */
	if (full)
		full_scan_ns = sk__now_ns();
}

void sk__os_trap_after_fork_child(void)
{
	/* The ids are the parent's threads, the path the parent's pid. */
	clean.n = 0;
	task_path_buf[0] = '\0';
	scanned_count = -1;
	glibc_count_trusted = false;
	refused_tid = 0;
}

enum scan { SCAN_NONE, SCAN_NEW, SCAN_FULL };

/* The number of threads now, in the unit scanned_count holds: glibc's
 * count while it is trusted (no system call), else the link count of
 * /proc/self/task (2 + the number of threads: a stat() by path, which
 * opens no descriptor); -1 if unknown. */
static long thread_count(void)
{
	struct stat st;

	if (glibc_count_trusted)
		return glibc_count();
	return stat(task_path(), &st) == 0 ? (long)st.st_nlink : -1;
}

/* Which scan this update needs; *glibc_before: glibc's count now, for
 * scan_accepted(). */
static enum scan scan_needed(long *glibc_before)
{
	*glibc_before = glibc_count(); /* -1 without glibc's count */
	if (!sk__sigmask_wrappers_active() || refused_tid ||
	    sk__now_ns() - full_scan_ns > REVALIDATE_NS)
		return SCAN_FULL;
	long count = thread_count();
	if (count < 0)
		return SCAN_FULL;
	return count != scanned_count ? SCAN_NEW : SCAN_NONE;
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

int sk__os_trap_update_allowed(void)
{
	static long last_warned;
	struct blocker b;
	bool warn = current_policy() == POLICY_WARN;
	long pause = FIRST_PAUSE_NS, glibc_before;
	int linked = sk__sigmask_link_check(); /* a static program's link */

	if (linked)
		return linked;
	enum scan need = scan_needed(&glibc_before);

	if (need == SCAN_NONE)
		return 0;
	bool full = need == SCAN_FULL;
	int r = scan_threads(full, &b);
	/* Waiting out a transient block is only worth it when refusing, and
	 * only for a thread not already refused for. */
	for (int i = 0; r == 1 && !warn && b.tid != refused_tid &&
			i < RECHECKS; i++) {
		pause_ns(pause);
		pause = pause * 2 > MAX_PAUSE_NS ? MAX_PAUSE_NS : pause * 2;
		r = scan_threads(full, &b);
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
		scan_accepted(glibc_before, full);
		refused_tid = 0;
		return 0;
	}
	if (warn) {
		/* Accepted: cached as a clean scan would be, so that such a
		 * thread (a timer helper, say) does not make every update
		 * scan. */
		scan_accepted(glibc_before, full);
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
