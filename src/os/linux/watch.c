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
 */
#include <errno.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "os/os.h"

#define WATCH_MASK                                                        \
	(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE |       \
	 IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_MODIFY)

int sk__os_watch_open(void)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	return fd >= 0 ? fd : -errno;
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
			any |= event(e->len ? e->name : NULL,
				     (e->mask & IN_MODIFY) != 0);
			p += sizeof(*e) + e->len;
		}
	}
	return any;
}
