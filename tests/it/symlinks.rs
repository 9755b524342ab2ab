//! A link planted in the workspace leads the analysis where it leads the kernel: a read
//! through it needs the bits of its target. Only files this test creates are used: a canary
//! "secret" outside the workspace, and links to it.

use std::path::Path;
use std::process::Command;

const SANDBOX: &str = env!("CARGO_BIN_EXE_sandbox-bash");

fn explain(work: &Path, home: &Path, program: &str) -> serde_json::Value {
    let out = Command::new(SANDBOX)
        .args(["--sandbox-explain", "--sandbox-json", "-c", program])
        .current_dir(work)
        .env_clear()
        .env("HOME", home)
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn planted_links_are_followed() {
    // Outside /tmp (scratch): the canary's directory must be an ordinary place.
    let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let work = root.path().join("work");
    let home = root.path().join("home");
    std::fs::create_dir_all(work.join(".git")).unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    let canary = home.join(".ssh/id_canary");
    std::fs::write(&canary, "canary").unwrap();
    std::fs::write(work.join("plain.txt"), "plain").unwrap();
    std::os::unix::fs::symlink(&canary, work.join("notes.txt")).unwrap();
    std::os::unix::fs::symlink(home.join(".ssh"), work.join("keys")).unwrap();

    // Positive control: a plain workspace file needs workspace read only.
    let plain = explain(&work, &home, "cat plain.txt");
    assert_eq!(plain["required"], "0004", "{plain:#}");
    assert_eq!(plain["verdict"], "allow");

    for program in ["cat notes.txt", "cat keys/id_canary", "cp notes.txt /tmp/x", "head -c1 ./keys/../keys/id_canary"] {
        let v = explain(&work, &home, program);
        assert_eq!(v["verdict"], "deny", "{program}: {v:#}");
        let required = u16::from_str_radix(v["required"].as_str().unwrap(), 8).unwrap();
        assert_eq!(required & 0o4000, 0o4000, "{program}: a credential read is system read: {v:#}");
        let reasons: Vec<&str> =
            v["accesses"].as_array().unwrap().iter().filter_map(|a| a["reason"].as_str()).collect();
        assert!(reasons.iter().any(|r| r.contains("through a link")), "{program}: {reasons:?}");
    }
    // The canary is unchanged (nothing ran).
    assert_eq!(std::fs::read_to_string(&canary).unwrap(), "canary");
}
