// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the integration tests share: where sites must be patched, and how
//! to read an `sk_sites` entry.
#![allow(dead_code)] // each test program uses its part

/// Whether the crate's sites must be patched here: the platform table
/// (README.md's, in full in docs/porting.md), stated apart from the
/// crate's own choice (build.rs), so that a wrong choice, or a site table
/// the linker dropped, fails a test.
pub const PATCHED: bool = cfg!(all(
    not(feature = "portable"),
    any(
        all(
            target_os = "linux",
            any(
                target_arch = "x86_64",
                target_arch = "x86",
                target_arch = "riscv64",
                target_arch = "loongarch64"
            )
        ),
        all(windows, target_arch = "x86_64")
    )
));

/// The key an sk_sites entry names: its key field is the offset, from the
/// field, of a slot holding the key's address (the GOT's on x86-64 Linux,
/// the site's own elsewhere).
pub fn entry_key(e: &statickeys::sys::sk_site_entry) -> usize {
    let slot = (&e.key as *const i32 as isize + e.key as isize) as *const usize;
    unsafe { *slot }
}

/// The runtime the program runs, where sites are patched (after an
/// update): on Windows x86-64, the int3 protocol with Windows's writer (the
/// one STATICKEYS_WRITER asks for) and core sync.
pub fn check_patching_runtime(st: &statickeys::Stats) {
    if cfg!(windows) {
        let writer = match std::env::var("STATICKEYS_WRITER").as_deref() {
            Ok("mprotect") => "VirtualProtect",
            _ => "WriteProcessMemory",
        };
        assert_eq!(
            (st.backend, st.writer, st.sync_method),
            ("x86_64", writer, "FlushProcessWriteBuffers"),
            "{st:?}"
        );
    } else {
        assert!(!st.backend.is_empty() && st.backend != "portable", "{st:?}");
    }
}
