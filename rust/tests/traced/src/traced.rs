// SPDX-License-Identifier: MIT OR Apache-2.0
// A Rust program for tracers to attach to, as tests/trace/traced.c is for
// C (the same tracepoint, the same output, the same scripts drive it).
//
// ```text
// traced N
// ```
//
// Prints "ready PID", waits (up to 20 s) until a tracer attached to the
// USDT probe sktest:tick turns the tracepoint on, lets it settle, then
// fires sktest:tick N times with arg0 = 0..N-1, arg1 = 2 * arg0, and once
// with arg0 = END (the tracer's cue to leave).  Then it waits (up to 5 s)
// for the tracepoint to turn off again and says how long that took after
// the last firing, and whether the site is a no-op again (`enabled()` is
// itself a site) with no reference held.  Exit 0 when every step
// happened, 1 otherwise, 2 if nobody attached.
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

statickeys::define_trace!(sktest_tick = sktest:tick(n: i32, v: i64));

/// arg0 of the last event.
const END: i32 = 1_000_000_000;

fn main() {
    let n: i64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let tp = &sktest_tick::TRACEPOINT;
    println!("ready {}", std::process::id());
    let t0 = Instant::now();
    while !sktest_tick::enabled() {
        if t0.elapsed() > Duration::from_secs(20) {
            println!("nobody attached in 20 s");
            std::process::exit(2);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    println!("on {} ms after start (semaphore {})", t0.elapsed().as_millis(), tp.semaphore().unwrap_or(0));
    // The tracer raises the semaphore per probe it attaches; give its other
    // attachments time to land before counting starts.
    std::thread::sleep(Duration::from_secs(1));
    for i in 0..n {
        sktest_tick::trace(i as i32, i * 2);
    }
    sktest_tick::trace(END, 0);
    let t1 = Instant::now();
    println!("fired {n}");
    // 30 s, as traced.c: the tracer's own exit comes first, and the
    // scripts judge the library's share.
    while sktest_tick::enabled() {
        if t1.elapsed() > Duration::from_secs(30) {
            println!("still on 30 s after the last event (semaphore {}, key count {})",
                     tp.semaphore().unwrap_or(0), tp.key().count());
            std::process::exit(1);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    println!("off {} ms after the last event; key count {}", t1.elapsed().as_millis(), tp.key().count());
    // For the tracer's script: when, by the wall clock, it saw off.
    println!("off_at {}.{:09}", wall.as_secs(), wall.subsec_nanos());
    // Fired while off: nobody may see these.
    for i in 0..100 {
        sktest_tick::trace(i, 0);
    }
    std::process::exit(if tp.key().count() == 0 { 0 } else { 1 });
}
