/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/value.h - the one vocabulary for a key's state, everywhere a
 * person writes one: STATICKEYS, STATICKEYS_FILE, the control socket's
 * `set` and skctl's `set NAME=VALUE` (which links the runtime statically
 * and checks its arguments with this same function before it asks).
 *
 *	off: 0  off  false  no
 *	on:  1  on   true   yes
 *
 * Lower case only, as sysctl and the kernel's kstrtobool() take them: one
 * spelling per word keeps every file and command line greppable.
 */
#ifndef SK_CONTROL_VALUE_H
#define SK_CONTROL_VALUE_H

#include <stdbool.h>
#include <stddef.h>

/* The words, for messages: "0/1, off/on, false/true, no/yes". */
#define SK__VALUE_WORDS "0/1, off/on, false/true, no/yes"

/* sk__value_parse - @v[0..@n) (need not be terminated) is one of the words
 * above: its state into *@on.  Return: true, or false for anything else
 * (then *@on is unchanged). */
bool sk__value_parse(const char *v, size_t n, bool *on);

#endif
