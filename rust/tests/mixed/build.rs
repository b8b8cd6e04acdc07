// SPDX-License-Identifier: MIT OR Apache-2.0
//! Compiles the C half of the mixed test with the C headers the runtime
//! came with (bundled or installed).
fn main() {
    let include = std::env::var("DEP_STATICKEYS_INCLUDE").expect("statickeys-sys include dir");
    println!("cargo:rerun-if-changed=c/mixed.c");
    cc::Build::new()
        .file("c/mixed.c")
        .include(include)
        .flag("-std=gnu11")
        .compile("statickeys_test_mixed_c");
}
