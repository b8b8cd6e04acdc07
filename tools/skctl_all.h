/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skctl_all.h - `skctl --all COMMAND`: the command for every process of
 * the caller's user that serves a control socket (skctl_all.c).
 */
#ifndef SKCTL_ALL_H
#define SKCTL_ALL_H

#include "skctl_options.h"

/* run_all - COMMAND for every process (skctl --all).  Exit code: 0 all
 * succeeded, SKCTL_SOME, SKCTL_NONE, or SKCTL_UNREACHABLE when there is no
 * process to talk to. */
int run_all(const struct options *o, const char *verb, char **args,
	    int nargs);

#endif /* SKCTL_ALL_H */
