// SPDX-License-Identifier: MIT OR Apache-2.0
//! The log bridge: code written for the `log` crate, with its `use` line
//! changed, under a real `log::Log` logger: each debug!/trace! its own
//! statement, off without building a record or evaluating arguments, and
//! when switched on by a query, the record log's own macro would build.
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard, Once};

// Was: use log::{debug, info, trace};
use statickeys::log::{debug, info, trace};

/// A record as the logger got it.
#[derive(Debug, Clone, PartialEq)]
struct Got {
    level: log::Level,
    target: String,
    module_path: Option<String>,
    file: Option<String>,
    line: Option<u32>,
    message: String,
}

/// A logger keeping every record it is given (it filters nothing).
struct Keep(Mutex<Vec<Got>>);

impl log::Log for Keep {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, r: &log::Record<'_>) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(Got {
            level: r.level(),
            target: r.target().to_owned(),
            module_path: r.module_path_static().map(str::to_owned),
            file: r.file_static().map(str::to_owned),
            line: r.line(),
            message: r.args().to_string(),
        });
    }
    fn flush(&self) {}
}

static LOGGER: Keep = Keep(Mutex::new(Vec::new()));
static SERIAL: Mutex<()> = Mutex::new(());

struct Test(#[allow(dead_code)] MutexGuard<'static, ()>);

fn start() -> Test {
    static INIT: Once = Once::new();
    INIT.call_once(|| log::set_logger(&LOGGER).expect("the test's logger"));
    let guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    log::set_max_level(log::LevelFilter::Info);
    records();
    Test(guard)
}

impl Drop for Test {
    fn drop(&mut self) {
        statickeys::dyndbg::query("=_").expect("every statement off");
    }
}

fn records() -> Vec<Got> {
    std::mem::take(&mut *LOGGER.0.lock().unwrap())
}

static EVALUATED: AtomicU32 = AtomicU32::new(0);

fn evaluated(x: u32) -> u32 {
    EVALUATED.fetch_add(1, Ordering::Relaxed);
    x
}

// Each returns its statement's line.
#[inline(never)]
fn enqueue(q: u32, n: u32) -> u32 {
    debug!("queue {}: {} items", q, evaluated(n));
    line!() - 1
}

#[inline(never)]
fn sent(len: u32) -> u32 {
    debug!(target: "net", "sent {len} bytes");
    line!() - 1
}

#[inline(never)]
fn traced(step: u32) -> u32 {
    trace!("step {}", evaluated(step));
    line!() - 1
}

#[inline(never)]
fn informed(n: u32) {
    info!("info is log's own: {n}");
}

fn record(level: log::Level, target: &str, line: u32, message: &str) -> Got {
    Got {
        level,
        target: target.to_owned(),
        module_path: Some("log_bridge".to_owned()),
        file: Some(file!().to_owned()),
        line: Some(line),
        message: message.to_owned(),
    }
}

#[test]
fn off_no_record_and_no_argument_evaluated() {
    let _t = start();
    log::set_max_level(log::LevelFilter::Trace); // log's switch: not ours
    let before = EVALUATED.load(Ordering::Relaxed);
    for i in 0..1000 {
        enqueue(1, i);
        traced(i);
        sent(i);
    }
    assert_eq!(EVALUATED.load(Ordering::Relaxed), before, "arguments evaluated while off");
    assert_eq!(records(), [], "a record while off");
    println!("3000 statements while off, log's level at Trace: 0 records, 0 arguments evaluated");
}

#[test]
fn one_statement_switched_on_by_line_gives_logs_record() {
    let _t = start();
    let line = enqueue(0, 0);
    let q = format!("file log_bridge.rs line {line} +p");
    assert_eq!(statickeys::dyndbg::query(&q).unwrap(), 1);
    enqueue(3, 7);
    traced(1);
    sent(2);
    assert_eq!(records(), [record(log::Level::Debug, "log_bridge", line, "queue 3: 7 items")]);
}

/// The query is the switch: log's max level (Info here, even Off) does not
/// hold back a statement switched on.
#[test]
fn logs_max_level_does_not_hold_an_enabled_statement_back() {
    let _t = start();
    log::set_max_level(log::LevelFilter::Off);
    let line = traced(0);
    assert_eq!(statickeys::dyndbg::query("format 'step {}' +p").unwrap(), 1);
    traced(5);
    assert_eq!(records(), [record(log::Level::Trace, "log_bridge", line, "step 5")]);
}

/// `target:` sets the record's target as in log; the query finds the
/// statement by its file, line, module path or format, not by target.
#[test]
fn a_target_goes_into_the_record() {
    let _t = start();
    let line = sent(0);
    assert_eq!(statickeys::dyndbg::query("func log_bridge format sent +p").unwrap(), 1);
    sent(1500);
    assert_eq!(records(), [record(log::Level::Debug, "net", line, "sent 1500 bytes")]);
}

/// error!, warn! and info! are log's own: its level decides.
#[test]
fn info_is_logs_own() {
    let _t = start();
    informed(1);
    log::set_max_level(log::LevelFilter::Warn);
    informed(2);
    let got: Vec<String> = records().into_iter().map(|r| r.message).collect();
    assert_eq!(got, ["info is log's own: 1"]);
}

#[test]
fn the_log_statements_are_in_the_catalogue() {
    let _t = start();
    let (le, ls, lt) = (enqueue(0, 0), sent(0), traced(0));
    let cat = statickeys::dyndbg::catalogue();
    let (f, m) = (file!(), module_name());
    for want in [
        format!("{f}:{le} [{m}]log_bridge =_ \"queue {{}}: {{}} items\"\n"),
        format!("{f}:{ls} [{m}]log_bridge =_ \"sent {{len}} bytes\"\n"),
        format!("{f}:{lt} [{m}]log_bridge =_ \"step {{}}\"\n"),
    ] {
        assert!(cat.contains(&want), "{want:?} not in\n{cat}");
    }
}

fn module_name() -> String {
    let exe = std::env::current_exe().unwrap();
    let name = exe.file_name().unwrap().to_string_lossy().into_owned();
    name.split('.').next().unwrap().to_owned()
}
