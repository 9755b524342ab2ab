//! Configuration files through the binary: the ceiling, the default mode, extra credentials,
//! the keep-list, errors that name file, line and column, and --sandbox-info listing the files.
//! "The system file" is a file of the test's own (a switch only debug builds have).
#![cfg(target_os = "linux")]

use crate::lab;

use lab::{Lab, kernel_refused, ok, py, read, text};

const SYSTEM: &str = "SANDBOX_BASH_TEST_SYSTEM_CONFIG";

/// A file of the caller's, writable by the caller alone (whatever the umask), in a directory of
/// the same kind: one that configuration may come from.
fn write(lab: &Lab, name: &str, body: &str) -> std::path::PathBuf {
    let p = lab.outside.join(name);
    std::fs::write(&p, body).unwrap();
    chmod(&p, 0o644);
    chmod(&lab.outside, 0o755);
    p
}

/// A group the caller shares with others: Debian's `users`.
const SHARED_GID: u32 = 100;

#[test]
fn the_ceiling_cuts_what_is_asked_and_the_denial_says_so() {
    let lab = Lab::new();
    let system = write(&lab, "system.toml", "max_mode = \"0445\"\n");
    let out = lab.command("0467", "echo x > new.txt").env(SYSTEM, &system).output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{err}");
    assert!(err.contains("allowed=0445"), "{err}");
    assert!(err.contains("ceiling max_mode=0445") && err.contains("removed 0002"), "{err}");
    assert!(!lab.ws.join("new.txt").exists());
    // The kernel holds the ceiling too, for what the static layer cannot see.
    kernel_refused(
        &lab.command("0467", &py("open('new.txt', 'w').write('x')")).env(SYSTEM, &system).output().unwrap(),
        &[],
    );
    assert!(!lab.ws.join("new.txt").exists());
    // Positive control: without the ceiling the same write runs.
    ok(&lab.run("0467", "echo x > new.txt"));
    assert_eq!(read(&lab.ws.join("new.txt")), "x\n");
    // Only the system file may set it.
    let user = write(&lab, "user.toml", "max_mode = \"7777\"\n");
    let out = lab.command("0467", "true").env("SANDBOX_BASH_CONFIG", &user).output().unwrap();
    assert_eq!(out.status.code(), Some(125));
    assert!(text(&out.stderr).contains("only the system file"));
}

#[test]
fn the_default_mode_and_extra_credentials_come_from_the_file() {
    let lab = Lab::new();
    let secrets = lab.outside.join("vault");
    std::fs::create_dir_all(&secrets).unwrap();
    std::fs::write(secrets.join("db.txt"), "VAULT CANARY\n").unwrap();
    let user = write(
        &lab,
        "user.toml",
        &format!("default_mode = \"0465\"\n[paths]\ncredentials = [\"{}\"]\n", secrets.display()),
    );
    // The default mode: no workspace write.
    let mut c = lab.command("0467", "echo x > f.txt");
    c.env_remove("BASH_AGENT_BASH_MODE").env("SANDBOX_BASH_CONFIG", &user);
    let out = c.output().unwrap();
    assert!(text(&out.stderr).contains("allowed=0465"), "{}", text(&out.stderr));
    // The extra credential: denied statically by name, and by the kernel through Python.
    let cat = lab
        .command("0467", &format!("cat {}", secrets.join("db.txt").display()))
        .env("SANDBOX_BASH_CONFIG", &user)
        .output()
        .unwrap();
    assert!(text(&cat.stderr).contains("sandbox-bash: denied:") && text(&cat.stderr).contains("credential"));
    let reader = py(&format!("print(open('{}').read())", secrets.join("db.txt").display()));
    let out = lab.command("0467", &reader).env("SANDBOX_BASH_CONFIG", &user).output().unwrap();
    kernel_refused(&out, &[]);
    assert!(!text(&out.stdout).contains("CANARY"));
    // Positive control: without the file it is an ordinary external file.
    assert!(ok(&lab.run("0467", &reader)).contains("VAULT CANARY"));
}

#[test]
fn the_keep_list_lets_a_named_secret_through() {
    let lab = Lab::new();
    let user = write(&lab, "user.toml", "[environment]\nkeep = [\"GITHUB_TOKEN\"]\n");
    let out = lab
        .command("0467", "echo \"gh=$GITHUB_TOKEN npm=$NPM_TOKEN\"")
        .env("SANDBOX_BASH_CONFIG", &user)
        .env("GITHUB_TOKEN", "kept-value")
        .env("NPM_TOKEN", "removed-value")
        .output()
        .unwrap();
    assert_eq!(ok(&out), "gh=kept-value npm=\n");
}

#[test]
fn mistakes_stop_everything_and_name_the_place() {
    let lab = Lab::new();
    let user = write(&lab, "user.toml", "default_mode = \"0467\"\n[paths]\ncredentail = [\"/x\"]\n");
    let out = lab.command("0467", "echo ran > ran.txt").env("SANDBOX_BASH_CONFIG", &user).output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(125), "{err}");
    assert!(
        err.starts_with("sandbox-bash: error:") && err.contains(&format!("{} at line 3:1", user.display())),
        "{err}"
    );
    assert!(!lab.ws.join("ran.txt").exists());
    // A named file that does not exist is an error too.
    let out =
        lab.command("0467", "true").env("SANDBOX_BASH_CONFIG", lab.outside.join("missing.toml")).output().unwrap();
    assert_eq!(out.status.code(), Some(125));
}

#[test]
fn sandbox_info_lists_the_files_read() {
    let lab = Lab::new();
    let system = write(&lab, "system.toml", "max_mode = \"0467\"\n");
    let user = write(&lab, "user.toml", "default_mode = \"0444\"\n");
    let out = std::process::Command::new(lab::SB)
        .args(["--sandbox-info", "--sandbox-json"])
        .current_dir(&lab.ws)
        .env(SYSTEM, &system)
        .env("SANDBOX_BASH_CONFIG", &user)
        .env_remove("BASH_AGENT_BASH_MODE")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files: Vec<&str> = v["config_files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert_eq!(files, [system.to_str().unwrap(), user.to_str().unwrap()]);
    assert_eq!(v["ceiling"], "0467");
    assert_eq!(v["allowed"], "0444");
}

#[test]
fn the_example_configuration_is_valid() {
    let lab = Lab::new();
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/packaging/config.example.toml");
    let out = std::process::Command::new(lab::SB)
        .args(["--sandbox-info", "--sandbox-json"])
        .current_dir(&lab.ws)
        .env("SANDBOX_BASH_CONFIG", example)
        // The repository's own workspace would hold the example: a workspace of its own.
        .env("SANDBOX_BASH_WORKSPACE", &lab.ws)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["config_files"][0], example);
}

#[test]
fn nested_invocations_can_read_the_configuration_again() {
    let lab = Lab::new();
    // The user's file in its usual place (the lab's home), and a mode without external read:
    // only the rule for the file itself lets the inner invocation read it.
    let dir = lab.home.join(".config/sandbox-bash");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), "default_mode = \"0007\"\n").unwrap();
    let out = lab.run("0007", &format!("{} -c 'echo inner ran'", lab::SB));
    assert_eq!(ok(&out), "inner ran\n");
}

/// Runs `echo ran > ran.txt` with `config` as the user's file; returns the status and stderr,
/// and whether the command ran.
fn with_user_file(
    lab: &Lab,
    config: &std::path::Path,
    extra_env: &[(&str, &std::path::Path)],
) -> (Option<i32>, String) {
    let _ = std::fs::remove_file(lab.ws.join("ran.txt"));
    let mut c = lab.command("0467", "echo ran > ran.txt");
    c.env("SANDBOX_BASH_CONFIG", config);
    for (k, v) in extra_env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    let err = text(&out.stderr);
    if out.status.code() == Some(0) {
        assert_eq!(read(&lab.ws.join("ran.txt")), "ran\n", "{err}");
    } else {
        assert!(!lab.ws.join("ran.txt").exists(), "the command ran although the file was refused: {err}");
    }
    (out.status.code(), err)
}

#[track_caller]
fn refused(result: (Option<i32>, String), reasons: &[&str]) {
    let (status, err) = result;
    assert_eq!(status, Some(125), "{err}");
    assert!(err.starts_with("sandbox-bash: error:"), "{err}");
    for reason in reasons {
        assert!(err.contains(reason), "the message lacks {reason:?}: {err}");
    }
}

fn chmod(path: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn chown(path: &std::path::Path, uid: u32) {
    std::os::unix::fs::lchown(path, Some(uid), None).unwrap();
}

const GOOD: &str = "default_mode = \"0467\"\n";

#[test]
fn a_file_others_can_write_or_own_is_not_read() {
    let lab = Lab::new();
    // Positive control: the caller's own file, writable by the caller alone, is read.
    let good = write(&lab, "good.toml", GOOD);
    chmod(&good, 0o644);
    assert_eq!(with_user_file(&lab, &good, &[]), (Some(0), String::new()));

    for (mode, writers) in
        [(0o664, "its group (mode 0664)"), (0o646, "others (mode 0646)"), (0o666, "group and others")]
    {
        let f = write(&lab, &format!("mode-{mode:o}.toml"), GOOD);
        chmod(&f, mode);
        // A group others belong to (`users`, no private group of the caller's).
        std::os::unix::fs::chown(&f, None, Some(SHARED_GID)).unwrap();
        refused(with_user_file(&lab, &f, &[]), &[&f.display().to_string(), "writable by", writers, "chmod go-w"]);
    }
    // Positive control: group write for the caller's own private group (umask 002 systems).
    let private = write(&lab, "private-group.toml", GOOD);
    chmod(&private, 0o664);
    assert_eq!(with_user_file(&lab, &private, &[]), (Some(0), String::new()));

    let other = write(&lab, "other.toml", GOOD);
    chmod(&other, 0o644);
    chown(&other, 65534);
    refused(with_user_file(&lab, &other, &[]), &[&other.display().to_string(), "owned by uid 65534"]);

    // The system file is held to the same rules.
    let out = lab.command("0467", "echo ran > ran.txt").env(SYSTEM, &other).output().unwrap();
    assert_eq!(out.status.code(), Some(125), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("owned by uid 65534"), "{}", text(&out.stderr));
    assert!(!lab.ws.join("ran.txt").exists());
}

#[test]
fn a_directory_others_can_write_or_own_is_not_read_from() {
    let lab = Lab::new();
    for (name, setup, reason) in [
        ("world", 0o777u32, "writable by group and others (mode 0777)"),
        ("group", 0o775, "writable by its group (mode 0775)"),
        ("sticky", 0o1777, "(mode 1777)"),
        ("owned", 0o755, "owned by uid 65534"),
    ] {
        let dir = lab.outside.join(name);
        std::fs::create_dir(&dir).unwrap();
        let f = dir.join("config.toml");
        std::fs::write(&f, GOOD).unwrap();
        chmod(&f, 0o644);
        chmod(&dir, setup);
        std::os::unix::fs::chown(&dir, None, Some(SHARED_GID)).unwrap();
        if name == "owned" {
            chown(&dir, 65534);
        }
        refused(
            with_user_file(&lab, &f, &[]),
            &[&format!("the directory {}", dir.display()), &f.display().to_string(), reason],
        );
    }
    // Positive control: the same layout in a directory of the caller's.
    let dir = lab.outside.join("mine");
    std::fs::create_dir(&dir).unwrap();
    chmod(&dir, 0o755);
    std::fs::write(dir.join("config.toml"), GOOD).unwrap();
    assert_eq!(with_user_file(&lab, &dir.join("config.toml"), &[]).0, Some(0));
}

#[test]
fn links_are_judged_by_the_file_they_lead_to() {
    let lab = Lab::new();
    let good = write(&lab, "good.toml", GOOD);
    let foreign = write(&lab, "foreign.toml", GOOD);
    chown(&foreign, 65534);
    // A link of the caller's to a file another user owns: the file decides.
    let to_foreign = lab.outside.join("to-foreign.toml");
    std::os::unix::fs::symlink(&foreign, &to_foreign).unwrap();
    refused(
        with_user_file(&lab, &to_foreign, &[]),
        &[&to_foreign.display().to_string(), &foreign.display().to_string(), "owned by uid 65534"],
    );
    // A link in a directory others can write: they could change where it leads.
    let open_dir = lab.outside.join("open");
    std::fs::create_dir(&open_dir).unwrap();
    chmod(&open_dir, 0o777);
    let in_open = open_dir.join("config.toml");
    std::os::unix::fs::symlink(&good, &in_open).unwrap();
    refused(with_user_file(&lab, &in_open, &[]), &[&open_dir.display().to_string(), "a link to", "(mode 0777)"]);
    // Positive control: a link of the caller's to the caller's file (dotfile managers do this).
    let to_good = lab.outside.join("to-good.toml");
    std::os::unix::fs::symlink(&good, &to_good).unwrap();
    assert_eq!(with_user_file(&lab, &to_good, &[]).0, Some(0));
}

#[test]
fn no_file_is_read_from_a_scratch_tree() {
    let lab = Lab::new();
    // On purpose under /tmp: a directory only the caller can write, and still refused.
    let tmp = tempfile::Builder::new().prefix("sbx-config-").tempdir_in("/tmp").unwrap();
    let f = tmp.path().join("config.toml");
    std::fs::write(&f, GOOD).unwrap();
    refused(with_user_file(&lab, &f, &[]), &[&f.display().to_string(), "lies in /tmp", "scratch tree"]);
    // $TMPDIR is scratch too: every sandboxed command may write there.
    let tmpdir = lab.outside.join("tmpdir");
    std::fs::create_dir(&tmpdir).unwrap();
    let f = tmpdir.join("config.toml");
    std::fs::write(&f, GOOD).unwrap();
    refused(
        with_user_file(&lab, &f, &[("TMPDIR", &tmpdir)]),
        &[&f.display().to_string(), &format!("lies in {}", tmpdir.display())],
    );
    // The user's usual file under XDG_CONFIG_HOME, when that lies in $TMPDIR.
    let dir = tmpdir.join("sandbox-bash");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), GOOD).unwrap();
    let out = lab.command("0467", "true").env("TMPDIR", &tmpdir).env("XDG_CONFIG_HOME", &tmpdir).output().unwrap();
    assert_eq!(out.status.code(), Some(125), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("scratch tree"), "{}", text(&out.stderr));
    // Positive control: the same file with TMPDIR elsewhere is read.
    let out = lab.command("0467", "true").env("XDG_CONFIG_HOME", &tmpdir).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn runtime_paths_that_hold_credentials_are_refused() {
    let lab = Lab::new();
    for entry in ["~", "~/.ssh"] {
        for key in ["runtime_read", "runtime_execute"] {
            let f = write(&lab, "runtime.toml", &format!("[paths]\n{key} = [\"{entry}\"]\n"));
            refused(
                with_user_file(&lab, &f, &[]),
                &[&f.display().to_string(), &format!("paths.{key}"), &lab.home.join(".ssh").display().to_string()],
            );
        }
    }
    // The key stays out of reach, and a runtime path without credentials is granted.
    let tool = lab.outside.join("tool");
    std::fs::create_dir(&tool).unwrap();
    std::fs::write(tool.join("data.txt"), "tool data\n").unwrap();
    let f = write(&lab, "runtime.toml", &format!("[paths]\nruntime_read = [\"{}\"]\n", tool.display()));
    let reader = py(&format!("print(open('{}').read())", tool.join("data.txt").display()));
    let out = lab.command("0007", &reader).env("SANDBOX_BASH_CONFIG", &f).output().unwrap();
    assert!(ok(&out).contains("tool data"));
    // Positive control for that grant: without the file, mode 0007 cannot read it.
    kernel_refused(&lab.run("0007", &reader), &[]);
}

#[test]
fn an_unprivileged_caller_reads_its_own_and_roots_files_only() {
    let lab = Lab::new();
    // The lab's directories must be reachable by the other user.
    chmod(lab.ws.parent().unwrap(), 0o755);
    let dir = lab.outside.join("nobody");
    std::fs::create_dir(&dir).unwrap();
    chown(&dir, 65534);
    let run = |config: &std::path::Path| {
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", lab::SB, "--sandbox-info", "--sandbox-json"]);
        c.current_dir(&lab.ws).env("SANDBOX_BASH_CONFIG", config).env("HOME", &lab.home);
        c.env("SANDBOX_BASH_WORKSPACE", &lab.ws).env_remove("SANDBOX_BASH_ENFORCED").env_remove("TMPDIR");
        c.output().unwrap()
    };
    for (owner, accepted) in [(65534, true), (0, true), (65533, false)] {
        let f = dir.join(format!("owned-by-{owner}.toml"));
        std::fs::write(&f, GOOD).unwrap();
        chown(&f, owner);
        let out = run(&f);
        let err = text(&out.stderr);
        if accepted {
            assert_eq!(out.status.code(), Some(0), "owner {owner}: {err}");
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(v["config_files"][0], f.to_str().unwrap());
        } else {
            assert_eq!(out.status.code(), Some(125), "owner {owner}: {err}");
            assert!(err.contains("owned by uid 65533, neither root nor you (uid 65534)"), "{err}");
        }
    }
}

#[test]
fn a_configuration_file_the_command_could_write_is_not_read() {
    let lab = Lab::new();
    // In the workspace, which the default mode lets commands write: refused.
    let inside = lab.ws.join("sandbox.toml");
    std::fs::write(&inside, GOOD).unwrap();
    chmod(&inside, 0o644);
    refused(with_user_file(&lab, &inside, &[]), &[&inside.display().to_string(), "lies in the workspace"]);
    assert!(!lab.ws.join("ran.txt").exists());
    // Where the mode does not let the workspace be written, it is read.
    let out = lab.command("0445", "true").env("SANDBOX_BASH_CONFIG", &inside).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // A relative name would mean whatever file each start's cwd holds.
    let out = lab.command("0467", "true").env("SANDBOX_BASH_CONFIG", "sandbox.toml").output().unwrap();
    assert_eq!(out.status.code(), Some(125), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("is not an absolute path"), "{}", text(&out.stderr));
}
