// SPDX-License-Identifier: MIT OR Apache-2.0
//! Every direction of every site kind, through enable/disable/inc/dec.
use statickeys::{
    define_static_key_false, define_static_key_true, static_branch_likely, static_branch_unlikely,
    ErrorKind,
};

mod common;
use common::{check_patching_runtime, entry_key, PATCHED};

/// The tests here flip keys and start threads: one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

define_static_key_true!(T_KEY);
define_static_key_false!(F_KEY, "a key that starts off");
define_static_key_false!(NO_SITES);
define_static_key_false!(ENV_KEY);

#[inline(never)]
fn t_likely() -> bool {
    static_branch_likely!(T_KEY)
}
#[inline(never)]
fn t_unlikely() -> bool {
    static_branch_unlikely!(T_KEY)
}
#[inline(never)]
fn f_likely() -> bool {
    static_branch_likely!(F_KEY)
}
#[inline(never)]
fn f_unlikely() -> bool {
    static_branch_unlikely!(F_KEY)
}

fn sites(on_t: bool, on_f: bool) {
    assert_eq!((t_likely(), t_unlikely()), (on_t, on_t), "T_KEY sites");
    assert_eq!((f_likely(), f_unlikely()), (on_f, on_f), "F_KEY sites");
}

#[test]
fn all_directions() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    sites(true, false);
    T_KEY.disable().unwrap();
    F_KEY.enable().unwrap();
    sites(false, true);
    assert!(!T_KEY.is_enabled() && F_KEY.is_enabled());
    T_KEY.inc().unwrap();
    F_KEY.dec().unwrap();
    sites(true, false);
    assert_eq!(F_KEY.dec().unwrap_err().kind(), ErrorKind::Range);
    T_KEY.inc().unwrap();
    assert_eq!(T_KEY.count(), 2);
    assert_eq!(T_KEY.disable().unwrap_err().kind(), ErrorKind::Busy);
    T_KEY.dec().unwrap();
    T_KEY.enable().unwrap();
    sites(true, false);
    let st = statickeys::stats();
    let table = statickeys::__private::site_table();
    if PATCHED {
        // The 4 sites above are in the program's table (a table the linker
        // dropped fails here), and the flips rewrote them.
        let keys = [T_KEY.as_raw() as usize, F_KEY.as_raw() as usize];
        let ours = table.iter().filter(|e| keys.contains(&entry_key(e))).count();
        assert_eq!(ours, 4, "sites of T_KEY and F_KEY in a table of {}", table.len());
        assert!(st.sites_written >= 8 && st.core_syncs > 0, "{st:?}");
        check_patching_runtime(&st);
    } else {
        // The crate's sites are flag tests here (the portable backend, or
        // an architecture the crate does not patch, such as aarch64): the
        // sites above followed without a write.
        assert!(table.is_empty(), "{} entries", table.len());
        assert_eq!(st.sites_written, 0, "{st:?}");
    }
    println!("checked 4 site kinds in 3 states ({} table entries); stats {st:?}", table.len());
}

#[test]
fn names() {
    assert_eq!(F_KEY.name().to_str().unwrap(), "F_KEY");
    assert_eq!(F_KEY.description().unwrap().to_str().unwrap(), "a key that starts off");
    assert!(T_KEY.description().is_none());
    let found = unsafe { statickeys::sys::sk_key_find(c"NO_SITES".as_ptr()) };
    assert_eq!(found, NO_SITES.as_raw(), "a key without sites is listed by name");
}

#[inline(never)]
fn env_key_site() -> bool {
    static_branch_unlikely!(ENV_KEY)
}

/// `STATICKEYS=ENV_KEY=1` in the environment turns the Rust key on before
/// main, sites included, like a C key.  Runs this test binary again with
/// the variable set (only the child checks).
#[test]
fn startup_state_from_environment() {
    if std::env::var_os("SK_RUST_ENV_CHILD").is_some() {
        assert!(ENV_KEY.is_enabled() && env_key_site(), "ENV_KEY on before main");
        println!("child: ENV_KEY on at start-up, site takes the on path");
        return;
    }
    assert!(!ENV_KEY.is_enabled() && !env_key_site());
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "startup_state_from_environment", "--nocapture"])
        .env("SK_RUST_ENV_CHILD", "1")
        .env("STATICKEYS", "ENV_KEY=1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("child: ENV_KEY on"), "{stdout}");
}

/// Windows has no control socket (no Unix datagram sockets): the runtime
/// says -ENOTSUP (mingw-w64's 129), and the keys still have their names.
#[cfg(windows)]
#[test]
fn no_control_socket_on_windows() {
    let r = unsafe { statickeys::sys::sk_control_start(core::ptr::null()) };
    assert_eq!(r, -129, "sk_control_start: -ENOTSUP");
    let found = unsafe { statickeys::sys::sk_key_find(c"F_KEY".as_ptr()) };
    assert!(!found.is_null(), "F_KEY found by name");
}

/// Rust keys are served by the runtime's control socket like C keys (what
/// `skctl` talks to): listed with their names and descriptions, and
/// flipped by name.
#[cfg(unix)]
#[test]
fn control_socket_lists_and_flips_rust_keys() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let path = format!("/tmp/statickeys-rust-test-{}.sock\0", std::process::id());
    let r = unsafe { statickeys::sys::sk_control_start(path.as_ptr().cast()) };
    assert_eq!(r, 0, "sk_control_start");
    // A datagram socket with an address of its own (the server replies
    // there), one request per datagram, the reply ending with a newline.
    let own = format!("/tmp/statickeys-rust-test-{}.client", std::process::id());
    let _ = std::fs::remove_file(&own);
    let sock = std::os::unix::net::UnixDatagram::bind(&own).unwrap();
    sock.connect(path.trim_end_matches('\0')).unwrap();
    let ask = |req: &str| {
        sock.send(req.as_bytes()).unwrap();
        let mut reply = Vec::new();
        let mut buf = vec![0u8; 65536];
        while reply.last() != Some(&b'\n') {
            let n = sock.recv(&mut buf).unwrap();
            reply.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&reply).into_owned()
    };
    let list = ask("list\n");
    assert!(list.contains("\"F_KEY\"") && list.contains("a key that starts off"), "{list}");
    assert!(!NO_SITES.is_enabled());
    let reply = ask("enable NO_SITES\n");
    assert!(reply.contains("\"ok\":true"), "{reply}");
    assert!(NO_SITES.is_enabled(), "enabled over the socket");
    assert!(ask("disable NO_SITES\n").contains("\"ok\":true"));
    assert!(!NO_SITES.is_enabled());
    drop(sock);
    let _ = std::fs::remove_file(&own);
    assert_eq!(unsafe { statickeys::sys::sk_control_stop() }, 0);
    println!("control socket: Rust keys listed and flipped by name");
}
