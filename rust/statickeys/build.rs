// SPDX-License-Identifier: MIT OR Apache-2.0
//! Decides whether the crate's sites are patched: the cfg `sk_patched`,
//! which src/lib.rs's site macros follow (without it a site tests its key's
//! flag, which works with every backend of the runtime).
//!
//! Patched when both halves can: the crate has a site template for the
//! target (x86-64, i686, riscv64 and loongarch64 Linux, ELF; x86-64 Windows with
//! mingw-w64, PE), the `portable` feature is off, and the C runtime that
//! statickeys-sys found or built patches sites (its `backend`, read here as
//! DEP_STATICKEYS_BACKEND, is not "portable": a bundled runtime follows
//! src/CMakeLists.txt's choice for the target, an installed one says so
//! with -DSK_NO_ASM_GOTO).  A patched site whose runtime patches nothing
//! would keep its compiled direction forever.
use std::env;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(sk_patched)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=DEP_STATICKEYS_BACKEND");
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let target_env = env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let template = match (arch.as_str(), os.as_str()) {
        ("x86_64" | "x86" | "riscv64" | "loongarch64", "linux") => true,
        ("x86_64", "windows") => target_env == "gnu",
        _ => false,
    };
    let runtime_patches = env::var("DEP_STATICKEYS_BACKEND").as_deref() != Ok("portable");
    if template && runtime_patches && env::var_os("CARGO_FEATURE_PORTABLE").is_none() {
        println!("cargo::rustc-cfg=sk_patched");
    }
}
