//! The shell scripts of this machine, for tests and benchmarks that run on real code.

use std::path::{Path, PathBuf};

/// Whether a file starts with a `#!` line naming sh, bash or dash (directly or through env).
pub fn is_shell_script(path: &Path) -> bool {
    let Ok(mut f) = std::fs::File::open(path) else { return false };
    let mut head = [0u8; 128];
    let n = std::io::Read::read(&mut f, &mut head).unwrap_or(0);
    let first = head[..n].split(|&b| b == b'\n').next().unwrap_or(&[]);
    let line = String::from_utf8_lossy(first);
    let Some(rest) = line.strip_prefix("#!") else { return false };
    let words: Vec<&str> = rest.split_whitespace().collect();
    let interp = words.first().map(|w| w.rsplit('/').next().unwrap_or(w)).unwrap_or("");
    let interp = if interp == "env" { words.get(1).copied().unwrap_or("") } else { interp };
    matches!(interp, "sh" | "bash" | "dash")
}

/// Whether a file is a Debian maintainer script.
pub fn is_maintainer_script(path: &Path) -> bool {
    path.starts_with("/var/lib/dpkg/info")
        && path
            .extension()
            .is_some_and(|e| ["preinst", "postinst", "prerm", "postrm", "config"].contains(&e.to_str().unwrap_or("")))
}

/// Shell scripts below `dir`, up to `depth` directories down, smaller than 4 MiB.
pub fn collect(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        if meta.is_dir() && depth > 0 {
            collect(&path, depth - 1, out);
        } else if meta.is_file()
            && meta.len() < 4 * 1024 * 1024
            && (is_maintainer_script(&path) || is_shell_script(&path))
        {
            out.push(path);
        }
    }
}

/// The machine's shell scripts: /usr/bin, /usr/sbin, /etc (four levels) and the package
/// maintainer scripts, sorted.
pub fn machine_scripts() -> Vec<PathBuf> {
    let mut scripts = Vec::new();
    collect(Path::new("/usr/bin"), 0, &mut scripts);
    collect(Path::new("/usr/sbin"), 0, &mut scripts);
    collect(Path::new("/etc"), 4, &mut scripts);
    collect(Path::new("/var/lib/dpkg/info"), 0, &mut scripts);
    scripts.sort();
    scripts.dedup();
    scripts
}

/// The variable that adds this machine's own scripts to the tests that scan real scripts (an
/// opt-in: what a machine has changes from one machine to the next).
pub const HOST_VAR: &str = "SANDBOX_BASH_HOST_SCRIPTS";

/// The shell code checked in under `tests/corpus` (each item with its licence): the same text
/// on every machine.
pub fn corpus_scripts() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
            if meta.is_dir() && path.file_name().is_some_and(|n| n != "snapshots") {
                walk(&path, out);
            } else if meta.is_file() {
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if name.ends_with(".sh") || name.ends_with(".bash") || name == "configure" || is_shell_script(&path) {
                    out.push(path);
                }
            }
        }
    }
    let mut scripts = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus"), &mut scripts);
    scripts.sort();
    scripts
}

/// The scripts the scanning tests read: the corpus, and this machine's scripts too when
/// `SANDBOX_BASH_HOST_SCRIPTS=1`.
pub fn scanned_scripts() -> Vec<PathBuf> {
    let mut scripts = corpus_scripts();
    if std::env::var_os(HOST_VAR).is_some_and(|v| v == "1") {
        scripts.extend(machine_scripts());
    }
    scripts
}
