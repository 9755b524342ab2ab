//! Invocations nest: twenty levels of `sandbox-bash -c 'sandbox-bash -c …'` work, and an inner
//! invocation cannot widen what the outer one allowed by setting the mode.

use std::process::Command;

const SANDBOX: &str = env!("CARGO_BIN_EXE_sandbox-bash");

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn run(mode: &str, program: &str) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let bin = std::path::Path::new(SANDBOX).parent().unwrap();
    Command::new(SANDBOX)
        .args(["-c", program])
        .current_dir(dir.path())
        .env("BASH_AGENT_BASH_MODE", mode)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .output()
        .unwrap()
}

/// Runs `sandbox-bash -c "$L1"` where each `L<i>` is `sandbox-bash -c "$L<i+1>"` and the
/// last is `last`: twenty real levels of `sandbox-bash -c`, each analysing the rest.
fn chain(mode: &str, levels: usize, last: &str) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let bin = std::path::Path::new(SANDBOX).parent().unwrap();
    let mut cmd = Command::new(SANDBOX);
    cmd.args(["-c", "sandbox-bash -c \"$L1\""])
        .current_dir(dir.path())
        .env("BASH_AGENT_BASH_MODE", mode)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()));
    for i in 1..levels {
        cmd.env(format!("L{i}"), format!("echo level {i}; sandbox-bash -c \"$L{}\"", i + 1));
    }
    cmd.env(format!("L{levels}"), last);
    cmd.output().unwrap()
}

#[test]
fn twenty_levels_deep_work() {
    let out = chain("0467", 20, "echo deepest");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let expected: String = (1..20).map(|i| format!("level {i}\n")).collect::<String>() + "deepest\n";
    assert_eq!(stdout, expected);
    // A denial twenty levels down is seen from the top, before anything runs.
    let out = chain("0467", 20, "cat /etc/shadow");
    assert_eq!(out.status.code(), Some(126));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("sandbox-bash: denied:") && stderr.contains("/etc/shadow"), "{stderr}");
    // Literal nesting, quoted level by level.
    let mut program = "echo literal".to_string();
    for _ in 0..6 {
        program = format!("sandbox-bash -c {}", quote(&program));
    }
    let out = run("0467", &program);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "literal\n", "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn an_inner_invocation_cannot_widen_the_mode() {
    // Positive control: narrowing is allowed.
    let out = run("0467", "BASH_AGENT_BASH_MODE=0444 sandbox-bash -c 'echo narrowed'");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "narrowed\n");
    for program in [
        "BASH_AGENT_BASH_MODE=7777 sandbox-bash -c 'cat /etc/hostname'",
        "BASH_AGENT_BASH_MODE=7777 sandbox-bash -c \"$(printf 'cat /etc/host%s' name)\"",
        "export BASH_AGENT_BASH_MODE=full; sandbox-bash -c \"$(printf 'cat /etc/host%s' name)\"",
        "env BASH_AGENT_BASH_MODE=4467 sandbox-bash -c \"$(printf 'cat /etc/host%s' name)\"",
    ] {
        let out = run("0467", program);
        assert_eq!(out.status.code(), Some(126), "{program}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("sandbox-bash: denied:"), "{program}: {stderr}");
        assert!(out.stdout.is_empty(), "{program}: something ran");
    }
}

#[test]
fn sandbox_bash_run_through_a_link_by_its_path_is_sandbox_bash() {
    // A link named bash, as users put one first on PATH, run by path from a program: it is
    // this program again, whose own analysis decides, not a program of the external scope.
    let links = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let link = links.path().join("bash");
    std::os::unix::fs::symlink(SANDBOX, &link).unwrap();
    let l = link.display();
    let out = run("0467", &format!("{l} -c 'echo inner'"));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "inner\n", "{}", String::from_utf8_lossy(&out.stderr));
    let out = run("0467", &format!("{l} -c 'cat /etc/shadow'"));
    assert_eq!(out.status.code(), Some(126));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing system read (4000): cat needs it for /etc/shadow"));
}

/// The audit log's records of programs (not the watch's records of refused calls).
#[cfg(target_os = "linux")]
fn records(log: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &serde_json::Value| r.get("program").is_some())
        .collect()
}

/// What a nested level's probe did: reading the home's key, writing outside the workspace and
/// in it (python, which the analysis does not see into: only the kernel stands in the way).
#[cfg(target_os = "linux")]
fn probe(lab: &crate::lab::Lab, made: &str) -> String {
    let code = format!(
        "import sys\nfor path, how in (({key:?}, 'r'), ({outside:?}, 'a'), ({made:?}, 'w')):\n    try:\n        open(path, how).close()\n        print('done', path)\n    except OSError as e:\n        print('refused', path, e.errno)\n",
        key = lab.home.join(".ssh/id_ed25519").display().to_string(),
        outside = lab.outside.join("file.txt").display().to_string(),
        made = lab.ws.join(made).display().to_string(),
    );
    let file = lab.ws.join(format!("{made}.py"));
    std::fs::write(&file, code).unwrap();
    format!("python3 {}", file.display())
}

/// A nested level whose inputs are its run's (the same mode, workspace, home, configuration and
/// programs) adds no Landlock layer: the run's hold it, and its record says so. The boundary is
/// the same: the home's key and the tree outside the workspace stay out of reach, the workspace
/// is written. A level that narrows the mode locks itself as ever: the workspace it may not
/// write is refused by its own layer, nothing made.
#[cfg(target_os = "linux")]
#[test]
fn a_nested_level_that_does_not_narrow_is_held_by_its_runs_layers_and_one_that_narrows_locks() {
    let lab = crate::lab::Lab::new();
    let log = lab.outside.join("audit.jsonl");
    let sb = crate::lab::SB;
    let (same, narrower) = (probe(&lab, "same"), probe(&lab, "narrower"));
    let program = format!("{sb} -c '{same}'; BASH_AGENT_BASH_MODE=0465 {sb} -c '{narrower}'");
    // The first start in a new home makes sandbox-bash's state directory there (which the run's
    // inputs did not see yet, and a nested level's would): a home that has one already.
    assert!(lab.run("0467", "true").status.success());
    let out = lab.command("0467", &program).env("SANDBOX_BASH_AUDIT_LOG", &log).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let key = lab.home.join(".ssh/id_ed25519");
    let outside = lab.outside.join("file.txt");
    // Both levels: the key masked, the tree outside read-only (or refused by Landlock).
    assert_eq!(stdout.matches(&format!("refused {} 13\n", key.display())).count(), 2, "{stdout}");
    assert_eq!(stdout.matches(&format!("refused {} ", outside.display())).count(), 2, "{stdout}");
    assert!(stdout.contains(&format!("done {}", lab.ws.join("same").display())), "{stdout}");
    assert!(stdout.contains(&format!("refused {} 13", lab.ws.join("narrower").display())), "{stdout}");
    assert!(!lab.ws.join("narrower").exists());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside data\n");
    let records = records(&log);
    let by = |program: &str| {
        records
            .iter()
            .find(|r| r["program"].as_str().is_some_and(|p| p.starts_with(program)))
            .unwrap_or_else(|| panic!("no record of {program}: {records:#?}"))
    };
    assert_eq!(by(&same)["enforcement"], "run layers", "{records:#?}");
    assert_eq!(by(&narrower)["enforcement"], "enforced", "{records:#?}");
    assert_eq!(by(&format!("{sb} -c"))["enforcement"], "enforced", "{records:#?}");
}

/// Under a network allowlist, a nested level with its run's inputs is held by the run's layers
/// too: its own rules would hold no list (a nested level cannot make a network namespace), the
/// run's namespace and proxy do. A connection past the proxy stays impossible from it.
#[cfg(target_os = "linux")]
#[test]
fn under_an_allowlist_a_nested_level_is_held_by_the_runs_namespace() {
    let lab = crate::lab::Lab::new();
    let log = lab.outside.join("audit.jsonl");
    let sb = crate::lab::SB;
    let code = "import socket\ns = socket.socket()\ns.settimeout(3)\ntry:\n    s.connect(('192.0.2.1', 80))\n    print('connected')\nexcept OSError as e:\n    print('no way out', e.errno)\n";
    std::fs::write(lab.ws.join("connect.py"), code).unwrap();
    assert!(lab.run("0467", "true").status.success());
    let program = format!("{sb} -c 'python3 {}'", lab.ws.join("connect.py").display());
    let out = lab
        .command("0467", &program)
        .env("SANDBOX_BASH_NETWORK_ALLOW", "127.0.0.2")
        .env("SANDBOX_BASH_AUDIT_LOG", &log)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    // ENETUNREACH: the run's namespace has nothing but loopback.
    assert!(stdout.contains("no way out 101"), "{stdout}");
    let records = records(&log);
    let nested = records.iter().find(|r| r["nested"] == true).expect("the nested level's record");
    assert_eq!(nested["enforcement"], "run layers", "{records:#?}");
}
