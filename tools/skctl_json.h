/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skctl_json.h - reading the control socket's JSON replies.
 *
 * A small tree parser for the subset the server writes (objects, arrays,
 * strings with \" \\ and \uXXXX escapes, integers, true/false/null).  The
 * tree lives in one arena freed with json_free().
 */
#ifndef SKCTL_JSON_H
#define SKCTL_JSON_H

#include <stdbool.h>
#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY,
		 JSON_OBJECT };

struct json {
	enum json_type type;
	bool boolean;
	double number;
	char *string;            /* JSON_STRING; also the key of a member */
	char *key;               /* set when this value is an object member */
	struct json *child;      /* first element or member */
	struct json *next;       /* next sibling */
};

/* json_parse - parse @text; NULL if it is not valid JSON. */
struct json *json_parse(const char *text);
void json_free(struct json *root);

/* json_get - the member @key of object @obj, or NULL. */
const struct json *json_get(const struct json *obj, const char *key);
/* The member's value, or @fallback when missing or of another type. */
const char *json_str(const struct json *obj, const char *key,
		     const char *fallback);
double json_num(const struct json *obj, const char *key, double fallback);
bool json_bool(const struct json *obj, const char *key, bool fallback);

#endif /* SKCTL_JSON_H */
