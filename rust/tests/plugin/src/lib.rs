// SPDX-License-Identifier: MIT OR Apache-2.0
//! A plugin written in Rust, loaded and unloaded by a C program
//! (c/host.c).  Its own key has sites here; with the system runtime (one
//! runtime shared with the host) it also has sites of the host's key.
use core::ffi::c_int;

use statickeys::{define_static_key_false, static_branch_likely, static_branch_unlikely};

define_static_key_false!(
    #[unsafe(no_mangle)]
    pub PLUGIN_KEY,
    "a key defined by the Rust plugin"
);

unsafe extern "C" {
    /// c/plugin_c.c: bits 16 | 32 for its two sites of PLUGIN_KEY.
    fn plugin_c_sites() -> c_int;
}

#[cfg(sk_system)]
unsafe extern "C" {
    safe static host_key: statickeys::StaticFalseKey;
}

/// Bits: 1 unlikely(PLUGIN_KEY), 2 likely(PLUGIN_KEY), 4 unlikely(host_key),
/// 8 likely(host_key) took the "on" side (host bits only with sk_system);
/// 16 and 32: the C sites of PLUGIN_KEY in the same plugin.
#[unsafe(no_mangle)]
pub extern "C" fn plugin_sites() -> c_int {
    let own = (static_branch_unlikely!(PLUGIN_KEY) as c_int)
        | (static_branch_likely!(PLUGIN_KEY) as c_int) << 1;
    #[cfg(sk_system)]
    let own = own
        | (static_branch_unlikely!(host_key) as c_int) << 2
        | (static_branch_likely!(host_key) as c_int) << 3;
    own | unsafe { plugin_c_sites() }
}

/// Flip the plugin's key from Rust: 0 or a negative errno.
#[unsafe(no_mangle)]
pub extern "C" fn plugin_set(on: c_int) -> c_int {
    let r = if on != 0 { PLUGIN_KEY.enable() } else { PLUGIN_KEY.disable() };
    match r {
        Ok(()) => 0,
        Err(e) => -e.errno(),
    }
}

/// The plugin's key for the host's sk_commit().
#[unsafe(no_mangle)]
pub extern "C" fn plugin_key() -> *mut statickeys::sys::sk_key {
    PLUGIN_KEY.as_raw()
}
