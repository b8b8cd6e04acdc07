/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/fd_slot.c - the library's one descriptor for files, taken at
 * start-up and never more than one.
 *
 * Programs that size RLIMIT_NOFILE to their own connections (memcached,
 * nginx, HAProxy) count their descriptors with a fixed reserve for what
 * else they hold; one that a library opens at a moment the program cannot
 * foresee makes the program's accept() fail with EMFILE before its own
 * limit, and such a program stops accepting until a connection closes
 * (issue 32).  So every file the runtime opens takes this one place in the
 * descriptor table, which it holds from start-up on:
 *
 *   - at rest, and while code is written: /proc/self/mem, the procmem
 *     writer's descriptor (writer.c);
 *   - for a moment, under the patch lock (or the config reader's hold of
 *     it): a thread's stat file (the check for a blocked SIGTRAP), an
 *     object's file (a message naming a site), /proc/self/status (the
 *     tracer note), an audited client's /proc/PID/comm, STATICKEYS_FILE.
 *
 * At start-up the place is taken by a stand-in, an empty memfd: a few us
 * in a new process, where the first open of /proc/self/mem costs ~15 us
 * (the kernel builds the process's /proc entries and checks ptrace access;
 * measured in exec'd processes, the floor of an empty system call
 * subtracted), more than the whole margin left under the start-up goal for
 * 1,000 sites (docs/benchmark-results.md).  The first update closes the
 * stand-in and opens /proc/self/mem in its place: the count does not
 * change.
 *
 * Lending the place closes /proc/self/mem first, so the caller's open()
 * gets a number the library had given back an instant before; the caller
 * opens one file at a time and closes it; the place is taken back by
 * reopening /proc/self/mem (sk__os_fdslot_return()).  The count the program
 * sees never goes above one: between the close and the open it is zero,
 * and a program that takes the number meanwhile takes a descriptor it had
 * room for anyway (its own plan leaves the library's place free).
 * Reopening costs one open() of /proc/self/mem (~3 us, docs/operations.md),
 * paid only by updates that lent the place (a scan of new threads, the
 * once-a-second tracer check, a message, an audit line).
 *
 * With STATICKEYS_WRITER=mprotect /proc/self/mem is opened all the same
 * (writing by mprotect needs none), so that the place is the same in every
 * configuration.  Without /proc (or where it may not be opened) the stand-in
 * stays, so that the other files still have their place.
 *
 * Hosts close every descriptor they did not open (daemons do: a close-all
 * loop, close_range(), closefrom()) and reuse the numbers, or dup2() their
 * own file onto ours.  So the number is closed, written or kept only while
 * it is provably still the file we opened, and proven by something no
 * other file can carry: its file position.  At open both files, the
 * stand-in and /proc/self/mem, are moved to a position of their own (in
 * [2^40, 2^62), from the clock and an address; no file the program opens
 * is read or written there by accident, pwrite() leaves it in place), and
 * lseek(fd, 0, SEEK_CUR) must give it back: ~0.1-0.2 us, once per update
 * (docs/operations.md).  A pipe, socket or eventfd in our place fails the
 * lseek (ESPIPE), a file the program opened is at its own position.  (An
 * fstat() of device and inode cannot tell: every eventfd shares one inode,
 * and so does every open of /proc/self/mem.)  A number that fails the
 * check is the program's: forgotten, never closed, and the next user takes
 * a new number (the one descriptor the footprint allows), with one warning
 * that says why.  A file that will not take the position is not used.
 * After fork() the child's copy names the parent's memory: the child
 * reopens /proc/self/mem onto the same number (dup3), so its descriptor
 * table looks like its parent's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "os/os.h"
#include "support/message.h"

static int slot_fd = -1;
static bool slot_lent;   /* closed for a moment: reopen before writing */
static bool slot_is_mem; /* /proc/self/mem, not the stand-in */
static off_t slot_mark;  /* the file's position while it is ours */

/*
 * Who uses the place: one thread at a time, from sk__os_fdslot_lend() to
 * sk__os_fdslot_return(), and from sk__os_fdslot_hold() to sk__os_fdslot_release()
 * (a batch of code writes).  Its own lock, not the patch lock: the
 * STATICKEYS_FILE reader uses the place without holding the patch lock
 * (a read is not a commit).  Order: the patch lock, then this one; the
 * reader never takes the patch lock while it holds this.  Re-entered by
 * its holder (a message about a site in the middle of a batch): the
 * nested user then opens its file beside the place, the one case where the
 * library holds two descriptors for a moment.
 */
static pthread_mutex_t slot_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_t slot_holder; /* 0 when free (glibc's never is) */
static int slot_depth;

/* pthread_self(), not gettid(): no system call on every update.  Only the
 * holder ever finds its own id here. */
static void slot_enter(void)
{
	pthread_t self = pthread_self();

	if (__atomic_load_n(&slot_holder, __ATOMIC_RELAXED) == self) {
		slot_depth++;
		return;
	}
	pthread_mutex_lock(&slot_mutex);
	__atomic_store_n(&slot_holder, self, __ATOMIC_RELAXED);
	slot_depth = 1;
}

static void slot_leave(void)
{
	if (--slot_depth > 0)
		return;
	__atomic_store_n(&slot_holder, (pthread_t)0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&slot_mutex);
}

/* lseek() and memfd_create() as system calls through syscall(), which
 * start-up has already bound: each first call of another C library
 * function from a shared library is a lazy symbol binding (~900
 * instructions), two fewer at every program's start-up
 * (docs/benchmark-results.md, experiment 10). */
static off_t position(int fd, off_t offset, int whence)
{
#if defined(SYS_lseek) && __SIZEOF_LONG__ == 8
	return (off_t)syscall(SYS_lseek, fd, offset, whence);
#else
	/* 32-bit: lseek's offset is a long there, and the mark does not fit
	 * in one (the C library's lseek makes the 64-bit system call). */
	return lseek(fd, offset, whence);
#endif
}

/* Is slot_fd still the file we opened?  Its position says (above). */
static bool slot_ours(void)
{
	return slot_fd >= 0 && position(slot_fd, 0, SEEK_CUR) == slot_mark;
}

/* The number is no longer our file (the program closed it, and may have
 * reused it): forget it without touching it, and say so once. */
static void slot_forget(void)
{
	static bool said;

	if (!said) {
		said = true;
		sk__warn("descriptor %d is no longer the library's file (the "
			 "program closed it or put its own there); it is left "
			 "alone and a new descriptor is taken", slot_fd);
	}
	slot_fd = -1;
	slot_is_mem = false;
}

/* A position that tells our file from any other: in
 * [2^40, 2^62), from the clock and an address (ASLR), never 0. */
static off_t new_mark(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t x = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
		     ((uint64_t)(uintptr_t)&slot_fd << 17);

	x ^= x >> 29; /* mix the clock's low bits upward */
	x *= 0x9e3779b97f4a7c15ull;
	return (off_t)((x >> 2) | (1ull << 40));
}

static bool mem_unavailable; /* no /proc, or refused: keep the stand-in */

/* The stand-in: an empty memfd, which names nothing, needs no path lookup
 * and takes a file position (an eventfd does not). */
static int stand_in_open(void)
{
#if defined(MFD_CLOEXEC) && defined(SYS_memfd_create)
	return (int)syscall(SYS_memfd_create, "statickeys", MFD_CLOEXEC);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* Mark @fd as ours (its position); a file that will not take the mark
 * cannot be told from the program's later, so it is closed at once.
 * Return: @fd, or -errno. */
static int mark_or_close(int fd)
{
	off_t mark = new_mark();

	if (position(fd, mark, SEEK_SET) == mark) {
		slot_mark = mark;
		return fd;
	}
	int e = errno ? errno : EIO;
	close(fd);
	return -e;
}

/* Open /proc/self/mem (or the stand-in without it), at the lowest free
 * number, marked.  Return: the descriptor or -errno. */
static int slot_open(bool mem)
{
	int fd = -1;

	slot_is_mem = false;
	if (mem && !mem_unavailable) {
		fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
		if (fd < 0 && errno != EMFILE && errno != ENFILE)
			mem_unavailable = true;
		if (fd >= 0 && (fd = mark_or_close(fd)) < 0)
			mem_unavailable = true;
		if (fd >= 0) {
			slot_is_mem = true;
			return fd;
		}
		if (!mem_unavailable)
			return -EMFILE; /* table full: not the stand-in either */
	}
	fd = stand_in_open();
	if (fd < 0)
		return -errno;
	return mark_or_close(fd);
}

/* Make the place /proc/self/mem: reopen it if it was lent, or put it in
 * the stand-in's place (closed first: never two).  slot_fd, when not lent,
 * has just been proven ours or forgotten (sk__os_fdslot_hold). */
static void slot_restore(void)
{
	if (slot_is_mem && !slot_lent && slot_fd >= 0)
		return;
	if (!slot_lent && slot_fd >= 0 && mem_unavailable)
		return; /* no /proc: the stand-in stays */
	/* The stand-in gives its place.  Nothing held (a table full at
	 * start-up, or a number the program took back): this is the one open
	 * that adds a descriptor, and only up to the one. */
	if (!slot_lent && slot_fd >= 0)
		close(slot_fd);
	slot_fd = -1;
	slot_lent = true;
	int fd = slot_open(true);
	if (fd < 0)
		return; /* table full: the next user tries again */
	slot_fd = fd;
	slot_lent = false;
}

/* Is the number we hold still ours?  If not, forget it (never close it). */
static void slot_check(void)
{
	if (!slot_lent && slot_fd >= 0 && !slot_ours())
		slot_forget();
}

/* Fork: the place must not be lent to another thread, whose file would
 * be inherited by a child that never closes it.  Taken after the patch
 * lock (registered before the runtime's handlers: see the order above). */
static void fork_prepare(void)
{
	slot_enter();
}

static void fork_parent(void)
{
	slot_leave();
}

static void fork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	slot_mutex = fresh;
	slot_holder = 0;
	slot_depth = 0;
	sk__os_fdslot_after_fork_child();
}

int sk__os_fdslot_init(void)
{
	if (slot_fd >= 0)
		return 0;
	(void)sk__os_atfork(fork_prepare, fork_parent, fork_child);
	int fd = slot_open(false);
	if (fd < 0)
		return fd;
	slot_fd = fd;
	return 0;
}

void sk__os_fdslot_lend(void)
{
	slot_enter();
	if (slot_depth > 1 || slot_lent || slot_fd < 0)
		return;
	/* A number the program closed and reused is its own now: forget
	 * it, never close it. */
	slot_check();
	if (slot_fd >= 0)
		close(slot_fd);
	slot_fd = -1;
	slot_lent = true;
}

void sk__os_fdslot_return(void)
{
	if (slot_depth == 1 && slot_lent)
		slot_restore();
	slot_leave();
}

int sk__os_fdslot_hold(void)
{
	slot_enter();
	slot_check(); /* the one lseek of an update */
	slot_restore();
	int r = slot_fd < 0 ? -EMFILE : !slot_is_mem ? -ENOENT : slot_fd;
	if (r < 0)
		slot_leave();
	return r;
}

int sk__os_fdslot_held_fd(void)
{
	return slot_fd;
}

void sk__os_fdslot_release(void)
{
	slot_leave();
}

/* In the child, alone: /proc/self/mem reopened onto the same number. */
void sk__os_fdslot_after_fork_child(void)
{
	if (slot_lent) {
		slot_restore();
		return;
	}
	slot_check();
	if (slot_fd < 0)
		return;
	/* The child has one thread: closing first and reopening onto the
	 * same number never holds two, even in a full table. */
	if (!slot_is_mem)
		return; /* the stand-in names no process: keep it */
	int old = slot_fd;
	close(old);
	int fd = slot_open(true);
	if (fd >= 0 && fd != old) {
		if (dup3(fd, old, O_CLOEXEC) == old) {
			close(fd);
			fd = old;
		}
	}
	slot_fd = fd;
}
