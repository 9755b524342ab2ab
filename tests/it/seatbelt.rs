//! The macOS backend's profile, checked on any platform: golden files for each class of mode,
//! and the properties every profile must have. `UPDATE_GOLDEN=1 cargo test --test it seatbelt::`
//! rewrites the golden files after a deliberate change (review the diff).

use sandbox_bash::mode::Mode;
use sandbox_bash::sandbox::policy::Inputs;
use sandbox_bash::sandbox::seatbelt;
use sandbox_bash::scope::Layout;

fn profile(mode: u16) -> String {
    let layout = Layout {
        workspace: "/Users/u/proj".into(),
        home: Some("/Users/u".into()),
        tmpdir: Some("/var/folders/xy/abc/T".into()),
        ..Default::default()
    };
    let inputs = Inputs {
        mode: Mode(mode),
        layout: &layout,
        path_var: Some("/Users/u/.cargo/bin:/opt/homebrew/bin:/usr/bin:/bin:/Users/u:relative"),
        real_bash: "/bin/bash",
        self_exe: Some("/usr/local/bin/sandbox-bash"),
        standard_files: [None, Some("/Users/u/log.txt".into()), Some("/dev/ttys003".into())],
        nested: false,
        extra: Default::default(),
    };
    seatbelt::profile(&inputs)
}

const MODES: &[(u16, &str)] = &[
    (0o0000, "0000"),
    (0o0444, "0444-read-only"),
    (0o0467, "0467-default"),
    (0o0407, "0407-network-off"),
    (0o0007, "0007"),
    (0o4447, "4447"),
    (0o7777, "7777-full"),
];

#[test]
fn profiles_match_the_golden_files() {
    let dir = format!("{}/tests/golden", env!("CARGO_MANIFEST_DIR"));
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for (mode, name) in MODES {
        let path = format!("{dir}/seatbelt-{name}.sb");
        let got = profile(*mode);
        if update {
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e} (UPDATE_GOLDEN=1 writes it)"));
        assert!(got == want, "the profile for {name} differs from {path}; if the change is meant, run UPDATE_GOLDEN=1");
    }
}

#[test]
fn every_profile_is_well_formed_and_ends_with_its_denials() {
    for (mode, name) in MODES {
        let p = profile(*mode);
        let mut depth = 0i32;
        let mut in_string = false;
        let mut escaped = false;
        for c in p.lines().filter(|l| !l.trim_start().starts_with(';')).flat_map(|l| l.chars().chain(['\n'])) {
            if in_string {
                match (escaped, c) {
                    (true, _) => escaped = false,
                    (false, '\\') => escaped = true,
                    (false, '"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            match c {
                '"' => in_string = true,
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            assert!(depth >= 0, "{name}: unbalanced parentheses");
        }
        assert_eq!(depth, 0, "{name}: unbalanced parentheses");
        assert!(p.contains("(version 1)\n(deny default)"), "{name}");
        // The credential denials come after every allow, so nothing overrides them.
        let last_allow = p.rfind("(allow").unwrap();
        if let Some(cred) = p.find("\"/Users/u/.ssh\"") {
            assert!(cred > last_allow, "{name}: an allow follows the credential denial");
        }
    }
}

#[test]
fn the_mode_decides_what_each_scope_gets() {
    let default = profile(0o0467);
    assert!(default.contains("(allow file-read*\n  (subpath \"/\")"), "external read on /");
    assert!(default.contains("(deny file-read*\n  (subpath \"/System\")"), "system read taken away");
    assert!(default.contains("(allow file-read* file-write* process-exec\n  (subpath \"/Users/u/proj\")"));
    assert!(default.contains("(deny file-read* file-write* process-exec\n  (subpath \"/Users/u/.ssh\")"));
    assert!(default.contains("(literal \"/Users/u/proj/.git/config\")"));
    assert!(default.contains("(allow network*)"));
    assert!(default.contains("(subpath \"/private/var/folders/xy/abc/T\")"), "TMPDIR canonical");
    assert!(default.contains("(subpath \"/Users/u/.cargo\")") && default.contains("(subpath \"/Users/u/.rustup\")"));
    assert!(!default.contains("(subpath \"/Users/u\")\n"), "a PATH entry holding the home is left out");
    let off = profile(0o0407);
    assert!(!off.contains("(allow network*)") && off.contains("(remote unix-socket)"));
    assert!(!off.contains("com.apple.SystemConfiguration.DNSConfiguration"));
    let full = profile(0o7777);
    assert!(!full.contains("(subpath \"/Users/u/.ssh\")"), "full mode denies no credential");
    assert!(!full.contains("docker.sock"));
    let read_only = profile(0o0444);
    assert!(!read_only.contains("file-write*\n  (subpath \"/Users/u/proj\")\n)\n(allow"));
    assert!(
        read_only.contains("(deny file-write* process-exec\n  (subpath \"/Users/u/proj\")")
            || !read_only.contains("(allow file-write*\n  (subpath \"/\")")
    );
}

#[test]
fn configured_paths_reach_the_profile() {
    let layout = Layout {
        workspace: "/Users/u/proj".into(),
        home: Some("/Users/u".into()),
        tmpdir: None,
        extra_credentials: vec!["/Users/u/vault".into()].into(),
        extra_protected: vec!["/Users/u/.gitconfig".into()].into(),
        ..Default::default()
    };
    let inputs = Inputs {
        mode: Mode(0o0467),
        layout: &layout,
        path_var: None,
        real_bash: "/bin/bash",
        self_exe: None,
        standard_files: [None, None, None],
        nested: false,
        extra: sandbox_bash::sandbox::policy::Extra {
            runtime_read: vec!["/opt/sdk/share".into()],
            runtime_execute: vec!["/opt/sdk/bin".into()],
            ceiling: Some(Mode(0o0467)),
            ..Default::default()
        },
    };
    let p = seatbelt::profile(&inputs);
    assert!(p.contains("(deny file-read* file-write* process-exec\n  (subpath \"/Users/u/vault\")"), "{p}");
    assert!(p.contains("(subpath \"/Users/u/.gitconfig\")"));
    assert!(p.contains("(allow file-read*\n  (subpath \"/opt/sdk/share\")"));
    // The ceiling has no external execute: the runtime path gets read only.
    assert!(p.contains("(allow file-read*\n  (subpath \"/opt/sdk/bin\")"));
    assert!(!p.contains("process-exec\n  (subpath \"/opt/sdk/bin\")"));
}
