/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/sigmask_probe.h - are the signal-mask wrappers in effect
 * (sigmask_probe.c): asked by the wrappers themselves (sigmask.c), the
 * SIGTRAP handler's installer (trap_signal.c) and the thread check
 * (threads_check.c).  Nothing outside os/linux/ includes this.
 */
#ifndef SK_OS_LINUX_SIGMASK_PROBE_H
#define SK_OS_LINUX_SIGMASK_PROBE_H

#include <stdbool.h>

/* sk__sigmask_wrappers_active - the program's mask-setting calls reach
 * sigmask.c's wrappers, which keep SIGTRAP out of every mask they install
 * (false when STATICKEYS_KEEP_SIGTRAP=0, or the runtime was loaded late by
 * dlopen and the C library's definitions come first). */
bool sk__sigmask_wrappers_active(void);
/* sk__sigmask_wrappers_reached - the program's calls reach the wrappers,
 * whatever STATICKEYS_KEEP_SIGTRAP says. */
bool sk__sigmask_wrappers_reached(void);
/* sk__sigmask_keeps_sigtrap - STATICKEYS_KEEP_SIGTRAP is not 0. */
bool sk__sigmask_keeps_sigtrap(void);
/* sk__sigmask_probe_start - at start-up (trap_signal.c, once): decide
 * STATICKEYS_KEEP_SIGTRAP, probe whether the wrappers are reached, and
 * unblock an inherited blocked SIGTRAP in this thread where they are. */
void sk__sigmask_probe_start(void);
/* sk__sigmask_probe_note - the pthread_sigmask wrapper was called. */
void sk__sigmask_probe_note(void);
/* sk__sigmask_note_sigtrap_action - the sigaction wrapper is changing
 * SIGTRAP's action (the program's, or ours). */
void sk__sigmask_note_sigtrap_action(void);
/* sk__sigmask_sigtrap_actions - how many times it has, so far. */
unsigned long sk__sigmask_sigtrap_actions(void);
/* sk__sigmask_link_check - 0, or -ENOTSUP (once with a message giving the
 * link line) in a program without a dynamic linker that was linked without
 * the wrappers. */
int sk__sigmask_link_check(void);

#endif /* SK_OS_LINUX_SIGMASK_PROBE_H */
