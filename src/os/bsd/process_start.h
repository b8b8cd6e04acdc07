/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/bsd/process_start.h - what os/bsd/process_watch.c asks of each
 * BSD's process.c (FreeBSD: its kinfo_proc; macOS: proc_pidinfo()).
 */
#ifndef SK_OS_BSD_PROCESS_START_H
#define SK_OS_BSD_PROCESS_START_H

#include <stdint.h>

/* sk__os_process_start - when @pid started (microseconds since the epoch):
 * 0, -ESRCH if there is no such process or it is a zombie, -EPERM if it is
 * another user's the OS will not describe, or another -errno. */
int sk__os_process_start(long pid, uint64_t *start);

#endif /* SK_OS_BSD_PROCESS_START_H */
