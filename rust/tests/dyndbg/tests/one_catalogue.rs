// SPDX-License-Identifier: MIT OR Apache-2.0
//! C and Rust debug statements in one process: one catalogue, one query
//! that switches both, one sink (re-pointed from Rust or from C) for both,
//! and the descriptor laid out alike.
use core::ffi::{c_char, CStr};
use std::sync::{Mutex, MutexGuard};

use statickeys::dyndbg::{self, Site};
use statickeys::sk_debug;
use statickeys_test_dyndbg::{c_net, c_says, c_sink_last, c_sink_set, c_site_layout};

static SERIAL: Mutex<()> = Mutex::new(());
static GOT: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

extern "C" fn capture(site: &Site, msg: *const c_char, len: usize) {
    let msg = unsafe { core::slice::from_raw_parts(msg.cast::<u8>(), len) };
    let entry = (site.format().to_string_lossy().into_owned(), String::from_utf8_lossy(msg).into_owned());
    GOT.lock().unwrap_or_else(|e| e.into_inner()).push(entry);
}

struct Quiet(#[allow(dead_code)] MutexGuard<'static, ()>);

fn serial() -> Quiet {
    Quiet(SERIAL.lock().unwrap_or_else(|e| e.into_inner()))
}

impl Drop for Quiet {
    fn drop(&mut self) {
        dyndbg::query("=_; class net =_").expect("every statement off");
        dyndbg::set_sink(None).expect("sink back to stderr");
    }
}

#[inline(never)]
fn rust_says(n: i32) -> u32 {
    sk_debug!("rust says {}", n);
    line!() - 1
}

#[inline(never)]
fn rust_net(n: i32) -> u32 {
    sk_debug!(class: "net", "rust net {}", n);
    line!() - 1
}

fn module_name() -> String {
    let exe = std::env::current_exe().unwrap();
    let name = exe.file_name().unwrap().to_string_lossy().into_owned();
    name.split('.').next().unwrap().to_owned()
}

#[test]
fn c_and_rust_statements_in_one_catalogue() {
    let _q = serial();
    let (lr, lrn) = (rust_says(0), rust_net(0));
    let (lc, lcn) = unsafe { (c_says(0), c_net(0)) };
    dyndbg::query("format says +pl").unwrap();
    let cat = dyndbg::catalogue();
    let m = module_name();
    let rf = file!();
    for want in [
        format!("{rf}:{lr} [{m}]one_catalogue =pl \"rust says {{}}\"\n"),
        format!("{rf}:{lrn} [{m}]one_catalogue =_ \"rust net {{}}\" class:net\n"),
        format!("c/statements.c:{lc} [{m}]c_says =pl \"c says %d\\n\"\n"),
        format!("c/statements.c:{lcn} [{m}]c_net =_ \"c net %d\\n\" class:net\n"),
    ] {
        assert!(cat.contains(&want), "{want:?} not in\n{cat}");
    }
    println!("one catalogue, module {m}:\n{cat}");
}

#[test]
fn one_query_switches_both_into_one_sink() {
    let _q = serial();
    GOT.lock().unwrap().clear();
    dyndbg::set_sink(Some(capture)).unwrap();
    let run = || {
        rust_says(1);
        rust_net(2);
        unsafe {
            c_says(3);
            c_net(4);
        }
        std::mem::take(&mut *GOT.lock().unwrap())
    };
    assert!(run().is_empty());
    assert_eq!(dyndbg::query("format says +p").unwrap(), 2);
    let said = |f: &str, m: &str| (f.to_owned(), m.to_owned());
    assert_eq!(run(), [said("rust says {}", "rust says 1"), said("c says %d\n", "c says 3\n")]);
    // The total of both queries: the two `says`, then the two classed.
    assert_eq!(dyndbg::query("=_; class net +p").unwrap(), 4);
    assert_eq!(run(), [said("rust net {}", "rust net 2"), said("c net %d\n", "c net 4\n")]);
}

/// A sink re-pointed by C's sk_static_call_update gets Rust statements'
/// messages, with their sites.
#[test]
fn a_sink_set_from_c_gets_rust_messages() {
    let _q = serial();
    let line = rust_says(0);
    assert_eq!(unsafe { c_sink_set(1) }, 0);
    dyndbg::query("format 'rust says' +p").unwrap();
    rust_says(42);
    let last = unsafe { CStr::from_ptr(c_sink_last()) }.to_string_lossy().into_owned();
    assert_eq!(unsafe { c_sink_set(0) }, 0);
    assert_eq!(last, format!("one_catalogue:{line} rust says 42"));
}

#[test]
fn the_descriptor_is_laid_out_as_c_lays_it_out() {
    let c: Vec<usize> = (0..9).map(|i| unsafe { c_site_layout(i) }).collect();
    type S = statickeys::sys::sk_dyndbg_site;
    let rust = [
        core::mem::size_of::<Site>(),
        core::mem::offset_of!(S, magic),
        core::mem::offset_of!(S, line),
        core::mem::offset_of!(S, file),
        core::mem::offset_of!(S, function),
        core::mem::offset_of!(S, format),
        core::mem::offset_of!(S, cls),
        core::mem::offset_of!(S, module),
        core::mem::offset_of!(S, flags),
    ];
    assert_eq!(c, rust, "size, then the offsets of magic .. flags");
    assert_eq!(core::mem::size_of::<S>(), core::mem::size_of::<Site>());
}
