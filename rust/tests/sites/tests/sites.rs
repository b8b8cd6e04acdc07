// SPDX-License-Identifier: MIT OR Apache-2.0
//! Runs the program (src/main.rs) with what it is to find: the call made
//! direct by the runtime where it can be, through the GOT where not, and
//! the target loaded where static calls have no trampoline.
use std::process::Command;

fn run(expect: &str, writer: Option<&str>) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_statickeys-test-sites"));
    cmd.arg(expect);
    if let Some(w) = writer {
        cmd.env("STATICKEYS_WRITER", w);
    }
    let out = cmd.output().expect("run the program");
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "expecting {expect}: {:?}", out.status);
}

/// Static calls have a trampoline here (x86-64 Linux).
fn patched() -> bool {
    cfg!(all(target_arch = "x86_64", target_os = "linux"))
}

#[test]
fn call_site() {
    if !patched() {
        run("pointer", None);
    } else if cfg!(target_env = "musl") {
        run("got", None);
    } else {
        run("direct", None);
        run("got", Some("mprotect"));
    }
}
