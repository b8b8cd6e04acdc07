/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/credentials.c - who sent a datagram (os/os.h,
 * "credentials"): SO_PASSCRED makes the kernel attach an SCM_CREDENTIALS
 * message (pid, uid, gid) to every datagram the socket receives.  The sender
 * cannot forge it: the kernel fills it in, or checks what a privileged
 * sender claims.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "os/os.h"

_Static_assert(CMSG_SPACE(sizeof(struct ucred)) <= SK__CREDS_SPACE,
	       "SK__CREDS_SPACE holds SCM_CREDENTIALS");

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
