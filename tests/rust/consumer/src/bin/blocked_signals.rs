// SPDX-License-Identifier: MIT OR Apache-2.0
//! A threaded server's signal set-up, as a user's program has it: the main
//! thread blocks every signal (sigfillset + pthread_sigmask) before it
//! starts its workers, which inherit the mask and block every signal again
//! themselves; they run 32 sites of one key while the main thread flips it.
//!
//! A site being changed holds int3, and a thread that executes it with
//! SIGTRAP blocked is killed by the kernel: the runtime's signal-mask
//! wrappers must keep SIGTRAP out of each mask while blocking every other
//! signal as asked.  The program checks both, then that once a flip has
//! returned every site takes the new direction (0 wrong), that no flip is
//! refused (0 refused), and prints the counts; it exits non-zero otherwise.
use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::time::{Duration, Instant};

use statickeys::{define_static_key_false, static_branch_likely, static_branch_unlikely};

/// The C library's sigset_t: 1024 bits in glibc and musl.
#[repr(C)]
struct SigSet([u64; 16]);

extern "C" {
    fn sigfillset(set: *mut SigSet) -> c_int;
    fn pthread_sigmask(how: c_int, set: *const SigSet, old: *mut SigSet) -> c_int;
}

const SIG_BLOCK: c_int = 0;
const SIGUSR1: u32 = 10;
const SIGTRAP: u32 = 5;
const SITES: usize = 32;

/// Blocks every signal in this thread; returns the mask the thread then has.
fn block_every_signal() -> u64 {
    let mut all = SigSet([0; 16]);
    let mut now = SigSet([0; 16]);
    // SAFETY: both sets are valid sigset_t-sized buffers.
    unsafe {
        assert_eq!(sigfillset(&mut all), 0);
        assert_eq!(pthread_sigmask(SIG_BLOCK, &all, std::ptr::null_mut()), 0);
        assert_eq!(pthread_sigmask(SIG_BLOCK, std::ptr::null(), &mut now), 0);
    }
    now.0[0]
}

fn check_mask(mask: u64, who: &str) {
    assert!(mask & 1 << (SIGUSR1 - 1) != 0, "{who}: SIGUSR1 is not blocked as asked");
    assert!(mask & 1 << (SIGTRAP - 1) == 0, "{who}: SIGTRAP is blocked");
}

define_static_key_false!(KEY, "flipped while every thread blocks every signal");

macro_rules! rep16 {
    ($($b:tt)*) => { $($b)* $($b)* $($b)* $($b)* $($b)* $($b)* $($b)* $($b)*
                     $($b)* $($b)* $($b)* $($b)* $($b)* $($b)* $($b)* $($b)* };
}

/// How many of the 32 sites took the "on" direction.
#[inline(never)]
fn sites() -> usize {
    let mut n = 0;
    rep16! {
        if static_branch_unlikely!(KEY) { n += 1; }
        if static_branch_likely!(KEY) { n += 1; }
    }
    n
}

static SEQ: AtomicU64 = AtomicU64::new(0); // odd while a flip is in flight
static ON: AtomicBool = AtomicBool::new(false);
static STOP: AtomicBool = AtomicBool::new(false);
static STARTED: AtomicU64 = AtomicU64::new(0);
static CHECKED: AtomicU64 = AtomicU64::new(0);
static WRONG: AtomicU64 = AtomicU64::new(0);

fn worker() {
    check_mask(block_every_signal(), "worker");
    STARTED.fetch_add(1, SeqCst);
    while !STOP.load(SeqCst) {
        let (s1, on) = (SEQ.load(SeqCst), ON.load(SeqCst));
        let n = sites();
        if s1 % 2 == 0 && SEQ.load(SeqCst) == s1 {
            CHECKED.fetch_add(1, SeqCst);
            if n != if on { SITES } else { 0 } {
                WRONG.fetch_add(1, SeqCst);
            }
        }
    }
}

fn main() {
    let secs: u64 = std::env::var("BLOCKED_SIGNALS_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    check_mask(block_every_signal(), "main");
    let workers: Vec<_> = (0..3).map(|_| std::thread::spawn(worker)).collect();
    while STARTED.load(SeqCst) < 3 {
        std::thread::yield_now();
    }
    let (mut flips, mut refused) = (0u64, 0u64);
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        let on = !ON.load(SeqCst);
        SEQ.fetch_add(1, SeqCst);
        let r = if on { KEY.enable() } else { KEY.disable() };
        match r {
            Ok(()) => ON.store(on, SeqCst),
            Err(e) => {
                refused += 1;
                eprintln!("flip refused: {e}");
            }
        }
        SEQ.fetch_add(1, SeqCst);
        flips += 1;
        std::thread::sleep(Duration::from_micros(50));
    }
    STOP.store(true, SeqCst);
    for w in workers {
        w.join().expect("worker");
    }
    let (checked, wrong) = (CHECKED.load(SeqCst), WRONG.load(SeqCst));
    let s = statickeys::stats();
    println!(
        "blocked-signals: every signal blocked in 4 threads; {flips} flips, {checked} \
         checked calls ({} site executions), {wrong} wrong, {refused} refused; traps \
         handled {}",
        checked * SITES as u64,
        s.traps_handled
    );
    assert!(flips > 100 && checked > 1000, "too little done to mean anything");
    assert!(wrong == 0 && refused == 0, "{wrong} wrong, {refused} refused");
}
