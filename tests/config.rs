//! Configuration files through the binary: the ceiling, the default mode, extra credentials,
//! the keep-list, errors that name file, line and column, and --sandbox-info listing the files.
//! "The system file" is a file of the test's own (a switch only debug builds have).
#![cfg(target_os = "linux")]

#[path = "common/lab.rs"]
mod lab;

use lab::{Lab, kernel_refused, ok, py, read, text};

const SYSTEM: &str = "SANDBOX_BASH_TEST_SYSTEM_CONFIG";

fn write(lab: &Lab, name: &str, body: &str) -> std::path::PathBuf {
    let p = lab.outside.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

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
