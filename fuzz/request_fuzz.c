/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * request_fuzz.c - the control server's request path, for libFuzzer and for
 * the corpus replay in `make test`.
 *
 * Each input is parsed as one request line (from an exact-size heap copy,
 * so a sanitizer sees any read past its end), then carried out against the
 * real runtime exactly as the server would: keys defined below are looked
 * up, flipped and listed.  Checked on every input: names returned by the
 * parser lie inside the input and are valid; a reply is empty (blank
 * line) or exactly one line of JSON that skctl's parser accepts; nothing
 * crashes.  The input is also fed to skctl's JSON parser as a reply, and
 * to the STATICKEYS_FILE parser as a file (twice, as two files of one
 * directory): every entry it returns has a valid name and a line number
 * inside the text; a rejection names the file and a line.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <statickeys.h>

#include "control/control.h"
#include "skctl_json.h"

SK_DEFINE_KEY_FALSE_DESC(fuzz_a, "a \"quoted\" \\ description\twith a tab");
SK_DEFINE_KEY_TRUE(fuzz_b);
SK_DEFINE_KEY_FALSE(fuzz_c);

/* Sites, so that flips rewrite real code. */
__attribute__((noinline)) int fuzz_sites(void)
{
	return (sk_branch_unlikely(&fuzz_a) ? 1 : 0) +
	       (sk_branch_likely(&fuzz_b) ? 2 : 0) +
	       (sk_branch_unlikely(&fuzz_c) ? 4 : 0);
}

static void check_parse(const char *line, size_t len)
{
	struct sk__request *req = malloc(sizeof(*req));
	char err[160];

	if (sk__request_parse(line, len, req, err, sizeof(err)) == 0) {
		if (req->nargs > SK__MAX_ARGS)
			abort();
		/* A name is at most SK__MAX_NAME bytes; the argument of
		 * "debug" is a query, the rest of the request. */
		size_t max = req->op == SK__OP_DEBUG ? len : SK__MAX_NAME;
		for (size_t i = 0; i < req->nargs; i++) {
			const struct sk__arg *a = &req->args[i];
			if (a->name < line || a->len == 0 || a->len > max ||
			    a->name + a->len > line + len)
				abort();
		}
	} else if (!memchr(err, '\0', sizeof(err))) {
		abort();
	}
	free(req);
}

static void check_reply(const struct sk__json *reply)
{
	if (reply->len == 0)
		return;
	if (reply->buf[0] != '{' || reply->buf[reply->len - 1] != '\n' ||
	    memchr(reply->buf, '\n', reply->len) != reply->buf + reply->len - 1)
		abort();
	struct json *j = json_parse(reply->buf);
	if (!j || j->type != JSON_OBJECT || !json_get(j, "ok"))
		abort();
	json_free(j);
}

/* skctl reads replies from a process it may not trust. */
static void check_reply_parser(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	memcpy(text, data, size);
	text[size] = '\0';
	json_free(json_parse(text));
	free(text);
}

static void check_entries(const struct sk__conf *conf, unsigned lines)
{
	for (size_t i = 0; i < conf->n; i++) {
		const struct sk__conf_entry *e = &conf->v[i];
		size_t n = strnlen(e->name, sizeof(e->name));
		if (n == 0 || n > SK__MAX_NAME || strchr(e->name, '=') ||
		    e->line == 0 || e->line > lines || e->file >= conf->nfiles)
			abort();
		for (size_t k = 0; k < n; k++)
			if (e->name[k] < 0x21 || e->name[k] > 0x7e)
				abort();
	}
}

/* The file parser, from an exact-size heap copy of the input. */
static void check_config_parser(const uint8_t *data, size_t size)
{
	struct sk__conf *conf = calloc(1, sizeof(*conf));
	char *text = malloc(size ? size : 1), err[600];
	unsigned lines = 1;

	memcpy(text, data, size);
	for (size_t i = 0; i < size; i++)
		lines += text[i] == '\n';
	for (int pass = 0; pass < 2; pass++) {
		err[0] = '\0';
		int r = sk__conf_parse(conf, pass ? "b.conf" : "a.conf", text,
				       size, err, sizeof(err));
		if (r == 0) {
			check_entries(conf, lines);
		} else if (r != -EINVAL && r != -E2BIG) {
			abort();
		} else if (strncmp(err, pass ? "b.conf:" : "a.conf:", 7) != 0 ||
			   !memchr(err, '\0', sizeof(err))) {
			abort();
		} else {
			break;
		}
	}
	free(text);
	free(conf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The server never hands over more than one request's worth. */
	size_t len = size < SK_CONTROL_MAX_REQUEST ? size : SK_CONTROL_MAX_REQUEST;
	char *line = malloc(len ? len : 1);
	struct sk__json reply;

	memcpy(line, data, len);
	check_parse(line, len);
	sk__json_init(&reply, SK__REPLY_LIMIT);
	sk__control_handle(line, len, &reply);
	check_reply(&reply);
	sk__json_free(&reply);
	free(line);
	check_reply_parser(data, size);
	check_config_parser(data, size);
	(void)fuzz_sites();
	return 0;
}
