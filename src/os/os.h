/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/os.h - the OS porting contract: every function an operating
 * system gives the runtime, each named sk__os_* (`grep -o 'sk__os_[a-z_0-9]*'
 * src/os/os.h` lists them), and nothing else; as arch/backend.h is for an
 * architecture.  An OS lists its files in src/sources.txt (os.<os>); the
 * reference is src/os/linux/; docs/porting.md maps files to OSes.
 *
 * Unless a contract says otherwise, a function returns 0 (or a count) or
 * -errno (-ENOTSUP where the OS cannot, never a guess); may be called from
 * any runtime thread but not from a signal handler ("signal-safe" says it
 * may); keeps no allocation or descriptor past the call.  support/ asks for
 * pages and the environment, in files that call nothing of the runtime
 * (<os>/pages.c, <os>/environ.c: "primitives", tools/check_layers.py).
 *
 * control/ asks the OS through this header, and calls itself only ISO C
 * (memory, strings, formatting) and these, for its socket's traffic, poll(),
 * its files and the clock; tools/check_layers.py checks its objects
 * against this list:
 *
 * control-libc: bind chmod close connect fstat getcwd geteuid getpid
 *   getsockname lstat nanosleep open poll read realpath recvmsg scandir
 *   sendto setsockopt shutdown stat unlink clock_gettime pthread_detach
 *   pthread_join pthread_mutex_lock pthread_mutex_unlock pthread_once
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

#ifndef ESHUTDOWN /* the control socket's reply at exit; mingw-w64 lacks it */
#define ESHUTDOWN 1000
#endif
/* sk__os_single_threaded - the process has never had a second thread
 * (glibc 2.32's __libc_single_threaded; elsewhere false, as it cannot be
 * told): nothing can run beside the caller.  Signal-safe. */
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define SK__OS_SINGLE_THREADED (__libc_single_threaded != 0)
#else
#define SK__OS_SINGLE_THREADED false
#endif
static inline bool sk__os_single_threaded(void)
{
	return SK__OS_SINGLE_THREADED;
}

/* ---- <os>/pages.c, <os>/environ.c: for support/ ------------------------ */
/* sk__os_pages_map - @len bytes (page multiple) of zeroed read-write pages
 * for support/mem.c.  Signal-safe.  Return: them, or NULL. */
void *sk__os_pages_map(size_t len);
/* sk__os_pages_unmap - give back all @len bytes of sk__os_pages_map. */
void sk__os_pages_unmap(void *p, size_t len);
/* sk__os_secure_getenv - getenv(@name), but NULL in a program with more
 * privilege than its starter (set-user-ID, capabilities), for settings. */
const char *sk__os_secure_getenv(const char *name);

/* ---- <os>/futex.c: thread ids and waiting on a word (the patch lock) ---- */
/* sk__os_thread_id - the calling thread's id, never 0.  Signal-safe. */
uint32_t sk__os_thread_id(void);
/* sk__os_thread_id_after_fork_child - in the child: a new id. */
void sk__os_thread_id_after_fork_child(void);
/* sk__os_futex_wait - sleep while *@word == @expected; may return early. */
void sk__os_futex_wait(uint32_t *word, uint32_t expected);
/* sk__os_futex_wake_one, _all - wake one, every thread sleeping on @word. */
void sk__os_futex_wake_one(uint32_t *word);
void sk__os_futex_wake_all(uint32_t *word);

/* ---- <os>/thread.c, <os>/syslog.c: the runtime's threads, the log ------ */
/* sk__os_thread_create - run @fn in a thread of the runtime's own (its
 * servers and watchers) that takes none of the program's async signals. */
int sk__os_thread_create(pthread_t *thread, void *(*fn)(void *));
/* sk__os_atfork - pthread_atfork(); 0 and nothing where there is no fork. */
int sk__os_atfork(void (*prepare)(void), void (*parent)(void),
		  void (*child)(void));
/* sk__os_name_thread - name thread @t (at most 15 bytes) for ps and
 * debuggers; -ENOTSUP where only a thread may name itself (macOS). */
int sk__os_name_thread(pthread_t t, const char *name);
/* sk__os_syslog_open - open the system log, at start-up (its descriptor
 * then stays open for the process's life); -ENOTSUP: audit goes to stderr. */
int sk__os_syslog_open(void);
void sk__os_syslog(const char *line); /* one line to it, as a notice */

/* ---- <os>/fd_slot.c: the library's one descriptor for files ------------ */
/* sk__os_fdslot_init - at start-up, take the library's one descriptor
 * (Linux: a stand-in for /proc/self/mem); nothing is held on error. */
int sk__os_fdslot_init(void);
/* sk__os_fdslot_lend - before opening a file for a moment (one thread at a
 * time; the file closed before sk__os_fdslot_return()). */
void sk__os_fdslot_lend(void);
/* sk__os_fdslot_return - take the slot back if lent; if the table is full
 * it stays lent, and the next write retries. */
void sk__os_fdslot_return(void);
/* sk__os_fdslot_hold - for a batch's writes: the descriptor, taken back if
 * lent, checked (fstat), this thread's until sk__os_fdslot_release(). */
int sk__os_fdslot_hold(void);
/* sk__os_fdslot_held_fd - the descriptor, while held.  Signal-safe. */
int sk__os_fdslot_held_fd(void);
/* sk__os_fdslot_release - end the hold; closes nothing, allocates nothing. */
void sk__os_fdslot_release(void);
/* sk__os_fdslot_after_fork_child - reopen onto the same number. */
void sk__os_fdslot_after_fork_child(void);

/* ---- <os>/writer.c, <os>/sync.c: writing code, serialising cores ------- */
/* sk__segment - an object's executable segment; @prot: PROT_* as linked. */
struct sk__segment { uintptr_t lo, hi; int prot; };
/* sk__span - adjacent site bytes (never others) written in one call;
 * @whole_word: an aligned word others may run, stored whole (aarch64). */
struct sk__span { uintptr_t addr; size_t len; const unsigned char *bytes;
		  const struct sk__segment *segment; bool whole_word; };
/* sk__os_writer_ready - probe and pick a writer, once: -EPERM if none works. */
int sk__os_writer_ready(void);
/* sk__os_writer_begin - under the patch lock: make @spans writable (RWX)
 * or hold the descriptor (procmem); on error nothing is held. */
int sk__os_writer_begin(const struct sk__span *spans, size_t n);
/* sk__os_writer_write - between begin and end, write @spans' bytes, any
 * number of times (the trap protocol's steps); allocates nothing. */
int sk__os_writer_write(const struct sk__span *spans, size_t n);
/* sk__os_writer_end - after each begin, even a failed write: put the
 * protection back or release the descriptor. */
int sk__os_writer_end(const struct sk__span *spans, size_t n);
/* sk__os_writer_end_serialises - writer_end() interrupts every CPU running
 * the process (mprotect's TLB shootdown): x86's last core sync. */
bool sk__os_writer_end_serialises(void);
/* sk__os_writer_one_call - a span is written by one system call (procmem):
 * no signal handler of the writer can run between its bytes. */
bool sk__os_writer_one_call(void);
/* sk__os_writer_name - "procmem", "mprotect"...: no probe, for messages. */
const char *sk__os_writer_name(void);
/* sk__os_writer_select - make @writer (SK_WRITER_*) the writer if it works
 * here: 0, -EINVAL (unknown), -ENOTSUP (refused). */
int sk__os_writer_select(int writer);
/* sk__os_writer_after_fork_child - forget the parent's memory descriptor. */
void sk__os_writer_after_fork_child(void);
/* sk__os_sync_init - at start-up, set up the core sync.  From arch/: a TLB
 * shootdown serialises the CPUs it interrupts; @serialize_self refetches. */
void sk__os_sync_init(bool tlb_ipi_serialises, void (*serialize_self)(void));
/* sk__os_sync_cores - every thread of the process, the caller included,
 * serialises before its next user instruction.  Counted in statistics. */
int sk__os_sync_cores(void);
/* sk__os_sync_name - "membarrier", "mprotect-ipi", "none": for statistics. */
const char *sk__os_sync_name(void);
/* sk__os_icache_sync - after stores to [@lo, @hi) where fetch is not
 * coherent with stores (riscv64, Linux only): every CPU running the process
 * fetches them anew; one core sync, counted. */
int sk__os_icache_sync(uintptr_t lo, uintptr_t hi);

/* ---- <os>/process.c: the process, its program, other processes ---------- */
/* What the kernel told the program at exec (Linux: the auxiliary vector). */
enum sk__os_aux { SK__AUX_ENTRY, SK__AUX_PHDR, SK__AUX_PHNUM,
		  SK__AUX_INTERP_BASE };
/* sk__os_aux - @which, or 0 where not told: no system call.  Signal-safe. */
uintptr_t sk__os_aux(enum sk__os_aux which);
const char *sk__os_argv0(void); /* the program's name; no lookup, no alloc */
/* sk__os_open_program - a read-only close-on-exec descriptor of the running
 * program's file, even if renamed since exec (the caller closes it). */
int sk__os_open_program(void);
/* sk__os_program_path - the program's path into @out: its length. */
int sk__os_program_path(char *out, size_t len);
/* sk__os_control_path - process @pid's default control socket into @buf:
 * "@statickeys-PID" (Linux), else statickeys-PID.sock in @runtime_dir|/tmp. */
int sk__os_control_path(long pid, const char *runtime_dir, char *buf,
			size_t len);
/* sk__os_abstract_sockets - Unix socket names may be abstract ("@name"). */
bool sk__os_abstract_sockets(void);
/* sk__os_process_name - process @pid's command name into @out, the OS's raw
 * bytes (the caller makes them printable): its length.  Opens one file. */
int sk__os_process_name(long pid, char *out, size_t len);
/* sk__os_process_start - when @pid started, in the OS's units: -ESRCH if
 * gone, -EPERM if not told (for os/process_watch.c: not on Linux). */
int sk__os_process_start(long pid, uint64_t *start);
/* sk__os_process_watch - a process skctl waits on, its pid never mistaken
 * for a later one's.  @fd: poll()-readable once it exited (a pidfd), or -1:
 * ask sk__os_process_gone() every SK__OS_PROCESS_POLL_MS.  @start: when it
 * started (0: unknown). */
struct sk__os_process_watch { long pid; int fd; uint64_t start; };
#define SK__OS_PROCESS_POLL_MS 20
/* sk__os_process_watch_open - start watching @pid (holds a descriptor until
 * close): -ESRCH if there is none, or only its zombie. */
int sk__os_process_watch_open(struct sk__os_process_watch *w, long pid);
/* sk__os_process_gone - the watched process exited (a zombie counts), or
 * its pid now names a later process.  One system call or one small file. */
bool sk__os_process_gone(const struct sk__os_process_watch *w);
/* sk__os_process_watch_close - let go of @w's descriptor, if any. */
void sk__os_process_watch_close(struct sk__os_process_watch *w);

/* ---- elf/, macho/, pe/: loaded objects and their files ------------------ */
#define SK__IMAGE_SEGMENTS 4
/* sk__image - a loaded object: @path as the loader names it ("" unknown;
 * the program's argv[0], kept for the process's life), @bias its load
 * offset, [@lo, @hi) all its segments, @segments the executable ones. */
struct sk__image { const char *path; uintptr_t bias, lo, hi;
		   struct sk__segment segments[SK__IMAGE_SEGMENTS];
		   unsigned nsegments; };
/* sk__os_image_of - the object holding @probe.  May take the dynamic
 * linker's lock, so never under the patch lock. */
void sk__os_image_of(const void *probe, struct sk__image *img);
/* sk__os_in_program - @addr is in the main program; asks no loader. */
bool sk__os_in_program(const void *addr);
/* sk__os_pin_image - the object holding @addr is never unloaded. */
void sk__os_pin_image(const void *addr);
/* sk__os_symbol_of - the function of file @path ("": the program) holding
 * link address @vaddr, its name and the offset, read from the file in the
 * lent fd slot (never the loader: under the patch lock); for messages. */
bool sk__os_symbol_of(const char *path, uint64_t vaddr, char *name, size_t len,
		      uint64_t *offset);
/* What a relocation fills, whatever the format (elf/text_relocs.c maps its
 * numbers): a 32-bit pc-relative field to a symbol or its PLT entry (ELF
 * x86-64: PC32, PLT32), or to its GOT entry (GOTPCREL, GOTPCRELX). */
enum sk__os_reloc_kind { SK__RELOC_OTHER, SK__RELOC_PC32, SK__RELOC_GOT_PC32 };
/* What a file kept of its relocations (skctl calls says why none): read;
 * none (no --emit-relocs); no symbol table; unreadable; the format keeps
 * none this port reads (PE, Mach-O). */
enum sk__os_relocs { SK__RELOCS_KEPT, SK__RELOCS_NONE, SK__RELOCS_STRIPPED,
		     SK__RELOCS_UNREADABLE, SK__RELOCS_NOT_KEPT };
/* sk__os_reloc_want - asked of one relocation of the code: the loaded
 * address of the 32-bit field, its kind and addend.  True: take it. */
typedef bool sk__os_reloc_want(void *ctx, uintptr_t field,
			       enum sk__os_reloc_kind kind, int64_t addend);
/* sk__os_text_relocs - the code relocations a link kept in file @path
 * (@program: ours) loaded at @bias, against symbols named @prefix*, asked
 * of @want; into @out the fields taken whose bytes from @before before
 * match the file.  Under the patch lock, in the lent fd slot; allocates
 * while reading.  Return: how many (0 on PE, Mach-O), -E2BIG, -errno. */
long sk__os_text_relocs(const char *path, bool program, uintptr_t bias,
			const char *prefix, unsigned before,
			sk__os_reloc_want *want, void *ctx,
			uint64_t *out, size_t max, enum sk__os_relocs *kept);

/* ---- <os>/dgram.c, <os>/watch.c: for control/ (none on Windows) -------- */
/* sk__peer - who sent a datagram, in the kernel's word (pid -1: untold). */
struct sk__peer { long pid; unsigned uid; };
/* sk__os_dgram_socket - a close-on-exec AF_UNIX datagram socket (its fd). */
int sk__os_dgram_socket(void);
/* sk__os_dgram_recv_flags - recvmsg() flags that close-on-exec passed
 * descriptors (MSG_CMSG_CLOEXEC), else 0. */
int sk__os_dgram_recv_flags(void);
/* sk__os_dgram_bind_client - an address for client socket @fd: abstract
 * (@path ""), or a 0600 file in $TMPDIR or /tmp (@path: caller unlinks). */
int sk__os_dgram_bind_client(int fd, char *path, size_t len);
#define SK__CREDS_SPACE 512 /* recvmsg() control bytes for credentials */
union sk__creds_buffer { char buf[SK__CREDS_SPACE]; uint64_t align; };
struct msghdr;
/* sk__os_creds_enable - the kernel attaches the sender's credentials to
 * each datagram on @fd; -ENOTSUP (macOS): the socket file's mode decides. */
int sk__os_creds_enable(int fd);
/* sk__os_creds_read - the credentials of received datagram @m (msg_control
 * a union sk__creds_buffer).  Return: found. */
bool sk__os_creds_read(const struct msghdr *m, struct sk__peer *peer);
/* sk__os_watch_open - a non-blocking close-on-exec descriptor, readable to
 * poll() once a watched directory's entry changed (-ENOTSUP: never); one at
 * a time, which may keep a mapping, no other descriptor, until closed. */
int sk__os_watch_open(void);
/* sk__os_watch_ours - @fd is still the watch, proven without reading it. */
bool sk__os_watch_ours(int fd);
void sk__os_watch_close(int fd, bool ours); /* close @fd only if @ours */
/* sk__os_watch_add - watch @dir's entries too. */
int sk__os_watch_add(int fd, const char *dir);
/* sk__os_watch_event - one event: entry @name (NULL: untold) changed, or,
 * @writing, is being written (said only where told: Linux).  True: counts. */
typedef bool sk__os_watch_event(const char *name, bool writing);
/* sk__os_watch_drain - consume every pending event: whether one counted. */
bool sk__os_watch_drain(int fd, sk__os_watch_event *event);

/* ---- traps.<os>: trap delivery, for a trapping architecture (x86) ------- */
/* sk__os_trap_resume_fn - the architecture's answer for a thread that
 * trapped at @pc: where it resumes (0: not ours) and, in *@push, a return
 * address to push first (0: none).  Lock-free, signal-safe. */
typedef uintptr_t (*sk__os_trap_resume_fn)(uintptr_t pc, uintptr_t *push);
/* sk__os_trap_init - once, at start-up: deliver traps to @resume. */
void sk__os_trap_init(sk__os_trap_resume_fn resume);
/* sk__os_trap_before_lock - before taking the patch lock for an update:
 * what must ask the dynamic linker (Linux: the sigmask wrappers' lookup). */
void sk__os_trap_before_lock(void);
/* sk__os_trap_install - before each batch: ours is the handler in force
 * (Linux: SIGTRAP, chaining; Windows: the first vectored handler). */
int sk__os_trap_install(void);
/* sk__os_trap_update_allowed - -EBUSY / -ENOTSUP, with a message, if some
 * thread could not take the trap (Linux: one blocking SIGTRAP). */
int sk__os_trap_update_allowed(void);
/* sk__os_trap_after_fork_child - forget the parent's threads. */
void sk__os_trap_after_fork_child(void);
/* sk__os_trap_can_push - a pushed return address would pass `ret`: not
 * under a shadow stack or STATICKEYS_SHADOW_STACK=assume.  Signal-safe. */
bool sk__os_trap_can_push(void);
/* sk__os_trap_hold_signals - from @hold true to false the thread runs no
 * async signal handler (around a batch whose calls are not emulated). */
void sk__os_trap_hold_signals(bool hold);
/* sk__os_tracer_note - under a debugger, say once on stderr how to let the
 * traps through; cheap when untraced (at each update). */
void sk__os_tracer_note(void);

#endif /* SK_OS_H */
