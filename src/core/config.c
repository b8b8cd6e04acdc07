/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/core/config.c - the public sk_config_* setters (statickeys/config.h).
 *
 * Each takes the patch lock, so a setting never changes in the middle of a
 * batch.
 */
#include <errno.h>

#include "core/core.h"
#include "statickeys/config.h"

size_t sk__batch_limit;

SK_API int sk_config_set_writer(int writer)
{
	int r = sk__lock();

	if (r)
		return r;
	r = sk__os_writer_select(writer);
	sk__unlock();
	return r;
}

SK_API int sk_config_set_batch_limit(size_t max_sites)
{
	int r = sk__lock();

	if (r)
		return r;
	sk__batch_limit = max_sites;
	sk__unlock();
	return 0;
}
