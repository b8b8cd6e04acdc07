// SPDX-License-Identifier: MIT OR Apache-2.0
//! No statement: the baseline of the Rust rows (100 function(s), alone shape).
include!("../common.rs");
macro_rules! dd_stmt {
    ($i:literal, $x:expr) => {
        let _ = $x;
    };
}
include!(concat!(env!("OUT_DIR"), "/alone_100.rs"));

fn main() {
    drive(dd_run_all, 100);
}
