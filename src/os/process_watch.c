/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/process_watch.c - watching a process that skctl waits on
 * (os/os.h: sk__os_process_watch_*), on the OSes that give no descriptor
 * for it here (FreeBSD, macOS, Windows): by its start time.
 *
 * No descriptor: the watcher asks every SK__OS_PROCESS_POLL_MS whether the
 * process is gone (kqueue's EVFILT_PROC would tell at once; a later
 * change).  Gone: no such process, a zombie, or a process with the same
 * pid that started later (the pid was reused).
 */
#include <errno.h>
#include <stdbool.h>

#include "os/os.h"

int sk__os_process_watch_open(struct sk__os_process_watch *w, long pid)
{
	w->pid = pid;
	w->fd = -1;
	w->start = 0;
	int r = sk__os_process_start(pid, &w->start);
	return r == -EPERM ? 0 : r; /* another user's: it exists */
}

bool sk__os_process_gone(const struct sk__os_process_watch *w)
{
	uint64_t start = 0;
	int r = sk__os_process_start(w->pid, &start);

	return r == -ESRCH || (r == 0 && w->start && start != w->start);
}

void sk__os_process_watch_close(struct sk__os_process_watch *w)
{
	w->fd = -1;
}
