/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/sigmask.h - the signal-mask wrappers (sigmask.c): what the
 * rest of Linux's trap delivery asks of them.  Nothing outside os/linux/
 * includes this.
 */
#ifndef SK_OS_LINUX_SIGMASK_H
#define SK_OS_LINUX_SIGMASK_H

/* sk__sigmask_ready - at start-up: name a bad STATICKEYS_KEEP_SIGTRAP (the
 * C library's functions are looked up by the first wrapper call that needs
 * them: sigmask.c, lookup()); from the static library it also links
 * sigmask.c in (not with --wrap: the wrappers are then left out unless the
 * program uses them). */
void sk__sigmask_ready(void);
/* sk__sigmask_lookup - look the C library's functions up now, if no
 * wrapper did yet (sigmask.c's lookup()). */
void sk__sigmask_lookup(void);

#endif /* SK_OS_LINUX_SIGMASK_H */
