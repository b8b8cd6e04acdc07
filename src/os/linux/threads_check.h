/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/threads_check.h - the thread check's one entry point besides
 * the OS contract's sk__os_trap_update_allowed (threads_check.c).  Nothing
 * outside os/linux/ includes this.
 */
#ifndef SK_OS_LINUX_THREADS_CHECK_H
#define SK_OS_LINUX_THREADS_CHECK_H

/* sk__threads_check_lookup - once, before the patch lock is taken
 * (trap_signal.c's sk__os_trap_before_lock): find glibc's count of its
 * threads.  dlsym() takes the dynamic linker's lock, which a dlopen() in
 * another thread holds while its constructors wait for the patch lock, so
 * it must never be called under the patch lock. */
void sk__threads_check_lookup(void);

#endif /* SK_OS_LINUX_THREADS_CHECK_H */
