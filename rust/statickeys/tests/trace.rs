// SPDX-License-Identifier: MIT OR Apache-2.0
//! Tracepoints from Rust: firing, registration, the key and its references,
//! lazy arguments, misuse, and the USDT note and semaphore tracers use.
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicUsize, Ordering::SeqCst};
use std::sync::Mutex;

use statickeys::ErrorKind;

mod common;
use common::{entry_key, PATCHED};

/// The tests share the tracepoints: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

statickeys::define_trace! {
    /// Two arguments of different sizes and signs.
    rtest_tick = rtest:tick(n: i32, v: i64);
}
statickeys::define_trace!(rtest_ptr = rtest:ptr(p: *const u8, len: usize, flag: bool));
statickeys::define_trace!(rtest_watched = rtest:watched(n: u32));

/// What a probe saw: the sum of n, of v, and how many calls.
struct Seen {
    calls: AtomicUsize,
    n: AtomicI64,
    v: AtomicI64,
    /// Each call appends its probe's tag (a decimal digit) here.
    order: AtomicI64,
}

impl Seen {
    const fn new() -> Self {
        Seen { calls: AtomicUsize::new(0), n: AtomicI64::new(0), v: AtomicI64::new(0), order: AtomicI64::new(0) }
    }
    fn reset(&self) {
        for a in [&self.n, &self.v, &self.order] {
            a.store(0, SeqCst);
        }
        self.calls.store(0, SeqCst);
    }
}

static SEEN: Seen = Seen::new();
static SEEN2: Seen = Seen::new();

fn record(s: &Seen, n: i32, v: i64) {
    s.calls.fetch_add(1, SeqCst);
    s.n.fetch_add(n.into(), SeqCst);
    s.v.fetch_add(v, SeqCst);
}
fn probe_a(s: &Seen, n: i32, v: i64) {
    record(s, n, v);
    let _ = SEEN.order.fetch_update(SeqCst, SeqCst, |o| Some(o * 10 + 1));
}
fn probe_b(s: &Seen, n: i32, v: i64) {
    record(s, n, v);
    let _ = SEEN.order.fetch_update(SeqCst, SeqCst, |o| Some(o * 10 + 2));
}

#[inline(never)]
fn fire_tick(n: i32, v: i64) {
    rtest_tick::trace(n, v);
}

#[test]
fn off_tracepoint_calls_no_probe_and_holds_no_reference() {
    let _s = serial();
    SEEN.reset();
    assert!(!rtest_tick::enabled());
    for i in 0..100 {
        fire_tick(i, 1);
    }
    assert_eq!(SEEN.calls.load(SeqCst), 0);
    assert_eq!(rtest_tick::TRACEPOINT.key().count(), 0);
}

#[test]
fn key_is_named_system_colon_name_and_listed() {
    let key = rtest_tick::TRACEPOINT.key();
    assert_eq!(key.name().to_str().unwrap(), "rtest:tick");
    assert_eq!(key.description().unwrap().to_str().unwrap(), "tracepoint");
    // sk_key_find is what skctl's list and STATICKEYS=rtest:tick=1 use.
    let found = unsafe { statickeys::sys::sk_key_find(c"rtest:tick".as_ptr()) };
    assert_eq!(found, key.as_raw(), "the runtime finds the tracepoint's key by name");
    let found = unsafe { statickeys::sys::sk_key_find(c"rtest:watched".as_ptr()) };
    assert_eq!(found, rtest_watched::TRACEPOINT.key().as_raw());
}

#[test]
fn probes_run_in_registration_order_with_the_arguments() {
    let _s = serial();
    SEEN.reset();
    SEEN2.reset();
    rtest_tick::register(probe_a, &SEEN).unwrap();
    assert!(rtest_tick::enabled(), "a registered probe turns the tracepoint on");
    rtest_tick::register(probe_b, &SEEN2).unwrap();
    assert_eq!(rtest_tick::TRACEPOINT.key().count(), 2, "one reference per probe");
    fire_tick(7, -3);
    assert_eq!(SEEN.order.load(SeqCst), 12, "probe_a, then probe_b");
    assert_eq!((SEEN.n.load(SeqCst), SEEN.v.load(SeqCst)), (7, -3));
    assert_eq!((SEEN2.n.load(SeqCst), SEEN2.v.load(SeqCst)), (7, -3));
    rtest_tick::unregister(probe_a, &SEEN).unwrap();
    assert!(rtest_tick::enabled());
    fire_tick(1, 1);
    assert_eq!(SEEN.calls.load(SeqCst), 1, "an unregistered probe is not called");
    assert_eq!(SEEN2.calls.load(SeqCst), 2);
    rtest_tick::unregister(probe_b, &SEEN2).unwrap();
    assert!(!rtest_tick::enabled(), "off with the last probe");
    assert_eq!(rtest_tick::TRACEPOINT.key().count(), 0);
    fire_tick(1, 1);
    assert_eq!(SEEN2.calls.load(SeqCst), 2);
}

#[test]
fn the_same_probe_with_other_data_is_another_registration() {
    let _s = serial();
    SEEN.reset();
    SEEN2.reset();
    rtest_tick::register(probe_a, &SEEN).unwrap();
    rtest_tick::register(probe_a, &SEEN2).unwrap();
    fire_tick(2, 0);
    assert_eq!((SEEN.calls.load(SeqCst), SEEN2.calls.load(SeqCst)), (1, 1));
    rtest_tick::unregister(probe_a, &SEEN).unwrap();
    rtest_tick::unregister(probe_a, &SEEN2).unwrap();
    assert_eq!(rtest_tick::TRACEPOINT.key().count(), 0);
}

#[test]
fn registering_twice_or_unregistering_a_stranger_is_refused() {
    let _s = serial();
    rtest_tick::register(probe_a, &SEEN).unwrap();
    let e = rtest_tick::register(probe_a, &SEEN).unwrap_err();
    assert_eq!((e.kind(), e.errno()), (ErrorKind::AlreadyRegistered, 17));
    assert_eq!(rtest_tick::TRACEPOINT.key().count(), 1, "the refused one took no reference");
    let e = rtest_tick::unregister(probe_b, &SEEN).unwrap_err();
    assert_eq!((e.kind(), e.errno()), (ErrorKind::NotRegistered, 2));
    rtest_tick::unregister(probe_a, &SEEN).unwrap();
    let e = rtest_tick::unregister(probe_a, &SEEN).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotRegistered);
    assert!(e.to_string().contains("not registered"), "{e}");
    assert_eq!(rtest_tick::TRACEPOINT.key().count(), 0);
}

static INNER: Mutex<Option<(ErrorKind, ErrorKind)>> = Mutex::new(None);

fn registers_from_inside(_: &(), _: i32, _: i64) {
    let r = rtest_tick::register(probe_b, &SEEN2).unwrap_err().kind();
    let u = rtest_tick::unregister(registers_from_inside, &()).unwrap_err().kind();
    *INNER.lock().unwrap() = Some((r, u));
}

#[test]
fn registration_from_inside_a_probe_is_refused() {
    let _s = serial();
    rtest_tick::register(registers_from_inside, &()).unwrap();
    fire_tick(0, 0);
    rtest_tick::unregister(registers_from_inside, &()).unwrap();
    assert_eq!(*INNER.lock().unwrap(), Some((ErrorKind::Deadlock, ErrorKind::Deadlock)));
}

#[test]
fn trace_macro_evaluates_its_arguments_only_when_on() {
    let _s = serial();
    static EVALUATED: AtomicU32 = AtomicU32::new(0);
    let costly = || {
        EVALUATED.fetch_add(1, SeqCst);
        5
    };
    statickeys::trace!(rtest_tick, costly(), 1);
    assert_eq!(EVALUATED.load(SeqCst), 0, "off: not evaluated");
    SEEN.reset();
    rtest_tick::register(probe_a, &SEEN).unwrap();
    statickeys::trace!(self::rtest_tick, costly(), 1);
    rtest_tick::unregister(probe_a, &SEEN).unwrap();
    assert_eq!(EVALUATED.load(SeqCst), 1, "on: evaluated once");
    assert_eq!(SEEN.n.load(SeqCst), 5);
}

fn sums_bytes(total: &AtomicUsize, p: *const u8, len: usize, flag: bool) {
    let bytes = unsafe { std::slice::from_raw_parts(p, len) };
    if flag {
        total.fetch_add(bytes.iter().map(|&b| b as usize).sum(), SeqCst);
    }
}

#[test]
fn pointer_and_bool_arguments_reach_the_probe() {
    let _s = serial();
    static TOTAL: AtomicUsize = AtomicUsize::new(0);
    let buf = [1u8, 2, 3, 4];
    rtest_ptr::register(sums_bytes, &TOTAL).unwrap();
    rtest_ptr::trace(buf.as_ptr(), buf.len(), true);
    rtest_ptr::trace(buf.as_ptr(), buf.len(), false);
    rtest_ptr::unregister(sums_bytes, &TOTAL).unwrap();
    assert_eq!(TOTAL.load(SeqCst), 10);
}

fn panics(_: &(), n: i32, _: i64) {
    if n == 13 {
        panic!("probe panicked on purpose");
    }
}

/// A panicking probe unwinds out of the firing; the firing is counted out
/// all the same, so unregistering (which waits for every firing) returns.
#[test]
fn a_panicking_probe_does_not_block_unregistration() {
    let _s = serial();
    rtest_tick::register(panics, &()).unwrap();
    let r = std::panic::catch_unwind(|| fire_tick(13, 0));
    assert!(r.is_err(), "the probe's panic reaches the caller");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(rtest_tick::unregister(panics, &())).unwrap());
    let r = rx.recv_timeout(std::time::Duration::from_secs(10));
    assert_eq!(r.expect("unregister still waiting after 10 s"), Ok(()));
}

/// 4 threads fire while the main thread registers and unregisters: no
/// probe call after its unregister returned.
#[test]
fn no_probe_call_after_unregister_returns() {
    let _s = serial();
    static LIVE: AtomicU32 = AtomicU32::new(0);
    static LATE: AtomicU32 = AtomicU32::new(0);
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    fn checks(_: &(), _: i32, _: i64) {
        CALLS.fetch_add(1, SeqCst);
        if LIVE.load(SeqCst) == 0 {
            LATE.fetch_add(1, SeqCst);
        }
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(SeqCst) {
                    fire_tick(1, 2);
                }
            })
        })
        .collect();
    let rounds = 200;
    for _ in 0..rounds {
        LIVE.store(1, SeqCst);
        rtest_tick::register(checks, &()).unwrap();
        std::thread::sleep(std::time::Duration::from_micros(200));
        rtest_tick::unregister(checks, &()).unwrap();
        LIVE.store(0, SeqCst);
    }
    stop.store(true, SeqCst);
    threads.into_iter().for_each(|t| t.join().unwrap());
    println!("{rounds} register/unregister rounds under 4 firing threads: {} calls, {} after unregister returned",
             CALLS.load(SeqCst), LATE.load(SeqCst));
    assert_eq!(LATE.load(SeqCst), 0);
    assert!(CALLS.load(SeqCst) > 0, "the probe ran at all");
}

/// The site is the tracepoint's key's site: enabling the key by hand (as
/// `skctl enable rtest:tick` does) turns it on with no probe registered.
#[test]
fn the_key_turns_the_site_on_and_off() {
    let _s = serial();
    let key = rtest_tick::TRACEPOINT.key();
    key.enable().unwrap();
    assert!(rtest_tick::enabled());
    fire_tick(1, 1); // on, with no probe: the USDT NOP only
    key.disable().unwrap();
    assert!(!rtest_tick::enabled());
    if PATCHED {
        // Sites of this test program whose key is the tracepoint (where
        // the crate patches sites: not the portable backend, nor aarch64).
        let me = key.as_raw() as usize;
        let sites = statickeys::__private::site_table()
            .iter()
            .filter(|e| entry_key(e) == me)
            .count();
        assert!(sites >= 1, "the tracepoint's sites are in sk_sites");
    }
}

/// The semaphore written as the kernel writes it when a tracer attaches:
/// the runtime's watcher sees Rust tracepoints too and holds one key
/// reference while it is non-zero (on within ~50 ms, off as fast).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn an_attached_tracer_turns_the_tracepoint_on_and_off() {
    let _s = serial();
    let tp = &rtest_watched::TRACEPOINT;
    assert_eq!(tp.semaphore(), Some(0));
    let sem = unsafe { (*tp.as_raw()).semaphore };
    let wait = |on: bool| {
        let t0 = std::time::Instant::now();
        while rtest_watched::enabled() != on {
            assert!(t0.elapsed().as_secs() < 5, "still {} 5 s after the semaphore changed", !on);
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        t0.elapsed()
    };
    unsafe { std::ptr::write_volatile(sem, 2) }; // two tracer probes
    let on = wait(true);
    assert_eq!(tp.key().count(), 1, "one reference for all tracers");
    unsafe { std::ptr::write_volatile(sem, 0) };
    let off = wait(false);
    assert_eq!(tp.key().count(), 0);
    println!("on {} ms after the semaphore rose, off {} ms after it fell", on.as_millis(), off.as_millis());
}

/// The USDT note as tracers read it (`readelf -n`): provider, name,
/// semaphore and the arguments' sizes.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn usdt_note_names_provider_event_semaphore_and_arguments() {
    let exe = std::env::current_exe().unwrap();
    let Ok(out) = std::process::Command::new("readelf").arg("-n").arg(&exe).output() else {
        println!("SKIPPED: readelf is not installed");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    // Provider, Name, "Location: ..., Semaphore: ...", "Arguments: ...".
    let find = |provider: &str, name: &str| {
        let (p, n) = (format!("Provider: {provider}"), format!("Name: {name}"));
        let at = (0..lines.len().saturating_sub(3))
            .find(|&i| lines[i] == p && lines[i + 1] == n)
            .unwrap_or_else(|| panic!("no USDT note {provider}:{name} in readelf -n:\n{text}"));
        let sizes: Vec<String> = lines[at + 3]
            .trim_start_matches("Arguments: ")
            .split(' ')
            .map(|a| a.split('@').next().unwrap().to_string())
            .collect();
        (lines[at + 2].to_string(), lines[at + 3].to_string(), sizes)
    };
    let (loc, args, sizes) = find("rtest", "tick");
    assert!(loc.contains("Semaphore: 0x") && !loc.ends_with("Semaphore: 0x0000000000000000"), "{loc}");
    assert_eq!(sizes, ["-4", "-8"], "{args}");
    assert!(args.contains("@%r"), "64-bit registers: {args}");
    let (_, args, sizes) = find("rtest", "ptr");
    assert_eq!(sizes, ["8", "8", "1"], "{args}");
    // Never fired in this program: listed all the same.
    let (_, _, sizes) = find("rtest", "watched");
    assert_eq!(sizes, ["4"]);
}
