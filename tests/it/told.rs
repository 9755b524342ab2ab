//! What the kernel refuses while a command runs is told: a write, a read, a run and a signal
//! the static layer cannot see (the program comes on standard input), each refused by the
//! kernel, each named on the command's stderr with the bit that would allow it and the rule
//! that held it, recorded in the audit log, and summed up at the end. The same acts where the
//! mode allows them print nothing. As root and as an unprivileged user.
#![cfg(target_os = "linux")]

use std::io::Write;
use std::process::{Child, Command, Output, Stdio};

use crate::lab::{self, Lab, NOBODY, SB, USERS, User, as_user, lab_for, text};

/// Runs `script` on standard input (the static layer does not see it) under `mode`.
fn run_stdin(lab: &Lab, user: User, mode: &str, script: &str, env: &[(&str, &str)]) -> Output {
    let mut c = as_user(user, SB);
    c.arg("-s").current_dir(&lab.ws).env_clear();
    c.env("BASH_AGENT_BASH_MODE", mode).env("SANDBOX_BASH_WORKSPACE", &lab.ws).env("HOME", &lab.home);
    c.env("PATH", "/usr/local/bin:/usr/bin:/bin").env("LC_ALL", "C");
    c.envs(env.iter().copied());
    c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// The lines the supervisor told: each names what held the refusal.
fn told(out: &Output) -> Vec<String> {
    text(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("sandbox-bash: denied: ") && l.contains("; held by "))
        .map(str::to_string)
        .collect()
}

/// The one told line that contains `what`.
#[track_caller]
fn line_with<'a>(lines: &'a [String], what: &str) -> &'a str {
    let found: Vec<&String> = lines.iter().filter(|l| l.contains(what)).collect();
    assert_eq!(found.len(), 1, "one line with {what:?} in {lines:#?}");
    found[0]
}

/// A process outside the run, `user`'s own, which ends when dropped.
struct Outside(Child);

impl Outside {
    fn start(user: User) -> Outside {
        use std::os::unix::process::CommandExt;
        // The leader of a process group of its own.
        Outside(as_user(user, "sleep").arg("600").stdin(Stdio::null()).process_group(0).spawn().unwrap())
    }

    fn alive(&mut self) -> bool {
        self.0.try_wait().unwrap().is_none()
    }
}

impl Drop for Outside {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_write_a_read_a_run_and_a_signal_the_kernel_refuses_are_told_recorded_and_summed_up() {
    lab::require_landlock();
    for user in USERS {
        let lab = lab_for(user);
        let mut target = Outside::start(user);
        let pid = target.0.id();
        let (out_dir, canary, log) = (lab.outside.display(), lab.canary(), lab.outside.join("audit.jsonl"));
        std::fs::copy("/bin/true", lab.outside.join("mytrue")).unwrap();
        if user == User::Nobody {
            let status =
                Command::new("chown").arg(format!("{NOBODY}:{NOBODY}")).arg(lab.outside.join("mytrue")).status();
            assert!(status.unwrap().success());
        }
        let script = format!(
            "python3 -c 'open(\"{out_dir}/new.txt\", \"w\")'\n\
             python3 -c 'print(open(\"{canary}\").read())'\n\
             {out_dir}/mytrue\n\
             python3 -c 'import os; os.kill({pid}, 15)'\n\
             python3 -c 'import os; os.killpg({pid}, 0)'\n\
             echo done\n",
            canary = canary.display()
        );
        let out = run_stdin(&lab, user, "0467", &script, &[("SANDBOX_BASH_AUDIT_LOG", log.to_str().unwrap())]);
        let err = text(&out.stderr);
        assert_eq!(text(&out.stdout), "done\n", "{user:?}: {err}");
        // The programs' own errors: the kernel refused each.
        for errno in ["Read-only file system", "Permission denied", "Operation not permitted"] {
            assert!(err.contains(errno), "{user:?}: {errno} in {err}");
        }
        let lines = told(&out);
        assert_eq!(lines.len(), 5, "{user:?}: {err}");
        let write = line_with(&lines, "new.txt");
        assert!(
            write.starts_with("sandbox-bash: denied: missing external write (0200): python3 (pid ")
                && write.ends_with(&format!(
                    "opens for writing {out_dir}/new.txt (openat); held by the read-only view and Landlock; mode \
                     0667 would allow it"
                )),
            "{user:?}: {write}"
        );
        let read = line_with(&lines, "canary");
        assert!(
            read.starts_with("sandbox-bash: denied: missing system read (4000): python3 (pid ")
                && read.ends_with(&format!(
                    "opens for reading {} (openat); held by Landlock; mode 4467 would allow it",
                    canary.display()
                )),
            "{user:?}: {read}"
        );
        let run = line_with(&lines, "mytrue");
        assert!(
            run.starts_with("sandbox-bash: denied: missing external execute (0100): ")
                && run
                    .ends_with(&format!("runs {out_dir}/mytrue (execve); held by Landlock; mode 0567 would allow it")),
            "{user:?}: {run}"
        );
        let group = line_with(&lines, "process group");
        assert!(group.contains(&format!("sends signal 0 (a check) to process group {pid} (sleep)")), "{group}");
        let signal = line_with(&lines, "signal TERM");
        assert!(
            signal.contains(&format!(
                "sends signal TERM to process {pid} (sleep), which this run did not start; held by Landlock's signal \
                 scoping; no mode allows it"
            )),
            "{user:?}: {signal}"
        );
        // Nothing changed.
        assert!(!lab.outside.join("new.txt").exists());
        assert!(target.alive(), "{user:?}: the process outside was stopped");
        // One summary, last.
        let last = err.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("sandbox-bash: the rules refused 5 calls in this run: ")
                && last.contains("to allow: ")
                && last.contains("mode 0667"),
            "{user:?}: {last}"
        );
        // The records: one per refusal, with the same fields.
        let records: Vec<serde_json::Value> = lab::read(&log)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .filter(|r: &serde_json::Value| r["verdict"] == "deny")
            .collect();
        assert_eq!(records.len(), 5, "{user:?}: {records:#?}");
        let file = records.iter().find(|r| r["target"] == format!("{out_dir}/new.txt")).expect("the write's record");
        assert_eq!(
            (file["event"].as_str(), file["call"].as_str(), file["held_by"].as_str(), file["missing"].as_str()),
            (
                Some("file"),
                Some("openat"),
                Some("the read-only view and Landlock"),
                Some("missing external write (0200)")
            )
        );
        let sig = records
            .iter()
            .find(|r| r["event"] == "signal" && r["target"].as_str().is_some_and(|t| t.contains("TERM")))
            .expect("the signal's record");
        assert_eq!(sig["held_by"], "Landlock's signal scoping");
        assert_eq!(sig["target"], format!("signal TERM to process {pid} (sleep)"));

        // Where the mode allows them, the same acts print nothing; a signal to the run's own
        // process is never refused.
        let allowed = format!(
            "python3 -c 'open(\"{out_dir}/new.txt\", \"w\")'\n\
             python3 -c 'open(\"{canary}\").read()'\n\
             {out_dir}/mytrue\n\
             sleep 60 & python3 -c \"import os; os.kill($!, 15)\"; wait\n\
             echo done\n",
            canary = canary.display()
        );
        let out = run_stdin(&lab, user, "4767", &allowed, &[]);
        assert_eq!(text(&out.stdout), "done\n", "{user:?}: {}", text(&out.stderr));
        assert_eq!(text(&out.stderr), "", "{user:?}: nothing refused, nothing told");
        assert!(lab.outside.join("new.txt").exists());
    }
}

#[test]
fn a_refusal_names_the_file_a_planted_link_leads_to_and_the_mask_that_held_a_read() {
    let lab = Lab::new();
    std::os::unix::fs::symlink(&lab.outside, lab.ws.join("esc")).unwrap();
    std::fs::write(lab.ws.join(".env"), "SECRET=CANARY\n").unwrap();
    let script = "python3 -c 'open(\"esc/planted\", \"w\")'\npython3 -c 'open(\".env\").read()'\n";
    let out = run_stdin(&lab, User::Root, "0467", script, &[]);
    let lines = told(&out);
    let planted = line_with(&lines, "planted");
    assert!(planted.contains(&format!("opens for writing {}/planted (openat)", lab.outside.display())), "{planted}");
    let env = line_with(&lines, ".env");
    assert!(
        env.starts_with("sandbox-bash: denied: missing system read (4000): python3")
            && env.contains("held by the credential mask; mode 4467 would allow it"),
        "{env}"
    );
    assert!(!lab.outside.join("planted").exists());
    assert!(!text(&out.stdout).contains("CANARY"));
}

#[test]
fn a_path_named_from_a_directory_or_the_working_directory_is_told_whole() {
    let lab = Lab::new();
    let out_dir = lab.outside.display();
    // The same refused write three ways: an absolute path, a path relative to a directory
    // descriptor, and one relative to the working directory (a `cd` the mode allows).
    let script = format!(
        "python3 -c 'open(\"{out_dir}/absolute.txt\", \"w\")'\n\
         python3 -c 'import os; d = os.open(\"{out_dir}\", os.O_RDONLY); os.open(\"from-fd.txt\", os.O_WRONLY | os.O_CREAT, dir_fd=d)'\n\
         cd {out_dir} && python3 -c 'open(\"from-cwd.txt\", \"w\")'\n"
    );
    let out = run_stdin(&lab, User::Root, "0467", &script, &[]);
    let lines = told(&out);
    assert_eq!(lines.len(), 3, "{}", text(&out.stderr));
    for name in ["absolute.txt", "from-fd.txt", "from-cwd.txt"] {
        let line = line_with(&lines, name);
        assert!(line.contains(&format!("opens for writing {out_dir}/{name} (openat)")), "{line}");
        assert!(!lab.outside.join(name).exists(), "{name}");
    }
}

#[test]
fn ordinary_work_in_the_workspace_is_not_told_anything() {
    let lab = Lab::new();
    let out_dir = lab.outside.display();
    // Calls that get past the rules, or fail first for their own reasons: an O_PATH open
    // (Landlock does not look at it), a directory listed below one a rule lists, a directory
    // opened to be written (EISDIR), a rename from scratch to the workspace (EXDEV).
    // On purpose in /tmp: scratch, a mount of its own in the view.
    let scratch = std::path::PathBuf::from(format!("/tmp/sbx-told-{}", std::process::id()));
    let calls = format!(
        "import os\n\
         os.close(os.open(\"{canary}\", os.O_PATH))\n\
         os.listdir(\"{home}/.ssh\")\n\
         for f in (lambda: open(\"{out_dir}\", \"w\"), lambda: os.rename(\"{scratch}\", \"{out_dir}/never\")):\n\
         \x20   try: f()\n\
         \x20   except OSError as e: assert e.errno in (21, 18, 2), e\n",
        canary = lab.canary().display(),
        home = lab.home.display(),
        scratch = scratch.display()
    )
    .replace('\'', "'\\''");
    std::fs::write(&scratch, "x").unwrap();
    // Writes where the mode allows them, calls that fail for their own reasons first (a
    // directory that exists, a file that does not), a read-only open with O_CREAT of a file
    // that exists, descriptors and devices, and a nested sandbox-bash planning its own rules.
    let script = format!(
        "git init -q . && git add file.txt && git -c user.name=t -c user.email=t@t commit -qm one\n\
         mkdir -p sub/dir && echo x > sub/dir/f && mv sub/dir/f sub/g && rm -r sub\n\
         echo scratch > /tmp/sbx-told-$$ && rm /tmp/sbx-told-$$\n\
         echo gone > /dev/null; echo err >&2 2>/dev/null; exec 3>/dev/stderr; exec 3>&-\n\
         python3 -c 'import os; os.makedirs(\"{out_dir}\", exist_ok=True)'\n\
         python3 -c 'import os; os.close(os.open(\"{out_dir}/file.txt\", os.O_RDONLY | os.O_CREAT))'\n\
         rm -f missing-file\n\
         {SB} -c 'echo nested > nested.txt'\n\
         mkfifo fifo && python3 -c 'import os; os.close(os.open(\"fifo\", os.O_RDWR))'\n\
         python3 -c '{calls}'\n\
         echo done\n"
    );
    let out = run_stdin(&lab, User::Root, "0467", &script, &[]);
    assert_eq!(text(&out.stdout), "done\n", "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "err\n");
    assert!(!lab.outside.join("never").exists());
    let _ = std::fs::remove_file(&scratch);
    assert_eq!(lab::read(&lab.ws.join("nested.txt")), "nested\n");
}

#[test]
fn a_new_entry_right_in_the_home_names_the_bits_that_allow_it() {
    let lab = Lab::new();
    let lock = lab.home.join("tool.lock");
    // Opened to read, with O_CREAT: it makes the file, which only the whole system allows.
    let script =
        format!("python3 -c 'import os; os.close(os.open(\"{}\", os.O_RDONLY | os.O_CREAT))'\n", lock.display());
    let out = run_stdin(&lab, User::Root, "0467", &script, &[]);
    let lines = told(&out);
    let line = line_with(&lines, "tool.lock");
    assert!(
        line.starts_with(
            "sandbox-bash: denied: missing system read, write and execute, external write (7200) for a new or removed entry"
        ) && line.ends_with("held by the read-only view and Landlock; mode 7667 would allow it"),
        "{line}"
    );
    assert!(!lock.exists());
    // With the whole system but not the home's tree, still refused, and told.
    let out = run_stdin(&lab, User::Root, "7467", &script, &[]);
    assert!(line_with(&told(&out), "tool.lock").ends_with("mode 7667 would allow it"), "{}", text(&out.stderr));
    // The mode it names allows it, and nothing is told.
    let out = run_stdin(&lab, User::Root, "7667", &script, &[]);
    assert_eq!(text(&out.stderr), "");
    assert!(lock.exists());
}

#[test]
fn a_path_the_analysis_could_not_name_is_told_where_the_kernel_refuses_it() {
    let lab = Lab::new();
    std::fs::write(lab.ws.join("where"), lab.canary().display().to_string()).unwrap();
    // The command is one the analysis knows; its operand is a word it could not resolve.
    let out = lab.run("0467", "p=$(cat where); cat \"$p\"");
    lab::kernel_refused(&out, &[]);
    let lines = told(&out);
    let line = line_with(&lines, "canary");
    assert!(line.contains("cat (pid ") && line.ends_with("held by Landlock; mode 4467 would allow it"), "{line}");
}
