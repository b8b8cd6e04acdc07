// SPDX-License-Identifier: MIT OR Apache-2.0
//! Dynamic debug: every debug statement its own static key (the C
//! library's `statickeys/dyndbg.h`, the kernel's `CONFIG_DYNAMIC_DEBUG`).
//!
//! ```
//! use statickeys::sk_debug;
//!
//! fn flush(queue: u32, items: usize) {
//!     sk_debug!("queue {}: {} items", queue, items); // one no-op while off
//!     sk_debug!(class: "net", "sent {items}");       // only `class net` queries
//! }
//!
//! fn main() {
//!     flush(1, 3);                                   // prints nothing
//!     let n = statickeys::dyndbg::query("format 'queue ' +pf").unwrap();
//!     assert_eq!(n, 1);
//!     flush(2, 5); // stderr: "rust_out: queue 2: 5 items" (the doctest's module path)
//!     statickeys::dyndbg::query("-p").unwrap();
//! }
//! ```
//!
//! Each [`sk_debug!`](crate::sk_debug) is a call site with a descriptor of its own, a
//! [`Site`], laid out as C's `struct sk_dyndbg_site` and listed in the
//! object's `sk_keys` section like every key: the runtime finds Rust and C
//! statements alike, in one catalogue ([`catalogue`], `skctl debug PID`),
//! and switches them with one query language ([`query`], `skctl debug PID
//! 'QUERY'`, `STATICKEYS_DYNDBG`, config files).  A statement records:
//!
//! - file: `file!()` (the path as Cargo passed it: `src/net.rs`; `file`
//!   queries match it or its base name);
//! - function: the enclosing **module's path**, `module_path!()`
//!   (`mycrate::net`): Rust has no macro that names the enclosing function,
//!   so `func` queries match module paths (`func 'mycrate::net*'`);
//! - line: `line!()`;
//! - format: the format string as written (`"queue {}: {} items"`);
//! - class: the `class:` literal, or none;
//! - module: the object's file name without folders and extension (the
//!   program's name, or `libplugin` for `libplugin.so`), set by the runtime.
//!
//! While a statement is off it costs what a key site costs (one 5-byte
//! no-op where sites are patched, a flag test elsewhere) and its arguments
//! are not evaluated.  When on, the message is formatted once, into a
//! 1 KiB buffer on the stack (longer ones are cut at a character
//! boundary), and handed to the runtime's sink, the static call
//! `sk_dyndbg_sink`, as C statements' are: the decorations a query asks
//! for (`+pmflst`) and a sink re-pointed from C or with [`set_sink`]
//! apply to both.
use alloc::ffi::CString;
use alloc::string::String;
use alloc::vec::Vec;
use core::ffi::{c_char, c_uint, c_void, CStr};
use core::fmt;
use core::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

use crate::{sys, Error, StaticFalseKey};

/// The flag `p`: the statement prints (its key is on).
pub const PRINT: u32 = sys::SK_DYNDBG_PRINT;
/// The flag `m`: prefix the module.
pub const MODULE: u32 = sys::SK_DYNDBG_MODULE;
/// The flag `f`: prefix the function (for a Rust statement, its module path).
pub const FUNC: u32 = sys::SK_DYNDBG_FUNC;
/// The flag `s`: prefix the source file's base name.
pub const SOURCE: u32 = sys::SK_DYNDBG_SOURCE;
/// The flag `l`: prefix the line.
pub const LINE: u32 = sys::SK_DYNDBG_LINE;
/// The flag `t`: prefix the thread id.
pub const TID: u32 = sys::SK_DYNDBG_TID;

/// One debug statement's descriptor: C's `struct sk_dyndbg_site`, field for
/// field.  [`sk_debug!`](crate::sk_debug) defines one per statement; a
/// [`Sink`] receives the site of each message, Rust's or C's.
#[repr(C)]
pub struct Site {
    key: StaticFalseKey,
    magic: c_uint,
    line: c_uint,
    file: *const c_char,
    function: *const c_char,
    format: *const c_char,
    cls: *const c_char,
    // Written by the runtime: as the object registers, and by queries.
    module: AtomicPtr<c_char>,
    flags: AtomicU32,
}

// The pointers are to string literals; module and flags are atomics.
unsafe impl Sync for Site {}
unsafe impl Send for Site {}

const _: () = assert!(core::mem::size_of::<Site>() == core::mem::size_of::<sys::sk_dyndbg_site>());

impl Site {
    /// For [`sk_debug!`](crate::sk_debug): every string a literal ending in
    /// a NUL, `cls` "" for no class (anything else fails to compile).
    #[doc(hidden)]
    pub const fn __new(
        name: &'static str,
        file: &'static str,
        line: u32,
        function: &'static str,
        format: &'static str,
        cls: &'static str,
    ) -> Site {
        let desc = match core::str::from_utf8(sys::SK_DYNDBG_DESC) {
            Ok(d) => d,
            Err(_) => panic!("SK_DYNDBG_DESC is ASCII"),
        };
        Site {
            key: StaticFalseKey::__from_literals(name, desc),
            magic: sys::SK_DYNDBG_MAGIC,
            line,
            file: c_str(file),
            function: c_str(function),
            format: c_str(format),
            cls: if cls.is_empty() { core::ptr::null() } else { c_str(cls) },
            module: AtomicPtr::new(core::ptr::null_mut()),
            flags: AtomicU32::new(0),
        }
    }

    /// Its static key (named `dyndbg:FILE:LINE`, as `skctl list` and the
    /// audit trail show it): on while the statement prints.
    pub fn key(&self) -> &StaticFalseKey {
        &self.key
    }

    /// The source file, as the compiler spelled it.
    pub fn file(&self) -> &CStr {
        unsafe { CStr::from_ptr(self.file) }
    }

    /// The function: a Rust statement's module path, a C statement's
    /// `__func__`.
    pub fn function(&self) -> &CStr {
        unsafe { CStr::from_ptr(self.function) }
    }

    /// The format string (a hex dump's prefix).
    pub fn format(&self) -> &CStr {
        unsafe { CStr::from_ptr(self.format) }
    }

    /// The class, if the statement has one.
    pub fn class(&self) -> Option<&CStr> {
        (!self.cls.is_null()).then(|| unsafe { CStr::from_ptr(self.cls) })
    }

    /// The object's name (the kernel's module), once the runtime has
    /// registered the object.
    pub fn module(&self) -> Option<&CStr> {
        // The runtime stores it with release, after writing the name.
        let p = self.module.load(Ordering::Acquire);
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) })
    }

    /// The line.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The flags: [`PRINT`], [`MODULE`], [`FUNC`], [`SOURCE`], [`LINE`],
    /// [`TID`].
    pub fn flags(&self) -> u32 {
        self.flags.load(Ordering::Relaxed)
    }
}

impl fmt::Debug for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Site")
            .field("file", &self.file())
            .field("line", &self.line)
            .field("function", &self.function())
            .field("format", &self.format())
            .field("class", &self.class())
            .field("module", &self.module())
            .field("flags", &self.flags())
            .finish()
    }
}

const fn c_str(s: &'static str) -> *const c_char {
    let b = s.as_bytes();
    assert!(!b.is_empty() && b[b.len() - 1] == 0, "a debug statement's string without a NUL");
    b.as_ptr().cast()
}

/// Apply a query in the kernel's language (`"file net.rs line 10-20 +p"`,
/// several separated by `;` or newlines; docs/dynamic-debug.md), to the
/// statements of every loaded object, C and Rust: each query one commit of
/// all the keys it changes.  Returns how many statements matched (0 is no
/// error).
///
/// Errors: [`ErrorKind::InvalidQuery`](crate::ErrorKind::InvalidQuery)
/// when any part does not parse (the runtime's warning on stderr names the
/// word and its position) or the text holds a NUL, and then nothing
/// changed; otherwise a commit's errors, as [`commit`](crate::commit).
pub fn query(text: &str) -> Result<usize, Error> {
    const EINVAL: core::ffi::c_int = 22;
    let text = CString::new(text).map_err(|_| Error::from_query(-EINVAL))?;
    let r = unsafe { sys::sk_dyndbg_query(text.as_ptr()) };
    if r < 0 {
        Err(Error::from_query(r))
    } else {
        Ok(r as usize)
    }
}

/// The catalogue of every statement of every loaded object, C and Rust, in
/// the kernel's control-file format (`/proc/dynamic_debug/control`): a
/// `# filename:lineno [module]function flags format` header, then
/// `file:line [module]function =flags "format"` a line (` class:C` after a
/// classed statement's), as `skctl debug PID` prints it.
pub fn catalogue() -> String {
    let mut size = 4096;
    loop {
        let mut buf: Vec<u8> = Vec::with_capacity(size);
        let n = unsafe { sys::sk_dyndbg_catalogue(buf.as_mut_ptr().cast(), size) };
        if n < 0 {
            return String::new(); // only on a broken runtime: no memory
        }
        let n = n as usize;
        // A plugin loaded between two calls makes the text longer: try
        // again with room to spare.
        if n < size {
            unsafe { buf.set_len(n) };
            return String::from_utf8_lossy(&buf).into_owned();
        }
        size = n + n / 4 + 1;
    }
}

/// A sink: receives every enabled statement's message (`len` bytes at
/// `msg`, NUL-terminated), Rust's and C's, with its site; what the static
/// call `sk_dyndbg_sink` calls.
///
/// ```
/// use core::ffi::c_char;
/// use statickeys::dyndbg::{self, Site};
///
/// extern "C" fn to_log(site: &Site, msg: *const c_char, len: usize) {
///     let msg = unsafe { core::slice::from_raw_parts(msg.cast::<u8>(), len) };
///     let msg = String::from_utf8_lossy(msg);
///     let func = site.function().to_string_lossy();
///     println!("{func}:{}: {msg}", site.line()); // the program's own logger
/// }
///
/// fn main() {
///     dyndbg::set_sink(Some(to_log)).unwrap();
///     statickeys::sk_debug!("hello");
///     dyndbg::set_sink(None).unwrap(); // back to stderr
/// }
/// ```
pub type Sink = extern "C" fn(site: &Site, msg: *const c_char, len: usize);

/// Re-point the sink of every statement, Rust's and C's (C's
/// `sk_static_call_update(sk_dyndbg_sink, f)`); `None`: back to the
/// default, which writes one line to stderr with the decorations the
/// statement's flags ask for.  Errors as a static call's update.
pub fn set_sink(sink: Option<Sink>) -> Result<(), Error> {
    let f: *mut c_void = match sink {
        Some(f) => f as *mut c_void,
        None => sys::sk_dyndbg_sink_stderr as *mut c_void,
    };
    Error::check(unsafe { sys::sk_static_call_update(sys::sk_dyndbg_sink_key(), f) })
}

/// The message buffer: C's (dyndbg_print.c's MSG_MAX, with its NUL).
const MSG_MAX: usize = 1024;

struct Message {
    buf: [u8; MSG_MAX],
    len: usize,
}

impl fmt::Write for Message {
    // Cut at a character boundary when full: what is kept is valid UTF-8.
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = MSG_MAX - 1 - self.len;
        let mut n = s.len().min(room);
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        if n < s.len() {
            Err(fmt::Error) // stops the formatting: nothing more fits
        } else {
            Ok(())
        }
    }
}

/// An enabled statement: format the message once and hand it to the sink.
/// Out of line and cold, as C's `sk__dyndbg_printf`.
#[doc(hidden)]
#[cold]
#[inline(never)]
pub fn __print(site: &'static Site, args: fmt::Arguments<'_>) {
    let mut msg = Message { buf: [0; MSG_MAX], len: 0 };
    let _ = fmt::write(&mut msg, args); // an error: the message was cut
    msg.buf[msg.len] = 0;
    emit(site, &msg.buf[..msg.len]);
}

/// Call the sink's current target, as C's `sk_static_call(sk_dyndbg_sink)`
/// in its pointer form: the descriptor's target, loaded as the C header
/// loads it (the trampoline is the runtime's own, hidden in its shared
/// library).  `msg` is followed by a NUL.
fn emit(site: &'static Site, msg: &[u8]) {
    let key = sys::sk_dyndbg_sink_key();
    let func = unsafe { AtomicPtr::from_ptr(&raw mut (*key).func) }.load(Ordering::Relaxed);
    // The runtime's default or a target set by an update: a function of
    // the sink's type (set_sink takes only those; C's update is typed).
    let sink: sys::sk_dyndbg_sink_fn = unsafe { core::mem::transmute(func) };
    unsafe { sink((site as *const Site).cast(), msg.as_ptr().cast(), msg.len()) };
}

/// A debug statement: `sk_debug!("queue {}: {} items", q, n)`, with
/// `format_args!` syntax, its own [`Site`] and key, off by default; while
/// off it costs one no-op (a flag test where sites are not patched) and
/// its arguments are not evaluated.
///
/// `sk_debug!(class: "net", "sent {}", len)`: in class `net`, which only
/// queries with `class net` match (the kernel's rule: a query without
/// `class` leaves classed statements alone).  The format must be a string
/// literal (it is the statement's format in the catalogue).
///
/// See [the module](crate::dyndbg) for what a statement records.
#[macro_export]
macro_rules! sk_debug {
    (class: $cls:literal, $fmt:literal $($arg:tt)*) => {
        $crate::__dyndbg_statement!(::core::concat!($cls, "\0"), $fmt,
            |site| $crate::dyndbg::__print(site, ::core::format_args!($fmt $($arg)*)))
    };
    ($fmt:literal $($arg:tt)*) => {
        $crate::__dyndbg_statement!("", $fmt,
            |site| $crate::dyndbg::__print(site, ::core::format_args!($fmt $($arg)*)))
    };
}

// One statement: its descriptor (a static of its own in a block of its
// own), its key's listing in "sk_keys", and its site, whose enabled path
// runs @on with the descriptor as @site.  Also the log bridge's (log.rs).
#[doc(hidden)]
#[macro_export]
macro_rules! __dyndbg_statement {
    ($cls:expr, $fmt:literal, |$site:pat_param| $on:expr) => {{
        static __SK_DD_SITE: $crate::dyndbg::Site = $crate::dyndbg::Site::__new(
            ::core::concat!("dyndbg:", ::core::file!(), ":", ::core::line!(), "\0"),
            ::core::concat!(::core::file!(), "\0"),
            ::core::line!(),
            ::core::concat!(::core::module_path!(), "\0"),
            ::core::concat!($fmt, "\0"),
            $cls,
        );
        $crate::__list_static_key_in_block!(__SK_DD_SITE);
        if $crate::__dyndbg_branch!(__SK_DD_SITE) {
            let $site: &'static $crate::dyndbg::Site = &__SK_DD_SITE;
            $on;
        }
    }};
}

// The site: the descriptor's first member is its key, off by default (an
// unlikely branch starting as the no-op), as a tracepoint's.
#[cfg(sk_patched)]
#[doc(hidden)]
#[macro_export]
macro_rules! __dyndbg_branch {
    ($site:path) => {
        $crate::__static_branch!(@site $site, 0u32, false)
    };
}

#[cfg(not(sk_patched))]
#[doc(hidden)]
#[macro_export]
macro_rules! __dyndbg_branch {
    ($site:path) => {
        $crate::__private::flag_is_on($site.key())
    };
}
