// SPDX-License-Identifier: MIT OR Apache-2.0
//! Threads run sites while another thread flips their keys.
//!
//! 4 keys (2 start on, 2 off) with 64 sites each (32 likely, 32 unlikely).
//! Reader threads call each key's site function in a loop; it returns how
//! many of its sites took the "on" direction.  The flipper picks a key,
//! marks a flip in flight (odd sequence), flips it with enable/disable,
//! inc/dec or a multi-key commit, and after the call returns publishes the
//! new state with an even sequence.  The claim under test: once a flip has
//! returned, every later execution of every site takes the new direction.
//! A reader samples (sequence, state) before and after a call; if no flip
//! of that key was in flight or happened meanwhile, the call must report all
//! 64 sites on or all off.  Readers must never crash either.
//! STATICKEYS_TORTURE_SECONDS sets the duration (default 3), a minimum: a
//! slow emulator (wine, whose WriteProcessMemory goes through its server
//! while the readers trap) gets up to 20 times as long to do enough.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::time::{Duration, Instant};

use statickeys::{
    commit, define_static_key_false, define_static_key_true, static_branch_likely,
    static_branch_unlikely, Change, StaticKey,
};

mod common;

const SITES: usize = 64;
/// Below these, a run proves too little: single flips, and reader calls
/// that no flip overlapped.
const MIN_FLIPS: u64 = 100;
const MIN_STABLE: u64 = 1000;

macro_rules! rep32 {
    ($($body:tt)*) => {
        $($body)* $($body)* $($body)* $($body)* $($body)* $($body)* $($body)* $($body)*
        $($body)* $($body)* $($body)* $($body)* $($body)* $($body)* $($body)* $($body)*
        $($body)* $($body)* $($body)* $($body)* $($body)* $($body)* $($body)* $($body)*
        $($body)* $($body)* $($body)* $($body)* $($body)* $($body)* $($body)* $($body)*
    };
}

macro_rules! sites_of {
    ($f:ident, $key:path) => {
        #[inline(never)]
        fn $f() -> usize {
            let mut n = 0;
            rep32! {
                if static_branch_unlikely!($key) { n += 1; }
                if static_branch_likely!($key) { n += 1; }
            }
            n
        }
    };
}

define_static_key_true!(K0);
define_static_key_false!(K1);
define_static_key_true!(K2);
define_static_key_false!(K3);
sites_of!(sites_k0, K0);
sites_of!(sites_k1, K1);
sites_of!(sites_k2, K2);
sites_of!(sites_k3, K3);

const NKEYS: usize = 4;
static SITE_FNS: [fn() -> usize; NKEYS] = [sites_k0, sites_k1, sites_k2, sites_k3];

struct Published {
    seq: AtomicU64, // odd while a flip of this key is in flight
    on: AtomicBool,
}
#[allow(clippy::declare_interior_mutable_const)]
const P: Published = Published { seq: AtomicU64::new(0), on: AtomicBool::new(false) };
static PUB: [Published; NKEYS] = [P, P, P, P];
static STOP: AtomicBool = AtomicBool::new(false);

enum AnyKey {
    T(&'static StaticKey<true>),
    F(&'static StaticKey<false>),
}
static KEYS: [AnyKey; NKEYS] = [AnyKey::T(&K0), AnyKey::F(&K1), AnyKey::T(&K2), AnyKey::F(&K3)];

impl AnyKey {
    fn set(&self, on: bool, how: u64) {
        let r = match (self, how % 2) {
            (AnyKey::T(k), 0) => if on { k.enable() } else { k.disable() },
            (AnyKey::F(k), 0) => if on { k.enable() } else { k.disable() },
            (AnyKey::T(k), _) => if on { k.inc() } else { k.dec() },
            (AnyKey::F(k), _) => if on { k.inc() } else { k.dec() },
        };
        r.expect("flip");
    }
    fn change(&self, on: bool) -> Change<'static> {
        match self {
            AnyKey::T(k) => Change::new(*k, on),
            AnyKey::F(k) => Change::new(*k, on),
        }
    }
}

fn reader(stable: &AtomicU64, wrong: &AtomicU64, started: &AtomicU64) {
    started.fetch_add(1, SeqCst);
    let mut i = 0usize;
    while !STOP.load(SeqCst) {
        let k = i % NKEYS;
        i += 1;
        let s1 = PUB[k].seq.load(SeqCst);
        let on = PUB[k].on.load(SeqCst);
        let n = SITE_FNS[k]();
        let s2 = PUB[k].seq.load(SeqCst);
        if s1.is_multiple_of(2) && s1 == s2 {
            stable.fetch_add(1, SeqCst);
            let expected = if on { SITES } else { 0 };
            if n != expected && wrong.fetch_add(1, SeqCst) < 10 {
                eprintln!("key K{k}: {n} of {SITES} sites on, published state {on}");
            }
        } else {
            assert!(n <= SITES);
        }
    }
}

#[test]
fn sites_take_the_new_direction_once_a_flip_returns() {
    let secs: u64 = std::env::var("STATICKEYS_TORTURE_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    for (k, p) in PUB.iter().enumerate() {
        p.on.store(k % 2 == 0, SeqCst); // K0, K2 start on
    }
    let before = statickeys::stats();
    let stable = AtomicU64::new(0);
    let wrong = AtomicU64::new(0);
    let mut flips = 0u64;
    let mut commits = 0u64;
    let started = AtomicU64::new(0);
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| reader(&stable, &wrong, &started));
        }
        // A starting thread has every signal blocked (glibc); an update
        // meanwhile may be refused with EBUSY, as documented.
        while started.load(SeqCst) < 2 {
            std::thread::yield_now();
        }
        let end = Instant::now() + Duration::from_secs(secs);
        let deadline = Instant::now() + Duration::from_secs(secs * 20);
        let enough = |flips: u64| flips > MIN_FLIPS && stable.load(SeqCst) > MIN_STABLE;
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        while Instant::now() < end || (!enough(flips) && Instant::now() < deadline) {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            if rng.is_multiple_of(8) {
                // All four keys in one batch.
                let on: Vec<bool> = PUB.iter().map(|p| !p.on.load(SeqCst)).collect();
                for p in &PUB {
                    p.seq.fetch_add(1, SeqCst);
                }
                let changes: Vec<Change> =
                    KEYS.iter().zip(&on).map(|(k, &o)| k.change(o)).collect();
                // inc/dec counts of at most 1 keep disable legal.
                commit(&changes).expect("commit");
                for (p, o) in PUB.iter().zip(on) {
                    p.on.store(o, SeqCst);
                    p.seq.fetch_add(1, SeqCst);
                }
                commits += 1;
            } else {
                let k = (rng >> 8) as usize % NKEYS;
                let on = !PUB[k].on.load(SeqCst);
                PUB[k].seq.fetch_add(1, SeqCst);
                KEYS[k].set(on, rng >> 16);
                PUB[k].on.store(on, SeqCst);
                PUB[k].seq.fetch_add(1, SeqCst);
                flips += 1;
            }
            std::thread::sleep(Duration::from_micros(50));
        }
        STOP.store(true, SeqCst);
    });
    let after = statickeys::stats();
    let (stable, wrong) = (stable.load(SeqCst), wrong.load(SeqCst));
    println!(
        "{:.1} s: {flips} single flips, {commits} 4-key commits, {stable} stable calls \
         ({} site executions checked), {wrong} wrong; traps handled {}, core syncs {} \
         (backend {}, writer {}, sync {})",
        t0.elapsed().as_secs_f64(),
        stable * SITES as u64,
        after.traps_handled - before.traps_handled,
        after.core_syncs - before.core_syncs,
        after.backend,
        after.writer,
        after.sync_method
    );
    assert!(flips > MIN_FLIPS && stable > MIN_STABLE, "too little done to mean anything");
    assert_eq!(wrong, 0, "sites took the old direction after a flip returned");
    if common::PATCHED {
        // The readers ran patched sites, not flag tests: all 256 are in the
        // table, and each flip rewrote its key's 64, each commit all 256.
        assert!(statickeys::__private::site_table().len() >= NKEYS * SITES);
        let written = (flips + commits * NKEYS as u64) * SITES as u64;
        assert_eq!(after.sites_written - before.sites_written, written, "{after:?}");
        common::check_patching_runtime(&after);
    }
}
