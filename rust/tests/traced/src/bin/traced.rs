// SPDX-License-Identifier: MIT OR Apache-2.0
//! The traced program as Rust links it by default (see ../traced.rs).
include!("../traced.rs");
