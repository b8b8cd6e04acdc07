// SPDX-License-Identifier: MIT OR Apache-2.0
//! The Rust benchmark against this repository's `statickeys` crate.
use statickeys as sk;
macro_rules! on {
    ($k:path) => {
        $k.enable().expect("enable")
    };
}
macro_rules! off {
    ($k:path) => {
        $k.disable().expect("disable")
    };
}
include!("../common.rs");
