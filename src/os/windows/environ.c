/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/windows/environ.c - the environment (support/settings.c): a
 * Windows program runs with the token of whoever started it, so there is no
 * set-user-ID program to guard against, and getenv() is enough.
 *
 * A primitive (os/os.h): support/ calls it, so it calls nothing of the
 * runtime.
 */
#include <stdlib.h>

#include "os/os.h"

const char *sk__os_secure_getenv(const char *name)
{
	return getenv(name);
}
