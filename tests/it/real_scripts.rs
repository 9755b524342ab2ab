//! Every real script that `bash -n` accepts is analysed: the shell code checked in under
//! `tests/corpus`, and with `SANDBOX_BASH_HOST_SCRIPTS=1` this machine's own scripts too
//! (/usr/bin, /usr/sbin, /etc, /var/lib/dpkg/info). Valid bash is never refused, except for the
//! fixed bounds (size, depth, nested code), and nothing makes the analysis panic.

use std::process::Command;

use crate::common;
use sandbox_bash::analysis::{self, TextKind};

/// The failures valid bash may get: the analysis's fixed bounds.
const BOUNDS: &[&str] = &["too large", "nests more than", "subscripts", "more nested code than", "seconds"];

#[test]
fn every_real_script_bash_accepts_is_analysed() {
    let scripts = common::scripts::scanned_scripts();
    assert!(scripts.len() > 50, "only {} scripts found under tests/corpus", scripts.len());
    let ctx = common::table_context();
    let (mut accepted, mut bounded) = (0, 0);
    let mut refused = Vec::new();
    for path in &scripts {
        let ok = Command::new("bash").arg("-n").arg(path).output().is_ok_and(|o| o.status.success());
        if !ok {
            continue;
        }
        accepted += 1;
        let text = std::fs::read(path).unwrap();
        let a = analysis::analyze(&text, TextKind::Script, &ctx);
        if let Some(f) = &a.failure {
            assert!(f.message != sandbox_bash::analysis::STOPPED, "{}: the analysis panicked", path.display());
            if BOUNDS.iter().any(|b| f.message.contains(b)) {
                bounded += 1;
            } else {
                refused.push(format!("{}: {f}", path.display()));
            }
        }
    }
    println!("{} scripts, {accepted} accepted by bash -n, {bounded} beyond a bound", scripts.len());
    assert!(accepted > 50, "only {accepted} scripts bash accepts");
    assert!(refused.is_empty(), "valid bash refused:\n{}", refused.join("\n"));
}
