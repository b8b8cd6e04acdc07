// SPDX-License-Identifier: MIT OR Apache-2.0
//! Raw FFI declarations for the statickeys C runtime (`libstatickeys`).
//!
//! Use the `statickeys` crate instead: it defines keys and sites with the
//! same layout as the C headers and wraps these calls safely.  The build
//! script links an installed library found by pkg-config, or else builds
//! the bundled C sources (see the crate's README for the switches).
#![no_std]
#![allow(non_camel_case_types)]

// A fully static program (crt-static, the musl targets' default) links the C
// library as an archive, which the linker scans once, where it stands on the
// command line.  rustc puts a crate's native libraries before those of the
// crates it depends on: depending on std puts the C runtime before std's
// `-lc`.  Otherwise a test harness could place std first; the C library's
// signal() and pthread_sigmask() would be linked before the runtime's own
// (sigmask.c), whose definitions then collide with them (musl defines both
// under their public names), and the runtime's calls into the C library
// would find nothing.
#[cfg(target_feature = "crt-static")]
extern crate std;

use core::ffi::{c_char, c_int, c_uint, c_ulong, c_void};

/// `SK__KEY_MAGIC`: written into every key by its definition.
pub const SK_KEY_MAGIC: c_uint = 0x534b_0000;
/// `SK__KEY_INIT_TRUE`: the magic bit of keys that start enabled.
pub const SK_KEY_INIT_TRUE: c_uint = 0x1;

/// `struct sk_key` (statickeys/key.h).
#[repr(C)]
#[derive(Debug)]
pub struct sk_key {
    /// Reference count; -1 while the first enable patches (reads as on).
    pub enabled: c_int,
    /// `SK_KEY_MAGIC | initial`; bits 1..15 belong to the runtime.
    pub magic: c_uint,
    /// NUL-terminated name, or null.
    pub name: *const c_char,
    /// NUL-terminated description, or null.
    pub description: *const c_char,
}

/// `struct sk__site_entry`: one site as the compiler records it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct sk_site_entry {
    pub code: c_int,
    pub target: c_int,
    pub key: c_int,
    pub flags: c_int,
}

/// `struct sk__object_handle`: one per linked object, owned by the runtime.
#[repr(C)]
#[derive(Debug)]
pub struct sk_object_handle {
    pub refs: c_int,
    pub object: *mut c_void,
}

/// `struct sk_key_change` (statickeys/commit.h).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct sk_key_change {
    pub key: *mut sk_key,
    pub enable: bool,
}

/// `struct sk_stats` (statickeys/stats.h).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct sk_stats {
    pub updates: u64,
    pub batches: u64,
    pub sites_written: u64,
    pub text_writes: u64,
    pub core_syncs: u64,
    pub traps_handled: u64,
    pub traps_chained: u64,
    pub update_errors: u64,
    pub writer: *const c_char,
    pub sync_method: *const c_char,
    pub backend: *const c_char,
}

/// `struct sk_tracepoint_probe` (statickeys/trace.h): one registered
/// callback and its data.  The runtime only compares and copies `func`; the
/// tracepoint's own "on" function calls it with the tracepoint's arguments.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct sk_tracepoint_probe {
    pub func: Option<unsafe extern "C" fn()>,
    pub data: *mut c_void,
}

/// `struct sk_tracepoint` (statickeys/trace.h): the key first (a site's key
/// operand is the tracepoint itself), then the probe array, its two reader
/// counters and phase, the semaphore watcher's state and list link.
#[repr(C)]
#[derive(Debug)]
pub struct sk_tracepoint {
    pub key: sk_key,
    pub probes: *mut sk_tracepoint_probe,
    pub readers: [c_ulong; 2],
    pub phase: c_uint,
    pub tracer_ref: c_int,
    /// The USDT semaphore the kernel raises per attached tracer, or null.
    pub semaphore: *mut u16,
    pub next: *mut sk_tracepoint,
}

/// `struct sk_static_call_key` (statickeys/static_call.h): one static
/// call's descriptor; the runtime changes `func` and `runtime`.
#[repr(C)]
#[derive(Debug)]
pub struct sk_static_call_key {
    pub func: *mut c_void,
    pub initial: *mut c_void,
    pub name: *const c_char,
    pub tramp: Option<unsafe extern "C" fn()>,
    pub magic: c_uint,
    pub flags: c_uint,
    pub runtime: *mut c_void,
}

/// `struct sk_static_call_sites` (statickeys/static_call.h): how many of a
/// static call's call sites are direct, how many go through its
/// trampoline, and why (`SK_CALL_SITES_*`).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct sk_static_call_sites {
    pub direct: c_ulong,
    pub trampoline: c_ulong,
    pub why: c_int,
}

/// `enum sk_call_sites_why` (statickeys/static_call.h).
pub const SK_CALL_SITES_FOUND: c_int = 0;
pub const SK_CALL_SITES_NO_RELOCS: c_int = 1;
pub const SK_CALL_SITES_STRIPPED: c_int = 2;
pub const SK_CALL_SITES_UNREADABLE: c_int = 3;
pub const SK_CALL_SITES_NOT_PATCHED: c_int = 4;
pub const SK_CALL_SITES_PENDING: c_int = 5;

/// `struct sk_static_call_change` (statickeys/static_call.h): one static
/// call and its new target, for `sk_commit_calls`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct sk_static_call_change {
    pub call: *mut sk_static_call_key,
    pub func: *mut c_void,
}

/// `struct sk_static_call_target` (statickeys/static_call.h): a target the
/// control plane may switch a static call to, under a label; the runtime
/// links them through `next`.
#[repr(C)]
#[derive(Debug)]
pub struct sk_static_call_target {
    pub call: *mut sk_static_call_key,
    pub func: *mut c_void,
    pub label: *const c_char,
    pub magic: c_uint,
    pub next: *mut sk_static_call_target,
}

/// `struct sk_dyndbg_site` (statickeys/dyndbg.h): one debug statement's
/// descriptor, its key first; the runtime sets `module` as the object
/// registers and changes `flags` (atomically) by queries.
#[repr(C)]
#[derive(Debug)]
pub struct sk_dyndbg_site {
    pub key: sk_key,
    pub magic: c_uint,
    pub line: c_uint,
    pub file: *const c_char,
    pub function: *const c_char,
    pub format: *const c_char,
    pub cls: *const c_char,
    pub module: *const c_char,
    pub flags: c_uint,
}

/// `SK__DYNDBG_MAGIC` (statickeys/dyndbg.h).
pub const SK_DYNDBG_MAGIC: c_uint = 0x0064_6462;
/// `SK__DYNDBG_DESC`: a debug statement's key description, NUL-terminated
/// (with the magic, how the runtime tells a statement's key).
pub const SK_DYNDBG_DESC: &[u8] = b"a debug statement (sk_pr_debug)\0";
/// `SK_DYNDBG_*`: a statement's flags (statickeys/dyndbg.h).
pub const SK_DYNDBG_PRINT: c_uint = 0x01;
pub const SK_DYNDBG_MODULE: c_uint = 0x02;
pub const SK_DYNDBG_FUNC: c_uint = 0x04;
pub const SK_DYNDBG_SOURCE: c_uint = 0x08;
pub const SK_DYNDBG_LINE: c_uint = 0x10;
pub const SK_DYNDBG_TID: c_uint = 0x20;

/// The type of the sink static call `sk_dyndbg_sink` (statickeys/dyndbg.h):
/// `msg` is `len` bytes, NUL-terminated.
pub type sk_dyndbg_sink_fn =
    unsafe extern "C" fn(site: *const sk_dyndbg_site, msg: *const c_char, len: usize);

/// `SK__STATIC_CALL_MAGIC` (statickeys/static_call.h).
pub const SK_STATIC_CALL_MAGIC: c_uint = 0x05c5_ca11;

/// `SK_WRITER_PROCMEM` / `SK_WRITER_MPROTECT` (statickeys/config.h).
pub const SK_WRITER_PROCMEM: c_int = 0;
pub const SK_WRITER_MPROTECT: c_int = 1;

unsafe extern "C" {
    #[link_name = "sk__key_enable"]
    pub fn sk_key_enable(key: *mut sk_key) -> c_int;
    #[link_name = "sk__key_disable"]
    pub fn sk_key_disable(key: *mut sk_key) -> c_int;
    #[link_name = "sk__key_inc"]
    pub fn sk_key_inc(key: *mut sk_key) -> c_int;
    #[link_name = "sk__key_dec"]
    pub fn sk_key_dec(key: *mut sk_key) -> c_int;
    #[link_name = "sk__key_enabled"]
    pub fn sk_key_enabled(key: *const sk_key) -> bool;
    #[link_name = "sk__key_count"]
    pub fn sk_key_count(key: *const sk_key) -> c_int;

    #[link_name = "sk__object_register"]
    pub fn sk_object_register(
        handle: *mut sk_object_handle,
        sites_start: *const sk_site_entry,
        sites_stop: *const sk_site_entry,
        keys_start: *const *mut sk_key,
        keys_stop: *const *mut sk_key,
    );
    #[link_name = "sk__object_unregister"]
    pub fn sk_object_unregister(handle: *mut sk_object_handle);

    /// Add a probe (0, -EEXIST, -EDEADLK from inside a probe, -ENOMEM, or
    /// a key update's error); takes a key reference.
    #[link_name = "sk__tracepoint_register"]
    pub fn sk_tracepoint_register(
        tp: *mut sk_tracepoint,
        func: unsafe extern "C" fn(),
        data: *mut c_void,
    ) -> c_int;
    /// Remove a probe (0, -ENOENT, -EDEADLK); never called once this returns.
    #[link_name = "sk__tracepoint_unregister"]
    pub fn sk_tracepoint_unregister(
        tp: *mut sk_tracepoint,
        func: unsafe extern "C" fn(),
        data: *mut c_void,
    ) -> c_int;
    /// Start a firing: the probe array (null or null-terminated), valid
    /// until the matching `sk_tracepoint_exit(tp, *phase)`.
    #[link_name = "sk__tracepoint_enter"]
    pub fn sk_tracepoint_enter(tp: *mut sk_tracepoint, phase: *mut c_uint) -> *const sk_tracepoint_probe;
    #[link_name = "sk__tracepoint_exit"]
    pub fn sk_tracepoint_exit(tp: *mut sk_tracepoint, phase: c_uint);
    /// List a tracepoint for the semaphore watcher (from a constructor).
    #[link_name = "sk__tracepoint_add"]
    pub fn sk_tracepoint_add(tp: *mut sk_tracepoint);
    /// Unlist it and give back the tracers' reference (from a destructor).
    #[link_name = "sk__tracepoint_remove"]
    pub fn sk_tracepoint_remove(tp: *mut sk_tracepoint);

    /// Re-point a static call (0 or -errno; nothing changed on error).
    #[link_name = "sk__static_call_update"]
    pub fn sk_static_call_update(key: *mut sk_static_call_key, func: *mut c_void) -> c_int;
    /// Tell the runtime of a static call (from its constructor).
    #[link_name = "sk__static_call_register"]
    pub fn sk_static_call_register(key: *mut sk_static_call_key);
    pub fn sk_static_call_return0() -> core::ffi::c_long;
    /// A static call's call sites, as the runtime found them (0 or -errno).
    pub fn sk_static_call_sites_of(
        key: *const sk_static_call_key,
        out: *mut sk_static_call_sites,
    ) -> c_int;
    /// List a labelled target (from a constructor), unlist it (destructor).
    #[link_name = "sk__static_call_target_add"]
    pub fn sk_static_call_target_add(t: *mut sk_static_call_target);
    #[link_name = "sk__static_call_target_remove"]
    pub fn sk_static_call_target_remove(t: *mut sk_static_call_target);
    /// Keys and static calls in one batch (0 or -errno; nothing changed on
    /// error).
    pub fn sk_commit_calls(
        keys: *const sk_key_change,
        nkeys: usize,
        calls: *const sk_static_call_change,
        ncalls: usize,
    ) -> c_int;

    /// Apply a dynamic-debug query: statements matched, or -EINVAL (a
    /// warning on stderr; nothing changed) or a commit's error.
    pub fn sk_dyndbg_query(query: *const c_char) -> c_int;
    /// The catalogue, as snprintf: the whole text's length, or -errno.
    pub fn sk_dyndbg_catalogue(buf: *mut c_char, size: usize) -> core::ffi::c_long;
    /// The default sink: the decorations, the message, one write to stderr.
    pub fn sk_dyndbg_sink_stderr(site: *const sk_dyndbg_site, msg: *const c_char, len: usize);

    pub fn sk_commit(changes: *const sk_key_change, n: usize) -> c_int;
    pub fn sk_stats_get(out: *mut sk_stats) -> c_int;
    pub fn sk_stats_reset();
    pub fn sk_key_find(name: *const c_char) -> *mut sk_key;
    pub fn sk_config_set_writer(writer: c_int) -> c_int;
    pub fn sk_control_start(path: *const c_char) -> c_int;
    pub fn sk_control_stop() -> c_int;
}

/// The descriptor of the runtime's sink static call `sk_dyndbg_sink`
/// (what C's `SK_DECLARE_STATIC_CALL(sk_dyndbg_sink, ...)` names).  On ELF
/// through the pointer the runtime exports (`sk__scx_sk_dyndbg_sink`,
/// statickeys/static_call.h's SK_EXPORT_STATIC_CALL): the descriptor
/// itself is hidden in the shared library, and the pointer is there in the
/// static one too.  PE and Mach-O name the descriptor.
pub fn sk_dyndbg_sink_key() -> *mut sk_static_call_key {
    #[cfg(any(target_os = "linux", target_os = "freebsd"))]
    {
        unsafe extern "C" {
            static sk__scx_sk_dyndbg_sink: *mut sk_static_call_key;
        }
        unsafe { sk__scx_sk_dyndbg_sink }
    }
    #[cfg(not(any(target_os = "linux", target_os = "freebsd")))]
    {
        unsafe extern "C" {
            static mut sk__scd_sk_dyndbg_sink: sk_static_call_key;
        }
        &raw mut sk__scd_sk_dyndbg_sink
    }
}
