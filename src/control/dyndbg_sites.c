/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/dyndbg_sites.c - the debug statements of the registered
 * objects, and what a query does to them.
 *
 * A statement's key is listed in its object's "sk_keys" section like any
 * key (statickeys/dyndbg.h), so the registry of objects (core/objects.c)
 * already knows every statement of every loaded object, and forgets a
 * plugin's as it unloads: walking the objects' keys under the patch lock
 * is walking the catalogue, and nothing here keeps a list of its own.  A
 * key is a statement's when its description is SK__DYNDBG_DESC and the
 * descriptor around it carries SK__DYNDBG_MAGIC (compared by content: a
 * plugin built against another copy of the header is still recognised).
 *
 * As each object registers, under the lock, its statements learn their
 * module (the object's file name without folders and extension, as the
 * kernel names a module) and STATICKEYS_DYNDBG is applied to them: before
 * main() for the program and its libraries, before dlopen() returns for a
 * plugin (the kernel's dyndbg= boot and module parameters).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "control/dyndbg.h"
#include "support/message.h"
#include "support/settings.h"

struct sk_dyndbg_site *sk__dd_site_of(struct sk_key *key)
{
	/* The key is the descriptor's first member (C11 6.7.2.1p15). */
	struct sk_dyndbg_site *site = (struct sk_dyndbg_site *)(void *)key;

	if (!key->description || strcmp(key->description, SK__DYNDBG_DESC) != 0)
		return NULL;
	return site->magic == SK__DYNDBG_MAGIC ? site : NULL;
}

/* ---- module names ---------------------------------------------------------- */

/* The names given out, one per distinct module name, kept for the
 * process's life: a descriptor points at its module's name, and a plugin
 * loaded again takes the same one.  Under the patch lock. */
struct module_name {
	struct module_name *next;
	char name[];
};
static struct module_name *module_names;

static const char *module_of(const struct sk__object *obj)
{
	const char *path = sk__object_file(obj), *base = strrchr(path, '/');
	base = base ? base + 1 : path;
#ifdef _WIN32
	const char *bs = strrchr(base, '\\');
	base = bs ? bs + 1 : base;
#endif
	size_t n = strcspn(base, ".");
	for (struct module_name *m = module_names; m; m = m->next)
		if (strlen(m->name) == n && memcmp(m->name, base, n) == 0)
			return m->name;
	struct module_name *m = malloc(sizeof(*m) + n + 1);
	if (!m)
		return NULL;
	memcpy(m->name, base, n);
	m->name[n] = '\0';
	m->next = module_names;
	module_names = m;
	return m->name;
}

/* ---- applying queries ---------------------------------------------------- */

/* A matched statement and the flags the query gives it. */
struct hit {
	struct sk_dyndbg_site *site;
	unsigned old, flags;
};

/* The statements of @only (or of all objects) that @q matches, into @v
 * (when not NULL).  Return: how many. */
static size_t gather(const struct sk__dd_query *q, struct sk__object *only,
		     struct hit *v)
{
	size_t n = 0;

	for (struct sk__object *obj = sk__objects; obj; obj = obj->next) {
		if (only && obj != only)
			continue;
		for (size_t k = 0; k < obj->nkeys; k++) {
			struct sk_dyndbg_site *s = sk__dd_site_of(obj->keys[k]);
			if (!s || !sk__dd_matches(q, s))
				continue;
			if (v) {
				unsigned old = __atomic_load_n(&s->flags,
							       __ATOMIC_RELAXED);
				v[n] = (struct hit){ s, old,
						     (old & q->mask) | q->set };
			}
			n++;
		}
	}
	return n;
}

static void store_flags(struct hit *v, size_t n, bool old)
{
	for (size_t k = 0; k < n; k++)
		__atomic_store_n(&v[k].site->flags, old ? v[k].old : v[k].flags,
				 __ATOMIC_RELAXED);
}

/* One query: one commit of every matched statement's key.  The
 * decorations are stored first, so a statement the commit turns on
 * prints with them; a failed commit puts them back. */
static int apply_one_locked(const struct sk__dd_query *q,
			    struct sk__object *only,
			    const struct sk__audit_src *src)
{
	size_t n = gather(q, only, NULL);
	if (!n)
		return 0;
	struct hit *v = malloc(n * sizeof(*v));
	struct sk_key_change *c = malloc(n * sizeof(*c));
	int r = -ENOMEM;
	if (!v || !c)
		goto out;
	n = gather(q, only, v);
	for (size_t k = 0; k < n; k++)
		c[k] = (struct sk_key_change){ &v[k].site->key.key,
					       (v[k].flags & SK_DYNDBG_PRINT) != 0 };
	store_flags(v, n, false);
	r = src ? sk__audit_commit_locked(c, n, src, 1)
		: sk__commit_locked(c, n);
	if (r)
		store_flags(v, n, true);
out:
	free(v);
	free(c);
	return r ? r : (int)n;
}

int sk__dd_apply_locked(const struct sk__dd_queries *qs,
			struct sk__object *only,
			const struct sk__audit_src *src)
{
	long total = 0;

	for (size_t k = 0; k < qs->n; k++) {
		int r = apply_one_locked(&qs->v[k], only, src);
		if (r < 0)
			return r;
		total += r;
	}
	return total > 0x7fffffff ? 0x7fffffff : (int)total;
}

int sk__dd_query_from(const char *text, const struct sk__audit_src *src,
		      char *err, size_t errlen)
{
	struct sk__dd_queries qs;
	int r;

	if (!text)
		return -EINVAL;
	r = sk__dd_parse(text, "sk_dyndbg_query", &qs, err, errlen);
	if (r)
		return r;
	r = sk__lock();
	if (r == 0) {
		r = sk__dd_apply_locked(&qs, NULL, src);
		sk__unlock();
	}
	sk__dd_free(&qs);
	if (src)
		sk__audit_flush();
	return r;
}

SK_API int sk_dyndbg_query(const char *query)
{
	return sk__dd_query_from(query, NULL, NULL, 0);
}

/* ---- objects as they register ------------------------------------------------ */

static struct sk__dd_queries startup;
static void (*next_hook)(struct sk__object *obj);

static void object_added(struct sk__object *obj)
{
	const char *module = NULL;
	size_t nsites = 0;

	for (size_t k = 0; k < obj->nkeys; k++) {
		struct sk_dyndbg_site *s = sk__dd_site_of(obj->keys[k]);
		if (!s)
			continue;
		if (!nsites++)
			module = module_of(obj);
		__atomic_store_n(&s->module, module, __ATOMIC_RELEASE);
	}
	if (next_hook)
		next_hook(obj);
	if (!nsites || !startup.n)
		return;
	static const struct sk__audit_src env = { .kind = SK__AUDIT_ENV };
	int r = sk__dd_apply_locked(&startup, obj, &env);
	sk__audit_flush();
	if (r < 0)
		sk__warn("STATICKEYS_DYNDBG: could not apply to %s's debug "
			 "statements (%s)", sk__object_file(obj),
			 sk__strerror(-r));
}

void sk__dd_init(void)
{
	const char *text = sk__getenv("STATICKEYS_DYNDBG");

	/* Parsed once; a text that does not parse is warned about and
	 * ignored whole, as sk_dyndbg_query() refuses it. */
	if (text && *text && sk__dd_parse(text, "STATICKEYS_DYNDBG", &startup, NULL, 0))
		memset(&startup, 0, sizeof(startup));
	next_hook = sk__object_added_hook;
	sk__object_added_hook = object_added;
}
