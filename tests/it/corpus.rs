//! The explanations of the third-party scripts in tests/corpus are stable: each one's verdict,
//! required mode and accesses under the default mode are kept in tests/corpus/snapshots and
//! compared here (paths inside the corpus are written `@C`). `SNAPSHOT_UPDATE=1` rewrites them;
//! a change there is reviewed like code. (tests/corpus/run runs the same code for real, beside
//! real bash.)

use std::path::{Path, PathBuf};
use std::process::Command;

const SANDBOX: &str = env!("CARGO_BIN_EXE_sandbox-bash");

/// Scripts and how bash is started on them (the arguments after the script).
const SCRIPTS: &[(&str, &[&str])] = &[
    ("autoconf-hello/configure", &["--prefix=/opt/hello"]),
    ("autoconf-less/configure", &[]),
    ("configure-zlib/configure", &[]),
    ("bats-core/libexec/bats-core/bats", &["--tap", "test"]),
    ("bats-core/install.sh", &["/opt/bats"]),
    ("pyenv/libexec/pyenv", &["init", "-"]),
    ("nvm/install.sh", &[]),
    ("rustup-init/rustup-init.sh", &["--help"]),
    ("urchin/urchin", &["tests"]),
    ("bash-completion/bash_completion", &[]),
];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn explanation(script: &str, args: &[&str]) -> String {
    let dir = corpus();
    let path = dir.join(script);
    let home = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let out = Command::new(SANDBOX)
        .args(["--sandbox-explain", "--sandbox-json"])
        .arg(&path)
        .args(args)
        .current_dir(path.parent().unwrap())
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home.path())
        .env("BASH_AGENT_BASH_MODE", "0467")
        .env("SANDBOX_BASH_WORKSPACE", &dir)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{script}: no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    let c = dir.display().to_string();
    let h = home.path().display().to_string();
    let norm = |s: &str| s.replace(&c, "@C").replace(&h, "@H");
    let mut lines = vec![
        format!("verdict {}", json["verdict"].as_str().unwrap_or("?")),
        format!("required {}", json["required"].as_str().unwrap_or("?")),
    ];
    if let Some(e) = json["error"].as_str() {
        lines.push(format!("error {}", norm(e)));
    }
    // (Not the workspace read every program needs: one line per command name.)
    let mut accesses: Vec<String> = json["accesses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| !a["reason"].as_str().unwrap_or("").contains("every program needs workspace read"))
        .map(|a| {
            format!(
                "{} {} {} {} {}{}",
                a["certainty"].as_str().unwrap_or("?"),
                a["scope"].as_str().unwrap_or("?"),
                a["perm"].as_str().unwrap_or("?"),
                norm(a["target"].as_str().unwrap_or("?")),
                norm(a["command"].as_str().unwrap_or("?")),
                a["held_by"].as_str().map(|h| format!(" (held by {h})")).unwrap_or_default(),
            )
        })
        .collect();
    accesses.sort();
    accesses.dedup();
    lines.extend(accesses);
    lines.join("\n") + "\n"
}

#[test]
fn corpus_explanations_match_their_snapshots() {
    let update = std::env::var_os("SNAPSHOT_UPDATE").is_some();
    let snapshots = corpus().join("snapshots");
    let mut differ = Vec::new();
    for (script, args) in SCRIPTS {
        let now = explanation(script, args);
        let file = snapshots.join(format!("{}.txt", script.replace('/', "_")));
        if update {
            std::fs::create_dir_all(&snapshots).unwrap();
            std::fs::write(&file, &now).unwrap();
            continue;
        }
        let kept = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        if kept != now {
            differ.push(format!("{script}: the explanation changed (SNAPSHOT_UPDATE=1 to accept):\n{now}"));
        }
        // Real work runs: none of these is denied at the default mode.
        assert!(now.starts_with("verdict allow\n"), "{script} is denied:\n{now}");
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
