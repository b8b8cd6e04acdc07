// SPDX-License-Identifier: MIT OR Apache-2.0
//! `tracing::debug!` with the subscriber's level at INFO (100 function(s), alone shape).
include!("../common.rs");
macro_rules! dd_stmt {
    ($i:literal, $x:expr) => {
        tracing::debug!("f{}: x={}", $i, $x)
    };
}
include!(concat!(env!("OUT_DIR"), "/alone_100.rs"));

fn main() {
    setup_tracing();
    drive(dd_run_all, 100);
}
