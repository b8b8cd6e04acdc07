/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skctl_openmetrics.h - `skctl stats --openmetrics`: processes' counters
 * and histograms as OpenMetrics text (skctl_openmetrics.c).
 */
#ifndef SKCTL_OPENMETRICS_H
#define SKCTL_OPENMETRICS_H

#include <stddef.h>

#include "skctl_json.h"

/* om_process - one process's metrics, as read from it. */
struct om_process {
	int pid;
	char comm[64];
	struct json *list, *stats;
};

/* om_fetch - ask the process on @fd for `list` and `stats` (its pid from
 * the credentials on its reply).  Return an exit code; on 0, free with om_free(). */
int om_fetch(int fd, struct om_process *p);
void om_free(struct om_process *p);
/* om_print - the OpenMetrics text of @n processes, "# EOF" included. */
void om_print(const struct om_process *v, size_t n);
/* run_openmetrics - `stats --openmetrics` for the process on @fd.
 * Return an exit code. */
int run_openmetrics(int fd);

#endif /* SKCTL_OPENMETRICS_H */
