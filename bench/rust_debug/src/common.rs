// SPDX-License-Identifier: MIT OR Apache-2.0
// The driver every bin shares (included, so that each bin's statements are
// its own code): `BIN run ROUNDS` calls the statement functions ROUNDS
// times (cachegrind counts two such runs); `BIN time ROUNDS REPEATS` prints
// {"ns_per_call": median, "min_ns", "max_ns"} over REPEATS timed loops.

/// Skips N bytes of padding (jumped over, never run): the distance from one
/// statement to the next in a real program's text.  One jump, in every
/// variant alike (the empty one too), so it cancels.
#[cfg(target_arch = "x86_64")]
macro_rules! dd_pad {
    ($n:literal) => {
        unsafe {
            core::arch::asm!("jmp 2f", ".skip {n}, 0xcc", "2:", n = const $n,
                             options(nomem, nostack, preserves_flags))
        }
    };
}
#[cfg(target_arch = "aarch64")]
macro_rules! dd_pad {
    ($n:literal) => {
        unsafe {
            core::arch::asm!("b 2f", ".skip {n}", "2:", n = const $n,
                             options(nomem, nostack, preserves_flags))
        }
    };
}
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
macro_rules! dd_pad {
    ($n:literal) => {};
}

/// A logger that would print Info and above: debug! is off at run time.
#[allow(dead_code)]
struct InfoLogger;
impl log::Log for InfoLogger {
    fn enabled(&self, m: &log::Metadata) -> bool {
        m.level() <= log::Level::Info
    }
    fn log(&self, r: &log::Record) {
        if self.enabled(r.metadata()) {
            eprintln!("{} {}", r.level(), r.args());
        }
    }
    fn flush(&self) {}
}

#[allow(dead_code)]
fn setup_log() {
    log::set_logger(&InfoLogger).expect("set_logger");
    log::set_max_level(log::LevelFilter::Info);
}

#[allow(dead_code)]
fn setup_tracing() {
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_writer(std::io::stderr)
        .init();
}

fn drive(run_all: fn(u64) -> u64, sites: u64) {
    let args: Vec<String> = std::env::args().collect();
    let rounds: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1);
    let reps: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(1);
    let x = std::hint::black_box(args.len() as u64); // unknown to the compiler
    let mut ns = Vec::with_capacity(reps);
    let mut sum = 0u64;
    for _ in 0..reps.max(1) {
        let t0 = std::time::Instant::now();
        for _ in 0..rounds {
            sum = sum.wrapping_add(run_all(x));
        }
        ns.push(t0.elapsed().as_nanos() as f64 / (rounds * sites) as f64);
    }
    if args.get(1).map(String::as_str) == Some("time") {
        ns.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "{{\"ns_per_call\": {:.4}, \"min_ns\": {:.4}, \"max_ns\": {:.4}}}",
            ns[ns.len() / 2],
            ns[0],
            ns[ns.len() - 1]
        );
    }
    std::process::exit((sum == 12345) as i32);
}
