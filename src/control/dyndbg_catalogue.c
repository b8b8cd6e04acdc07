/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/dyndbg_catalogue.c - every debug statement, one a line, in
 * the format of the kernel's /proc/dynamic_debug/control:
 *
 *	# filename:lineno [module]function flags format
 *	src/queue.c:42 [server]queue_flush =pf "flushing %zu items\n"
 *	src/net.c:7 [libnet]net_send =_ "sent %d\n" class:net
 *
 * Formats are escaped as the kernel escapes them (\n \t \r, and \" and \\
 * so that the quotes still delimit them).  Read under the patch lock, so
 * no object unloads while its statements are written out.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "control/dyndbg.h"
#include "support/message.h"

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->len < o->size) {
		size_t room = o->size - 1 - o->len;
		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	o->len += n;
}

static void putf(struct out *o, const char *fmt, ...)
	__attribute__((format(SK__PRINTF, 2, 3)));
static void putf(struct out *o, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;

	va_start(ap, fmt);
	int r = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (r > 0)
		put(o, tmp, (size_t)r < sizeof(tmp) ? (size_t)r : sizeof(tmp) - 1);
}

static void put_escaped(struct out *o, const char *s)
{
	for (; *s; s++) {
		const char *e = *s == '\n' ? "\\n" : *s == '\t' ? "\\t"
			      : *s == '\r' ? "\\r" : *s == '"' ? "\\\""
			      : *s == '\\' ? "\\\\" : NULL;
		if (e)
			put(o, e, 2);
		else
			put(o, s, 1);
	}
}

static void put_site(struct out *o, const struct sk_dyndbg_site *s)
{
	char flags[8];
	const char *module = __atomic_load_n(&s->module, __ATOMIC_ACQUIRE);

	sk__dd_flags_text(__atomic_load_n(&s->flags, __ATOMIC_RELAXED), flags);
	putf(o, "%s:%u [%s]%s =%s \"", s->file, s->line,
	     module ? module : "?", s->function, flags);
	put_escaped(o, s->format ? s->format : "");
	put(o, "\"", 1);
	if (s->cls)
		putf(o, " class:%s", s->cls);
	put(o, "\n", 1);
}

SK_API long sk_dyndbg_catalogue(char *buf, size_t size)
{
	static const char head[] =
		"# filename:lineno [module]function flags format\n";
	struct out o = { buf, buf ? size : 0, 0 };
	int r = sk__lock();

	if (r)
		return r;
	put(&o, head, sizeof(head) - 1);
	for (struct sk__object *obj = sk__objects; obj; obj = obj->next)
		for (size_t k = 0; k < obj->nkeys; k++) {
			const struct sk_dyndbg_site *s =
				sk__dd_site_of(obj->keys[k]);
			if (s)
				put_site(&o, s);
		}
	sk__unlock();
	if (o.size)
		o.buf[o.len < o.size ? o.len : o.size - 1] = '\0';
	return (long)o.len;
}
