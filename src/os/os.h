/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/os.h - the OS porting contract: what the runtime asks of the
 * operating system, whatever the architecture (prefix sk__), and nothing
 * else.  The OS layer implements it, below control/, trace/, core/ and
 * arch/ and above src/support/ (settings, messages, statistics, memory,
 * injection), which it uses.  Two of its duties sit below support/, in a
 * layer of their own ("primitives", tools/check_layers.py): the pages of
 * support/mem.c and the environment of support/settings.c.  They are
 * files of their own (<os>/pages.c, <os>/environ.c) that call nothing of
 * the runtime, so support/ can ask the OS for them without a circle, and
 * this header, which only declares, is in that bottom layer too.
 *
 * As arch/backend.h is for an architecture, this header is the whole of what
 * an OS provides; core/ and control/ ask the OS nothing else and test for no
 * OS.  Each OS lists its files in src/sources.txt (os.<os>, which CMake
 * and the Rust crate's build script both read), implementing every section
 * marked [OS] below:
 *
 *   <os>/writer.c, sync.c  writing code bytes (sk__writer_*) and serialising
 *                          every core running the process (sk__sync_*);
 *                          unpatched/writer_sync.c where nothing is patched
 *   <os>/fd_slot.c         the library's one descriptor for files
 *                          (sk__fdslot_*); unpatched/fd_slot.c: none
 *   <os>/futex.c           thread ids and waiting on a word (patch lock)
 *   <os>/process.c         the process and its program (sk__os_*)
 *   <os>/environ.c         the environment as a privileged program may
 *                          trust it (sk__os_secure_getenv, support/settings.c)
 *   <os>/dgram.c           Unix datagram sockets: a client's address, who
 *                          sent a datagram (sk__os_dgram_*, sk__os_creds_*);
 *                          none on Windows (control/no_socket.c)
 *   <os>/watch.c           told when a directory's entries change
 *   <os>/pages.c           pages for the update path's memory
 *                          (sk__os_pages_*, support/mem.c)
 *   <os>/thread.c          the runtime's own threads, fork handlers
 *   <os>/syslog.c          the system log (STATICKEYS_AUDIT=syslog)
 *   elf/image.c            the loaded object holding an address
 *                          (sk__os_image_of), for the ELF systems;
 *                          macho/image.c for macOS, pe/image.c for
 *                          Windows; <format>/symbols.c: a function's name
 *                          for a message; elf/text_relocs.c: the
 *                          relocations a link kept (static calls' call
 *                          sites; none for Mach-O and PE)
 *   trap delivery          only with an architecture whose patch protocol
 *                          traps (x86): bringing a trapping thread to the
 *                          architecture and resuming it where it says
 *                          (sk__os_trap_*; traps.<os> in src/sources.txt):
 *                          linux/trap_signal.c (SIGTRAP) with the signal-mask
 *                          wrappers (linux/sigmask*.c), the thread check
 *                          (linux/threads_check.c) and the tracer's note
 *                          (linux/tracer_note.c); windows/trap_veh.c (a
 *                          vectored exception handler)
 *
 * Folders shared by several OSes: bsd/ (FreeBSD and macOS: kqueue),
 * unpatched/ (an OS where the portable backend is the only one), elf/,
 * posix/ (pages, threads, fork handlers and syslog of the POSIX systems;
 * the program's file opened by its path, FreeBSD and macOS); and
 * writer_common.c, what the OS writers share (writer_common.h).
 *
 * Functions return 0 (or a count) or a negative errno; what an OS cannot
 * have returns -ENOTSUP, never a guess (docs/porting.md, "Platforms").
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
#include <stdlib.h>

#include "statickeys/config.h"

/* The control socket's reply while the program exits, where the C library
 * lacks the code (mingw-w64): it has no control socket there either. */
#ifndef ESHUTDOWN
#define ESHUTDOWN 1000
#endif

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

/* ---- [OS] primitives: what support/ asks of the OS ---------------------- */

/* Each in a file that calls nothing of the runtime (no message, setting or
 * counter), as support/ is below the rest of the OS layer: <os>/pages.c
 * (posix/pages.c on the POSIX systems) and <os>/environ.c. */

/* sk__os_pages_map - @len bytes (a multiple of the page size) of zeroed,
 * read-write pages of the runtime's own, for support/mem.c; safe in a
 * signal handler.  Return: them, or NULL. */
void *sk__os_pages_map(size_t len);
/* sk__os_pages_unmap - give back pages of sk__os_pages_map (all @len). */
void sk__os_pages_unmap(void *p, size_t len);
/* sk__os_secure_getenv - getenv(@name), but NULL in a program that runs
 * with more privileges than whoever started it (secure_getenv: set-user-ID,
 * file capabilities; macOS: issetugid(); Windows has no such programs:
 * getenv), for support/settings.c. */
const char *sk__os_secure_getenv(const char *name);

/* ---- [OS] <os>/futex.c: thread ids and waiting, for the patch lock ------ */

/* sk__thread_id - the calling thread's id (never 0); async-signal-safe. */
uint32_t sk__thread_id(void);
/* sk__thread_id_after_fork_child - the forking thread has a new id. */
void sk__thread_id_after_fork_child(void);
/* sk__futex_wait - sleep while *@word == @expected (may return early). */
void sk__futex_wait(uint32_t *word, uint32_t expected);
/* sk__futex_wake_one - wake one thread sleeping on @word. */
void sk__futex_wake_one(uint32_t *word);
/* sk__futex_wake_all - wake every thread sleeping on @word (the patch lock
 * hands itself to one waiter, which need not be the one a single wake
 * would reach). */
void sk__futex_wake_all(uint32_t *word);

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
/* sk__writer_one_call - a span is written by one system call (procmem):
 * no signal handler of the writing thread can run between its bytes. */
bool sk__writer_one_call(void);
const char *sk__writer_name(void);
/* sk__writer_select - make @writer (SK_WRITER_*) the writer, if it works in
 * this process.  Return: 0, -EINVAL (unknown), -ENOTSUP (refused here). */
int sk__writer_select(int writer);
/* After fork: the /proc/self/mem descriptor names the parent's memory. */
void sk__writer_after_fork_child(void);

/* ---- [OS] <os>/sync.c: every core of the process serialised -------------- */

/* sk__sync_init - register for membarrier SYNC_CORE or set up the fallback.
 * What the architecture knows, given by runtime.c (arch/backend.h):
 * @tlb_ipi_serialises, the fallback's TLB shootdown interrupts (and so
 * serialises) every CPU running the process; @serialize_self makes this
 * CPU refetch instructions, where the OS's sync does not serialise the
 * caller (Linux < 5.11). */
void sk__sync_init(bool tlb_ipi_serialises, void (*serialize_self)(void));
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

/* sk__os_process_watch - a process that a client waits on (skctl, for the
 * reply of the process it addressed), held so that its exit is noticed at
 * once, and so that a later process given the same pid is not taken for
 * it. */
struct sk__os_process_watch {
	long pid;
	/* poll() reports it readable once the process has exited, a zombie
	 * included (Linux: a pidfd); -1 where the OS gives none: then ask
	 * sk__os_process_gone() every SK__OS_PROCESS_POLL_MS. */
	int fd;
	/* When it started, in the OS's own units; 0 where it cannot be
	 * told (then a reused pid passes for the process). */
	uint64_t start;
};
#define SK__OS_PROCESS_POLL_MS 20
/* sk__os_process_watch_open - start watching process @pid (an open()
 * needs a close()).  Return: 0, -ESRCH if there is no such process (or
 * only its zombie), or another -errno. */
int sk__os_process_watch_open(struct sk__os_process_watch *w, long pid);
/* sk__os_process_gone - the process @w watches has exited (a zombie
 * counts: it answers nothing) or no longer exists, or its pid now names
 * a process started later.  One system call or one small file. */
bool sk__os_process_gone(const struct sk__os_process_watch *w);
/* sk__os_process_watch_close - let go of @w's descriptor, if any. */
void sk__os_process_watch_close(struct sk__os_process_watch *w);

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

/* sk__os_reloc_want - one pc-relative relocation of an object's code: the
 * loaded address of the 32-bit field it fills, its type and addend (the
 * format's, e.g. ELF's R_X86_64_PLT32).  Return: true to take it. */
typedef bool sk__os_reloc_want(void *ctx, uintptr_t field, unsigned type,
			       int64_t addend);
/* sk__os_text_relocs - the relocations of the code of the object whose
 * file is @path (@program: the running program's own) loaded at @bias, as
 * its link kept them (ELF: -Wl,--emit-relocs), those against a symbol
 * whose name starts with @prefix (cheaply skipping the rest) each asked
 * of @want; the
 * loaded addresses of the fields it takes into @out (at most @max), each
 * confirmed: the file holds the loaded bytes from @before bytes before the
 * field to its end.  Read from the file (in the library's one place for
 * files: the caller lends it).  *@kept says what the file keeps (a
 * static call's call sites say why they were not found: skctl calls).
 * Return: how many, 0 where the link kept none or the format has none to
 * keep (elf/text_relocs.c; macho/ and pe/: 0, SK__RELOCS_UNREADABLE), or
 * -errno (-E2BIG: more than @max). */
enum sk__os_relocs {
	SK__RELOCS_KEPT,       /* read */
	SK__RELOCS_NONE,       /* the link kept none (no --emit-relocs) */
	SK__RELOCS_STRIPPED,   /* no symbol table (strip removed both) */
	SK__RELOCS_UNREADABLE, /* the file could not be read, or keeps them
				* in a form not read (SHT_REL, PE, Mach-O) */
};
long sk__os_text_relocs(const char *path, bool program, uintptr_t bias,
			const char *prefix, unsigned before,
			sk__os_reloc_want *want, void *ctx,
			uint64_t *out, size_t max, enum sk__os_relocs *kept);

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
/* sk__os_watch_event - one event of a drain: the entry @name of a watched
 * directory (NULL where the OS does not say which) was created, deleted,
 * renamed in or out, or written and closed; or, @writing, written and not
 * closed yet (said only where the OS tells: Linux).  Return: whether it
 * counts for the drain's result. */
typedef bool sk__os_watch_event(const char *name, bool writing);
/* sk__os_watch_drain - consume every pending event, each told to @event;
 * true if one counted. */
bool sk__os_watch_drain(int fd, sk__os_watch_event *event);

/* ---- [OS, with a trapping architecture] trap delivery ------------------ */

/* sk__trap_resume_fn - the architecture's answer for a thread that ran the
 * trap instruction at @pc: where it resumes, or 0 if the trap is not the
 * runtime's (x86: arch/x86_64/trap.c); and in *@push a word the thread's
 * stack gets first, as a call instruction would push its return address
 * (0: none; set only when it resumes).  Lock-free, async-signal-safe. */
typedef uintptr_t (*sk__trap_resume_fn)(uintptr_t pc, uintptr_t *push);

/* sk__os_trap_init - once, at start-up (the architecture's sk__arch_init):
 * get ready to deliver traps to @resume (Windows: the handler is added
 * now; Linux: the signal-mask wrappers' bookkeeping). */
void sk__os_trap_init(sk__trap_resume_fn resume);
/* sk__os_trap_before_lock - before the patch lock is taken for an update:
 * whatever the delivery must ask the dynamic linker first (Linux: the
 * signal-mask wrappers' lookups). */
void sk__os_trap_before_lock(void);
/* sk__os_trap_install - before each batch: make sure our handler is the
 * installed one (Linux: the SIGTRAP handler, chaining to whatever was
 * there; Windows: the first vectored exception handler).
 * Return: 0 or -errno. */
int sk__os_trap_install(void);
/* sk__os_trap_update_allowed - 0, or -EBUSY / -ENOTSUP (with a message
 * naming why) if some thread could not take the trap (Linux: one that
 * blocks SIGTRAP would be killed; Windows: none can). */
int sk__os_trap_update_allowed(void);
/* sk__os_trap_after_fork_child - forget what named the parent's threads. */
void sk__os_trap_after_fork_child(void);
/* sk__os_trap_can_push - a return address that @resume asks to push (an
 * emulated call) would be accepted by the callee's `ret` in the calling
 * thread: false where it has a shadow stack (x86 CET, which only `call`
 * and the kernel write), or STATICKEYS_SHADOW_STACK=assume says to act
 * as if it had.  Async-signal-safe. */
bool sk__os_trap_can_push(void);
/* sk__os_trap_hold_signals - from @hold true to @hold false, the calling
 * thread runs no handler of an asynchronous signal (Linux: they are
 * blocked, then its mask is put back; Windows: there are none).  Around a
 * batch whose calls are not emulated (sk__os_trap_can_push): a handler
 * that ran one of its sites on the updating thread would wait for itself. */
void sk__os_trap_hold_signals(bool hold);
/* sk__os_tracer_note - under a debugger, say once on stderr how to let
 * the runtime's traps through (called at each update; cheap when not
 * traced). */
void sk__os_tracer_note(void);

#endif /* SK_OS_H */
