/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/support/mem.h - memory for the update path (mem.c): blocks carved
 * from pages of the runtime's own, safe in a signal handler, and a sort
 * that needs no buffer.
 */
#ifndef SK_SUPPORT_MEM_H
#define SK_SUPPORT_MEM_H

#include <stddef.h>

/* sk__mem_alloc - @size zeroed bytes from pages of the runtime's own (mmap),
 * never malloc: safe in a signal handler.  The caller holds the patch lock.
 * Return: the block, or NULL. */
void *sk__mem_alloc(size_t size);
/* sk__mem_free - give back a block of sk__mem_alloc (NULL: nothing). */
void sk__mem_free(void *p);
/* sk__mem_realloc - @p grown to @size bytes (the new tail is zeroed);
 * NULL, with @p untouched, when there is no memory. */
void *sk__mem_realloc(void *p, size_t size);
/* sk__mem_bytes - the bytes of live blocks (sk_stats_runtime_bytes). */
size_t sk__mem_bytes(void);
/* sk__sort - qsort() without its buffer (a heap sort): safe in a signal
 * handler. */
void sk__sort(void *base, size_t n, size_t size,
	      int (*cmp)(const void *, const void *));

#endif /* SK_SUPPORT_MEM_H */
