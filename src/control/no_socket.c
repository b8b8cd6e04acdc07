/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/no_socket.c - the control socket's public functions where the
 * OS has no Unix datagram sockets (Windows: its AF_UNIX has stream sockets
 * only, and no way to learn the sender's credentials).  Listed instead of
 * listener.c and server.c in src/sources.txt (control.<os>).
 *
 * Every call returns -ENOTSUP, and STATICKEYS_CONTROL says at start-up that
 * there is no server (control/startup_state.c).  The rest of the control
 * plane works the same: names, snapshots, commits, STATICKEYS, the audit
 * ring (STATICKEYS_FILE is refused: control/no_config_watch.c).
 */
#include <errno.h>

#include "control/control.h"
#include "statickeys/control.h"

SK_API int sk_control_start(const char *path)
{
	(void)path;
	return -ENOTSUP;
}

SK_API int sk_control_stop(void)
{
	return -ENOTSUP;
}

SK_API int sk_control_socket_path(char *buf, size_t len)
{
	(void)buf, (void)len;
	return -ENOTSUP;
}

SK_API int sk_control_default_path(pid_t pid, const char *runtime_dir,
				   char *buf, size_t len)
{
	(void)pid, (void)runtime_dir, (void)buf, (void)len;
	return -ENOTSUP;
}
