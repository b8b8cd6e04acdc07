/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/value.c - the one parser of a key's state (value.h).  It
 * touches no runtime state, so skctl links it from the static library and
 * the fuzzers reach it through every parser that calls it.
 */
#include <string.h>

#include "control/value.h"

bool sk__value_parse(const char *v, size_t n, bool *on)
{
	/* Off words first: index i is on when i >= 4. */
	static const char *const words[] = { "0", "off", "false", "no",
					     "1", "on",  "true",  "yes" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strlen(words[i]) == n && memcmp(v, words[i], n) == 0) {
			*on = i >= 4;
			return true;
		}
	}
	return false;
}
