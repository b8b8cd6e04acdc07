/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/tracer_note.c - tell a person debugging the program how to make the
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
 * by setting sk__debugger_script.  The hint names the script beside the
 * library as loaded, so that a tree installed with `cmake --install
 * --prefix P` (or moved) is told P's script, not the configured prefix's.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "os/os.h"
#include "support/message.h"

/* Set to 1 by the gdb script when it loads (docs/operations.md, "Caveats
 * for users": Debuggers). */
SK_API volatile int sk__debugger_script;

#ifdef SK_GDB_SCRIPT_PATH
#define SCRIPT_HINT "source " SK_GDB_SCRIPT_PATH
#else
#define SCRIPT_HINT "source statickeys-gdb.py (src/ of the statickeys sources)"
#endif

#if defined(SK_GDB_SCRIPT_NAME) && defined(SK_INSTALL_LIBDIR) && \
	defined(SK_INSTALL_DATADIR)
#define SK_SCRIPT_BESIDE_LIBRARY 1
/* The file mapped at @addr, from /proc/self/maps: dladdr() would take the
 * dynamic linker's lock, which a thread in dlopen() holds while it waits
 * for the patch lock this thread holds. */
static bool mapped_file(const void *addr, char *out, size_t size)
{
	char line[PATH_MAX + 128];
	unsigned long lo, hi, a = (unsigned long)(uintptr_t)addr;
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= a && a < hi &&
		    path) {
			path[strcspn(path, "\n")] = '\0';
			found = (size_t)snprintf(out, size, "%s", path) < size;
		}
	}
	fclose(f);
	return found;
}
#endif

/* "source SCRIPT": the script installed for the library this code is in,
 * PREFIX/DATADIR/gdb/auto-load/PREFIX/LIBDIR/NAME where the library is
 * PREFIX/LIBDIR/libstatickeys.so...; else the configured path. */
static const char *script_hint(char *buf, size_t size)
{
#ifdef SK_SCRIPT_BESIDE_LIBRARY
	char lib[PATH_MAX];
	const size_t llen = strlen(SK_INSTALL_LIBDIR);

	if (mapped_file((const void *)(uintptr_t)sk__os_tracer_note, lib, sizeof(lib))) {
		size_t dlen = (size_t)(strrchr(lib, '/') - lib);
		if (dlen > llen && lib[dlen - llen - 1] == '/' &&
		    memcmp(lib + dlen - llen, SK_INSTALL_LIBDIR, llen) == 0 &&
		    (size_t)snprintf(buf, size, "source %.*s/%s/gdb/auto-load"
				     "%.*s/%s", (int)(dlen - llen - 1), lib,
				     SK_INSTALL_DATADIR, (int)dlen, lib,
				     SK_GDB_SCRIPT_NAME) < size &&
		    access(buf + strlen("source "), R_OK) == 0)
			return buf;
	}
#endif
	(void)buf, (void)size;
	return SCRIPT_HINT;
}

/* Up to @size - 1 bytes of the file at @path, NUL-terminated, with the
 * system calls alone: this runs inside updates, which may run in signal
 * handlers (no stdio, no malloc: core/lock.c).  Return: bytes read, or 0. */
static size_t read_small(const char *path, char *buf, size_t size)
{
	size_t got = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while (got + 1 < size &&
	       (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	return got;
}

/* The tracer's pid, or 0; and its command name into @comm. */
static long tracer_pid(char *comm, size_t size)
{
	char status[4096], path[64];
	long pid = 0;

	/* In the library's one place (os/linux/fd_slot.c), under the patch lock;
	 * one file at a time. */
	sk__os_fdslot_lend();
	if (read_small("/proc/self/status", status, sizeof(status))) {
		const char *t = strstr(status, "\nTracerPid:");
		if (t)
			pid = strtol(t + strlen("\nTracerPid:"), NULL, 10);
	}
	snprintf(comm, size, "?");
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (pid > 0 && read_small(path, comm, size))
		comm[strcspn(comm, "\n")] = '\0';
	sk__os_fdslot_return();
	return pid;
}

void sk__os_tracer_note(void)
{
	static atomic_bool said;
	static _Atomic long last_check;
	struct timespec now;
	char comm[32], hint[2 * PATH_MAX];

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
		 "(not `continue`), or load the script: %s (docs/operations.md, "
		 "\"Caveats for users\")", comm, pid, script_hint(hint, sizeof(hint)));
}
