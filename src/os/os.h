/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/os.h - the OS porting contract: what the runtime asks of the
 * operating system, whatever the architecture (prefix sk__).  The bottom
 * layer: it calls no other.
 *
 * As arch/backend.h is for an architecture, this header is the whole of what
 * an OS provides; core/ and control/ ask the OS nothing else and test for no
 * OS.  Each OS lists its files in SK_OS_SOURCES_<os> (src/CMakeLists.txt,
 * which the Rust crate's build script reads too), implementing every
 * section marked [OS] below:
 *
 *   <os>/writer.c, sync.c  writing code bytes (sk__writer_*) and serialising
 *                          every core running the process (sk__sync_*);
 *                          unpatched/writer_sync.c where nothing is patched
 *   <os>/fd_slot.c         the library's one descriptor for files
 *                          (sk__fdslot_*); unpatched/fd_slot.c: none
 *   <os>/futex.c           thread ids and waiting on a word (patch lock)
 *   <os>/process.c         the process and its program (sk__os_*)
 *   <os>/dgram.c           Unix datagram sockets: a client's address, who
 *                          sent a datagram (sk__os_dgram_*, sk__os_creds_*);
 *                          none on Windows (control/no_socket.c)
 *   <os>/watch.c           told when a directory's entries change
 *   <os>/pages.c           pages for the update path's memory (mem.c)
 *   <os>/thread.c          the runtime's own threads, fork handlers
 *   <os>/syslog.c          the system log (STATICKEYS_AUDIT=syslog)
 *   elf/image.c            the loaded object holding an address
 *                          (sk__os_image_of), for the ELF systems;
 *                          macho/image.c for macOS, pe/image.c for
 *                          Windows; <format>/symbols.c: a function's name
 *                          for a message
 *
 * Folders shared by several OSes: bsd/ (FreeBSD and macOS: kqueue),
 * unpatched/ (an OS where the portable backend is the only one), elf/,
 * posix/ (pages, threads, fork handlers and syslog of the POSIX systems;
 * the program's file opened by its path, FreeBSD and macOS).
 *
 * Functions return 0 (or a count) or a negative errno; what an OS cannot
 * have returns -ENOTSUP, never a guess (README, "Platforms").  The other
 * files of src/os/ are the same on every OS: the STATICKEYS_* settings
 * (env.c), counters, histograms and messages (stats.c, stats_report.c),
 * the update path's own memory (mem.c) and the fault-injection hook of the
 * tests.
 *
 * src/os/linux/ is the reference: its files say what each call costs there.
 */
#ifndef SK_OS_H
#define SK_OS_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h> /* mingw-w64 defines __MINGW_PRINTF_FORMAT there */
#include <stdlib.h>

#include "statickeys/config.h"
#include "statickeys/stats.h"

/* The C library's printf formats, for format attributes: C99's (%zu...).
 * mingw-w64's "printf" is Microsoft's; the runtime is built there with
 * __USE_MINGW_ANSI_STDIO, whose functions take C99's, which it names. */
#ifdef __MINGW_PRINTF_FORMAT
#define SK__PRINTF __MINGW_PRINTF_FORMAT
#else
#define SK__PRINTF printf
#endif

/* The control socket's reply while the program exits, where the C library
 * lacks the code (mingw-w64): it has no control socket there either. */
#ifndef ESHUTDOWN
#define ESHUTDOWN 1000
#endif

/* ---- env.c: the STATICKEYS_* settings ------------------------------------ */

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
 * not instrumented, env.c is). */
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
/* sk__single_threaded - the process has never had a second thread (the C
 * library's own flag, glibc 2.32 and later; elsewhere: false, as it cannot
 * be told).  While it holds, nothing can run beside the caller: no thread
 * can wait for a lock or fork under its feet. */
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
static inline bool sk__single_threaded(void)
{
	return __libc_single_threaded != 0;
}
#else
static inline bool sk__single_threaded(void)
{
	return false;
}
#endif

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

/* The settings of code patching (env.c). */
enum sk__setting {
	SK__SETTING_WRITER,          /* procmem (0), mprotect (1) */
	SK__SETTING_SYNC,            /* membarrier (0), mprotect (1) */
	SK__SETTING_KEEP_SIGTRAP,    /* 1 (0), 0 (1) */
	SK__SETTING_BLOCKED_SIGTRAP, /* refuse (0), warn (1) */
	SK__SETTING_COUNT
};
/* sk__setting - the index of @which's value in its words, 0 being the
 * default (as sk__env_choice, but a bad value is named only once). */
int sk__setting(enum sk__setting which);
/* sk__settings_check - read every setting, so a bad value is named at
 * start-up on every backend, also where nothing reads it later. */
void sk__settings_check(void);

/* ---- [OS] <os>/futex.c: thread ids and waiting, for the patch lock ------ */

/* sk__thread_id - the calling thread's id (never 0); async-signal-safe. */
uint32_t sk__thread_id(void);
/* sk__thread_id_after_fork_child - the forking thread has a new id. */
void sk__thread_id_after_fork_child(void);
/* sk__futex_wait - sleep while *@word == @expected (may return early). */
void sk__futex_wait(uint32_t *word, uint32_t expected);
/* sk__futex_wake_one - wake one thread sleeping on @word. */
void sk__futex_wake_one(uint32_t *word);

/* ---- mem.c: memory for the update path ---------------------------------- */

/* sk__mem_alloc - @size zeroed bytes from pages of the runtime's own (mmap),
 * never malloc: safe in a signal handler.  The caller holds the patch lock.
 * Return: the block, or NULL. */
void *sk__mem_alloc(size_t size);
/* sk__mem_free - give back a block of sk__mem_alloc (NULL: nothing). */
void sk__mem_free(void *p);
/* sk__mem_realloc - @p grown to @size bytes (the new tail is zeroed);
 * NULL, with @p untouched, when there is no memory. */
void *sk__mem_realloc(void *p, size_t size);
/* sk__mem_bytes - the bytes of live blocks (sk_stats_runtime_bytes). */
size_t sk__mem_bytes(void);
/* sk__sort - qsort() without its buffer (a heap sort): safe in a signal
 * handler. */
void sk__sort(void *base, size_t n, size_t size,
	      int (*cmp)(const void *, const void *));

/* ---- [OS] <os>/pages.c: pages for mem.c -------------------------------- */

/* sk__os_pages_map - @len bytes (a multiple of the page size) of zeroed,
 * read-write pages of the runtime's own; safe in a signal handler.
 * Return: them, or NULL. */
void *sk__os_pages_map(size_t len);
/* sk__os_pages_unmap - give back pages of sk__os_pages_map (all @len). */
void sk__os_pages_unmap(void *p, size_t len);

/* ---- [OS] <os>/thread.c: the runtime's threads, fork handlers ----------- */

/* sk__os_thread_create - start @fn in a thread of the runtime's own (the
 * control socket's server, the STATICKEYS_FILE and tracepoint watchers)
 * that takes none of the program's asynchronous signals.
 * Return: 0 or -errno. */
int sk__os_thread_create(pthread_t *thread, void *(*fn)(void *));
/* sk__os_atfork - pthread_atfork(); 0 and nothing where the OS has no
 * fork() (Windows). */
int sk__os_atfork(void (*prepare)(void), void (*parent)(void),
		  void (*child)(void));

/* ---- [OS] <os>/syslog.c: the system log --------------------------------- */

/* sk__os_syslog_open - open the system log now (at start-up: the
 * library's descriptors are all taken then).  Return: 0, or -ENOTSUP
 * where there is none (the audit lines then go to stderr). */
int sk__os_syslog_open(void);
/* sk__os_syslog - one line to it, as a notice. */
void sk__os_syslog(const char *line);

/* ---- code layout -------------------------------------------------------- */

/* sk__segment - an executable PT_LOAD segment of an object. */
struct sk__segment {
	uintptr_t lo, hi;
	int prot; /* PROT_* from the program header */
};

/* ---- [OS] <os>/fd_slot.c: the library's one descriptor for files -------- */

/* sk__fdslot_init - at start-up: take the place (/proc/self/mem).
 * Return: 0 or -errno (nothing is held then). */
int sk__fdslot_init(void);
/* sk__fdslot_lend - before the runtime opens a file for a moment (under
 * the patch lock): give the place back, so that the file takes it.  Open
 * one file at a time, close it, then call sk__fdslot_return(). */
void sk__fdslot_lend(void);
/* sk__fdslot_return - take the place back (reopen /proc/self/mem) if it
 * was lent; if the table is full it stays lent, and the next write tries. */
void sk__fdslot_return(void);
/* sk__fdslot_hold - for a batch of writes: the /proc/self/mem descriptor,
 * taken back if lent and checked to be ours (fstat); the place is this
 * thread's until sk__fdslot_release().  Return: the descriptor, or -errno
 * (then nothing is held). */
int sk__fdslot_hold(void);
/* sk__fdslot_held_fd - the descriptor, while held. */
int sk__fdslot_held_fd(void);
void sk__fdslot_release(void);
/* After fork: /proc/self/mem reopened onto the same number. */
void sk__fdslot_after_fork_child(void);

/* ---- [OS] <os>/writer.c: writing code ------------------------------------ */

/* sk__span - a run of site bytes (byte-adjacent sites) written in one call;
 * never covers a byte that is not part of a site. */
struct sk__span {
	uintptr_t addr;
	size_t len;
	const unsigned char *bytes;
	const struct sk__segment *segment;
	/* One aligned instruction word that other threads may be executing,
	 * changed without a trap protocol (aarch64): store it whole, never
	 * byte by byte. */
	bool whole_word;
};

/* sk__writer_ready - probe (once) and return 0, or -EPERM if no writer
 * works in this process. */
int sk__writer_ready(void);
int sk__writer_begin(const struct sk__span *spans, size_t n);
int sk__writer_write(const struct sk__span *spans, size_t n);
int sk__writer_end(const struct sk__span *spans, size_t n);
/* sk__writer_end_serialises - sk__writer_end() interrupts every CPU running
 * the process (mprotect: the TLB shootdown of taking write permission
 * away), which the x86-64 protocol uses as its last step's core sync. */
bool sk__writer_end_serialises(void);
const char *sk__writer_name(void);
/* After fork: the /proc/self/mem descriptor names the parent's memory. */
void sk__writer_after_fork_child(void);

/* ---- writer_common.c: what the OS writers share ------------------------- */

/* The writers, as the API numbers them (sk_config_set_writer), and two
 * states. */
enum { SK__W_PROCMEM = (int)SK_WRITER_PROCMEM,
       SK__W_MPROTECT = (int)SK_WRITER_MPROTECT, SK__W_NONE = -1,
       SK__W_UNPROBED = -2 };

/* sk__writer_ops - an OS's two writers. */
struct sk__writer_ops {
	int (*probe)(int writer);           /* 0: it writes here, or -errno */
	const char *(*name)(int writer);    /* as sk_stats names it */
	const char *(*refused)(int writer); /* what was refused, for a message */
};
/* sk__writer_choose - the writer STATICKEYS_WRITER asks for if it works
 * here, else the other one (with a warning), else SK__W_NONE (with a
 * warning naming both refusals). */
int sk__writer_choose(const struct sk__writer_ops *ops);
/* sk__writer_switch - sk__writer_select() for the OS writer whose state is
 * *@current.  Return: 0, -EINVAL (unknown), -ENOTSUP (refused here). */
int sk__writer_switch(const struct sk__writer_ops *ops, int *current,
		      int writer);
/* sk__span_range - the pages to open for a batch's spans from *@i on:
 * those in one executable segment (sorted spans; a span outside any known
 * segment alone), from the first one's page to the last one's, less what
 * an earlier range covered (*@done, raised to the range's end).  Advances
 * *@i.  Return: false if nothing is left to open there. */
bool sk__span_range(const struct sk__span *spans, size_t n, size_t *i,
		    size_t page_size, uintptr_t *done, uintptr_t *lo,
		    uintptr_t *hi);
/* sk__store_code - store @s's bytes with plain byte stores, only those
 * that differ (the mprotect writers, into pages opened for writing). */
void sk__store_code(const struct sk__span *s);

/* ---- [OS] <os>/sync.c: every core of the process serialised -------------- */

/* sk__sync_init - register for membarrier SYNC_CORE or set up the fallback. */
void sk__sync_init(void);
/* sk__sync_cores - every thread of the process serialises before it runs
 * another user instruction. Return: 0 or -errno. */
int sk__sync_cores(void);
const char *sk__sync_name(void);

/* ---- [OS] <os>/process.c: the process, its program and its peers --------- */

/* What the kernel told the program at exec (Linux: the auxiliary vector);
 * 0 where the OS does not tell it. */
enum sk__os_aux {
	SK__AUX_ENTRY,       /* the program's entry point */
	SK__AUX_PHDR,        /* the program's ELF program headers... */
	SK__AUX_PHNUM,       /* ...and how many there are */
	SK__AUX_INTERP_BASE, /* where the dynamic linker is (0: none) */
};
/* sk__os_aux - @which, as the kernel passed it: no system call, usable at
 * start-up and in a signal handler. */
uintptr_t sk__os_aux(enum sk__os_aux which);

/* sk__os_control_path - the default control socket of process @pid into
 * @buf: Linux, "@statickeys-PID" in the abstract namespace (no file, gone
 * with the process); an OS without one, a file "statickeys-PID.sock" in
 * @runtime_dir, else /tmp.  Return: 0 or -ENAMETOOLONG. */
int sk__os_control_path(long pid, const char *runtime_dir, char *buf,
			size_t len);
/* sk__os_abstract_sockets - Unix socket names may be abstract ("@name"). */
bool sk__os_abstract_sockets(void);

/* sk__os_secure_getenv - getenv(@name), but NULL in a program that runs
 * with more privileges than whoever started it (secure_getenv: set-user-ID,
 * file capabilities; macOS: issetugid(); Windows has no such programs:
 * getenv). */
const char *sk__os_secure_getenv(const char *name);
/* sk__os_name_thread - name thread @t for top, ps and debuggers (@name at
 * most 15 bytes).  Return: 0, -errno, or -ENOTSUP where only a thread may
 * name itself (macOS). */
int sk__os_name_thread(pthread_t t, const char *name);

/* sk__os_argv0 - the program's name as it was started (argv[0], or what the
 * OS keeps of it); called at start-up, so no lookup and no allocation. */
const char *sk__os_argv0(void);

/* sk__peer - who sent a datagram, in the kernel's word (never the
 * sender's own claim). */
struct sk__peer {
	long pid; /* -1 where the OS does not tell it */
	unsigned uid;
};
/* sk__os_process_name - the command name of process @pid into @out (@len
 * bytes, NUL-terminated, the OS's own bytes: the caller makes them safe to
 * print).  Opens one descriptor for the call.  Return: its length, or
 * -errno. */
int sk__os_process_name(long pid, char *out, size_t len);
/* sk__os_open_program - a read-only descriptor (close-on-exec) of the
 * running program's own file, also when its path has changed since exec.
 * Return: the descriptor, or -errno. */
int sk__os_open_program(void);
/* sk__os_program_path - the path of the running program's file into @out
 * (@len bytes, NUL-terminated).  Return: its length, or -errno. */
int sk__os_program_path(char *out, size_t len);

/* ---- [OS] the loaded object that holds an address (elf/, macho/) ------- */

#define SK__IMAGE_SEGMENTS 4

/* sk__image - a loaded object (program, shared library, plugin). */
struct sk__image {
	/* Its file, as the loader names it: the program's argv[0] (copied
	 * once, for the process's life), "" if unknown. */
	const char *path;
	uintptr_t bias;   /* where it was loaded, above its link addresses */
	uintptr_t lo, hi; /* the span of all its loaded segments */
	struct sk__segment segments[SK__IMAGE_SEGMENTS]; /* executable ones */
	unsigned nsegments;
};
/* sk__os_image_of - the object that holds @probe.  May take the dynamic
 * linker's lock (never under the patch lock); the main program's needs no
 * call into the dynamic linker. */
void sk__os_image_of(const void *probe, struct sk__image *img);
/* sk__os_in_program - @addr is in the main program (asks no loader). */
bool sk__os_in_program(const void *addr);
/* sk__os_pin_image - the object that holds @addr is never unloaded. */
void sk__os_pin_image(const void *addr);

/* sk__os_symbol_of - the function of the object file @path ("": the
 * running program's) that holds link-time address @vaddr: its name into
 * @name (@len bytes) and @vaddr's *@offset in it; read from the file, never
 * from the loader (the patch lock may be held).  Error path only, best
 * effort.  Return: true if found (elf/symbols.c; pe/symbols.c: false). */
bool sk__os_symbol_of(const char *path, uint64_t vaddr, char *name, size_t len,
		      uint64_t *offset);

/* ---- [OS] <os>/dgram.c: Unix datagram sockets (the control plane) -------- */

/* sk__os_dgram_socket - a close-on-exec AF_UNIX datagram socket, or -errno. */
int sk__os_dgram_socket(void);
/* sk__os_dgram_recv_flags - recvmsg() flags that close-on-exec any
 * descriptor a sender passes (MSG_CMSG_CLOEXEC), 0 where the OS has none. */
int sk__os_dgram_recv_flags(void);
/* sk__os_dgram_bind_client - give client socket @fd an address the server
 * can answer: Linux autobinds a name in the abstract namespace (@path gets
 * ""); elsewhere a socket file of mode 0600 in $TMPDIR or /tmp, whose path
 * goes into @path (@len bytes) for the caller to unlink.  Return: 0 or
 * -errno. */
int sk__os_dgram_bind_client(int fd, char *path, size_t len);

/* Bytes of ancillary data to give recvmsg() for the credentials (aligned:
 * use union sk__creds_buffer). */
#define SK__CREDS_SPACE 512
union sk__creds_buffer {
	char buf[SK__CREDS_SPACE];
	uint64_t align;
};
struct msghdr;
/* sk__os_creds_enable - have the kernel attach its sender's credentials to
 * every datagram received on Unix socket @fd (Linux SO_PASSCRED, FreeBSD
 * LOCAL_CREDS_PERSISTENT).  Return: 0, -errno, or -ENOTSUP where the OS
 * cannot (macOS): then only the socket file's permissions decide who may
 * send (control/listener.c makes it 0600). */
int sk__os_creds_enable(int fd);
/* sk__os_creds_read - the credentials attached to the datagram @m received
 * (its msg_control a union sk__creds_buffer).  Return: true if found. */
bool sk__os_creds_read(const struct msghdr *m, struct sk__peer *peer);

/* ---- [OS] <os>/watch.c: told when a directory's entries change ---------- */

/* sk__os_watch_open - a descriptor (close-on-exec, non-blocking) that poll()
 * reports readable once an entry of a watched directory was written,
 * created, renamed or deleted.  Return: it, or -errno (-ENOTSUP where the
 * OS cannot watch: STATICKEYS_FILE is then read once, at start-up). */
int sk__os_watch_open(void);
/* sk__os_watch_add - watch @dir's entries too.  Return: 0 or -errno. */
int sk__os_watch_add(int fd, const char *dir);
/* sk__os_watch_drain - consume every pending event; true if there was one. */
bool sk__os_watch_drain(int fd);

/* ---- stats.c ------------------------------------------------------------ */

enum sk__counter {
	SK__C_UPDATES,
	SK__C_BATCHES,
	SK__C_SITES_WRITTEN,
	SK__C_TEXT_WRITES,
	SK__C_CORE_SYNCS,
	SK__C_TRAPS_HANDLED,
	SK__C_TRAPS_CHAINED,
	SK__C_UPDATE_ERRORS,
	SK__C_COUNT
};

void sk__count(enum sk__counter c, uint64_t n); /* async-signal-safe */
/* sk__counter - the current value of @c (relaxed). */
uint64_t sk__counter(enum sk__counter c);
void sk__hist_record(enum sk_hist h, uint64_t ns);
uint64_t sk__now_ns(void);

/* sk__strerror - strerror(@err), also for the POSIX codes a C library does
 * not name (mingw-w64's msvcrt: "Unknown error" for ENOTSUP). */
const char *sk__strerror(int err);

/* sk__warn - one line on stderr, prefixed "statickeys: ". */
void sk__warn(const char *fmt, ...) __attribute__((format(SK__PRINTF, 1, 2)));

/* sk__writer_select - make @writer (SK_WRITER_*) the writer, if it works in
 * this process.  Return: 0, -EINVAL (unknown), -ENOTSUP (refused here). */
int sk__writer_select(int writer);

/* ---- fault injection (tests only) ---------------------------------------- */

enum sk__inject_point {
	SK__INJECT_AFTER_TRAP_WRITE, /* int3 written and synced (aarch64:
					the new instructions written) */
	SK__INJECT_AFTER_TAIL_WRITE, /* bytes 1.. written and synced */
	SK__INJECT_IN_TRAP_HANDLER,  /* a thread is being resumed */
};

#ifdef SK_ENABLE_INJECT
extern void (*volatile sk__inject_hook)(int point);
#define SK_INJECT(point)                                                     \
	do {                                                                 \
		void (*sk__h)(int) = sk__inject_hook;                        \
		if (sk__h)                                                   \
			sk__h(point);                                        \
	} while (0)
#else
#define SK_INJECT(point) ((void)0)
#endif

#endif /* SK_OS_H */
