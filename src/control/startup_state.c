/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/startup_state.c - start-up state from the environment.
 *
 *	STATICKEYS="tracing=1,fast_path=0,libplugin.so:verbose=on"
 *	STATICKEYS_CONTROL=1            (or a socket path)
 *
 * STATICKEYS is read once, when the runtime initialises (the constructor of
 * the first object that uses keys, before main).  Then, every time an object
 * registers, the entries naming keys that object defines are applied to it
 * as one commit, from inside its registration: the program's and its
 * libraries' keys before main runs, a plugin's keys before dlopen() returns.
 * Registration already holds the patch lock, so this file only ever calls
 * the *_locked variants.
 *
 * Bad text never stops the program: each malformed entry gets one warning
 * naming it and is ignored.  Names that match no key of the program or its
 * libraries get one warning when the program itself registers (the last
 * object initialised before main); they still apply if a plugin defining
 * them is loaded later.
 *
 * It marks when start-up began for the control server
 * (control/startup_end.c), which holds a request back until the program
 * has registered.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "control/control.h"
#include "control/value.h"
#include "statickeys/control.h"
#include "support/message.h"
#include "support/settings.h"

#define MAX_ENTRIES 256

struct entry {
	char *name;
	bool on;
	bool matched;
};

static struct entry entries[MAX_ENTRIES];
static size_t nentries;

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* Names are printable ASCII without blanks or '=' (as on the socket). */
static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < 0x21 || *s > 0x7e || *s == '=')
			return false;
	return true;
}

/* Add "name=value" (already trimmed); @text is the entry as given. */
static void add_entry(char *item, const char *text)
{
	char *eq = strchr(item, '=');
	bool on;

	if (!eq) {
		sk__warn("STATICKEYS: \"%s\" is not NAME=0|1; entry ignored", text);
		return;
	}
	*eq = '\0';
	char *name = trim(item), *value = trim(eq + 1);
	if (!valid_name(name)) {
		sk__warn("STATICKEYS: \"%s\" has no valid key name; entry "
			 "ignored", text);
		return;
	}
	if (!sk__value_parse(value, strlen(value), &on)) {
		sk__warn("STATICKEYS: in \"%s\", \"%s\" is not one of "
			 SK__VALUE_WORDS "; entry ignored", text, value);
		return;
	}
	for (size_t i = 0; i < nentries; i++) {
		if (strcmp(entries[i].name, name) == 0) {
			entries[i].on = on; /* the last one wins, as in argv */
			return;
		}
	}
	if (nentries == MAX_ENTRIES) {
		sk__warn("STATICKEYS: more than %d entries; \"%s\" and later "
			 "ones ignored", MAX_ENTRIES, text);
		return;
	}
	entries[nentries].name = strdup(name);
	if (entries[nentries].name)
		entries[nentries++].on = on;
}

static void parse_statickeys(const char *text)
{
	char *copy = strdup(text), *save = NULL;

	if (!copy)
		return;
	for (char *tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *item = trim(tok);
		if (!*item)
			continue; /* "a=1,,b=0" or a trailing comma */
		/* The warning quotes the entry; control bytes become '?'. */
		char *shown = strdup(item);
		for (char *c = shown; c && *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		add_entry(item, shown ? shown : "?");
		free(shown);
	}
	free(copy);
}

static void warn_unmatched(void)
{
	for (size_t i = 0; i < nentries; i++)
		if (!entries[i].matched)
			sk__warn("STATICKEYS: no key named \"%s\" in the program "
				 "or its libraries (see `skctl list`); it will "
				 "apply if a plugin defining it is loaded",
				 entries[i].name);
}

static void object_added(struct sk__object *obj)
{
	struct sk_key_change changes[MAX_ENTRIES];
	size_t n = 0;

	for (size_t k = 0; k < obj->nkeys; k++) {
		for (size_t i = 0; i < nentries && n < MAX_ENTRIES; i++) {
			const char *name = entries[i].name;
			if (!sk__name_matches(obj, obj->keys[k], name,
					      strlen(name)))
				continue;
			entries[i].matched = true;
			changes[n++] = (struct sk_key_change){ obj->keys[k],
							       entries[i].on };
			break;
		}
	}
	static const struct sk__audit_src env = { .kind = SK__AUDIT_ENV };
	int r = sk__audit_commit_locked(changes, n, &env, 1);
	sk__audit_flush();
	if (r)
		sk__warn("STATICKEYS: could not apply the start-up state of "
			 "%s's keys (%s); they keep their defined states",
			 sk__object_file(obj), strerror(-r));
	if (sk__object_is_program(obj))
		warn_unmatched();
}

/* STATICKEYS_CONTROL: a word (off: "", 0, off, no; the default path: 1,
 * on, yes) or the socket's path, which must contain a '/' (./name for one
 * in the working directory), so that no word becomes a file name. */
static void start_control_server(const char *how)
{
	static const char *const words[] = { "0", "off", "no",
					     "1", "on", "yes", NULL };
	int w = sk__env_match(how, words);

	if (!*how || (w >= 0 && w < 3))
		return;
	if (w < 0 && !strchr(how, '/')) {
		sk__warn("STATICKEYS_CONTROL=%s is not 0, 1, on, off, yes, no "
			 "or a path with a '/'; no control server", how);
		return;
	}
	const char *path = w >= 0 ? NULL : how;
	int r = sk_control_start(path);
	if (r)
		sk__warn("STATICKEYS_CONTROL=%s: could not start the control "
			 "server (%s); the program runs without it", how,
			 sk__strerror(-r));
}

void sk__control_init(void)
{
	/* sk__getenv: as secure_getenv, a set-user-ID or file-capability
	 * program must not let whoever starts it choose its key states or a
	 * socket path. */
	const char *state = sk__getenv("STATICKEYS");
	const char *control = sk__getenv("STATICKEYS_CONTROL");

	/* Before the server can start: its first request finds it set. */
	sk__control_startup_begin();
	sk__audit_init();
	if (state && *state) {
		parse_statickeys(state);
		if (nentries)
			sk__object_added_hook = object_added;
	}
	sk__config_init(); /* STATICKEYS_FILE, applied before STATICKEYS */
	if (control)
		start_control_server(control);
}
