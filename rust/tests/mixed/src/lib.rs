// SPDX-License-Identifier: MIT OR Apache-2.0
//! The C half of the mixed test lives in c/mixed.c; this crate only links
//! it.  See tests/mixed.rs.
use core::ffi::c_int;

use statickeys::sys::sk_key;

unsafe extern "C" {
    /// Bits: 1 unlikely(c_false_key), 2 likely(c_false_key),
    /// 4 unlikely(c_true_key), 8 likely(c_true_key) took the "on" side.
    pub fn c_sites_of_c_keys() -> c_int;
    /// The same bits for RUST_FALSE_KEY and RUST_TRUE_KEY, tested in C.
    pub fn c_sites_of_rust_keys() -> c_int;
    /// sk_key_enable / sk_key_disable called from C.
    pub fn c_set(key: *mut sk_key, on: c_int) -> c_int;
    /// sizeof / offsetof of the shared structures, as C sees them.
    pub fn c_layout(what: c_int) -> usize;
}
