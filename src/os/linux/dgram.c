/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/dgram.c - Unix datagram sockets (os/os.h, "dgram").
 *
 * A client binds to nothing and is given a name in the abstract namespace
 * (autobind): no file to create or remove.  SO_PASSCRED makes the kernel
 * attach an SCM_CREDENTIALS
 * message (pid, uid, gid) to every datagram the socket receives.  The sender
 * cannot forge it: the kernel fills it in, or checks what a privileged
 * sender claims.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "os/os.h"

_Static_assert(CMSG_SPACE(sizeof(struct ucred)) <= SK__CREDS_SPACE,
	       "SK__CREDS_SPACE holds SCM_CREDENTIALS");

int sk__os_dgram_socket(void)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	return fd >= 0 ? fd : -errno;
}

int sk__os_dgram_recv_flags(void)
{
	return MSG_CMSG_CLOEXEC;
}

int sk__os_dgram_bind_client(int fd, char *path, size_t len)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	if (len)
		path[0] = '\0';
	return bind(fd, (struct sockaddr *)&addr, sizeof(sa_family_t)) ? -errno
									: 0;
}

int sk__os_creds_enable(int fd)
{
	int on = 1;

	return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) ? -errno
									 : 0;
}

bool sk__os_creds_read(const struct msghdr *m, struct sk__peer *peer)
{
	struct ucred cred;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c;
	     c = CMSG_NXTHDR((struct msghdr *)m, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_CREDENTIALS) {
			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			peer->pid = cred.pid;
			peer->uid = cred.uid;
			return true;
		}
	return false;
}
