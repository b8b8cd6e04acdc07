// SPDX-License-Identifier: MIT OR Apache-2.0
//! `traced-bfd` is `traced` linked by GNU ld instead of Rust's default lld
//! (x86_64-unknown-linux-gnu since Rust 1.90).  perf (6.1 here) places an SDT
//! event's uprobe at the note's address taken as a file offset, which is
//! right for GNU ld's layout of the text but not for lld's (there the text
//! starts a page further in memory than in the file): on an lld-linked
//! program, C or Rust, `perf probe sdt_*` attaches beside the probe and
//! records nothing.  bpftrace converts the address, so it is tested on the
//! default link and perf on this one.
fn main() {
    let gnu_ld = std::process::Command::new("ld.bfd").arg("--version").output().is_ok_and(|o| o.status.success());
    if gnu_ld && std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo::rustc-link-arg-bin=traced-bfd=-fuse-ld=bfd");
    }
}
