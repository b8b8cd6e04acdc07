/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/x86_64/x86_64.h - what the x86-64 files share among themselves:
 * the int3 protocol (int3_batch.c) and the resolution of its traps
 * (trap.c).  How a trap reaches trap.c is the OS's (os/os.h, "trap
 * delivery": os/linux/trap_signal.c, os/windows/trap_veh.c).  Nothing
 * outside arch/x86_64/ includes this (but src/internal.h, for tests).
 */
#ifndef SK_ARCH_X86_64_H
#define SK_ARCH_X86_64_H

#include "arch/backend.h"

/* ---- trap.c: where a trapped thread resumes -------------------------------- */

/* sk__trap_resolve - where to resume a thread that trapped at the int3 at
 * @addr, or 0 if that int3 is not ours; *@push: the return address its
 * stack gets (a call site's emulated call), or 0.  Lock-free;
 * async-signal-safe. */
uintptr_t sk__trap_resolve(uintptr_t addr, uintptr_t *push);
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

#endif /* SK_ARCH_X86_64_H */
