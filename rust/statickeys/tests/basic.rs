//! Every direction of every site kind, through enable/disable/inc/dec.
use statickeys::{
    define_static_key_false, define_static_key_true, static_branch_likely, static_branch_unlikely,
    ErrorKind,
};

define_static_key_true!(T_KEY);
define_static_key_false!(F_KEY, "a key that starts off");
define_static_key_false!(NO_SITES);

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
    assert!(st.sites_written >= 8 && st.core_syncs > 0, "{st:?}");
    println!("checked 4 site kinds in 3 states; stats {st:?}");
}

#[test]
fn names() {
    assert_eq!(F_KEY.name().to_str().unwrap(), "F_KEY");
    assert_eq!(F_KEY.description().unwrap().to_str().unwrap(), "a key that starts off");
    assert!(T_KEY.description().is_none());
    let found = unsafe { statickeys::sys::sk_key_find(c"NO_SITES".as_ptr()) };
    assert_eq!(found, NO_SITES.as_raw(), "a key without sites is listed by name");
}
