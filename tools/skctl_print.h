/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skctl_print.h - skctl's replies shown to a person (skctl_print.c).
 */
#ifndef SKCTL_PRINT_H
#define SKCTL_PRINT_H

#include <stddef.h>

#include "skctl_json.h"

/* proc_comm - the command name of @pid (the OS's word: sk__os_process_name),
 * with quotes, backslashes and control bytes shown as '?'; "?" if unknown. */
void proc_comm(int pid, char *out, size_t len);

void print_list(const struct json *reply);
void print_key(const struct json *key);
void print_changed(const struct json *reply);
/* `calls` and `call NAME=LABEL`: static calls. */
void print_calls(const struct json *reply);
void print_call_changed(const struct json *reply);
void print_stats(const struct json *reply);
void print_log(const struct json *reply);
/* print_unmatched - `skctl unmatched`: "FILE:LINE: NAME" per line of the
 * program's STATICKEYS_FILE that names no key, or why there is none. */
void print_unmatched(const struct json *reply);
/* print_watch - one screen of `skctl watch`: key states and what changed
 * since @prev_stats (NULL on the first one). */
void print_watch(const struct json *list, const struct json *stats,
		 const struct json *prev_stats, int round);

#endif /* SKCTL_PRINT_H */
