// SPDX-License-Identifier: MIT OR Apache-2.0
//! Two copies of this package's cdylib, under two names, loaded by the C
//! program two_copies.c (built by build.rs): each switches its own static
//! calls and key while threads call both, and neither sees the other's.
use std::path::PathBuf;
use std::process::Command;

#[test]
fn two_copies_of_one_rust_component_keep_their_own_static_calls() {
    // This test is target/<profile>/deps/copies-*; cargo builds the cdylib
    // next to it.
    let exe = std::env::current_exe().unwrap();
    let deps: PathBuf = exe.parent().unwrap().into();
    let lib = deps.join("libstatickeys_test_two_copies.so");
    assert!(lib.exists(), "{} not built", lib.display());
    let dir = deps.join("two_copies");
    std::fs::create_dir_all(&dir).unwrap();
    let copies = [dir.join("copy1.so"), dir.join("copy2.so")];
    for c in &copies {
        std::fs::copy(&lib, c).unwrap();
    }
    let out = Command::new(env!("STATICKEYS_TWO_COPIES_HOST"))
        .args(&copies)
        .output()
        .expect("run the C program");
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "two_copies failed: {:?}", out.status);
}
