// SPDX-License-Identifier: MIT OR Apache-2.0
//! The traced program linked by GNU ld, for perf (see build.rs).
include!("../traced.rs");
