/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/bsd/dgram.c - Unix datagram sockets (os/os.h, "dgram") on FreeBSD
 * and macOS; who sent a datagram is each OS's own (<os>/credentials.c).
 *
 * Neither has Linux's abstract namespace or autobind: a client that is to
 * be answered binds a socket file of its own, mode 0600, in $TMPDIR (on
 * macOS a directory of the user's own) or /tmp, and removes it when done.
 * The socket is made close-on-exec with fcntl(): macOS has no SOCK_CLOEXEC
 * (the window matters only to a program that forks and execs at the same
 * moment from another thread, and costs one descriptor in that child).
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/os.h"

int sk__os_dgram_socket(void)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	if (fd < 0)
		return -errno;
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int sk__os_dgram_recv_flags(void)
{
	return 0; /* the control plane passes no descriptors */
}

int sk__os_dgram_bind_client(int fd, char *path, size_t len)
{
	static unsigned counter;
	const char *dir = getenv("TMPDIR");
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	if (!dir || !*dir)
		dir = "/tmp";
	int n = snprintf(addr.sun_path, sizeof(addr.sun_path),
			 "%s/statickeys-client-%ld-%u.sock", dir,
			 (long)getpid(),
			 __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
	if (n < 0 || (size_t)n >= sizeof(addr.sun_path) || (size_t)n >= len)
		return -ENAMETOOLONG;
	unlink(addr.sun_path); /* a file left by a process of this pid */
	mode_t old = umask(0177);
	int r = bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ? -errno : 0;
	umask(old);
	if (r == 0)
		memcpy(path, addr.sun_path, (size_t)n + 1);
	return r;
}
