/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/no_config_watch.c - STATICKEYS_FILE where config_watch.c is
 * not built (Windows: it reads directories with scandir() and follows them
 * with poll() on the OS layer's watch descriptor, neither of which Windows
 * has).  Listed instead of it in src/sources.txt (control.<os>).
 *
 * A set STATICKEYS_FILE is refused with one warning at start-up, never
 * ignored silently (docs/porting.md, "Platforms"); STATICKEYS still applies.
 */
#include <errno.h>
#include <stddef.h>

#include "control/control.h"
#include "support/message.h"
#include "support/settings.h"

void sk__config_init(void)
{
	const char *path = sk__getenv("STATICKEYS_FILE");

	if (path && *path)
		sk__warn("STATICKEYS_FILE=%s: not supported on this system "
			 "(%s); the file is not read", path, sk__strerror(ENOTSUP));
}

int sk__config_unmatched(const char **path, struct sk__conf **out)
{
	*path = NULL;
	*out = NULL;
	return 0;
}

void sk__config_after_fork_child(void)
{
}
