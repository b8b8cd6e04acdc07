// SPDX-License-Identifier: MIT OR Apache-2.0
//! Finds the C runtime, or builds it.
//!
//! Order: an installed `libstatickeys` that pkg-config knows (shared
//! library), else the bundled C sources compiled with the `cc` crate (static
//! library).  `STATICKEYS_SYS_BUNDLED=1` or the `bundled` feature forces the
//! bundled build; `STATICKEYS_SYS_SYSTEM=1` or the `system` feature forces
//! pkg-config and fails without it.
//!
//! Crates that depend on this one read, as `DEP_STATICKEYS_<KEY>`: `build`
//! (bundled or system), `include` (the C headers), `libdir`, and `backend`:
//! the runtime's backend, "portable" when it patches no site (C files
//! compiled against it then need -DSK_NO_ASM_GOTO, as CMake's targets and
//! statickeys.pc give it; the statickeys crate's sites test flags), else
//! the architecture's name, or "auto" for an installed runtime (the
//! architecture's backend where it has a port).
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn env_on(name: &str) -> bool {
    println!("cargo:rerun-if-env-changed={name}");
    matches!(env::var(name).as_deref(), Ok("1") | Ok("yes") | Ok("true"))
}

/// `pkg-config` output split into words, or None when it fails.
fn pkg_config(args: &[&str]) -> Option<Vec<String>> {
    let out = Command::new(env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into()))
        .args(args)
        .arg("statickeys")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).split_whitespace().map(String::from).collect())
}

fn use_system() -> bool {
    let Some(libs) = pkg_config(&["--libs"]) else {
        return false;
    };
    let cflags = pkg_config(&["--cflags-only-I"]).unwrap_or_default();
    let mut libdir = None;
    for word in &libs {
        if let Some(dir) = word.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
            println!("cargo:libdir={dir}");
            println!("cargo:rerun-if-changed={dir}");
            libdir = Some(PathBuf::from(dir));
        }
    }
    link_system_library(libdir.as_deref(), &libs);
    if let Some(inc) = cflags.iter().find_map(|w| w.strip_prefix("-I")) {
        println!("cargo:include={inc}");
    }
    // An installed runtime built as the portable backend where the
    // architecture has a port says so to C programs with -DSK_NO_ASM_GOTO
    // (src/CMakeLists.txt, SK_FORCED_PORTABLE); otherwise it is CMake's
    // "auto": the architecture's own backend where it has one.
    let all_cflags = pkg_config(&["--cflags"]).unwrap_or_default();
    let forced_portable = all_cflags.iter().any(|w| w == "-DSK_NO_ASM_GOTO");
    println!("cargo:backend={}", if forced_portable { "portable" } else { "auto" });
    println!("cargo:build=system");
    true
}

/// Whether the dynamic loader finds libraries in `dir` by itself: a default
/// directory, one in its cache (`ldconfig -p`), or one on `LD_LIBRARY_PATH`
/// of this build (the same shell runs the program).
fn loader_finds(dir: &Path) -> bool {
    println!("cargo:rerun-if-env-changed=LD_LIBRARY_PATH");
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let on_path = env::var("LD_LIBRARY_PATH").unwrap_or_default().split(':').any(|d| {
        !d.is_empty() && Path::new(d).canonicalize().is_ok_and(|d| d == dir)
    });
    let defaults = ["/lib", "/usr/lib", "/lib64", "/usr/lib64"];
    if on_path || defaults.iter().any(|d| Path::new(d) == dir) {
        return true;
    }
    let cache = Command::new("ldconfig").arg("-p").output().or_else(|_| {
        Command::new("/sbin/ldconfig").arg("-p").output()
    });
    let soname = dir.join("libstatickeys.so.0");
    cache.is_ok_and(|out| String::from_utf8_lossy(&out.stdout).lines().any(|l| {
        l.contains("libstatickeys.so.0") && l.rsplit(" => ").next().is_some_and(|p| {
            Path::new(p.trim()).canonicalize().is_ok_and(|p| Some(p) == soname.canonicalize().ok())
        })
    }))
}

/// Links the installed runtime.  The shared library when the loader will
/// find it at run time; from a prefix it does not search (PKG_CONFIG_PATH
/// pointing at /opt/..., a home directory), the static library installed
/// next to it, because a dependency's build script cannot give the final
/// program an rpath: the program would fail to start with "cannot open
/// shared object file".  Without a static library the build stops here and
/// says what to do.
fn link_system_library(libdir: Option<&Path>, libs: &[String]) {
    let static_lib = libdir.map(|d| d.join("libstatickeys.a"));
    match (libdir, static_lib) {
        (Some(dir), Some(archive)) if !loader_finds(dir) => {
            if !archive.is_file() {
                panic!(
                    "statickeys-sys: pkg-config found libstatickeys in {0}, which the dynamic \
                     loader does not search, and {0} has no libstatickeys.a to link instead; \
                     the program would fail to start.  Add {0} to LD_LIBRARY_PATH (or to \
                     /etc/ld.so.conf.d and run ldconfig), or build the bundled runtime \
                     (STATICKEYS_SYS_BUNDLED=1)",
                    dir.display()
                );
            }
            println!("cargo:warning=statickeys-sys: {} is not on the loader's path: \
                      linking libstatickeys.a from it (set LD_LIBRARY_PATH to use the shared library)",
                     dir.display());
            println!("cargo:rustc-link-lib=static=statickeys");
            println!("cargo:rustc-link-lib=dylib=pthread");
            println!("cargo:rustc-link-lib=dylib=dl");
        }
        _ => {
            for lib in libs.iter().filter_map(|w| w.strip_prefix("-l")) {
                println!("cargo:rustc-link-lib={lib}");
            }
        }
    }
}

/// src/sources.txt, the table of the runtime's sources that src/CMakeLists.txt
/// reads too: each list's name and its words.  A line "name: words..."
/// starts a list, a line that starts with blanks continues it, "#" starts
/// a comment.
fn source_table(src: &Path) -> Option<Vec<(String, Vec<String>)>> {
    let text = std::fs::read_to_string(src.join("sources.txt")).ok()?;
    let mut lists: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        let words = if line.starts_with(char::is_whitespace) {
            line
        } else if let Some((name, rest)) = line.split_once(':') {
            lists.push((name.trim().to_string(), Vec::new()));
            rest
        } else if line.trim().is_empty() {
            continue;
        } else {
            return None;
        };
        lists.last_mut()?.1.extend(words.split_whitespace().map(String::from));
    }
    Some(lists)
}

/// The runtime's sources for the target as src/sources.txt gives them, the
/// same src/CMakeLists.txt picks: `common`, `os.<os>`, `control.<os>` (else
/// `control.posix`), the backend's `arch.<arch>` (see [`backend`]) and,
/// for a backend that traps, `traps.<os>`; with the backend's name.
fn table_sources(src: &Path) -> Option<(Vec<PathBuf>, String)> {
    let table = source_table(src)?;
    let list = |name: &str| table.iter().find(|(n, _)| n == name).map(|(_, w)| w.clone());
    let os = os_folder();
    let mut words = list("common")?;
    words.extend(list(&format!("os.{os}"))?);
    // The control socket and STATICKEYS_FILE's watcher, or the OS's own
    // list where it has neither (Windows).
    words.extend(list(&format!("control.{os}")).or_else(|| list("control.posix"))?);
    let name = backend(&list(&format!("ports.{os}")).unwrap_or_default());
    words.extend(list(&format!("arch.{name}"))?);
    if list("trapping").unwrap_or_default().contains(&name) {
        words.extend(list(&format!("traps.{os}"))?);
    }
    let files: Vec<PathBuf> = words.iter().map(|w| src.join(w)).collect();
    (!files.is_empty() && files.iter().all(|f| f.is_file())).then_some((files, name))
}

/// The folder under src/os/ for the target, as src/CMakeLists.txt picks it
/// (the target's operating system).
fn os_folder() -> String {
    env::var("CARGO_CFG_TARGET_OS").unwrap_or_default()
}

/// The runtime's backend for the target, as src/CMakeLists.txt picks it
/// from the same table: its name (what `sk_stats()` reports: the
/// architecture's, or "portable"), the name of its list `arch.<name>`.
/// With the `portable` feature, the portable backend (keys as atomic
/// flags); otherwise the architecture when it is among the OS's `ports`
/// (@ports, `ports.<os>`), else the portable backend.  The crate's site
/// macros follow the name (statickeys' build.rs reads it as
/// DEP_STATICKEYS_BACKEND).
fn backend(ports: &[String]) -> String {
    println!("cargo:rerun-if-env-changed=CARGO_FEATURE_PORTABLE");
    let arch = match env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default().as_str() {
        "x86" => "i686".to_string(), // Rust's name for 32-bit x86
        // 64-bit Power: the port is the little-endian ELFv2 one
        "powerpc64" if env::var("CARGO_CFG_TARGET_ENDIAN").as_deref() == Ok("little") => {
            "ppc64le".to_string()
        }
        a => a.to_string(),
    };
    if env::var_os("CARGO_FEATURE_PORTABLE").is_none() && ports.contains(&arch) {
        arch
    } else {
        "portable".to_string()
    }
}

/// A fully static program (`-C target-feature=+crt-static`, the default of
/// the musl targets): the C runtime's signal-mask wrappers must take the
/// place of the C library's definitions and reach its functions without a
/// dynamic linker (src/os/linux/sigmask.c), since a library crate cannot
/// give the final link the `--wrap` options the C build uses.  Static glibc:
/// its internal names (SK_SIGMASK_STATIC_GLIBC); without this, updates are
/// refused with ENOTSUP.  Static musl: its internal names and, where it has
/// none, what its functions do (SK_SIGMASK_STATIC_MUSL, sigmask_musl.c);
/// without this, the wrappers find nothing to call (musl's static dlsym
/// always fails) and Rust's own start-up `signal()` aborts the program.
fn static_crt(build: &mut cc::Build) {
    println!("cargo:rerun-if-env-changed=CARGO_CFG_TARGET_FEATURE");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let features = env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let musl = env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("musl");
    // The musl targets link statically unless told otherwise, and cargo
    // does not list their default crt-static among the target features.
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let crt_static = features.split(',').any(|f| f == "crt-static")
        || (musl && !flags.contains("-crt-static"));
    let x86_64 = env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("x86_64");
    // Linux only: Windows has no signal masks to wrap (its trap delivery
    // is os/windows/trap_veh.c, traps.windows in src/sources.txt).
    let linux = env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    if !(crt_static && x86_64 && linux) || env::var_os("CARGO_FEATURE_PORTABLE").is_some() {
        return;
    }
    match env::var("CARGO_CFG_TARGET_ENV").as_deref() {
        Ok("gnu") => build.define("SK_SIGMASK_STATIC_GLIBC", None),
        Ok("musl") => build.define("SK_SIGMASK_STATIC_MUSL", None),
        _ => build,
    };
}

fn build_bundled(root: &Path) {
    let src = root.join("src");
    let include = root.join("include");
    let (mut files, backend) = table_sources(&src).unwrap_or_else(|| (vec![], "portable".into()));
    let dirs = if files.is_empty() { vec![src.clone(), src.join("arch")] } else { vec![] };
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            panic!(
                "statickeys-sys: the bundled C sources are missing ({} not found); \
                 install libstatickeys (pkg-config) or build from the statickeys repository",
                dir.display()
            );
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "c") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut build = cc::Build::new();
    build
        .files(&files)
        .include(&include)
        // The private headers by #include "..." only, as src/CMakeLists.txt
        // (SK_PRIVATE_HEADERS): <core/core.h> does not compile.
        .flag(format!("-iquote{}", src.display()))
        .define("SK_BUILDING_LIBRARY", None)
        .define("_GNU_SOURCE", None)
        .define("_FILE_OFFSET_BITS", "64") // as src/CMakeLists.txt: i686 code lives above 2 GiB
        .flag("-std=gnu11")
        .flag("-fvisibility=hidden")
        .warnings(false)
        .pic(true);
    static_crt(&mut build);
    let windows = env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("windows");
    if windows {
        // C99 printf formats (%zu), as src/CMakeLists.txt builds it.
        build.define("__USE_MINGW_ANSI_STDIO", "1");
    }
    build.compile("statickeys");
    println!("cargo:rerun-if-changed={}", src.display());
    println!("cargo:rerun-if-changed={}", include.display());
    if windows {
        // mingw-w64's winpthreads, linked in (no libwinpthread-1.dll to
        // ship): rustc looks for the archive itself, so it is told the
        // directory where the C compiler finds it.  WaitOnAddress
        // (os/windows/futex.c) is in synchronization; there is no libdl.
        let compiler = build.get_compiler();
        let archive = Command::new(compiler.path()).arg("-print-file-name=libpthread.a").output();
        if let Some(dir) = archive.ok().and_then(|o| {
            let p = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
            p.is_absolute().then(|| p.parent().map(Path::to_path_buf)).flatten()
        }) {
            println!("cargo:rustc-link-search=native={}", dir.display());
        }
        println!("cargo:rustc-link-lib=static=pthread");
        println!("cargo:rustc-link-lib=dylib=synchronization");
    } else {
        println!("cargo:rustc-link-lib=dylib=pthread");
        println!("cargo:rustc-link-lib=dylib=dl");
    }
    println!("cargo:include={}", include.display());
    println!("cargo:libdir={}", env::var("OUT_DIR").unwrap());
    println!("cargo:backend={backend}");
    println!("cargo:build=bundled");
}

/// The C sources: c/src and c/include, symbolic links to the repository's
/// src/ and include/ that `cargo package` replaces by the files themselves.
fn bundled_root() -> PathBuf {
    PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("c")
}

fn main() {
    let root = bundled_root();
    let bundled = env_on("STATICKEYS_SYS_BUNDLED") || env::var_os("CARGO_FEATURE_BUNDLED").is_some();
    let system = env_on("STATICKEYS_SYS_SYSTEM") || env::var_os("CARGO_FEATURE_SYSTEM").is_some();
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    if bundled && system {
        panic!("statickeys-sys: both the bundled and the system build were requested; choose one");
    }
    if !bundled && use_system() {
        return;
    }
    if system {
        panic!(
            "statickeys-sys: STATICKEYS_SYS_SYSTEM / feature `system` asks for an installed \
             libstatickeys, but `pkg-config --libs statickeys` failed (set PKG_CONFIG_PATH)"
        );
    }
    build_bundled(&root);
}
