/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/windows/process.c - the process and its program, on Windows.
 *
 * There is no auxiliary vector: the program's entry point comes from its
 * own PE headers (the module of GetModuleHandleW(NULL)), which is how the
 * runtime tells the program from its DLLs (control/startup_state.c); the
 * ELF fields are 0.  Names and paths come from the loader
 * (GetModuleFileNameW) and, for another process, from
 * QueryFullProcessImageNameW.  There is no control socket (no Unix
 * datagram sockets): no default address.
 */
#include <windows.h>

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include "os/os.h"

uintptr_t sk__os_aux(enum sk__os_aux which)
{
	HMODULE program = GetModuleHandleW(NULL);
	const IMAGE_DOS_HEADER *dos = (const IMAGE_DOS_HEADER *)program;

	if (which != SK__AUX_ENTRY || !program ||
	    dos->e_magic != IMAGE_DOS_SIGNATURE)
		return 0;
	const IMAGE_NT_HEADERS *nt =
		(const IMAGE_NT_HEADERS *)((const char *)program + dos->e_lfanew);
	if (nt->Signature != IMAGE_NT_SIGNATURE ||
	    !nt->OptionalHeader.AddressOfEntryPoint)
		return 0;
	return (uintptr_t)program + nt->OptionalHeader.AddressOfEntryPoint;
}

int sk__os_control_path(long pid, const char *runtime_dir, char *buf,
			size_t len)
{
	(void)pid, (void)runtime_dir, (void)buf, (void)len;
	return -ENOTSUP;
}

bool sk__os_abstract_sockets(void)
{
	return false;
}

/* @wide (@n characters) as UTF-8 with '/' separators into @out.
 * Return: its length, or -ENAMETOOLONG. */
static int to_utf8(const wchar_t *wide, DWORD n, char *out, size_t len)
{
	int r = WideCharToMultiByte(CP_UTF8, 0, wide, (int)n, out,
				    (int)len - 1, NULL, NULL);

	if (r <= 0)
		return -ENAMETOOLONG;
	out[r] = '\0';
	for (char *c = out; *c; c++)
		if (*c == '\\')
			*c = '/';
	return r;
}

const char *sk__os_argv0(void)
{
	/* The C runtime's copy of the command line's first word. */
	return __argv && __argv[0] ? __argv[0] : "";
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int sk__os_process_name(long pid, char *out, size_t len)
{
	wchar_t wide[MAX_PATH * 2];
	char path[MAX_PATH * 4];
	DWORD n = sizeof(wide) / sizeof(wide[0]);
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE,
			       (DWORD)pid);

	if (!h)
		return -ESRCH;
	BOOL ok = QueryFullProcessImageNameW(h, 0, wide, &n);
	CloseHandle(h);
	if (!ok)
		return -EACCES;
	int r = to_utf8(wide, n, path, sizeof(path));
	if (r < 0)
		return r;
	const char *name = base_name(path);
	size_t k = strlen(name);
	if (k >= len)
		k = len - 1;
	memcpy(out, name, k);
	out[k] = '\0';
	return (int)k;
}

int sk__os_program_path(char *out, size_t len)
{
	wchar_t wide[MAX_PATH * 2];
	DWORD n = GetModuleFileNameW(NULL, wide, sizeof(wide) / sizeof(wide[0]));

	if (n == 0 || n >= sizeof(wide) / sizeof(wide[0]))
		return -ENAMETOOLONG;
	return to_utf8(wide, n, out, len);
}

int sk__os_open_program(void)
{
	char path[MAX_PATH * 4];
	int n = sk__os_program_path(path, sizeof(path));

	if (n <= 0)
		return n < 0 ? n : -ENOENT;
	/* Not inherited by child processes (O_NOINHERIT: close-on-exec). */
	int fd = open(path, O_RDONLY | O_BINARY | O_NOINHERIT);
	return fd >= 0 ? fd : -errno;
}

int sk__os_name_thread(pthread_t t, const char *name)
{
	/* winpthreads' own (it names the thread for debuggers too). */
	return -pthread_setname_np(t, name);
}

/* A process another waits on: a handle is opened and closed at each ask
 * (no descriptor for poll()); its creation time tells a later process
 * with the same id from it.  Nothing waits on one here yet (no control
 * socket, no skctl), but the contract is the same everywhere:
 * os/process_watch.c watches with it. */
int sk__os_process_start(long pid, uint64_t *start)
{
	FILETIME created, exited, kernel, user;
	DWORD code = 0;
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE,
			       (DWORD)pid);

	if (!h)
		return GetLastError() == ERROR_ACCESS_DENIED ? -EPERM : -ESRCH;
	BOOL alive = GetExitCodeProcess(h, &code) && code == STILL_ACTIVE;
	BOOL timed = GetProcessTimes(h, &created, &exited, &kernel, &user);
	CloseHandle(h);
	if (!alive)
		return -ESRCH;
	*start = timed ? ((uint64_t)created.dwHighDateTime << 32) |
				 created.dwLowDateTime
		       : 0;
	return 0;
}
