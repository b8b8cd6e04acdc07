/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/posix/open_program.c - the running program's own file (os/os.h,
 * sk__os_open_program) where the OS names it by path only (FreeBSD's
 * sysctl, macOS's _NSGetExecutablePath: <os>/process.c's
 * sk__os_program_path).  Linux opens /proc/self/exe instead, which still
 * names the file if its path has changed since exec.
 */
#include <errno.h>
#include <fcntl.h>

#include "os/os.h"

int sk__os_open_program(void)
{
	char path[1024];
	int n = sk__os_program_path(path, sizeof(path));

	if (n <= 0)
		return n < 0 ? n : -ENOENT;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}
