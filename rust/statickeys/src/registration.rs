// SPDX-License-Identifier: MIT OR Apache-2.0
//! Registers the sites and keys of the object this crate is linked into.
//!
//! Like the C header's constructor (statickeys/object.h): a priority-101
//! constructor hands the object's `sk_sites` and `sk_keys` bounds to the
//! runtime before any ordinary constructor or `main` can run a site, and a
//! destructor of the same priority unregisters it before the object is
//! unmapped (`dlclose` of a cdylib plugin).  Each linked object (program,
//! cdylib) carries its own copy of this crate and so its own handle; when
//! the object also has C files with sites, their constructor registers the
//! same tables through the C handle, and the runtime counts that once.
use core::cell::UnsafeCell;

use crate::sys;

struct Handle(UnsafeCell<sys::sk_object_handle>);
// Only the runtime touches it, atomically.
unsafe impl Sync for Handle {}

static HANDLE: Handle = Handle(UnsafeCell::new(sys::sk_object_handle {
    refs: 0,
    object: core::ptr::null_mut(),
}));

/// The bounds of this object's tables.  The symbols are made hidden so they
/// bind within the object (a cdylib must not see the program's tables), and
/// the empty, retained sections guarantee the linker defines them even in
/// an object with no sites or no keys (aligned as their entries: an empty
/// table must still start at an aligned address, which i686 showed).
#[cfg(all(
    any(target_arch = "x86_64", target_arch = "x86", target_arch = "riscv64"),
    any(target_os = "linux", target_os = "freebsd")
))]
macro_rules! declare_tables {
    () => {
        concat!(
            ".pushsection sk_sites, \"aR\"\n",
            ".balign 4\n",
            ".popsection\n",
            ".pushsection sk_keys, \"awR\"\n",
            ".balign 4\n",
            ".popsection\n",
            ".hidden __start_sk_sites\n",
            ".hidden __stop_sk_sites\n",
            ".hidden __start_sk_keys\n",
            ".hidden __stop_sk_keys",
        )
    };
}

#[cfg(all(
    any(target_arch = "x86_64", target_arch = "x86", target_arch = "riscv64"),
    any(target_os = "linux", target_os = "freebsd")
))]
pub(crate) fn tables() -> (
    *const sys::sk_site_entry,
    *const sys::sk_site_entry,
    *const *mut sys::sk_key,
    *const *mut sys::sk_key,
) {
    let (s0, s1, k0, k1): (usize, usize, usize, usize);
    // Each architecture takes the four addresses PC-relatively, without
    // the GOT (the symbols are hidden, in this object).
    #[cfg(target_arch = "x86_64")]
    unsafe {
        core::arch::asm!(
            declare_tables!(),
            "lea {s0}, [rip + __start_sk_sites]",
            "lea {s1}, [rip + __stop_sk_sites]",
            "lea {k0}, [rip + __start_sk_keys]",
            "lea {k1}, [rip + __stop_sk_keys]",
            s0 = out(reg) s0,
            s1 = out(reg) s1,
            k0 = out(reg) k0,
            k1 = out(reg) k1,
            options(nostack, nomem, pure, preserves_flags),
        );
    }
    // i686 has no PC-relative addressing: call the next instruction and
    // take the return address off the stack (what gcc's pc thunks do).
    #[cfg(target_arch = "x86")]
    unsafe {
        core::arch::asm!(
            declare_tables!(),
            "call 5f",
            "5:",
            "popl {k1}",
            "leal __start_sk_sites - 5b({k1}), {s0}",
            "leal __stop_sk_sites - 5b({k1}), {s1}",
            "leal __start_sk_keys - 5b({k1}), {k0}",
            "leal __stop_sk_keys - 5b({k1}), {k1}",
            s0 = out(reg) s0,
            s1 = out(reg) s1,
            k0 = out(reg) k0,
            k1 = out(reg) k1,
            options(nomem, pure, preserves_flags, att_syntax),
        );
    }
    #[cfg(target_arch = "riscv64")]
    unsafe {
        core::arch::asm!(
            declare_tables!(),
            "lla {s0}, __start_sk_sites",
            "lla {s1}, __stop_sk_sites",
            "lla {k0}, __start_sk_keys",
            "lla {k1}, __stop_sk_keys",
            s0 = out(reg) s0,
            s1 = out(reg) s1,
            k0 = out(reg) k0,
            k1 = out(reg) k1,
            options(nostack, nomem, pure, preserves_flags),
        );
    }
    (s0 as _, s1 as _, k0 as _, k1 as _)
}

/// Elsewhere, without assembly (not stable on every architecture): the
/// linker's bounds as extern statics.  The retained, empty listings below
/// make the linker define them in an object with no sites or no keys; the
/// GNU linkers give these symbols protected visibility, so a cdylib binds
/// to its own.
#[cfg(all(
    not(any(target_arch = "x86_64", target_arch = "x86", target_arch = "riscv64")),
    any(target_os = "linux", target_os = "freebsd")
))]
pub(crate) fn tables() -> (
    *const sys::sk_site_entry,
    *const sys::sk_site_entry,
    *const *mut sys::sk_key,
    *const *mut sys::sk_key,
) {
    #[used]
    #[unsafe(link_section = "sk_sites")]
    static NO_SITES: [sys::sk_site_entry; 0] = [];
    #[used]
    #[unsafe(link_section = "sk_keys")]
    static NO_KEYS: [crate::__private::KeyListing; 0] = [];
    unsafe extern "C" {
        static __start_sk_sites: [sys::sk_site_entry; 0];
        static __stop_sk_sites: [sys::sk_site_entry; 0];
        static __start_sk_keys: [*mut sys::sk_key; 0];
        static __stop_sk_keys: [*mut sys::sk_key; 0];
    }
    (
        (&raw const __start_sk_sites).cast(),
        (&raw const __stop_sk_sites).cast(),
        (&raw const __start_sk_keys).cast(),
        (&raw const __stop_sk_keys).cast(),
    )
}

/// Mach-O (macOS): the linker's section$start/section$end symbols of
/// "__DATA,sk_keys" (statickeys/section.h), which ld64 defines in every
/// image, per image; there is no site table, since no site is patched.
#[cfg(target_os = "macos")]
pub(crate) fn tables() -> (
    *const sys::sk_site_entry,
    *const sys::sk_site_entry,
    *const *mut sys::sk_key,
    *const *mut sys::sk_key,
) {
    // No empty listing to make the section exist, unlike ELF: LLVM gives
    // a zero-sized static one byte on Mach-O, which would sit among the
    // keys' pointers; the linker defines these symbols without it.
    unsafe extern "C" {
        // \u{1}: the symbol's exact name, without Mach-O's leading '_'.
        #[link_name = "\u{1}section$start$__DATA$sk_keys"]
        static KEYS_START: [*mut sys::sk_key; 0];
        #[link_name = "\u{1}section$end$__DATA$sk_keys"]
        static KEYS_STOP: [*mut sys::sk_key; 0];
    }
    (
        core::ptr::null(),
        core::ptr::null(),
        (&raw const KEYS_START).cast(),
        (&raw const KEYS_STOP).cast(),
    )
}

/// PE (Windows): no linker-made bounds.  Each table is a grouped section
/// that the linker sorts by suffix: the entries in "sk_sites$m" and
/// "sk_keys$m" (lib.rs), between one-entry null markers in "$a" and "$z".
/// The markers are statickeys/section_pe.h's for C files, under the same
/// names and as the same COMDATs (gcc's selectany: one same-size copy kept
/// per program or DLL), so that an object with C and Rust files has one of
/// each and its C and Rust constructors register the very same tables,
/// which the runtime counts once (as ELF's __start_ symbols).  The site
/// table is empty where sites test flags; the runtime skips null key
/// listings.
#[cfg(windows)]
pub(crate) fn tables() -> (
    *const sys::sk_site_entry,
    *const sys::sk_site_entry,
    *const *mut sys::sk_key,
    *const *mut sys::sk_key,
) {
    unsafe extern "C" {
        static sk__sites_pe_start: [sys::sk_site_entry; 1];
        static sk__sites_pe_stop: [sys::sk_site_entry; 1];
        static sk__keys_pe_start: [*mut sys::sk_key; 1];
        static sk__keys_pe_stop: [*mut sys::sk_key; 1];
    }
    // Each table begins after its start marker and ends where its stop
    // marker begins.
    let sites: *const sys::sk_site_entry = (&raw const sk__sites_pe_start).cast();
    let keys: *const *mut sys::sk_key = (&raw const sk__keys_pe_start).cast();
    (
        sites.wrapping_add(1),
        (&raw const sk__sites_pe_stop).cast(),
        keys.wrapping_add(1),
        (&raw const sk__keys_pe_stop).cast(),
    )
}

// C symbol names in assembly: 32-bit x86 prefixes them with '_'.
#[cfg(all(windows, target_arch = "x86"))]
macro_rules! c_name {
    ($name:literal) => {
        concat!("_", $name)
    };
}

#[cfg(all(windows, not(target_arch = "x86")))]
macro_rules! c_name {
    ($name:literal) => {
        $name
    };
}

// One marker, in assembly (Rust has no COMDAT of its own choosing): a
// global of @size zero bytes aligned to @align, alone in a same-size COMDAT
// section, as gcc emits a selectany object.
#[cfg(windows)]
macro_rules! pe_marker {
    ($section:literal, $name:literal, $size:literal, $align:literal) => {
        concat!(
            ".pushsection ", $section, ", \"dr\", same_size, ", c_name!($name), "\n",
            ".globl ", c_name!($name), "\n",
            ".balign ", $align, "\n",
            c_name!($name), ":\n",
            ".zero ", $size, "\n",
            ".popsection",
        )
    };
}

// C's `const struct sk__site_entry[1]` (four ints) and `struct sk_key
// *const[1]`.
#[cfg(windows)]
core::arch::global_asm!(
    pe_marker!("sk_sites$a", "sk__sites_pe_start", "{entry}", "4"),
    pe_marker!("sk_sites$z", "sk__sites_pe_stop", "{entry}", "4"),
    pe_marker!("sk_keys$a", "sk__keys_pe_start", "{ptr}", "{ptr}"),
    pe_marker!("sk_keys$z", "sk__keys_pe_stop", "{ptr}", "{ptr}"),
    entry = const core::mem::size_of::<sys::sk_site_entry>(),
    ptr = const core::mem::size_of::<*mut sys::sk_key>(),
);

extern "C" fn register() {
    let (s0, s1, k0, k1) = tables();
    unsafe { sys::sk_object_register(HANDLE.0.get(), s0, s1, k0, k1) };
    #[cfg(target_os = "macos")]
    at_unload();
}

extern "C" fn unregister() {
    unsafe { sys::sk_object_unregister(HANDLE.0.get()) };
}

// ELF: priority 101 in .init_array/.fini_array, as the C header's
// constructor(101)/destructor(101).
#[cfg(any(target_os = "linux", target_os = "freebsd"))]
#[used]
#[unsafe(link_section = ".init_array.00101")]
static CONSTRUCTOR: extern "C" fn() = register;

#[cfg(any(target_os = "linux", target_os = "freebsd"))]
#[used]
#[unsafe(link_section = ".fini_array.00101")]
static DESTRUCTOR: extern "C" fn() = unregister;

// Mach-O has no priorities: dyld runs an image's __mod_init_func entries
// in order, before any of the image's code can run a site.  Its
// destructors are registered with __cxa_atexit against the image's
// __dso_handle, which is how clang lowers C's destructor attribute there:
// they run at exit, or when the image is unloaded.
#[cfg(target_os = "macos")]
#[used]
#[unsafe(link_section = "__DATA,__mod_init_func,mod_init_funcs")]
static CONSTRUCTOR: extern "C" fn() = register;

// mingw-w64 runs gcc's constructor lists: priority 101 is .ctors.65434
// (65535 - 101), as gcc emits for __attribute__((constructor(101))).
#[cfg(windows)]
#[used]
#[unsafe(link_section = ".ctors.65434")]
static CONSTRUCTOR: extern "C" fn() = register;

#[cfg(windows)]
#[used]
#[unsafe(link_section = ".dtors.65434")]
static DESTRUCTOR: extern "C" fn() = unregister;

#[cfg(target_os = "macos")]
fn at_unload() {
    extern "C" fn run(_: *mut core::ffi::c_void) {
        unregister();
    }
    unsafe extern "C" {
        static __dso_handle: u8;
        fn __cxa_atexit(
            f: extern "C" fn(*mut core::ffi::c_void),
            arg: *mut core::ffi::c_void,
            dso: *const u8,
        ) -> core::ffi::c_int;
    }
    unsafe { __cxa_atexit(run, core::ptr::null_mut(), &raw const __dso_handle) };
}
