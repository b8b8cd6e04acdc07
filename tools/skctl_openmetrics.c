/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skctl_openmetrics.c - `skctl stats --openmetrics`: a process's keys and
 * counters in the OpenMetrics text format (which Prometheus also reads),
 * built from the replies to `list` and `stats`:
 *
 *	statickeys_key_enabled{pid,comm,key}   gauge, 1 on / 0 off
 *	statickeys_<counter>_total{pid,comm}   updates, batches, core syncs,
 *	                                       traps, ... (counters)
 *	statickeys_<hist>_seconds{pid,comm}    update latency, lock hold and
 *	                                       lock wait (histograms)
 *
 * With --all every process is one set of samples, labelled by pid and
 * command, inside one family each (the format requires a family to appear
 * once).  The histograms are real ones: cumulative _bucket{le} samples
 * ending with le="+Inf", _sum in seconds, _count.  The runtime's buckets
 * hold durations below their bound; "le" is that bound.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "skctl_openmetrics.h"
#include "skctl_print.h"
#include "skctl_transport.h"

static const struct {
	const char *json, *name, *help;
} counters[] = {
	{ "updates", "updates", "key state changes applied" },
	{ "batches", "batches", "patch batches (one int3 protocol run each)" },
	{ "sites_written", "sites_written", "sites rewritten" },
	{ "text_writes", "text_writes", "writes to code" },
	{ "core_syncs", "core_syncs", "cross-core instruction syncs" },
	{ "traps_handled", "traps_handled",
	  "int3 traps taken by threads running a site being patched" },
	{ "traps_chained", "traps_chained",
	  "SIGTRAPs passed on to the program's own handler" },
	{ "update_errors", "update_errors", "updates that failed" },
};

static const struct {
	const char *json, *help;
} histograms[] = {
	{ "update_latency", "time of an update call, entry to return" },
	{ "lock_hold", "time the patch lock is held" },
	{ "lock_wait", "time spent waiting for the patch lock" },
};

int om_fetch(int fd, struct om_process *p)
{
	char *raw = NULL;

	memset(p, 0, sizeof(*p));
	int r = transact(fd, "list\n", &p->list, &raw);
	/* Who answered, from the credentials the kernel put on the reply. */
	p->pid = r == SKCTL_OK && skctl_server_pid > 0 ? skctl_server_pid : 0;
	proc_comm(p->pid, p->comm, sizeof(p->comm));
	free(raw);
	raw = NULL;
	if (r == SKCTL_OK)
		r = transact(fd, "stats\n", &p->stats, &raw);
	free(raw);
	if (r != SKCTL_OK)
		om_free(p);
	return r;
}

void om_free(struct om_process *p)
{
	json_free(p->list);
	json_free(p->stats);
	p->list = p->stats = NULL;
}

/* A label value: backslash, quote and newline escaped. */
static void label(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			putchar('\\');
		if (*s == '\n')
			fputs("\\n", stdout);
		else
			putchar(*s);
	}
}

static void proc_labels(const struct om_process *p)
{
	printf("pid=\"%d\",comm=\"", p->pid);
	label(p->comm);
	putchar('"');
}

static void print_keys(const struct om_process *v, size_t n)
{
	printf("# TYPE statickeys_key_enabled gauge\n"
	       "# HELP statickeys_key_enabled 1 when the key is on\n");
	for (size_t i = 0; i < n; i++) {
		const struct json *keys = json_get(v[i].list, "keys");
		for (const struct json *k = keys ? keys->child : NULL; k;
		     k = k->next) {
			printf("statickeys_key_enabled{");
			proc_labels(&v[i]);
			printf(",key=\"");
			label(json_str(k, "name", "?"));
			printf("\"} %d\n", json_bool(k, "enabled", false));
		}
	}
}

static void print_counters(const struct om_process *v, size_t n)
{
	for (size_t c = 0; c < sizeof(counters) / sizeof(counters[0]); c++) {
		printf("# TYPE statickeys_%s counter\n"
		       "# HELP statickeys_%s %s\n", counters[c].name,
		       counters[c].name, counters[c].help);
		for (size_t i = 0; i < n; i++) {
			const struct json *s = json_get(v[i].stats, "stats");
			printf("statickeys_%s_total{", counters[c].name);
			proc_labels(&v[i]);
			printf("} %.0f\n", json_num(s, counters[c].json, 0));
		}
	}
}

static void print_histogram(const struct om_process *p, const char *name,
			    const struct json *h)
{
	const struct json *b = json_get(h, "buckets");
	double cumulative = 0;

	for (b = b ? b->child : NULL; b; b = b->next) {
		cumulative += json_num(b, "count", 0);
		const struct json *le = json_get(b, "le_ns");
		printf("statickeys_%s_seconds_bucket{", name);
		proc_labels(p);
		if (le && le->type == JSON_NUMBER)
			printf(",le=\"%g\"} %.0f\n", le->number / 1e9,
			       cumulative);
		else
			printf(",le=\"+Inf\"} %.0f\n", cumulative);
	}
	/* _count is the +Inf bucket, as the format requires, even if a
	 * sample was recorded between the runtime's reads of the two. */
	printf("statickeys_%s_seconds_sum{", name);
	proc_labels(p);
	printf("} %.9f\nstatickeys_%s_seconds_count{", json_num(h, "sum_ns", 0)
	       / 1e9, name);
	proc_labels(p);
	printf("} %.0f\n", cumulative);
}

static void print_histograms(const struct om_process *v, size_t n)
{
	for (size_t k = 0; k < sizeof(histograms) / sizeof(histograms[0]);
	     k++) {
		const char *name = histograms[k].json;
		printf("# TYPE statickeys_%s_seconds histogram\n"
		       "# UNIT statickeys_%s_seconds seconds\n"
		       "# HELP statickeys_%s_seconds %s\n", name, name, name,
		       histograms[k].help);
		for (size_t i = 0; i < n; i++) {
			const struct json *h = json_get(
				json_get(v[i].stats, "histograms"), name);
			if (h)
				print_histogram(&v[i], name, h);
		}
	}
}

void om_print(const struct om_process *v, size_t n)
{
	print_keys(v, n);
	print_counters(v, n);
	print_histograms(v, n);
	printf("# EOF\n");
	fflush(stdout);
}

int run_openmetrics(int fd)
{
	struct om_process p;
	int r = om_fetch(fd, &p);

	if (r == SKCTL_OK) {
		om_print(&p, 1);
		om_free(&p);
	}
	return r;
}
