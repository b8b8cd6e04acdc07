// SPDX-License-Identifier: MIT OR Apache-2.0
//! Linux kernel static keys for multi-threaded Rust programs.
//!
//! A branch guarded by a static key costs one 5-byte no-op while the key is
//! off: no load, no compare, no conditional jump.  Flipping the key rewrites
//! every site that tests it, in every loaded object, **while other threads
//! run them**: the kernel's int3 protocol with `membarrier` core syncs (at
//! most 3 per update, whatever the number of sites), done by the statickeys
//! C runtime, which this crate links (see `statickeys-sys`).
//!
//! The macros are those of the `static-keys` crate (0.8), so code written
//! for it builds with this one by changing the dependency:
//!
//! ```
//! use statickeys::{define_static_key_false, static_branch_unlikely};
//!
//! define_static_key_false!(TRACING);
//!
//! fn hot(x: u32) -> u32 {
//!     if static_branch_unlikely!(TRACING) {
//!         println!("tracing {x}");
//!     }
//!     x * 2
//! }
//!
//! fn main() {
//!     statickeys::global_init(); // a no-op here: registration is automatic
//!     hot(1);
//!     TRACING.enable().unwrap(); // safe, even with other threads in hot()
//!     hot(2);
//! }
//! ```
//!
//! Differences from `static-keys`:
//! - [`StaticKey::enable`] and [`StaticKey::disable`] are safe and return
//!   `Result<(), Error>`.  Old call sites in `static-keys`' documented form,
//!   `unsafe { KEY.enable(); }`, still compile, with two warnings
//!   (`unused_unsafe`, `unused_must_use`):
//!
//!   ```
//!   statickeys::define_static_key_false!(KEY);
//!   fn main() {
//!       #[allow(unused_unsafe, unused_must_use)] // what old code gets
//!       unsafe {
//!           KEY.enable();
//!       }
//!       assert!(KEY.is_enabled());
//!   }
//!   ```
//!
//!   but without the inner `;` the block's value is now a `Result`, and a
//!   statement `unsafe { KEY.enable() }` no longer compiles (add the `;`,
//!   or better, handle the error):
//!
//!   ```compile_fail,E0308
//!   statickeys::define_static_key_false!(KEY);
//!   fn main() {
//!       unsafe { KEY.enable() }
//!       println!("on");
//!   }
//!   ```
//!
//!   Write `KEY.enable()?` or `KEY.enable().expect("...")` instead.
//! - Keys are reference counted like the kernel's ([`StaticKey::inc`],
//!   [`StaticKey::dec`]), several keys flip in one batch ([`commit`]), keys
//!   have names (listed and flipped by name over the control socket that
//!   `skctl` uses, set by `STATICKEYS=name=1` at start-up), and
//!   [`stats`] reports the runtime's counters.
//! - Sites are the C library's: a key defined in C can be tested from Rust
//!   and the other way round (see [`StaticKey`]).
//! - Tracepoints, as the C library's `statickeys/trace.h`: [`define_trace!`]
//!   defines `SYSTEM:NAME` with typed arguments, fired by one NOP while off,
//!   with probes registered at run time and, on x86-64 Linux, a USDT probe
//!   that turns it on while bpftrace or perf is attached.
//! - Linux, FreeBSD, macOS and Windows (`x86_64-pc-windows-gnu`: no control
//!   socket there); no `CodeManipulator` generic.  Sites are patched on
//!   Linux x86-64, i686, riscv64 and loongarch64 and on Windows x86-64;
//!   elsewhere (or with the `portable` feature) a site tests an atomic flag,
//!   like the C
//!   library's portable backend: the same API, names, commits and control
//!   socket, and [`Stats::backend`] says `"portable"` when the runtime is
//!   that one.
//! - Dynamic debug, as the C library's `statickeys/dyndbg.h`: [`sk_debug!`]
//!   is a debug statement with `format_args!` syntax, each its own key, off
//!   by default, switched by the kernel's query language ([`dyndbg`]); with
//!   the feature `log`, `statickeys::log::debug!` does the same for code
//!   written for the `log` crate.
#![no_std]
#![warn(missing_docs)]
// The examples show whole programs, main included, as users write them.
#![allow(clippy::needless_doctest_main)]

use core::cell::UnsafeCell;
use core::ffi::{c_char, c_int, CStr};
use core::fmt;
use core::marker::PhantomData;

// The query and the catalogue (dyndbg.rs) are text the caller owns: the
// crate allocates nothing anywhere else.
extern crate alloc;

pub use statickeys_sys as sys;

// Sites are patched where the cfg `sk_patched` says (build.rs: Linux
// x86-64, i686, riscv64 and loongarch64, Windows x86-64, unless the runtime is the
// portable backend); on FreeBSD, macOS and the other targets every site
// tests the key's flag (as with `portable`).
#[cfg(not(any(
    target_os = "linux",
    target_os = "freebsd",
    target_os = "macos",
    target_os = "windows"
)))]
compile_error!("statickeys supports Linux, FreeBSD, macOS and Windows");
// The bundled runtime and its PE sections need gcc (mingw-w64), not MSVC.
#[cfg(all(windows, not(target_env = "gnu")))]
compile_error!("statickeys supports Windows with mingw-w64 only (x86_64-pc-windows-gnu)");

pub mod dyndbg;
#[cfg(feature = "log")]
pub mod log;
mod registration;
mod static_call;
mod trace;

pub use static_call::{commit_calls, CallChange, CallSites, CallSitesWhy};

pub use trace::{TraceArg, Tracepoint};

/// A static key with initial state `S` (its type, as in the kernel).
///
/// The layout is the C runtime's `struct sk_key`, and C's `struct
/// sk_key_false` / `struct sk_key_true` are this type with `S = false` /
/// `true`.  A key defined in C is used from Rust by declaring it:
///
/// ```ignore
/// unsafe extern "C" {
///     safe static c_tracing: statickeys::StaticFalseKey; // SK_DEFINE_KEY_FALSE(c_tracing)
/// }
/// if statickeys::static_branch_unlikely!(c_tracing) { /* ... */ }
/// ```
///
/// and a Rust key is made visible to C with `#[unsafe(no_mangle)]`:
/// `define_static_key_false!(#[unsafe(no_mangle)] pub RUST_KEY);` and, in C,
/// `SK_DECLARE_KEY_FALSE(RUST_KEY);`.
///
/// Keys must be `static` items: a site names its key by its link-time
/// address, so a key on the stack or the heap cannot have sites.
#[repr(transparent)]
pub struct StaticKey<const S: bool> {
    raw: UnsafeCell<sys::sk_key>,
}

// The runtime accesses the count atomically and the rest is immutable.
unsafe impl<const S: bool> Sync for StaticKey<S> {}
unsafe impl<const S: bool> Send for StaticKey<S> {}

/// A [`StaticKey`] that starts enabled.
pub type StaticTrueKey = StaticKey<true>;
/// A [`StaticKey`] that starts disabled.
pub type StaticFalseKey = StaticKey<false>;

const ANONYMOUS: &CStr = c"anonymous";

impl<const S: bool> StaticKey<S> {
    /// A key called `name` (the name `skctl` and `STATICKEYS=` use).
    pub const fn new_named(name: &'static CStr) -> Self {
        Self::with_description(name, None)
    }

    /// A key called `name`, with a one-line description.
    pub const fn with_description(name: &'static CStr, description: Option<&'static CStr>) -> Self {
        let desc = match description {
            Some(d) => d.as_ptr(),
            None => core::ptr::null(),
        };
        Self::from_raw_parts(name.as_ptr(), desc)
    }

    /// For the definition macros: `name` and `description` are string
    /// literals with a terminating NUL ("" for no description); anything
    /// else fails to compile (a const panic).
    #[doc(hidden)]
    pub const fn __from_literals(name: &'static str, description: &'static str) -> Self {
        let (n, d) = (name.as_bytes(), description.as_bytes());
        assert!(!n.is_empty() && n[n.len() - 1] == 0, "key name without a NUL");
        assert!(d.is_empty() || d[d.len() - 1] == 0, "description without a NUL");
        let desc = if d.is_empty() { core::ptr::null() } else { d.as_ptr().cast() };
        Self::from_raw_parts(n.as_ptr().cast(), desc)
    }

    const fn from_raw_parts(name: *const c_char, description: *const c_char) -> Self {
        StaticKey {
            raw: UnsafeCell::new(sys::sk_key {
                enabled: S as c_int,
                magic: sys::SK_KEY_MAGIC | (S as u32 * sys::SK_KEY_INIT_TRUE),
                name,
                description,
            }),
        }
    }

    /// Whether the key was defined enabled (its type).
    #[inline(always)]
    pub const fn initial_enabled(&self) -> bool {
        S
    }

    /// The C runtime's view of the key, for `statickeys-sys` calls.
    pub const fn as_raw(&self) -> *mut sys::sk_key {
        self.raw.get()
    }

    /// Whether the key is on (a first enable still patching reads as on).
    pub fn is_enabled(&self) -> bool {
        unsafe { sys::sk_key_enabled(self.as_raw()) }
    }

    /// The reference count (see [`inc`](Self::inc)).
    pub fn count(&self) -> i32 {
        unsafe { sys::sk_key_count(self.as_raw()) }
    }

    /// Turn the key on, rewriting every site of it in every loaded object;
    /// a no-op if it is already on.  Safe while other threads run the
    /// sites: when it returns, every thread's next pass through every site
    /// takes the new direction.
    ///
    /// Errors: [`ErrorKind::Deadlock`] from a signal handler,
    /// [`ErrorKind::Busy`] if a thread blocks `SIGTRAP`,
    /// [`ErrorKind::NoWriter`] if code cannot be written; nothing changes.
    pub fn enable(&self) -> Result<(), Error> {
        Error::check(unsafe { sys::sk_key_enable(self.as_raw()) })
    }

    /// Turn the key off; a no-op if it is already off.  Refused with
    /// [`ErrorKind::Busy`] while more than one [`inc`](Self::inc) reference
    /// is held; other errors as [`enable`](Self::enable).
    pub fn disable(&self) -> Result<(), Error> {
        Error::check(unsafe { sys::sk_key_disable(self.as_raw()) })
    }

    /// Take a reference: the key is on while any reference is held.
    /// [`ErrorKind::Overflow`] at `i32::MAX`.
    pub fn inc(&self) -> Result<(), Error> {
        Error::check(unsafe { sys::sk_key_inc(self.as_raw()) })
    }

    /// Drop a reference; the key turns off with the last one.
    /// [`ErrorKind::Range`] if the count is already 0.
    pub fn dec(&self) -> Result<(), Error> {
        Error::check(unsafe { sys::sk_key_dec(self.as_raw()) })
    }

    /// The key's name.
    pub fn name(&self) -> &'static CStr {
        // Set once from a &'static CStr (or a C string literal) and never
        // written after.
        let p = unsafe { (*self.as_raw()).name };
        if p.is_null() {
            ANONYMOUS
        } else {
            unsafe { CStr::from_ptr(p) }
        }
    }

    /// The key's description, if it has one.
    pub fn description(&self) -> Option<&'static CStr> {
        let p = unsafe { (*self.as_raw()).description };
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) })
    }
}

impl<const S: bool> fmt::Debug for StaticKey<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StaticKey")
            .field("name", &self.name())
            .field("initial", &S)
            .field("count", &self.count())
            .finish()
    }
}

/// A key that starts disabled, named "anonymous" (prefer
/// [`define_static_key_false!`], which names it after its identifier).
pub const fn new_static_false_key() -> StaticFalseKey {
    StaticKey::new_named(ANONYMOUS)
}

/// A key that starts enabled, named "anonymous" (prefer
/// [`define_static_key_true!`]).
pub const fn new_static_true_key() -> StaticTrueKey {
    StaticKey::new_named(ANONYMOUS)
}

/// Does nothing: every object registers its sites from a constructor
/// before `main`.  Kept so code written for `static-keys` builds.
pub fn global_init() {}

/// Why an update was refused.  Nothing changed in any of these cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Not a key defined by this crate or the C macros (`EINVAL`).
    InvalidKey,
    /// Called from a signal handler, or from inside an update; or a probe
    /// registered or unregistered from inside a probe (`EDEADLK`).
    Deadlock,
    /// A thread blocks `SIGTRAP`, or `disable` of a key holding several
    /// `inc` references (`EBUSY`).
    Busy,
    /// No way to write code works here (`EPERM`, `EIO`).
    NoWriter,
    /// `dec` of a key whose count is 0 (`ERANGE`).
    Range,
    /// `inc` of a key whose count is `i32::MAX` (`EOVERFLOW`).
    Overflow,
    /// Out of memory (`ENOMEM`).
    OutOfMemory,
    /// This probe and data are already registered on the tracepoint
    /// (`EEXIST`).
    AlreadyRegistered,
    /// This probe and data are not registered on the tracepoint (`ENOENT`).
    NotRegistered,
    /// A dynamic-debug query that does not parse ([`dyndbg::query`]; the
    /// runtime's warning on stderr names the word and its position).
    InvalidQuery,
    /// Another error code from the runtime.
    Other,
}

/// An update the runtime refused; [`Error::errno`] has the C error code.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Error {
    errno: i32,
    // From dyndbg::query(), where EINVAL means the text, not a key.
    query: bool,
}

const EPERM: i32 = 1;
const ENOENT: i32 = 2;
const EIO: i32 = 5;
const ENOMEM: i32 = 12;
const EBUSY: i32 = 16;
const EEXIST: i32 = 17;
const EINVAL: i32 = 22;
const ERANGE: i32 = 34;
// The C library's numbers: Linux's, the BSDs' (FreeBSD, macOS) and
// mingw-w64's (Windows) agree on the others, not on these.
#[cfg(windows)]
const EDEADLK: i32 = 36;
#[cfg(any(target_os = "freebsd", target_os = "macos"))]
const EDEADLK: i32 = 11;
#[cfg(not(any(windows, target_os = "freebsd", target_os = "macos")))]
const EDEADLK: i32 = 35;
#[cfg(windows)]
const EOVERFLOW: i32 = 132;
#[cfg(any(target_os = "freebsd", target_os = "macos"))]
const EOVERFLOW: i32 = 84;
#[cfg(not(any(windows, target_os = "freebsd", target_os = "macos")))]
const EOVERFLOW: i32 = 75;

impl Error {
    fn check(r: c_int) -> Result<(), Error> {
        if r == 0 {
            Ok(())
        } else {
            Err(Error { errno: -r, query: false })
        }
    }

    /// A refused dynamic-debug query (`r`: the C call's negative errno).
    fn from_query(r: c_int) -> Error {
        Error { errno: -r, query: true }
    }

    /// The positive errno the C call returned negated.
    pub fn errno(&self) -> i32 {
        self.errno
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        match self.errno {
            EINVAL if self.query => ErrorKind::InvalidQuery,
            EINVAL => ErrorKind::InvalidKey,
            EDEADLK => ErrorKind::Deadlock,
            EBUSY => ErrorKind::Busy,
            EPERM | EIO => ErrorKind::NoWriter,
            ERANGE => ErrorKind::Range,
            EOVERFLOW => ErrorKind::Overflow,
            ENOMEM => ErrorKind::OutOfMemory,
            EEXIST => ErrorKind::AlreadyRegistered,
            ENOENT => ErrorKind::NotRegistered,
            _ => ErrorKind::Other,
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error {{ kind: {:?}, errno: {} }}", self.kind(), self.errno)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind() {
            ErrorKind::InvalidKey => "not a key defined with the statickeys macros",
            ErrorKind::Deadlock => {
                "key update from a signal handler or from inside an update, \
                 or probe (un)registration from inside a probe"
            }
            ErrorKind::Busy => {
                "refused: a thread blocks SIGTRAP, or the key holds several inc() references"
            }
            ErrorKind::NoWriter => "no way to write code works in this process",
            ErrorKind::Range => "dec() of a key whose count is 0",
            ErrorKind::Overflow => "inc() of a key whose count is at its maximum",
            ErrorKind::OutOfMemory => "out of memory",
            ErrorKind::AlreadyRegistered => "this probe and data are already registered",
            ErrorKind::NotRegistered => "this probe and data are not registered",
            ErrorKind::InvalidQuery => "the dynamic-debug query does not parse; nothing changed",
            ErrorKind::Other => "key update failed",
        };
        write!(f, "{what} (errno {})", self.errno)
    }
}

impl core::error::Error for Error {}

/// One key's new state in a [`commit`].
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct Change<'a> {
    raw: sys::sk_key_change,
    _key: PhantomData<&'a ()>,
}

impl<'a> Change<'a> {
    /// Turn `key` on (`true`) or off.
    pub fn new<const S: bool>(key: &'a StaticKey<S>, enable: bool) -> Self {
        Change { raw: sys::sk_key_change { key: key.as_raw(), enable }, _key: PhantomData }
    }
    /// Turn `key` on.
    pub fn enable<const S: bool>(key: &'a StaticKey<S>) -> Self {
        Self::new(key, true)
    }
    /// Turn `key` off.
    pub fn disable<const S: bool>(key: &'a StaticKey<S>) -> Self {
        Self::new(key, false)
    }
}

impl fmt::Debug for Change<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Change").field("key", &self.raw.key).field("enable", &self.raw.enable).finish()
    }
}

/// Apply several changes as one batch: every site of every key is
/// rewritten with the same 3 core syncs, whether one key changes or twenty,
/// Rust and C keys alike.  All or nothing: on error no key changed.
pub fn commit(changes: &[Change<'_>]) -> Result<(), Error> {
    Error::check(unsafe { sys::sk_commit(changes.as_ptr().cast(), changes.len()) })
}

/// The runtime's counters (all processes' objects, C and Rust).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Key state changes (0 <-> on) applied.
    pub updates: u64,
    /// int3 protocol runs (one per update or commit).
    pub batches: u64,
    /// Sites whose instruction was rewritten.
    pub sites_written: u64,
    /// Writer calls (one write per span of sites).
    pub text_writes: u64,
    /// Core serialisations (membarrier or its fallback).
    pub core_syncs: u64,
    /// Threads resumed by the int3 handler.
    pub traps_handled: u64,
    /// SIGTRAPs that were not the runtime's, passed on.
    pub traps_chained: u64,
    /// Updates refused or rolled back.
    pub update_errors: u64,
    /// "procmem", "mprotect" or "none".
    pub writer: &'static str,
    /// "membarrier" or "mprotect-ipi".
    pub sync_method: &'static str,
    /// What runs the sites: "x86_64", "aarch64", ... (code patching), or
    /// "portable" (keys as atomic flags, nothing patched; empty from a
    /// runtime that predates the field).
    pub backend: &'static str,
}

fn static_str(p: *const c_char) -> &'static str {
    if p.is_null() {
        ""
    } else {
        // The runtime returns string literals.
        unsafe { CStr::from_ptr(p) }.to_str().unwrap_or("")
    }
}

/// A snapshot of the runtime's counters.
pub fn stats() -> Stats {
    // Room to spare: a runtime newer than these declarations may have
    // appended counters to struct sk_stats.
    #[repr(C)]
    struct Room {
        stats: sys::sk_stats,
        _spare: [u64; 32],
    }
    let mut room = core::mem::MaybeUninit::<Room>::zeroed();
    // Only fails for a null pointer.
    unsafe { sys::sk_stats_get(room.as_mut_ptr().cast()) };
    let s = unsafe { room.assume_init() }.stats;
    Stats {
        updates: s.updates,
        batches: s.batches,
        sites_written: s.sites_written,
        text_writes: s.text_writes,
        core_syncs: s.core_syncs,
        traps_handled: s.traps_handled,
        traps_chained: s.traps_chained,
        update_errors: s.update_errors,
        writer: static_str(s.writer),
        sync_method: static_str(s.sync_method),
        backend: static_str(s.backend),
    }
}

#[doc(hidden)]
pub mod __private {
    pub use crate::static_call::{RawCall, RawTarget};
    pub use crate::trace::Semaphore;
    pub use core::arch::{asm, global_asm};
    /// The `log` crate, for the log bridge's macros in the user's crate.
    #[cfg(feature = "log")]
    pub use ::log;

    /// A key's entry in `sk_keys` where keys are listed without assembly
    /// (the portable sites): a pointer to the key.
    #[repr(transparent)]
    pub struct KeyListing(pub *const ());
    // Only the runtime reads it.
    unsafe impl Sync for KeyListing {}

    /// The portable site: whether the key is on, as the C header's
    /// fallback reads it (`statickeys/arch/generic.h`: a relaxed load of the
    /// count; an update in progress reads as on).
    #[inline(always)]
    pub fn flag_is_on<const S: bool>(key: &'static super::StaticKey<S>) -> bool {
        let count = unsafe { &raw mut (*key.raw.get()).enabled };
        unsafe { core::sync::atomic::AtomicI32::from_ptr(count) }
            .load(core::sync::atomic::Ordering::Relaxed)
            != 0
    }

    /// The `sk_sites` entries of the object this copy of the crate is
    /// linked into (C and Rust sites alike), for tests.
    pub fn site_table() -> &'static [crate::sys::sk_site_entry] {
        let (s0, s1, _, _) = crate::registration::tables();
        if s0.is_null() {
            return &[]; // no site table (Mach-O)
        }
        // The linker's bounds of a section of 16-byte entries.
        unsafe { core::slice::from_raw_parts(s0, (s1 as usize - s0 as usize) / 16) }
    }

    /// The instruction a site starts with: a jump when `initial ^ likely`.
    /// Only the key's type matters; the pointer is never read.
    pub const fn starts_as_jump<const S: bool>(_key: *const super::StaticKey<S>, likely: bool) -> u32 {
        (S ^ likely) as u32
    }
}

/// Define a key that starts disabled: `define_static_key_false!(NAME)`.
///
/// Also `define_static_key_false!(pub NAME)`, with attributes
/// (`#[unsafe(no_mangle)]` makes it visible to C), and with a description:
/// `define_static_key_false!(pub NAME, "what it turns on")`.  The key's
/// name is its identifier.
#[macro_export]
macro_rules! define_static_key_false {
    ($(#[$m:meta])* $vis:vis $key:ident $(, $desc:literal)? $(,)?) => {
        $crate::__define_static_key!($(#[$m])* $vis $key, false $(, $desc)?);
    };
}

/// Define a key that starts enabled: `define_static_key_true!(NAME)`
/// (same forms as [`define_static_key_false!`]).
#[macro_export]
macro_rules! define_static_key_true {
    ($(#[$m:meta])* $vis:vis $key:ident $(, $desc:literal)? $(,)?) => {
        $crate::__define_static_key!($(#[$m])* $vis $key, true $(, $desc)?);
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __define_static_key {
    ($(#[$m:meta])* $vis:vis $key:ident, $init:literal) => {
        $crate::__define_static_key!(@def $(#[$m])* $vis $key, $init, "");
    };
    ($(#[$m:meta])* $vis:vis $key:ident, $init:literal, $desc:literal) => {
        $crate::__define_static_key!(@def $(#[$m])* $vis $key, $init,
            ::core::concat!($desc, "\0"));
    };
    (@def $(#[$m:meta])* $vis:vis $key:ident, $init:literal, $desc:expr) => {
        $(#[$m])*
        $vis static $key: $crate::StaticKey<$init> = $crate::StaticKey::<$init>::__from_literals(
            ::core::concat!(::core::stringify!($key), "\0"),
            $desc,
        );
        $crate::__list_static_key!($key);
    };
}

// The key listed in the object's "sk_keys" section, like the C macros'
// keys, so the runtime names it even without sites.  "R": lld must keep it.
#[cfg(all(sk_patched, target_arch = "x86_64", target_os = "linux"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __list_static_key {
    ($key:ident) => {
        $crate::__private::global_asm!(
            ".pushsection sk_keys, \"awR\"",
            ".balign 8",
            ".quad {key}",
            ".popsection",
            key = sym $key,
        );
    };
}

// Without assembly (every architecture: inline assembly is not stable on
// all of them): a pointer placed in "sk_keys" by the compiler; #[used]
// keeps it (and marks it retained where the target supports it).  Mach-O
// names a section with its segment (statickeys/section.h).
#[cfg(all(not(all(sk_patched, target_arch = "x86_64", target_os = "linux")), not(windows)))]
#[doc(hidden)]
#[macro_export]
macro_rules! __list_static_key {
    ($key:ident) => {
        $crate::__list_static_key_in_block!($key);
    };
}

// A key listed from inside a block (a debug statement's, dyndbg.rs), where
// global_asm! cannot stand: the listing above, on every ELF and Mach-O
// target (x86-64 Linux included: its other keys' listings are assembly,
// which lands in the same section).  PE: the listing above, already items
// only.
#[cfg(not(windows))]
#[doc(hidden)]
#[macro_export]
macro_rules! __list_static_key_in_block {
    ($key:ident) => {
        const _: () = {
            #[used]
            #[cfg_attr(target_os = "macos", unsafe(link_section = "__DATA,sk_keys"))]
            #[cfg_attr(not(target_os = "macos"), unsafe(link_section = "sk_keys"))]
            static LISTING: $crate::__private::KeyListing =
                $crate::__private::KeyListing(&raw const $key as *const ());
        };
    };
}

#[cfg(windows)]
#[doc(hidden)]
#[macro_export]
macro_rules! __list_static_key_in_block {
    ($key:ident) => {
        $crate::__list_static_key!($key);
    };
}

// PE (Windows): the listing goes to the grouped section "sk_keys$m", between
// the markers in "sk_keys$a" and "sk_keys$z" (statickeys/section_pe.h,
// registration.rs), which the linker sorts by suffix.  Rust links with
// --gc-sections, and GNU ld for PE drops a section nothing refers to (PE
// has no retain flag): so a constructor list entry, which the linker
// always keeps, points at a function that reads the listing.  It runs
// once at start-up and does nothing else.
#[cfg(windows)]
#[doc(hidden)]
#[macro_export]
macro_rules! __list_static_key {
    ($key:ident) => {
        const _: () = {
            #[used]
            #[unsafe(link_section = "sk_keys$m")]
            static LISTING: $crate::__private::KeyListing =
                $crate::__private::KeyListing(&raw const $key as *const ());
            extern "C" fn keep() {
                unsafe { core::ptr::read_volatile(&raw const LISTING) };
            }
            #[used]
            #[unsafe(link_section = ".ctors.65535")]
            static KEEP: extern "C" fn() = keep;
        };
    };
}

/// `true` when the key is on; the off path is the fall-through (one 5-byte
/// no-op while the key is off).  `if static_branch_unlikely!(KEY) { ... }`
#[macro_export]
macro_rules! static_branch_unlikely {
    ($key:path) => {
        $crate::__static_branch!($key, false)
    };
}

/// `true` when the key is on; the on path is the fall-through.
#[macro_export]
macro_rules! static_branch_likely {
    ($key:path) => {
        $crate::__static_branch!($key, true)
    };
}

// A patched site: one asm goto whose template (__site_template!, per
// architecture) emits the instruction at "2:", chosen as (initial ^ likely),
// and its sk_sites entry, byte for byte the C header's.  The label is "2:"
// because labels made of 0s and 1s trip the binary_asm_labels lint.
#[cfg(sk_patched)]
#[doc(hidden)]
#[macro_export]
macro_rules! __static_branch {
    ($key:path, $likely:literal) => {
        $crate::__static_branch!(@site $key,
            $crate::__private::starts_as_jump(&raw const $key, $likely), $likely)
    };
    // The site of any static whose first member is a key (a tracepoint):
    // `jump` is the instruction's initial direction, 0 or 1.
    (@site $key:path, $jump:expr, $likely:literal) => {
        'sk_site: {
            unsafe {
                $crate::__site_asm!($key, $jump, $likely, {
                    break 'sk_site !$likely;
                });
            }
            $likely
        }
    };
}

// The site's asm goto, with the architecture's options (__site_asm! passes
// them first, in brackets).  nostack keeps LLVM from realigning the stack
// on the taken path.
#[cfg(sk_patched)]
#[doc(hidden)]
#[macro_export]
macro_rules! __site_asm_with {
    ([$($option:ident),*], $key:path, $jump:expr, $likely:literal, $yes:block) => {
        $crate::__private::asm!(
            $crate::__site_template!(),
            key = sym $key,
            likely = const $likely as u32,
            jump = const $jump,
            yes = label $yes,
            options(nostack $(, $option)*),
        )
    };
}

// x86: AT&T syntax, although the templates are directives only: in the
// Intel dialect LLVM drops every '$' of an inline asm string, and PE's
// grouped section names need theirs ("sk_sites$m").
#[cfg(all(sk_patched, any(target_arch = "x86_64", target_arch = "x86")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __site_asm {
    ($($site:tt)*) => {
        $crate::__site_asm_with!([att_syntax], $($site)*)
    };
}

#[cfg(all(sk_patched, not(any(target_arch = "x86_64", target_arch = "x86"))))]
#[doc(hidden)]
#[macro_export]
macro_rules! __site_asm {
    ($($site:tt)*) => {
        $crate::__site_asm_with!([], $($site)*)
    };
}

// x86-64 ELF (include/statickeys/arch/x86_64.h): a NOP5 or a JMP rel32 to
// the "yes" label, and an entry {site, target, key@GOTPCREL, likely} of
// four relative 32-bit fields in "sk_sites".
#[cfg(all(sk_patched, target_arch = "x86_64", not(windows)))]
#[doc(hidden)]
#[macro_export]
macro_rules! __site_template {
    () => {
        concat!(
            $crate::__x86_site_insn!(".byte 0x0f, 0x1f, 0x44, 0x00, 0x00"),
            ".pushsection sk_sites, \"a?R\"\n",
            ".balign 4\n",
            ".long 2b - ., {yes} - .\n",
            ".long {key}@GOTPCREL, {likely}\n",
            ".popsection",
        )
    };
}

// x86-64 PE (Windows, mingw-w64; statickeys/arch/x86_64.h and asm_goto.h):
// the same instruction.  PE has no GOT: the entry's key field points at a
// slot of the site's own, in ".rdata$sk_slots".  The entry goes to the
// grouped section "sk_sites$m", which the linker sorts between the markers
// in "sk_sites$a" and "sk_sites$z" (registration.rs).  Rust links with
// --gc-sections, and GNU ld for PE drops a section nothing refers to (PE
// has no retain flag): the first site of each object file (.ifndef) puts
// its entry's image-relative address in ".xdata$sk", which the linker
// always keeps (its default script: KEEP(*(.xdata*))) and nothing reads
// (the unwinder finds .xdata only through .pdata), so the object's whole
// "sk_sites$m" stays, and with it the slots and keys its entries name.
// As the C header's.
#[cfg(all(sk_patched, target_arch = "x86_64", windows))]
#[doc(hidden)]
#[macro_export]
macro_rules! __site_template {
    () => {
        concat!(
            $crate::__x86_site_insn!(".byte 0x0f, 0x1f, 0x44, 0x00, 0x00"),
            ".pushsection .rdata$sk_slots, \"dr\"\n",
            ".balign 8\n",
            "3: .quad {key}\n",
            ".popsection\n",
            $crate::__site_entry_via_slot!(
                "sk_sites$m, \"dr\"",
                ".ifndef .Lsk__sites_kept\n",
                ".set .Lsk__sites_kept, 1\n",
                ".pushsection .xdata$sk, \"dr\"\n",
                ".long 4b@IMGREL\n",
                ".popsection\n",
                ".endif\n"
            ),
        )
    };
}

// i686 (statickeys/arch/i386.h): the kernel's 32-bit NOP5 (3e 8d 74 26 00)
// or a JMP rel32; the entry's key field points at the site's own 4-byte key
// slot in ".data.rel.ro.sk_keyslots" (i386 has no PC-relative GOT data
// relocation).
#[cfg(all(sk_patched, target_arch = "x86"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __site_template {
    () => {
        concat!(
            $crate::__x86_site_insn!(".byte 0x3e, 0x8d, 0x74, 0x26, 0x00"),
            ".pushsection .data.rel.ro.sk_keyslots, \"aw?\"\n",
            ".balign 4\n",
            "3: .long {key}\n",
            ".popsection\n",
            $crate::__site_entry_via_slot!("sk_sites, \"a?R\""),
        )
    };
}

// riscv64 (statickeys/arch/riscv64.h): a 4-aligned, never compressed NOP or
// "j" (JAL x0) to the "yes" label; the entry's key field points at the
// site's own 8-byte key slot.
#[cfg(all(sk_patched, target_arch = "riscv64"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __site_template {
    () => {
        concat!(
            ".balign 4\n",
            ".option push\n",
            ".option norvc\n",
            "2:\n",
            ".if {jump}\n",
            "j {yes}\n",
            ".else\n",
            "nop\n",
            ".endif\n",
            ".option pop\n",
            ".pushsection .data.rel.ro.sk_keyslots, \"aw?\"\n",
            ".balign 8\n",
            "3: .quad {key}\n",
            ".popsection\n",
            $crate::__site_entry_via_slot!("sk_sites, \"a?R\""),
        )
    };
}

// loongarch64 (statickeys/arch/loongarch64.h): a NOP or a "b" (offs26) to
// the "yes" label, the kernel's LoongArch jump label; the entry's key field
// points at the site's own 8-byte key slot.
#[cfg(all(sk_patched, target_arch = "loongarch64"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __site_template {
    () => {
        concat!(
            "2:\n",
            ".if {jump}\n",
            "b {yes}\n",
            ".else\n",
            "nop\n",
            ".endif\n",
            ".pushsection .data.rel.ro.sk_keyslots, \"aw?\"\n",
            ".balign 8\n",
            "3: .quad {key}\n",
            ".popsection\n",
            $crate::__site_entry_via_slot!("sk_sites, \"a?R\""),
        )
    };
}

// The x86 instruction at "2:": a JMP rel32 to the "yes" label, or the
// ABI's 5-byte no-op @nop.
#[cfg(all(sk_patched, any(target_arch = "x86_64", target_arch = "x86")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __x86_site_insn {
    ($nop:literal) => {
        concat!(
            "2:\n",
            ".if {jump}\n",
            ".byte 0xe9\n",
            ".long {yes} - (2b + 5)\n",
            ".else\n",
            $nop,
            "\n.endif\n",
        )
    };
}

// The sk_sites entry, at "4:", of a site whose key slot is at "3:", in
// the section @section (its name and flags), followed there by @more.
#[doc(hidden)]
#[macro_export]
macro_rules! __site_entry_via_slot {
    ($section:literal $(, $more:literal)*) => {
        concat!(
            ".pushsection ", $section, "\n",
            ".balign 4\n",
            "4: .long 2b - ., {yes} - .\n",
            ".long 3b - ., {likely}\n",
            $($more,)*
            ".popsection",
        )
    };
}

// Everywhere else (build.rs: sk_patched), or the `portable` feature: the
// site tests the key's state (both macros are true when the key is on), as
// the C library does where it patches nothing.
#[cfg(not(sk_patched))]
#[doc(hidden)]
#[macro_export]
macro_rules! __static_branch {
    ($key:path, $likely:literal) => {
        $crate::__private::flag_is_on(&$key)
    };
}
