/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/support/mem.c - memory and sorting for the update path, safe in a signal
 * handler.
 *
 * A key may be updated from a signal handler (PostgreSQL <= 15 reloads its
 * configuration in one, and forks the workers that update keys from
 * others).  The handler may have interrupted malloc() on its own thread,
 * or another thread may hold a lock of malloc's that the handler's thread
 * holds: so nothing an update does, on any thread, may call malloc() or
 * free(), nor qsort() (glibc's sorts with a malloc'd buffer).  The update
 * path takes its memory here instead: pages from the OS (sk__os_pages_map: mmap, a system call, safe
 * anywhere), carved into power-of-two blocks kept on free lists for reuse,
 * and blocks larger than LARGE_MAX on mappings of their own.
 *
 * Every caller holds the patch lock (core/lock.c), which is the allocator's
 * only lock: a handler on a thread that holds it is refused before it gets
 * here, so the lists are never entered twice.  Blocks of the small classes
 * are reused, never unmapped; the live blocks are counted
 * (sk_stats_runtime_bytes) as mallinfo2 counts malloc's, for the
 * benchmarks' memory rows.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "os/os.h" /* sk__os_pages_map: a primitive, below support/ */
#include "support/mem.h"

#define HEADER 16u		    /* keeps blocks 16-byte aligned */
#define MIN_SHIFT 5		    /* 32 bytes, header included */
#define LARGE_MAX (32u << 10)	    /* larger blocks: a mapping each */
#define CHUNK (128u << 10)	    /* small blocks are carved from these */
#define CLASSES 11		    /* 32 B .. 32 KiB */

struct header {
	size_t size; /* usable bytes: the class's, or the mapping's */
	size_t cls;  /* class index, or CLASSES for a mapping of its own */
};

struct free_block {
	struct free_block *next;
};

static struct free_block *free_lists[CLASSES];
static char *carve, *carve_end;
static size_t in_use; /* bytes of live blocks, headers included */

static void *map(size_t len)
{
	return sk__os_pages_map(len);
}

static void count(size_t len, bool add)
{
	if (add)
		__atomic_fetch_add(&in_use, len, __ATOMIC_RELAXED);
	else
		__atomic_fetch_sub(&in_use, len, __ATOMIC_RELAXED);
}

static size_t class_of(size_t total)
{
	size_t c = 0;

	while (((size_t)1 << (c + MIN_SHIFT)) < total)
		c++;
	return c;
}

/* A block of class @cls; *@reused: it was freed before (fresh blocks are
 * carved from pages the OS zeroed and nobody wrote since). */
static struct header *small_block(size_t cls, bool *reused)
{
	size_t total = (size_t)1 << (cls + MIN_SHIFT);
	struct free_block *f = free_lists[cls];

	*reused = f != NULL;
	if (f) {
		free_lists[cls] = f->next;
		return (struct header *)f;
	}
	if ((size_t)(carve_end - carve) < total) {
		/* The rest of the chunk is left unused (at most a block). */
		carve = map(CHUNK);
		carve_end = carve ? carve + CHUNK : NULL;
		if (!carve)
			return NULL;
	}
	struct header *h = (struct header *)carve;
	carve += total;
	return h;
}

void *sk__mem_alloc(size_t size)
{
	size_t total = size + HEADER;
	struct header *h;
	bool reused = false;

	if (size > ((size_t)-1 >> 1))
		return NULL;
	if (total <= LARGE_MAX) {
		size_t cls = class_of(total);
		h = small_block(cls, &reused);
		if (!h)
			return NULL;
		h->size = ((size_t)1 << (cls + MIN_SHIFT)) - HEADER;
		h->cls = cls;
	} else {
		h = map(total);
		if (!h)
			return NULL;
		h->size = total - HEADER;
		h->cls = CLASSES;
	}
	count(h->size + HEADER, true);
	void *p = (char *)h + HEADER;
	/* Zeroed memory, but only a reused block is written: a fresh one's
	 * pages are the OS's zeroes, and stay untouched (unfaulted) until
	 * used (call_sites.c's 64 KiB buffer, of which a scan uses a few
	 * entries). */
	if (reused)
		memset(p, 0, size);
	return p;
}

void sk__mem_free(void *p)
{
	if (!p)
		return;
	struct header *h = (struct header *)((char *)p - HEADER);
	count(h->size + HEADER, false);
	if (h->cls == CLASSES) {
		sk__os_pages_unmap(h, h->size + HEADER);
		return;
	}
	struct free_block *f = (struct free_block *)h;
	f->next = free_lists[h->cls];
	free_lists[h->cls] = f;
}

void *sk__mem_realloc(void *p, size_t size)
{
	if (!p)
		return sk__mem_alloc(size);
	struct header *h = (struct header *)((char *)p - HEADER);
	if (size <= h->size)
		return p;
	void *q = sk__mem_alloc(size);
	if (q) {
		memcpy(q, p, h->size);
		sk__mem_free(p);
	}
	return q;
}

size_t sk__mem_bytes(void)
{
	return __atomic_load_n(&in_use, __ATOMIC_RELAXED);
}

/* ---- sorting: a heap sort, in place (no buffer, unlike qsort) ------------ */

#define SMALL_SORT 64 /* elements an insertion sort takes instead */

static void swap_bytes(unsigned char *a, unsigned char *b, size_t size)
{
	while (size--) {
		unsigned char t = *a;
		*a++ = *b;
		*b++ = t;
	}
}

static void sift_down(unsigned char *base, size_t root, size_t n, size_t size,
		      int (*cmp)(const void *, const void *))
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n &&
		    cmp(base + child * size, base + (child + 1) * size) < 0)
			child++;
		if (cmp(base + root * size, base + child * size) >= 0)
			return;
		swap_bytes(base + root * size, base + child * size, size);
		root = child;
	}
}

void sk__sort(void *base, size_t n, size_t size,
	      int (*cmp)(const void *, const void *))
{
	unsigned char *b = base;
	size_t sorted = 1;

	/* Already in order (a batch's sites, read in address order): one
	 * pass of comparisons, no heap. */
	while (sorted < n && cmp(b + (sorted - 1) * size, b + sorted * size) <= 0)
		sorted++;
	if (sorted >= n)
		return;
	/* Small and nearly in order (a static call's trampoline before its
	 * call sites): an insertion sort, whose cost is the disorder. */
	if (n <= SMALL_SORT) {
		unsigned char tmp[256];
		for (size_t i = sorted; i < n; i++) {
			size_t j = i;
			while (j > 0 && cmp(b + (j - 1) * size, b + i * size) > 0)
				j--;
			if (j == i)
				continue;
			/* One element moved over (i - j) others: one block move,
			 * not (i - j) swaps byte by byte (a batch's trampoline
			 * after its 40 call sites: 64 swaps of a patch each). */
			if (size <= sizeof(tmp)) {
				memcpy(tmp, b + i * size, size);
				memmove(b + (j + 1) * size, b + j * size,
					(i - j) * size);
				memcpy(b + j * size, tmp, size);
			} else {
				for (size_t k = i; k > j; k--)
					swap_bytes(b + (k - 1) * size, b + k * size,
						   size);
			}
		}
		return;
	}
	for (size_t i = n / 2; i-- > 0;)
		sift_down(b, i, n, size, cmp);
	for (size_t end = n - 1; end > 0; end--) {
		swap_bytes(b, b + end * size, size);
		sift_down(b, 0, end, size, cmp);
	}
}
