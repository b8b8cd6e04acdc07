/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * processprng.c - bcryptprimitives.dll for wine 8, which has none: Rust's
 * standard library (1.78 and later) imports ProcessPrng from it for its
 * random numbers (HashMap seeds), so without it no Rust program for
 * x86_64-pc-windows-gnu starts under wine 8.  Built by tests/rust/cargo.sh
 * (test-windows) with mingw-w64 and put beside the test programs, where
 * Windows' loader looks first.  It only serves the tests: ProcessPrng on top
 * of RtlGenRandom (advapi32's SystemFunction036), which wine has.
 * Real Windows (10 and later) has the system's own.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len) {
		ULONG n = len > 0x10000000u ? 0x10000000u : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
