/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/names.c - key names, look-up and snapshots (statickeys/registry.h).
 *
 * Keys are found through the "sk_keys" section of every registered object.
 * A snapshot copies what it needs (names, descriptions, file names, counts)
 * while holding the patch lock, and everything else happens on the copy: the
 * caller may print it, send it down a socket or flip keys without holding
 * the lock, and an object that is dlclose'd meanwhile takes nothing of the
 * snapshot with it.
 *
 * Unique names are computed on the copy.  A key whose identifier is defined
 * by one object only is named by its identifier; otherwise every key of that
 * identifier is named "FILE:identifier", with the base name of its object's
 * file, or the full path when the base names collide too.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control/control.h"
#include "statickeys/registry.h"

static char program_file[PATH_MAX];
static pthread_once_t program_file_once = PTHREAD_ONCE_INIT;

static void read_program_file(void)
{
	if (sk__os_program_path(program_file, sizeof(program_file)) <= 0)
		strcpy(program_file, "program");
}

const char *sk__object_file(const struct sk__object *obj)
{
	if (obj->path && *obj->path)
		return obj->path;
	pthread_once(&program_file_once, read_program_file);
	return program_file;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

bool sk__name_matches(const struct sk__object *obj, const struct sk_key *key,
		      const char *name, size_t len)
{
	size_t idlen = strlen(key->name);

	if (len == idlen)
		return memcmp(name, key->name, len) == 0;
	if (len <= idlen + 1 || name[len - idlen - 1] != ':' ||
	    memcmp(name + len - idlen, key->name, idlen) != 0)
		return false;
	size_t flen = len - idlen - 1;
	const char *file = sk__object_file(obj);
	const char *base = base_name(file);
	return (strlen(file) == flen && memcmp(file, name, flen) == 0) ||
	       (strlen(base) == flen && memcmp(base, name, flen) == 0);
}

/* ---- gathering, under the lock ------------------------------------------ */

struct found {
	struct sk_key *key;
	const struct sk__object *obj;
};

static int found_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct found *)a)->key;
	uintptr_t y = (uintptr_t)((const struct found *)b)->key;

	return x < y ? -1 : x > y;
}

/* Every key once, sorted by address.  A key that several objects list
 * (a library's key interposed by the program's) counts for the first. */
static long find_keys_locked(struct found **out)
{
	size_t cap = 0, n = 0;

	for (struct sk__object *o = sk__objects; o; o = o->next)
		cap += o->nkeys;
	struct found *v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (struct sk__object *o = sk__objects; o; o = o->next)
		for (size_t i = 0; i < o->nkeys; i++)
			v[n++] = (struct found){ o->keys[i], o };
	qsort(v, n, sizeof(*v), found_cmp);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (m == 0 || v[m - 1].key != v[i].key)
			v[m++] = v[i];
	*out = v;
	return (long)m;
}

/* Room for the strings of one key: identifier, description, file, name. */
static size_t strings_size(const struct found *f)
{
	size_t id = strlen(f->key->name) + 1;
	size_t desc = strlen(f->key->description ? f->key->description : "") + 1;
	size_t file = strlen(sk__object_file(f->obj)) + 1;

	return id + desc + file + file + id + 16; /* "FILE:id#n" */
}

static char *pool_copy(char **pool, const char *s)
{
	char *p = *pool;
	size_t n = strlen(s) + 1;

	memcpy(p, s, n);
	*pool += n;
	return p;
}

static void describe_locked(struct sk_key_info *info, const struct found *f,
			    char **pool)
{
	int v = __atomic_load_n(&f->key->enabled, __ATOMIC_ACQUIRE);

	info->key = f->key;
	info->identifier = pool_copy(pool, f->key->name);
	info->description = pool_copy(
		pool, f->key->description ? f->key->description : "");
	info->object = pool_copy(pool, sk__object_file(f->obj));
	info->name = *pool; /* filled in by qualify() */
	*pool += strings_size(f) - (size_t)(*pool - info->identifier);
	info->enabled = v != 0;
	info->initial = (f->key->magic & SK__KEY_INIT_TRUE) != 0;
	info->count = v >= 0 ? v : 1;
	for (struct sk__object *o = sk__objects; o; o = o->next) {
		const uint32_t *idx;
		size_t ns;
		(void)sk__object_key_sites(o, f->key, &idx, &ns);
		info->nsites += ns;
		info->nobjects += ns != 0;
	}
}

/* ---- naming, on the copy ------------------------------------------------ */

static int ident_cmp(const void *a, const void *b)
{
	const struct sk_key_info *x = a, *y = b;
	int c = strcmp(x->identifier, y->identifier);

	return c ? c : strcmp(x->object, y->object);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sk_key_info *)a)->name,
		      ((const struct sk_key_info *)b)->name);
}

/* Name the keys of one identifier, v[0..n). */
static void qualify_group(struct sk_key_info *v, size_t n)
{
	bool bases_unique = true;

	for (size_t i = 1; i < n; i++)
		if (strcmp(base_name(v[i].object), base_name(v[i - 1].object)) == 0)
			bases_unique = false;
	for (size_t i = 0; i < n; i++) {
		char *name = (char *)v[i].name;
		const char *file = bases_unique ? base_name(v[i].object)
						: v[i].object;
		if (n == 1)
			strcpy(name, v[i].identifier);
		else if (i > 0 && strcmp(v[i].object, v[i - 1].object) == 0)
			/* Two static keys of one identifier in one object. */
			sprintf(name, "%s:%s#%zu", file, v[i].identifier, i + 1);
		else
			sprintf(name, "%s:%s", file, v[i].identifier);
	}
}

static void qualify(struct sk_key_info *v, size_t n)
{
	qsort(v, n, sizeof(*v), ident_cmp);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n; j++)
			if (strcmp(v[j].identifier, v[i].identifier) != 0)
				break;
		qualify_group(&v[i], j - i);
	}
	qsort(v, n, sizeof(*v), name_cmp);
}

/* ---- public API --------------------------------------------------------- */

static int snapshot_locked(struct sk_key_info **out, size_t *n)
{
	struct found *f = NULL;
	long m = find_keys_locked(&f);
	size_t pool_size = 0;

	if (m < 0)
		return (int)m;
	for (long i = 0; i < m; i++)
		pool_size += strings_size(&f[i]);
	struct sk_key_info *v =
		calloc(1, (size_t)m * sizeof(*v) + pool_size + 1);
	if (!v) {
		free(f);
		return -ENOMEM;
	}
	char *pool = (char *)(v + m);
	for (long i = 0; i < m; i++)
		describe_locked(&v[i], &f[i], &pool);
	free(f);
	*out = v;
	*n = (size_t)m;
	return 0;
}

int sk__keys_snapshot_locked(struct sk_key_info **out, size_t *n)
{
	int r = snapshot_locked(out, n);

	if (r == 0)
		qualify(*out, *n);
	return r;
}

SK_API int sk_keys_snapshot(struct sk_key_info **out, size_t *n)
{
	if (!out || !n)
		return -EINVAL;
	int r = sk__lock();
	if (r)
		return r;
	r = snapshot_locked(out, n);
	sk__unlock();
	/* Naming works on the copy: no need to hold the lock for it. */
	if (r == 0)
		qualify(*out, *n);
	return r;
}

SK_API void sk_keys_snapshot_free(struct sk_key_info *snapshot)
{
	free(snapshot);
}

long sk__keys_lookup(const struct sk_key_info *v, size_t n, const char *name)
{
	long hit = -ENOENT;
	const char *colon = strrchr(name, ':');

	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].name, name) == 0)
			return (long)i;
		if (strcmp(v[i].identifier, name) == 0)
			hit = hit == -ENOENT ? (long)i : -EEXIST;
		else if (colon && colon > name &&
			 strcmp(colon + 1, v[i].identifier) == 0) {
			size_t flen = (size_t)(colon - name);
			const char *base = base_name(v[i].object);
			if ((strlen(v[i].object) == flen &&
			     !memcmp(v[i].object, name, flen)) ||
			    (strlen(base) == flen && !memcmp(base, name, flen)))
				hit = hit == -ENOENT ? (long)i : -EEXIST;
		}
	}
	return hit;
}

SK_API int sk_key_info_get(const char *name, struct sk_key_info *out,
			   struct sk_key_info **storage)
{
	struct sk_key_info *v;
	size_t n;

	if (!name || !out || !storage)
		return -EINVAL;
	int r = sk_keys_snapshot(&v, &n);
	if (r)
		return r;
	long i = sk__keys_lookup(v, n, name);
	if (i < 0) {
		free(v);
		return (int)i;
	}
	*out = v[i];
	*storage = v;
	return 0;
}

SK_API struct sk_key *sk_key_find(const char *name)
{
	struct sk_key_info info, *storage;
	int r = sk_key_info_get(name, &info, &storage);

	if (r) {
		errno = -r;
		return NULL;
	}
	free(storage);
	return info.key;
}
