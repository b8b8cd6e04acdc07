// SPDX-License-Identifier: MIT OR Apache-2.0
//! A Rust static call's call site, in a program linked with
//! `-Wl,--emit-relocs` (build.rs).  rustc calls the trampoline that
//! `define_static_call!` assembles through the GOT (`call *tramp@GOTPCREL
//! (%rip)`: it calls every function it did not compile itself that way, and
//! no linker relaxes that relocation); at the static call's first update
//! to another target the runtime makes the call a direct one (`90 e8
//! rel32`, while the process has one thread), and that update and every
//! one after re-point it at the target itself, as a C program's call
//! sites.  Until then it stays as linked, and `call_sites()` says
//! `Pending`.
//!
//! Run by tests/sites.rs with the argument `direct` (the runtime is to
//! make the call direct: glibc on x86-64 Linux with the default writer) or
//! `got` (where it does not: musl, which cannot tell that the process has
//! one thread, and the mprotect writer); elsewhere the static call loads its
//! target (`pointer`), and only the calls are checked.
use statickeys::{define_static_call, static_call};

#[inline(never)]
fn one(x: u64) -> u64 {
    x + 1
}

#[inline(never)]
fn two(x: u64) -> u64 {
    x + 2
}

define_static_call!(OP: fn(x: u64) -> u64 = one);

#[inline(never)]
fn caller(x: u64) -> u64 {
    static_call!(OP)(std::hint::black_box(x)) * 3
}

/// Where `caller`'s call to the static call goes: `Some(Ok(dest))` for a
/// direct call made from a call through the GOT (90 e8 rel32), `Some(Err
/// (slot value))` for a call through the GOT (ff 15 disp32), `None` if
/// neither is found in its first bytes.
fn site(targets: &[usize]) -> Option<Result<usize, usize>> {
    let f = caller as fn(u64) -> u64 as usize;
    // The function's own code, read: it is mapped for as long as it runs.
    let code = unsafe { std::slice::from_raw_parts(f as *const u8, 512) };
    for i in 0..code.len() - 6 {
        let rel = i32::from_le_bytes(code[i + 2..i + 6].try_into().unwrap()) as isize;
        let end = f as isize + i as isize + 6;
        if code[i] == 0x90 && code[i + 1] == 0xe8 {
            let dest = (end + rel) as usize;
            if targets.contains(&dest) {
                return Some(Ok(dest));
            }
        }
        if code[i] == 0xff && code[i + 1] == 0x15 {
            let slot = (end + rel) as *const usize;
            // The GOT entry a call through the GOT reads: mapped.
            return Some(Err(unsafe { slot.read_volatile() }));
        }
    }
    None
}

fn main() {
    let expect = std::env::args().nth(1).unwrap_or_default();
    let targets = [
        one as fn(u64) -> u64 as usize,
        two as fn(u64) -> u64 as usize,
    ];
    let mut failed = 0;
    let mut check = |ok: bool, what: String| {
        println!("{} {}", if ok { "ok" } else { "FAILED" }, what);
        failed += !ok as i32;
    };

    check(caller(1) == 6, format!("the defined target: {}", caller(1)));
    let before = site(&targets);
    let pending = OP::call_sites().unwrap();
    if expect != "pointer" {
        check(
            pending.why == statickeys::CallSitesWhy::Pending
                && pending.direct == 0
                && pending.trampoline == 0,
            format!("before the first update, none looked for: {pending:?}"),
        );
    }
    OP::update(two).unwrap();
    check(
        caller(1) == 9,
        format!("the new target after the update: {}", caller(1)),
    );
    let after = site(&targets);
    let sites = OP::call_sites().unwrap();
    println!("call sites: {sites:?}");
    match expect.as_str() {
        "direct" => {
            check(
                sites.why == statickeys::CallSitesWhy::Found && sites.direct >= 1 && sites.trampoline == 0,
                format!("counted: the call made direct: {sites:?}"),
            );
            check(
                matches!(before, Some(Err(_))),
                format!("at start-up, the call through the GOT as linked: {before:x?}"),
            );
            check(
                after == Some(Ok(targets[1])),
                format!("after the update, to the new target: {after:x?}"),
            );
        }
        "got" => {
            check(
                sites.why == statickeys::CallSitesWhy::Found && sites.direct == 0 && sites.trampoline >= 1,
                format!("counted: the call left through the GOT: {sites:?}"),
            );
            check(
                matches!(before, Some(Err(_))) && matches!(after, Some(Err(_))),
                format!("a call through the GOT, before and after: {before:x?} {after:x?}"),
            );
        }
        "pointer" => check(
            sites.why == statickeys::CallSitesWhy::NotPatched && sites.direct == 0,
            format!("none rewritten: {sites:?}"),
        ),
        other => check(false, format!("unknown expectation {other:?}")),
    }
    OP::update(one).unwrap();
    check(caller(2) == 9, "and back".to_string());
    std::process::exit(failed);
}
