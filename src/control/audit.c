/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/audit.c - a record of every key change that comes from
 * outside the program's own code: the control socket, STATICKEYS_FILE and
 * the STATICKEYS environment variable.
 *
 *	STATICKEYS_AUDIT=syslog   (the default) one line per change to
 *	                          syslog(3), LOG_NOTICE: the journal records
 *	                          it with the program's name and pid
 *	STATICKEYS_AUDIT=stderr   the same line on the program's stderr
 *	STATICKEYS_AUDIT=off      no lines (the ring below is still kept)
 *
 * A library does not write into its host's output unasked: a server's
 * stderr is its log, and a line per outside change there is noise the
 * operator did not ask for.  Where the OS has no system log (Windows) the
 * default keeps the ring only; asking for syslog there says so.
 *
 * Each change is one record: the time, the source (the peer's uid, pid and
 * command for the socket; file and line for a file; the variable for the
 * environment), the key, its old and new state and the result.  The last
 * SK__AUDIT_RING records stay in a fixed ring in memory, which the socket's
 * `log` request returns: recording allocates nothing and never blocks on
 * anything but the ring's own mutex.
 *
 * Changes are recorded by sk__audit_commit_locked(), which every outside
 * source calls instead of sk__commit_locked(): it reads each key's state
 * before the commit, commits, and records the keys whose state was to
 * change, so a request that changes nothing leaves no record.  The lines
 * are written by sk__audit_flush(), which the socket and the file watcher
 * call after they release the patch lock: a stderr pipe nobody reads, or a
 * slow syslog, can then never hold up the program's own key updates.  At
 * object registration (start-up state) the loader holds the lock anyway,
 * and the lines are written there, as the start-up warnings are.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "control/control.h"
#include "support/message.h"
#include "support/settings.h"

enum output { TO_STDERR, TO_SYSLOG, TO_NOWHERE };

static enum output output = TO_NOWHERE; /* until sk__audit_init() */
static pthread_mutex_t ring_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct sk__audit_record ring[SK__AUDIT_RING];
static uint64_t ring_next; /* sequence number of the next record */
static uint64_t emitted;   /* records before this one are written out */

/* The socket request being handled by this thread (server.c sets it). */
static __thread struct sk__audit_src peer;

void sk__audit_init(void)
{
	const char *how = sk__getenv("STATICKEYS_AUDIT");
	bool asked = how && *how;

	if (asked && strcmp(how, "stderr") == 0) {
		output = TO_STDERR;
		return;
	}
	if (asked && strcmp(how, "off") == 0)
		return; /* TO_NOWHERE */
	if (asked && strcmp(how, "syslog") != 0) {
		output = TO_STDERR;
		sk__warn("STATICKEYS_AUDIT=%s: not syslog, stderr or off; "
			 "audit lines go to stderr", how);
		return;
	}
	/* syslog, asked or by default: opened now (os/os.h:
	 * sk__os_syslog_open), at start-up, when the program can count the
	 * descriptor. */
	int r = sk__os_syslog_open();
	if (r == 0)
		output = TO_SYSLOG;
	else if (asked) {
		output = TO_STDERR;
		sk__warn("STATICKEYS_AUDIT=syslog: no system log here "
			 "(%s); audit lines go to stderr", sk__strerror(-r));
	}
	/* else the default where the OS has no system log: the ring alone
	 * (skctl log), nothing on the host's stderr. */
}

void sk__audit_set_peer(int pid, unsigned uid)
{
	peer = (struct sk__audit_src){ .kind = SK__AUDIT_SOCKET, .pid = pid,
				       .uid = uid };
}

const struct sk__audit_src *sk__audit_peer(void)
{
	return &peer;
}

/* The command name of @pid (its /proc comm), or "?".  A client chooses
 * its own name (prctl PR_SET_NAME): control bytes become '?', so that it
 * cannot forge a line of the log. */
static void comm_of(int pid, char *out, size_t len)
{
	/* Under the patch lock (records are made by commits): in the
	 * library's one place for files (os/linux/fd_slot.c). */
	sk__os_fdslot_lend();
	int n = sk__os_process_name(pid, out, len);
	sk__os_fdslot_return();
	if (n <= 0)
		snprintf(out, len, "?");
	for (char *c = out; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

static void describe(const struct sk__audit_src *src, char *out, size_t len)
{
	char comm[17];

	switch (src->kind) {
	case SK__AUDIT_SOCKET:
		if (src->pid < 0) { /* the OS does not say (os/os.h) */
			snprintf(out, len, "socket (sender unknown)");
			return;
		}
		comm_of(src->pid, comm, sizeof(comm));
		snprintf(out, len, "socket uid %u pid %d (%s)", src->uid,
			 src->pid, comm);
		break;
	case SK__AUDIT_FILE:
		snprintf(out, len, "file %s:%u", src->file, src->line);
		break;
	case SK__AUDIT_ENV:
		snprintf(out, len, "environment STATICKEYS");
		break;
	}
}

/* The UTC date of day @days since 1970-01-01 (H. Hinnant's
 * civil_from_days): year, month 1-12, day 1-31. */
static void civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
	days += 719468; /* from 0000-03-01 */
	int64_t era = (days >= 0 ? days : days - 146096) / 146097;
	unsigned doe = (unsigned)(days - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* By hand, not with gmtime_r() and strftime(): glibc reads the time zone
 * file at the first of those, even for UTC, and that descriptor (from the
 * control server's thread, at any moment) would be one more than the
 * library's budget (footprint_fd_budget). */
void sk__audit_format_time(int64_t ns, char *out, size_t len)
{
	int64_t s = ns / 1000000000, days = s / 86400, rem = s % 86400, y;
	unsigned m, d;

	if (rem < 0) {
		rem += 86400;
		days--;
	}
	civil_from_days(days, &y, &m, &d);
	snprintf(out, len, "%04lld-%02u-%02uT%02d:%02d:%02d.%03dZ",
		 (long long)y, m, d, (int)(rem / 3600), (int)(rem / 60 % 60),
		 (int)(rem % 60), (int)(ns / 1000000 % 1000));
}

static void emit(const struct sk__audit_record *r)
{
	char when[40];

	if (output == TO_NOWHERE)
		return;
	sk__audit_format_time(r->time_ns, when, sizeof(when));
	const char *result = r->result ? strerror(-r->result) : "ok";
	char change[200];
	if (r->call)
		snprintf(change, sizeof(change), "static call %s %s", r->key,
			 r->targets);
	else
		snprintf(change, sizeof(change), "%s %d -> %d", r->key,
			 r->old_on, r->new_on);
	if (output == TO_SYSLOG) {
		char line[512];
		snprintf(line, sizeof(line), "statickeys audit: %s %s: %s: %s",
			 when, r->source, change, result);
		sk__os_syslog(line);
	} else
		fprintf(stderr, "statickeys: audit %s %s: %s: %s\n", when,
			r->source, change, result);
}

static void ring_add(struct sk__audit_record r)
{
	pthread_mutex_lock(&ring_mutex);
	r.seq = ring_next++;
	ring[r.seq % SK__AUDIT_RING] = r;
	bool full = ring_next - emitted == SK__AUDIT_RING;
	pthread_mutex_unlock(&ring_mutex);
	/* One commit of more keys than the ring holds: write the lines out
	 * now, under the lock, rather than lose them. */
	if (full)
		sk__audit_flush();
}

static void stamp(struct sk__audit_record *r, const struct sk__audit_src *src)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	r->time_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	describe(src, r->source, sizeof(r->source));
}

static void record(const struct sk__audit_src *src, const struct sk_key *key,
		   bool old_on, bool new_on, int result)
{
	struct sk__audit_record r = { .old_on = old_on, .new_on = new_on,
				      .result = result };

	stamp(&r, src);
	snprintf(r.key, sizeof(r.key), "%s", key->name ? key->name : "?");
	ring_add(r);
}

void sk__audit_call_locked(const struct sk__audit_src *src, const char *name,
			   const char *old_label, const char *new_label,
			   int result)
{
	struct sk__audit_record r = { .call = true, .result = result };

	stamp(&r, src);
	snprintf(r.key, sizeof(r.key), "%s", name);
	snprintf(r.targets, sizeof(r.targets), "%.32s -> %.32s", old_label,
		 new_label);
	ring_add(r);
}

void sk__audit_flush(void)
{
	struct sk__audit_record v[SK__AUDIT_RING];
	size_t n = 0;

	pthread_mutex_lock(&ring_mutex);
	for (uint64_t s = emitted; s < ring_next; s++)
		v[n++] = ring[s % SK__AUDIT_RING];
	emitted = ring_next;
	pthread_mutex_unlock(&ring_mutex);
	for (size_t i = 0; i < n; i++)
		emit(&v[i]);
}

int sk__audit_commit_locked(const struct sk_key_change *changes, size_t n,
			    const struct sk__audit_src *src, size_t nsrc)
{
	bool *old = n ? calloc(n, sizeof(*old)) : NULL;

	if (n && !old)
		return -ENOMEM;
	/* Under the patch lock no other commit can run between these reads
	 * and the commit; only the inc/dec fast path moves counts above 0. */
	for (size_t i = 0; i < n; i++)
		old[i] = sk__key_is_valid(changes[i].key) &&
			 __atomic_load_n(&changes[i].key->enabled,
					 __ATOMIC_ACQUIRE) != 0;
	int r = sk__commit_locked(changes, n);
	for (size_t i = 0; i < n; i++) {
		if (old[i] == changes[i].enable ||
		    !sk__key_is_valid(changes[i].key))
			continue;
		record(nsrc == n ? &src[i] : src, changes[i].key, old[i],
		       changes[i].enable, r);
	}
	free(old);
	return r;
}

size_t sk__audit_read(struct sk__audit_record *out, size_t max)
{
	pthread_mutex_lock(&ring_mutex);
	uint64_t first = ring_next > SK__AUDIT_RING ? ring_next - SK__AUDIT_RING
						    : 0;
	size_t n = 0;
	for (uint64_t s = first; s < ring_next && n < max; s++)
		out[n++] = ring[s % SK__AUDIT_RING];
	pthread_mutex_unlock(&ring_mutex);
	return n;
}
