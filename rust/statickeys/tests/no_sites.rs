// SPDX-License-Identifier: MIT OR Apache-2.0
//! A program that links the crate but has no site and no key of its own
//! still links (the crate emits empty, retained sk_sites / sk_keys sections,
//! so __start_sk_sites exists) and runs.
#[test]
fn links_and_runs_without_sites() {
    statickeys::global_init();
    assert!(statickeys::__private::site_table().is_empty(), "no entries");
    let s = statickeys::stats();
    assert!(!s.writer.is_empty() && !s.sync_method.is_empty(), "{s:?}");
    println!("linked without sites; writer {}, sync {}", s.writer, s.sync_method);
}
