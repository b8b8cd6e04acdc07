// SPDX-License-Identifier: MIT OR Apache-2.0
//! `log::debug!` with the logger's level at Info (1 function(s), live shape).
include!("../common.rs");
macro_rules! dd_stmt {
    ($i:literal, $x:expr) => {
        log::debug!("f{}: x={}", $i, $x)
    };
}
include!(concat!(env!("OUT_DIR"), "/live_1.rs"));

fn main() {
    setup_log();
    drive(dd_run_all, 1);
}
