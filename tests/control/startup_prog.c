/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * startup_prog.c - a program linked with twenty libraries that define keys
 * (startup_lib.c), defining startup_main_key itself; it sleeps until it
 * is killed.  startup_answers.sh asks it for its key the moment its
 * control socket exists.
 */
#include <unistd.h>

#include <statickeys.h>

SK_DEFINE_KEY_FALSE_DESC(startup_main_key, "the program's own key");

/* One function of each library (startup_lib.c), called so that each is
 * linked in (a linker drops a library nothing uses). */
#define LIBS(X)                                                               \
	X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13)  \
	X(14) X(15) X(16) X(17) X(18) X(19) X(20)
#define DECLARE(n) int startup_lib_fn_##n(void);
#define CALL(n) on += startup_lib_fn_##n();
LIBS(DECLARE)

int main(void)
{
	int on = sk_key_enabled(&startup_main_key);

	LIBS(CALL)
	sleep(60);
	return on;
}
