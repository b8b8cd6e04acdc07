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
 * At start-up the place is taken by a stand-in, an eventfd: ~4 us in a new
 * process, where the first open of /proc/self/mem costs ~15 us (the kernel
 * builds the process's /proc entries and checks ptrace access; measured in
 * exec'd processes, the floor of an empty system call subtracted), more
 * than the whole margin left under the start-up goal for 1,000 sites
 * (docs/benchmark-results.md: 0.04 ms of 0.05).  The first update closes
 * the stand-in and opens /proc/self/mem in its place: the count does not
 * change.
 *
 * Lending the place closes /proc/self/mem first, so the caller's open()
 * gets a number the library had given back an instant before; the caller
 * opens one file at a time and closes it; the place is taken back by
 * reopening /proc/self/mem (sk__fdslot_mem(), or sk__fdslot_return()).
 * The count the program sees never goes above one: between the close and
 * the open it is zero, and a program that takes the number meanwhile
 * takes a descriptor it had room for anyway (its own plan leaves the
 * library's place free).  Reopening costs one open() of /proc/self/mem
 * (~3 us, docs/operations.md), paid only by updates that lent the place (a scan of new
 * threads, the once-a-second tracer check, a message, an audit line).
 *
 * With STATICKEYS_WRITER=mprotect /proc/self/mem is opened all the same
 * (writing by mprotect needs none), so that the place is the same in every
 * configuration.  Without /proc (or where it may not be opened) the stand-in
 * stays, so that the other files still have their place.
 *
 * A program that closes every descriptor it did not open (daemons do) and
 * gets our number back for something of its own keeps it: the number is
 * only closed or written to while it is still the file we opened.  For
 * /proc/self/mem that is asked of its file position: at open it is moved
 * to a value of its own (above 2^40, where no file the program opens is
 * read or written by accident; pwrite() leaves it there), and
 * lseek(fd, 0, SEEK_CUR) must give it back: ~0.19 us, against ~0.46 us
 * for an fstat() of /proc/self/mem, on every update (docs/operations.md).
 * A pipe or socket in our place fails the lseek (ESPIPE), a file the
 * program opened is at its own position.  The stand-in, and a
 * /proc/self/mem that would not take the position, are asked with fstat()
 * (device and inode).  After fork() the child's copy names the parent's memory: the
 * child reopens /proc/self/mem onto the same number (dup3), so its
 * descriptor table looks like its parent's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "os/os.h"

static int slot_fd = -1;
static bool slot_lent;   /* closed for a moment: reopen before writing */
static bool slot_is_mem; /* /proc/self/mem, not the "/" placeholder */
static dev_t slot_dev;
static ino_t slot_ino;
static off_t slot_mark; /* /proc/self/mem's position; 0: ask fstat() */

/*
 * Who uses the place: one thread at a time, from sk__fdslot_lend() to
 * sk__fdslot_return(), and from sk__fdslot_hold() to sk__fdslot_release()
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

/* Is slot_fd still the file we opened? */
static bool slot_ours(void)
{
	struct stat st;

	if (slot_fd < 0)
		return false;
	if (slot_mark)
		return lseek(slot_fd, 0, SEEK_CUR) == slot_mark;
	return fstat(slot_fd, &st) == 0 && st.st_dev == slot_dev &&
	       st.st_ino == slot_ino;
}

/* A position for /proc/self/mem that tells it from any other file: in
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

/* The stand-in: an eventfd, which names nothing and needs no path lookup
 * (~4 us in a new process; "/" opened O_PATH where there is no eventfd). */
static int stand_in_open(void)
{
	int fd = eventfd(0, EFD_CLOEXEC);

	return fd >= 0 ? fd : open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* Open /proc/self/mem (or the stand-in without it); the lowest free
 * number.  Return: the descriptor or -errno. */
static int slot_open(bool mem)
{
	struct stat st;
	int fd = mem && !mem_unavailable
			 ? open("/proc/self/mem", O_RDWR | O_CLOEXEC) : -1;

	if (mem && !mem_unavailable && fd < 0 && errno != EMFILE &&
	    errno != ENFILE)
		mem_unavailable = true;
	slot_is_mem = fd >= 0;
	if (fd < 0 && (!mem || mem_unavailable))
		fd = stand_in_open();
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	slot_dev = st.st_dev;
	slot_ino = st.st_ino;
	slot_mark = 0;
	if (slot_is_mem) {
		off_t mark = new_mark();
		if (lseek(fd, mark, SEEK_SET) == mark)
			slot_mark = mark;
	}
	return fd;
}

/* Make the place /proc/self/mem: reopen it if it was lent, or put it in
 * the stand-in's place (closed first: never two). */
static void slot_restore(void)
{
	if (slot_is_mem && !slot_lent && slot_fd >= 0)
		return;
	if (!slot_lent && slot_fd >= 0 && mem_unavailable)
		return; /* no /proc: the stand-in stays */
	/* The stand-in, if still ours, gives its place.  Nothing held (a
	 * table full at start-up, or a number the program closed): this is
	 * the one open that adds a descriptor, and only up to the one. */
	if (!slot_lent && slot_fd >= 0 && slot_ours())
		close(slot_fd);
	slot_fd = -1;
	slot_lent = true;
	int fd = slot_open(true);
	if (fd < 0)
		return; /* table full: the next user tries again */
	slot_fd = fd;
	slot_lent = false;
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
	sk__fdslot_after_fork_child();
}

int sk__fdslot_init(void)
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

void sk__fdslot_lend(void)
{
	slot_enter();
	if (slot_depth > 1 || slot_lent || slot_fd < 0)
		return;
	/* A number the program closed and reused is its own now: forget
	 * it, never close it. */
	if (slot_ours())
		close(slot_fd);
	slot_fd = -1;
	slot_lent = true;
}

void sk__fdslot_return(void)
{
	if (slot_depth == 1)
		slot_restore();
	slot_leave();
}

int sk__fdslot_hold(void)
{
	slot_enter();
	slot_restore();
	int r = slot_fd < 0    ? (slot_lent ? -EMFILE : -EBADF)
		: !slot_is_mem ? -ENOENT
		: slot_ours()  ? slot_fd
			       : -EBADF;
	if (r < 0)
		slot_leave();
	return r;
}

int sk__fdslot_held_fd(void)
{
	return slot_fd;
}

void sk__fdslot_release(void)
{
	slot_leave();
}

/* In the child, alone: /proc/self/mem reopened onto the same number. */
void sk__fdslot_after_fork_child(void)
{
	if (slot_lent) {
		slot_restore();
		return;
	}
	if (!slot_ours()) {
		slot_fd = -1;
		return;
	}
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
