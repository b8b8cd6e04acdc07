/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/server.c - the control socket's thread: one datagram at a
 * time, and no descriptor per client.
 *
 * The socket is a Unix datagram socket, and it is the server's only
 * descriptor, held from the moment the server starts (at start-up with
 * STATICKEYS_CONTROL) until it stops, whatever the number of clients and
 * whatever they do.  A stream socket would need one descriptor per client
 * from accept(): a descriptor taken when someone runs skctl, which a
 * program that sizes RLIMIT_NOFILE to its own connections (memcached,
 * nginx, HAProxy) never planned for; its accept() then fails with EMFILE
 * before its own limit, and it stops accepting (issue 32).  Here a client
 * binds an address of its own (autobind: a name in the abstract namespace),
 * sends one request per datagram and reads the reply from datagrams sent
 * to that address; no connection exists on the server's side.
 *
 * A reply is one JSON line; one longer than REPLY_CHUNK bytes goes out in
 * several datagrams, and the one that ends with '\n' ends it (a JSON line
 * holds no other newline).  A datagram of several lines is several
 * requests, answered in turn.  A request over SK_CONTROL_MAX_REQUEST bytes
 * gets an error reply (E2BIG).  Sending waits at most SEND_SECONDS for a
 * client that does not read (its queue full): the rest of its reply is
 * dropped, the next client is served, and that client's later replies are
 * sent only if they fit at once.
 *
 * The patch lock is only ever taken inside sk__control_handle(), which
 * neither reads nor writes the socket, so whatever a client does, the
 * program's own updates wait at most for one request's computation.
 *
 * Who may talk to it: every datagram carries its sender's credentials,
 * asked of the kernel (os/os.h, sk__os_creds_enable: Linux SO_PASSCRED,
 * FreeBSD LOCAL_CREDS_PERSISTENT): only the process's own uid and root are
 * served, and skctl learns who the server is from the credentials on the
 * reply.  Where the OS cannot tell (macOS), the server is a socket file of
 * mode 0600, whose permissions decide instead.  The socket's address is
 * listener.c's business (abstract by default: nothing on disk).
 *
 * Its life: stopped by sk_control_stop(), which shuts the socket down
 * (poll sees POLLHUP: no extra descriptor to wake the thread with).  In a
 * forked child the parent's server is forgotten and, if it was serving the
 * default address, a new one starts under the child's pid, so that a
 * daemon (fork, parent exits) stays controllable without a change to its
 * code; the child's copy of the parent's socket is closed first, so the
 * child holds as many descriptors as the parent.  From the moment the
 * program starts exiting (the atexit handler, which runs before the
 * destructors that unregister keys) every request is answered "exiting"
 * (ESHUTDOWN) rather than with a false "no key".
 *
 * Nor at start-up: the server starts with the first object that registers
 * (runtime.c), usually a library, and the program's own keys register
 * last.  A request that arrives before the program has registered waits
 * for it here, in the server's thread, for at most SK__STARTUP_WAIT_MS
 * after start-up began (control/startup_end.c: a program that defines
 * no keys never registers), and then gets the true answer.  Waiting, not
 * a "starting, retry" reply: every client (skctl of any version, a script
 * with socat) gets the right answer without learning to retry, start-up
 * lasts milliseconds, and the wait is the server thread's alone: the
 * program's threads only store a flag when the program registers.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control/control.h"
#include "control/listener.h"
#include "statickeys/control.h"
#include "support/message.h"

#define REPLY_CHUNK 32768 /* well under a datagram's limit (the send buffer) */
#define SEND_SECONDS 1	  /* for a client that does not read its reply */
#define CHECK_MS 1000	  /* the server asks whether its socket is its own */

/* The datagram being answered: its sender and its bytes. */
struct request {
	struct sockaddr_un from;
	socklen_t from_len;
	struct sk__peer cred;
	bool have_cred;
	size_t len;
	bool too_long;
	char buf[SK_CONTROL_MAX_REQUEST + 1];
};

static pthread_mutex_t server_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct {
	bool running;
	bool follows_fork; /* the default address: restart in a child */
	bool creds_known;  /* the kernel names each datagram's sender */
	pid_t owner;
	pthread_t thread;
	int fd;       /* the server thread may replace it: atomic loads */
	int stopping; /* sk_control_stop() asked the thread to end */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
} srv = { .fd = -1 };

static int server_fd(void)
{
	return __atomic_load_n(&srv.fd, __ATOMIC_ACQUIRE);
}

/* ---- the socket is ours -------------------------------------------------- */

/*
 * Hosts close every descriptor they did not open and reuse the numbers
 * (os/linux/fd_slot.c says the same of the library's other descriptor).
 * The socket's number is used only while its bound address is ours: no
 * other socket can hold our abstract name, or our socket file's name,
 * while ours is bound to it, and anything else fails getsockname().  Asked
 * once per wake-up of the server (a request), never on the program's path.
 */
static bool socket_ours(int fd)
{
	struct sockaddr_un want, got;
	socklen_t want_len, got_len = sizeof(got);

	if (fd < 0 || sk__sockaddr(srv.path, &want, &want_len) != 0 ||
	    getsockname(fd, (struct sockaddr *)&got, &got_len) != 0)
		return false;
	return got_len == want_len && memcmp(&got, &want, want_len) == 0;
}

/* ---- receiving ----------------------------------------------------------- */

/* One datagram into @q: 1, or 0 if there was none (or it is unusable). */
static int receive(struct request *q)
{
	union sk__creds_buffer control;
	struct iovec iov = { q->buf, SK_CONTROL_MAX_REQUEST };
	struct msghdr m = {
		.msg_name = &q->from, .msg_namelen = sizeof(q->from),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf, .msg_controllen = sizeof(control),
	};
	ssize_t n = recvmsg(server_fd(), &m, MSG_DONTWAIT | MSG_TRUNC |
					 sk__os_dgram_recv_flags());

	if (n < 0)
		return 0;
	q->from_len = m.msg_namelen;
	/* Linux returns a truncated datagram's whole length (MSG_TRUNC in
	 * the flags); every OS marks it in msg_flags. */
	q->too_long = (size_t)n > SK_CONTROL_MAX_REQUEST ||
		      (m.msg_flags & MSG_TRUNC);
	q->len = q->too_long ? 0 : (size_t)n;
	q->have_cred = sk__os_creds_read(&m, &q->cred);
	/* A sender without an address of its own cannot be answered. */
	return q->from_len > sizeof(sa_family_t);
}

/* ---- replying ------------------------------------------------------------ */

/* The last client found not reading its replies: its later requests are
 * answered only if its queue has room at once, so that it costs the
 * others SEND_SECONDS once, not once per request it sends. */
static struct sockaddr_un stuck;
static socklen_t stuck_len;

static bool is_stuck(const struct request *q)
{
	return stuck_len && stuck_len == q->from_len &&
	       !memcmp(&stuck, &q->from, q->from_len);
}

/* Send @len bytes to the request's sender, in datagrams of at most
 * REPLY_CHUNK bytes; give up on a client that reads nothing for
 * SEND_SECONDS (SO_SNDTIMEO, start_locked()): the rest is dropped. */
static void send_reply(const struct request *q, const char *s, size_t len)
{
	int flags = MSG_NOSIGNAL | (is_stuck(q) ? MSG_DONTWAIT : 0);

	while (len) {
		size_t n = len < REPLY_CHUNK ? len : REPLY_CHUNK;
		ssize_t w = sendto(server_fd(), s, n, flags,
				   (const struct sockaddr *)&q->from,
				   q->from_len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w != (ssize_t)n) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				memcpy(&stuck, &q->from, q->from_len);
				stuck_len = q->from_len;
			}
			return; /* gone, or not reading */
		}
		s += n;
		len -= n;
	}
	if (is_stuck(q))
		stuck_len = 0; /* it reads again */
}

static void send_error(const struct request *q, int err, const char *why)
{
	char line[256];
	int n = snprintf(line, sizeof(line),
			 "{\"ok\":false,\"errno\":%d,\"error\":\"%s\"}\n", err,
			 why);

	if (n > 0)
		send_reply(q, line, (size_t)n);
}

static bool sender_allowed(const struct request *q, char *why, size_t len)
{
	/* Where the OS cannot say who sent a datagram (macOS), the socket
	 * file's permissions (0600, listener.c) have decided already. */
	if (!srv.creds_known)
		return true;
	if (!q->have_cred) {
		snprintf(why, len, "could not identify the client");
		return false;
	}
	if (q->cred.uid == geteuid() || q->cred.uid == 0)
		return true;
	snprintf(why, len, "permission denied: uid %u may not control this "
		 "process (uid %u)", (unsigned)q->cred.uid,
		 (unsigned)geteuid());
	return false;
}

/* Every line of the datagram is a request; a last line needs no newline. */
static void answer(struct request *q)
{
	struct sk__json out;
	char why[160];

	if (!sender_allowed(q, why, sizeof(why)))
		return send_error(q, EACCES, why);
	if (q->too_long)
		return send_error(q, E2BIG, "request longer than 4096 bytes");
	for (size_t at = 0; at < q->len;) {
		char *nl = memchr(q->buf + at, '\n', q->len - at);
		size_t end = nl ? (size_t)(nl - q->buf) : q->len;
		if (q->have_cred)
			sk__audit_set_peer((int)q->cred.pid, q->cred.uid);
		else
			sk__audit_set_peer(-1, (unsigned)-1);
		/* A fresh buffer each time: a large reply's memory is not
		 * kept while the program runs. */
		sk__json_init(&out, SK__REPLY_LIMIT);
		sk__control_handle(q->buf + at, end - at, &out);
		send_reply(q, out.buf, out.len);
		sk__json_free(&out);
		at = end + 1;
	}
}

/* ---- the loop ------------------------------------------------------------ */

/* Until the program has registered (or the bound has passed, or it is
 * exiting), in steps of a millisecond: once per process, at start-up. */
static void wait_for_startup(void)
{
	struct timespec step = { 0, 1000000 };

	while (!sk__control_exiting() && sk__control_startup_left_ms() > 0)
		nanosleep(&step, NULL);
}

static int configure(int fd);

/* The program took the socket's number: leave it alone, say so once, and
 * bind a new socket at our address (free once the program closed ours; a
 * few seconds of tries, then the server ends, saying so).  0 or -1. */
static int replace_socket(int old)
{
	static bool said;
	const struct timespec pause = { 0, 100 * 1000 * 1000 };

	if (!said) {
		said = true;
		sk__warn("control socket: descriptor %d is no longer the "
			 "library's (the program closed it or put its own "
			 "there); it is left alone and a new socket is opened",
			 old);
	}
	for (int tries = 0; tries < 50; tries++) {
		if (__atomic_load_n(&srv.stopping, __ATOMIC_ACQUIRE))
			return -1;
		int fd = sk__listener_open(srv.path);
		if (fd >= 0 && configure(fd) == 0) {
			__atomic_store_n(&srv.fd, fd, __ATOMIC_RELEASE);
			return 0;
		}
		if (fd >= 0)
			close(fd); /* just opened: ours */
		nanosleep(&pause, NULL);
	}
	sk__warn("control socket: no new socket could be bound at %s; the "
		 "control server has stopped", srv.path);
	return -1;
}

static void *serve(void *arg)
{
	struct request *q = malloc(sizeof(*q));

	(void)arg;
	if (!q)
		return NULL;
	for (;;) {
		int fd = server_fd();
		struct pollfd p = { fd, POLLIN, 0 };
		/* Awake once a second too, so that a socket the program closed
		 * while no request came is replaced, and a stop meets a
		 * number that is no longer ours (it cannot be shut down). */
		int n = poll(&p, 1, CHECK_MS);
		if (n < 0 && errno != EINTR)
			break;
		/* sk_control_stop(): the flag, then shutdown() (POLLHUP). */
		if (__atomic_load_n(&srv.stopping, __ATOMIC_ACQUIRE))
			break;
		if (!socket_ours(fd)) {
			if (replace_socket(fd) != 0)
				break;
			continue;
		}
		if (n <= 0)
			continue;
		if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
			break;
		if ((p.revents & POLLIN) && receive(q)) {
			wait_for_startup();
			answer(q);
		}
	}
	free(q);
	return NULL;
}

/* ---- starting and stopping ----------------------------------------------- */

static int start_locked(const char *path);

/* The child of a fork has no server thread: forget the parent's server
 * (the child's copy of its socket is closed; the parent's stays open),
 * and serve the child's own default address if the parent served its
 * own. */
static void after_fork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	server_mutex = fresh;
	if (!srv.running)
		return;
	if (socket_ours(srv.fd))
		close(srv.fd);
	srv.fd = -1;
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
	sk__control_set_exiting();
	if (srv.running && srv.owner == getpid())
		sk__listener_remove(srv.path);
}

static void register_handlers_once(void)
{
	(void)sk__os_atfork(NULL, NULL, after_fork_child);
	atexit(at_exit);
}

/* Credentials on every datagram received; a bounded wait on a client
 * that does not read. */
static int configure(int fd)
{
	struct timeval tv = { SEND_SECONDS, 0 };
	int r = sk__os_creds_enable(fd);

	srv.creds_known = r == 0;
	if (r == -ENOTSUP && srv.path[0] != '@')
		r = 0; /* a socket file: its permissions decide */
	if (r == 0 && setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		r = -errno;
	return r;
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
	int fd = sk__listener_open(srv.path);
	if (fd < 0)
		return fd;
	r = configure(fd);
	srv.fd = fd;
	srv.stopping = 0;
	if (r == 0)
		r = sk__os_thread_create(&srv.thread, serve);
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
	/* A socket shut down both ways reports POLLHUP: the thread wakes and
	 * finds the flag.  A number the program took is not ours to shut. */
	__atomic_store_n(&srv.stopping, 1, __ATOMIC_RELEASE);
	int fd = server_fd();
	bool ours = socket_ours(fd);
	if (ours)
		shutdown(fd, SHUT_RDWR);
	pthread_join(srv.thread, NULL);
	fd = server_fd(); /* the thread may have replaced it */
	if (socket_ours(fd))
		close(fd);
	srv.fd = -1;
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
