/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/windows/watch.c - no directory watch on Windows in this port:
 * ReadDirectoryChangesW gives a HANDLE, not a descriptor poll() can wait
 * on, which is what control/config_watch.c's thread does.  So
 * STATICKEYS_FILE is read once, at start-up (docs/porting.md, "Platforms").
 */
#include <errno.h>

#include "os/os.h"

int sk__os_watch_open(void)
{
	return -ENOTSUP;
}

bool sk__os_watch_ours(int fd)
{
	(void)fd;
	return false;
}

void sk__os_watch_close(int fd, bool ours)
{
	(void)fd, (void)ours;
}

int sk__os_watch_add(int fd, const char *dir)
{
	(void)fd, (void)dir;
	return -ENOTSUP;
}

bool sk__os_watch_drain(int fd, sk__os_watch_event *event)
{
	(void)fd, (void)event;
	return false;
}
