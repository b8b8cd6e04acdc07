/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skctl_options.h - skctl's command line, as skctl.c parses it and --all
 * (skctl_all.c) follows it.
 */
#ifndef SKCTL_OPTIONS_H
#define SKCTL_OPTIONS_H

#include <stdbool.h>

struct options {
	const char *pid;
	const char *socket;
	bool json;
	bool all;         /* --all: every process of ours with a socket */
	const char *comm; /* --comm: only processes of this name */
	bool openmetrics; /* stats --openmetrics */
	double interval;
	long count;
};

#endif /* SKCTL_OPTIONS_H */
