// SPDX-License-Identifier: MIT OR Apache-2.0
//! Static calls from Rust: the definition's target, updates (only to a
//! function of the declared type: see the compile_fail doc test of
//! `define_static_call!`), queries, and threads calling through the static
//! call while the main thread re-points it among three functions: every
//! call lands in one of them, and every call made wholly after an update
//! returned lands in the new target.  The `None` and `return0` forms.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use statickeys::{define_static_call, static_call};

fn one(x: u64) -> u64 {
    x + 1
}
fn two(x: u64) -> u64 {
    x + 2
}
fn three(x: u64) -> u64 {
    x + 3
}

define_static_call!(ROUTE: fn(x: u64) -> u64 = one);
define_static_call!(pub(crate) SCALE: fn(x: u64, by: u64) -> u64 = mul);

fn mul(x: u64, by: u64) -> u64 {
    x * by
}
fn add(x: u64, by: u64) -> u64 {
    x + by
}

#[test]
fn definition_update_query() {
    assert_eq!(static_call!(SCALE)(6, 7), 42);
    assert!(std::ptr::fn_addr_eq(SCALE::query(), mul as fn(u64, u64) -> u64));
    SCALE::update(add).unwrap();
    assert_eq!(static_call!(SCALE)(6, 7), 13);
    assert_eq!(SCALE::call(1, 1), 2);
    assert!(std::ptr::fn_addr_eq(SCALE::query(), add as fn(u64, u64) -> u64));
    SCALE::update(mul).unwrap();
    assert_eq!(static_call!(SCALE)(6, 7), 42);
}

#[test]
fn threads_while_updated() {
    let targets: [fn(u64) -> u64; 3] = [one, two, three];
    // Even: target (generation / 2) % 3 is in place; odd: an update runs.
    let generation = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut handles = Vec::new();
    for _ in 0..2 {
        let (g, s) = (generation.clone(), stop.clone());
        handles.push(thread::spawn(move || {
            let (mut checked, mut wrong, mut stray) = (0u64, 0u64, 0u64);
            while !s.load(Ordering::Acquire) {
                let g1 = g.load(Ordering::Acquire);
                let v = static_call!(ROUTE)(100) - 100;
                let g2 = g.load(Ordering::Acquire);
                if !(1..=3).contains(&v) {
                    stray += 1;
                }
                if g1 == g2 && g1 % 2 == 0 {
                    checked += 1;
                    if v != (g1 / 2) % 3 + 1 {
                        wrong += 1;
                    }
                }
            }
            (checked, wrong, stray)
        }));
    }
    let end = Instant::now() + Duration::from_millis(1500);
    let mut g = 0u64;
    let mut updates = 0u64;
    while Instant::now() < end {
        generation.store(g + 1, Ordering::Release);
        ROUTE::update(targets[((g / 2 + 1) % 3) as usize]).unwrap();
        g += 2;
        generation.store(g, Ordering::Release);
        updates += 1;
        for _ in 0..20000 {
            std::hint::spin_loop();
        }
    }
    stop.store(true, Ordering::Release);
    let (mut checked, mut wrong, mut stray) = (0, 0, 0);
    for h in handles {
        let (c, w, s) = h.join().unwrap();
        checked += c;
        wrong += w;
        stray += s;
    }
    println!("{updates} updates, {checked} calls checked after an update returned");
    assert_eq!(stray, 0, "calls landed outside the three targets");
    assert_eq!(wrong, 0, "calls after an update returned took an old target");
    assert!(updates > 20 && checked > 1000, "too little happened");
}

statickeys::define_static_key_false!(LOUD);
fn quiet(x: u64) -> u64 {
    x
}
fn loud(x: u64) -> u64 {
    x * 10
}
define_static_call!(SHOW: fn(x: u64) -> u64 = quiet);

#[test]
fn commit_with_keys() {
    let before = statickeys::stats();
    statickeys::commit_calls(&[statickeys::Change::enable(&LOUD)], &[SHOW::change(loud)])
        .unwrap();
    let after = statickeys::stats();
    assert!(LOUD.is_enabled());
    assert_eq!(static_call!(SHOW)(3), 30);
    // The Rust trampoline (x86-64 Linux, patching backend) is rewritten in a
    // batch; elsewhere the call is a pointer and this key has no site.
    // Other tests of this file may update meanwhile: at least ours.
    if cfg!(all(target_arch = "x86_64", target_os = "linux")) && after.backend != "portable" {
        assert!(after.batches > before.batches, "one batch at least");
    }
    statickeys::commit_calls(&[statickeys::Change::disable(&LOUD)], &[SHOW::change(quiet)])
        .unwrap();
    assert!(!LOUD.is_enabled());
    assert_eq!(static_call!(SHOW)(3), 3);
}

fn english(shout: bool) -> &'static str {
    if shout { "HELLO" } else { "hello" }
}
fn french(shout: bool) -> &'static str {
    if shout { "BONJOUR" } else { "bonjour" }
}
define_static_call!(GREETING: fn(shout: bool) -> &'static str = english);
statickeys::static_call_target!(GREETING, english, "english");
statickeys::static_call_target!(GREETING, french, "french");

/// The control socket lists the Rust static call with its labels, and
/// `call GREETING=french` switches it (Linux: the socket is a Unix datagram
/// one there; `skctl` sends these same lines).
#[cfg(target_os = "linux")]
#[test]
fn labelled_targets_on_the_control_socket() {
    use std::os::unix::net::UnixDatagram;
    let dir = std::env::temp_dir().join(format!("sk-rust-calls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let server = dir.join("server.sock");
    let path = std::ffi::CString::new(server.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { statickeys::sys::sk_control_start(path.as_ptr()) }, 0);
    let client = UnixDatagram::bind(dir.join("client.sock")).unwrap();
    client.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let ask = |line: &str| {
        client.send_to(line.as_bytes(), &server).unwrap();
        let mut buf = vec![0u8; 65536];
        let n = client.recv(&mut buf).unwrap();
        String::from_utf8_lossy(&buf[..n]).into_owned()
    };
    let calls = ask("calls\n");
    println!("{calls}");
    assert!(calls.contains("\"name\":\"GREETING\""), "listed: {calls}");
    assert!(calls.contains("\"label\":\"english\""), "its label: {calls}");
    assert!(calls.contains("\"french\""), "its other label: {calls}");
    let reply = ask("call GREETING=french\n");
    assert!(reply.starts_with("{\"ok\":true"), "switched: {reply}");
    assert_eq!(static_call!(GREETING)(false), "bonjour");
    let reply = ask("call GREETING=klingon\n");
    assert!(reply.starts_with("{\"ok\":false"), "refused: {reply}");
    assert_eq!(static_call!(GREETING)(true), "BONJOUR");
    unsafe { statickeys::sys::sk_control_stop() };
    let _ = std::fs::remove_dir_all(&dir);
}

static AUDITED: AtomicU64 = AtomicU64::new(0);
fn audit(event: u64) {
    AUDITED.fetch_add(event, Ordering::Relaxed);
}
fn audit_twice(event: u64) {
    AUDITED.fetch_add(2 * event, Ordering::Relaxed);
}
define_static_call!(AUDIT: fn(event: u64) = None);

/// The kernel's DEFINE_STATIC_CALL_NULL with static_call_cond: nothing is
/// called while the target is None, whichever way it got there.
#[test]
fn none_form() {
    assert!(AUDIT::query().is_none());
    static_call!(AUDIT)(1);
    assert_eq!(AUDITED.load(Ordering::Relaxed), 0, "called while None");
    AUDIT::update(Some(audit)).unwrap();
    static_call!(AUDIT)(5);
    assert_eq!(AUDITED.load(Ordering::Relaxed), 5);
    assert!(std::ptr::fn_addr_eq(AUDIT::query().unwrap(), audit as fn(u64)));
    statickeys::commit_calls(&[], &[AUDIT::change(Some(audit_twice))]).unwrap();
    static_call!(AUDIT)(5);
    assert_eq!(AUDITED.load(Ordering::Relaxed), 15);
    AUDIT::update(None).unwrap();
    assert!(AUDIT::query().is_none());
    static_call!(AUDIT)(100);
    assert_eq!(AUDITED.load(Ordering::Relaxed), 15, "called after update(None)");
}

fn triple(x: u32) -> u32 {
    3 * x
}
define_static_call!(COUNT: fn(x: u32) -> u32 = return0);

/// The kernel's DEFINE_STATIC_CALL_RET0: the type's zero until updated, and
/// again after update_return0 / change_return0.
#[test]
fn return0_form() {
    assert_eq!(static_call!(COUNT)(7), 0);
    assert!(std::ptr::fn_addr_eq(COUNT::query(), COUNT::return0 as fn(u32) -> u32));
    COUNT::update(triple).unwrap();
    assert_eq!(static_call!(COUNT)(7), 21);
    COUNT::update_return0().unwrap();
    assert_eq!(static_call!(COUNT)(7), 0);
    statickeys::commit_calls(&[], &[COUNT::change(triple)]).unwrap();
    assert_eq!(static_call!(COUNT)(7), 21);
    statickeys::commit_calls(&[], &[COUNT::change_return0()]).unwrap();
    assert_eq!(static_call!(COUNT)(7), 0);
}
