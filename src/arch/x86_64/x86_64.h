/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/x86_64/x86_64.h - what the x86-64 files share among themselves:
 * the int3 protocol (int3_batch.c) and its trap handler (trap.c, with its
 * OS half: sigtrap.c or veh.c), and the
 * SIGTRAP bookkeeping that protocol needs (sigmask.c, threads_check.c).
 * Nothing outside arch/x86_64/ includes this.
 */
#ifndef SK_ARCH_X86_64_H
#define SK_ARCH_X86_64_H

#include "arch/backend.h"

/* ---- the trap handler: its OS half (sigtrap.c, veh.c) --------------------- */

/* sk__trap_install - make sure our trap handler is the installed one
 * (POSIX: the SIGTRAP handler, chaining to whatever was there; Windows:
 * the first vectored exception handler). Return: 0 or -errno. */
int sk__trap_install(void);

/* ---- trap.c: where a trapped thread resumes -------------------------------- */

/* sk__trap_resolve - where to resume a thread that trapped at the int3 at
 * @addr, or 0 if that int3 is not ours.  Lock-free; async-signal-safe. */
uintptr_t sk__trap_resolve(uintptr_t addr);
/* sk__trap_publish - let the handler resolve traps in @v (sorted). */
void sk__trap_publish(const struct sk__patch *v, size_t n);
/* sk__trap_retire - stop resolving the batch; returns when no handler can
 * still be reading it. */
void sk__trap_retire(void);
/* sk__trap_add_stuck - sites a failed rollback left trapped: resolve them
 * for as long as their object stays loaded (copied). */
void sk__trap_add_stuck(const struct sk__patch *v, size_t n);
/* sk__trap_after_fork_child - forget handler readers of the parent's other
 * threads, which do not exist in the child. */
void sk__trap_after_fork_child(void);
/* sk__trap_live - the batch the handler resolves now (NULL if none), and
 * its size: in a fork child, the batch the fork cut. */
const struct sk__patch *sk__trap_live(size_t *n);

/* ---- tracer_note.c ------------------------------------------------------- */

/* sk__tracer_note - under a tracer without the gdb script, say once on
 * stderr how to load it (called at each update; cheap when not traced). */
void sk__tracer_note(void);

/* ---- threads_check.c ----------------------------------------------------- */

/* sk__threads_after_fork_child - drop descriptors naming parent threads. */
void sk__threads_after_fork_child(void);

/* ---- sigmask.c, sigmask_probe.c ------------------------------------------- */

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
/* sk__sigmask_ready - at start-up: name a bad STATICKEYS_KEEP_SIGTRAP (the
 * C library's functions are looked up by the first wrapper call that needs
 * them: sigmask.c, lookup()); from the static library it also links
 * sigmask.c in (not with --wrap: the wrappers are then left out unless the
 * program uses them). */
void sk__sigmask_ready(void);
/* sk__sigmask_lookup - look the C library's functions up now, if no
 * wrapper did yet (sigmask.c's lookup()). */
void sk__sigmask_lookup(void);
/* sk__sigmask_probe_note - the pthread_sigmask wrapper was called. */
void sk__sigmask_probe_note(void);
/* sk__sigmask_note_sigtrap_action - the sigaction wrapper is changing
 * SIGTRAP's action (the program's, or ours). */
void sk__sigmask_note_sigtrap_action(void);
/* sk__sigmask_sigtrap_actions - how many times it has, so far. */
unsigned long sk__sigmask_sigtrap_actions(void);
/* sk__sigmask_link_check - 0, or -ENOTSUP (once with a message giving the
 * link line) in a program without a dynamic linker that was linked without
 * the wrappers (sigmask_probe.c). */
int sk__sigmask_link_check(void);

#endif /* SK_ARCH_X86_64_H */
