/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/writer_common.h - what the OS writers share (writer_common.c):
 * the choice of writer, the pages a batch opens, the byte stores.  For
 * os/<os>/writer.c only; not part of the OS contract.
 */
#ifndef SK_OS_WRITER_COMMON_H
#define SK_OS_WRITER_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "os/os.h"

/* The writers, as the API numbers them (sk_config_set_writer), and two
 * states. */
enum { SK__W_PROCMEM = (int)SK_WRITER_PROCMEM,
       SK__W_MPROTECT = (int)SK_WRITER_MPROTECT, SK__W_NONE = -1,
       SK__W_UNPROBED = -2 };

/* sk__writer_ops - an OS's two writers. */
struct sk__writer_ops {
	int (*probe)(int writer);           /* 0: it writes here, or -errno */
	const char *(*name)(int writer);    /* as sk_stats names it */
	const char *(*refused)(int writer); /* what was refused, for a message */
	int (*ready)(void); /* the OS's sk__os_writer_ready: the first choice */
};
/* sk__writer_choose - the writer STATICKEYS_WRITER asks for if it works
 * here, else the other one (with a warning), else SK__W_NONE (with a
 * warning naming both refusals). */
int sk__writer_choose(const struct sk__writer_ops *ops);
/* sk__writer_switch - sk__os_writer_select() for the OS writer whose state is
 * *@current.  Return: 0, -EINVAL (unknown), -ENOTSUP (refused here). */
int sk__writer_switch(const struct sk__writer_ops *ops, int *current,
		      int writer);
/* sk__span_range - the pages to open for a batch's spans from *@i on:
 * those in one executable segment (sorted spans; a span outside any known
 * segment alone), from the first one's page to the last one's, less what
 * an earlier range covered (*@done, raised to the range's end).  Advances
 * *@i.  Return: false if nothing is left to open there. */
bool sk__span_range(const struct sk__span *spans, size_t n, size_t *i,
		    size_t page_size, uintptr_t *done, uintptr_t *lo,
		    uintptr_t *hi);
/* sk__store_code - store @s's bytes with plain byte stores, only those
 * that differ (the mprotect writers, into pages opened for writing). */
void sk__store_code(const struct sk__span *s);

#endif /* SK_OS_WRITER_COMMON_H */
