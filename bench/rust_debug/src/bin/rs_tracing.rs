// SPDX-License-Identifier: MIT OR Apache-2.0
//! `tracing::debug!` with the subscriber's level at INFO (1000 function(s), live shape).
include!("../common.rs");
macro_rules! dd_stmt {
    ($i:literal, $x:expr) => {
        tracing::debug!("f{}: x={}", $i, $x)
    };
}
include!(concat!(env!("OUT_DIR"), "/live_1000.rs"));

fn main() {
    setup_tracing();
    drive(dd_run_all, 1000);
}
