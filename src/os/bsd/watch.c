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
 * A directory already watched (same device and inode, its descriptor still
 * that directory) is not opened again when the watcher adds it again.
 *
 * Telling our kqueue from a descriptor the program put on its number after
 * closing ours: the kqueue also holds a user event (EVFILT_USER) whose
 * identifier is a 64-bit cookie of this process's; asking the kqueue to
 * change nothing of that event (EV_RECEIPT, no EV_ADD) succeeds only on a
 * kqueue holding it, and fails on any other kqueue or file.
 */
#include <sys/types.h>
#include <sys/event.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "os/os.h"

static uintptr_t cookie; /* the user event's identifier; 0: none */

/* The directories watched (the watcher adds at most three). */
static struct { int fd; dev_t dev; ino_t ino; } dirs[4];
static int ndirs;

int sk__os_watch_open(void)
{
	int kq = kqueue(); /* macOS has no kqueue1() */
	struct kevent ev;
	struct timespec ts;

	if (kq < 0)
		return -errno;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	cookie = ((uintptr_t)ts.tv_nsec << 20 ^ (uintptr_t)&cookie ^
		  (uintptr_t)ts.tv_sec) | 1;
	EV_SET(&ev, cookie, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
	if (fcntl(kq, F_SETFD, FD_CLOEXEC) != 0 ||
	    fcntl(kq, F_SETFL, O_NONBLOCK) != 0 ||
	    kevent(kq, &ev, 1, NULL, 0, NULL) != 0) {
		int err = -errno;
		close(kq);
		cookie = 0;
		return err;
	}
	return kq;
}

bool sk__os_watch_ours(int fd)
{
	struct kevent ev, out;
	const struct timespec now = { 0, 0 };

	if (fd < 0 || cookie == 0)
		return false;
	EV_SET(&ev, cookie, EVFILT_USER, EV_RECEIPT, 0, 0, NULL);
	return kevent(fd, &ev, 1, &out, 1, &now) == 1 &&
	       (out.flags & EV_ERROR) && out.data == 0;
}

void sk__os_watch_close(int fd, bool ours)
{
	if (ours && fd >= 0)
		close(fd);
	/* The directories' descriptors go with the kqueue's life: those
	 * still ours are closed (another file on the number is not). */
	for (int i = 0; i < ndirs; i++) {
		struct stat st;
		if (ours && fstat(dirs[i].fd, &st) == 0 &&
		    st.st_dev == dirs[i].dev && st.st_ino == dirs[i].ino)
			close(dirs[i].fd);
	}
	ndirs = 0;
	cookie = 0;
}

int sk__os_watch_add(int fd, const char *dir)
{
	struct stat st, had;
	struct kevent ev;

	if (stat(dir, &st) != 0)
		return -errno;
	int slot = ndirs;
	for (int i = 0; i < ndirs; i++) {
		/* Closed by the program (its number maybe reused): the
		 * kqueue dropped its event, and the place is free. */
		bool held = fstat(dirs[i].fd, &had) == 0 &&
			    had.st_dev == dirs[i].dev &&
			    had.st_ino == dirs[i].ino;
		if (held && had.st_dev == st.st_dev && had.st_ino == st.st_ino)
			return 0;
		if (!held)
			slot = i;
	}
	if (slot == (int)(sizeof(dirs) / sizeof(dirs[0])))
		return -ENOSPC;
	int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d < 0)
		return -errno;
	EV_SET(&ev, d, EVFILT_VNODE, EV_ADD | EV_CLEAR,
	       NOTE_WRITE | NOTE_EXTEND | NOTE_DELETE | NOTE_RENAME, 0, NULL);
	if (kevent(fd, &ev, 1, NULL, 0, NULL) != 0) {
		int err = -errno;
		close(d);
		return err;
	}
	dirs[slot].fd = d;
	dirs[slot].dev = st.st_dev;
	dirs[slot].ino = st.st_ino;
	ndirs += slot == ndirs;
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
			if (ev[i].filter != EVFILT_USER)
				any |= event(NULL, false);
	return any;
}
