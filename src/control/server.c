/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/server.c - the control socket's thread: one client at a time.
 *
 * One thread, one poll loop, one connection, non-blocking.  The server
 * holds two descriptors at most, whatever the number of clients: the
 * listening socket and the client being served.  Others wait in the listen
 * backlog and are served in turn (skctl keeps working, serialised); a
 * program that counts its descriptors (RLIMIT_NOFILE sized to its own
 * connections) is never pushed over its limit by someone running skctl.
 * A client that makes no progress for SK_CONTROL_IDLE_SECONDS is dropped,
 * and so is one idle for TURN_SECONDS while others wait.  Requests are
 * bounded to SK_CONTROL_MAX_REQUEST bytes; a longer one gets an error reply
 * and the rest of its line is skipped.  A client that stops reading keeps
 * its unsent reply (bounded by SK__REPLY_LIMIT) and is not read from until
 * it drains it.
 *
 * The patch lock is only ever taken inside sk__control_handle(), which
 * neither reads nor writes the socket, so whatever a client does, the
 * program's own updates wait at most for one request's computation.
 *
 * Who may connect: every client's uid is asked of the kernel (SO_PEERCRED):
 * only the process's own uid and root are served.  The socket's address is
 * listener.c's business (abstract by default: nothing on disk).
 *
 * Its life: stopped by sk_control_stop(), which shuts the listening socket
 * down (poll sees POLLHUP: no extra descriptor to wake the thread with).
 * In a forked child the parent's server is forgotten and, if it was serving
 * the default address, a new one starts under the child's pid, so that a
 * daemon (fork, parent exits) stays controllable without a change to its
 * code.  From the moment the program starts exiting (the atexit handler,
 * which runs before the destructors that unregister keys) every request is
 * answered "exiting" (ESHUTDOWN) rather than with a false "no key".
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

#define TURN_SECONDS 1 /* idle while others wait: their turn */
#define BACKLOG 64

static pthread_mutex_t server_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct {
	bool running;
	bool follows_fork; /* the default address: restart in a child */
	pid_t owner;
	pthread_t thread;
	int listen_fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct conn conn;
} srv = { .conn.fd = -1 };

static int exiting; /* set by the atexit handler; read by any thread */

bool sk__control_exiting(void)
{
	return __atomic_load_n(&exiting, __ATOMIC_ACQUIRE);
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
	struct conn *c = &srv.conn;

	if (fd < 0)
		return;
	if (!peer_allowed(fd, why, sizeof(why))) {
		refuse(fd, EACCES, why);
		return;
	}
	c->fd = fd;
	c->eof = c->discarding = false;
	c->in_len = c->out_off = 0;
	sk__json_init(&c->out, SK__REPLY_LIMIT);
	c->last_ns = sk__now_ns();
}

/* ---- the loop ------------------------------------------------------------ */

/* Someone is waiting in the listen backlog. */
static bool others_waiting(void)
{
	struct pollfd p = { srv.listen_fd, POLLIN, 0 };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void conn_step(struct conn *c, short revents)
{
	if (revents & POLLOUT)
		conn_flush(c);
	if (revents & POLLIN)
		conn_read(c);
	else if (revents & (POLLHUP | POLLERR))
		c->eof = true;
	/* Pipelined requests already read are answered now, as far as the
	 * client takes the replies, not one per wake-up. */
	do {
		conn_process(c);
		conn_flush(c);
	} while (!out_pending(c) && memchr(c->in, '\n', c->in_len));
	uint64_t idle = (sk__now_ns() - c->last_ns) / 1000000000u;
	if ((c->eof && !out_pending(c)) || idle >= SK_CONTROL_IDLE_SECONDS ||
	    (idle >= TURN_SECONDS && others_waiting()))
		conn_close(c);
}

/* While a client is served the listening socket is polled for nothing but
 * POLLHUP (sk_control_stop()): the others wait in the backlog. */
static void *serve(void *arg)
{
	struct conn *c = &srv.conn;

	(void)arg;
	for (;;) {
		struct pollfd fds[2] = {
			{ srv.listen_fd, c->fd < 0 ? POLLIN : 0, 0 },
			{ c->fd, out_pending(c) ? POLLOUT
			 : c->in_len < sizeof(c->in) ? POLLIN : 0, 0 },
		};
		if (poll(fds, c->fd < 0 ? 1 : 2, 1000) < 0 && errno != EINTR)
			break;
		if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			break;
		if (c->fd < 0 && (fds[0].revents & POLLIN))
			accept_client();
		else if (c->fd >= 0)
			conn_step(c, fds[1].revents);
	}
	if (c->fd >= 0)
		conn_close(c);
	return NULL;
}

/* ---- starting and stopping ----------------------------------------------- */

static int start_locked(const char *path);

/* The child of a fork has no server thread: forget the parent's server
 * without touching its socket (the child's copies of its descriptors are
 * closed; the parent's stay open), and serve the child's own default
 * address if the parent served its own. */
static void after_fork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	server_mutex = fresh;
	if (!srv.running)
		return;
	close(srv.listen_fd);
	if (srv.conn.fd >= 0)
		conn_close(&srv.conn);
	srv.running = false;
	if (!srv.follows_fork)
		return;
	int r = start_locked(NULL);
	if (r)
		sk__warn("could not start the control server of forked child "
			 "%d: %s", (int)getpid(), strerror(-r));
}

/* From here on, requests are answered "exiting"; a socket file (a path
 * given by the program) is removed.  The server keeps answering until the
 * process is gone, so a client never waits on a dead socket. */
static void at_exit(void)
{
	__atomic_store_n(&exiting, 1, __ATOMIC_RELEASE);
	if (srv.running && srv.owner == getpid())
		sk__listener_remove(srv.path);
}

static void register_handlers_once(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
	atexit(at_exit);
}

static int start_locked(const char *path)
{
	static pthread_once_t handlers_once = PTHREAD_ONCE_INIT;

	pthread_once(&handlers_once, register_handlers_once);
	if (srv.running)
		return -EALREADY;
	int r = path ? (strlen(path) < sizeof(srv.path) ? 0 : -ENAMETOOLONG)
		     : sk_control_default_path(getpid(), NULL, srv.path,
					       sizeof(srv.path));
	if (r)
		return r;
	if (path)
		strcpy(srv.path, path);
	int fd = sk__listener_open(srv.path, BACKLOG);
	if (fd < 0)
		return fd;
	srv.listen_fd = fd;
	srv.conn.fd = -1;
	r = sk__control_thread_create(&srv.thread, serve);
	if (r) {
		close(fd);
		sk__listener_remove(srv.path);
		return r;
	}
	srv.owner = getpid();
	srv.follows_fork = !path;
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
	/* A listening socket shut down reports POLLHUP: the thread's cue. */
	shutdown(srv.listen_fd, SHUT_RDWR);
	pthread_join(srv.thread, NULL);
	close(srv.listen_fd);
	sk__listener_remove(srv.path);
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
