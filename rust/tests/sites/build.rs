// SPDX-License-Identifier: MIT OR Apache-2.0
//! The program is linked with `-Wl,--emit-relocs` where the runtime patches
//! static calls' call sites (x86-64 Linux): the link keeps the relocations
//! that say where the program calls its trampolines (docs/static-calls.md,
//! "Call sites").
fn main() {
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if arch == "x86_64" && os == "linux" {
        println!("cargo::rustc-link-arg-bins=-Wl,--emit-relocs");
    }
}
