/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skctl_print.c - tables for people.  `skctl --json` skips all of this and
 * prints the server's replies as they are.
 */
#include <stdio.h>
#include <string.h>

#include "os/os.h"
#include "skctl_print.h"
#include "skctl_transport.h"

static const char *on_off(bool on)
{
	return on ? "on" : "off";
}

static int name_width(const struct json *keys)
{
	int w = 4;

	for (const struct json *k = keys ? keys->child : NULL; k; k = k->next) {
		int n = (int)strlen(json_str(k, "name", ""));
		if (n > w)
			w = n;
	}
	return w;
}

void proc_comm(int pid, char *out, size_t len)
{
	if (sk__os_process_name(pid, out, len) < 0)
		snprintf(out, len, "?");
	/* Shown inside JSON and OpenMetrics quotes: nothing to escape. */
	for (char *c = out; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == '"' || *c == '\\')
			*c = '?';
}

void print_list(const struct json *reply)
{
	const struct json *keys = json_get(reply, "keys");
	int w = name_width(keys);

	printf("%-*s  %-5s %-7s %5s %5s %7s  %s\n", w, "NAME", "STATE",
	       "DEFAULT", "COUNT", "SITES", "OBJECTS", "DESCRIPTION");
	for (const struct json *k = keys ? keys->child : NULL; k; k = k->next)
		printf("%-*s  %-5s %-7s %5.0f %5.0f %7.0f  %s\n", w,
		       json_str(k, "name", "?"),
		       on_off(json_bool(k, "enabled", false)),
		       on_off(json_bool(k, "initial", false)),
		       json_num(k, "count", 0), json_num(k, "sites", 0),
		       json_num(k, "objects", 0),
		       json_str(k, "description", ""));
}

void print_key(const struct json *k)
{
	printf("name:        %s\n", json_str(k, "name", "?"));
	printf("identifier:  %s\n", json_str(k, "identifier", "?"));
	printf("description: %s\n", json_str(k, "description", ""));
	printf("state:       %s\n", on_off(json_bool(k, "enabled", false)));
	printf("default:     %s\n", on_off(json_bool(k, "initial", false)));
	printf("count:       %.0f\n", json_num(k, "count", 0));
	printf("sites:       %.0f in %.0f object(s)\n", json_num(k, "sites", 0),
	       json_num(k, "objects", 0));
	printf("defined in:  %s\n", json_str(k, "object", ""));
}

void print_changed(const struct json *reply)
{
	const struct json *v = json_get(reply, "changed");

	for (const struct json *c = v ? v->child : NULL; c; c = c->next)
		printf("%s: %s\n", json_str(c, "name", "?"),
		       on_off(json_bool(c, "enabled", false)));
}

/* A static call's call sites: "DIRECT TRAMP WHY".  Where the defining
 * object's relocations were not read, its calls of the trampoline were
 * not counted: "?". */
static void print_sites(const struct json *sites)
{
	const char *why = json_str(sites, "why", "unknown");
	char tramp[32] = "?";

	if (!strcmp(why, "found"))
		snprintf(tramp, sizeof(tramp), "%.0f",
			 json_num(sites, "trampoline", 0));
	printf("%6.0f %6s %-12s ", json_num(sites, "direct", 0), tramp, why);
}

void print_calls(const struct json *reply)
{
	const struct json *calls = json_get(reply, "calls");
	int w = name_width(calls);

	printf("%-*s  %-28s %-12s %6s %6s %-12s %s\n", w, "NAME", "TARGET",
	       "LABEL", "DIRECT", "TRAMP", "WHY", "TARGETS");
	for (const struct json *c = calls ? calls->child : NULL; c;
	     c = c->next) {
		const struct json *t = json_get(c, "targets");
		const char *target = json_str(c, "target", NULL);
		printf("%-*s  %-28s %-12s ", w, json_str(c, "name", "?"),
		       target ? target : json_str(c, "address", "(none)"),
		       json_str(c, "label", "-"));
		print_sites(json_get(c, "sites"));
		int n = 0;
		for (t = t ? t->child : NULL; t; t = t->next)
			printf("%s%s", n++ ? "," : "",
			       t->type == JSON_STRING ? t->string : "?");
		printf("%s\n", n ? "" : "-");
	}
}

void print_call_changed(const struct json *reply)
{
	const struct json *v = json_get(reply, "changed");

	for (const struct json *c = v ? v->child : NULL; c; c = c->next)
		printf("%s: %s\n", json_str(c, "call", "?"),
		       json_str(c, "target", "?"));
}

static const char *const counter_names[] = {
	"updates",	 "batches",	  "sites_written", "text_writes",
	"core_syncs",	 "traps_handled", "traps_chained", "update_errors",
};
#define NCOUNTERS (sizeof(counter_names) / sizeof(counter_names[0]))

static void print_bound(double le_ns)
{
	if (le_ns < 1e6)
		printf("%6.0f us", le_ns / 1e3);
	else
		printf("%6.0f ms", le_ns / 1e6);
}

static void print_histogram(const struct json *h)
{
	double count = json_num(h, "count", 0);

	printf("%s: %.0f recorded", h->key, count);
	if (count > 0)
		printf(", mean %.1f us, max %.1f us",
		       json_num(h, "sum_ns", 0) / count / 1e3,
		       json_num(h, "max_ns", 0) / 1e3);
	printf("\n");
	const struct json *b = json_get(h, "buckets");
	for (b = b ? b->child : NULL; b; b = b->next) {
		double n = json_num(b, "count", 0);
		const struct json *le = json_get(b, "le_ns");
		if (n == 0)
			continue;
		printf("  < ");
		if (le && le->type == JSON_NUMBER)
			print_bound(le->number);
		else
			printf("  longer ");
		printf("  %10.0f\n", n);
	}
}

void print_stats(const struct json *reply)
{
	const struct json *s = json_get(reply, "stats");

	printf("backend:       %s\n", json_str(s, "backend", "?"));
	printf("writer:        %s\n", json_str(s, "writer", "?"));
	printf("sync method:   %s\n", json_str(s, "sync_method", "?"));
	for (size_t i = 0; i < NCOUNTERS; i++)
		printf("%-14s %.0f\n", counter_names[i],
		       json_num(s, counter_names[i], 0));
	const struct json *h = json_get(reply, "histograms");
	for (h = h ? h->child : NULL; h; h = h->next)
		print_histogram(h);
}

void print_watch(const struct json *list, const struct json *stats,
		 const struct json *prev_stats, int round)
{
	const struct json *s = json_get(stats, "stats");
	const struct json *p = json_get(prev_stats, "stats");
	const struct json *keys = json_get(list, "keys");

	printf("-- %d --", round);
	for (const struct json *k = keys ? keys->child : NULL; k; k = k->next)
		printf(" %s=%s", json_str(k, "name", "?"),
		       on_off(json_bool(k, "enabled", false)));
	printf("\n  ");
	for (size_t i = 0; i < NCOUNTERS; i++) {
		double now = json_num(s, counter_names[i], 0);
		double before = p ? json_num(p, counter_names[i], 0) : now;
		printf("%s %.0f (+%.0f)%s", counter_names[i], now, now - before,
		       i + 1 < NCOUNTERS ? ", " : "\n");
	}
	fflush(stdout);
}

/* `skctl log`: one line per change, oldest first. */
void print_log(const struct json *reply)
{
	const struct json *v = json_get(reply, "log");

	for (const struct json *e = v ? v->child : NULL; e; e = e->next) {
		int err = (int)json_num(e, "errno", 0);
		const char *call = json_str(e, "static_call", NULL);
		if (call) { /* a static call switched between its targets */
			printf("%s %s: static call %s %s: %s\n",
			       json_str(e, "time", "?"), json_str(e, "source", "?"),
			       call, json_str(e, "targets", "?"),
			       err ? strerror(err) : "ok");
			continue;
		}
		printf("%s %s: %s %.0f -> %.0f: %s\n", json_str(e, "time", "?"),
		       json_str(e, "source", "?"), json_str(e, "key", "?"),
		       json_num(e, "old", 0), json_num(e, "new", 0),
		       err ? strerror(err) : "ok");
	}
}

/* `skctl unmatched`: one "FILE:LINE: NAME" per line naming no key, as the
 * program's warning names it; a program without STATICKEYS_FILE says so
 * (on stderr: the standard output stays a list, empty). */
void print_unmatched(const struct json *reply)
{
	const struct json *v = json_get(reply, "unmatched");

	if (!json_str(reply, "file", NULL))
		fprintf(stderr, "%s: the program follows no STATICKEYS_FILE\n",
			skctl_who);
	for (const struct json *e = v ? v->child : NULL; e; e = e->next)
		printf("%s:%.0f: %s\n", json_str(e, "file", "?"),
		       json_num(e, "line", 0), json_str(e, "name", "?"));
}
