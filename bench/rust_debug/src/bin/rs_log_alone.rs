// SPDX-License-Identifier: MIT OR Apache-2.0
//! `log::debug!` with the logger's level at Info (100 function(s), alone shape).
include!("../common.rs");
macro_rules! dd_stmt {
    ($i:literal, $x:expr) => {
        log::debug!("f{}: x={}", $i, $x)
    };
}
include!(concat!(env!("OUT_DIR"), "/alone_100.rs"));

fn main() {
    setup_log();
    drive(dd_run_all, 100);
}
