// SPDX-License-Identifier: MIT OR Apache-2.0
//! A component that libraries embed (as tests/static_call/
//! two_copies_component.c is, in C and C++): a static call, one with no
//! target (`None`), a `return0` one and a key, of the same names in every
//! copy.  The cdylib is loaded twice under two names (copy1, copy2: its
//! number read from its own file's name) by tests/static_call/two_copies.c,
//! which switches each copy while threads call both: each copy must keep
//! its own static calls and key.  Its API and the encoding of `copy_run`
//! are the C component's.
use core::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

use statickeys::{define_static_call, define_static_key_false, static_branch_unlikely, static_call};

/// This copy's number: the digit before ".so" in its own file's name.
fn id() -> c_int {
    static ID: OnceLock<c_int> = OnceLock::new();
    *ID.get_or_init(|| {
        #[repr(C)]
        struct DlInfo {
            fname: *const c_char,
            fbase: *mut c_void,
            sname: *const c_char,
            saddr: *mut c_void,
        }
        unsafe extern "C" {
            fn dladdr(addr: *const c_void, info: *mut DlInfo) -> c_int;
        }
        let mut info = DlInfo {
            fname: core::ptr::null(),
            fbase: core::ptr::null_mut(),
            sname: core::ptr::null(),
            saddr: core::ptr::null_mut(),
        };
        // An address of this object that no other can interpose (not the
        // exported copy_id: with RTLD_GLOBAL, the first copy's binds in
        // both): it names the file this copy was loaded from.
        let own = id as fn() -> c_int as *const c_void;
        if unsafe { dladdr(own, &mut info) } == 0 || info.fname.is_null() {
            return 0;
        }
        let name = unsafe { CStr::from_ptr(info.fname) }.to_string_lossy();
        name.strip_suffix(".so")
            .and_then(|s| s.chars().last())
            .and_then(|c| c.to_digit(10))
            .map_or(0, |d| d as c_int)
    })
}

fn op_one(x: c_int) -> c_int {
    x + 1 + 10 * id()
}

fn op_two(x: c_int) -> c_int {
    x + 2 + 10 * id()
}

fn hook_add(acc: &mut c_int) {
    *acc += 100 * id();
}

define_static_call!(COMP_OP: fn(x: c_int) -> c_int = op_one);
define_static_call!(COMP_HOOK: fn(acc: &mut c_int) = None);
define_static_call!(COMP_RET0: fn(x: c_int) -> c_int = return0);
define_static_key_false!(COMP_KEY);

#[unsafe(no_mangle)]
pub extern "C" fn copy_id() -> c_int {
    id()
}

/// op + ret0 * 1000 + hook + key * 100000, as the C component's.
#[unsafe(no_mangle)]
pub extern "C" fn copy_run(x: c_int) -> c_int {
    let mut acc = 0;
    static_call!(COMP_HOOK)(&mut acc);
    static_call!(COMP_OP)(x)
        + static_call!(COMP_RET0)(x) * 1000
        + acc
        + if static_branch_unlikely!(COMP_KEY) { 100000 * id() } else { 0 }
}

/// Switch everything on or off: 0, or the first error (a negative errno).
#[unsafe(no_mangle)]
pub extern "C" fn copy_set(on: c_int) -> c_int {
    let on = on != 0;
    let r = COMP_OP::update(if on { op_two } else { op_one })
        .and_then(|()| COMP_HOOK::update(if on { Some(hook_add as fn(&mut c_int)) } else { None }))
        .and_then(|()| if on { COMP_RET0::update(op_one) } else { COMP_RET0::update_return0() })
        .and_then(|()| if on { COMP_KEY.enable() } else { COMP_KEY.disable() });
    match r {
        Ok(()) => 0,
        Err(e) => -e.errno(),
    }
}
