// SPDX-License-Identifier: MIT OR Apache-2.0
//! `sk_debug!`: each statement its own key, off by default without
//! evaluating its arguments, switched one at a time by the query language,
//! its message formatted once and handed to the sink with its site.
use core::ffi::c_char;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};

use statickeys::dyndbg::{self, Site};
use statickeys::{sk_debug, ErrorKind};

mod common;
use common::{entry_key, PATCHED};

/// The tests share the sink and the statements' flags: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// What the sink received: (message, file, function, line, format, class,
/// module, flags).
type Got = (String, String, String, u32, String, Option<String>, Option<String>, u32);
static GOT: Mutex<Vec<Got>> = Mutex::new(Vec::new());

fn lossy(s: &core::ffi::CStr) -> String {
    s.to_string_lossy().into_owned()
}

// Called through the runtime's static call (a panic here would abort).
extern "C" fn capture(site: &Site, msg: *const c_char, len: usize) {
    let bytes = unsafe { core::slice::from_raw_parts(msg.cast::<u8>(), len + 1) };
    let nul_terminated = bytes[len] == 0;
    let text = String::from_utf8_lossy(&bytes[..len]).into_owned();
    GOT.lock().unwrap_or_else(|e| e.into_inner()).push((
        if nul_terminated { text } else { "(not NUL-terminated)".into() },
        lossy(site.file()),
        lossy(site.function()),
        site.line(),
        lossy(site.format()),
        site.class().map(lossy),
        site.module().map(lossy),
        site.flags(),
    ));
}

/// The sink pointed at `capture` while a test runs; everything off after.
struct Capture(#[allow(dead_code)] MutexGuard<'static, ()>);

fn capture_sink() -> Capture {
    let guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    GOT.lock().unwrap().clear();
    dyndbg::set_sink(Some(capture)).expect("sink re-pointed");
    Capture(guard)
}

impl Drop for Capture {
    fn drop(&mut self) {
        // A query without `class` leaves classed statements alone.
        dyndbg::query("=_; class net =_").expect("every statement off");
        dyndbg::set_sink(None).expect("sink back to stderr");
    }
}

fn got() -> Vec<Got> {
    std::mem::take(&mut *GOT.lock().unwrap())
}

fn messages() -> Vec<String> {
    got().into_iter().map(|g| g.0).collect()
}

/// The statements of this file without a class: alpha, beta, delta, cut
/// and worker.
const UNCLASSED: usize = 5;

static EVALUATED: AtomicU32 = AtomicU32::new(0);

fn evaluated(x: u32) -> u32 {
    EVALUATED.fetch_add(1, Ordering::Relaxed);
    x
}

// Each returns its statement's line.
#[inline(never)]
fn alpha(x: u32) -> u32 {
    sk_debug!("alpha {}", evaluated(x));
    line!() - 1
}

#[inline(never)]
fn beta(x: u32) -> u32 {
    sk_debug!("beta {x} of {}", evaluated(x));
    line!() - 1
}

#[inline(never)]
fn gamma_net(len: usize) -> u32 {
    sk_debug!(class: "net", "gamma sent {} bytes", len);
    line!() - 1
}

mod netmod {
    #[inline(never)]
    pub fn delta() -> u32 {
        statickeys::sk_debug!("delta in a module");
        line!() - 1
    }
}

/// The program's object name, as the runtime names it (the kernel's
/// module): the file name up to its first '.'.
fn module_name() -> String {
    let exe = std::env::current_exe().unwrap();
    let name = exe.file_name().unwrap().to_string_lossy().into_owned();
    name.split('.').next().unwrap().to_owned()
}

#[test]
fn off_by_default_arguments_not_evaluated() {
    let _c = capture_sink();
    let before = EVALUATED.load(Ordering::Relaxed);
    for i in 0..1000 {
        alpha(i);
        beta(i);
    }
    assert_eq!(EVALUATED.load(Ordering::Relaxed), before, "arguments evaluated while off");
    assert!(messages().is_empty(), "a statement printed while off");
    let line = alpha(0);
    assert_eq!(dyndbg::query(&format!("file dyndbg.rs line {line} +p")).unwrap(), 1);
    alpha(7);
    beta(8);
    assert_eq!(EVALUATED.load(Ordering::Relaxed), before + 1, "only alpha's argument evaluated");
    assert_eq!(messages(), ["alpha 7"]);
    println!("1000 passes through 2 statements while off: 0 arguments evaluated, 0 messages");
}

#[test]
fn one_statement_by_file_line_format_or_func() {
    let _c = capture_sink();
    let (la, lb, ld) = (alpha(0), beta(0), netmod::delta());
    let run = || {
        alpha(1);
        beta(2);
        netmod::delta();
        gamma_net(3);
        messages()
    };
    // The base name and the path as compiled, each with a line.
    assert_eq!(dyndbg::query(&format!("file dyndbg.rs line {lb} +p")).unwrap(), 1);
    assert_eq!(run(), ["beta 2 of 2"]);
    assert_eq!(dyndbg::query(&format!("file {}:{la} =p", file!())).unwrap(), 1);
    assert_eq!(run(), ["alpha 1", "beta 2 of 2"]);
    assert_eq!(dyndbg::query("-p").unwrap(), UNCLASSED);
    assert!(run().is_empty());
    // A line range covering alpha and beta, not delta.
    let (lo, hi) = (la.min(lb), la.max(lb));
    assert!(ld < lo || ld > hi);
    assert_eq!(dyndbg::query(&format!("file dyndbg.rs line {lo}-{hi} +p")).unwrap(), 2);
    assert_eq!(run(), ["alpha 1", "beta 2 of 2"]);
    dyndbg::query("-p").unwrap();
    // The format as written: a word of it, or anchored.
    assert_eq!(dyndbg::query("format 'beta {x}' +p").unwrap(), 1);
    assert_eq!(run(), ["beta 2 of 2"]);
    dyndbg::query("-p").unwrap();
    assert_eq!(dyndbg::query("format ^alpha +p").unwrap(), 1);
    assert_eq!(run(), ["alpha 1"]);
    dyndbg::query("-p").unwrap();
    // func: the module path.
    assert_eq!(dyndbg::query("func dyndbg::netmod +p").unwrap(), 1);
    assert_eq!(run(), ["delta in a module"]);
    dyndbg::query("-p").unwrap();
    assert_eq!(dyndbg::query("func 'dyndbg::net*' +p").unwrap(), 1);
    assert_eq!(run(), ["delta in a module"]);
    // module: the program's name.
    dyndbg::query("-p").unwrap();
    assert_eq!(dyndbg::query(&format!("module {} file dyndbg.rs +p", module_name())).unwrap(), UNCLASSED);
    assert_eq!(run(), ["alpha 1", "beta 2 of 2", "delta in a module"]);
}

#[test]
fn class_statements_only_by_class() {
    let _c = capture_sink();
    gamma_net(0);
    assert_eq!(dyndbg::query("format gamma +p").unwrap(), 0, "a classed statement without class");
    assert_eq!(dyndbg::query("file dyndbg.rs +p").unwrap(), UNCLASSED, "every unclassed one");
    gamma_net(1);
    assert!(messages().is_empty());
    assert_eq!(dyndbg::query("class net +p").unwrap(), 1);
    gamma_net(1500);
    let g = got();
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].0, "gamma sent 1500 bytes");
    assert_eq!(g[0].5.as_deref(), Some("net"));
}

#[test]
fn the_sink_gets_the_message_and_its_site() {
    let _c = capture_sink();
    let line = beta(0);
    assert_eq!(dyndbg::query("format beta +pmfl").unwrap(), 1);
    beta(42);
    let g = got();
    assert_eq!(g.len(), 1, "{g:?}");
    let (msg, file, function, l, format, class, module, flags) = g[0].clone();
    assert_eq!(msg, "beta 42 of 42");
    assert_eq!(file, file!(), "file!(): the path as Cargo passed it");
    assert_eq!(function, "dyndbg");
    assert_eq!(l, line);
    assert_eq!(format, "beta {x} of {}");
    assert_eq!(class, None);
    assert_eq!(module.as_deref(), Some(module_name().as_str()));
    let want = dyndbg::PRINT | dyndbg::MODULE | dyndbg::FUNC | dyndbg::LINE;
    assert_eq!(flags, want);
}

#[test]
fn a_long_message_is_cut_at_a_character_boundary() {
    let _c = capture_sink();
    #[inline(never)]
    fn long(s: &str) {
        sk_debug!("cut {}", s);
    }
    dyndbg::query("format 'cut {}' +p").unwrap();
    long(&"é".repeat(2000)); // 2 bytes each: 1023 would split one
    let msg = messages().pop().expect("a message");
    assert_eq!(msg.len(), 1022, "cut to the C runtime's 1 KiB with its NUL");
    assert!(msg.starts_with("cut éé") && msg.ends_with('é'));
}

#[test]
fn a_query_that_does_not_parse_changes_nothing() {
    let _c = capture_sink();
    let line = alpha(0);
    for bad in [
        format!("file dyndbg.rs line {line} +q"),
        format!("file dyndbg.rs line {line} +p; fil x +p"),
        "file dyndbg.rs\0 +p".to_owned(),
    ] {
        let e = dyndbg::query(&bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidQuery, "{bad:?}: {e}");
    }
    alpha(1);
    assert!(messages().is_empty(), "a refused query changed something");
}

#[test]
fn the_catalogue_lists_every_statement() {
    let _c = capture_sink();
    let (la, lg, ld) = (alpha(0), gamma_net(0), netmod::delta());
    dyndbg::query("func dyndbg::netmod +pf").unwrap();
    let cat = dyndbg::catalogue();
    let m = module_name();
    assert!(cat.starts_with("# filename:lineno [module]function flags format\n"), "{cat}");
    let f = file!();
    for want in [
        format!("{f}:{la} [{m}]dyndbg =_ \"alpha {{}}\"\n"),
        format!("{f}:{lg} [{m}]dyndbg =_ \"gamma sent {{}} bytes\" class:net\n"),
        format!("{f}:{ld} [{m}]dyndbg::netmod =pf \"delta in a module\"\n"),
    ] {
        assert!(cat.contains(&want), "{want:?} not in\n{cat}");
    }
    // Its key is a key like any other, named after the file and line.
    let name = format!("dyndbg:{f}:{ld}\0");
    let key = unsafe { statickeys::sys::sk_key_find(name.as_ptr().cast()) };
    assert!(!key.is_null(), "key {name} found by name");
    assert!(unsafe { statickeys::sys::sk_key_enabled(key) });
}

#[test]
fn threads_print_whole_messages_while_queries_switch() {
    let _c = capture_sink();
    #[inline(never)]
    fn worker(id: u32, i: u32) {
        sk_debug!("thread {} pass {} end", id, i);
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let threads: Vec<_> = (0..4)
        .map(|id| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    worker(id, i);
                    i += 1;
                }
            })
        })
        .collect();
    let mut flips = 0;
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(500);
    while std::time::Instant::now() < deadline || flips < 20 {
        dyndbg::query("format 'thread {} pass' +p").unwrap();
        dyndbg::query("format 'thread {} pass' -p").unwrap();
        flips += 1;
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    let msgs = messages();
    for m in &msgs {
        let w: Vec<_> = m.split(' ').collect();
        assert!(w.len() == 5 && w[0] == "thread" && w[2] == "pass" && w[4] == "end", "torn: {m:?}");
    }
    println!("{flips} on/off queries while 4 threads ran the statement: {} whole messages", msgs.len());
}

/// The bytes at the statement's site where sites are patched: the
/// architecture's no-op while off (the cost of a key site), a jump while on.
#[cfg(any(target_arch = "x86_64", target_arch = "x86", target_arch = "riscv64"))]
fn site_is_a_jump(code: usize) -> bool {
    #[cfg(target_arch = "riscv64")]
    {
        let v = unsafe { (code as *const u32).read() };
        assert!(v == 0x0000_0013 || v & 0xfff == 0x06f, "site {code:#x}: a nop or a jal x0 ({v:#010x})");
        v != 0x0000_0013
    }
    #[cfg(not(target_arch = "riscv64"))]
    {
        #[cfg(target_arch = "x86_64")]
        const NOP5: [u8; 5] = [0x0f, 0x1f, 0x44, 0x00, 0x00];
        #[cfg(target_arch = "x86")]
        const NOP5: [u8; 5] = [0x3e, 0x8d, 0x74, 0x26, 0x00];
        let bytes = unsafe { core::slice::from_raw_parts(code as *const u8, 5) };
        assert!(bytes == NOP5 || bytes[0] == 0xe9, "site {code:#x}: a NOP5 or a jmp ({bytes:x?})");
        bytes[0] == 0xe9
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "x86", target_arch = "riscv64")))]
fn site_is_a_jump(_code: usize) -> bool {
    unreachable!("no patched sites here")
}

#[test]
fn a_statement_is_one_key_site() {
    let _c = capture_sink();
    let line = alpha(0);
    let name = format!("dyndbg:{}:{line}\0", file!());
    let key = unsafe { statickeys::sys::sk_key_find(name.as_ptr().cast()) } as usize;
    assert_ne!(key, 0, "{name} found");
    let table = statickeys::__private::site_table();
    let sites: Vec<usize> = table
        .iter()
        .filter(|e| entry_key(e) == key)
        .map(|e| (e as *const _ as isize + e.code as isize) as usize)
        .collect();
    if !PATCHED {
        // A flag test: no table (the portable backend, an architecture the
        // crate does not patch).
        assert!(table.is_empty(), "{} entries", table.len());
        println!("flag-test sites here: nothing to decode");
        return;
    }
    assert_eq!(sites.len(), 1, "one site for the statement in a table of {}", table.len());
    assert!(!site_is_a_jump(sites[0]), "off: the no-op");
    dyndbg::query(&format!("file dyndbg.rs line {line} +p")).unwrap();
    assert!(site_is_a_jump(sites[0]), "on: a jump to the print path");
    dyndbg::query(&format!("file dyndbg.rs line {line} -p")).unwrap();
    assert!(!site_is_a_jump(sites[0]), "off again: the no-op");
    println!("the statement's site at {:#x}: a no-op while off, a jump while on", sites[0]);
}
