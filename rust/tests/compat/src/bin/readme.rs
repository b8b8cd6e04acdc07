// SPDX-License-Identifier: MIT OR Apache-2.0
// The static-keys 0.8.2 README's "Usage" snippets ((c) Evian-Zhang, MIT OR Apache-2.0), in the order they
// appear; only the placeholders they leave to the reader are filled in
// (CommandlineArgs, do_something, do_common_routines, the loop bound).
use static_keys::{define_static_key_false, static_branch_unlikely};

struct CommandlineArgs;
impl CommandlineArgs {
    fn parse() -> bool {
        std::env::args().nth(1).as_deref() == Some("--flag")
    }
}
static SOMETHING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
fn do_something() {
    SOMETHING.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}
fn do_common_routines() {}

// ---- README ----
fn main() {
    static_keys::global_init();
    // Do other things...
    application_initialize();
    run();
    println!("do_something ran {} times", SOMETHING.load(std::sync::atomic::Ordering::Relaxed));
}

// FLAG_STATIC_KEY is defined with initial value `false`
define_static_key_false!(FLAG_STATIC_KEY);

fn application_initialize() {
    let flag = CommandlineArgs::parse();
    if flag {
        unsafe {
            FLAG_STATIC_KEY.enable();
        }
    }
}

fn run() {
    for _ in 0..1000 {
        if static_branch_unlikely!(FLAG_STATIC_KEY) {
            do_something();
        }
        do_common_routines();
    }
}
