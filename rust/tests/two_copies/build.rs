// SPDX-License-Identifier: MIT OR Apache-2.0
//! Builds the C program that loads two copies of this cdylib
//! (tests/static_call/two_copies.c, the C and C++ components' test too),
//! linked with the same runtime build as the copies, as the plugin test's
//! host is (rust/tests/plugin/build.rs).
use std::env;
use std::path::PathBuf;

fn main() {
    let include = env::var("DEP_STATICKEYS_INCLUDE").unwrap();
    let build = env::var("DEP_STATICKEYS_BUILD").unwrap();
    let libdir = env::var("DEP_STATICKEYS_LIBDIR").ok();
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let host = out.join("statickeys_two_copies_host");
    let src = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("../../../tests/static_call/two_copies.c");
    println!("cargo:rerun-if-changed={}", src.display());
    let mut cmd = cc::Build::new().get_compiler().to_command();
    cmd.arg("-std=gnu11").arg("-O2").arg("-I").arg(&include).arg(&src).arg("-o").arg(&host);
    cmd.arg("-rdynamic");
    if build == "system" {
        if let Some(dir) = &libdir {
            cmd.arg(format!("-L{dir}")).arg(format!("-Wl,-rpath,{dir}"));
        }
        cmd.arg("-lstatickeys");
    } else {
        let dir = libdir.expect("bundled build reports its library directory");
        cmd.arg("-Wl,--whole-archive")
            .arg(format!("{dir}/libstatickeys.a"))
            .arg("-Wl,--no-whole-archive");
    }
    cmd.arg("-lpthread").arg("-ldl");
    let status = cmd.status().expect("run the C compiler");
    assert!(status.success(), "building the C program failed: {cmd:?}");
    println!("cargo:rustc-env=STATICKEYS_TWO_COPIES_HOST={}", host.display());
}
