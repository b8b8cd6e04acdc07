/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * startup_lib.c - one of the twenty libraries of startup_prog: a key of
 * its own, startup_lib_key_N (N = SK_STARTUP_LIB).  Built with
 * SK_STARTUP_SLOW, its constructor also sleeps 100 ms, after its own
 * registration (priority 101 comes first), so that the control server is
 * running while the program's own key is not yet registered: the window
 * in which a request could be told "no key" (issue 39).
 */
#include <unistd.h>

#include <statickeys.h>

#define KEY_(n) startup_lib_key_##n
#define KEY(n) KEY_(n)
#define FN_(n) startup_lib_fn_##n
#define FN(n) FN_(n)

SK_DEFINE_KEY_FALSE_DESC(KEY(SK_STARTUP_LIB), "a key of a library");

/* What the program calls, so that the linker keeps the library. */
int FN(SK_STARTUP_LIB)(void);
int FN(SK_STARTUP_LIB)(void)
{
	return sk_key_enabled(&KEY(SK_STARTUP_LIB));
}

#ifdef SK_STARTUP_SLOW
__attribute__((constructor)) static void slow_start(void)
{
	usleep(100000);
}
#endif
