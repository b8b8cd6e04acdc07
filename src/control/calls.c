/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/calls.c - static calls on the control socket: `calls` lists
 * each one with its current target (the function's symbol, C++ and Rust
 * names shown as paths, and its label
 * when the program named it with SK_STATIC_CALL_TARGET) and the labels it
 * may be switched to; `call NAME=LABEL` switches it, only to a target the
 * program named for it, and the audit records the switch (from which label
 * to which, by whom).  Each also says how many of its call sites are
 * direct calls and how many go through the trampoline, and why
 * (sk_static_call_sites_of()).
 *
 * A target's symbol is read from its object's file (os/os.h,
 * sk__os_symbol_of), which needs the object's path and load address
 * (sk__os_image_of, which may take the dynamic linker's lock: never under
 * the patch lock) and the library's one file descriptor place (under the
 * patch lock).  So a listing takes three steps: copy the static calls under
 * the lock, find their targets' objects without it, name the symbols under
 * it again (a target that changed meanwhile is shown unnamed).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/control.h"
#include "support/stats.h"

#define LABELS_MAX 16

struct call_row {
	char name[SK__MAX_NAME + 1];
	const struct sk_static_call_key *key;
	void *func;
	char label[SK__MAX_NAME + 1];   /* the current target's, or "" */
	char labels[LABELS_MAX][SK__MAX_NAME + 1];
	size_t nlabels;
	char path[512];                 /* the target's object */
	uintptr_t bias;
	char symbol[128];               /* "" if unknown */
	struct sk_static_call_sites sites;
};

/* enum sk_call_sites_why as the word `calls` shows. */
static const char *why_word(int why)
{
	static const char *const words[] = {
		[SK_CALL_SITES_FOUND] = "found",
		[SK_CALL_SITES_NO_RELOCS] = "no_relocs",
		[SK_CALL_SITES_STRIPPED] = "stripped",
		[SK_CALL_SITES_UNREADABLE] = "unreadable",
		[SK_CALL_SITES_NOT_PATCHED] = "not_patched",
		[SK_CALL_SITES_PENDING] = "pending",
	};

	return why >= 0 && why < (int)(sizeof(words) / sizeof(words[0]))
		       ? words[why]
		       : "unknown";
}

static void copy_str(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

/* Step 1, under the lock. */
static size_t collect(struct call_row **out)
{
	size_t n = 0, cap = 0;
	struct call_row *v = NULL;
	void *cursor = NULL;
	struct sk_static_call_key *k;

	while ((k = sk__calls_next_locked(&cursor)) != NULL) {
		if (n == cap) {
			size_t c = cap ? 2 * cap : 8;
			struct call_row *nv = realloc(v, c * sizeof(*v));
			if (!nv)
				break;
			v = nv;
			cap = c;
		}
		struct call_row *r = &v[n++];
		memset(r, 0, sizeof(*r));
		copy_str(r->name, sizeof(r->name), k->name);
		r->key = k;
		r->func = __atomic_load_n(&k->func, __ATOMIC_RELAXED);
		(void)sk__calls_sites_locked(k, &r->sites);
		for (const struct sk_static_call_target *t =
			     sk__calls_targets_locked();
		     t; t = t->next) {
			if (t->call != k)
				continue;
			if (t->func == r->func)
				copy_str(r->label, sizeof(r->label), t->label);
			if (r->nlabels < LABELS_MAX)
				copy_str(r->labels[r->nlabels++],
					 sizeof(r->labels[0]), t->label);
		}
	}
	*out = v;
	return n;
}

/* "_ZN3app4mainE..." as "app::main", for people: the nested names of
 * Itanium C++ mangling and Rust's legacy one (whose last component, a
 * hash "h" + 16 hex digits, is dropped); anything else as it is. */
static void demangle_simple(const char *in, char *out, size_t len)
{
	const char *p = in + 3;
	size_t o = 0;

	if (strncmp(in, "_ZN", 3) != 0 || len == 0)
		goto as_is;
	out[0] = '\0';
	while (*p >= '1' && *p <= '9') {
		char *end;
		unsigned long n = strtoul(p, &end, 10);
		if (n == 0 || strnlen(end, n) < n)
			goto as_is;
		bool hash = n == 17 && end[0] == 'h' && end[n] == 'E' &&
			    strspn(end + 1, "0123456789abcdef") >= 16;
		if (!hash) {
			int w = snprintf(out + o, len - o, "%s%.*s",
					 o ? "::" : "", (int)n, end);
			if (w < 0 || (size_t)w >= len - o)
				goto as_is;
			o += (size_t)w;
		}
		p = end + n;
	}
	if (*p == 'E' && o)
		return;
as_is:
	snprintf(out, len, "%s", in);
}

static void name_targets(struct call_row *v, size_t n)
{
	/* Step 2, without the lock: where each target lives. */
	for (size_t i = 0; i < n; i++) {
		struct sk__image img;
		if (!v[i].func ||
		    v[i].func == (void *)&sk_static_call_return0) {
			copy_str(v[i].symbol, sizeof(v[i].symbol),
				 v[i].func ? "sk_static_call_return0" : "");
			continue;
		}
		sk__os_image_of(v[i].func, &img);
		copy_str(v[i].path, sizeof(v[i].path), img.path);
		v[i].bias = img.bias;
	}
	/* Step 3, under the lock: the symbols, from the objects' files. */
	if (sk__lock() != 0)
		return;
	sk__os_fdslot_lend();
	for (size_t i = 0; i < n; i++) {
		uint64_t off = 0;
		if (v[i].symbol[0] || !v[i].func ||
		    __atomic_load_n(&v[i].key->func, __ATOMIC_RELAXED) !=
			    v[i].func)
			continue;
		char sym[sizeof(v[i].symbol)];
		if (sk__os_symbol_of(v[i].path,
				     (uintptr_t)v[i].func - v[i].bias, sym,
				     sizeof(sym), &off) &&
		    off == 0)
			demangle_simple(sym, v[i].symbol, sizeof(v[i].symbol));
	}
	sk__os_fdslot_return();
	sk__unlock();
}

static void str_or_null(struct sk__json *j, const char *s)
{
	if (s[0])
		sk__json_str(j, s, strlen(s));
	else
		sk__json_raw(j, "null");
}

void sk__control_calls_list(struct sk__json *j)
{
	struct call_row *v = NULL;
	size_t n;

	if (sk__lock() != 0) {
		sk__json_raw(j, "{\"ok\":false,\"errno\":11,\"error\":"
				"\"the patch lock could not be taken\"}\n");
		return;
	}
	n = collect(&v);
	sk__unlock();
	name_targets(v, n);
	sk__json_raw(j, "{\"ok\":true,\"calls\":[");
	for (size_t i = 0; i < n; i++) {
		char addr[32];
		snprintf(addr, sizeof(addr), "%p", v[i].func);
		sk__json_raw(j, i ? ",{\"name\":" : "{\"name\":");
		sk__json_str(j, v[i].name, strlen(v[i].name));
		sk__json_raw(j, ",\"target\":");
		str_or_null(j, v[i].symbol);
		sk__json_raw(j, ",\"address\":");
		str_or_null(j, v[i].func ? addr : "");
		sk__json_raw(j, ",\"label\":");
		str_or_null(j, v[i].label);
		sk__json_raw(j, ",\"targets\":[");
		for (size_t t = 0; t < v[i].nlabels; t++) {
			if (t)
				sk__json_raw(j, ",");
			sk__json_str(j, v[i].labels[t], strlen(v[i].labels[t]));
		}
		sk__json_printf(j, "],\"sites\":{\"direct\":%lu,"
				"\"trampoline\":%lu,\"why\":\"%s\"}}",
				v[i].sites.direct, v[i].sites.trampoline,
				why_word(v[i].sites.why));
	}
	sk__json_raw(j, "]}\n");
	free(v);
}

/* Under the lock: the call @a names and the target its label names. */
static int switch_locked(const struct sk__arg *a, char *msg, size_t len)
{
	struct sk_static_call_key *k;
	int r = sk__calls_find_locked(a->name, a->len, &k);

	if (r) {
		snprintf(msg, len, r == -ENOENT
			 ? "no static call named '%.*s'; nothing changed"
			 : "several objects define a static call named "
			   "'%.*s'; nothing changed",
			 (int)a->len, a->name);
		return r;
	}
	/* The label of the target it has now, for the audit. */
	const char *was = "?";
	void *now = __atomic_load_n(&k->func, __ATOMIC_RELAXED);
	for (const struct sk_static_call_target *t = sk__calls_targets_locked();
	     t; t = t->next)
		if (t->call == k && t->func == now)
			was = t->label;
	for (const struct sk_static_call_target *t = sk__calls_targets_locked();
	     t; t = t->next) {
		if (t->call != k || strlen(t->label) != a->vlen ||
		    memcmp(t->label, a->value, a->vlen) != 0)
			continue;
		r = sk__calls_update_locked(k, t->func);
		sk__audit_call_locked(sk__audit_peer(), k->name, was, t->label,
				      r);
		if (r)
			snprintf(msg, len, "update failed (%s); nothing "
				 "changed", strerror(-r));
		return r;
	}
	snprintf(msg, len, "static call '%.*s' has no target labelled "
		 "'%.*s' (the program names its targets with "
		 "SK_STATIC_CALL_TARGET); nothing changed",
		 (int)a->len, a->name, (int)a->vlen, a->value);
	return -ENOENT;
}

void sk__control_call_switch(struct sk__json *j, const struct sk__request *req)
{
	char msg[3 * SK__MAX_NAME];
	const struct sk__arg *a = &req->args[0];
	uint64_t t0 = sk__now_ns();
	int r = sk__lock_update(t0);

	if (r == 0) {
		r = switch_locked(a, msg, sizeof(msg));
		sk__unlock_update(t0);
		sk__audit_flush();
	} else {
		snprintf(msg, sizeof(msg), "the patch lock could not be taken");
	}
	if (r) {
		sk__json_raw(j, "{\"ok\":false,\"errno\":");
		sk__json_printf(j, "%d,\"error\":", -r);
		sk__json_str(j, msg, strlen(msg));
		sk__json_raw(j, "}\n");
		return;
	}
	sk__json_raw(j, "{\"ok\":true,\"changed\":[{\"call\":");
	sk__json_str(j, a->name, a->len);
	sk__json_raw(j, ",\"target\":");
	sk__json_str(j, a->value, a->vlen);
	sk__json_raw(j, "}]}\n");
}
