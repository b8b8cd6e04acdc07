// SPDX-License-Identifier: MIT OR Apache-2.0
//! Compiles the C half of the mixed test with the C headers the runtime
//! came with (bundled or installed), its sites as the runtime runs them: a
//! runtime that patches nothing needs flag tests (SK_NO_ASM_GOTO), as the
//! crate's own sites then are.
fn main() {
    let include = std::env::var("DEP_STATICKEYS_INCLUDE").expect("statickeys-sys include dir");
    println!("cargo:rerun-if-changed=c/mixed.c");
    let mut build = cc::Build::new();
    build.file("c/mixed.c").include(include).flag("-std=gnu11");
    if std::env::var("DEP_STATICKEYS_BACKEND").as_deref() == Ok("portable") {
        build.define("SK_NO_ASM_GOTO", None);
    }
    build.compile("statickeys_test_mixed_c");
}
