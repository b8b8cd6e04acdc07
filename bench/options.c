/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/options.c - "--name value" options of the benchmark programs.
 */
#include <stdlib.h>
#include <string.h>

#include "options.h"

const char *opt_str(int argc, char **argv, const char *name, const char *def)
{
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return argv[i + 1];
	return def;
}

long opt_long(int argc, char **argv, const char *name, long def)
{
	const char *v = opt_str(argc, argv, name, NULL);

	return v ? strtol(v, NULL, 0) : def;
}

int opt_flag(int argc, char **argv, const char *name)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}
