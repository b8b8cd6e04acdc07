// SPDX-License-Identifier: MIT OR Apache-2.0
//! The default sink and the start-up query, for Rust statements as for C's:
//! a child started with STATICKEYS_DYNDBG has its statements on before
//! main, and each message is one line on stderr with the decorations the
//! query asked for, in the kernel's order.
use std::process::Command;

use statickeys::sk_debug;
use statickeys_test_dyndbg::c_says;

#[inline(never)]
fn rust_says(n: i32) -> u32 {
    sk_debug!("rust says {}", n);
    line!() - 1
}

#[inline(never)]
fn rust_quiet() -> u32 {
    sk_debug!("rust stays quiet");
    line!() - 1
}

#[test]
fn startup_query_and_default_sink() {
    if std::env::var_os("SK_DYNDBG_CHILD").is_some() {
        rust_says(5);
        rust_quiet();
        unsafe { c_says(6) };
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "startup_query_and_default_sink", "--nocapture", "--test-threads=1"])
        .env("SK_DYNDBG_CHILD", "1")
        .env("STATICKEYS_DYNDBG", "format says +pmfsl; file statements.c =pf")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "child failed: {stderr}");
    let exe = std::env::current_exe().unwrap();
    let m = exe.file_name().unwrap().to_string_lossy().split('.').next().unwrap().to_owned();
    // Nothing from rust_quiet, which no query matched.
    let want = format!("{m}:stderr:stderr.rs:{}: rust says 5\nc_says: c says 6\n", rust_says(0));
    assert_eq!(stderr, want, "the child's stderr");
    println!("child's stderr:\n{stderr}");
}
