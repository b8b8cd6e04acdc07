// SPDX-License-Identifier: MIT OR Apache-2.0
//! The C debug statements of the dyndbg tests live in c/statements.c; this
//! crate links them.  See tests/.
use core::ffi::{c_char, c_int};

unsafe extern "C" {
    /// `sk_pr_debug("c says %d\n", n)`; returns its line.
    pub fn c_says(n: c_int) -> c_int;
    /// `sk_pr_debug_class("net", "c net %d\n", n)`; returns its line.
    pub fn c_net(n: c_int) -> c_int;
    /// `sk_static_call_update(sk_dyndbg_sink, ...)` from C: 1 a C sink that
    /// keeps "function:line message" of the last message, 0 stderr.
    pub fn c_sink_set(on: c_int) -> c_int;
    /// The C sink's last message.
    pub fn c_sink_last() -> *const c_char;
    /// sizeof(struct sk_dyndbg_site) (0), the offsets of its members (1-8).
    pub fn c_site_layout(what: c_int) -> usize;
}
