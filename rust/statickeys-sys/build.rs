//! Finds the C runtime, or builds it.
//!
//! Order: an installed `libstatickeys` that pkg-config knows (shared
//! library), else the bundled C sources compiled with the `cc` crate (static
//! library).  `STATICKEYS_SYS_BUNDLED=1` or the `bundled` feature forces the
//! bundled build; `STATICKEYS_SYS_SYSTEM=1` or the `system` feature forces
//! pkg-config and fails without it.
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
    for word in &libs {
        if let Some(dir) = word.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
            println!("cargo:libdir={dir}");
        } else if let Some(lib) = word.strip_prefix("-l") {
            println!("cargo:rustc-link-lib={lib}");
        }
    }
    if let Some(inc) = cflags.iter().find_map(|w| w.strip_prefix("-I")) {
        println!("cargo:include={inc}");
    }
    println!("cargo:build=system");
    true
}

/// The runtime's sources as src/CMakeLists.txt lists them in SK_SOURCES and
/// SK_ARCH_SOURCES_<arch>, so the bundled build compiles exactly what the
/// CMake build does for the target architecture.
fn cmake_sources(src: &Path) -> Option<Vec<PathBuf>> {
    let text = std::fs::read_to_string(src.join("CMakeLists.txt")).ok()?;
    let list = |name: &str| -> Option<Vec<PathBuf>> {
        let start = cmake_set(&text, name)?;
        let end = start + text[start..].find(')')?;
        Some(text[start..end].split_whitespace().filter(|w| w.ends_with(".c")).map(|w| src.join(w)).collect())
    };
    let mut files = list("SK_SOURCES")?;
    files.extend(list(&format!("SK_ARCH_SOURCES_{}", backend_folder(&text)))?);
    (!files.is_empty() && files.iter().all(|f| f.is_file())).then_some(files)
}

/// Where the values of `set(NAME ...)` start in a CMake file's text.
fn cmake_set(text: &str, name: &str) -> Option<usize> {
    let head = format!("set({name}");
    text.match_indices(&head)
        .map(|(i, _)| i + head.len())
        .find(|&at| text[at..].starts_with(char::is_whitespace))
}

/// The folder under src/arch/ for the target, as src/CMakeLists.txt picks
/// it: the architecture's own when that file lists its sources and the
/// `portable` feature is off, else "portable" (keys as atomic flags; the
/// crate's site macros fall back the same way).
fn backend_folder(cmake_text: &str) -> String {
    println!("cargo:rerun-if-env-changed=CARGO_FEATURE_PORTABLE");
    let arch = match env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default().as_str() {
        "x86" => "i686".to_string(), // Rust's name for 32-bit x86
        a => a.to_string(),
    };
    let ported = cmake_set(cmake_text, &format!("SK_ARCH_SOURCES_{arch}")).is_some();
    if ported && env::var_os("CARGO_FEATURE_PORTABLE").is_none() {
        arch
    } else {
        "portable".to_string()
    }
}

fn build_bundled(root: &Path) {
    let src = root.join("src");
    let include = root.join("include");
    let mut files: Vec<PathBuf> = cmake_sources(&src).unwrap_or_default();
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
        .include(&src)
        .define("SK_BUILDING_LIBRARY", None)
        .define("_GNU_SOURCE", None)
        .define("_FILE_OFFSET_BITS", "64") // as src/CMakeLists.txt: i686 code lives above 2 GiB
        .flag("-std=gnu11")
        .flag("-fvisibility=hidden")
        .warnings(false)
        .pic(true);
    build.compile("statickeys");
    println!("cargo:rerun-if-changed={}", src.display());
    println!("cargo:rerun-if-changed={}", include.display());
    println!("cargo:rustc-link-lib=dylib=pthread");
    println!("cargo:rustc-link-lib=dylib=dl");
    println!("cargo:include={}", include.display());
    println!("cargo:libdir={}", env::var("OUT_DIR").unwrap());
    println!("cargo:build=bundled");
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    // In the repository the C sources are two levels up; a packaged copy
    // carries them in c/.
    let root = if manifest.join("c/src").is_dir() {
        manifest.join("c")
    } else {
        manifest.join("../..")
    };
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
