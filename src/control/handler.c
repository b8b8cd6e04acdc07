/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/handler.c - carrying out one control request.
 *
 * A request that changes keys resolves its names and commits the changes
 * under one hold of the patch lock: between looking a name up and flipping
 * its key, no object can be dlclose'd and no key can disappear.  Everything
 * else (formatting JSON, talking to the socket) happens without the lock.
 * A request naming an unknown or ambiguous key changes nothing.
 *
 * Once the program is exiting its destructors unregister keys, so a name
 * that is not found may have been there a moment ago: a request that
 * arrives then, or fails then, is answered "exiting" (ESHUTDOWN) instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/control.h"
#include "statickeys/registry.h"
#include "statickeys/stats.h"
#include "support/stats.h"

static const char help_text[] =
	"list | get NAME | enable NAME... | disable NAME... | "
	"set NAME=VALUE... | stats | log | unmatched | calls | "
	"call NAME=LABEL | debug [QUERY] | help";

static void reply_error(struct sk__json *j, int err, const char *msg)
{
	sk__json_reset(j);
	sk__json_raw(j, "{\"ok\":false,\"errno\":");
	sk__json_printf(j, "%d,\"error\":", err);
	sk__json_str(j, msg, strlen(msg));
	sk__json_raw(j, "}\n");
}

static void key_json(struct sk__json *j, const struct sk_key_info *k)
{
	sk__json_raw(j, "{\"name\":");
	sk__json_str(j, k->name, strlen(k->name));
	sk__json_raw(j, ",\"identifier\":");
	sk__json_str(j, k->identifier, strlen(k->identifier));
	sk__json_raw(j, ",\"description\":");
	sk__json_str(j, k->description, strlen(k->description));
	sk__json_raw(j, ",\"object\":");
	sk__json_str(j, k->object, strlen(k->object));
	sk__json_printf(j, ",\"enabled\":%s,\"initial\":%s,\"count\":%d,"
			   "\"sites\":%zu,\"objects\":%zu}",
			k->enabled ? "true" : "false",
			k->initial ? "true" : "false", k->count, k->nsites,
			k->nobjects);
}

static void do_list(struct sk__json *j)
{
	struct sk_key_info *v;
	size_t n;
	int r = sk_keys_snapshot(&v, &n);

	if (r) {
		reply_error(j, -r, "could not read the keys");
		return;
	}
	sk__json_raw(j, "{\"ok\":true,\"keys\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			sk__json_raw(j, ",");
		key_json(j, &v[i]);
	}
	sk__json_raw(j, "]}\n");
	sk_keys_snapshot_free(v);
}

static void do_get(struct sk__json *j, const struct sk__arg *a)
{
	char name[SK__MAX_NAME + 1];
	struct sk_key_info info, *storage;

	memcpy(name, a->name, a->len);
	name[a->len] = '\0';
	int r = sk_key_info_get(name, &info, &storage);
	if (r) {
		char msg[SK__MAX_NAME + 96];
		snprintf(msg, sizeof(msg), r == -EEXIST
			 ? "several objects define a key named '%s'; qualify "
			   "it as FILE:NAME"
			 : "no key named '%s'", name);
		reply_error(j, -r, msg);
		return;
	}
	sk__json_raw(j, "{\"ok\":true,\"key\":");
	key_json(j, &info);
	sk__json_raw(j, "}\n");
	sk_keys_snapshot_free(storage);
}

/* Resolve every name of @req against @v into @changes.
 * Return: 0, or -ENOENT / -EEXIST with the offending argument in *@bad. */
static int resolve(const struct sk__request *req, const struct sk_key_info *v,
		   size_t n, struct sk_key_change *changes, size_t *bad)
{
	char name[SK__MAX_NAME + 1];

	for (size_t i = 0; i < req->nargs; i++) {
		memcpy(name, req->args[i].name, req->args[i].len);
		name[req->args[i].len] = '\0';
		long k = sk__keys_lookup(v, n, name);
		if (k < 0) {
			*bad = i;
			return (int)k;
		}
		changes[i] = (struct sk_key_change){ v[k].key, req->args[i].on };
	}
	return 0;
}

/* Under the lock: look the names up and commit.  *@bad as resolve(). */
static int commit_names(const struct sk__request *req, size_t *bad)
{
	struct sk_key_change changes[SK__MAX_ARGS];
	struct sk_key_info *v = NULL;
	size_t n;
	uint64_t t0 = sk__now_ns();

	int r = sk__lock_update(t0);
	if (r)
		return r;
	r = sk__keys_snapshot_locked(&v, &n);
	if (r == 0)
		r = resolve(req, v, n, changes, bad);
	if (r == 0)
		r = sk__audit_commit_locked(changes, req->nargs,
					    sk__audit_peer(), 1);
	sk__unlock_update(t0);
	sk__audit_flush();
	free(v);
	return r;
}

static void change_error(struct sk__json *j, const struct sk__request *req,
			 int r, size_t bad)
{
	char msg[SK__MAX_NAME + 160];
	const struct sk__arg *a = &req->args[bad];

	if (r == -ENOENT || r == -EEXIST)
		snprintf(msg, sizeof(msg), "%s '%.*s'; nothing changed",
			 r == -ENOENT ? "no key named"
				      : "ambiguous (qualify as FILE:NAME):",
			 (int)a->len, a->name);
	else if (r == -EBUSY)
		snprintf(msg, sizeof(msg), "a key to disable holds several "
			 "references (sk_key_inc); nothing changed");
	else if (r == -EINVAL)
		snprintf(msg, sizeof(msg), "a key is named twice with different "
			 "states; nothing changed");
	else
		snprintf(msg, sizeof(msg), "update failed (%s); nothing changed",
			 strerror(-r));
	reply_error(j, -r, msg);
}

static void do_change(struct sk__json *j, const struct sk__request *req)
{
	size_t bad = 0;
	int r = commit_names(req, &bad);

	if (r) {
		change_error(j, req, r, bad);
		return;
	}
	sk__json_raw(j, "{\"ok\":true,\"changed\":[");
	for (size_t i = 0; i < req->nargs; i++) {
		sk__json_raw(j, i ? ",{\"name\":" : "{\"name\":");
		sk__json_str(j, req->args[i].name, req->args[i].len);
		sk__json_printf(j, ",\"enabled\":%s}",
				req->args[i].on ? "true" : "false");
	}
	sk__json_raw(j, "]}\n");
}

static void histogram_json(struct sk__json *j, int which)
{
	struct sk_histogram h;

	sk_stats_histogram(which, &h);
	sk__json_printf(j, "\"%s\":{\"count\":%llu,\"sum_ns\":%llu,"
			   "\"max_ns\":%llu,\"buckets\":[",
			sk_hist_name(which), (unsigned long long)h.count,
			(unsigned long long)h.sum_ns,
			(unsigned long long)h.max_ns);
	for (int b = 0; b < SK_HIST_BUCKETS; b++) {
		uint64_t le = sk_hist_bucket_bound_ns(b);
		if (b == SK_HIST_BUCKETS - 1)
			sk__json_raw(j, ",{\"le_ns\":null");
		else
			sk__json_printf(j, "%s{\"le_ns\":%llu", b ? "," : "",
					(unsigned long long)le);
		sk__json_printf(j, ",\"count\":%llu}",
				(unsigned long long)h.buckets[b]);
	}
	sk__json_raw(j, "]}");
}

static void do_stats(struct sk__json *j)
{
	struct sk_stats s;

	sk_stats_get(&s);
	sk__json_printf(j, "{\"ok\":true,\"stats\":{\"updates\":%llu,"
			   "\"batches\":%llu,\"sites_written\":%llu,"
			   "\"text_writes\":%llu,\"core_syncs\":%llu,"
			   "\"traps_handled\":%llu,\"traps_chained\":%llu,"
			   "\"update_errors\":%llu,",
			(unsigned long long)s.updates,
			(unsigned long long)s.batches,
			(unsigned long long)s.sites_written,
			(unsigned long long)s.text_writes,
			(unsigned long long)s.core_syncs,
			(unsigned long long)s.traps_handled,
			(unsigned long long)s.traps_chained,
			(unsigned long long)s.update_errors);
	sk__json_raw(j, "\"writer\":");
	sk__json_str(j, s.writer ? s.writer : "none",
		     strlen(s.writer ? s.writer : "none"));
	sk__json_raw(j, ",\"sync_method\":");
	sk__json_str(j, s.sync_method ? s.sync_method : "none",
		     strlen(s.sync_method ? s.sync_method : "none"));
	sk__json_raw(j, ",\"backend\":");
	sk__json_str(j, s.backend, strlen(s.backend));
	sk__json_raw(j, "},\"histograms\":{");
	for (int h = 0; h < SK_HIST_COUNT; h++) {
		if (h)
			sk__json_raw(j, ",");
		histogram_json(j, h);
	}
	sk__json_raw(j, "}}\n");
}

static int exiting; /* set by the server's atexit handler; read by any thread */

void sk__control_set_exiting(void)
{
	__atomic_store_n(&exiting, 1, __ATOMIC_RELEASE);
}

bool sk__control_exiting(void)
{
	return __atomic_load_n(&exiting, __ATOMIC_ACQUIRE);
}

static const char exiting_text[] =
	"the program is exiting; nothing changed";

/* A refusal that the program's exit may explain is reported as exiting. */
static void exiting_check(struct sk__json *reply)
{
	static const char refused[] = "{\"ok\":false";

	if (sk__control_exiting() && (!reply->len ||
	    strncmp(reply->buf, refused, sizeof(refused) - 1) == 0))
		reply_error(reply, ESHUTDOWN, exiting_text);
}

/* The audit ring (audit.c), oldest change first. */
static void do_log(struct sk__json *j)
{
	struct sk__audit_record v[SK__AUDIT_RING]; /* 22 KiB of stack */
	char when[40];
	size_t n = sk__audit_read(v, SK__AUDIT_RING);

	sk__json_raw(j, "{\"ok\":true,\"log\":[");
	for (size_t i = 0; i < n; i++) {
		sk__audit_format_time(v[i].time_ns, when, sizeof(when));
		sk__json_printf(j, "%s{\"seq\":%llu,\"time\":\"%s\",",
				i ? "," : "", (unsigned long long)v[i].seq, when);
		sk__json_raw(j, "\"source\":");
		sk__json_str(j, v[i].source, strlen(v[i].source));
		if (v[i].call) { /* a static call: its labelled targets */
			sk__json_raw(j, ",\"static_call\":");
			sk__json_str(j, v[i].key, strlen(v[i].key));
			sk__json_raw(j, ",\"targets\":");
			sk__json_str(j, v[i].targets, strlen(v[i].targets));
			sk__json_printf(j, ",\"errno\":%d}", -v[i].result);
			continue;
		}
		sk__json_raw(j, ",\"key\":");
		sk__json_str(j, v[i].key, strlen(v[i].key));
		sk__json_printf(j, ",\"old\":%d,\"new\":%d,\"errno\":%d}",
				v[i].old_on, v[i].new_on, -v[i].result);
	}
	sk__json_raw(j, "]}\n");
}

/* The lines of STATICKEYS_FILE's version in force that name no key:
 * {"ok":true,"file":PATH or null,"unmatched":[{"file","line","name"}...]} */
static void do_unmatched(struct sk__json *j)
{
	const char *path;
	struct sk__conf *c;
	int r = sk__config_unmatched(&path, &c);

	if (r) {
		reply_error(j, -r, "could not read the keys");
		return;
	}
	sk__json_raw(j, "{\"ok\":true,\"file\":");
	if (path)
		sk__json_str(j, path, strlen(path));
	else
		sk__json_raw(j, "null");
	sk__json_raw(j, ",\"unmatched\":[");
	for (size_t i = 0; c && i < c->n; i++) {
		const struct sk__conf_entry *e = &c->v[i];
		sk__json_raw(j, i ? ",{\"file\":" : "{\"file\":");
		sk__json_str(j, c->files[e->file], strlen(c->files[e->file]));
		sk__json_printf(j, ",\"line\":%u,\"name\":", e->line);
		sk__json_str(j, e->name, strlen(e->name));
		sk__json_raw(j, "}");
	}
	sk__json_raw(j, "]}\n");
	free(c);
}

void sk__control_handle(const char *line, size_t len, struct sk__json *reply)
{
	struct sk__request *req;
	char err[160];

	sk__json_reset(reply);
	if (sk__control_exiting()) {
		reply_error(reply, ESHUTDOWN, exiting_text);
		return;
	}
	req = malloc(sizeof(*req));
	if (!req) {
		reply_error(reply, ENOMEM, "out of memory");
		return;
	}
	if (sk__request_parse(line, len, req, err, sizeof(err)) != 0) {
		reply_error(reply, EINVAL, err);
	} else if (req->op == SK__OP_LIST) {
		do_list(reply);
	} else if (req->op == SK__OP_GET) {
		do_get(reply, &req->args[0]);
	} else if (req->op == SK__OP_STATS) {
		do_stats(reply);
	} else if (req->op == SK__OP_LOG) {
		do_log(reply);
	} else if (req->op == SK__OP_UNMATCHED) {
		do_unmatched(reply);
	} else if (req->op == SK__OP_CALLS) {
		sk__control_calls_list(reply);
	} else if (req->op == SK__OP_DEBUG) {
		sk__control_debug(reply, req);
	} else if (req->op == SK__OP_CALL) {
		sk__control_call_switch(reply, req);
	} else if (req->op == SK__OP_HELP) {
		sk__json_raw(reply, "{\"ok\":true,\"requests\":");
		sk__json_str(reply, help_text, strlen(help_text));
		sk__json_raw(reply, "}\n");
	} else if (req->op != SK__OP_BLANK) {
		do_change(reply, req);
	}
	free(req);
	if (reply->overflow)
		reply_error(reply, E2BIG, "reply larger than the server's limit");
	if (reply->len)
		exiting_check(reply);
}
