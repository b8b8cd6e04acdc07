/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/config_watch.c - STATICKEYS_FILE: key states from a file
 * (or a directory of *.conf files) that the program follows as it changes.
 *
 *	STATICKEYS_FILE=/etc/myservice/keys.conf
 *	STATICKEYS_FILE=/etc/myservice/keys.d      (its *.conf, in name order)
 *
 * At start-up the file is read once, when the runtime initialises, and its
 * entries are applied to each object as it registers (before the STATICKEYS
 * entries, which are more specific to this one process), so no site runs
 * with another state first.  Then one thread follows it (os/os.h's watch) and
 * applies each new version as one commit (sk_commit's batch: all its keys,
 * one int3 protocol run).
 *
 * What is watched is the directory holding the file (and, for a symlink,
 * the directory of its target), never the file itself: editors that write
 * a new file and rename it over the old one, and Kubernetes ConfigMap
 * volumes, which swap a "..data" symlink in the directory, replace the
 * inode a watch on the file would follow.  Any event there means "read it
 * again"; a version whose bytes equal the last one read is not applied
 * again, and a new version applies only its lines whose state differs
 * from the last version applied (or that are new): a touch, or an edit of
 * one line, changes exactly the keys it names and never undoes a change
 * made on the socket since to another key.  After the file was gone, the
 * version that comes back applies whole.
 * Events are coalesced for SETTLE_MS of quiet (at most BURST_MS), so a
 * burst of edits is applied as its last version.  A file written in place
 * is read once it is closed (where the OS tells writes apart: Linux), or
 * after WRITE_WAIT_MS without a write: a program writing in place empties
 * the file first, and may stall before it writes the rest (`curl URL >
 * keys.conf`); read meanwhile, the empty or half file would be applied as
 * a version, and the whole one after it compared with that.  For the same
 * reason a version is applied only from files still for STILL_MS when read
 * (still(), below), and a file whose size or times changed while it was
 * read is read again.
 *
 * A version with a bad line applies nothing: one message names the file,
 * the line and the reason, and the keys keep the last good state.  A file
 * that disappears also leaves the keys as they are, with one message.  A
 * line naming no key of the process is skipped with one message per
 * version (FILE:LINE and the name: a typo must not go unseen), given when
 * the program itself registers for the start-up version; it still applies
 * to a plugin that defines the key when that plugin is loaded.  `skctl
 * unmatched` lists such lines of the version in force.
 *
 * Resources: the watch descriptor (O_CLOEXEC) and the thread exist only
 * when STATICKEYS_FILE is set; the file is open only while it is read.  A
 * forked child has no thread: it closes the descriptor and keeps its key
 * states (a child that execs starts over with the same variable).  Each
 * wake-up first proves the descriptor still the watch (os/os.h's
 * sk__os_watch_ours): a program that closed it, and maybe reused its number,
 * keeps its file untouched, and the watcher takes a new watch.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "control/control.h"
#include "control/dyndbg.h"
#include "statickeys/registry.h"
#include "support/message.h"
#include "support/settings.h"
#include "support/stats.h"

/* A file's modification and change times: POSIX 2008's st_mtim and
 * st_ctim, which macOS spells st_mtimespec and st_ctimespec. */
#ifdef __APPLE__
#define ST_MTIM st_mtimespec
#define ST_CTIM st_ctimespec
#else
#define ST_MTIM st_mtim
#define ST_CTIM st_ctim
#endif

#define SETTLE_MS 10
#define BURST_MS 50
#define WRITE_WAIT_MS 1000
#define STILL_MS 40
#define MAX_FILE_BYTES (1 << 20)

static struct {
	char *path;
	int fd; /* sk__os_watch_open(); -1 when not watching */
	struct sk__conf *conf; /* the last good version; the patch lock */
	uint64_t hash;         /* of the last version read, good or bad */
	bool missing;          /* said once that the file is gone */
	bool whole;            /* the next version applies every line */
	bool pending;          /* an event not yet followed by a read */
	bool writing;          /* a file read from is written in place... */
	bool written;          /* ...or was, since this was last cleared */
	uint64_t write_ns;     /* ...and was last written then */
	int64_t changed_ns;    /* the newest change time of the files read */
	int64_t deferred_ns;   /* the change time a read was put off for */
	uint64_t still_at_ns;  /* read again then (sk__now_ns), or 0 */
	bool is_dir;           /* the path is a directory (add_watches) */
	char target[NAME_MAX + 1]; /* what the path points to (add_watches) */
	void (*next_hook)(struct sk__object *obj);
} w = { .fd = -1 };

/* ---- reading ------------------------------------------------------------- */

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h;
}

/* "@path: what errno says" in @err.  Return: -errno. */
static int os_error(const char *path, char *err, size_t errlen)
{
	int e = errno;

	snprintf(err, errlen, "%s: %s", path, strerror(e));
	return -e;
}

/* Read and parse @file; *@hash is extended with its name and bytes. */
static int read_one(struct sk__conf *conf, const char *file, uint64_t *hash,
		    char *err, size_t errlen)
{
	struct stat st;
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return os_error(file, err, errlen);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > MAX_FILE_BYTES) {
		close(fd);
		snprintf(err, errlen, "%s: not a regular file of at most 1 MiB",
			 file);
		return -EINVAL;
	}
	char *text = malloc((size_t)st.st_size + 1);
	ssize_t n = text ? read(fd, text, (size_t)st.st_size + 1) : -1;
	struct stat after;
	/* Changed while it was read (its size or times): read it again. */
	bool changed = fstat(fd, &after) != 0 || after.st_size != st.st_size ||
		       after.ST_MTIM.tv_sec != st.ST_MTIM.tv_sec ||
		       after.ST_MTIM.tv_nsec != st.ST_MTIM.tv_nsec ||
		       after.ST_CTIM.tv_sec != st.ST_CTIM.tv_sec ||
		       after.ST_CTIM.tv_nsec != st.ST_CTIM.tv_nsec;
	close(fd);
	int64_t ctime_ns = (int64_t)after.ST_CTIM.tv_sec * 1000000000 +
			   after.ST_CTIM.tv_nsec;
	if (ctime_ns > w.changed_ns)
		w.changed_ns = ctime_ns;
	int r = n < 0 ? -EIO : changed ? -EAGAIN : 0;
	if (r == 0) {
		*hash = fnv1a(fnv1a(*hash, file, strlen(file) + 1), text,
			      (size_t)n);
		r = sk__conf_parse(conf, file, text, (size_t)n, err, errlen);
	} else {
		snprintf(err, errlen, "%s: %s", file, r == -EAGAIN
			 ? "changed while it was read" : "could not be read");
	}
	free(text);
	return r;
}

/* sysctl.d's rule: *.conf, not hidden ("..data" of a ConfigMap is). */
static bool conf_file_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

static int conf_name(const struct dirent *d)
{
	return conf_file_name(d->d_name);
}

/* Name order by bytes, as sysctl.d's (and independent of the program's
 * locale).  Not alphasort: naming a C library function's address binds it
 * when the program loads, at every start-up, followed file or not. */
static int name_order(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int read_dir(struct sk__conf *conf, uint64_t *hash, char *err,
		    size_t errlen)
{
	struct dirent **names;
	char file[PATH_MAX];
	int n = scandir(w.path, &names, conf_name, name_order), r = 0;

	if (n < 0)
		return os_error(w.path, err, errlen);
	for (int i = 0; i < n; i++) {
		snprintf(file, sizeof(file), "%s/%s", w.path, names[i]->d_name);
		if (r == 0)
			r = read_one(conf, file, hash, err, errlen);
		if (r == -ENOENT)
			r = 0; /* gone since the listing: its event follows */
		free(names[i]);
	}
	free(names);
	return r;
}

/* Read the whole configuration.  -ENOENT: the path is gone. */
static int read_all(struct sk__conf *conf, uint64_t *hash, char *err,
		    size_t errlen)
{
	struct stat st;

	memset(conf, 0, offsetof(struct sk__conf, v));
	*hash = 0xcbf29ce484222325ull;
	w.changed_ns = INT64_MIN;
	if (stat(w.path, &st) != 0)
		return os_error(w.path, err, errlen);
	if (S_ISDIR(st.st_mode))
		return read_dir(conf, hash, err, errlen);
	return read_one(conf, w.path, hash, err, errlen);
}

/* The file (or the directory, then each of its files) is opened in the
 * library's one place for files (os/linux/fd_slot.c), one at a time. */
static int read_in_place(struct sk__conf *conf, uint64_t *hash, char *err,
			 size_t errlen)
{
	sk__os_fdslot_lend();
	int r = read_all(conf, hash, err, errlen);
	sk__os_fdslot_return();
	return r;
}

/* ---- applying ------------------------------------------------------------ */

static struct sk__audit_src source_of(const struct sk__conf *conf,
				      const struct sk__conf_entry *e)
{
	return (struct sk__audit_src){ .kind = SK__AUDIT_FILE,
				       .file = conf->files[e->file],
				       .line = e->line };
}

/* @last (the version applied before) has the dyndbg line @text too. */
static bool had_query(const struct sk__conf *last, const char *text)
{
	for (size_t i = 0; last && i < last->nq; i++)
		if (strcmp(last->qtext + last->q[i].text, text) == 0)
			return true;
	return false;
}

/* The "dyndbg = QUERY" lines of @conf, in order, each one commit of the
 * debug statements it matches (@only's, or every object's), audited as its
 * FILE:LINE; a line @last had as well changes nothing, as a key's line
 * left as it was does not.  Under the patch lock.  Return: 0 or the first
 * commit's error. */
static int apply_queries_locked(const struct sk__conf *conf,
				const struct sk__conf *last,
				struct sk__object *only)
{
	for (size_t i = 0; conf && i < conf->nq; i++) {
		const struct sk__conf_query *q = &conf->q[i];
		const char *text = conf->qtext + q->text;
		struct sk__dd_queries qs;
		if (had_query(last, text) ||
		    sk__dd_parse(text, "STATICKEYS_FILE", &qs, NULL, 0) != 0)
			continue; /* it parsed when read: out of memory */
		struct sk__audit_src src = { .kind = SK__AUDIT_FILE,
					     .file = conf->files[q->file],
					     .line = q->line };
		int r = sk__dd_apply_locked(&qs, only, &src);
		sk__dd_free(&qs);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Say each line @v[0..@n) of @conf that names no key, with FILE:LINE. */
static void warn_unmatched(const struct sk__conf *conf, const size_t *v,
			   size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct sk__conf_entry *e = &conf->v[v[i]];
		sk__warn("STATICKEYS_FILE: %s:%u: no key named \"%s\" in the "
			 "program or its libraries (see `skctl list`); skipped, "
			 "it applies if a plugin defining it is loaded",
			 conf->files[e->file], e->line, e->name);
	}
}

/* The start-up version's lines that name no key, said once when the
 * program itself registers (its libraries did before it), as STATICKEYS's
 * are. */
static void warn_unmatched_at_start(const struct sk__conf *conf)
{
	static size_t v[SK__CONF_MAX];
	struct sk_key_info *keys = NULL;
	size_t nkeys = 0, n = 0;

	if (sk__keys_snapshot_locked(&keys, &nkeys) != 0)
		return;
	for (size_t i = 0; i < conf->n; i++)
		if (sk__keys_lookup(keys, nkeys, conf->v[i].name) == -ENOENT)
			v[n++] = i;
	free(keys);
	warn_unmatched(conf, v, n);
}

/* The entries of @conf that name keys of @obj, as one commit (called by
 * registration, which holds the patch lock), then the next hook. */
static void object_added(struct sk__object *obj)
{
	static struct sk_key_change changes[SK__CONF_MAX];
	static struct sk__audit_src srcs[SK__CONF_MAX];
	const struct sk__conf *conf = w.conf;
	size_t n = 0;

	for (size_t k = 0; conf && k < obj->nkeys; k++) {
		for (size_t i = conf->n; i-- > 0;) {
			const struct sk__conf_entry *e = &conf->v[i];
			if (!sk__name_matches(obj, obj->keys[k], e->name,
					      strlen(e->name)))
				continue;
			srcs[n] = source_of(conf, e);
			changes[n++] = (struct sk_key_change){ obj->keys[k],
							       e->on };
			break;
		}
	}
	int r = sk__audit_commit_locked(changes, n, srcs, n);
	if (r == 0)
		r = apply_queries_locked(conf, NULL, obj);
	sk__audit_flush();
	if (r)
		sk__warn("STATICKEYS_FILE: could not apply %s to %s's keys "
			 "(%s); they keep their defined states", w.path,
			 sk__object_file(obj), strerror(-r));
	if (conf && sk__object_is_program(obj))
		warn_unmatched_at_start(conf);
	if (w.next_hook)
		w.next_hook(obj);
}

/* @e says what the last version applied said: a line a new version left
 * as it was changes nothing, whatever was done on the socket since. */
static bool as_applied(const struct sk__conf_entry *e)
{
	const struct sk__conf *last = w.whole ? NULL : w.conf;

	for (size_t i = 0; last && i < last->n; i++)
		if (strcmp(last->v[i].name, e->name) == 0)
			return last->v[i].on == e->on;
	return false;
}

/* The lines of the version being applied that name no key (indices into
 * it), said by apply() once the lock is released. */
static size_t unmatched[SK__CONF_MAX], nunmatched;

/* Look @conf's names up and commit the lines that changed, under one hold
 * of the lock.  On success @conf becomes the version later objects get. */
static int apply_locked(struct sk__conf *conf, const struct sk_key_info *v,
			size_t nv, char *err, size_t errlen)
{
	static struct sk_key_change changes[SK__CONF_MAX];
	static struct sk__audit_src srcs[SK__CONF_MAX];
	size_t n = 0;

	nunmatched = 0;
	for (size_t i = 0; i < conf->n; i++) {
		const struct sk__conf_entry *e = &conf->v[i];
		long k = sk__keys_lookup(v, nv, e->name);
		if (k == -ENOENT) {
			/* A typo, a key of other programs, or of a plugin not
			 * loaded yet: object_added applies it. */
			unmatched[nunmatched++] = i;
			continue;
		}
		if (k < 0) {
			snprintf(err, errlen, "%s:%u: \"%s\" names keys in "
				 "several objects; qualify it as FILE:NAME",
				 conf->files[e->file], e->line, e->name);
			return -EEXIST;
		}
		if (as_applied(e))
			continue;
		srcs[n] = source_of(conf, e);
		changes[n++] = (struct sk_key_change){ v[k].key, e->on };
	}
	int r = sk__audit_commit_locked(changes, n, srcs, n);
	if (r == 0)
		r = apply_queries_locked(conf, w.whole ? NULL : w.conf, NULL);
	if (r)
		snprintf(err, errlen, "%s: could not be applied (%s)", w.path,
			 r == -EINVAL ? "two lines name one key with different "
					"states"
				      : strerror(-r));
	return r;
}

static int apply(struct sk__conf *conf, char *err, size_t errlen)
{
	struct sk_key_info *v = NULL;
	size_t nv = 0;
	int r = sk__lock();

	if (r)
		return snprintf(err, errlen, "%s: %s", w.path, strerror(-r)), r;
	r = sk__keys_snapshot_locked(&v, &nv);
	if (r == 0)
		r = apply_locked(conf, v, nv, err, errlen);
	if (r == 0) {
		free(w.conf);
		w.conf = conf;
		w.whole = false;
	}
	sk__unlock();
	sk__audit_flush();
	if (r == 0) /* only this thread applies versions: still @conf's */
		warn_unmatched(conf, unmatched, nunmatched);
	free(v);
	return r;
}

/* ---- what matched nothing (skctl unmatched) ----------------------------- */

int sk__config_unmatched(const char **path, struct sk__conf **out)
{
	struct sk_key_info *v = NULL;
	size_t nv = 0;

	*path = w.path;
	*out = NULL;
	if (!w.path)
		return 0;
	struct sk__conf *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	int r = sk__lock();
	if (r == 0) {
		r = sk__keys_snapshot_locked(&v, &nv);
		const struct sk__conf *conf = w.conf; /* swapped under the lock */
		for (size_t i = 0; r == 0 && conf && i < conf->n; i++)
			if (sk__keys_lookup(v, nv, conf->v[i].name) == -ENOENT)
				c->v[c->n++] = conf->v[i];
		if (conf) {
			c->nfiles = conf->nfiles;
			memcpy(c->files, conf->files, sizeof(c->files));
		}
		sk__unlock();
	}
	free(v);
	if (r)
		free(c);
	else
		*out = c;
	return r;
}

/* ---- following ----------------------------------------------------------- */

static bool wake(bool readable);

/*
 * A version is applied only from files that had been still for STILL_MS
 * when they were read (their change time), else read again once they
 * have.  The events of a change reach the watcher after the change itself
 * (the kernel queues them at the end of the system call that truncated or
 * wrote the file): a reader that runs in between reads an emptied or half
 * written file and finds no event yet.  A change time not older than the
 * read (the clock set back) is waited for once.  Return: true to apply.
 */
static bool still(int r)
{
	struct timespec now;
	int64_t age = INT64_MAX;

	if (clock_gettime(CLOCK_REALTIME, &now) == 0 &&
	    w.changed_ns != INT64_MIN)
		age = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec -
		      w.changed_ns;
	bool waited = w.deferred_ns == w.changed_ns;
	if (r != -EAGAIN && (age >= STILL_MS * 1000000ll || waited)) {
		w.deferred_ns = INT64_MIN;
		return true;
	}
	w.deferred_ns = w.changed_ns;
	w.pending = true;
	w.still_at_ns = sk__now_ns() +
			(uint64_t)(age >= 0 && age < STILL_MS * 1000000ll
					   ? STILL_MS * 1000000ll - age
					   : STILL_MS * 1000000ll) +
			1000000u;
	return false;
}

/* Read the file again and apply it if it changed. */
static void reload(void)
{
	struct sk__conf *conf = malloc(sizeof(*conf));
	char err[PATH_MAX + 200];
	uint64_t hash;

	if (!conf)
		return;
	w.written = false;
	int r = read_in_place(conf, &hash, err, sizeof(err));
	/* Changed while it was read: read it again.  Written in place (even
	 * if closed by now: the events come in a queue, the truncation, the
	 * write and the close all in this one drain): what was read may be
	 * the emptied file, which applied would make the whole file after it
	 * a change of every line; not applied, read again once closed.  A
	 * write queued before the read began costs one more read. */
	if (wake(true)) {
		w.pending = true;
		if (w.written || w.writing) {
			free(conf);
			return;
		}
	}
	if (r == -ENOENT && !w.missing) {
		sk__warn("STATICKEYS_FILE: %s was removed; the keys keep their "
			 "states, and it applies again when it is back", w.path);
		w.missing = true;
		w.whole = true;
		w.hash = 0;
	}
	if (r == -ENOENT || hash == w.hash) {
		free(conf);
		return;
	}
	if (!still(r)) {
		free(conf);
		return;
	}
	w.missing = false;
	w.hash = hash;
	if (r == 0)
		r = apply(conf, err, sizeof(err));
	if (r) {
		sk__warn("STATICKEYS_FILE: %s; nothing applied, the keys keep "
			 "their last good state", err);
		free(conf);
	}
}

/* The last part of @path. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Watch the directory of the path and of what it points to. */
static void add_watches(void)
{
	char dir[PATH_MAX], *real = realpath(w.path, NULL);

	snprintf(w.target, sizeof(w.target), "%s",
		 base_name(real ? real : w.path));

	for (int i = 0; i < 2; i++) {
		const char *p = i == 0 ? w.path : real;
		if (!p)
			continue;
		snprintf(dir, sizeof(dir), "%s", p);
		char *slash = strrchr(dir, '/');
		if (slash)
			*(slash == dir ? slash + 1 : slash) = '\0';
		(void)sk__os_watch_add(w.fd, slash ? dir : ".");
	}
	/* A directory is also watched itself: its files come and go. */
	struct stat st;
	w.is_dir = stat(w.path, &st) == 0 && S_ISDIR(st.st_mode);
	if (w.is_dir)
		(void)sk__os_watch_add(w.fd, w.path);
	free(real);
}

/* A name in a watched directory that the configuration is read from: the
 * path's, its target's, or a directory's *.conf file. */
static bool read_from(const char *name)
{
	return strcmp(name, base_name(w.path)) == 0 ||
	       strcmp(name, w.target) == 0 || (w.is_dir && conf_file_name(name));
}

/* Any change in a watched directory means "read again" (a ConfigMap swaps
 * "..data", which no file is named); a write of a file still open is
 * noted only for a file read from, and closing or replacing it ends it. */
static bool on_event(const char *name, bool writing)
{
	if (name && !read_from(name))
		return !writing;
	if (writing) {
		w.write_ns = sk__now_ns();
		w.written = true;
	}
	if (name)
		w.writing = writing;
	return true;
}

/* The program closed the watch's descriptor (a daemon's close-all) and may
 * have put a file of its own on the number: that is left alone, never read
 * or closed, and a new watch is taken.  Events may have been lost between:
 * the file is read again.  Return: true (a change to read), or false with
 * w.fd -1 when no new watch could be had. */
static bool renew(void)
{
	static bool said;
	int old = w.fd;

	sk__os_watch_close(old, false);
	w.fd = sk__os_watch_open();
	if (!said || w.fd < 0)
		sk__warn("STATICKEYS_FILE: descriptor %d is no longer the "
			 "library's watch of %s (the program closed it, and may "
			 "have put its own file there); it is left alone and %s", old,
			 w.path, w.fd >= 0 ? "a new watch is taken"
					   : "the file is no longer followed");
	said = true;
	if (w.fd < 0)
		return false;
	add_watches();
	w.written = true; /* unwatched a while: what was read is not trusted */
	return true;
}

/* At each wake-up (one a second at least): prove the descriptor still
 * ours, and then, if poll() said so, read every pending event.  Return:
 * whether one counted. */
static bool wake(bool readable)
{
	if (!sk__os_watch_ours(w.fd))
		return renew();
	return readable && sk__os_watch_drain(w.fd, on_event);
}

/* After a first event: wait for SETTLE_MS of quiet, at most BURST_MS. */
static void settle(void)
{
	uint64_t start = sk__now_ns();
	struct pollfd p = { w.fd, POLLIN, 0 };

	while (w.fd >= 0 && sk__now_ns() - start < BURST_MS * 1000000ull &&
	       poll(&p, 1, SETTLE_MS) > 0) {
		wake(true);
		p.fd = w.fd;
	}
}

/* How long poll() waits: while a file is written in place, until
 * WRITE_WAIT_MS after its last write; not at all when a change is still
 * to be read; else a second (while the file is missing, a directory
 * created later is watched at that pace). */
static int wait_ms(void)
{
	uint64_t now = sk__now_ns(), waited = (now - w.write_ns) / 1000000u;

	if (w.writing)
		return waited < WRITE_WAIT_MS ? (int)(WRITE_WAIT_MS - waited)
					      : 0;
	if (w.still_at_ns > now)
		return (int)((w.still_at_ns - now) / 1000000u) + 1;
	return w.pending ? 0 : 1000;
}

static void *follow(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd p = { w.fd, POLLIN, 0 };
		bool event = wake(poll(&p, 1, wait_ms()) > 0);
		if (event)
			settle();
		if (w.fd < 0)
			return NULL; /* no watch to be had: said by renew() */
		w.pending |= event;
		if (w.writing && wait_ms() > 0)
			continue; /* not closed yet */
		w.writing = false; /* or a writer quiet for WRITE_WAIT_MS */
		if (w.still_at_ns > sk__now_ns())
			continue; /* changed a moment ago (still()) */
		if (!w.pending && !w.missing)
			continue;
		w.pending = false;
		add_watches();
		reload();
	}
	return NULL;
}

/* The version read at start-up, applied by object_added. */
static void read_first(void)
{
	struct sk__conf *conf = malloc(sizeof(*conf));
	char err[PATH_MAX + 200];

	if (!conf)
		return;
	int r = -EAGAIN;
	/* A file changed while it was read is read again (a few times: the
	 * program starts now, and a writer in place soon closes the file). */
	for (int i = 0; i < 5 && r == -EAGAIN; i++)
		r = read_in_place(conf, &w.hash, err, sizeof(err));
	if (r == 0) {
		w.conf = conf;
		return;
	}
	free(conf);
	if (r == -ENOENT) {
		w.missing = true;
		sk__warn("STATICKEYS_FILE: %s does not exist; the keys keep "
			 "their defined states until it does", w.path);
	} else {
		sk__warn("STATICKEYS_FILE: %s; nothing applied, the keys keep "
			 "their defined states", err);
	}
}

/* @path made absolute, malloc'd (NULL if out of memory).  A relative path
 * is taken from the directory the program starts in, whatever directory it
 * moves to later.  Apart from sk__config_init() so that its PATH_MAX buffer
 * is on the stack only when STATICKEYS_FILE is set: a frame that large is
 * probed page by page, a page fault in every program's start-up. */
static __attribute__((noinline)) char *absolute(const char *path)
{
	char cwd[PATH_MAX], *abs;

	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)))
		return asprintf(&abs, "%s/%s", cwd, path) < 0 ? NULL : abs;
	return strdup(path);
}

void sk__config_init(void)
{
	const char *path = sk__getenv("STATICKEYS_FILE");

	if (!path || !*path)
		return;
	w.path = absolute(path);
	if (!w.path)
		return;
	read_first();
	w.next_hook = sk__object_added_hook;
	sk__object_added_hook = object_added;
	w.fd = sk__os_watch_open();
	if (w.fd >= 0)
		add_watches();
	pthread_t thread;
	int r = w.fd < 0 ? w.fd : sk__os_thread_create(&thread, follow);
	if (r == 0) {
		pthread_detach(thread);
		return;
	}
	sk__warn("STATICKEYS_FILE: cannot follow %s (%s); it was read once, "
		 "at start-up", w.path, strerror(-r));
	sk__os_watch_close(w.fd, w.fd >= 0);
	w.fd = -1;
}

/* Before the child's code runs: the descriptor is the parent's watch. */
void sk__config_after_fork_child(void)
{
	sk__os_watch_close(w.fd, w.fd >= 0);
	w.fd = -1;
}
