// SPDX-License-Identifier: MIT OR Apache-2.0
//! C keys in Rust sites, Rust keys in C sites, all in one process and one
//! runtime: flips from either language reach both languages' sites, a
//! commit of a C and a Rust key is one batch, and the object's tables,
//! registered by both the C and the Rust constructor, count once.
use statickeys::{
    commit, define_static_key_false, define_static_key_true, static_branch_likely,
    static_branch_unlikely, Change, StaticFalseKey, StaticTrueKey,
};
use statickeys_test_mixed::{c_set, c_sites_of_c_keys, c_sites_of_rust_keys};

/// The tests of this file flip and inspect the same keys: one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

define_static_key_false!(#[unsafe(no_mangle)] pub RUST_FALSE_KEY);
define_static_key_true!(#[unsafe(no_mangle)] pub RUST_TRUE_KEY);

unsafe extern "C" {
    safe static c_false_key: StaticFalseKey;
    safe static c_true_key: StaticTrueKey;
}

#[inline(never)]
fn rust_sites_of_c_keys() -> i32 {
    (static_branch_unlikely!(c_false_key) as i32)
        | (static_branch_likely!(c_false_key) as i32) << 1
        | (static_branch_unlikely!(c_true_key) as i32) << 2
        | (static_branch_likely!(c_true_key) as i32) << 3
}

#[inline(never)]
fn rust_sites_of_rust_keys() -> i32 {
    (static_branch_unlikely!(RUST_FALSE_KEY) as i32)
        | (static_branch_likely!(RUST_FALSE_KEY) as i32) << 1
        | (static_branch_unlikely!(RUST_TRUE_KEY) as i32) << 2
        | (static_branch_likely!(RUST_TRUE_KEY) as i32) << 3
}

/// Both sites of the false key on (bits 1|2) and/or of the true key (4|8).
fn expect(false_on: bool, true_on: bool) -> i32 {
    (if false_on { 3 } else { 0 }) | (if true_on { 12 } else { 0 })
}

fn check_all(c_false: bool, c_true: bool, r_false: bool, r_true: bool, when: &str) {
    let c = expect(c_false, c_true);
    let r = expect(r_false, r_true);
    assert_eq!(unsafe { c_sites_of_c_keys() }, c, "{when}: C sites of C keys");
    assert_eq!(rust_sites_of_c_keys(), c, "{when}: Rust sites of C keys");
    assert_eq!(unsafe { c_sites_of_rust_keys() }, r, "{when}: C sites of Rust keys");
    assert_eq!(rust_sites_of_rust_keys(), r, "{when}: Rust sites of Rust keys");
}

#[test]
fn keys_of_either_language_reach_sites_of_both() {
    let _serial = SERIAL.lock().unwrap();
    check_all(false, true, false, true, "initial");

    // Rust flips C keys, C flips Rust keys.
    c_false_key.enable().unwrap();
    c_true_key.disable().unwrap();
    assert_eq!(unsafe { c_set(RUST_FALSE_KEY.as_raw(), 1) }, 0);
    assert_eq!(unsafe { c_set(RUST_TRUE_KEY.as_raw(), 0) }, 0);
    check_all(true, false, true, false, "after flipping all four");

    // One commit, C and Rust keys: one batch, at most 3 core syncs, and
    // each of the 4 keys' 4 sites written once (16), not twice.
    let before = statickeys::stats();
    commit(&[
        Change::disable(&c_false_key),
        Change::enable(&c_true_key),
        Change::disable(&RUST_FALSE_KEY),
        Change::enable(&RUST_TRUE_KEY),
    ])
    .unwrap();
    let after = statickeys::stats();
    check_all(false, true, false, true, "after one commit of all four");
    assert_eq!(after.batches - before.batches, 1, "one batch");
    assert!(after.core_syncs - before.core_syncs <= 3, "at most 3 core syncs");
    assert_eq!(after.sites_written - before.sites_written, 16, "16 sites, each once");
    println!(
        "C and Rust keys x C and Rust sites: checked; one commit = {} batch, {} core syncs, {} sites",
        after.batches - before.batches,
        after.core_syncs - before.core_syncs,
        after.sites_written - before.sites_written
    );
}

#[test]
fn names_cross_languages() {
    assert_eq!(c_false_key.name().to_str().unwrap(), "c_false_key");
    assert_eq!(c_false_key.description().unwrap().to_str().unwrap(), "a C key that starts off");
    let found = unsafe { statickeys::sys::sk_key_find(c"RUST_TRUE_KEY".as_ptr()) };
    assert_eq!(found, RUST_TRUE_KEY.as_raw());
}

/// What the site at `code` holds, decoded as the C runtime encodes it
/// (src/arch/<arch>/site.c): `Some(destination)` for a jump, `None` for the
/// no-op; any other bytes fail the test.
#[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
fn decode_site(code: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    const NOP5: [u8; 5] = [0x0f, 0x1f, 0x44, 0x00, 0x00];
    #[cfg(target_arch = "x86")]
    const NOP5: [u8; 5] = [0x3e, 0x8d, 0x74, 0x26, 0x00]; // the kernel's 32-bit one
    let bytes = unsafe { core::slice::from_raw_parts(code as *const u8, 5) };
    if bytes[0] == 0xe9 {
        let rel = i32::from_le_bytes(bytes[1..5].try_into().unwrap());
        return Some((code as isize + 5 + rel as isize) as usize);
    }
    assert_eq!(bytes, NOP5, "site {code:#x}: a NOP5");
    None
}

#[cfg(target_arch = "riscv64")]
fn decode_site(code: usize) -> Option<usize> {
    assert_eq!(code % 4, 0, "site {code:#x}: 4-byte aligned");
    let v = unsafe { (code as *const u32).read() };
    if v == 0x0000_0013 {
        return None; // nop (addi x0, x0, 0)
    }
    assert_eq!(v & 0xfff, 0x06f, "site {code:#x}: a nop or a jal x0 ({v:#010x})");
    let off = ((v >> 31) & 1) << 20 | ((v >> 21) & 0x3ff) << 1 | ((v >> 20) & 1) << 11 | (v & 0xff000);
    Some((code as isize + ((off << 11) as i32 >> 11) as isize) as usize)
}

#[cfg(target_arch = "loongarch64")]
fn decode_site(code: usize) -> Option<usize> {
    assert_eq!(code % 4, 0, "site {code:#x}: 4-byte aligned");
    let v = unsafe { (code as *const u32).read() };
    if v == 0x0340_0000 {
        return None; // nop (andi $r0, $r0, 0)
    }
    assert_eq!(v & 0xfc00_0000, 0x5000_0000, "site {code:#x}: a nop or a b ({v:#010x})");
    // offs26 in words: offs[15:0] in bits 25..10, offs[25:16] in bits 9..0.
    let words = ((v >> 10) & 0xffff) | (v & 0x3ff) << 16;
    Some((code as isize + ((words << 6) as i32 >> 6) as isize * 4) as usize)
}

/// Every entry of this object's table, C and Rust, decodes the same way:
/// a site holding the architecture's no-op or a jump to its target, as
/// (state ^ likely) requires, and a key slot naming a key defined by either
/// language.
#[test]
fn c_and_rust_sites_are_the_same_bytes() {
    let _serial = SERIAL.lock().unwrap();
    use statickeys::sys::sk_key;
    let table = statickeys::__private::site_table();
    let (mut c_key_sites, mut rust_key_sites) = (0, 0);
    for e in table {
        let base = e as *const _ as usize;
        let code = (base as isize + e.code as isize) as usize;
        let target = (base as isize + 4 + e.target as isize) as usize;
        let slot = (base as isize + 8 + e.key as isize) as *const *const sk_key;
        let key = unsafe { *slot };
        let likely = e.flags & 1 == 1;
        let enabled = unsafe { statickeys::sys::sk_key_enabled(key) };
        let want = (enabled ^ likely).then_some(target);
        assert_eq!(decode_site(code), want, "site {code:#x}: jump to the target iff state ^ likely");
        assert_eq!(e.flags & !1, 0, "flags hold only the likely bit");
        let is = |k: *mut sk_key| std::ptr::eq(key, k);
        if is(c_false_key.as_raw()) || is(c_true_key.as_raw()) {
            c_key_sites += 1;
        }
        if is(RUST_FALSE_KEY.as_raw()) || is(RUST_TRUE_KEY.as_raw()) {
            rust_key_sites += 1;
        }
    }
    // Each key: 2 sites in C and 2 in Rust.
    assert_eq!((c_key_sites, rust_key_sites), (8, 8), "sites per language pair");
    println!("{} entries, C and Rust, all decode as C sites", table.len());
}

/// The Rust declarations have the C layouts.
#[test]
fn layouts_match_the_c_headers() {
    use statickeys::sys;
    use std::mem::{offset_of, size_of};
    let c = |w| unsafe { statickeys_test_mixed::c_layout(w) };
    assert_eq!(c(0), size_of::<sys::sk_key>());
    assert_eq!(c(1), offset_of!(sys::sk_key, name));
    assert_eq!(c(2), size_of::<StaticFalseKey>());
    assert_eq!(c(3), size_of::<sys::sk_site_entry>());
    assert_eq!(c(4), size_of::<sys::sk_object_handle>());
    assert_eq!(c(5), size_of::<sys::sk_key_change>());
    assert_eq!(c(5), size_of::<statickeys::Change>());
    assert_eq!(c(6), size_of::<sys::sk_stats>());
    assert_eq!(c(7), offset_of!(sys::sk_stats, writer));
}
