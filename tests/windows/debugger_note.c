/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * debugger_note.c - with a debugger attached (IsDebuggerPresent(), which
 * reads the process's BeingDebugged flag: set here by hand, as a debugger's
 * attach does), the first update that patches says once what the debugger
 * will see, and updates work as before (ctest matches the message).
 */
#include <windows.h>
#include <winternl.h>

#include <statickeys.h>

#include "../check.h"

SK_DEFINE_KEY_FALSE(noted_key);

__attribute__((noinline)) static int site(void)
{
	return sk_branch_unlikely(&noted_key) ? 1 : 0;
}

int main(void)
{
	PEB *peb;

	/* The PEB's address from the TEB (gs:0x60 on x86-64), as
	 * NtCurrentTeb() reads it, whose header gcc 12 warns about. */
	__asm__("mov %%gs:0x60, %0" : "=r"(peb));

	peb->BeingDebugged = 1;
	CHECK(IsDebuggerPresent(), "the process looks debugged");
	for (int i = 0; i < 3; i++) {
		CHECK(sk_key_enable(&noted_key) == 0 && site() == 1, "enable");
		CHECK(sk_key_disable(&noted_key) == 0 && site() == 0, "disable");
	}
	peb->BeingDebugged = 0;
	return check_summary();
}
