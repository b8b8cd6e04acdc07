/*
 * src/control/control.h - private interfaces of the control plane (prefix
 * sk__): key names (names.c), multi-key commits (commit.c), the start-up
 * state from the environment (startup_state.c), the request language
 * (protocol.c), carrying out requests (handler.c), the socket's address
 * (listener.c) and the thread that serves it (server.c).  The top layer: it calls the core, nothing calls it but
 * runtime.c.
 */
#ifndef SK_CONTROL_PLANE_H
#define SK_CONTROL_PLANE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "core/core.h"
#include "statickeys/commit.h"

/* ---- commit.c ------------------------------------------------------------ */

/* sk__commit_locked - sk_commit() for a caller that holds the patch lock
 * (the start-up state is applied from inside object registration).
 * Counts updates and errors; does not record update latency. */
int sk__commit_locked(const struct sk_key_change *changes, size_t n);

/* ---- names.c ------------------------------------------------------------ */

/* sk__object_file - the file name of @obj: its path, or the program's. */
const char *sk__object_file(const struct sk__object *obj);

/* sk__name_matches - @name ("identifier" or "FILE:identifier", FILE a base
 * name or a full path) refers to @key defined in @obj.  @len: name length. */
bool sk__name_matches(const struct sk__object *obj, const struct sk_key *key,
		      const char *name, size_t len);

struct sk_key_info;

/* sk__keys_snapshot_locked - sk_keys_snapshot() with the lock held, so that
 * the keys it names can be changed before any object can go away. */
int sk__keys_snapshot_locked(struct sk_key_info **out, size_t *n);

/* sk__keys_lookup - the index in @v of the key called @name, or -ENOENT,
 * or -EEXIST when a plain identifier names several keys. */
long sk__keys_lookup(const struct sk_key_info *v, size_t n, const char *name);

/* ---- startup_state.c------------------------------------------------------ */

/* sk__control_init - once, from runtime init: read STATICKEYS (applied to
 * each object as it registers) and start the server if STATICKEYS_CONTROL
 * asks for it. */
void sk__control_init(void);

/* ---- protocol.c: the request language --------------------------- */

enum sk__op {
	SK__OP_BLANK, /* an empty line: no reply */
	SK__OP_LIST,
	SK__OP_GET,
	SK__OP_ENABLE,
	SK__OP_DISABLE,
	SK__OP_SET,
	SK__OP_STATS,
	SK__OP_HELP,
};

#define SK__MAX_ARGS 128
#define SK__MAX_NAME 512

/* sk__arg - one key name of a request, pointing into the request line. */
struct sk__arg {
	const char *name;
	size_t len;
	bool on; /* SET: the wanted state; ENABLE/DISABLE: implied */
};

struct sk__request {
	enum sk__op op;
	size_t nargs;
	struct sk__arg args[SK__MAX_ARGS];
};

/* sk__request_parse - parse one line (no newline; need not be terminated).
 * Return: 0, or -EINVAL with a message for the client in @err. */
int sk__request_parse(const char *line, size_t len, struct sk__request *req,
		      char *err, size_t errlen);

/* sk__json - a bounded reply buffer; appends past @limit set @overflow and
 * are dropped, so a reply can never grow without bound. */
struct sk__json {
	char *buf;
	size_t len, cap, limit;
	bool overflow;
};

void sk__json_init(struct sk__json *j, size_t limit);
void sk__json_free(struct sk__json *j);
void sk__json_reset(struct sk__json *j);
void sk__json_raw(struct sk__json *j, const char *s);
/* sk__json_str - @s (@n bytes) as a JSON string, quoted and escaped. */
void sk__json_str(struct sk__json *j, const char *s, size_t n);
void sk__json_printf(struct sk__json *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- control_handler.c: requests applied to the runtime ------------------ */

#define SK__REPLY_LIMIT (8u << 20)

/* sk__control_handle - parse and carry out one request line, leaving one
 * line of JSON (newline included) in @reply, or nothing for a blank line.
 * Holds the patch lock only while it reads or changes keys. */
void sk__control_handle(const char *line, size_t len, struct sk__json *reply);

/* ---- listener.c: the socket's address ---------------------------------- */

struct sockaddr_un;

/* sk__sockaddr - @path as an address: a file path, or "@name" for a name in
 * the abstract namespace.  Return: 0, -EINVAL (empty), -ENAMETOOLONG. */
int sk__sockaddr(const char *path, struct sockaddr_un *addr, socklen_t *len);

/* sk__listener_open - a listening socket (non-blocking, close-on-exec) at
 * @path (a file of mode 0600, replacing a stale one, or "@name").
 * Return: the descriptor, or a negative errno (-EADDRINUSE: live). */
int sk__listener_open(const char *path, int backlog);

/* sk__listener_remove - remove @path's file (nothing for "@name"). */
void sk__listener_remove(const char *path);

/* ---- server.c ------------------------------------------------------------ */

/* sk__control_exiting - the program has started exiting (atexit). */
bool sk__control_exiting(void);

#endif /* SK_CONTROL_PLANE_H */
