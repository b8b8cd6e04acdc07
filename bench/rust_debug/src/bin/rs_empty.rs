// SPDX-License-Identifier: MIT OR Apache-2.0
//! No statement: the baseline of the Rust rows (1000 function(s), live shape).
include!("../common.rs");
macro_rules! dd_stmt {
    ($i:literal, $x:expr) => {
        let _ = $x;
    };
}
include!(concat!(env!("OUT_DIR"), "/live_1000.rs"));

fn main() {
    drive(dd_run_all, 1000);
}
