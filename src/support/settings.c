/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/support/settings.c - the STATICKEYS_* settings, all read the same way: unset or empty
 * means the default; a value that is not one of the documented words is
 * named in one warning, with the words it may be, and the default is used.
 * secure_getenv (sk__getenv): a set-user-ID or file-capability program must
 * not let whoever starts it choose how it writes its code.
 *
 * The settings of code patching (writer, core sync, SIGTRAP masks) are all
 * checked at start-up (sk__settings_check, from the runtime's set-up): a
 * bad value is named then, on every backend, also where nothing reads it
 * later (the portable backend writes no code).  The code that acts on a
 * setting reads it when it needs it (sk__setting), as a program may set
 * it after start-up; a bad value is named once.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/os.h" /* sk__os_secure_getenv: a primitive, below support/ */
#include "support/message.h"
#include "support/settings.h"

const char *sk__getenv(const char *name)
{
	return sk__env_names_statickeys() ? sk__os_secure_getenv(name) : NULL;
}

int sk__env_match(const char *value, const char *const *words)
{
	for (int i = 0; value && words[i]; i++)
		if (strcmp(value, words[i]) == 0)
			return i;
	return -1;
}

int sk__env_choice(const char *name, const char *const *words, int dflt)
{
	const char *value = sk__getenv(name);
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

static const struct {
	const char *name;
	const char *const words[3]; /* the first is the default */
} settings[SK__SETTING_COUNT] = {
	[SK__SETTING_WRITER] = { "STATICKEYS_WRITER", { "procmem", "mprotect" } },
	[SK__SETTING_SYNC] = { "STATICKEYS_SYNC", { "membarrier", "mprotect" } },
	[SK__SETTING_KEEP_SIGTRAP] = { "STATICKEYS_KEEP_SIGTRAP", { "1", "0" } },
	[SK__SETTING_BLOCKED_SIGTRAP] = { "STATICKEYS_BLOCKED_SIGTRAP",
					  { "refuse", "warn" } },
	/* assume: act as if every thread had a shadow stack (x86 CET), on
	 * a machine without: the tests' way onto that path. */
	[SK__SETTING_SHADOW_STACK] = { "STATICKEYS_SHADOW_STACK",
				       { "auto", "assume" } },
};

/* A bad value of the setting was named already (words: riscv64 has no
 * one-byte atomic exchange, and gcc would call libatomic for it). */
static unsigned warned[SK__SETTING_COUNT];

int sk__setting(enum sk__setting which)
{
	const char *const *words = settings[which].words;
	const char *value = sk__getenv(settings[which].name);
	int i = sk__env_match(value, words);

	if (i >= 0 || !value || !*value)
		return i >= 0 ? i : 0;
	/* A bad value: the default, named once. */
	if (!__atomic_exchange_n(&warned[which], 1u, __ATOMIC_RELAXED))
		return sk__env_choice(settings[which].name, words, 0);
	return 0;
}

void sk__settings_check(void)
{
	for (int i = 0; i < SK__SETTING_COUNT; i++)
		(void)sk__setting((enum sk__setting)i);
}
