// SPDX-License-Identifier: MIT OR Apache-2.0
//! Four threads run a site while the main thread flips its key 200 times;
//! after the last flip every thread sees the key off.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::sync::Arc;

use statickeys::{define_static_key_false, static_branch_unlikely};

define_static_key_false!(TRACING, "trace every request");

#[inline(never)]
fn handle(x: u64) -> u64 {
    if static_branch_unlikely!(TRACING) {
        return x + 1;
    }
    x
}

/// Runs the flips; returns how many calls took the enabled branch.
pub fn flip_under_threads(flips: usize) -> u64 {
    let stop = Arc::new(AtomicBool::new(false));
    let seen_on = Arc::new(AtomicU64::new(0));
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let (stop, seen_on) = (stop.clone(), seen_on.clone());
            std::thread::spawn(move || {
                while !stop.load(SeqCst) {
                    seen_on.fetch_add(handle(0), SeqCst);
                }
            })
        })
        .collect();
    for _ in 0..flips {
        TRACING.enable().expect("enable");
        std::thread::yield_now();
        TRACING.disable().expect("disable");
    }
    assert_eq!(handle(0), 0, "the key is off after the last flip");
    stop.store(true, SeqCst);
    for w in workers {
        w.join().expect("worker");
    }
    seen_on.load(SeqCst)
}

fn main() {
    let on = flip_under_threads(200);
    println!("consumer: 200 flips under 4 threads, {on} calls saw the key on: ok");
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

    #[test]
    fn flips_under_threads() {
        super::flip_under_threads(100);
        assert!(!super::TRACING.is_enabled());
    }

    // The packaged crate's tracepoint macros, used from outside its
    // workspace.
    statickeys::define_trace!(done = consumer:done(id: u64));

    fn add(total: &AtomicU64, id: u64) {
        total.fetch_add(id, SeqCst);
    }

    #[test]
    fn tracepoint_probe_sees_events_only_while_registered() {
        static TOTAL: AtomicU64 = AtomicU64::new(0);
        done::trace(1);
        done::register(add, &TOTAL).expect("register");
        done::trace(2);
        done::unregister(add, &TOTAL).expect("unregister");
        done::trace(4);
        assert_eq!(TOTAL.load(SeqCst), 2);
        assert_eq!(done::TRACEPOINT.key().name().to_str(), Ok("consumer:done"));
    }
}
