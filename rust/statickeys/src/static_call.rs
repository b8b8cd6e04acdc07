// SPDX-License-Identifier: MIT OR Apache-2.0
//! Static calls: a call through a function pointer turned into a direct
//! call, re-pointed at run time (the C library's
//! `statickeys/static_call.h`, the kernel's `static_call`).
//!
//! ```
//! use statickeys::{define_static_call, static_call};
//!
//! fn log_plain(msg: &str) -> usize { msg.len() }
//! fn log_loud(msg: &str) -> usize { 2 * msg.len() }
//!
//! define_static_call!(pub LOG: fn(msg: &str) -> usize = log_plain);
//!
//! fn main() {
//!     assert_eq!(static_call!(LOG)("hello"), 5); // through the trampoline
//!     LOG::update(log_loud).unwrap();           // only fn(&str) -> usize
//!     assert_eq!(static_call!(LOG)("hello"), 10);
//!     assert!(std::ptr::fn_addr_eq(LOG::query(), log_loud as fn(&str) -> usize));
//! }
//! ```
//!
//! `define_static_call!` makes `NAME` a module with four functions:
//! `NAME::call(args)` (what `static_call!(NAME)` names), `NAME::update(f)`,
//! which takes only a function of the declared type and returns a
//! `Result` (the C update's guarantees: every call that starts after it
//! returns, in any thread, lands in `f`; a thread meeting the call during
//! the update lands in the old target or `f`), `NAME::query()`, and
//! `NAME::change(f)` for [`commit_calls`], which changes keys and static
//! calls in one batch.
//!
//! Two more forms, as the kernel's `DEFINE_STATIC_CALL_NULL` and
//! `DEFINE_STATIC_CALL_RET0`:
//!
//! ```
//! use statickeys::{define_static_call, static_call};
//!
//! fn audit(event: u32) { println!("event {event}"); }
//! fn twice(x: u32) -> u32 { 2 * x }
//!
//! // No target: a call does nothing (the kernel's static_call_cond), for
//! // functions that return nothing.
//! define_static_call!(pub AUDIT: fn(event: u32) = None);
//! // Returns the type's default (0) until updated: `return0`.
//! define_static_call!(pub SCALE: fn(x: u32) -> u32 = return0);
//!
//! fn main() {
//!     static_call!(AUDIT)(1);                 // nothing is called
//!     AUDIT::update(Some(audit)).unwrap();
//!     static_call!(AUDIT)(2);                 // prints "event 2"
//!     AUDIT::update(None).unwrap();
//!     assert!(AUDIT::query().is_none());
//!
//!     assert_eq!(static_call!(SCALE)(21), 0);
//!     SCALE::update(twice).unwrap();
//!     assert_eq!(static_call!(SCALE)(21), 42);
//!     SCALE::update_return0().unwrap();
//!     assert_eq!(static_call!(SCALE)(21), 0);
//! }
//! ```
//!
//! A `None` static call's module has `update(Option<fn>)`,
//! `change(Option<fn>)` and `query() -> Option<fn>`; a `return0` one adds
//! `update_return0()` and `change_return0()`.  `return0` is a Rust function
//! the macro defines, returning `Default::default()` (so the return type
//! must implement `Default`): a call lands in it as in any target.
//!
//! On x86-64 Linux the call goes to the static call's trampoline, one
//! patched `jmp` (the C library's trampoline, the same runtime and batch
//! protocol).  rustc calls it through the GOT, as every function it did not
//! compile; linked with `-Wl,--emit-relocs` (`-C link-arg=-Wl,--emit-relocs`)
//! the runtime makes each such call direct at start-up and re-points it at
//! the target itself (the C library's docs/static-calls.md, "Call sites").
//! Elsewhere, or with the `portable` feature, it loads the target and
//! calls it.  A target must be a Rust `fn` of the
//! declared signature; the static call and its target live for the whole
//! program.
use core::cell::UnsafeCell;
use core::ffi::c_void;

use crate::{sys, Error};

/// A static call's descriptor, shared with the C runtime.
#[doc(hidden)]
#[repr(transparent)]
pub struct RawCall(pub UnsafeCell<sys::sk_static_call_key>);
// The runtime changes it under its lock, and readers load `func` atomically.
unsafe impl Sync for RawCall {}

impl RawCall {
    #[doc(hidden)]
    pub const fn new(
        func: *mut c_void,
        name: *const core::ffi::c_char,
        tramp: Option<unsafe extern "C" fn()>,
        flags: u32,
    ) -> Self {
        RawCall(UnsafeCell::new(sys::sk_static_call_key {
            func,
            initial: func,
            name,
            tramp,
            magic: sys::SK_STATIC_CALL_MAGIC,
            flags,
            // What the trampoline's far form jumps to (the C header's
            // initializer does the same); the runtime keeps it non-NULL.
            runtime: func,
        }))
    }

    /// The C header's SK__STATIC_CALL_NULL: NULL is the defined target, and
    /// an update may set it again.
    #[doc(hidden)]
    pub const NULL: u32 = 0x1;

    /// The current target (the pointer form's load).
    #[doc(hidden)]
    #[inline(always)]
    pub fn load(&'static self) -> *mut c_void {
        let func = unsafe { &raw mut (*self.0.get()).func };
        unsafe { core::sync::atomic::AtomicPtr::from_ptr(func) }
            .load(core::sync::atomic::Ordering::Relaxed)
    }

    /// Re-point the static call at `func`.
    ///
    /// # Safety
    /// `func` is a function of the static call's type: every later call
    /// jumps to it with that type's arguments.
    #[doc(hidden)]
    pub unsafe fn update(&'static self, func: *mut c_void) -> Result<(), Error> {
        Error::check(unsafe { sys::sk_static_call_update(self.0.get(), func) })
    }

    /// Tell the runtime (from the definition's constructor).
    #[doc(hidden)]
    pub fn register(&'static self) {
        unsafe { sys::sk_static_call_register(self.0.get()) }
    }

    /// Its call sites, as the runtime found them.
    #[doc(hidden)]
    pub fn sites(&'static self) -> Result<CallSites, Error> {
        let mut out = sys::sk_static_call_sites::default();
        Error::check(unsafe { sys::sk_static_call_sites_of(self.0.get(), &mut out) })?;
        Ok(CallSites {
            direct: out.direct as usize,
            trampoline: out.trampoline as usize,
            why: match out.why {
                sys::SK_CALL_SITES_FOUND => CallSitesWhy::Found,
                sys::SK_CALL_SITES_NO_RELOCS => CallSitesWhy::NoRelocs,
                sys::SK_CALL_SITES_STRIPPED => CallSitesWhy::Stripped,
                sys::SK_CALL_SITES_UNREADABLE => CallSitesWhy::Unreadable,
                sys::SK_CALL_SITES_PENDING => CallSitesWhy::Pending,
                _ => CallSitesWhy::NotPatched,
            },
        })
    }
}

/// A static call's call sites, as the runtime found them (a static call's
/// `call_sites()`; `skctl calls` shows the same): the calls that updates
/// re-point at each target, so that a call costs one direct call, and the
/// calls found that still go through the trampoline.  Calls from another
/// object are never counted (they go through its PLT or GOT).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallSites {
    /// Direct calls and tail jumps that updates re-point at the target.
    pub direct: usize,
    /// Calls found that still go through the trampoline: through the GOT,
    /// where the process had threads at the static call's first update.
    pub trampoline: usize,
    /// What the runtime could find, and so what the counts cover.
    pub why: CallSitesWhy,
}

/// What the runtime found of a static call's call sites (the C header's
/// `enum sk_call_sites_why`; docs/static-calls.md, "Call sites").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallSitesWhy {
    /// The defining object kept its code's relocations (linked with
    /// `-Wl,--emit-relocs`): every call of the trampoline from it is counted.
    Found,
    /// Linked without `-Wl,--emit-relocs`: calls go through the
    /// trampoline, and are not counted.
    NoRelocs,
    /// The file has no symbol table (`strip --strip-all`): as `NoRelocs`.
    Stripped,
    /// The object's file could not be read (gone, replaced on disk, over
    /// 8,192 call sites): as `NoRelocs`.
    Unreadable,
    /// This build rewrites no call sites: everywhere but x86-64 Linux, and
    /// the portable backend there.
    NotPatched,
    /// Not looked for yet, none counted: call sites are looked for, and
    /// re-pointed, at the static call's first update to another target;
    /// until then calls reach the target through the trampoline's jump.
    Pending,
}

/// A labelled target of a static call ([`static_call_target!`]).
#[doc(hidden)]
#[repr(transparent)]
pub struct RawTarget(UnsafeCell<sys::sk_static_call_target>);
// The runtime links it into its list under its lock; nothing else writes.
unsafe impl Sync for RawTarget {}

impl RawTarget {
    #[doc(hidden)]
    pub const fn new(call: &'static RawCall, func: *mut c_void, label: &'static str) -> Self {
        RawTarget(UnsafeCell::new(sys::sk_static_call_target {
            call: call.0.get(),
            func,
            label: label.as_ptr().cast(),
            magic: sys::SK_STATIC_CALL_MAGIC,
            next: core::ptr::null_mut(),
        }))
    }
    #[doc(hidden)]
    pub fn add(&'static self) {
        unsafe { sys::sk_static_call_target_add(self.0.get()) }
    }
    #[doc(hidden)]
    pub fn remove(&'static self) {
        unsafe { sys::sk_static_call_target_remove(self.0.get()) }
    }
}

/// Names `f` as one of static call `NAME`'s targets under `label`, which
/// `skctl calls` lists and `skctl call NAME=label` switches to (only to
/// targets named this way), as the C library's `SK_STATIC_CALL_TARGET`.
/// At module level; `f` must be of the call's type.  Registered from a
/// constructor on Linux, FreeBSD, macOS and Windows.
///
/// ```
/// use statickeys::{define_static_call, static_call_target};
///
/// fn english(shout: bool) -> &'static str { if shout { "HELLO" } else { "hello" } }
/// fn french(shout: bool) -> &'static str { if shout { "BONJOUR" } else { "bonjour" } }
/// define_static_call!(GREETING: fn(shout: bool) -> &'static str = english);
/// static_call_target!(GREETING, english, "english");
/// static_call_target!(GREETING, french, "french");
/// # fn main() {}
/// ```
#[macro_export]
macro_rules! static_call_target {
    ($($name:ident)::+, $f:expr, $label:literal $(,)?) => {
        const _: () = {
            static TARGET: $crate::__private::RawTarget = $crate::__private::RawTarget::new(
                $($name)::+::__desc(),
                $($name)::+::__target($f),
                concat!($label, "\0"),
            );
            extern "C" fn add() {
                TARGET.add();
            }
            #[used]
            #[cfg_attr(any(target_os = "linux", target_os = "freebsd"),
                       unsafe(link_section = ".init_array.00102"))]
            #[cfg_attr(target_os = "macos",
                       unsafe(link_section = "__DATA,__mod_init_func,mod_init_funcs"))]
            #[cfg_attr(windows, unsafe(link_section = ".ctors.65433"))]
            static ADD: extern "C" fn() = add;
            #[cfg(any(target_os = "linux", target_os = "freebsd", windows))]
            extern "C" fn remove() {
                TARGET.remove();
            }
            #[cfg(any(target_os = "linux", target_os = "freebsd", windows))]
            #[used]
            #[cfg_attr(any(target_os = "linux", target_os = "freebsd"),
                       unsafe(link_section = ".fini_array.00102"))]
            #[cfg_attr(windows, unsafe(link_section = ".dtors.65433"))]
            static REMOVE: extern "C" fn() = remove;
        };
    };
}

/// A static call and its new target, for [`commit_calls`]: made by a
/// static call's `change(f)`, which takes only a function of its type.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct CallChange {
    // Read by the runtime, through the slice `commit_calls` passes.
    #[allow(dead_code)]
    raw: sys::sk_static_call_change,
}

impl CallChange {
    /// # Safety
    /// `func` is a function of the static call's type.
    #[doc(hidden)]
    pub unsafe fn __new(call: &'static RawCall, func: *mut c_void) -> Self {
        CallChange { raw: sys::sk_static_call_change { call: call.0.get(), func } }
    }
}

/// Key changes and static-call updates as one batch (the C library's
/// `sk_commit_calls`): at most 3 core syncs for all of them, all or nothing.
///
/// ```
/// use statickeys::{commit_calls, define_static_call, define_static_key_false, static_call, Change};
///
/// define_static_key_false!(VERBOSE);
/// fn quiet(x: u32) -> u32 { x }
/// fn loud(x: u32) -> u32 { x * 10 }
/// define_static_call!(SHOW: fn(x: u32) -> u32 = quiet);
///
/// fn main() {
///     commit_calls(&[Change::enable(&VERBOSE)], &[SHOW::change(loud)]).unwrap();
///     assert!(VERBOSE.is_enabled() && static_call!(SHOW)(2) == 20);
/// }
/// ```
pub fn commit_calls(keys: &[crate::Change<'_>], calls: &[CallChange]) -> Result<(), Error> {
    Error::check(unsafe {
        sys::sk_commit_calls(keys.as_ptr().cast(), keys.len(), calls.as_ptr().cast(), calls.len())
    })
}

/// Defines a static call: `define_static_call!(pub NAME: fn(a: A, b: B) -> R
/// = target);` (parameter names as in an `extern` block), at module level.
/// `NAME` is a module with `call`, `update` and `query`; types and the
/// target are named as in the enclosing module.  See the module docs.
///
/// A function of another type does not compile:
///
/// ```compile_fail,E0308
/// statickeys::define_static_call!(OP: fn(x: u32) -> u32 = double);
/// fn double(x: u32) -> u32 { 2 * x }
/// fn wide(x: u64) -> u64 { x }
/// fn main() { OP::update(wide).unwrap(); }
/// ```
#[macro_export]
macro_rules! define_static_call {
    // No target (the kernel's DEFINE_STATIC_CALL_NULL with static_call_cond):
    // for functions that return nothing; a call does nothing while None.
    ($(#[$m:meta])* $vis:vis $name:ident : fn($($p:ident : $arg:ty),* $(,)?) = None $(;)?) => {
        $(#[$m])*
        #[allow(non_snake_case, dead_code, unused_imports)]
        $vis mod $name {
            use super::*;

            /// The call (to the trampoline on x86-64 Linux): `static_call!(NAME)(...)`;
            /// nothing is called while the target is `None`.
            #[inline(always)]
            pub fn call($($p: $arg),*) {
                $crate::__static_call_body!($name, ($($p: $arg),*), ($($p),*), cond)
            }

            /// Re-point every call at `f`, or at nothing; nothing changes on
            /// error.
            pub fn update(f: ::core::option::Option<fn($($arg),*)>) -> ::core::result::Result<(), $crate::Error> {
                // `f` has the declared type, or is NULL, which this static
                // call's definition allows.
                unsafe { desc().update(__target_or_null(f)) }
            }

            /// This static call to `f` (or to nothing), for
            /// `statickeys::commit_calls`.
            pub fn change(f: ::core::option::Option<fn($($arg),*)>) -> $crate::CallChange {
                unsafe { $crate::CallChange::__new(desc(), __target_or_null(f)) }
            }

            #[doc(hidden)]
            pub const fn __target(f: fn($($arg),*)) -> *mut ::core::ffi::c_void {
                f as *const () as *mut ::core::ffi::c_void
            }

            fn __target_or_null(f: ::core::option::Option<fn($($arg),*)>) -> *mut ::core::ffi::c_void {
                match f {
                    ::core::option::Option::Some(f) => __target(f),
                    ::core::option::Option::None => ::core::ptr::null_mut(),
                }
            }

            /// The current target, `None` while there is none.
            pub fn query() -> ::core::option::Option<fn($($arg),*)> {
                let p = desc().load();
                // NULL, or a function of this type `update` took.
                (!p.is_null()).then(|| unsafe {
                    ::core::mem::transmute::<*mut ::core::ffi::c_void, fn($($arg),*)>(p)
                })
            }

            /// How many of its call sites are direct and how many go
            /// through its trampoline, and why (`skctl calls` shows the same).
            pub fn call_sites() -> ::core::result::Result<$crate::CallSites, $crate::Error> {
                desc().sites()
            }

            $crate::__static_call_desc!($name, ($($p: $arg),*),
                ::core::ptr::null_mut(), $crate::__private::RawCall::NULL);
        }
    };
    // Returning the type's default until updated (the kernel's
    // DEFINE_STATIC_CALL_RET0): `return0`, defined here.
    ($(#[$m:meta])* $vis:vis $name:ident : fn($($p:ident : $arg:ty),* $(,)?) -> $ret:ty = return0 $(;)?) => {
        $crate::define_static_call!($(#[$m])* $vis $name: fn($($p: $arg),*) -> $ret
            = self::return0; @items {
                /// What a `return0` static call returns until updated, and
                /// after `update_return0()`: the type's default.
                pub fn return0($($p: $arg),*) -> $ret {
                    let _ = ($($p,)*);
                    <$ret as ::core::default::Default>::default()
                }

                /// Re-point every call at `return0`.
                pub fn update_return0() -> ::core::result::Result<(), $crate::Error> {
                    update(return0)
                }

                /// This static call to `return0`, for
                /// `statickeys::commit_calls`.
                pub fn change_return0() -> $crate::CallChange {
                    change(return0)
                }
            });
    };
    // `@items { ... }`: more items for the module (the `return0` form's).
    ($(#[$m:meta])* $vis:vis $name:ident : fn($($p:ident : $arg:ty),* $(,)?) $(-> $ret:ty)? = $init:expr $(; $(@items { $($items:tt)* })?)?) => {
        $(#[$m])*
        #[allow(non_snake_case, dead_code, unused_imports)]
        $vis mod $name {
            use super::*;

            /// The call (to the trampoline on x86-64 Linux): `static_call!(NAME)(...)`.
            #[inline(always)]
            pub fn call($($p: $arg),*) $(-> $ret)? {
                $crate::__static_call_body!($name, ($($p: $arg),*) $(-> $ret)?, ($($p),*))
            }

            /// Re-point every call at `f`; nothing changes on error.
            pub fn update(f: fn($($arg),*) $(-> $ret)?) -> ::core::result::Result<(), $crate::Error> {
                // `f` has the declared type: the one every call passes.
                unsafe { desc().update(f as *const () as *mut ::core::ffi::c_void) }
            }

            /// This static call to `f`, for `statickeys::commit_calls`.
            pub fn change(f: fn($($arg),*) $(-> $ret)?) -> $crate::CallChange {
                // `f` has the declared type.
                unsafe { $crate::CallChange::__new(desc(), f as *const () as *mut ::core::ffi::c_void) }
            }

            #[doc(hidden)]
            pub const fn __target(f: fn($($arg),*) $(-> $ret)?) -> *mut ::core::ffi::c_void {
                f as *const () as *mut ::core::ffi::c_void
            }

            /// The current target.
            pub fn query() -> fn($($arg),*) $(-> $ret)? {
                let p = desc().load();
                // Always a function of this type: the definition's, or one
                // `update` took.
                unsafe { ::core::mem::transmute::<*mut ::core::ffi::c_void, fn($($arg),*) $(-> $ret)?>(p) }
            }

            /// How many of its call sites are direct and how many go
            /// through its trampoline, and why (`skctl calls` shows the same).
            pub fn call_sites() -> ::core::result::Result<$crate::CallSites, $crate::Error> {
                desc().sites()
            }

            $crate::__static_call_desc!($name, ($($p: $arg),*) $(-> $ret)?,
                $init as fn($($arg),*) $(-> $ret)? as *const () as *mut ::core::ffi::c_void, 0);

            $($($($items)*)?)?
        }
    };
}

/// The call of a static call defined with [`define_static_call!`]:
/// `static_call!(NAME)(args)`.
#[macro_export]
macro_rules! static_call {
    // The path's own tokens (`LOG`, `crate::log::LOG`, `super::LOG`), so
    // that `crate` and `super` mean the caller's.
    ($($path:tt)+) => {
        $($path)+::call
    };
}

// The trampoline's symbol: unique per definition (module path and name),
// quoted in the assembly.
#[doc(hidden)]
#[macro_export]
macro_rules! __static_call_symbol {
    ($name:ident) => {
        concat!("sk__sct_", module_path!(), "::", stringify!($name))
    };
}

// x86-64 Linux: the C header's trampoline (statickeys/static_call.h), its
// far form reading the descriptor, and a constructor that registers it (the
// runtime then turns the jump into the direct one).
#[cfg(all(sk_patched, target_arch = "x86_64", target_os = "linux"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __static_call_desc {
    ($name:ident, ($($p:ident : $arg:ty),*) $(-> $ret:ty)?, $init:expr, $flags:expr) => {
        #[used]
        static DESC: $crate::__private::RawCall = $crate::__private::RawCall::new(
            $init,
            concat!(stringify!($name), "\0").as_ptr().cast(),
            Some(TRAMP),
            $flags,
        );
        unsafe extern "C" {
            #[link_name = $crate::__static_call_symbol!($name)]
            fn tramp_addr();
        }
        const TRAMP: unsafe extern "C" fn() = tramp_addr;
        $crate::__private::global_asm!(
            concat!(
                ".pushsection .text.sk_static_call,\"ax\",@progbits\n",
                ".balign 16\n",
                ".globl \"", $crate::__static_call_symbol!($name), "\"\n",
                ".hidden \"", $crate::__static_call_symbol!($name), "\"\n",
                ".type \"", $crate::__static_call_symbol!($name), "\",@function\n",
                "\"", $crate::__static_call_symbol!($name), "\":\n",
                ".byte 0xe9\n.long 3\n",
                ".byte 0x31, 0xc0, 0xc3\n",
                // jmp *desc.runtime(%rip): offset 40, the C header's
                // SK__SC_FAR_SLOT.
                ".byte 0xff, 0x25\n.long {desc} + 40 - (. + 4)\n",
                ".byte 0x53, 0x43\n",
                ".size \"", $crate::__static_call_symbol!($name), "\", 16\n",
                ".popsection",
            ),
            desc = sym DESC,
        );
        extern "C" fn register() {
            DESC.register();
        }
        #[used]
        #[unsafe(link_section = ".init_array.00101")]
        static REGISTER: extern "C" fn() = register;
        #[inline(always)]
        fn desc() -> &'static $crate::__private::RawCall {
            &DESC
        }
        #[doc(hidden)]
        pub const fn __desc() -> &'static $crate::__private::RawCall {
            &DESC
        }
    };
}

#[cfg(all(sk_patched, target_arch = "x86_64", target_os = "linux"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __static_call_body {
    // A `None` static call: the trampoline returns at once while NULL.
    ($name:ident, ($($p:ident : $arg:ty),*), ($($a:ident),*), cond) => {
        $crate::__static_call_body!($name, ($($p: $arg),*), ($($a),*))
    };
    ($name:ident, ($($p:ident : $arg:ty),*) $(-> $ret:ty)?, ($($a:ident),*)) => {{
        unsafe extern "Rust" {
            #[link_name = $crate::__static_call_symbol!($name)]
            fn tramp($($p: $arg),*) $(-> $ret)?;
        }
        // Make sure the descriptor, trampoline and constructor exist.
        let _ = desc as fn() -> _;
        // The trampoline jumps to a function of this very signature.
        unsafe { tramp($($a),*) }
    }};
}

// Elsewhere: the descriptor alone; the call loads its target.  It is
// registered at its first update (the runtime sees it then).
#[cfg(not(all(sk_patched, target_arch = "x86_64", target_os = "linux")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __static_call_desc {
    ($name:ident, ($($p:ident : $arg:ty),*) $(-> $ret:ty)?, $init:expr, $flags:expr) => {
        static DESC: $crate::__private::RawCall = $crate::__private::RawCall::new(
            $init,
            concat!(stringify!($name), "\0").as_ptr().cast(),
            None,
            $flags,
        );
        #[inline(always)]
        fn desc() -> &'static $crate::__private::RawCall {
            &DESC
        }
        #[doc(hidden)]
        pub const fn __desc() -> &'static $crate::__private::RawCall {
            &DESC
        }
    };
}

#[cfg(not(all(sk_patched, target_arch = "x86_64", target_os = "linux")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __static_call_body {
    // A `None` static call: nothing to call while NULL.
    ($name:ident, ($($p:ident : $arg:ty),*), ($($a:ident),*), cond) => {{
        let p = desc().load();
        if !p.is_null() {
            // A function of this type (`update` took it).
            let f = unsafe { ::core::mem::transmute::<*mut ::core::ffi::c_void, fn($($arg),*)>(p) };
            f($($a),*)
        }
    }};
    ($name:ident, ($($p:ident : $arg:ty),*) $(-> $ret:ty)?, ($($a:ident),*)) => {{
        let p = desc().load();
        let f = unsafe {
            ::core::mem::transmute::<*mut ::core::ffi::c_void, fn($($arg),*) $(-> $ret)?>(p)
        };
        f($($a),*)
    }};
}
