//! Failing closed, the degraded opt-in, Landlock's layer limit, and `--sandbox-info`.
//!
//! An older kernel is pretended with `SANDBOX_BASH_TEST_LANDLOCK_ABI`, which only debug
//! builds (the ones tests run) honour.
#![cfg(target_os = "linux")]

use crate::lab;

use std::ffi::OsStr;

use lab::{Lab, ok, py, read, text};

const PRETEND: &str = "SANDBOX_BASH_TEST_LANDLOCK_ABI";

#[track_caller]
fn refused(out: &std::process::Output, words: &[&str]) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(125), "stderr: {err}");
    assert!(err.starts_with("sandbox-bash: error:"), "{err}");
    for w in words {
        assert!(err.contains(w), "{w:?} missing from: {err}");
    }
}

#[test]
fn no_landlock_means_nothing_runs() {
    let lab = Lab::new();
    let out = lab.command("0467", "echo ran > ran.txt").env(PRETEND, "0").output().unwrap();
    refused(&out, &["cannot enforce mode 0467", "Landlock", "SANDBOX_BASH_ALLOW_DEGRADED=1"]);
    assert!(!lab.ws.join("ran.txt").exists());
    // Positive control: the same command on the real kernel.
    ok(&lab.run("0467", "echo ran > ran.txt"));
    assert_eq!(read(&lab.ws.join("ran.txt")), "ran\n");
}

#[test]
fn an_abi_without_a_needed_right_refuses() {
    let lab = Lab::new();
    // Network off needs Landlock's TCP rules (ABI 4).
    let out = lab.command("0407", "echo ran > ran.txt").env(PRETEND, "3").output().unwrap();
    refused(&out, &["TCP bind and connect rules", "ABI 3, 4 is needed"]);
    assert!(!lab.ws.join("ran.txt").exists());
    // Any mode that withholds a write needs the truncate right (ABI 3).
    let out = lab.command("0467", "echo ran > ran.txt").env(PRETEND, "2").output().unwrap();
    refused(&out, &["truncate right"]);
    assert!(!lab.ws.join("ran.txt").exists());
    // Positive control: ABI 4 is enough for network off.
    ok(&lab.command("0407", "echo ran > ran.txt").env(PRETEND, "4").output().unwrap());
    assert!(lab.ws.join("ran.txt").exists());
}

/// A process out of descriptors cannot open a rule's path: that must stop it, never skip the
/// rule (which would deny what the mode allows without a word).
#[test]
fn out_of_descriptors_refuses_instead_of_skipping_rules() {
    let lab = Lab::new();
    let limited = |n: u32| {
        let script = format!("ulimit -n {n} && exec \"$@\"");
        let wrapper = [OsStr::new("bash"), OsStr::new("-c"), OsStr::new(&script), OsStr::new("limit")];
        lab.wrapped(&wrapper, None, "0467", "cat file.txt > copy.txt").output().unwrap()
    };
    // Four and five: the standard three, the ruleset and the second descriptor of it the rules
    // are added through, none left for a rule.
    for n in [4, 5] {
        let out = limited(n);
        refused(&out, &["cannot apply the kernel sandbox", "to add its rule", "ulimit -n"]);
        assert!(!lab.ws.join("copy.txt").exists());
    }
    // Six: a rule's descriptor is closed before the next (and the second descriptor of the
    // ruleset once they are in), but the namespace layer holds a copy of each writable tree (the
    // workspace, /tmp, the repository's .git) while it makes the rest read-only.
    std::fs::create_dir(lab.ws.join(".git")).unwrap();
    let out = limited(6);
    refused(&out, &["cannot apply the kernel sandbox", "cannot copy the mount tree", "ulimit -n"]);
    assert!(!lab.ws.join("copy.txt").exists());
    // Positive control: enough for the trees the view holds at once (the repository's too) and
    // the masks' small file system, made while it holds them (the sessions directory is masked
    // in every run).
    ok(&limited(16));
    assert_eq!(read(&lab.ws.join("copy.txt")), "workspace data\n");
}

#[test]
fn the_degraded_opt_in_runs_and_says_so_every_time() {
    let lab = Lab::new();
    for _ in 0..2 {
        let out = lab
            .command("0467", &py("print(open('/proc/self/status').read())"))
            .env(PRETEND, "0")
            .env("SANDBOX_BASH_ALLOW_DEGRADED", "1")
            .output()
            .unwrap();
        let err = text(&out.stderr);
        assert!(err.starts_with("sandbox-bash: warning: running degraded"), "{err}");
        assert!(err.contains("Landlock"), "{err}");
        let status = ok(&out);
        // What can still be enforced is.
        assert!(status.contains("NoNewPrivs:\t1") && status.contains("Seccomp:\t2"), "{status}");
    }
    let out = lab.command("0467", "true").env("SANDBOX_BASH_ALLOW_DEGRADED", "yes").output().unwrap();
    refused(&out, &["SANDBOX_BASH_ALLOW_DEGRADED", "\"yes\""]);
}

#[test]
fn at_the_layer_limit_an_inner_invocation_may_only_ask_for_less() {
    let lab = Lab::new();
    // Seventeen levels: the sixteen outer ones fill Landlock's layers.
    let launch = |mode: &str| {
        py(&format!(
            "import os, subprocess, sys\n\
             os.environ['BASH_AGENT_BASH_MODE'] = '{mode}'\n\
             r = subprocess.run(['{}', '-c', 'echo inner ran'], capture_output=True, text=True)\n\
             print(r.stdout + r.stderr, end=''); sys.exit(r.returncode)",
            lab::SB
        ))
    };
    // Each level narrows its run's mode, so each adds a layer of its own (one with its run's
    // inputs would add none).
    let step = |last: &str| {
        format!(
            "if [ \"$1\" -lt 16 ]; then BASH_AGENT_BASH_MODE=0447 {} -c \"$NEST\" level $(( $1 + 1 )); else {last}; fi",
            lab::SB
        )
    };
    for (mode, expect_ok) in [("0447", true), ("4467", false)] {
        let nest = step(&launch(mode));
        let out =
            lab.command("0467", &format!("{} -c \"$NEST\" level 1", lab::SB)).env("NEST", &nest).output().unwrap();
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        if expect_ok {
            assert!(all.contains("inner ran"), "{mode}: {all}");
        } else {
            assert!(!all.contains("inner ran"), "{mode}: {all}");
            assert!(all.contains("sandbox-bash: error:") && all.contains("limit is 16 layers"), "{mode}: {all}");
        }
    }
}

#[test]
fn sandbox_info_states_what_is_enforced() {
    let lab = Lab::new();
    let info = std::process::Command::new(lab::SB)
        .args(["--sandbox-info", "--sandbox-json"])
        .current_dir(&lab.ws)
        .env("SANDBOX_BASH_WORKSPACE", &lab.ws)
        .env("BASH_AGENT_BASH_MODE", "0407")
        .env_remove("SANDBOX_BASH_ENFORCED")
        .output()
        .unwrap();
    assert_eq!(info.status.code(), Some(0), "{}", text(&info.stderr));
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["backend"], "landlock+seccomp");
    assert_eq!(v["status"], "enforced");
    assert_eq!(v["allowed"], "0407");
    assert_eq!(v["landlock_abi"].as_i64(), Some(i64::from(lab::require_landlock())));
    assert_eq!(v["workspace"], lab.ws.to_string_lossy().as_ref());
    let areas: Vec<&str> = v["areas"].as_array().unwrap().iter().map(|a| a["area"].as_str().unwrap()).collect();
    assert_eq!(areas, ["filesystem", "network", "credentials", "process and devices", "resource limits"]);
    let network = &v["areas"][1];
    assert!(network["kernel"].to_string().contains("only unix sockets"), "{network}");
    let rules = v["rules"].as_array().unwrap();
    assert!(rules.iter().any(|r| r["path"] == lab.ws.to_string_lossy().as_ref() && r["rights"] == "rwx"));

    // Text form, and an invalid mode is an error here too.
    let text_out = std::process::Command::new(lab::SB).arg("--sandbox-info").current_dir(&lab.ws).output().unwrap();
    let t = text(&text_out.stdout);
    assert!(t.contains("backend:   landlock+seccomp") && t.contains("status:    enforced"), "{t}");
    let bad =
        std::process::Command::new(lab::SB).arg("--sandbox-info").env("BASH_AGENT_BASH_MODE", "999").output().unwrap();
    assert_eq!(bad.status.code(), Some(125));
    // A kernel without Landlock: the declaration says commands are refused.
    let none = std::process::Command::new(lab::SB)
        .args(["--sandbox-info", "--sandbox-json"])
        .current_dir(&lab.ws)
        .env(PRETEND, "0")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&none.stdout).unwrap();
    assert_eq!(v["status"], "refused");
}
