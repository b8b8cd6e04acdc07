/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fds.h - counting this process's open descriptors without opening one.
 *
 * fds_counter_open() opens /proc/self/fd once, before the counts that
 * matter; fds_count() rereads it (lseek + getdents64), so counting never
 * adds a descriptor of its own.  One counter per thread that counts.
 * fds_mark() records which descriptors are open; fds_new_inheritable()
 * then counts those opened since that lack FD_CLOEXEC.
 */
#ifndef SK_TESTS_FOOTPRINT_FDS_H
#define SK_TESTS_FOOTPRINT_FDS_H

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int fds_counter_open(void)
{
	return open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

#define FDS_MAX 4096

/* Call @fn for each open descriptor; return how many, or -1. */
static inline int fds_each(int counter, void (*fn)(int fd, void *arg),
			   void *arg)
{
	char buf[8192];
	int n = 0;
	long got;

	if (lseek(counter, 0, SEEK_SET) != 0)
		return -1;
	while ((got = syscall(SYS_getdents64, counter, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < got;) {
			struct dirent64 *e = (struct dirent64 *)(buf + off);
			off += e->d_reclen;
			if (e->d_name[0] == '.')
				continue;
			n++;
			if (fn)
				fn(atoi(e->d_name), arg);
		}
	}
	return got < 0 ? -1 : n;
}

/* The number of open descriptors (the counter's own included), or -1. */
static inline int fds_count(int counter)
{
	return fds_each(counter, NULL, NULL);
}

static inline void fds_mark_one(int fd, void *open)
{
	if (fd >= 0 && fd < FDS_MAX)
		((unsigned char *)open)[fd] = 1;
}

/* Record in @open (FDS_MAX bytes, zeroed) which descriptors are open. */
static inline void fds_mark(int counter, unsigned char *open)
{
	fds_each(counter, fds_mark_one, open);
}

struct fds_new {
	const unsigned char *old;
	int inheritable;
};

static inline void fds_check_one(int fd, void *arg)
{
	struct fds_new *n = (struct fds_new *)arg;

	if (fd >= 0 && fd < FDS_MAX && !n->old[fd] &&
	    !(fcntl(fd, F_GETFD) & FD_CLOEXEC))
		n->inheritable++;
}

/* How many descriptors opened since fds_mark(@old) lack FD_CLOEXEC. */
static inline int fds_new_inheritable(int counter, const unsigned char *old)
{
	struct fds_new n = { old, 0 };

	fds_each(counter, fds_check_one, &n);
	return n.inheritable;
}

/* The first descriptor whose target (readlink of /proc/self/fd/N) ends
 * with @suffix, or -1. */
static inline int fds_find_target(int counter, const char *suffix)
{
	char buf[8192], link[300], target[4096];
	long got;
	size_t sl = strlen(suffix);

	if (lseek(counter, 0, SEEK_SET) != 0)
		return -1;
	while ((got = syscall(SYS_getdents64, counter, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < got;) {
			struct dirent64 *e = (struct dirent64 *)(buf + off);
			off += e->d_reclen;
			if (e->d_name[0] == '.')
				continue;
			snprintf(link, sizeof(link), "/proc/self/fd/%s",
				 e->d_name);
			ssize_t n = readlink(link, target, sizeof(target) - 1);
			if (n < (ssize_t)sl)
				continue;
			target[n] = '\0';
			if (!strcmp(target + n - sl, suffix))
				return atoi(e->d_name);
		}
	}
	return -1;
}

#endif /* SK_TESTS_FOOTPRINT_FDS_H */
