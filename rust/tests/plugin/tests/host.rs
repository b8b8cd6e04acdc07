// SPDX-License-Identifier: MIT OR Apache-2.0
//! Runs the C host program (c/host.c, built by build.rs) on this package's
//! cdylib: load, flip while a thread runs its sites, unload, three times.
use std::path::PathBuf;
use std::process::Command;

#[test]
fn c_program_loads_flips_and_unloads_the_rust_plugin() {
    // This test is target/<profile>/deps/host-*; cargo builds the cdylib
    // next to it (and copies it to target/<profile>/ on plain builds).
    let exe = std::env::current_exe().unwrap();
    let deps: PathBuf = exe.parent().unwrap().into();
    let plugin = deps.join("libstatickeys_test_plugin.so");
    assert!(plugin.exists(), "{} not built", plugin.display());
    let out = Command::new(env!("STATICKEYS_PLUGIN_HOST"))
        .arg(&plugin)
        .output()
        .expect("run the C host");
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "host failed ({})", env!("STATICKEYS_PLUGIN_BUILD"));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("another copy"), "two runtimes met");
}
