/*
 * skctl.h - the parts of skctl: finding and talking to a process
 * (skctl.c) and showing its replies to a person (skctl_print.c).
 */
#ifndef SKCTL_H
#define SKCTL_H

#include <stdbool.h>

#include "skctl_json.h"

/* Exit codes, also listed in skctl(1). */
enum {
	SKCTL_OK = 0,
	SKCTL_REFUSED = 1,     /* the process refused the request */
	SKCTL_USAGE = 2,       /* bad command line */
	SKCTL_UNREACHABLE = 3, /* no socket, or the connection was refused */
	SKCTL_PROTOCOL = 4,    /* the reply was not understood */
	SKCTL_EXITING = 5,     /* the program is exiting */
};

void print_list(const struct json *reply);
void print_key(const struct json *key);
void print_changed(const struct json *reply);
void print_stats(const struct json *reply);
/* print_watch - one screen of `skctl watch`: key states and what changed
 * since @prev_stats (NULL on the first one). */
void print_watch(const struct json *list, const struct json *stats,
		 const struct json *prev_stats, int round);

#endif /* SKCTL_H */
