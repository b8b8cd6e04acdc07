/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/dyndbg_control.c - dynamic debug on the control socket:
 *
 *	debug              {"ok":true,"catalogue":"# filename:lineno ...\n..."}
 *	debug QUERY        {"ok":true,"matched":N}
 *
 * `skctl debug` and `skctl debug 'QUERY'`: the reading and the writing of
 * the kernel's /proc/dynamic_debug/control.  A query's key changes are
 * audited as the socket's peer's, as `skctl set` is; a query that does
 * not parse is refused with the parser's message, nothing changed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "control/dyndbg.h"

static void refuse(struct sk__json *j, int err, const char *msg)
{
	sk__json_reset(j);
	sk__json_printf(j, "{\"ok\":false,\"errno\":%d,\"error\":", err);
	sk__json_str(j, msg, strlen(msg));
	sk__json_raw(j, "}\n");
}

static void catalogue(struct sk__json *j)
{
	long n = sk_dyndbg_catalogue(NULL, 0);
	char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;

	/* Statements registered between the two calls are left out: the
	 * second call cuts the text at the first's length. */
	if (!text || (n = sk_dyndbg_catalogue(text, (size_t)n + 1)) < 0) {
		free(text);
		refuse(j, n < 0 ? (int)-n : ENOMEM, "could not read the "
		       "debug statements");
		return;
	}
	sk__json_raw(j, "{\"ok\":true,\"catalogue\":");
	sk__json_str(j, text, strlen(text));
	sk__json_raw(j, "}\n");
	free(text);
}

void sk__control_debug(struct sk__json *j, const struct sk__request *req)
{
	char err[300] = "";

	if (!req->nargs) {
		catalogue(j);
		return;
	}
	char *query = malloc(req->args[0].len + 1);
	if (!query) {
		refuse(j, ENOMEM, "out of memory");
		return;
	}
	memcpy(query, req->args[0].name, req->args[0].len);
	query[req->args[0].len] = '\0';
	int r = sk__dd_query_from(query, sk__audit_peer(), err, sizeof(err));
	free(query);
	if (r < 0)
		refuse(j, -r, *err ? err : sk__strerror(-r));
	else
		sk__json_printf(j, "{\"ok\":true,\"matched\":%d}\n", r);
}
