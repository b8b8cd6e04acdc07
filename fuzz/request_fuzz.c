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
 * crashes.  The input is also fed to skctl's JSON parser as a reply.
 */
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
		for (size_t i = 0; i < req->nargs; i++) {
			const struct sk__arg *a = &req->args[i];
			if (a->name < line || a->len == 0 ||
			    a->len > SK__MAX_NAME ||
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
	(void)fuzz_sites();
	return 0;
}
