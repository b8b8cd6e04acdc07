/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/writer.c - writing code bytes.
 *
 * procmem (default): pwrite() to /proc/self/mem (its descriptor is held
 * from start-up: fd_slot.c).  The kernel writes through
 * its own mapping of the page (FOLL_FORCE), so our code pages are never
 * mapped writable: W^X holds at all times.  One pwrite per run of site bytes
 * (arch/x86_64/int3_batch.c); each costs a system call and a page lookup
 * (~2 us), whatever its length, so a batch costs ~2 us x 3 x (runs), i.e. per site when sites
 * are spread over the program.
 *
 * mprotect: make the touched code read+write+execute for one batch, write
 * with byte stores, restore the segment's protection.  Execute permission is
 * kept throughout because other threads may be running those very pages.
 * One mprotect() per executable segment touched, over the whole range from
 * its first to its last changing site, and one back: the number of
 * protection changes (and TLB shootdowns) per batch does not grow with the
 * number of pages the sites are spread over.  The range's protection is the
 * segment's own (from its program header) before and after.  Refused where
 * RWX mappings are forbidden (SELinux execmem, some seccomp policies).
 *
 * The choice is probed once, on first use: the preferred writer writes a
 * byte of our own code with its current value; if that fails the other one
 * is tried, and if both fail updates return -EPERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "os/os.h"
#include "os/writer_common.h"
#include "support/stats.h"

enum writer { W_PROCMEM = SK__W_PROCMEM, W_MPROTECT = SK__W_MPROTECT,
	      W_NONE = SK__W_NONE, W_UNPROBED = SK__W_UNPROBED };

static int current = W_UNPROBED;
static size_t page_size;

/* A few bytes of our own code to probe writers on (never executed). */
__attribute__((noinline, used)) static void probe_target(void)
{
	__asm__ __volatile__("nop; nop; nop; nop");
}

static uintptr_t page_of(uintptr_t a)
{
	return a & ~(uintptr_t)(page_size - 1);
}

/*
 * A span marked whole_word (aarch64, which has no trap protocol) is one
 * site that other threads may be executing; it must change with one aligned
 * store of the whole instruction, never byte by byte
 * (arch/common/store_batch.c).  Returns false where this does not apply
 * (x86-64: store_code()).
 */
static bool store_site_word(const struct sk__span *s)
{
	uint32_t insn;

	if (!s->whole_word || s->len != 4 || (s->addr & 3) != 0)
		return false;
	memcpy(&insn, s->bytes, sizeof(insn));
	__atomic_store_n((uint32_t *)s->addr, insn, __ATOMIC_RELAXED);
	return true;
}

/* The descriptor is the library's one place for files (fd_slot.c), held
 * since start-up; it is checked to be ours once per batch and kept from
 * other users of the place from sk__os_writer_begin() to sk__os_writer_end(). */
static int procmem_write(uintptr_t addr, const void *src, size_t len)
{
	ssize_t n = pwrite(sk__os_fdslot_held_fd(), src, len, (off_t)addr);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? -errno : -EIO;
}

static int set_prot(uintptr_t addr, size_t len, int prot)
{
	uintptr_t lo = page_of(addr);
	uintptr_t hi = page_of(addr + len - 1) + page_size;

	return mprotect((void *)lo, hi - lo, prot) == 0 ? 0 : -errno;
}

static int probe(int w)
{
	uintptr_t a = (uintptr_t)&probe_target;
	unsigned char byte = *(volatile unsigned char *)a;

	if (w == W_PROCMEM) {
		int r = sk__os_fdslot_hold();
		if (r < 0)
			return r;
		r = procmem_write(a, &byte, 1);
		sk__os_fdslot_release();
		return r;
	}
	int r = set_prot(a, 1, PROT_READ | PROT_WRITE | PROT_EXEC);
	if (r == 0)
		r = set_prot(a, 1, PROT_READ | PROT_EXEC);
	return r;
}

static const char *name_of(int w)
{
	return w == W_PROCMEM ? "procmem" : w == W_MPROTECT ? "mprotect"
							   : "none";
}

static const char *refused_of(int w)
{
	return w == W_PROCMEM ? "/proc/self/mem" : "mprotect RWX";
}

static const struct sk__writer_ops ops = { probe, name_of, refused_of,
					   sk__os_writer_ready };

int sk__os_writer_ready(void)
{
	if (current == W_UNPROBED) {
		page_size = (size_t)sysconf(_SC_PAGESIZE);
		current = sk__writer_choose(&ops);
	}
	return current == W_NONE ? -EPERM : 0;
}

int sk__os_writer_select(int writer)
{
	return sk__writer_switch(&ops, &current, writer);
}

/* Apply the open (RWX) or closed (the segment's own) protection to the code
 * the spans touch: one call per executable segment, over the pages from its
 * first span to its last (spans are sorted by address).  Spans outside any
 * known segment get their own pages. */
static int protect_spans(const struct sk__span *spans, size_t n, bool open)
{
	uintptr_t done = 0, lo, hi;

	for (size_t i = 0; i < n;) {
		const struct sk__segment *seg = spans[i].segment;
		if (!sk__span_range(spans, n, &i, page_size, &done, &lo, &hi))
			continue;
		int base = seg ? seg->prot : PROT_READ | PROT_EXEC;
		int r = set_prot(lo, hi - lo, open ? base | PROT_WRITE | PROT_EXEC
						   : base);
		if (r)
			return r;
	}
	return 0;
}

int sk__os_writer_begin(const struct sk__span *spans, size_t n)
{
	if (current == W_PROCMEM) {
		int fd = sk__os_fdslot_hold(); /* released by sk__os_writer_end() */
		return fd >= 0 ? 0 : fd;
	}
	if (current != W_MPROTECT)
		return 0;
	int r = protect_spans(spans, n, true);
	if (r)
		(void)protect_spans(spans, n, false);
	return r;
}

bool sk__os_writer_end_serialises(void)
{
	return current == W_MPROTECT;
}

bool sk__os_writer_one_call(void)
{
	return current == W_PROCMEM;
}

int sk__os_writer_end(const struct sk__span *spans, size_t n)
{
	if (current == W_PROCMEM) {
		sk__os_fdslot_release();
		return 0;
	}
	return current == W_MPROTECT ? protect_spans(spans, n, false) : 0;
}

int sk__os_writer_write(const struct sk__span *spans, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (current == W_MPROTECT) {
			if (!store_site_word(&spans[i]))
				sk__store_code(&spans[i]);
		} else {
			int r = procmem_write(spans[i].addr, spans[i].bytes,
					      spans[i].len);
			if (r)
				return r;
		}
		sk__count_held(SK__C_TEXT_WRITES, 1);
	}
	return 0;
}

const char *sk__os_writer_name(void)
{
	return current == W_UNPROBED ? "unprobed" : name_of(current);
}

void sk__os_writer_after_fork_child(void)
{
	/* The descriptor named the parent's memory: fd_slot.c's own fork
	 * handler reopens it onto the same number in the child. */
}
