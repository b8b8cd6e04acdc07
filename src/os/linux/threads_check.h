/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/threads_check.h - the thread check's one entry point besides
 * the OS contract's sk__os_trap_update_allowed (threads_check.c).  Nothing
 * outside os/linux/ includes this.
 */
#ifndef SK_OS_LINUX_THREADS_CHECK_H
#define SK_OS_LINUX_THREADS_CHECK_H

/* sk__threads_check_lookup - once, at start-up (trap_signal.c's set-up,
 * which the runtime's initialisation runs before any update): find glibc's
 * count of its threads.  Never later:
 * dlsym() takes the dynamic linker's lock, which a dlopen() in another
 * thread holds while its constructors wait for the patch lock, and it is
 * not async-signal-safe, while an update may come from a signal handler
 * (ThreadSanitizer caught the first version doing both). */
void sk__threads_check_lookup(void);

#endif /* SK_OS_LINUX_THREADS_CHECK_H */
