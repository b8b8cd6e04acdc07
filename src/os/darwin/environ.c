/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/darwin/environ.c - the environment as a privileged program may
 * trust it (support/settings.c): macOS has no secure_getenv(), so nothing
 * when issetugid() says the program runs with privileges its starter does
 * not have, whose starter must not choose how it writes its code.
 *
 * A primitive (os/os.h): support/ calls it, so it calls nothing of the
 * runtime.
 */
#include <stdlib.h>
#include <unistd.h>

#include "os/os.h"

const char *sk__os_secure_getenv(const char *name)
{
	return issetugid() ? NULL : getenv(name);
}
