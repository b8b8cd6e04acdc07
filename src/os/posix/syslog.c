/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/posix/syslog.c - the system log, for STATICKEYS_AUDIT=syslog
 * (control/audit.c): syslog(3), LOG_USER, LOG_NOTICE.
 */
#include <syslog.h>

#include "os/os.h"

int sk__os_syslog_open(void)
{
	/* The C library's /dev/log socket, opened now rather than by the
	 * first line: the library's descriptors are all taken at start-up
	 * (README, "What the library takes from its host").  If the program
	 * calls openlog() itself later, the socket is kept; only closelog()
	 * would close it. */
	openlog(NULL, LOG_NDELAY, LOG_USER);
	return 0;
}

void sk__os_syslog(const char *line)
{
	syslog(LOG_NOTICE, "%s", line);
}
