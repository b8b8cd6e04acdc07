/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/freebsd/environ.c - the environment as a privileged program may
 * trust it (support/settings.c): secure_getenv() returns nothing in a
 * set-user-ID program (issetugid), whose starter must not choose how it
 * writes its code.
 *
 * A primitive (os/os.h): support/ calls it, so it calls nothing of the
 * runtime.
 */
#include <stdlib.h>

#include "os/os.h"

const char *sk__os_secure_getenv(const char *name)
{
	return secure_getenv(name);
}
