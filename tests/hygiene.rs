//! A secret in the caller's environment is unreachable by the command: not in its environment,
//! not in its /proc/self/environ, and (Landlock) not in the caller's /proc/$PPID/environ.
#![cfg(target_os = "linux")]

#[path = "common/lab.rs"]
mod lab;

use lab::{Lab, text};

const SECRETS: &[(&str, &str)] = &[
    ("MY_API_KEY", "canary-api-key"),
    ("DB_PASSWORD", "canary-db-password"),
    ("NPM_AUTH_TOKEN", "canary-npm-token"),
    ("GITHUB_TOKEN", "canary-github-token"),
    ("SANDBOX_BASH_SOMETHING", "canary-control"),
];
const KEPT: &[(&str, &str)] = &[("GIT_AUTHOR_NAME", "kept-author"), ("KEYBOARD_LAYOUT", "kept-layout")];

#[test]
fn secrets_in_the_environment_do_not_reach_the_command() {
    let lab = Lab::new();
    let program = "env; echo ---; tr '\\0' '\\n' < /proc/self/environ; echo ---; \
                   python3 -c 'import sys; print(open(\"/proc/\" + sys.argv[1] + \"/environ\").read())' $PPID; true";
    let mut c = lab.command("0467", program);
    for (k, v) in SECRETS.iter().chain(KEPT) {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{all}");
    for (name, value) in SECRETS {
        assert!(!all.contains(value), "{name}'s value reached the command:\n{all}");
    }
    for (name, value) in KEPT {
        assert!(text(&out.stdout).contains(&format!("{name}={value}")), "{name} must stay:\n{all}");
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
