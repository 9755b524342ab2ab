//! Every shell script on this machine that `bash -n` accepts (in /usr/bin, /usr/sbin, /etc and
//! /var/lib/dpkg/info) is analysed or cleanly denied; none makes the analysis panic.

mod common;

use std::process::Command;

use sandbox_bash::analysis::{self, TextKind};

#[test]
fn every_script_on_the_machine_is_analysed_or_cleanly_denied() {
    let scripts = common::scripts::machine_scripts();
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
                assert!(f.message != sandbox_bash::analysis::STOPPED, "{}: the analysis panicked", path.display());
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
