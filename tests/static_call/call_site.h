/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * call_site.h - where a function's direct call (or tail jump) goes, read
 * from its code: the tests' way to see a static call's call site patched
 * (docs/static-calls.md, "Call sites").  x86-64: the first e8/e9 rel32 in
 * the function's first @scan bytes whose destination is one of @dest.
 */
#ifndef SK_TEST_CALL_SITE_H
#define SK_TEST_CALL_SITE_H

#include <stdint.h>
#include <string.h>

/* The index in @dest of where @fn's call goes, or -1. */
static inline int call_goes_to(const void *fn, size_t scan,
			       const void *const *dest, int ndest)
{
	const unsigned char *p = fn;

	for (size_t i = 0; i + 5 <= scan; i++) {
		int32_t rel;
		if (p[i] != 0xe8 && p[i] != 0xe9)
			continue;
		memcpy(&rel, p + i + 1, sizeof(rel));
		const unsigned char *to = p + i + 5 + rel;
		for (int k = 0; k < ndest; k++)
			if (to == (const unsigned char *)dest[k])
				return k;
	}
	return -1;
}

#endif
