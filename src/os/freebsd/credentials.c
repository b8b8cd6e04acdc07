/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/freebsd/credentials.c - who sent a datagram (os/os.h,
 * "credentials"): LOCAL_CREDS_PERSISTENT (FreeBSD 13 and later) makes the
 * kernel attach an SCM_CREDS2 message (struct sockcred2: pid, real and
 * effective uid) to every datagram the socket receives, as Linux's
 * SO_PASSCRED does.  The effective uid is the one that decides, as Linux's
 * SCM_CREDENTIALS carries.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "os/os.h"

int sk__os_creds_enable(int fd)
{
	int on = 1;

	return setsockopt(fd, SOL_LOCAL, LOCAL_CREDS_PERSISTENT, &on,
			  sizeof(on))
		       ? -errno
		       : 0;
}

bool sk__os_creds_read(const struct msghdr *m, struct sk__peer *peer)
{
	struct sockcred2 cred;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c;
	     c = CMSG_NXTHDR((struct msghdr *)m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDS2 &&
		    c->cmsg_len >= CMSG_LEN(offsetof(struct sockcred2,
						     sc_groups))) {
			memcpy(&cred, CMSG_DATA(c),
			       offsetof(struct sockcred2, sc_groups));
			peer->pid = cred.sc_pid;
			peer->uid = cred.sc_euid;
			return true;
		}
	return false;
}
