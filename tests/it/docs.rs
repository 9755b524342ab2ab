//! The README, the pages in docs/, the manual page and the changelog are checked against the code
//! they describe.

use std::path::Path;
use std::process::Command;

use crate::common;

const SANDBOX: &str = env!("CARGO_BIN_EXE_sandbox-bash");

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[test]
fn readme_starts_with_the_two_commands() {
    let readme = read("README.md");
    let block: Vec<&str> = readme.split("```sh\n").nth(1).unwrap().split("```").next().unwrap().lines().collect();
    assert_eq!(
        block,
        [
            "cargo run -q --release -- -c 'echo hello' && cargo run -q --release -- -c 'cat /etc/shadow'",
            "cargo nextest run"
        ]
    );
    let ci = read(".ci/run");
    assert!(
        ci.trim_end().ends_with("cargo nextest run --locked --no-fail-fast"),
        ".ci/run must end with the README's test command"
    );
    for needle in [
        "126",
        "125",
        "sandbox-bash: denied:",
        "sandbox-bash: error:",
        "0467",
        "0444",
        "7777",
        "--sandbox-info",
        "SANDBOX_BASH_ALLOW_DEGRADED",
        "Landlock",
        "static only",
    ] {
        assert!(readme.contains(needle), "README lacks {needle:?}");
    }
}

#[test]
fn readme_shows_the_real_denial() {
    let readme = read("README.md");
    let out =
        Command::new(SANDBOX).args(["-c", "cat /etc/shadow"]).env_remove("BASH_AGENT_BASH_MODE").output().unwrap();
    assert_eq!(out.status.code(), Some(126));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for line in stderr.lines() {
        assert!(readme.contains(line), "README does not show {line:?}");
    }
}

/// The README's table of examples under the default mode states what the analysis requires.
#[test]
fn readme_examples_require_what_they_say() {
    let readme = read("README.md");
    let table = readme.split("Examples under the default mode:").nth(1).unwrap().split("\n\n").nth(1).unwrap();
    let mut rows = 0;
    for line in table.lines().skip(2) {
        let cells: Vec<String> =
            line.replace("\\|", "\u{1}").split('|').map(|c| c.trim().replace('\u{1}', "|")).collect();
        let [_, program, required, verdict, _] = &cells[..] else { panic!("not a row of three cells: {line}") };
        let program = program.split('`').nth(1).unwrap();
        let required = required.trim_matches('`');
        assert_eq!(common::required(program), required, "README: {program}");
        let bits = u16::from_str_radix(required, 8).unwrap();
        let runs = bits & !0o467 == 0;
        assert_eq!(verdict.starts_with("runs"), runs, "README: {program} {verdict}");
        assert!(runs || verdict.starts_with("denied"), "README: {program} {verdict}");
        rows += 1;
    }
    assert!(rows >= 8, "the README's example table has {rows} rows");
}

/// Every page in docs/ is linked from the README, every relative link of the README, the
/// architecture, the changelog and the pages leads to a file of this repository, and the kernel
/// page keeps the facts the README points to it for.
#[test]
fn the_docs_are_linked_and_every_link_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).canonicalize().unwrap();
    let readme = read("README.md");
    let mut pages = vec!["README.md".to_string(), "ARCHITECTURE.md".to_string(), "CHANGELOG.md".to_string()];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") {
            assert!(readme.contains(&format!("(docs/{name})")), "README does not link docs/{name}");
            pages.push(format!("docs/{name}"));
        }
    }
    for page in &pages {
        let text = read(page);
        let dir = root.join(page).parent().unwrap().to_path_buf();
        for link in text.split("](").skip(1) {
            let target = link.split(')').next().unwrap().split('#').next().unwrap();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let path = dir.join(target).canonicalize().unwrap_or_else(|e| panic!("{page}: link {target}: {e}"));
            assert!(path.starts_with(&root), "{page}: link {target} leaves the repository");
        }
    }
    let kernel = read("docs/kernel.md");
    for needle in ["Landlock", "seccomp", "--sandbox-info", "SANDBOX_BASH_ALLOW_DEGRADED", "static only", "125"] {
        assert!(kernel.contains(needle), "docs/kernel.md lacks {needle:?}");
    }
}

#[test]
fn the_manual_documents_every_option_preset_and_json_field() {
    let man = read("man/sandbox-bash.1");
    for arg in sandbox_bash::sandbox_command().get_arguments() {
        let long = arg.get_long().unwrap();
        assert!(man.contains(&format!("Fl \\-{long}")), "the manual page lacks --{long}");
    }
    for (name, mode) in sandbox_bash::mode::PRESETS {
        assert!(man.contains(name) && man.contains(&mode.to_string()), "the manual page lacks the preset {name}");
    }
    let out = Command::new(SANDBOX)
        .args(["--sandbox-explain", "--sandbox-json", "-c", "cat /etc/shadow; cat /etc/shadow; $x"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in json.as_object().unwrap().keys() {
        assert!(man.contains(&format!("\"{key}\"")), "the manual page lacks the JSON field {key}");
    }
    assert_eq!(json["accesses"][0]["more"], 1, "{json}");
    for key in json["accesses"][0].as_object().unwrap().keys() {
        assert!(man.contains(&format!("\"{key}\"")), "the manual page lacks the access field {key}");
    }
}

#[test]
fn the_manual_lists_the_runtime_baseline_the_capabilities_and_the_info_fields() {
    let man = read("man/sandbox-bash.1");
    for entry in sandbox_bash::baseline::ETC_RUNTIME {
        let name = entry.strip_prefix("/etc/").unwrap();
        assert!(man.contains(name), "the manual page lacks the runtime /etc entry {entry}");
    }
    use sandbox_bash::sandbox::policy::{ADMIN_CAPABILITIES, PRIVILEGE_CAPABILITIES};
    for cap in ADMIN_CAPABILITIES.iter().chain(PRIVILEGE_CAPABILITIES) {
        assert!(man.contains(cap.name), "the manual page lacks the capability {}", cap.name);
    }
    let out = Command::new(SANDBOX).args(["--sandbox-info", "--sandbox-json"]).output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in json.as_object().unwrap().keys() {
        assert!(man.contains(&format!("\"{key}\"")), "the manual page lacks the info field {key}");
    }
    for key in json["rules"][0].as_object().unwrap().keys() {
        assert!(man.contains(&format!("\"{key}\"")), "the manual page lacks the rule field {key}");
    }
    for area in json["areas"].as_array().unwrap() {
        assert!(man.contains(area["area"].as_str().unwrap()), "the manual page lacks the area {area}");
    }
}

#[test]
fn the_changelog_is_kept() {
    let changelog = read("CHANGELOG.md");
    assert!(changelog.contains("## Unreleased"));
    for section in ["### Added", "### Security"] {
        assert!(changelog.contains(section), "CHANGELOG lacks {section}");
    }
}

/// The manual's table of files that run later has one row per client of the code's table, with
/// every file of the row.
#[test]
fn the_manual_lists_every_client_and_its_files() {
    let man = read("man/sandbox-bash.1");
    let section = man.split(".Sh FILES THAT RUN LATER").nth(1).unwrap().split(".Sh ").next().unwrap();
    for client in sandbox_bash::scope::CLIENTS {
        let row = section
            .lines()
            .find(|l| l.starts_with(&format!(".It {} Ta", client.name)))
            .unwrap_or_else(|| panic!("the manual's table has no row for {}", client.name));
        let (project, home) = row.split_once(" Ta ").unwrap().1.split_once(" Ta ").unwrap();
        let named = |cell: &str, entry: &str| cell.split([' ', ',']).any(|w| w.trim_end_matches('/') == entry);
        for entry in client.project {
            assert!(named(project, entry), "{}: the manual's project cell lacks {entry}", client.name);
        }
        for entry in client.home {
            assert!(named(home, entry), "{}: the manual's home cell lacks {entry}", client.name);
        }
        if let Some(holder) = client.holder {
            assert!(
                section.contains(&format!(".Pa {holder}/")) || section.contains(&format!(" {holder}/ ")),
                "{holder}"
            );
        }
    }
}

#[test]
fn the_explanation_lists_each_need_and_command_once_with_the_number_of_other_places() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let program = "f() { cat /etc/hostname; }\nf; f; f\nfor i in 1 2; do cat /etc/hostname; done\ncat /etc/hostname";
    let out = Command::new(SANDBOX)
        .args(["--sandbox-explain", "-c", program])
        .current_dir(dir.path())
        .env("SANDBOX_BASH_WORKSPACE", dir.path())
        .env("BASH_AGENT_BASH_MODE", "0467")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let reads: Vec<&str> = text.lines().filter(|l| l.contains("system read") && l.contains("/etc/hostname")).collect();
    assert_eq!(reads.len(), 1, "{text}");
    assert!(reads[0].contains("(cat at 1:11, and 2 more places: "), "{text}");
    let cats: Vec<&str> = text.lines().filter(|l| l.starts_with("  cat (")).collect();
    assert_eq!(cats, ["  cat (1:7, and 2 more places)"], "{text}");
}
