/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/support/settings.h - the STATICKEYS_* settings (settings.c): how
 * each is read, and the settings of code patching.
 */
#ifndef SK_SUPPORT_SETTINGS_H
#define SK_SUPPORT_SETTINGS_H

#include <stdbool.h>

/* The environment: POSIX's environ, unless the C library makes it a macro
 * of its own (mingw-w64: the C runtime's _environ). */
#ifndef environ
extern char **environ;
#endif

/* sk__env_names_statickeys - does a variable of the environment start with
 * "STATICKEYS"?  Usually none does, and then no setting is looked up by name
 * (each lookup reads the whole environment).  Inline, and by character: no
 * C library call and no string constant, so start-up touches no page for it,
 * and the signal-mask wrappers may ask it while a sanitizer starts (they are
 * not instrumented, settings.c is). */
static inline bool sk__env_names_statickeys(void)
{
	for (char **e = environ; e && *e; e++) {
		const char *v = *e;
		if (v[0] == 'S' && v[1] == 'T' && v[2] == 'A' && v[3] == 'T' &&
		    v[4] == 'I' && v[5] == 'C' && v[6] == 'K' && v[7] == 'E' &&
		    v[8] == 'Y' && v[9] == 'S')
			return true;
	}
	return false;
}

/* sk__getenv - secure_getenv(@name) of a STATICKEYS* variable (NULL in a
 * set-user-ID or file-capability program: whoever starts it must not choose
 * its key states, socket paths or how it writes code). */
const char *sk__getenv(const char *name);
/* sk__env_match - the index of @value in the NULL-terminated @words, or -1
 * (also for NULL).  Prints nothing: usable before constructors run. */
int sk__env_match(const char *value, const char *const *words);
/* sk__env_choice - the index in @words of environment variable @name's
 * value; @dflt when it is unset or empty, and when it is none of @words,
 * after a warning naming the variable, its value and the words. */
int sk__env_choice(const char *name, const char *const *words, int dflt);

/* The settings of code patching (settings.c). */
enum sk__setting {
	SK__SETTING_WRITER,          /* procmem (0), mprotect (1) */
	SK__SETTING_SYNC,            /* membarrier (0), mprotect (1) */
	SK__SETTING_KEEP_SIGTRAP,    /* 1 (0), 0 (1) */
	SK__SETTING_BLOCKED_SIGTRAP, /* refuse (0), warn (1) */
	SK__SETTING_SHADOW_STACK,    /* auto (0), assume (1) */
	SK__SETTING_COUNT
};
/* sk__setting - the index of @which's value in its words, 0 being the
 * default (as sk__env_choice, but a bad value is named only once). */
int sk__setting(enum sk__setting which);
/* sk__settings_check - read every setting, so a bad value is named at
 * start-up on every backend, also where nothing reads it later. */
void sk__settings_check(void);

#endif /* SK_SUPPORT_SETTINGS_H */
