/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/common/store_begin.h - how a batch of the store ports begins,
 * whatever its steps after (arch/common/store_batch.c: one store per site;
 * arch/s390x/batch.c: a moving jump in three).
 */
#ifndef SK_ARCH_COMMON_STORE_BEGIN_H
#define SK_ARCH_COMMON_STORE_BEGIN_H

#include "arch/backend.h"

/*
 * sk__store_batch_begin - the writer's spans for patches [0, @n), one site
 * each (@whole_word: written as one aligned word, else the bytes that
 * differ), after checking that every site still holds what update.c
 * planned from (another tool, a debugger's breakpoint, may have written
 * one since) and that every jump reaches its target; then the writer
 * begun.  Nothing is written.
 * Return: 0 and *@spans, for sk__os_writer_end() and sk__mem_free();
 * -EILSEQ with the site's index in *@changed, -ERANGE (a jump out of
 * reach, said in a warning), -ENOMEM, or the writer's error.
 */
int sk__store_batch_begin(const struct sk__patch *p, size_t n,
			  bool whole_word, size_t *changed,
			  struct sk__span **spans);

#endif /* SK_ARCH_COMMON_STORE_BEGIN_H */
