// SPDX-License-Identifier: MIT OR Apache-2.0
//! Runs the unchanged static-keys programs and checks what they print.
use std::process::Command;

fn run(exe: &str, args: &[&str]) -> String {
    let out = Command::new(exe).args(args).output().expect("run");
    assert!(out.status.success(), "{exe} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn usage_example_takes_both_branches() {
    let out = run(env!("CARGO_BIN_EXE_usage"), &[]);
    assert_eq!(out, "Entering foo function\nB branch\nEntering foo function\nA branch\n");
}

#[test]
fn readme_example_follows_the_flag() {
    assert_eq!(run(env!("CARGO_BIN_EXE_readme"), &[]), "do_something ran 0 times\n");
    assert_eq!(run(env!("CARGO_BIN_EXE_readme"), &["--flag"]), "do_something ran 1000 times\n");
}
