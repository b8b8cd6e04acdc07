/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/posix/syslog.c - the system log, where audit lines go by default
 * (control/audit.c): syslog(3), LOG_USER, LOG_NOTICE.
 */
#include <errno.h>
#include <paths.h>
#include <syslog.h>
#include <unistd.h>

#include "os/os.h"

#ifndef _PATH_LOG
#define _PATH_LOG "/dev/log" /* musl's paths.h has none; its syslog uses this */
#endif

int sk__os_syslog_open(void)
{
	/* No system log socket (a container without a syslog daemon or
	 * journal): syslog(3) would try to connect again at every line, a
	 * descriptor for a moment each time that the program could not plan
	 * for.  Said now instead; control/audit.c decides where lines go. */
	if (access(_PATH_LOG, F_OK) != 0)
		return -errno;
	/* The C library's /dev/log socket, opened now rather than by the
	 * first line: the library's descriptors are all taken at start-up
	 * (docs/operations.md, "What the library takes from its host").  If
	 * the program calls openlog() itself later, the socket is kept; only
	 * closelog() would close it. */
	openlog(NULL, LOG_NDELAY, LOG_USER);
	return 0;
}

void sk__os_syslog(const char *line)
{
	syslog(LOG_NOTICE, "%s", line);
}
