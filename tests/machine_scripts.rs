//! Every shell script on this machine that `bash -n` accepts (in /usr/bin, /usr/sbin, /etc and
//! /var/lib/dpkg/info) is analysed or cleanly denied; none makes the analysis panic.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use sandbox_bash::analysis::{self, TextKind};

fn is_shell_script(path: &Path) -> bool {
    let Ok(mut f) = std::fs::File::open(path) else { return false };
    let mut head = [0u8; 128];
    let n = std::io::Read::read(&mut f, &mut head).unwrap_or(0);
    let first = head[..n].split(|&b| b == b'\n').next().unwrap_or(&[]);
    let line = String::from_utf8_lossy(first);
    if !line.starts_with("#!") {
        return false;
    }
    let words: Vec<&str> = line[2..].split_whitespace().collect();
    let interp = words.first().map(|w| w.rsplit('/').next().unwrap_or(w)).unwrap_or("");
    let interp = if interp == "env" { words.get(1).copied().unwrap_or("") } else { interp };
    matches!(interp, "sh" | "bash" | "dash")
}

fn collect(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        if meta.is_dir() && depth > 0 {
            collect(&path, depth - 1, out);
        } else if meta.is_file() && meta.len() < 4 * 1024 * 1024 {
            let dpkg = path.starts_with("/var/lib/dpkg/info")
                && path.extension().is_some_and(|e| {
                    ["preinst", "postinst", "prerm", "postrm", "config"].contains(&e.to_str().unwrap_or(""))
                });
            if dpkg || is_shell_script(&path) {
                out.push(path);
            }
        }
    }
}

#[test]
fn every_script_on_the_machine_is_analysed_or_cleanly_denied() {
    let mut scripts = Vec::new();
    collect(Path::new("/usr/bin"), 0, &mut scripts);
    collect(Path::new("/usr/sbin"), 0, &mut scripts);
    collect(Path::new("/etc"), 4, &mut scripts);
    collect(Path::new("/var/lib/dpkg/info"), 0, &mut scripts);
    scripts.sort();
    scripts.dedup();
    assert!(!scripts.is_empty(), "no shell scripts found on this machine");
    let ctx = common::table_context();
    let (mut accepted, mut analysed, mut denied) = (0, 0, 0);
    let mut reasons: std::collections::BTreeMap<String, usize> = Default::default();
    for path in &scripts {
        let ok = Command::new("bash").arg("-n").arg(path).output().is_ok_and(|o| o.status.success());
        if !ok {
            continue;
        }
        accepted += 1;
        let text = std::fs::read(path).unwrap();
        let a = analysis::analyze(&text, TextKind::Script, &ctx);
        match &a.failure {
            Some(f) => {
                assert!(!f.message.contains("stopped unexpectedly"), "{}: the analysis panicked", path.display());
                denied += 1;
                let key: String = f.message.chars().take(60).collect();
                *reasons.entry(key).or_default() += 1;
                if std::env::var_os("SANDBOX_SHOW_DENIED").is_some() {
                    println!("denied {}: {f}", path.display());
                }
            }
            None => analysed += 1,
        }
    }
    println!(
        "{} shell scripts found, {accepted} accepted by bash -n: {analysed} analysed, {denied} cleanly denied, none panicked",
        scripts.len()
    );
    for (reason, count) in reasons {
        println!("  {count:5}  {reason}");
    }
    assert_eq!(accepted, analysed + denied);
}
