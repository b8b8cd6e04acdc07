// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared by src/bin/ours.rs and src/bin/theirs.rs: each first brings `sk`
// (the crate under test) and the macros `on!(KEY)` / `off!(KEY)` into scope.
//
//   BIN latency --flips N          flip latency for 1, 56 packed, 56 spread
//                                  and 1000 sites (median, p99 over N flips)
//   BIN branch --iterations N      ns per loop iteration through a site
//                                  whose key is off; the site's bytes
//   BIN torture --seconds S        threads run sites while keys flip
// Each prints one JSON object on stdout.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::time::{Duration, Instant};

use sk::{define_static_key_false, static_branch_likely, static_branch_unlikely};

macro_rules! rep8 { ($($b:tt)*) => { $($b)* $($b)* $($b)* $($b)* $($b)* $($b)* $($b)* $($b)* }; }
macro_rules! rep7 { ($($b:tt)*) => { $($b)* $($b)* $($b)* $($b)* $($b)* $($b)* $($b)* }; }
macro_rules! rep10 { ($($b:tt)*) => { $($b)* $($b)* $($b)* $($b)* $($b)* $($b)* $($b)* $($b)* $($b)* $($b)* }; }

define_static_key_false!(K1);
define_static_key_false!(K56);
define_static_key_false!(K56S);
define_static_key_false!(K1000);
define_static_key_false!(KBRANCH);

#[inline(never)]
fn sites_1() -> u32 {
    static_branch_unlikely!(K1) as u32
}

#[inline(never)]
fn sites_56() -> u32 {
    let mut n = 0;
    rep8! { rep7! { if static_branch_unlikely!(K56) { n += 1; } } }
    n
}

// 56 sites, each in its own function padded past 4 KiB, so each lies on a
// different page (the "spread" layout).
// The comment naming the function keeps rustc from merging the 56
// otherwise identical functions into one (it merges identical functions).
macro_rules! spread_fn {
    ($name:ident) => {
        #[inline(never)]
        fn $name() -> u32 {
            let r = static_branch_unlikely!(K56S) as u32;
            unsafe {
                core::arch::asm!(
                    concat!("/* ", stringify!($name), " */"),
                    "jmp 3f",
                    ".skip 4096, 0xcc",
                    "3:",
                    options(nostack)
                )
            };
            r
        }
    };
}
macro_rules! spread_fns {
    ($($name:ident)*) => {
        $(spread_fn!($name);)*
        static SPREAD: &[fn() -> u32] = &[$($name),*];
    };
}
spread_fns!(s00 s01 s02 s03 s04 s05 s06 s07 s08 s09 s10 s11 s12 s13 s14 s15 s16 s17 s18 s19
    s20 s21 s22 s23 s24 s25 s26 s27 s28 s29 s30 s31 s32 s33 s34 s35 s36 s37 s38 s39
    s40 s41 s42 s43 s44 s45 s46 s47 s48 s49 s50 s51 s52 s53 s54 s55);

#[inline(never)]
fn sites_1000() -> u32 {
    let mut n = 0;
    rep10! { rep10! { rep10! { if static_branch_unlikely!(K1000) { n += 1; } } } }
    n
}

fn sites_56_spread() -> u32 {
    SPREAD.iter().map(|f| f()).sum()
}

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() - 1) as f64 * p).round() as usize]
}

macro_rules! measure {
    ($key:path, $count:expr, $name:expr, $layout:expr, $flips:expr, $out:expr) => {{
        let mut us = Vec::new();
        for _ in 0..$flips {
            let t = Instant::now();
            on!($key);
            us.push(t.elapsed().as_secs_f64() * 1e6);
            assert_eq!($count(), $name, "sites after enable");
            let t = Instant::now();
            off!($key);
            us.push(t.elapsed().as_secs_f64() * 1e6);
            assert_eq!($count(), 0, "sites after disable");
        }
        let med = percentile(&mut us, 0.5);
        let p99 = percentile(&mut us, 0.99);
        $out.push(format!(
            "{{\"sites\":{},\"layout\":\"{}\",\"median_us\":{:.2},\"p99_us\":{:.2},\"flips\":{}}}",
            $name, $layout, med, p99, us.len()
        ));
    }};
}

fn latency(args: &[String]) {
    let flips = arg(args, "--flips", 20);
    // --only 56: just the 56 packed sites (for counting system calls)
    let only = arg(args, "--only", 0);
    let mut rows: Vec<String> = Vec::new();
    if only == 0 || only == 1 {
        measure!(K1, sites_1, 1, "packed", flips, rows);
    }
    if only == 0 || only == 56 {
        measure!(K56, sites_56, 56, "packed", flips, rows);
    }
    if only == 0 {
        measure!(K56S, sites_56_spread, 56, "spread", flips, rows);
    }
    if only == 0 || only == 1000 {
        measure!(K1000, sites_1000, 1000, "packed", flips, rows);
    }
    println!("{{\"latency\":[{}]}}", rows.join(","));
}

#[inline(never)]
#[no_mangle]
pub extern "C" fn branch_probe() -> u32 {
    if static_branch_unlikely!(KBRANCH) {
        return 7;
    }
    1
}

static FLAG: AtomicBool = AtomicBool::new(false);

fn branch(args: &[String]) {
    let n = arg(args, "--iterations", 100_000_000);
    let reps = arg(args, "--repeats", 5);
    let flag: &AtomicBool = std::hint::black_box(&FLAG);
    let (mut best_site, mut best_flag, mut best_empty) = (f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..reps {
        let t = Instant::now();
        let mut acc = 0u64;
        for i in 0..n {
            if static_branch_unlikely!(KBRANCH) {
                acc = acc.wrapping_mul(3);
            }
            acc = acc.wrapping_add(std::hint::black_box(i));
        }
        std::hint::black_box(acc);
        best_site = best_site.min(t.elapsed().as_secs_f64() * 1e9 / n as f64);

        let t = Instant::now();
        let mut acc = 0u64;
        for i in 0..n {
            if flag.load(std::sync::atomic::Ordering::Relaxed) {
                acc = acc.wrapping_mul(3);
            }
            acc = acc.wrapping_add(std::hint::black_box(i));
        }
        std::hint::black_box(acc);
        best_flag = best_flag.min(t.elapsed().as_secs_f64() * 1e9 / n as f64);

        let t = Instant::now();
        let mut acc = 0u64;
        for i in 0..n {
            acc = acc.wrapping_add(std::hint::black_box(i));
        }
        std::hint::black_box(acc);
        best_empty = best_empty.min(t.elapsed().as_secs_f64() * 1e9 / n as f64);
    }
    // The probe's code: the off site must be exactly one NOP5 in it.
    let p = branch_probe as *const u8;
    let code: Vec<u8> = (0..32).map(|i| unsafe { *p.add(i) }).collect();
    let nop5 = code.windows(5).filter(|w| *w == [0x0f, 0x1f, 0x44, 0x00, 0x00]).count();
    let hex: Vec<String> = code.iter().map(|b| format!("{b:02x}")).collect();
    println!(
        "{{\"branch\":{{\"site_ns\":{:.3},\"flag_ns\":{:.3},\"empty_ns\":{:.3},\"iterations\":{},\"probe_nop5\":{},\"probe_bytes\":\"{}\"}}}}",
        best_site, best_flag, best_empty, n, nop5, hex.join(" ")
    );
}

// ---- torture: the statickeys torture, with their API ----------------------

define_static_key_false!(T0);
define_static_key_false!(T1);
const TSITES: usize = 64;
macro_rules! tsites {
    ($f:ident, $key:path) => {
        #[inline(never)]
        fn $f() -> usize {
            let mut n = 0;
            rep8! { rep8! {
                if static_branch_unlikely!($key) { n += 1; }
            } }
            let _ = static_branch_likely!($key); // keep the likely macro exercised
            n
        }
    };
}
tsites!(tsites_0, T0);
tsites!(tsites_1, T1);

static SEQ: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];
static ON: [AtomicBool; 2] = [AtomicBool::new(false), AtomicBool::new(false)];
static STOP: AtomicBool = AtomicBool::new(false);
static STABLE: AtomicU64 = AtomicU64::new(0);
static WRONG: AtomicU64 = AtomicU64::new(0);

static STARTED: AtomicU64 = AtomicU64::new(0);

fn reader() {
    STARTED.fetch_add(1, SeqCst);
    let fns: [fn() -> usize; 2] = [tsites_0, tsites_1];
    let mut i = 0;
    while !STOP.load(SeqCst) {
        let k = i % 2;
        i += 1;
        let s1 = SEQ[k].load(SeqCst);
        let on = ON[k].load(SeqCst);
        let n = fns[k]();
        let s2 = SEQ[k].load(SeqCst);
        if s1 % 2 == 0 && s1 == s2 {
            STABLE.fetch_add(1, SeqCst);
            if n != if on { TSITES } else { 0 } {
                WRONG.fetch_add(1, SeqCst);
            }
        }
    }
}

fn torture(args: &[String]) {
    let secs = arg(args, "--seconds", 3);
    let readers: Vec<_> = (0..2).map(|_| std::thread::spawn(reader)).collect();
    // Flip only once both readers run (a starting thread blocks signals).
    while STARTED.load(SeqCst) < 2 {
        std::thread::yield_now();
    }
    let end = Instant::now() + Duration::from_secs(secs);
    let mut flips = 0u64;
    let mut last = Instant::now();
    while Instant::now() < end {
        let k = (flips % 2) as usize;
        let on = !ON[k].load(SeqCst);
        SEQ[k].fetch_add(1, SeqCst);
        match (k, on) {
            (0, true) => on!(T0),
            (0, false) => off!(T0),
            (_, true) => on!(T1),
            (_, false) => off!(T1),
        }
        ON[k].store(on, SeqCst);
        SEQ[k].fetch_add(1, SeqCst);
        flips += 1;
        // progress on stderr, so a crash still shows how far it got
        if last.elapsed() > Duration::from_millis(200) {
            eprintln!("flips {flips} stable {} wrong {}", STABLE.load(SeqCst), WRONG.load(SeqCst));
            last = Instant::now();
        }
        std::thread::sleep(Duration::from_micros(50));
    }
    STOP.store(true, SeqCst);
    for r in readers {
        r.join().unwrap();
    }
    println!(
        "{{\"torture\":{{\"seconds\":{},\"flips\":{},\"stable_calls\":{},\"wrong\":{}}}}}",
        secs,
        flips,
        STABLE.load(SeqCst),
        WRONG.load(SeqCst)
    );
}

fn main() {
    sk::global_init();
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("latency") => latency(&args),
        Some("branch") => branch(&args),
        Some("torture") => torture(&args),
        _ => {
            eprintln!("usage: {} latency|branch|torture [options]", args[0]);
            std::process::exit(2);
        }
    }
}
