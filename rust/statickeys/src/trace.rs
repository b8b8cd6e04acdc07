// SPDX-License-Identifier: MIT OR Apache-2.0
//! Tracepoints: the C header `statickeys/trace.h` for Rust, on the same
//! runtime.
//!
//! ```
//! statickeys::define_trace! {
//!     /// A packet arrived.
//!     pub net_rx = net:rx(len: i32, seq: i64);
//! }
//!
//! static RECEIVED: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(0);
//!
//! fn on_rx(total: &std::sync::atomic::AtomicI64, len: i32, _seq: i64) {
//!     total.fetch_add(len.into(), std::sync::atomic::Ordering::Relaxed);
//! }
//!
//! fn main() {
//!     net_rx::trace(100, 1);                     // one NOP while off
//!     net_rx::register(on_rx, &RECEIVED).unwrap(); // several probes per tracepoint
//!     net_rx::trace(1500, 2);
//!     statickeys::trace!(net_rx, 40, 3);         // arguments evaluated only when on
//!     if net_rx::enabled() { /* also a site */ }
//!     net_rx::unregister(on_rx, &RECEIVED).unwrap(); // never called once this returns
//!     assert_eq!(RECEIVED.load(std::sync::atomic::Ordering::Relaxed), 1540);
//!     assert_eq!(net_rx::TRACEPOINT.key().name().to_str(), Ok("net:rx"));
//! }
//! ```
//!
//! The mapping from C: `SK_DEFINE_TRACE(net, rx, ...)` is
//! `define_trace!(net_rx = net:rx(...))` (Rust needs no separate
//! declaration: other modules and crates name the module), and
//! `sk_trace_net_rx()`, `sk_trace_net_rx_enabled()`,
//! `sk_register_trace_net_rx()`, `sk_unregister_trace_net_rx()` and
//! `SK_TRACE(net, rx, ...)` are `net_rx::trace()`, `net_rx::enabled()`,
//! `net_rx::register()`, `net_rx::unregister()` and
//! `statickeys::trace!(net_rx, ...)`.  Registration, firing and the grace
//! period are the C runtime's own (`src/trace/probes.c`), as are the key
//! named `SYSTEM:NAME` and the thread that turns the tracepoint on while a
//! tracer holds its USDT semaphore (`src/trace/semaphores.c`).
use core::cell::UnsafeCell;
use core::ffi::{c_uint, c_void};
use core::marker::PhantomData;

use crate::{sys, Error, StaticFalseKey};

/// A tracepoint's state, laid out as the C runtime's `struct sk_tracepoint`
/// (its key first).  Defined by [`define_trace!`](crate::define_trace),
/// which names the static `TRACEPOINT` in the tracepoint's module.
#[repr(transparent)]
pub struct Tracepoint {
    raw: UnsafeCell<sys::sk_tracepoint>,
}

// The runtime changes the probe array and counters atomically, under its
// own lock; the rest is written once, by the definition.
unsafe impl Sync for Tracepoint {}
unsafe impl Send for Tracepoint {}

impl Tracepoint {
    /// For [`define_trace!`](crate::define_trace): `name` is "SYSTEM:NAME"
    /// with a terminating NUL; `semaphore` the USDT semaphore or null.
    #[doc(hidden)]
    pub const fn __new(name: &'static str, semaphore: *mut u16) -> Self {
        let key = StaticFalseKey::__from_literals(name, "tracepoint\0");
        Tracepoint {
            raw: UnsafeCell::new(sys::sk_tracepoint {
                key: key.raw.into_inner(),
                probes: core::ptr::null_mut(),
                readers: [0, 0],
                phase: 0,
                tracer_ref: 0,
                semaphore,
                next: core::ptr::null_mut(),
            }),
        }
    }

    /// The C runtime's view of the tracepoint.
    pub const fn as_raw(&self) -> *mut sys::sk_tracepoint {
        self.raw.get()
    }

    /// The tracepoint's key, named "SYSTEM:NAME": on while a probe is
    /// registered, a tracer is attached or someone enabled it (`skctl`).
    pub fn key(&self) -> &StaticFalseKey {
        // StaticKey is a transparent sk_key, the first member.
        unsafe { &*self.as_raw().cast::<StaticFalseKey>() }
    }

    /// The USDT semaphore: how many tracer probes the kernel holds attached
    /// (`None` where the tracepoint has no USDT note: not x86-64).
    pub fn semaphore(&self) -> Option<u16> {
        let p = unsafe { (*self.as_raw()).semaphore };
        // The kernel writes it behind the program's back: read it whole.
        (!p.is_null()).then(|| unsafe { core::ptr::read_volatile(p) })
    }

    /// For the module's `register`: `func` is a Rust `fn(&D, args...)`.
    ///
    /// # Safety
    /// `func` must be a function the tracepoint's `__on` may call as
    /// `fn(*const (), args...)` with `data`, from any thread, until
    /// unregistered.
    #[doc(hidden)]
    pub unsafe fn __register(&self, func: *const (), data: *const ()) -> Result<(), Error> {
        let f = unsafe { core::mem::transmute::<*const (), unsafe extern "C" fn()>(func) };
        Error::check(unsafe { sys::sk_tracepoint_register(self.as_raw(), f, data as *mut c_void) })
    }

    /// For the module's `unregister`.
    ///
    /// # Safety
    /// `func` must be a function pointer (never null); it is only compared.
    #[doc(hidden)]
    pub unsafe fn __unregister(&self, func: *const (), data: *const ()) -> Result<(), Error> {
        let f = unsafe { core::mem::transmute::<*const (), unsafe extern "C" fn()>(func) };
        Error::check(unsafe { sys::sk_tracepoint_unregister(self.as_raw(), f, data as *mut c_void) })
    }

    /// For the "on" path: count this thread in as a reader of the probe
    /// array until the returned guard is dropped.
    #[doc(hidden)]
    #[inline]
    pub fn __enter(&self) -> Firing<'_> {
        let mut phase: c_uint = 0;
        let probes = unsafe { sys::sk_tracepoint_enter(self.as_raw(), &mut phase) };
        Firing { tp: self, phase, probes, _not_send: PhantomData }
    }
}

impl core::fmt::Debug for Tracepoint {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Tracepoint").field("key", self.key()).field("semaphore", &self.semaphore()).finish()
    }
}

/// One firing's hold on the probe array.  Dropping it counts the thread
/// out, also when a probe panics: a reader count left raised would make
/// every later unregistration wait forever for its grace period.
#[doc(hidden)]
pub struct Firing<'a> {
    tp: &'a Tracepoint,
    phase: c_uint,
    probes: *const sys::sk_tracepoint_probe,
    // The runtime counts the thread (in_probe), so the guard stays on it.
    _not_send: PhantomData<*const ()>,
}

impl Firing<'_> {
    /// Probe `i`'s function and data, or `None` past the last.
    #[inline]
    pub fn probe(&self, i: usize) -> Option<(*const (), *const ())> {
        if self.probes.is_null() {
            return None;
        }
        // The array is null-terminated and stays allocated until every
        // firing that could have loaded it has dropped its guard.
        let p = unsafe { *self.probes.add(i) };
        p.func.map(|f| (f as *const (), p.data as *const ()))
    }
}

impl Drop for Firing<'_> {
    #[inline]
    fn drop(&mut self) {
        unsafe { sys::sk_tracepoint_exit(self.tp.as_raw(), self.phase) };
    }
}

/// A type a tracepoint argument may have: an integer, `bool` or a raw
/// pointer, as in C (what a USDT note can describe: a size, a sign and a
/// register).
pub trait TraceArg: Copy {
    /// The USDT note's size of the argument: bytes, negative when signed.
    const SDT_SIZE: i32;
    /// The value as it is put in a 64-bit register for the tracer
    /// (sign-extended when signed).
    fn sdt_value(self) -> u64;
}

macro_rules! trace_arg_ints {
    ($($t:ty: $signed:literal),*) => {$(
        impl TraceArg for $t {
            const SDT_SIZE: i32 = (core::mem::size_of::<$t>() as i32) * if $signed { -1 } else { 1 };
            #[inline(always)]
            fn sdt_value(self) -> u64 {
                // Sign- or zero-extended by the cast, as the type says.
                self as i128 as u64
            }
        }
    )*};
}
trace_arg_ints!(i8: true, i16: true, i32: true, i64: true, isize: true,
                u8: false, u16: false, u32: false, u64: false, usize: false);

impl TraceArg for bool {
    const SDT_SIZE: i32 = 1;
    #[inline(always)]
    fn sdt_value(self) -> u64 {
        self as u64
    }
}

impl<T> TraceArg for *const T {
    const SDT_SIZE: i32 = core::mem::size_of::<usize>() as i32;
    #[inline(always)]
    fn sdt_value(self) -> u64 {
        self as usize as u64
    }
}

impl<T> TraceArg for *mut T {
    const SDT_SIZE: i32 = core::mem::size_of::<usize>() as i32;
    #[inline(always)]
    fn sdt_value(self) -> u64 {
        self as usize as u64
    }
}

/// A USDT semaphore: 16 bits the kernel raises per attached tracer probe
/// (uprobe `ref_ctr_offset`), written behind the program's back.
#[doc(hidden)]
#[repr(transparent)]
pub struct Semaphore(UnsafeCell<u16>);
// Only the kernel writes it; the runtime reads it whole.
unsafe impl Sync for Semaphore {}

impl Semaphore {
    /// Zero: no tracer attached.
    pub const fn new() -> Self {
        Semaphore(UnsafeCell::new(0))
    }
    /// Its address, for the tracepoint's state.
    pub const fn as_ptr(&self) -> *mut u16 {
        self.0.get()
    }
}

impl Default for Semaphore {
    fn default() -> Self {
        Self::new()
    }
}

/// Define tracepoint `SYSTEM:NAME` in a module of its own:
///
/// ```
/// statickeys::define_trace! {
///     /// Docs for the module.
///     pub net_rx = net:rx(len: i32, seq: i64);
/// }
/// ```
///
/// The module holds:
/// - `trace(len, seq)`: fire; one 5-byte NOP while the tracepoint is off
///   (an inline function: arguments free of side effects are computed only
///   on the "on" path; use [`trace!`](crate::trace) to evaluate any argument
///   only when on);
/// - `enabled()`: whether it is on (also a site);
/// - `register(probe, &DATA)` / `unregister(probe, &DATA)`: `probe` is a
///   `fn(&D, i32, i64)`, `DATA` a `&'static D`.  Probes are called in
///   registration order on every firing while the tracepoint is on; each
///   holds one reference on the key.  Errors:
///   [`AlreadyRegistered`](crate::ErrorKind::AlreadyRegistered) for the same
///   probe and data twice,
///   [`NotRegistered`](crate::ErrorKind::NotRegistered) for a pair that is
///   not registered, [`Deadlock`](crate::ErrorKind::Deadlock) from inside a
///   probe (it would wait for itself).  Once `unregister` returns, the
///   probe is never called again;
/// - `TRACEPOINT`: the [`Tracepoint`], whose [`key`](Tracepoint::key) is
///   named `SYSTEM:NAME` for `skctl`, `STATICKEYS=net:rx=1` and
///   `STATICKEYS_FILE`.
///
/// On x86-64 the tracepoint is also a USDT probe (provider `SYSTEM`, name
/// `NAME`, its arguments, with a semaphore) in the out-of-line "on" path:
/// `bpftrace -l 'usdt:BIN:*'` lists it, and a tracer that attaches turns it
/// on (within ~50 ms) until it leaves.  1 to 12 arguments, each a
/// [`TraceArg`] (integers, `bool`, raw pointers); 13 fail to compile
/// ("more than 12 arguments, the most a USDT probe (sys/sdt.h) can carry"):
///
/// ```compile_fail,E0080
/// statickeys::define_trace!(many = t:many(a: u8, b: u8, c: u8, d: u8, e: u8, f: u8, g: u8,
///                                         h: u8, i: u8, j: u8, k: u8, l: u8, m: u8));
/// ```
///
/// and so does an argument a tracer could not read from a register:
///
/// ```compile_fail,E0277
/// statickeys::define_trace!(text = t:text(s: &'static str));
/// ```
///
/// A tracepoint defined twice fails to build, naming the C runtime's symbol
/// for it (``symbol `sk__tp_net_rx` is already defined``; two crates or a C
/// file defining it too: a duplicate symbol at link time):
///
/// ```compile_fail
/// statickeys::define_trace!(rx_a = net:rx(len: i32));
/// statickeys::define_trace!(rx_b = net:rx(len: i32));
/// ```
#[macro_export]
macro_rules! define_trace {
    ($(#[$m:meta])* $vis:vis $module:ident = $sys:ident : $name:ident
        ( $($arg:ident : $ty:ty),+ $(,)? ) $(;)?) => {
        $(#[$m])*
        #[allow(clippy::too_many_arguments)]
        $vis mod $module {
            // The argument types are named as at the definition.
            #[allow(unused_imports)]
            use super::*;

            const _: () = ::core::assert!(
                [$(::core::stringify!($arg)),+].len() <= 12,
                ::core::concat!("tracepoint ", ::core::stringify!($sys), ":",
                    ::core::stringify!($name), " has more than 12 arguments, the most a ",
                    "USDT probe (sys/sdt.h) can carry"));
            const _: fn() = || {
                fn is_trace_arg<T: $crate::TraceArg>() {}
                $(is_trace_arg::<$ty>();)+
            };

            $crate::__trace_semaphore!();

            // The C tracepoint's symbol name: a tracepoint defined twice
            // fails to build naming it, in one crate, across crates and
            // against a C definition of the same tracepoint.
            const _: () = {
                #[used]
                #[unsafe(export_name = ::core::concat!("sk__tp_",
                    ::core::stringify!($sys), "_", ::core::stringify!($name)))]
                static DEFINED_ONCE: u8 = 0;
            };

            /// The tracepoint's state; its key is named "SYSTEM:NAME".
            pub static TRACEPOINT: $crate::Tracepoint = $crate::Tracepoint::__new(
                ::core::concat!(::core::stringify!($sys), ":", ::core::stringify!($name), "\0"),
                $crate::__trace_semaphore_ptr!(),
            );
            // Listed in sk_keys like any key: its key is the first member.
            $crate::__list_static_key!(TRACEPOINT);

            /// Fire the tracepoint: one NOP while it is off.
            #[inline(always)]
            pub fn trace($($arg: $ty),+) {
                if enabled() {
                    __on($($arg),+);
                }
            }

            /// Whether the tracepoint is on (a site too).
            #[inline(always)]
            pub fn enabled() -> bool {
                $crate::__trace_branch!(TRACEPOINT)
            }

            /// Call `probe(data, args...)` on every firing from now on.
            pub fn register<D: Sync + 'static>(probe: fn(&D, $($ty),+), data: &'static D)
                -> ::core::result::Result<(), $crate::Error> {
                // __on calls it as fn(*const (), args...): a reference and a
                // raw pointer are passed alike (Rust's ABI compatibility).
                unsafe { TRACEPOINT.__register(probe as *const (), data as *const D as *const ()) }
            }

            /// Remove a probe; once this returns it is never called again.
            pub fn unregister<D: Sync + 'static>(probe: fn(&D, $($ty),+), data: &'static D)
                -> ::core::result::Result<(), $crate::Error> {
                unsafe { TRACEPOINT.__unregister(probe as *const (), data as *const D as *const ()) }
            }

            /// The "on" path: the USDT probe, then every registered probe.
            #[doc(hidden)]
            #[inline(never)]
            #[cold]
            pub fn __on($($arg: $ty),+) {
                $crate::__usdt_probe!(SEMAPHORE, $sys, $name, $($arg: $ty),+);
                let firing = TRACEPOINT.__enter();
                let mut i = 0;
                while let ::core::option::Option::Some((func, data)) = firing.probe(i) {
                    let probe = unsafe {
                        ::core::mem::transmute::<*const (), fn(*const (), $($ty),+)>(func)
                    };
                    probe(data, $($arg),+);
                    i += 1;
                }
            }

            // The "on" path is compiled even where nothing fires the
            // tracepoint, so that its USDT note is there for tracers to list.
            #[used]
            static KEEP_ON: fn($($ty),+) = __on;

            // After the object's sites are registered (101), as the C
            // constructor: the watcher may take a key reference as soon as
            // the tracepoint is listed.  The destructor gives it back
            // before a cdylib is unmapped.  Only where tracers can attach
            // (Linux's uprobes raise the semaphore): elsewhere the runtime
            // has nothing to watch.
            #[cfg(target_os = "linux")]
            const _: () = {
                extern "C" fn add() {
                    unsafe { $crate::sys::sk_tracepoint_add(TRACEPOINT.as_raw()) }
                }
                extern "C" fn remove() {
                    unsafe { $crate::sys::sk_tracepoint_remove(TRACEPOINT.as_raw()) }
                }
                #[used]
                #[unsafe(link_section = ".init_array.00102")]
                static ADD: extern "C" fn() = add;
                #[used]
                #[unsafe(link_section = ".fini_array.00102")]
                static REMOVE: extern "C" fn() = remove;
            };
        }
    };
}

/// Fire a tracepoint, evaluating the arguments only when it is on (C's
/// `SK_TRACE()`): `statickeys::trace!(net_rx, len, checksum(buf))`, or with
/// a path, `statickeys::trace!(crate::events::net_rx, len, seq)`.
#[macro_export]
macro_rules! trace {
    ($($tp:ident)::+ $(, $arg:expr)+ $(,)?) => {
        if $($tp)::+::enabled() {
            $($tp)::+::__on($($arg),+);
        }
    };
}

// The site: the tracepoint is a false key (an unlikely branch, initially
// the NOP) wherever the crate patches sites, else its key's flag.
#[cfg(sk_patched)]
#[doc(hidden)]
#[macro_export]
macro_rules! __trace_branch {
    ($tp:path) => {
        $crate::__static_branch!(@site $tp, 0u32, false)
    };
}

#[cfg(not(sk_patched))]
#[doc(hidden)]
#[macro_export]
macro_rules! __trace_branch {
    ($tp:path) => {
        $crate::__private::flag_is_on($tp.key())
    };
}

// The USDT semaphore, in ".probes" (a file-backed, writable section: the
// kernel finds it by its offset in the file) as sys/sdt.h's dtrace headers
// put it; private, so an object's semaphore is its own.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __trace_semaphore {
    () => {
        #[used]
        #[unsafe(link_section = ".probes")]
        static SEMAPHORE: $crate::__private::Semaphore = $crate::__private::Semaphore::new();
    };
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __trace_semaphore_ptr {
    () => {
        SEMAPHORE.as_ptr()
    };
}

// The USDT probe: what sys/sdt.h's _SDT_PROBE writes, with the semaphore
// given by address.  A 5-byte NOP at "990:" (as the C header's), and a note in ".note.stapsdt" of type
// 3 named "stapsdt": the NOP's address, the address of _.stapsdt.base
// (tracers relocate by it, prelink-style), the semaphore's, the provider,
// the name, and the arguments as "SIZE@OPERAND", here each a 64-bit
// register (AT&T syntax, as tracers parse it) holding the value extended
// to 64 bits.  _.stapsdt.base is one byte in a COMDAT group, once per
// object, as sys/sdt.h's _SDT_ASM_BASE defines it, retained ("R"): only
// the note, which is not loaded, refers to it, and lld's --gc-sections
// would drop it (tracers then read a base of 0).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __usdt_probe {
    ($sem:ident, $sys:ident, $name:ident, $a0:ident : $t0:ty $(, $arg:ident : $ty:ty)*) => {
        unsafe {
            $crate::__private::asm!(
                ".ifndef _.stapsdt.base",
                ".pushsection .stapsdt.base, \"aGR\", @progbits, .stapsdt.base, comdat",
                ".weak _.stapsdt.base",
                ".hidden _.stapsdt.base",
                "_.stapsdt.base:",
                ".space 1",
                ".size _.stapsdt.base, 1",
                ".popsection",
                ".endif",
                // The C header's site (trace.h, SK__SDT_SITE): a 5-byte NOP
                // the kernel can turn into a call to its uprobe trampoline,
                // with %rsp moved below the red zone around it so that the
                // call writes nothing the function keeps there.
                "lea -128(%rsp), %rsp",
                "990: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00",
                "lea 128(%rsp), %rsp",
                ".pushsection .note.stapsdt, \"?\", @note",
                ".balign 4",
                ".4byte 992f - 991f, 994f - 993f, 3",
                "991: .asciz \"stapsdt\"",
                "992: .balign 4",
                "993: .8byte 990b",
                ".8byte _.stapsdt.base",
                ".8byte {sem}",
                ::core::concat!(".asciz \"", ::core::stringify!($sys), "\""),
                ::core::concat!(".asciz \"", ::core::stringify!($name), "\""),
                ::core::concat!(".asciz \"{}@{}" $(, $crate::__usdt_arg!($arg))*, "\""),
                "994: .balign 4",
                ".popsection",
                const <$t0 as $crate::TraceArg>::SDT_SIZE,
                in(reg) $crate::TraceArg::sdt_value($a0),
                $(
                    const <$ty as $crate::TraceArg>::SDT_SIZE,
                    in(reg) $crate::TraceArg::sdt_value($arg),
                )*
                sem = sym $sem,
                // Not `nostack`: the site moves %rsp (and, while a tracer is
                // attached, the kernel's call writes below it).
                options(att_syntax, preserves_flags, readonly),
            );
        }
    };
}

// One more argument's place in the note's argument string.
#[doc(hidden)]
#[macro_export]
macro_rules! __usdt_arg {
    ($arg:ident) => {
        " {}@{}"
    };
}

// Without a USDT note (not x86-64 Linux): no semaphore, nothing for tracers to
// find, as the C header without sys/sdt.h; probes and keys work the same.
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __trace_semaphore {
    () => {};
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __trace_semaphore_ptr {
    () => {
        ::core::ptr::null_mut()
    };
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __usdt_probe {
    ($($t:tt)*) => {};
}
