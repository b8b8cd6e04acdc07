/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/control.h - private interfaces of the control plane (prefix
 * sk__): key names (names.c), multi-key commits (commit.c), the start-up
 * state from the environment (startup_state.c), the end of start-up
 * (startup_end.c), the request language
 * (protocol.c), carrying out requests (handler.c), the socket's address
 * (listener.c, declared in
 * control/listener.h: Unix sockets) and the thread that serves it (server.c;
 * control/no_socket.c where the OS has no Unix datagram sockets).  The top layer: it calls the core, nothing calls it but
 * runtime.c.
 */
#ifndef SK_CONTROL_PLANE_H
#define SK_CONTROL_PLANE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/core.h"
#include "statickeys/commit.h"
#include "support/message.h"

#define SK__MAX_ARGS 128 /* keys in one request */
#define SK__MAX_NAME 512 /* bytes of a key name */

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

/* ---- startup_end.c: the end of start-up, for the control server ---------- */

/* sk__control_startup_begin - start-up has begun (sk__control_init(),
 * before the server can start). */
void sk__control_startup_begin(void);

/* sk__control_program_registered - the program's own object has
 * registered (runtime.c, after its registration, its start-up state
 * applied): the objects present at start-up are all registered now.  One
 * atomic store; callable before sk__control_init() and from any thread. */
void sk__control_program_registered(void);

/* SK__STARTUP_WAIT_MS - how long after sk__control_startup_begin() a
 * request may wait for the program's registration (a program with no
 * keys of its own never registers). */
#define SK__STARTUP_WAIT_MS 1000

/* sk__control_startup_left_ms - how much longer a request must wait for
 * the program to finish registering its start-up objects: 0 once the
 * program has registered, once SK__STARTUP_WAIT_MS have passed since
 * start-up began, or if sk__control_startup_begin() never ran (a server
 * started by the program's own sk_control_start(), no STATICKEYS_*
 * variable set). */
long sk__control_startup_left_ms(void);

/* ---- audit.c: who changed which key ------------------------------------- */

#define SK__AUDIT_RING 64

enum sk__audit_kind { SK__AUDIT_SOCKET, SK__AUDIT_FILE, SK__AUDIT_ENV };

/* sk__audit_src - where a change comes from: a socket peer (uid, pid), a
 * file and line, or the environment. */
struct sk__audit_src {
	enum sk__audit_kind kind;
	unsigned uid;
	int pid;
	const char *file;
	unsigned line;
};

/* sk__audit_record - one change as the ring keeps it: a key's state, or
 * (call) a static call switched between labelled targets. */
struct sk__audit_record {
	uint64_t seq;
	int64_t time_ns; /* CLOCK_REALTIME */
	char source[200];
	char key[128];   /* the key's name, or the static call's */
	bool old_on, new_on;
	bool call;       /* a static call: targets holds "OLD -> NEW" */
	char targets[72];
	int result; /* 0 or -errno of the commit */
};

/* sk__audit_init - once, from runtime init: read STATICKEYS_AUDIT. */
void sk__audit_init(void);

/* sk__audit_set_peer - the socket request this thread handles next comes
 * from process @pid of user @uid (the datagram's SCM_CREDENTIALS). */
void sk__audit_set_peer(int pid, unsigned uid);
/* sk__audit_peer - that peer, as a source for sk__audit_commit_locked(). */
const struct sk__audit_src *sk__audit_peer(void);

/* sk__audit_commit_locked - sk__commit_locked(), recording each key whose
 * state was to change (written out by the next sk__audit_flush()).  @src: one source for all changes (@nsrc 1) or one
 * per change (@nsrc == @n).  Return: as sk__commit_locked(). */
int sk__audit_commit_locked(const struct sk_key_change *changes, size_t n,
			    const struct sk__audit_src *src, size_t nsrc);

/* sk__audit_call_locked - record a static call's switch from the target
 * labelled @old_label (or "?": not one its program labelled) to @new_label,
 * with its result (written out by the next sk__audit_flush()). */
void sk__audit_call_locked(const struct sk__audit_src *src, const char *name,
			   const char *old_label, const char *new_label,
			   int result);

/* sk__audit_flush - write out (stderr or syslog) the records not written
 * yet; called without the patch lock where possible. */
void sk__audit_flush(void);

/* sk__audit_read - copy the last records, oldest first, into @out.
 * Return: how many (at most @max and SK__AUDIT_RING). */
size_t sk__audit_read(struct sk__audit_record *out, size_t max);

/* sk__audit_format_time - "2026-01-31T12:00:00.123Z" */
void sk__audit_format_time(int64_t ns, char *out, size_t len);

/* ---- config_file.c: the STATICKEYS_FILE syntax ---------------------------- */

#define SK__CONF_MAX 256

/* sk__conf_entry - one "name = 0|1" line. */
struct sk__conf_entry {
	char name[SK__MAX_NAME + 1];
	bool on;
	unsigned line;
	unsigned file; /* index into sk__conf.files */
};

#define SK__CONF_FILES 32
#define SK__CONF_QUERIES 64       /* "dyndbg = QUERY" lines */
#define SK__CONF_QUERY_BYTES 8192 /* their text, NUL-terminated each */

/* sk__conf_query - a "dyndbg = QUERY" line: a dynamic debug query
 * (docs/dynamic-debug.md), applied as sk_dyndbg_query() applies it. */
struct sk__conf_query {
	unsigned text; /* offset into sk__conf.qtext */
	unsigned line;
	unsigned file; /* index into sk__conf.files */
};

/* sk__conf - the entries of one or more files, the last one of each name
 * winning (as in sysctl.d), and the dyndbg lines, all kept in order. */
struct sk__conf {
	size_t n, nfiles, nq, qlen;
	struct sk__conf_entry v[SK__CONF_MAX];
	char files[SK__CONF_FILES][256];
	struct sk__conf_query q[SK__CONF_QUERIES];
	char qtext[SK__CONF_QUERY_BYTES];
};

/* sk__conf_parse - add the lines of @text (@len bytes, need not be
 * terminated), from the file named @file, to @conf.
 * Return: 0, or -EINVAL / -E2BIG with "FILE:LINE: reason" in @err; then
 * @conf must not be applied. */
int sk__conf_parse(struct sk__conf *conf, const char *file, const char *text,
		   size_t len, char *err, size_t errlen);

/* ---- config_watch.c: STATICKEYS_FILE followed with inotify -------------- */

/* sk__config_init - once, from runtime init: when STATICKEYS_FILE is set,
 * read it (applied to each object as it registers, before the STATICKEYS
 * entries) and start the thread that follows it. */
void sk__config_init(void);

/* sk__config_unmatched - the lines of the STATICKEYS_FILE version in force
 * that name no key of the process now (a typo, another program's key, a
 * plugin's not loaded), copied into *@out (free() it; names, lines and
 * files as sk__conf_parse() made them); *@path the followed path.  Both are
 * NULL when STATICKEYS_FILE is not set.  Return: 0 or -errno. */
int sk__config_unmatched(const char **path, struct sk__conf **out);

/* sk__config_after_fork_child - the child has no watcher thread: close its
 * descriptor; the child keeps its key states. */
void sk__config_after_fork_child(void);

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
	SK__OP_LOG,
	SK__OP_UNMATCHED, /* STATICKEYS_FILE lines naming no key */
	SK__OP_CALLS,     /* static calls (calls.c) */
	SK__OP_CALL,      /* NAME=LABEL: switch a static call (calls.c) */
	SK__OP_DEBUG,     /* [QUERY]: dynamic debug (dyndbg_control.c) */
};

/* sk__arg - one key name of a request, pointing into the request line. */
struct sk__arg {
	const char *name;
	size_t len;
	bool on; /* SET: the wanted state; ENABLE/DISABLE: implied */
	const char *value; /* CALL: the target's label */
	size_t vlen;
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

/* calls.c: `calls` (the static calls, their targets and labels) and
 * `call NAME=LABEL` (switch one to a target its program labelled). */
void sk__control_calls_list(struct sk__json *j);
/* dyndbg_control.c: `debug` (the catalogue) and `debug QUERY` (args[0]:
 * the rest of the line, the query as sk_dyndbg_query() takes it). */
void sk__control_debug(struct sk__json *j, const struct sk__request *req);
void sk__control_call_switch(struct sk__json *j,
			     const struct sk__request *req);
void sk__json_reset(struct sk__json *j);
void sk__json_raw(struct sk__json *j, const char *s);
/* sk__json_str - @s (@n bytes) as a JSON string, quoted and escaped. */
void sk__json_str(struct sk__json *j, const char *s, size_t n);
void sk__json_printf(struct sk__json *j, const char *fmt, ...)
	__attribute__((format(SK__PRINTF, 2, 3)));

/* ---- handler.c: requests applied to the runtime -------------------------- */

#define SK__REPLY_LIMIT (8u << 20)

/* sk__control_handle - parse and carry out one request line, leaving one
 * line of JSON (newline included) in @reply, or nothing for a blank line.
 * Holds the patch lock only while it reads or changes keys. */
void sk__control_handle(const char *line, size_t len, struct sk__json *reply);

/* sk__control_set_exiting - the program has started exiting: from now on a
 * refusal is answered "exiting" (server.c's atexit handler). */
void sk__control_set_exiting(void);
/* sk__control_exiting - the program has started exiting; false where there
 * is no control socket (no_socket.c: nothing sets it). */
bool sk__control_exiting(void);

#endif /* SK_CONTROL_PLANE_H */
