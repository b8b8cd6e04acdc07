/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/windows/writer.c - writing code bytes on Windows (os/os.h,
 * "writer"): the two writers of Linux (os/linux/writer.c), in Windows's
 * calls.  STATICKEYS_WRITER and sk_config_set_writer() keep their words:
 *
 * procmem (default): WriteProcessMemory(GetCurrentProcess(), ...), which
 * writes through the page protection as Linux's /proc/self/mem does: the
 * program's code pages are never left writable (the system opens and
 * closes the page around its write).  One call per run of site bytes.
 * sk_stats names it "WriteProcessMemory".
 *
 * mprotect: VirtualProtect the touched code PAGE_EXECUTE_READWRITE for
 * one batch (execute kept: other threads run those pages), write with byte
 * stores, and give the range back the protection it had.  One call per
 * executable section touched, over its first to last changing site, and
 * one back.  sk_stats names it "VirtualProtect".
 *
 * Either way each write is followed by FlushInstructionCache() over the
 * bytes written, which Windows asks of every program that changes code
 * (x86 keeps instruction fetch coherent; the core sync of os/windows/
 * sync.c is what serialises the other threads).  Only the sites' own bytes
 * are written, never a page's copy.
 *
 * The choice is probed once, on first use, as on Linux: the preferred
 * writer writes a byte of our own code with its current value; if that
 * fails the other is tried; if both fail updates return -EPERM.
 */
#include <windows.h>

#include <errno.h>
#include <string.h>

#include "os/os.h"
#include "os/writer_common.h"
#include "support/stats.h"

enum writer { W_PROCMEM = SK__W_PROCMEM, W_MPROTECT = SK__W_MPROTECT,
	      W_NONE = SK__W_NONE, W_UNPROBED = SK__W_UNPROBED };

static int current = W_UNPROBED;
static size_t page_size;
/* The protection each opened range had (mprotect writer); one batch at a
 * time (the patch lock), over at most this many sections. */
#define OPEN_MAX (SK__IMAGE_SEGMENTS * 8)
static struct { uintptr_t lo, hi; DWORD prot; } opened[OPEN_MAX];
static size_t nopened;

/* A few bytes of our own code to probe writers on (never executed). */
__attribute__((noinline, used)) static void probe_target(void)
{
	__asm__ __volatile__("nop; nop; nop; nop");
}

/* Windows's error as an errno: what a caller can act on. */
static int errno_of(DWORD err)
{
	switch (err) {
	case ERROR_ACCESS_DENIED:
	case ERROR_NOACCESS:
		return -EACCES;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return -ENOMEM;
	case ERROR_INVALID_ADDRESS:
	case ERROR_INVALID_PARAMETER:
		return -EFAULT;
	default:
		return -EPERM;
	}
}

static uintptr_t page_of(uintptr_t a)
{
	return a & ~(uintptr_t)(page_size - 1);
}

static int procmem_write(uintptr_t addr, const void *src, size_t len)
{
	SIZE_T n = 0;

	if (!WriteProcessMemory(GetCurrentProcess(), (void *)addr, src, len,
				&n))
		return errno_of(GetLastError());
	return n == len ? 0 : -EIO;
}

static int protect(uintptr_t lo, uintptr_t hi, DWORD prot, DWORD *old)
{
	return VirtualProtect((void *)lo, hi - lo, prot, old)
		       ? 0
		       : errno_of(GetLastError());
}

static int probe(int w)
{
	uintptr_t a = (uintptr_t)&probe_target;
	unsigned char byte = *(volatile unsigned char *)a;

	if (w == W_PROCMEM)
		return procmem_write(a, &byte, 1);
	DWORD old, ignored;
	int r = protect(page_of(a), page_of(a) + page_size,
			PAGE_EXECUTE_READWRITE, &old);
	if (r == 0)
		r = protect(page_of(a), page_of(a) + page_size, old, &ignored);
	return r;
}

static const char *name_of(int w)
{
	return w == W_PROCMEM	? "WriteProcessMemory"
	       : w == W_MPROTECT ? "VirtualProtect"
				 : "none";
}

static const struct sk__writer_ops ops = { probe, name_of, name_of,
					   sk__os_writer_ready };

int sk__os_writer_ready(void)
{
	if (current == W_UNPROBED) {
		SYSTEM_INFO si;
		GetSystemInfo(&si);
		page_size = si.dwPageSize;
		current = sk__writer_choose(&ops);
	}
	return current == W_NONE ? -EPERM : 0;
}

int sk__os_writer_select(int writer)
{
	return sk__writer_switch(&ops, &current, writer);
}

/* Give every opened range its own protection back, last first. */
static int close_ranges(void)
{
	int err = 0;

	while (nopened) {
		DWORD ignored;
		nopened--;
		int r = protect(opened[nopened].lo, opened[nopened].hi,
				opened[nopened].prot, &ignored);
		err = err ? err : r;
	}
	return err;
}

/* Open the code the spans touch: one range per executable section, from
 * its first span's page to its last's (spans are sorted by address). */
static int open_ranges(const struct sk__span *spans, size_t n)
{
	uintptr_t done = 0, lo, hi;

	for (size_t i = 0; i < n;) {
		if (!sk__span_range(spans, n, &i, page_size, &done, &lo, &hi))
			continue;
		if (nopened == OPEN_MAX)
			return -E2BIG;
		int r = protect(lo, hi, PAGE_EXECUTE_READWRITE,
				&opened[nopened].prot);
		if (r)
			return r;
		opened[nopened].lo = lo;
		opened[nopened].hi = hi;
		nopened++;
	}
	return 0;
}

int sk__os_writer_begin(const struct sk__span *spans, size_t n)
{
	if (current != W_MPROTECT)
		return 0;
	int r = open_ranges(spans, n);
	if (r)
		(void)close_ranges();
	return r;
}

bool sk__os_writer_end_serialises(void)
{
	/* Windows does not say that a protection change interrupts the
	 * other processors: every step syncs with os/windows/sync.c. */
	return false;
}

int sk__os_writer_end(const struct sk__span *spans, size_t n)
{
	(void)spans, (void)n;
	return current == W_MPROTECT ? close_ranges() : 0;
}

int sk__os_writer_write(const struct sk__span *spans, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (current == W_MPROTECT) {
			sk__store_code(&spans[i]);
		} else {
			int r = procmem_write(spans[i].addr, spans[i].bytes,
					      spans[i].len);
			if (r)
				return r;
		}
		FlushInstructionCache(GetCurrentProcess(),
				      (const void *)spans[i].addr, spans[i].len);
		sk__count_held(SK__C_TEXT_WRITES, 1);
	}
	return 0;
}

bool sk__os_writer_one_call(void)
{
	return false; /* nothing asks: call sites are patched on Linux */
}

const char *sk__os_writer_name(void)
{
	return current == W_UNPROBED ? "unprobed" : name_of(current);
}

void sk__os_writer_after_fork_child(void)
{
	/* Windows has no fork(). */
}
