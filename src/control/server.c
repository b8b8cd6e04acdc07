/*
 * src/control/server.c - the control socket and the thread that serves it.
 *
 * One thread, one poll loop, up to SK_CONTROL_MAX_CLIENTS connections, all
 * non-blocking.  The loop never waits on one client: a client that stops
 * reading keeps its unsent reply (bounded by SK__REPLY_LIMIT) and is not
 * read from until it drains it; a client that makes no progress for
 * SK_CONTROL_IDLE_SECONDS is dropped.  Requests are bounded to
 * SK_CONTROL_MAX_REQUEST bytes; a longer one gets an error reply and the
 * rest of its line is skipped.
 *
 * The patch lock is only ever taken inside sk__control_handle(), which
 * neither reads nor writes the socket, so whatever a client does, the
 * program's own updates wait at most for one request's computation.
 *
 * Who may connect: the socket is created with mode 0600 (the default
 * directories are private too), and every client's uid is asked of the
 * kernel (SO_PEERCRED): only the process's own uid and root are served.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control/control.h"
#include "statickeys/control.h"

struct conn {
	int fd;
	bool eof;
	bool discarding; /* skipping the rest of an over-long line */
	size_t in_len;
	char in[SK_CONTROL_MAX_REQUEST];
	struct sk__json out;
	size_t out_off;
	uint64_t last_ns; /* last progress, for the idle limit */
};

static pthread_mutex_t server_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct {
	bool running;
	pid_t owner;
	pthread_t thread;
	int listen_fd;
	int wake[2];
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)]; /* we made it */
	struct conn conns[SK_CONTROL_MAX_CLIENTS];
} srv;

SK_API int sk_control_default_path(pid_t pid, const char *runtime_dir,
				   char *buf, size_t len)
{
	int n;

	if (runtime_dir && *runtime_dir)
		n = snprintf(buf, len, "%s/statickeys-%d.sock", runtime_dir,
			     (int)pid);
	else
		n = snprintf(buf, len, "/tmp/statickeys-%d/control.sock",
			     (int)pid);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* ---- connections --------------------------------------------------------- */

static void conn_close(struct conn *c)
{
	close(c->fd);
	sk__json_free(&c->out);
	c->fd = -1;
}

static bool out_pending(const struct conn *c)
{
	return c->out_off < c->out.len;
}

static void conn_flush(struct conn *c)
{
	while (out_pending(c)) {
		ssize_t n = send(c->fd, c->out.buf + c->out_off,
				 c->out.len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				c->eof = true, c->out_off = c->out.len;
			return;
		}
		c->out_off += (size_t)n;
		c->last_ns = sk__now_ns();
	}
	sk__json_reset(&c->out);
	c->out_off = 0;
}

static void conn_reply_raw(struct conn *c, const char *line)
{
	sk__json_reset(&c->out);
	sk__json_raw(&c->out, line);
	c->out_off = 0;
}

/* Drop @n bytes from the front of the input buffer. */
static void conn_consume(struct conn *c, size_t n)
{
	memmove(c->in, c->in + n, c->in_len - n);
	c->in_len -= n;
}

/* Handle complete lines while no reply is waiting to be sent. */
static void conn_process(struct conn *c)
{
	while (!out_pending(c)) {
		char *nl = memchr(c->in, '\n', c->in_len);
		if (!nl && c->eof && c->in_len && !c->discarding)
			nl = c->in + c->in_len; /* last line, no newline */
		if (!nl) {
			if (c->in_len == sizeof(c->in)) {
				if (!c->discarding)
					conn_reply_raw(c,
						"{\"ok\":false,\"errno\":7,"
						"\"error\":\"request longer "
						"than 4096 bytes\"}\n");
				c->discarding = true;
				c->in_len = 0;
			}
			return;
		}
		size_t len = (size_t)(nl - c->in);
		if (!c->discarding) {
			sk__audit_set_peer(c->fd);
			sk__control_handle(c->in, len, &c->out);
		}
		c->discarding = false;
		conn_consume(c, len < c->in_len ? len + 1 : len);
		c->out_off = 0;
	}
}

static void conn_read(struct conn *c)
{
	ssize_t n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len,
			 MSG_DONTWAIT);

	if (n > 0) {
		c->in_len += (size_t)n;
		c->last_ns = sk__now_ns();
	} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		c->eof = true;
	}
}

/* ---- accepting ----------------------------------------------------------- */

static bool peer_allowed(int fd, char *why, size_t len)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0) {
		snprintf(why, len, "could not identify the client");
		return false;
	}
	if (cred.uid == geteuid() || cred.uid == 0)
		return true;
	snprintf(why, len, "permission denied: uid %u may not control this "
		 "process (uid %u)", (unsigned)cred.uid, (unsigned)geteuid());
	return false;
}

/* Tell a client why it is turned away, without ever waiting for it. */
static void refuse(int fd, int err, const char *why)
{
	char line[256];
	int n = snprintf(line, sizeof(line),
			 "{\"ok\":false,\"errno\":%d,\"error\":\"%s\"}\n", err,
			 why);

	if (n > 0)
		(void)!send(fd, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

static void accept_client(void)
{
	char why[160];
	int fd = accept4(srv.listen_fd, NULL, NULL,
			 SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (!peer_allowed(fd, why, sizeof(why))) {
		refuse(fd, EACCES, why);
		return;
	}
	for (int i = 0; i < SK_CONTROL_MAX_CLIENTS; i++) {
		struct conn *c = &srv.conns[i];
		if (c->fd >= 0)
			continue;
		c->fd = fd;
		c->eof = c->discarding = false;
		c->in_len = c->out_off = 0;
		sk__json_init(&c->out, SK__REPLY_LIMIT);
		c->last_ns = sk__now_ns();
		return;
	}
	snprintf(why, sizeof(why), "server busy: %d clients connected; try "
		 "again", SK_CONTROL_MAX_CLIENTS);
	refuse(fd, EBUSY, why);
}

/* ---- the loop ------------------------------------------------------------ */

static void conn_step(struct conn *c, short revents)
{
	if (revents & POLLOUT)
		conn_flush(c);
	if (revents & POLLIN)
		conn_read(c);
	else if (revents & (POLLHUP | POLLERR))
		c->eof = true;
	conn_process(c);
	conn_flush(c);
	uint64_t idle = sk__now_ns() - c->last_ns;
	if ((c->eof && !out_pending(c)) ||
	    idle > (uint64_t)SK_CONTROL_IDLE_SECONDS * 1000000000u)
		conn_close(c);
}

static void *serve(void *arg)
{
	struct pollfd fds[2 + SK_CONTROL_MAX_CLIENTS];

	(void)arg;
	for (;;) {
		fds[0] = (struct pollfd){ srv.wake[0], POLLIN, 0 };
		fds[1] = (struct pollfd){ srv.listen_fd, POLLIN, 0 };
		for (int i = 0; i < SK_CONTROL_MAX_CLIENTS; i++) {
			struct conn *c = &srv.conns[i];
			short ev = out_pending(c) ? POLLOUT
			    : c->in_len < sizeof(c->in) ? POLLIN : 0;
			fds[2 + i] = (struct pollfd){ c->fd, ev, 0 };
		}
		if (poll(fds, 2 + SK_CONTROL_MAX_CLIENTS, 1000) < 0 &&
		    errno != EINTR)
			break;
		if (fds[0].revents)
			break;
		if (fds[1].revents & POLLIN)
			accept_client();
		for (int i = 0; i < SK_CONTROL_MAX_CLIENTS; i++)
			if (srv.conns[i].fd >= 0)
				conn_step(&srv.conns[i], fds[2 + i].revents);
	}
	for (int i = 0; i < SK_CONTROL_MAX_CLIENTS; i++)
		if (srv.conns[i].fd >= 0)
			conn_close(&srv.conns[i]);
	return NULL;
}

/* ---- starting and stopping ----------------------------------------------- */

/* The private directory of the /tmp rule: ours, a directory, mode 0700.
 * Anything else (a symlink, someone else's directory) is refused. */
static int private_dir(const char *dir, bool *made)
{
	struct stat st;

	*made = mkdir(dir, 0700) == 0;
	if (!*made && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) != 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		sk__warn("control socket directory %s is not a private "
			 "directory of uid %u; not using it", dir,
			 (unsigned)geteuid());
		return -EPERM;
	}
	return 0;
}

/* A socket file left by a process that died: replace it.  One that
 * answers belongs to a live server: leave it alone. */
static int clear_stale(const struct sockaddr_un *addr)
{
	struct stat st;

	if (lstat(addr->sun_path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	int r = connect(fd, (const struct sockaddr *)addr, sizeof(*addr));
	close(fd);
	if (r == 0)
		return -EADDRINUSE;
	return unlink(addr->sun_path) == 0 ? 0 : -errno;
}

static int choose_path(const char *path)
{
	if (path) {
		if (strlen(path) >= sizeof(srv.path))
			return -ENAMETOOLONG;
		strcpy(srv.path, path);
		return 0;
	}
	const char *xdg = secure_getenv("XDG_RUNTIME_DIR");
	int r = sk_control_default_path(getpid(), xdg, srv.path,
					sizeof(srv.path));
	if (r || (xdg && *xdg))
		return r;
	bool made;
	snprintf(srv.dir, sizeof(srv.dir), "/tmp/statickeys-%d", (int)getpid());
	r = private_dir(srv.dir, &made);
	if (!made)
		srv.dir[0] = '\0';
	return r;
}

static int open_listener(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	strcpy(addr.sun_path, srv.path);
	int r = clear_stale(&addr);
	/* bind() creates the file with the umask's mode; chmod closes that
	 * window at once, and SO_PEERCRED guards it meanwhile. */
	if (r == 0 && bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0)
		r = -errno;
	if (r == 0 && chmod(srv.path, 0600) != 0)
		r = -errno;
	if (r == 0 && listen(fd, SK_CONTROL_MAX_CLIENTS * 2) != 0)
		r = -errno;
	if (r) {
		close(fd);
		return r;
	}
	srv.listen_fd = fd;
	return 0;
}

static void cleanup_files(void)
{
	unlink(srv.path);
	if (srv.dir[0])
		rmdir(srv.dir);
	srv.dir[0] = '\0';
}

/* The child of a fork has no server thread: forget the parent's server
 * without touching its socket, so the child may start its own. */
static void forget_after_fork(void)
{
	if (!srv.running)
		return;
	close(srv.wake[0]);
	close(srv.wake[1]);
	close(srv.listen_fd);
	for (int i = 0; i < SK_CONTROL_MAX_CLIENTS; i++)
		if (srv.conns[i].fd >= 0)
			close(srv.conns[i].fd);
	srv.dir[0] = '\0';
	srv.running = false;
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	server_mutex = fresh;
}

/* A program that exits without sk_control_stop() leaves no socket file. */
static void remove_files_at_exit(void)
{
	if (srv.running && srv.owner == getpid())
		cleanup_files();
}

static void register_handlers_once(void)
{
	pthread_atfork(NULL, NULL, forget_after_fork);
	atexit(remove_files_at_exit);
}

static int start_locked(const char *path)
{
	static pthread_once_t handlers_once = PTHREAD_ONCE_INIT;

	pthread_once(&handlers_once, register_handlers_once);
	if (srv.running)
		return -EALREADY;
	srv.owner = getpid();
	srv.dir[0] = '\0';
	for (int i = 0; i < SK_CONTROL_MAX_CLIENTS; i++)
		srv.conns[i].fd = -1;
	int r = choose_path(path);
	if (r == 0)
		r = open_listener();
	if (r) {
		if (srv.dir[0])
			rmdir(srv.dir);
		return r;
	}
	if (pipe2(srv.wake, O_CLOEXEC) != 0) {
		r = -errno;
	} else if ((r = sk__control_thread_create(&srv.thread, serve)) != 0) {
		close(srv.wake[0]);
		close(srv.wake[1]);
	}
	if (r) {
		close(srv.listen_fd);
		cleanup_files();
		return r;
	}
	srv.running = true;
	return 0;
}

SK_API int sk_control_start(const char *path)
{
	pthread_mutex_lock(&server_mutex);
	int r = start_locked(path);
	pthread_mutex_unlock(&server_mutex);
	return r;
}

SK_API int sk_control_stop(void)
{
	pthread_mutex_lock(&server_mutex);
	if (!srv.running) {
		pthread_mutex_unlock(&server_mutex);
		return -ESRCH;
	}
	(void)!write(srv.wake[1], "x", 1);
	pthread_join(srv.thread, NULL);
	close(srv.wake[0]);
	close(srv.wake[1]);
	close(srv.listen_fd);
	cleanup_files();
	srv.running = false;
	pthread_mutex_unlock(&server_mutex);
	return 0;
}

SK_API int sk_control_socket_path(char *buf, size_t len)
{
	pthread_mutex_lock(&server_mutex);
	int r = !srv.running		  ? -ESRCH
		: strlen(srv.path) >= len ? -ENAMETOOLONG
					  : 0;
	if (r == 0)
		strcpy(buf, srv.path);
	pthread_mutex_unlock(&server_mutex);
	return r;
}
