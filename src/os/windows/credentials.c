/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/windows/credentials.c - who sent a datagram: Windows has no Unix
 * datagram sockets, so there is no control socket (control/no_socket.c)
 * and no sender to name.
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
