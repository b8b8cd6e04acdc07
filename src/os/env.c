/*
 * env.c - the STATICKEYS_* settings, all read the same way: unset or empty
 * means the default; a value that is not one of the documented words is
 * named in one warning, with the words it may be, and the default is used.
 * secure_getenv: a set-user-ID or file-capability program must not let
 * whoever starts it choose how it writes its code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/os.h"

int sk__env_match(const char *value, const char *const *words)
{
	for (int i = 0; value && words[i]; i++)
		if (strcmp(value, words[i]) == 0)
			return i;
	return -1;
}

int sk__env_choice(const char *name, const char *const *words, int dflt)
{
	const char *value = secure_getenv(name);
	char list[160] = "";
	int i = sk__env_match(value, words);

	if (!value || !*value)
		return dflt;
	if (i >= 0)
		return i;
	for (int w = 0; words[w]; w++) {
		size_t len = strlen(list);
		snprintf(list + len, sizeof(list) - len, "%s%s",
			 w == 0 ? "" : words[w + 1] ? ", " : " or ", words[w]);
	}
	sk__warn("%s=%s is not %s; using %s", name, value, list, words[dflt]);
	return dflt;
}
