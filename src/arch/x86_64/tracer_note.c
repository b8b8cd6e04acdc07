/*
 * tracer_note.c - tell a person debugging the program how to make the
 * library's traps invisible.
 *
 * Under a debugger, the int3 a thread meets on a site mid-update stops the
 * program ("received signal SIGTRAP") before our handler runs, unless gdb
 * has loaded the script installed with the library (src/statickeys-gdb.py),
 * which lets those traps through.  gdb loads it by itself for a /usr
 * install; for any other prefix, or a program linked with the static
 * library, it does not, and the stop would look like a bug of the program.
 * So at an update under a tracer (TracerPid in /proc/self/status) without
 * the script, say once on stderr what to do.  The script announces itself
 * by setting sk__debugger_script.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "arch/x86_64/x86_64.h"
#include "os/os.h"

/* Set to 1 by the gdb script when it loads (README, "Debuggers"). */
SK_API volatile int sk__debugger_script;

#ifdef SK_GDB_SCRIPT_PATH
#define SCRIPT_HINT "source " SK_GDB_SCRIPT_PATH
#else
#define SCRIPT_HINT "source statickeys-gdb.py (src/ of the statickeys sources)"
#endif

/* The tracer's pid, or 0; and its command name into @comm. */
static long tracer_pid(char *comm, size_t size)
{
	char line[256], path[64];
	long pid = 0;
	FILE *f;

	/* In the library's one place (os/fd_slot.c), under the patch lock;
	 * one file at a time. */
	sk__fdslot_lend();
	f = fopen("/proc/self/status", "re");

	if (!f) {
		sk__fdslot_return();
		return 0;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %ld", &pid) == 1)
			break;
	fclose(f);
	snprintf(comm, size, "?");
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (pid > 0 && (f = fopen(path, "re"))) {
		if (fgets(comm, (int)size, f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	sk__fdslot_return();
	return pid;
}

void sk__tracer_note(void)
{
	static atomic_bool said;
	static _Atomic long last_check;
	struct timespec now;
	char comm[32];

	if (atomic_load(&said) || sk__debugger_script)
		return;
	/* Reading /proc costs a few microseconds: at most once a second, so
	 * a debugger attached later (gdb -p) is still noticed. */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if (atomic_exchange(&last_check, (long)now.tv_sec) == now.tv_sec)
		return;
	long pid = tracer_pid(comm, sizeof(comm));
	if (pid <= 0 || atomic_exchange(&said, true))
		return;
	sk__warn("traced by %s (pid %ld): unless the debugger has loaded the "
		 "statickeys gdb script, a thread meeting a site while a key "
		 "changes stops with SIGTRAP; resume it with `signal SIGTRAP` "
		 "(not `continue`), or load the script: %s (README, "
		 "\"Debuggers\")", comm, pid, SCRIPT_HINT);
}
