/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/freebsd/process.c - the process, its program and its peers, as
 * FreeBSD tells them (os/os.h, "process").
 *
 * elf_aux_info() reads the vector the kernel passed at exec, as Linux's
 * getauxval(); a process's command name and the program's path come
 * from sysctl, since procfs is not mounted by default.
 */
#include <sys/types.h>
#include <sys/proc.h>
#include <sys/sysctl.h>
#include <sys/user.h>
#include <sys/auxv.h>
#include <errno.h>
#include <pthread.h>
#include <pthread_np.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/os.h"

static uintptr_t aux(int type)
{
	unsigned long v = 0;
	int i = 0;

	/* AT_PHNUM is an int in FreeBSD's vector; the others pointers. */
	if (type == AT_PHNUM)
		return elf_aux_info(type, &i, sizeof(i)) == 0 ? (uintptr_t)i : 0;
	return elf_aux_info(type, &v, sizeof(v)) == 0 ? v : 0;
}

uintptr_t sk__os_aux(enum sk__os_aux which)
{
	switch (which) {
	case SK__AUX_ENTRY:
		return aux(AT_ENTRY);
	case SK__AUX_PHDR:
		return aux(AT_PHDR);
	case SK__AUX_PHNUM:
		return aux(AT_PHNUM);
	case SK__AUX_INTERP_BASE:
		return aux(AT_BASE);
	}
	return 0;
}

/* No abstract namespace: a socket file, mode 0600 (control/listener.c),
 * replaced when stale and removed when the server stops. */
int sk__os_control_path(long pid, const char *runtime_dir, char *buf,
			size_t len)
{
	const char *dir = runtime_dir && *runtime_dir ? runtime_dir : "/tmp";
	int n = snprintf(buf, len, "%s/statickeys-%ld.sock", dir, pid);
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
	int mib[4] = { CTL_KERN, KERN_PROC, KERN_PROC_PID, (int)pid };
	struct kinfo_proc kp;
	size_t size = sizeof(kp);

	if (sysctl(mib, 4, &kp, &size, NULL, 0) != 0)
		return -errno;
	if (size == 0)
		return -ESRCH;
	size_t n = strnlen(kp.ki_comm, sizeof(kp.ki_comm));
	if (n >= len)
		n = len - 1;
	memcpy(out, kp.ki_comm, n);
	out[n] = '\0';
	return (int)n;
}

/* A process another waits on: its kinfo_proc says whether it is a zombie
 * and when it started (a later process with its pid started later).
 * os/process_watch.c watches with it. */
int sk__os_process_start(long pid, uint64_t *start)
{
	int mib[4] = { CTL_KERN, KERN_PROC, KERN_PROC_PID, (int)pid };
	struct kinfo_proc kp;
	size_t size = sizeof(kp);

	if (sysctl(mib, 4, &kp, &size, NULL, 0) != 0)
		return errno == ESRCH ? -ESRCH : -errno;
	if (size == 0 || kp.ki_stat == SZOMB)
		return -ESRCH;
	*start = (uint64_t)kp.ki_start.tv_sec * 1000000u +
		 (uint64_t)kp.ki_start.tv_usec;
	return 0;
}

int sk__os_program_path(char *out, size_t len)
{
	int mib[4] = { CTL_KERN, KERN_PROC, KERN_PROC_PATHNAME, -1 };
	size_t size = len;

	if (sysctl(mib, 4, out, &size, NULL, 0) != 0)
		return -errno;
	out[len - 1] = '\0';
	return (int)strlen(out);
}

int sk__os_name_thread(pthread_t t, const char *name)
{
	return -pthread_setname_np(t, name);
}
