// SPDX-License-Identifier: MIT OR Apache-2.0
//! The Rust benchmark against `static-keys` 0.8 from crates.io.
use static_keys as sk;
macro_rules! on {
    ($k:path) => {
        unsafe { $k.enable() }
    };
}
macro_rules! off {
    ($k:path) => {
        unsafe { $k.disable() }
    };
}
include!("../common.rs");
