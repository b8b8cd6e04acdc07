// SPDX-License-Identifier: MIT OR Apache-2.0
//! Code written for `static-keys` 0.8, unchanged: src/bin/usage.rs is its
//! examples/usage.rs, src/bin/readme.rs its README's snippets put together
//! (with stand-ins for the README's placeholders), tests/basic.rs its
//! tests/basic.rs.  Only Cargo.toml changed: `static-keys` now names this
//! repository's `statickeys` crate.  Expected: two warnings per old
//! `unsafe { KEY.enable(); }` call site (`unused_unsafe`, `unused_must_use`),
//! since enable() is safe here and returns a Result.
