/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/process_start.h - what os/process_watch.c asks of the process.c of
 * an OS that uses it (FreeBSD: its kinfo_proc; macOS: proc_pidinfo();
 * Windows: the process's creation time).
 */
#ifndef SK_OS_PROCESS_START_H
#define SK_OS_PROCESS_START_H

#include <stdint.h>

/* sk__os_process_start - when @pid started, in the OS's own units:
 * 0, -ESRCH if there is no such process or it has exited, -EPERM if it is
 * another user's the OS will not describe, or another -errno. */
int sk__os_process_start(long pid, uint64_t *start);

#endif /* SK_OS_PROCESS_START_H */
