/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/darwin/process.c - the process and its program, as macOS tells
 * them (os/os.h, "process").
 *
 * macOS passes no auxiliary vector a program can read: the main program is
 * the first image dyld lists, and its Mach-O header (in its executable
 * __TEXT segment) stands for its entry point, which is all the runtime asks
 * the entry for (telling the program from the libraries).  A process's name
 * comes from proc_name() (libproc), the program's path from
 * _NSGetExecutablePath().  The default control socket is a file in the
 * user's own temporary directory (confstr: /var/folders/..., mode 0700),
 * the same for every process of the user, so skctl finds it by pid.
 */
#include <errno.h>
#include <libproc.h>
#include <mach-o/dyld.h>
#include <sys/proc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/os.h"

uintptr_t sk__os_aux(enum sk__os_aux which)
{
	return which == SK__AUX_ENTRY ? (uintptr_t)_dyld_get_image_header(0)
				      : 0;
}

int sk__os_control_path(long pid, const char *runtime_dir, char *buf,
			size_t len)
{
	char tmp[512];
	const char *dir = runtime_dir;

	if (!dir || !*dir)
		dir = confstr(_CS_DARWIN_USER_TEMP_DIR, tmp, sizeof(tmp)) &&
				      tmp[0]
			      ? tmp
			      : "/tmp";
	size_t d = strlen(dir);
	while (d > 1 && dir[d - 1] == '/')
		d--; /* confstr's ends with one */
	int n = snprintf(buf, len, "%.*s/statickeys-%ld.sock", (int)d, dir,
			 pid);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

bool sk__os_abstract_sockets(void)
{
	return false;
}

const char *sk__os_argv0(void)
{
	return getprogname();
}

int sk__os_process_name(long pid, char *out, size_t len)
{
	int n = proc_name((int)pid, out, (uint32_t)len);

	if (n <= 0)
		return -ESRCH;
	out[len - 1] = '\0';
	return (int)strlen(out);
}

/* A process another waits on: proc_pidinfo() says whether it is a zombie
 * and when it started (a later process with its pid started later).
 * os/process_watch.c watches with it. */
int sk__os_process_start(long pid, uint64_t *start)
{
	struct proc_bsdinfo info;

	if (proc_pidinfo((int)pid, PROC_PIDTBSDINFO, 0, &info,
			 sizeof(info)) != (int)sizeof(info))
		return errno == EPERM ? -EPERM : -ESRCH;
	if (info.pbi_status == SZOMB)
		return -ESRCH;
	*start = (uint64_t)info.pbi_start_tvsec * 1000000u +
		 (uint64_t)info.pbi_start_tvusec;
	return 0;
}

int sk__os_program_path(char *out, size_t len)
{
	uint32_t size = (uint32_t)len;

	if (_NSGetExecutablePath(out, &size) != 0)
		return -ENAMETOOLONG;
	return (int)strlen(out);
}

int sk__os_name_thread(pthread_t t, const char *name)
{
	(void)t, (void)name;
	return -ENOTSUP; /* pthread_setname_np() names the caller only */
}
