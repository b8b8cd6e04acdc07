// SPDX-License-Identifier: MIT OR Apache-2.0
//! Builds the C host program (c/host.c) that loads this cdylib, linked with
//! the same runtime build as the plugin: the installed shared library
//! (system) or the bundled static one, whole and exported (bundled).
use std::env;
use std::path::PathBuf;

fn main() {
    let include = env::var("DEP_STATICKEYS_INCLUDE").unwrap();
    let build = env::var("DEP_STATICKEYS_BUILD").unwrap();
    let libdir = env::var("DEP_STATICKEYS_LIBDIR").ok();
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let host = out.join("statickeys_plugin_host");
    println!("cargo:rerun-if-changed=c/host.c");
    println!("cargo:rerun-if-changed=c/plugin_c.c");
    // C sites inside the plugin itself.
    cc::Build::new()
        .file("c/plugin_c.c")
        .include(&include)
        .flag("-std=gnu11")
        .compile("statickeys_test_plugin_c");
    println!("cargo::rustc-check-cfg=cfg(sk_system)");
    let mut cmd = cc::Build::new().get_compiler().to_command();
    cmd.arg("-std=gnu11").arg("-O2").arg("-I").arg(&include).arg("c/host.c").arg("-o").arg(&host);
    cmd.arg("-rdynamic");
    if build == "system" {
        println!("cargo:rustc-cfg=sk_system");
        cmd.arg("-DHOST_SYSTEM=1");
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
    assert!(status.success(), "building the C host program failed: {cmd:?}");
    println!("cargo:rustc-env=STATICKEYS_PLUGIN_HOST={}", host.display());
    println!("cargo:rustc-env=STATICKEYS_PLUGIN_BUILD={build}");
}
