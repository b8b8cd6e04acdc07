/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/common/store_begin.c - the start of a store port's batch
 * (store_begin.h): its spans, its sites verified, its writer begun.
 */

/* only built for the store ports (src/sources.txt) */
#if defined(__aarch64__) || (defined(__riscv) && __riscv_xlen == 64) ||       \
	(defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)) ||            \
	defined(__s390x__) ||                                                \
	(defined(__loongarch__) && __loongarch_grlen == 64) || defined(__arm__)
#include <errno.h>
#include <string.h>

#include "arch/common/store_begin.h"
#include "support/mem.h"
#include "support/message.h"

/* The sites must still hold what update.c planned from; then nothing is
 * written and the core names the site. */
static int verify_sites(const struct sk__patch *p, size_t n, size_t *changed)
{
	for (size_t i = 0; i < n; i++) {
		if (memcmp((const void *)p[i].addr, p[i].old_insn,
			   sk__arch_site_size) != 0) {
			*changed = i;
			return -EILSEQ;
		}
		/* A jump the instruction cannot encode (riscv's JAL reaches
		 * +-1 MiB) is refused before anything is written. */
		if (!sk__arch_reaches(p[i].addr, p[i].dest)) {
			sk__warn("site %p: its target %p is out of the jump's "
				 "reach; its key cannot be changed",
				 (void *)p[i].addr, (void *)p[i].dest);
			return -ERANGE;
		}
	}
	return 0;
}

int sk__store_batch_begin(const struct sk__patch *p, size_t n,
			  bool whole_word, size_t *changed,
			  struct sk__span **spans)
{
	struct sk__span *s = sk__mem_alloc(n * sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		s[i].addr = p[i].addr;
		s[i].len = sk__arch_site_size;
		s[i].bytes = NULL; /* each step's writes set it */
		s[i].segment = p[i].segment;
		s[i].whole_word = whole_word;
	}
	r = verify_sites(p, n, changed);
	if (r == 0)
		r = sk__os_writer_begin(s, n);
	if (r) {
		sk__mem_free(s);
		return r;
	}
	*spans = s;
	return 0;
}

#endif /* the store ports */
