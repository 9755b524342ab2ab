//! A secret in the caller's environment is unreachable by the command: not in its environment,
//! not in its /proc/self/environ, and (Landlock) not in the caller's /proc/$PPID/environ.
#![cfg(target_os = "linux")]

use crate::lab;

use lab::{Lab, text};

const SECRETS: &[(&str, &str)] = &[
    ("MY_API_KEY", "canary-api-key"),
    ("DB_PASSWORD", "canary-db-password"),
    ("NPM_AUTH_TOKEN", "canary-npm-token"),
    ("GITHUB_TOKEN", "canary-github-token"),
    ("SANDBOX_BASH_SOMETHING", "canary-control"),
    ("APIKEY", "canary-apikey"),
    ("OPENAI_APIKEY", "canary-openai-apikey"),
    ("SECRETKEY", "canary-secretkey"),
    ("DB_PASS", "canary-db-pass"),
    ("SMTP_PASS", "canary-smtp-pass"),
    ("MYSQL_PWD", "canary-mysql-pwd"),
    ("GITHUB_PAT", "canary-github-pat"),
    ("DATABASE_URL", "postgres://app:canary-url-password@db.internal/app"),
    ("PIP_INDEX_URL", "https://mirror.example https://u:canary-index-password@private.example/simple"),
];
const KEPT: &[(&str, &str)] = &[
    ("GIT_AUTHOR_NAME", "kept-author"),
    ("KEYBOARD_LAYOUT", "kept-layout"),
    ("TOKENIZERS_PARALLELISM", "false"),
    ("KEYMAP", "kept-keymap"),
    ("COMPAT", "kept-compat"),
    ("PASSAGE", "kept-passage"),
    ("XDG_SESSION_TYPE", "kept-xdg"),
    ("SSH_ASKPASS", "/usr/bin/kept-askpass"),
    ("REPLICA_URL", "postgres://app@db.internal/app"),
];

#[test]
fn secrets_in_the_environment_do_not_reach_the_command() {
    let lab = Lab::new();
    // Its parent's /proc/PID/environ is what bash received from execve; `env` what it passes on.
    let program = "env; echo ---; \
                   python3 -c 'import os; print(open(\"/proc/%d/environ\" % os.getppid()).read().replace(\"\\0\", \"\\n\"))'; \
                   echo ---; \
                   python3 -c 'import sys; print(open(\"/proc/\" + sys.argv[1] + \"/environ\").read())' $PPID; true";
    let mut c = lab.command("0467", program);
    for (k, v) in SECRETS.iter().chain(KEPT) {
        c.env(k, v);
    }
    // The working directories are passed on as they are (a `*_PWD` rule must not take them).
    c.env("PWD", &lab.ws).env("OLDPWD", &lab.outside);
    let out = c.output().unwrap();
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{all}");
    for (name, value) in SECRETS {
        assert!(!all.contains(value), "{name}'s value reached the command:\n{all}");
        assert!(!all.contains(&format!("{name}=")), "{name} reached the command:\n{all}");
    }
    let received = text(&out.stdout).split("---\n").nth(1).unwrap().to_string();
    let kept = KEPT.iter().map(|(k, v)| (k.to_string(), v.to_string())).chain([
        ("PWD".to_string(), lab.ws.display().to_string()),
        ("OLDPWD".to_string(), lab.outside.display().to_string()),
    ]);
    for (name, value) in kept {
        assert!(received.lines().any(|l| l == format!("{name}={value}")), "{name} must stay:\n{received}");
    }
    // The caller's own environment is out of reach (the positive control is its own, above).
    assert!(all.contains("Permission denied"), "reading /proc/$PPID/environ must fail:\n{all}");
    // The mode goes along, so nested invocations inherit it.
    assert!(text(&out.stdout).contains("BASH_AGENT_BASH_MODE=0467"));
}

#[test]
fn sandbox_info_names_the_removed_variables_never_their_values() {
    let lab = Lab::new();
    let mut c = std::process::Command::new(lab::SB);
    c.args(["--sandbox-info", "--sandbox-json"]).current_dir(&lab.ws);
    for (k, v) in SECRETS {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    let body = text(&out.stdout);
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    let removed: Vec<&str> =
        json["removed_environment"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    for (name, value) in SECRETS {
        assert!(removed.contains(name), "{name} missing from {removed:?}");
        assert!(!body.contains(value), "a value was shown");
    }
}

/// The allocator's own variables change nothing of what sandbox-bash prints: a run and a denial
/// say exactly what they say without them (mimalloc is built not to read them).
#[test]
fn allocator_variables_change_nothing_it_prints() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let run = |vars: &[(&str, &str)], program: &str| {
        let mut c = std::process::Command::new(lab::SB);
        c.args(["-c", program]).current_dir(dir.path()).env_remove("BASH_AGENT_BASH_MODE");
        for (k, v) in vars {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    let loud = [("MIMALLOC_VERBOSE", "1"), ("MIMALLOC_SHOW_STATS", "1"), ("MIMALLOC_SHOW_ERRORS", "1")];
    for program in ["echo hi", "cat /etc/shadow"] {
        let quiet = run(&[], program);
        assert_eq!(run(&loud, program), quiet, "{program}");
    }
    // The denial is there, so the comparison compared something.
    assert_eq!(run(&[], "cat /etc/shadow").0, Some(126));
}
