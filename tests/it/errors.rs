//! Status 125: sandbox-bash itself cannot run the command safely. Nothing runs, and stderr
//! starts with `sandbox-bash: error:` and says what is wrong.

use std::path::Path;
use std::process::Command;

const SANDBOX: &str = env!("CARGO_BIN_EXE_sandbox-bash");

fn run(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> (i32, String) {
    let mut cmd = Command::new(SANDBOX);
    cmd.args(args).current_dir(dir).env_remove("BASH_AGENT_BASH_MODE").env_remove("SANDBOX_BASH_WORKSPACE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn invalid_modes_are_errors_naming_the_variable_value_and_form() {
    let dir = tempfile::tempdir().unwrap();
    // Positive control: a valid mode runs the program.
    let (status, stderr) = run(dir.path(), &[("BASH_AGENT_BASH_MODE", "0467")], &["-c", "touch ok"]);
    assert_eq!(status, 0, "{stderr}");
    assert!(dir.path().join("ok").exists());
    for bad in ["467", "04670", "0468", "8", " 0467", "0467 ", "", "rwx", "FULL", "0o467"] {
        let (status, stderr) = run(dir.path(), &[("BASH_AGENT_BASH_MODE", bad)], &["-c", "touch ran"]);
        assert_eq!(status, 125, "{bad:?}: {stderr}");
        assert!(stderr.starts_with("sandbox-bash: error: invalid BASH_AGENT_BASH_MODE="), "{bad:?}: {stderr}");
        assert!(stderr.contains(&format!("{bad:?}")), "the value is named: {stderr}");
        assert!(stderr.contains("four octal digits"), "the expected form is named: {stderr}");
        assert!(!dir.path().join("ran").exists(), "{bad:?}: the program ran");
    }
    for preset in ["read-only", "workspace-write", "full"] {
        let (status, stderr) = run(dir.path(), &[("BASH_AGENT_BASH_MODE", preset)], &["-c", "true"]);
        assert_eq!(status, 0, "{preset}: {stderr}");
    }
}

#[test]
fn the_workspace_is_never_the_root_or_a_system_directory() {
    for (cwd, env) in [
        ("/", vec![]),
        ("/usr", vec![]),
        ("/etc", vec![]),
        ("/tmp", vec![("SANDBOX_BASH_WORKSPACE", "/")]),
        ("/tmp", vec![("SANDBOX_BASH_WORKSPACE", "/var")]),
    ] {
        let (status, stderr) = run(Path::new(cwd), &env, &["-c", "true"]);
        assert_eq!(status, 125, "cwd {cwd} {env:?}: {stderr}");
        assert!(stderr.starts_with("sandbox-bash: error: the workspace root"), "{stderr}");
    }
    // A workspace inside a system directory is fine (CI checkouts under /var/lib).
    let (status, stderr) = run(Path::new("/tmp"), &[("SANDBOX_BASH_WORKSPACE", "/var/tmp")], &["-c", "true"]);
    assert_eq!(status, 0, "{stderr}");
}

#[test]
fn a_missing_real_bash_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (status, stderr) = run(dir.path(), &[("SANDBOX_BASH_REAL_BASH", "/nonexistent/bash")], &["-c", "touch ran"]);
    assert_eq!(status, 125, "{stderr}");
    assert!(stderr.starts_with("sandbox-bash: error: SANDBOX_BASH_REAL_BASH=/nonexistent/bash"), "{stderr}");
    let (status, stderr) = run(dir.path(), &[("SANDBOX_BASH_REAL_BASH", SANDBOX)], &["-c", "touch ran"]);
    assert_eq!(status, 125, "{stderr}");
    assert!(stderr.contains("is sandbox-bash itself"), "{stderr}");
    let (status, stderr) = run(dir.path(), &[("SANDBOX_BASH_REAL_BASH", "relative/bash")], &["-c", "touch ran"]);
    assert_eq!(status, 125, "{stderr}");
    assert!(!dir.path().join("ran").exists());
    // The explicit path is used when it is right.
    let bash = ["/bin/bash", "/usr/bin/bash"].into_iter().find(|p| Path::new(p).exists()).unwrap();
    let (status, stderr) = run(dir.path(), &[("SANDBOX_BASH_REAL_BASH", bash)], &["-c", "touch ran"]);
    assert_eq!(status, 0, "{stderr}");
    assert!(dir.path().join("ran").exists());
}

/// A real bash named by the configuration is reported as the configuration's, not the variable's.
#[test]
fn a_real_bash_the_configuration_names_is_reported_as_its_own() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "real_bash = \"/nonexistent/bash\"\n").unwrap();
    let config = config.to_string_lossy().into_owned();
    // The configuration may not lie in the workspace the command writes.
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let env = [("SANDBOX_BASH_CONFIG", config.as_str()), ("SANDBOX_BASH_WORKSPACE", ws.to_str().unwrap())];
    let (status, stderr) = run(&ws, &env, &["-c", "touch ran"]);
    assert_eq!(status, 125, "{stderr}");
    assert!(
        stderr.starts_with("sandbox-bash: error: the configuration's real_bash = \"/nonexistent/bash\": is not"),
        "{stderr}"
    );
    assert!(!ws.join("ran").exists());
}

#[test]
fn own_options_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let (status, stderr) = run(dir.path(), &[], &["--sandbox-nonsense", "-c", "true"]);
    assert_eq!(status, 125, "{stderr}");
    assert!(stderr.starts_with("sandbox-bash: error:"), "{stderr}");
    let (status, stderr) = run(dir.path(), &[], &["--sandbox-json", "-c", "true"]);
    assert_eq!(status, 125, "{stderr}");
    assert!(stderr.contains("<--sandbox-explain|--sandbox-info>"), "{stderr}");
    // One thing to do at a time.
    for pair in [["--sandbox-explain", "--sandbox-info"], ["--sandbox-help", "--sandbox-version"]] {
        let (status, stderr) = run(dir.path(), &[], &[pair[0], pair[1], "-c", "true"]);
        assert_eq!(status, 125, "{stderr}");
        assert!(stderr.contains("cannot be used with"), "{stderr}");
    }
    // After bash's arguments begin, --sandbox-… is bash's ($0 here).
    let out =
        Command::new(SANDBOX).args(["-c", "echo $0", "--sandbox-explain"]).current_dir(dir.path()).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "--sandbox-explain\n");
}
