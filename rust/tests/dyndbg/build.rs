// SPDX-License-Identifier: MIT OR Apache-2.0
//! Compiles the C debug statements of the test with the C headers the
//! runtime came with (bundled or installed), their sites as the runtime
//! runs them (SK_NO_ASM_GOTO where it patches nothing).
fn main() {
    let include = std::env::var("DEP_STATICKEYS_INCLUDE").expect("statickeys-sys include dir");
    println!("cargo:rerun-if-changed=c/statements.c");
    let mut build = cc::Build::new();
    build.file("c/statements.c").include(include).flag("-std=gnu11");
    if std::env::var("DEP_STATICKEYS_BACKEND").as_deref() == Ok("portable") {
        build.define("SK_NO_ASM_GOTO", None);
    }
    build.compile("statickeys_test_dyndbg_c");
}
