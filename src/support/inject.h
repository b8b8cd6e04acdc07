/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/support/inject.h - the tests' fault-injection hook: SK_INJECT(point)
 * calls sk__inject_hook where the runtime is built with SK_ENABLE_INJECT
 * (statickeys_inject), and is nothing otherwise (inject.c).
 */
#ifndef SK_SUPPORT_INJECT_H
#define SK_SUPPORT_INJECT_H

/* sk__inject_point - where a test may widen a race window. */
enum sk__inject_point {
	SK__INJECT_AFTER_TRAP_WRITE, /* int3 written and synced (aarch64:
					the new instructions written) */
	SK__INJECT_AFTER_TAIL_WRITE, /* bytes 1.. written and synced */
	SK__INJECT_IN_TRAP_HANDLER,  /* a thread is being resumed */
	SK__INJECT_IN_LOCK_HANDOFF,  /* the patch lock handed to a waiter,
					its claim not yet cleared */
	SK__INJECT_BETWEEN_STEPS,    /* s390x: a step of a moving jump
					written and synced, the next not
					begun (arch/s390x/batch.c) */
};

#ifdef SK_ENABLE_INJECT
extern void (*volatile sk__inject_hook)(int point);
#define SK_INJECT(point)                                                     \
	do {                                                                 \
		void (*sk__h)(int) = sk__inject_hook;                        \
		if (sk__h)                                                   \
			sk__h(point);                                        \
	} while (0)
#else
#define SK_INJECT(point) ((void)0)
#endif

#endif /* SK_SUPPORT_INJECT_H */
