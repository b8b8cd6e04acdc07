/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/process.c - the process, its program and its peers, as Linux
 * tells them (os/os.h, "process").
 *
 * Each answer is one call the C library makes cheaply or one small file of
 * /proc: getauxval() reads the vector the kernel passed at exec (no system
 * call), /proc/<pid>/comm and /proc/self/exe name a process and its
 * program.  A process another one waits on is watched through a pidfd
 * (pidfd_open, Linux 5.3), else through /proc/<pid>/stat.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "os/os.h"

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

/* Process @pid's state letter (field 3 of /proc/PID/stat) and start time
 * (field 22, clock ticks since boot).  The command name (field 2) may
 * hold blanks and parentheses: the fields after it follow its last ')'.
 * Return: 0 or -errno (-ENOENT: no such process). */
static int proc_stat(long pid, char *state, uint64_t *start)
{
	char path[64], buf[1024];
	unsigned long long ticks;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	int err = n < 0 ? -errno : -EPROTO;
	close(fd);
	if (n <= 0)
		return err;
	buf[n] = '\0';
	const char *after = strrchr(buf, ')');
	if (!after || sscanf(after + 1,
			     " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s"
			     " %*s %*s %*s %*s %*s %*s %*s %llu",
			     state, &ticks) != 2)
		return -EPROTO;
	*start = ticks;
	return 0;
}

/* A pidfd (Linux 5.3) is readable once the process has exited, zombie or
 * reaped, and always names the process it was opened on, whatever later
 * gets its pid.  Before 5.3 (ENOSYS), or for a thread's id (EINVAL), the
 * start time in /proc/PID/stat stands in: a later process with the same
 * pid started later, and the watcher asks every SK__OS_PROCESS_POLL_MS. */
/* kill(pid, 0) tells whether the pid names a process (EPERM: another
 * user's) without /proc; a zombie still does. */
static bool pid_exists(long pid)
{
	return kill((pid_t)pid, 0) == 0 || errno != ESRCH;
}

int sk__os_process_watch_open(struct sk__os_process_watch *w, long pid)
{
	char state;

	w->pid = pid;
	w->fd = -1;
	w->start = 0;
	if (!pid_exists(pid))
		return -ESRCH;
	/* Without /proc the start time stays unknown (0). */
	if (proc_stat(pid, &state, &w->start) == 0 &&
	    (state == 'Z' || state == 'X'))
		return -ESRCH;
#ifdef SYS_pidfd_open
	long fd = syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (fd >= 0)
		w->fd = (int)fd;
	else if (errno == ESRCH)
		return -ESRCH;
#endif
	return 0;
}

bool sk__os_process_gone(const struct sk__os_process_watch *w)
{
	struct pollfd p = { w->fd, POLLIN, 0 };
	uint64_t start;
	char state;

	if (w->fd >= 0)
		return poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP));
	if (!pid_exists(w->pid))
		return true;
	/* A zombie, or dead and being reaped, answers nothing; a later
	 * start time is another process that got the pid. */
	return proc_stat(w->pid, &state, &start) == 0 &&
	       (state == 'Z' || state == 'X' ||
		(w->start && start != w->start));
}

void sk__os_process_watch_close(struct sk__os_process_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
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
