/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/windows/syslog.c - no syslog on Windows (its Event Log wants a
 * registered message source, which a library cannot assume):
 * STATICKEYS_AUDIT=syslog writes the audit lines to stderr, after saying so
 * (control/audit.c).
 */
#include <errno.h>

#include "os/os.h"

int sk__os_syslog_open(void)
{
	return -ENOTSUP;
}

void sk__os_syslog(const char *line)
{
	(void)line;
}
