/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/process.c - the process, its program and its peers, as Linux
 * tells them (os/os.h, "process").
 *
 * Each answer is one call the C library makes cheaply or one small file of
 * /proc: getauxval() reads the vector the kernel passed at exec (no system
 * call), /proc/<pid>/comm and /proc/self/exe name a process and its
 * program.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "os/os.h"
#include "support/settings.h"

uintptr_t sk__os_aux(enum sk__os_aux which)
{
	switch (which) {
	case SK__AUX_ENTRY:
		return getauxval(AT_ENTRY);
	case SK__AUX_PHDR:
		return getauxval(AT_PHDR);
	case SK__AUX_PHNUM:
		return getauxval(AT_PHNUM);
	case SK__AUX_INTERP_BASE:
		return getauxval(AT_BASE);
	}
	return 0;
}

int sk__os_control_path(long pid, const char *runtime_dir, char *buf,
			size_t len)
{
	(void)runtime_dir; /* the abstract namespace needs no directory */
	int n = snprintf(buf, len, "@statickeys-%ld", pid);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

bool sk__os_abstract_sockets(void)
{
	return true;
}

const char *sk__os_secure_getenv(const char *name)
{
	return secure_getenv(name);
}

const char *sk__os_argv0(void)
{
	return program_invocation_name; /* glibc's and musl's */
}

int sk__os_process_name(long pid, char *out, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, out, len - 1);
	int err = n < 0 ? -errno : 0;
	close(fd);
	if (n <= 0)
		return n < 0 ? err : -ENOENT;
	/* The kernel ends it with a newline. */
	if (out[n - 1] == '\n')
		n--;
	out[n] = '\0';
	return (int)n;
}

int sk__os_open_program(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	return fd >= 0 ? fd : -errno;
}

int sk__os_program_path(char *out, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", out, len - 1);

	if (n < 0)
		return -errno;
	out[n] = '\0';
	return (int)n;
}

int sk__os_name_thread(pthread_t t, const char *name)
{
	return -pthread_setname_np(t, name);
}
