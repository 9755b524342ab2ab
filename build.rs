//! Lays out the program text for a fast start on Linux: the functions start-up runs (listed
//! in `src/startup.ld`, made by `benches/startup-layout.sh`) go first, together, so that
//! starting maps a handful of pages of text instead of most of them. It changes where code
//! lies, never what it does; a stale list only costs speed.

use std::env;

fn main() {
    println!("cargo:rerun-if-changed=src/startup.ld");
    println!("cargo:rerun-if-env-changed=SANDBOX_BASH_DEFAULT_LAYOUT");
    if env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    // An escape hatch for linkers that read no GNU linker scripts (mold), or to compare.
    if env::var_os("SANDBOX_BASH_DEFAULT_LAYOUT").is_some_and(|v| v == "1") {
        return;
    }
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if flags.split('\u{1f}').any(|f| f.contains("fuse-ld=mold")) {
        println!("cargo:warning=linking with mold, which reads no linker scripts: the start-up layout is left out");
        return;
    }
    let Ok(dir) = env::var("CARGO_MANIFEST_DIR") else { return };
    let script = format!("{dir}/src/startup.ld");
    // The script only adds an output section in front of `.text`; the linker's own script
    // still lays out the rest. -Xlinker passes the path as it is, commas included.
    for arg in ["-Xlinker", "-T", "-Xlinker", &script] {
        println!("cargo:rustc-link-arg-bins={arg}");
    }
}
