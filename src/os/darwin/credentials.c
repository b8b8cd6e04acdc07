/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/darwin/credentials.c - who sent a datagram (os/os.h, "dgram"):
 * macOS cannot tell.  LOCAL_PEERCRED names the peer of a connected stream
 * socket only, and nothing attaches credentials to a datagram.  So the
 * control socket is a file of mode 0600 in the user's own temporary
 * directory: the kernel lets only its owner (and root) send to it, and
 * skctl checks the file's owner before it believes a reply.
 */
#include <errno.h>

#include "os/os.h"

int sk__os_creds_enable(int fd)
{
	(void)fd;
	return -ENOTSUP;
}

bool sk__os_creds_read(const struct msghdr *m, struct sk__peer *peer)
{
	(void)m, (void)peer;
	return false;
}
