/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/bsd/watch.c - told when a directory's entries change (os/os.h,
 * "watch") on FreeBSD and macOS, with kqueue: one kqueue for every
 * directory watched, which poll() reports readable once an event is queued.
 *
 * kqueue watches descriptors, not paths: each directory stays open (read
 * only, close-on-exec) for the process's life.  A write to a directory is a
 * change of its entries (created, deleted, renamed in or out); a file
 * rewritten in place is seen when it is closed and renamed, as editors and
 * ConfigMap volumes do (the watcher's comment), not when written in place.
 */
#include <sys/types.h>
#include <sys/event.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

#include "os/os.h"

int sk__os_watch_open(void)
{
	int kq = kqueue(); /* macOS has no kqueue1() */

	if (kq < 0)
		return -errno;
	if (fcntl(kq, F_SETFD, FD_CLOEXEC) != 0 ||
	    fcntl(kq, F_SETFL, O_NONBLOCK) != 0) {
		int err = -errno;
		close(kq);
		return err;
	}
	return kq;
}

int sk__os_watch_add(int fd, const char *dir)
{
	int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct kevent ev;

	if (d < 0)
		return -errno;
	EV_SET(&ev, d, EVFILT_VNODE, EV_ADD | EV_CLEAR,
	       NOTE_WRITE | NOTE_EXTEND | NOTE_DELETE | NOTE_RENAME, 0, NULL);
	if (kevent(fd, &ev, 1, NULL, 0, NULL) != 0) {
		int err = -errno;
		close(d);
		return err;
	}
	return 0;
}

/* A directory's event does not say which entry changed. */
bool sk__os_watch_drain(int fd, sk__os_watch_event *event)
{
	struct kevent ev[16];
	const struct timespec now = { 0, 0 };
	bool any = false;
	int n;

	while ((n = kevent(fd, NULL, 0, ev, 16, &now)) > 0)
		for (int i = 0; i < n; i++)
			any |= event(NULL, false);
	return any;
}
