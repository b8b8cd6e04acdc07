/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/writer_common.c - what the OS writers share (os/linux/writer.c,
 * os/windows/writer.c): both have a writer through the process's memory
 * (procmem) and one that opens the code's pages for a batch (mprotect), and
 * they choose between them, open page ranges and store code bytes alike.
 */
#include "os/writer_common.h"
#include "support/message.h"
#include "support/settings.h"

int sk__writer_choose(const struct sk__writer_ops *ops)
{
	int want = sk__setting(SK__SETTING_WRITER) == 1 ? SK__W_MPROTECT
							 : SK__W_PROCMEM;
	int r = ops->probe(want);

	if (r == 0)
		return want;
	int other = want == SK__W_PROCMEM ? SK__W_MPROTECT : SK__W_PROCMEM;
	int r2 = ops->probe(other);
	if (r2 == 0) {
		sk__warn("writer %s unavailable (%s); using %s", ops->name(want),
			 sk__strerror(-r), ops->name(other));
		return other;
	}
	int procmem_err = want == SK__W_PROCMEM ? r : r2;
	int mprotect_err = want == SK__W_PROCMEM ? r2 : r;
	sk__warn("cannot write code: %s (%s) and %s (%s) both refused; key "
		 "updates will fail with EPERM", ops->refused(SK__W_PROCMEM),
		 sk__strerror(-procmem_err), ops->refused(SK__W_MPROTECT),
		 sk__strerror(-mprotect_err));
	return SK__W_NONE;
}

int sk__writer_switch(const struct sk__writer_ops *ops, int *current,
		      int writer)
{
	if (writer != SK__W_PROCMEM && writer != SK__W_MPROTECT)
		return -EINVAL;
	if (*current == SK__W_UNPROBED)
		(void)ops->ready();
	if (ops->probe(writer) != 0)
		return -ENOTSUP;
	*current = writer;
	return 0;
}

bool sk__span_range(const struct sk__span *spans, size_t n, size_t *i,
		    size_t page_size, uintptr_t *done, uintptr_t *lo,
		    uintptr_t *hi)
{
	const struct sk__segment *seg = spans[*i].segment;
	size_t j = *i + 1;

	while (seg && j < n && spans[j].segment == seg)
		j++;
	uintptr_t mask = ~(uintptr_t)(page_size - 1);
	*lo = spans[*i].addr & mask;
	*hi = ((spans[j - 1].addr + spans[j - 1].len - 1) & mask) + page_size;
	*i = j;
	if (*lo < *done)
		*lo = *done;
	if (*lo >= *hi)
		return false;
	*done = *hi;
	return true;
}

/*
 * volatile byte stores: the compiler may not merge or reorder them into
 * something wider than we expect.  Not instrumented by ThreadSanitizer: it
 * keeps no shadow memory for code and crashes on a store to it; the
 * ordering of these stores is the int3 protocol's, not a lock's.
 */
#if defined(__has_attribute)
#if __has_attribute(no_sanitize)
__attribute__((no_sanitize("thread")))
#endif
#endif
void sk__store_code(const struct sk__span *s)
{
	volatile unsigned char *dst = (volatile unsigned char *)s->addr;

	/* Only the bytes that differ: step 1 changes byte 0 of each site. */
	for (size_t j = 0; j < s->len; j++)
		if (dst[j] != s->bytes[j])
			dst[j] = s->bytes[j];
}
