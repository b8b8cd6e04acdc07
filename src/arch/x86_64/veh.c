/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/x86_64/veh.c - the x86-64 protocol's OS half on Windows: a
 * vectored exception handler resumes threads caught mid-update where
 * trap.c says, and the backend's hooks that Windows makes trivial.
 *
 * A thread that runs a changing site's int3 raises EXCEPTION_BREAKPOINT.
 * Vectored handlers see an exception before any frame-based (__try) handler
 * of the thread; ours is added first in line (AddVectoredExceptionHandler
 * with First = 1), at start-up, and answers EXCEPTION_CONTINUE_EXECUTION
 * with the context's Rip moved to the site's new destination.  Windows
 * reports the breakpoint at the int3 itself (ExceptionAddress, and Rip,
 * which the kernel backs up by one; Linux reports the byte after).  Any
 * other exception, and a breakpoint that is not ours, goes on to the next
 * handler (EXCEPTION_CONTINUE_SEARCH), as SIGTRAP chains on Linux.
 *
 * There are no signal masks: no thread can block the exception, so every
 * update is allowed (sk__arch_update_allowed), and no fork.  A debugger
 * attached to the process sees each such breakpoint first (first-chance
 * exceptions go to it before any handler of the program):
 * sk__tracer_note() says so once.
 *
 * The runtime's DLL is pinned when the handler is added: unloading it
 * would leave Windows calling a handler that is gone.
 */
#include <windows.h>

#include "arch/x86_64/x86_64.h"

static PVOID handler;

uintptr_t sk__arch_trap_address(const void *record, const void *context)
{
	const EXCEPTION_RECORD *r = record;

	(void)context;
	if (r->ExceptionCode != (DWORD)EXCEPTION_BREAKPOINT)
		return 0;
	return (uintptr_t)r->ExceptionAddress;
}

void sk__arch_set_pc(void *context, uintptr_t pc)
{
	((CONTEXT *)context)->Rip = (DWORD64)pc;
}

static LONG CALLBACK breakpoint_handler(EXCEPTION_POINTERS *ep)
{
	uintptr_t addr = sk__arch_trap_address(ep->ExceptionRecord,
					       ep->ContextRecord);

	if (!addr)
		return EXCEPTION_CONTINUE_SEARCH;
	DWORD saved_error = GetLastError();
	uintptr_t resume = sk__trap_resolve(addr);
	if (!resume) {
		sk__count(SK__C_TRAPS_CHAINED, 1);
		SetLastError(saved_error);
		return EXCEPTION_CONTINUE_SEARCH;
	}
	SK_INJECT(SK__INJECT_IN_TRAP_HANDLER);
	sk__arch_set_pc(ep->ContextRecord, resume);
	sk__count(SK__C_TRAPS_HANDLED, 1);
	SetLastError(saved_error);
	return EXCEPTION_CONTINUE_EXECUTION;
}

/* At start-up (the first object's registration, before the patch lock is
 * ever taken: pinning asks the loader). */
void sk__arch_init(void)
{
	sk__os_pin_image((const void *)&breakpoint_handler);
	handler = AddVectoredExceptionHandler(1, breakpoint_handler);
}

int sk__trap_install(void)
{
	return handler ? 0 : -ENOMEM;
}

int sk__arch_update_allowed(void)
{
	return 0;
}

void sk__arch_before_lock(void)
{
}

void sk__threads_after_fork_child(void)
{
}

void sk__tracer_note(void)
{
	static int said;

	if (!IsDebuggerPresent() ||
	    __atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	sk__warn("a debugger is attached: during a key update, a thread that "
		 "runs a changing site stops it with a breakpoint exception "
		 "(int3) at that site; pass the exception on to the program "
		 "(do not handle it in the debugger) and statickeys resumes "
		 "the thread where the key now leads");
}
