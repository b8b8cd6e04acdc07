/*
 * fds.h - counting this process's open descriptors without opening one.
 *
 * fds_counter_open() opens /proc/self/fd once, before the counts that
 * matter; fds_count() rereads it (lseek + getdents64), so counting never
 * adds a descriptor of its own.  One counter per thread that counts.
 */
#ifndef SK_TESTS_FOOTPRINT_FDS_H
#define SK_TESTS_FOOTPRINT_FDS_H

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int fds_counter_open(void)
{
	return open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* The number of open descriptors (the counter's own included), or -1. */
static inline int fds_count(int counter)
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
			n += e->d_name[0] != '.';
		}
	}
	return got < 0 ? -1 : n;
}

#endif /* SK_TESTS_FOOTPRINT_FDS_H */
