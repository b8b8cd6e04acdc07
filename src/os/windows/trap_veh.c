/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/windows/trap_veh.c - trap delivery on Windows (os/os.h): a
 * vectored exception handler resumes threads caught mid-update where the
 * architecture says (arch/x86_64/trap.c), and the rest of the trap
 * delivery contract, which Windows makes trivial.
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
 * update is allowed (sk__os_trap_update_allowed), and no fork.  A debugger
 * attached to the process sees each such breakpoint first (first-chance
 * exceptions go to it before any handler of the program):
 * sk__os_tracer_note() says so once.
 *
 * The runtime's DLL is pinned when the handler is added: unloading it
 * would leave Windows calling a handler that is gone.
 */
#include <windows.h>

#include "os/os.h"
#include "support/inject.h"
#include "support/message.h"
#include "support/stats.h"

static PVOID handler;
/* The architecture's answer to "where does a thread that trapped here go
 * on?" (sk__os_trap_init, before the handler is added). */
static sk__os_trap_resume_fn resume_at;

/* trap_address - the address of the trapping site if @r is a breakpoint
 * exception, else 0. */
static uintptr_t trap_address(const EXCEPTION_RECORD *r)
{
	if (r->ExceptionCode != (DWORD)EXCEPTION_BREAKPOINT)
		return 0;
	return (uintptr_t)r->ExceptionAddress;
}

/* set_pc - resume the interrupted thread at @pc, with @push (if not 0)
 * pushed on its stack, as its call would have.  No call site is patched on
 * Windows today (a PE link keeps no relocations the runtime reads), so no
 * push is asked; were one, the word below the interrupted stack pointer is
 * the top of the exception's machine frame, which resuming from the
 * CONTEXT does not read. */
static void set_pc(CONTEXT *context, uintptr_t pc, uintptr_t push)
{
	if (push) {
		context->Rsp -= sizeof(DWORD64);
		*(DWORD64 *)(uintptr_t)context->Rsp = (DWORD64)push;
	}
	context->Rip = (DWORD64)pc;
}

static LONG CALLBACK breakpoint_handler(EXCEPTION_POINTERS *ep)
{
	uintptr_t addr = trap_address(ep->ExceptionRecord);

	if (!addr)
		return EXCEPTION_CONTINUE_SEARCH;
	DWORD saved_error = GetLastError();
	uintptr_t push = 0;
	uintptr_t resume = resume_at(addr, &push);
	if (!resume) {
		sk__count(SK__C_TRAPS_CHAINED, 1);
		SetLastError(saved_error);
		return EXCEPTION_CONTINUE_SEARCH;
	}
	SK_INJECT(SK__INJECT_IN_TRAP_HANDLER);
	set_pc(ep->ContextRecord, resume, push);
	sk__count(SK__C_TRAPS_HANDLED, 1);
	SetLastError(saved_error);
	return EXCEPTION_CONTINUE_EXECUTION;
}

/* At start-up (the first object's registration, before the patch lock is
 * ever taken: pinning asks the loader). */
void sk__os_trap_init(sk__os_trap_resume_fn resume)
{
	resume_at = resume;
	sk__os_pin_image((const void *)&breakpoint_handler);
	handler = AddVectoredExceptionHandler(1, breakpoint_handler);
}

int sk__os_trap_install(void)
{
	return handler ? 0 : -ENOMEM;
}

int sk__os_trap_update_allowed(void)
{
	return 0;
}

void sk__os_trap_before_lock(void)
{
}

void sk__os_trap_after_fork_child(void)
{
}

/* No call site is patched on Windows (set_pc), so no push is asked; were
 * one, a process with hardware-enforced stack protection (CET shadow
 * stacks, /CETCOMPAT) would not accept it: the safe answer is no. */
bool sk__os_trap_can_push(void)
{
	return false;
}

/* Nothing interrupts a thread to run a handler of its own on Windows
 * (an APC only runs in an alertable wait, which a batch never makes). */
void sk__os_trap_hold_signals(bool hold)
{
	(void)hold;
}

void sk__os_tracer_note(void)
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
