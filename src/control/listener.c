/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/listener.c - where the control socket lives, and opening it
 * (a Unix datagram socket: server.c says why).
 *
 * By default (os/os.h: sk__os_control_path) the socket has a name in
 * Linux's abstract namespace,
 * "@statickeys-PID" (the '@' stands for the leading NUL byte of sun_path).
 * An abstract name is not a file: the kernel removes it when the last
 * descriptor of the socket is closed, however the process ends (exit, exec,
 * a fatal signal, _exit, SIGKILL), so no socket is ever left behind for a
 * later skctl to trip over, and a forked child simply binds its own pid's
 * name.  An abstract socket has no file permissions: anyone in the same
 * network namespace may send to it, so the server asks the kernel who each
 * client is (SCM_CREDENTIALS, server.c) and skctl asks who the server is.
 *
 * A path given by the program (sk_control_start("/run/x.sock") or
 * STATICKEYS_CONTROL=/run/x.sock) is a file of mode 0600, as before; a
 * stale one left by a process that died is replaced, a live one is not.
 * A path that starts with '@' names an abstract socket (-ENOTSUP where the
 * OS has none; there the default is a file: sk__os_control_path).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control/control.h"
#include "control/listener.h"
#include "statickeys/control.h"

SK_API int sk_control_default_path(pid_t pid, const char *runtime_dir,
				   char *buf, size_t len)
{
	return sk__os_control_path(pid, runtime_dir, buf, len);
}

int sk__sockaddr(const char *path, struct sockaddr_un *addr, socklen_t *len)
{
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(addr->sun_path))
		return n ? -ENAMETOOLONG : -EINVAL;
	if (path[0] == '@' && !sk__os_abstract_sockets())
		return -ENOTSUP;
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	memcpy(addr->sun_path, path, n);
	if (path[0] == '@')
		addr->sun_path[0] = '\0';
	/* An abstract name is exactly its bytes: no terminating NUL. */
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n +
			   (path[0] != '@'));
	return 0;
}

/* A socket file left by a process that died: replace it.  One that
 * answers belongs to a live server: leave it alone. */
static int clear_stale(const struct sockaddr_un *addr, socklen_t len)
{
	struct stat st;

	if (lstat(addr->sun_path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	int fd = sk__os_dgram_socket();
	if (fd < 0)
		return fd;
	int r = connect(fd, (const struct sockaddr *)addr, len);
	int e = errno;
	close(fd);
	/* EPROTOTYPE: a live socket of another kind (a stream server). */
	if (r == 0 || e == EPROTOTYPE)
		return -EADDRINUSE;
	return unlink(addr->sun_path) == 0 ? 0 : -errno;
}

/* bind() creates a file with the umask's mode; chmod closes that window at
 * once, and SCM_CREDENTIALS guards it meanwhile. */
static int bind_file(int fd, const struct sockaddr_un *addr, socklen_t len)
{
	int r = clear_stale(addr, len);

	if (r == 0 && bind(fd, (const struct sockaddr *)addr, len) != 0)
		r = -errno;
	if (r == 0 && chmod(addr->sun_path, 0600) != 0) {
		r = -errno;
		unlink(addr->sun_path);
	}
	return r;
}

int sk__listener_open(const char *path)
{
	struct sockaddr_un addr;
	socklen_t len;
	int r = sk__sockaddr(path, &addr, &len);

	if (r)
		return r;
	int fd = sk__os_dgram_socket();
	if (fd < 0)
		return fd;
	if (path[0] == '@')
		r = bind(fd, (struct sockaddr *)&addr, len) == 0 ? 0 : -errno;
	else
		r = bind_file(fd, &addr, len);
	if (r) {
		close(fd);
		return r;
	}
	return fd;
}

void sk__listener_remove(const char *path)
{
	if (path[0] && path[0] != '@')
		unlink(path);
}
