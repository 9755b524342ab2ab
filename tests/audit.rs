//! The audit log: one whole JSON line per invocation, even with 200 at once; denials recorded
//! with their reasons; the file reopened for every record; no record, no run.
#![cfg(target_os = "linux")]

#[path = "common/lab.rs"]
mod lab;

use lab::{Lab, read, text};

fn lines(path: &std::path::Path) -> Vec<serde_json::Value> {
    read(path)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not one JSON object: {e}: {l}")))
        .collect()
}

#[test]
fn two_hundred_invocations_at_once_give_two_hundred_whole_records() {
    let lab = Lab::new();
    let log = lab.outside.join("audit.jsonl");
    let children: Vec<_> = (0..200)
        .map(|i| {
            lab.command("0467", &format!("echo run-{i} > /dev/null"))
                .env("SANDBOX_BASH_AUDIT_LOG", &log)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    let records = lines(&log);
    assert_eq!(records.len(), 200);
    let mut programs: Vec<String> = records.iter().map(|r| r["program"].as_str().unwrap().to_string()).collect();
    programs.sort();
    programs.dedup();
    assert_eq!(programs.len(), 200, "every invocation recorded once");
    let r = &records[0];
    for key in [
        "time",
        "version",
        "pid",
        "ppid",
        "uid",
        "cwd",
        "workspace",
        "source",
        "program",
        "allowed",
        "required",
        "verdict",
        "reasons",
        "enforcement",
    ] {
        assert!(!r[key].is_null(), "{key} missing from {r}");
    }
    assert_eq!(r["verdict"], "allow");
    assert_eq!(r["enforcement"], "enforced");
    assert_eq!(r["allowed"], "0467");
}

#[test]
fn denials_are_recorded_with_their_reasons_and_the_file_is_reopened_each_time() {
    let lab = Lab::new();
    let log = lab.outside.join("audit.jsonl");
    let out = lab.command("0467", "cat /etc/shadow").env("SANDBOX_BASH_AUDIT_LOG", &log).output().unwrap();
    assert_eq!(out.status.code(), Some(126));
    let records = lines(&log);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["verdict"], "deny");
    assert_eq!(records[0]["required"], "4000");
    let reason = &records[0]["reasons"][0];
    assert_eq!(
        (reason["scope"].as_str(), reason["perm"].as_str(), reason["target"].as_str()),
        (Some("system"), Some("r"), Some("/etc/shadow"))
    );
    // Rotation: the old file moved away, the next record starts a new one.
    std::fs::rename(&log, lab.outside.join("audit.jsonl.1")).unwrap();
    let out = lab.command("0467", "true").env("SANDBOX_BASH_AUDIT_LOG", &log).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(lines(&log).len(), 1);
    assert_eq!(lines(&lab.outside.join("audit.jsonl.1")).len(), 1);
}

#[test]
fn no_record_no_run() {
    let lab = Lab::new();
    let unwritable = lab.outside.join("no-such-dir/audit.jsonl");
    let out = lab.command("0467", "echo ran > ran.txt").env("SANDBOX_BASH_AUDIT_LOG", &unwritable).output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(125), "{err}");
    assert!(err.starts_with("sandbox-bash: error:") && err.contains("audit log"), "{err}");
    assert!(!lab.ws.join("ran.txt").exists());
    // Positive control: with a writable log it runs.
    let out = lab
        .command("0467", "echo ran > ran.txt")
        .env("SANDBOX_BASH_AUDIT_LOG", lab.outside.join("a.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(lab.ws.join("ran.txt").exists());
}
