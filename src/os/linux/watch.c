/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/watch.c - told when a directory's entries change (os/os.h,
 * "watch"), with inotify: one descriptor for every directory watched, which
 * poll() reports readable once an event is queued.
 *
 * The events asked for are those by which a file in the directory gets new
 * contents or a new inode: written and closed, renamed in or out, created,
 * deleted, and the directory itself deleted or moved; and a write (or a
 * truncation) of a file still open, told as "writing": a program writing a
 * file in place truncates it first and may stall before it writes and
 * closes it, and the caller must not read the empty or half-written file
 * as a version.
 *
 * Telling our descriptor from the program's.  A daemon that closes every
 * descriptor it did not open closes this one too, and its next open or
 * eventfd may get the number; read then, the number would consume the
 * program's data.  Every inotify descriptor is the same anonymous inode,
 * and one watching the same directories with the same events is ordinary
 * (programs follow their own configuration).  So ours also watches an
 * inode no other descriptor can watch: a memfd's, which has no path (only
 * /proc/self/fd/N while it is open, and that is how it is watched) and no
 * other holder.  Its descriptor is closed at once; a 4 KiB PROT_NONE
 * mapping of it, never touched and never backed by memory, keeps the inode
 * and so the watch alive, without a descriptor.  sk__os_watch_ours() looks
 * for that watch (its number, inode and device) in /proc/self/fdinfo,
 * which describes a descriptor without reading from it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "os/os.h"

#define WATCH_MASK                                                        \
	(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE |       \
	 IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_MODIFY)

/* The private inode's watch: fdinfo's "wd:%x ino:%lx sdev:%x". */
static struct {
	int wd;
	unsigned long ino;
	unsigned sdev; /* the kernel's dev_t: major << 20 | minor */
	void *map;     /* keeps the inode; MAP_FAILED when none */
} mark = { -1, 0, 0, MAP_FAILED };

static void mark_drop(void)
{
	if (mark.map != MAP_FAILED)
		munmap(mark.map, 4096);
	mark.map = MAP_FAILED;
	mark.wd = -1;
}

/* Watch a fresh memfd's inode from @fd (IN_ATTRIB: nothing will ever
 * change it), then let go of the memfd, keeping only its mapping. */
static int mark_add(int fd)
{
#if defined(SYS_memfd_create) && defined(MFD_CLOEXEC)
	int m = (int)syscall(SYS_memfd_create, "statickeys-watch", MFD_CLOEXEC);
	char path[40];
	struct stat st;

	if (m < 0)
		return -errno;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", m);
	mark.wd = inotify_add_watch(fd, path, IN_ATTRIB);
	int err = mark.wd < 0 || fstat(m, &st) != 0 ? -errno : 0;
	if (err == 0) {
		mark.map = mmap(NULL, 4096, PROT_NONE, MAP_SHARED, m, 0);
		err = mark.map == MAP_FAILED ? -errno : 0;
	}
	close(m);
	if (err != 0) {
		mark_drop();
		return err == -ENOENT ? -ENOTSUP : err; /* no /proc */
	}
	mark.ino = (unsigned long)st.st_ino;
	mark.sdev = major(st.st_dev) << 20 | minor(st.st_dev);
	return 0;
#else
	(void)fd;
	return -ENOTSUP;
#endif
}

int sk__os_watch_open(void)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	if (fd < 0)
		return -errno;
	int err = mark_add(fd);
	if (err != 0) {
		close(fd);
		return err;
	}
	return fd;
}

bool sk__os_watch_ours(int fd)
{
	char path[48], text[4096], want[96];

	if (fd < 0 || mark.wd < 0)
		return false;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	snprintf(want, sizeof(want), "\ninotify wd:%x ino:%lx sdev:%x ",
		 (unsigned)mark.wd, mark.ino, mark.sdev);
	sk__os_fdslot_lend(); /* the library's one place for files */
	int f = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = f >= 0 ? read(f, text, sizeof(text) - 1) : -1;
	if (f >= 0)
		close(f);
	sk__os_fdslot_return();
	if (n <= 0)
		return false;
	text[n] = '\0';
	return strstr(text, want) != NULL;
}

void sk__os_watch_close(int fd, bool ours)
{
	if (ours && fd >= 0)
		close(fd);
	mark_drop();
}

int sk__os_watch_add(int fd, const char *dir)
{
	return inotify_add_watch(fd, dir, WATCH_MASK) >= 0 ? 0 : -errno;
}

bool sk__os_watch_drain(int fd, sk__os_watch_event *event)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const void *)p;
			/* A queue overflow (IN_Q_OVERFLOW) has no name: a
			 * change of something, as an unnamed event is. */
			if (e->wd != mark.wd) /* the private inode: never */
				any |= event(e->len ? e->name : NULL,
					     (e->mask & IN_MODIFY) != 0);
			p += sizeof(*e) + e->len;
		}
	}
	return any;
}
