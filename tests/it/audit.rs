//! The audit log: one whole JSON line per invocation, even with 200 at once; denials recorded
//! with their reasons; the file reopened for every record; no record, no run.
#![cfg(target_os = "linux")]

use crate::lab;

use lab::{Lab, read, text};

fn lines(path: &std::path::Path) -> Vec<serde_json::Value> {
    all_lines(path).into_iter().filter(|r| !told(r)).collect()
}

/// Every record, the supervisor's records of what it saw refused included.
fn all_lines(path: &std::path::Path) -> Vec<serde_json::Value> {
    read(path)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not one JSON object: {e}: {l}")))
        .collect()
}

/// A record of a call the rules refused, which the supervisor saw and told.
fn told(r: &serde_json::Value) -> bool {
    r["event"] == "file" || r["event"] == "signal"
}

#[test]
fn two_hundred_invocations_at_once_give_two_hundred_whole_records() {
    let lab = Lab::new();
    let log = lab.outside.join("audit.jsonl");
    let children: Vec<_> = (0..200)
        .map(|i| {
            lab.command("0467", &format!("echo run-{i} > /dev/null"))
                .env("SANDBOX_BASH_AUDIT_LOG", &log)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    let records = lines(&log);
    assert_eq!(records.len(), 200);
    let mut programs: Vec<String> = records.iter().map(|r| r["program"].as_str().unwrap().to_string()).collect();
    programs.sort();
    programs.dedup();
    assert_eq!(programs.len(), 200, "every invocation recorded once");
    let r = &records[0];
    for key in [
        "time",
        "version",
        "pid",
        "ppid",
        "uid",
        "cwd",
        "workspace",
        "source",
        "program",
        "allowed",
        "required",
        "verdict",
        "reasons",
        "enforcement",
    ] {
        assert!(!r[key].is_null(), "{key} missing from {r}");
    }
    assert_eq!(r["verdict"], "allow");
    assert_eq!(r["enforcement"], "enforced");
    assert_eq!(r["allowed"], "0467");
}

#[test]
fn denials_are_recorded_with_their_reasons_and_the_file_is_reopened_each_time() {
    let lab = Lab::new();
    let log = lab.outside.join("audit.jsonl");
    let out = lab.command("0467", "cat /etc/shadow").env("SANDBOX_BASH_AUDIT_LOG", &log).output().unwrap();
    assert_eq!(out.status.code(), Some(126));
    let records = lines(&log);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["verdict"], "deny");
    assert_eq!(records[0]["required"], "4000");
    let reason = &records[0]["reasons"][0];
    assert_eq!(
        (reason["scope"].as_str(), reason["perm"].as_str(), reason["target"].as_str()),
        (Some("system"), Some("r"), Some("/etc/shadow"))
    );
    // Rotation: the old file moved away, the next record starts a new one.
    std::fs::rename(&log, lab.outside.join("audit.jsonl.1")).unwrap();
    let out = lab.command("0467", "true").env("SANDBOX_BASH_AUDIT_LOG", &log).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(lines(&log).len(), 1);
    assert_eq!(lines(&lab.outside.join("audit.jsonl.1")).len(), 1);
}

#[test]
fn no_record_no_run() {
    let lab = Lab::new();
    let unwritable = lab.outside.join("no-such-dir/audit.jsonl");
    let out = lab.command("0467", "echo ran > ran.txt").env("SANDBOX_BASH_AUDIT_LOG", &unwritable).output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(125), "{err}");
    assert!(err.starts_with("sandbox-bash: error:") && err.contains("audit log"), "{err}");
    assert!(!lab.ws.join("ran.txt").exists());
    // Positive control: with a writable log it runs.
    let out = lab
        .command("0467", "echo ran > ran.txt")
        .env("SANDBOX_BASH_AUDIT_LOG", lab.outside.join("a.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(lab.ws.join("ran.txt").exists());
}

/// A user configuration file of the lab's that names `log` as the audit log.
fn user_file_naming(lab: &Lab, log: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let f = lab.outside.join("user.toml");
    std::fs::write(&f, format!("audit_log = \"{}\"\n", log.display())).unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(&lab.outside, std::fs::Permissions::from_mode(0o755)).unwrap();
    f
}

fn run_with_config(lab: &Lab, config: &std::path::Path) -> (Option<i32>, String) {
    let _ = std::fs::remove_file(lab.ws.join("ran.txt"));
    let out = lab.command("0467", "echo ran > ran.txt").env("SANDBOX_BASH_CONFIG", config).output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(lab.ws.join("ran.txt").exists(), out.status.code() == Some(0), "{err}");
    (out.status.code(), err)
}

#[test]
fn a_user_file_cannot_point_the_log_at_a_file_not_the_callers() {
    let lab = Lab::new();
    let chown = |p: &std::path::Path| std::os::unix::fs::lchown(p, Some(65534), None).unwrap();
    // Someone else's file (standing for /etc/profile.d/…, which JSON lines would run in).
    let foreign = lab.outside.join("foreign.sh");
    std::fs::write(&foreign, "echo original\n").unwrap();
    chown(&foreign);
    let (status, err) = run_with_config(&lab, &user_file_naming(&lab, &foreign));
    assert_eq!(status, Some(125), "{err}");
    assert!(err.contains("audit log") && err.contains("owned by uid 65534") && err.contains("user.toml"), "{err}");
    assert_eq!(read(&foreign), "echo original\n", "the refused file was changed");
    // A link of the caller's to it: not followed.
    let link = lab.outside.join("link.jsonl");
    std::os::unix::fs::symlink(&foreign, &link).unwrap();
    let (status, err) = run_with_config(&lab, &user_file_naming(&lab, &link));
    assert_eq!(status, Some(125), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(read(&foreign), "echo original\n", "the file behind the link was changed");
    // A new file in someone else's directory is not created.
    let dir = lab.outside.join("theirs");
    std::fs::create_dir(&dir).unwrap();
    chown(&dir);
    let (status, err) = run_with_config(&lab, &user_file_naming(&lab, &dir.join("audit.jsonl")));
    assert_eq!(status, Some(125), "{err}");
    assert!(err.contains("does not exist, and its directory") && err.contains("owned by uid 65534"), "{err}");
    assert!(!dir.join("audit.jsonl").exists());
    // Not a regular file: a FIFO neither blocks nor is written.
    let fifo = lab.outside.join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let (status, err) = run_with_config(&lab, &user_file_naming(&lab, &fifo));
    assert_eq!(status, Some(125), "{err}");
    assert!(err.contains("audit log") && err.contains(&fifo.display().to_string()), "{err}");
    // The system file may name any file (the administrator's choice).
    let system = user_file_naming(&lab, &foreign);
    let out = lab.command("0467", "true").env("SANDBOX_BASH_TEST_SYSTEM_CONFIG", &system).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(lines_after(&foreign, "echo original\n"), 1);
}

/// The JSON records appended after `head`.
fn lines_after(path: &std::path::Path, head: &str) -> usize {
    let body = read(path);
    let rest = body.strip_prefix(head).unwrap_or_else(|| panic!("{} lost its start: {body}", path.display()));
    let records: Vec<serde_json::Value> = rest.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(records.iter().all(|r| r["verdict"] == "allow"), "{records:?}");
    records.len()
}

#[test]
fn a_user_file_may_name_a_log_of_the_callers_own() {
    use std::os::unix::fs::PermissionsExt;
    let lab = Lab::new();
    let log = lab.outside.join("mine.jsonl");
    let config = user_file_naming(&lab, &log);
    // Created on first use, mode 0600, then appended to.
    assert_eq!(run_with_config(&lab, &config).0, Some(0));
    assert_eq!(std::fs::metadata(&log).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(run_with_config(&lab, &config).0, Some(0));
    let records = lines(&log);
    assert_eq!(records.len(), 2);
    assert!(records.iter().all(|r| r["verdict"] == "allow" && r["program"] == "echo ran > ran.txt"));
    // An existing file of the caller's is appended to as well.
    let existing = lab.outside.join("existing.jsonl");
    std::fs::write(&existing, "").unwrap();
    assert_eq!(run_with_config(&lab, &user_file_naming(&lab, &existing)).0, Some(0));
    assert_eq!(lines(&existing).len(), 1);
}

#[test]
fn the_audit_log_is_never_a_file_that_runs_code_later() {
    let lab = Lab::new();
    let rc = lab.home.join(".bashrc");
    std::fs::write(&rc, "# rc\n").unwrap();
    for (var, path) in [("SANDBOX_BASH_AUDIT_LOG", rc.clone()), ("SANDBOX_BASH_AUDIT_LOG", lab.ws.join(".git/config"))]
    {
        let out = lab.command("0467", ": '$(id)'").env(var, &path).output().unwrap();
        assert_eq!(out.status.code(), Some(125), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains("protected or credential path"));
    }
    assert_eq!(std::fs::read_to_string(&rc).unwrap(), "# rc\n");
    assert!(!lab.ws.join(".git/config").exists());
    // Positive control: an ordinary log file.
    let log = lab.outside.join("audit.jsonl");
    let out = lab.command("0467", "true").env("SANDBOX_BASH_AUDIT_LOG", &log).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(lines(&log).len(), 1);
}

/// Nested invocations (a wrapper that starts the shell again, as Codex's does; make; a script)
/// reach the log through the enclosing level's relay: each record is whole, marked nested,
/// with the relay's time and the pid the kernel gives. The command itself can neither add a
/// record of its own (a process that is not sandbox-bash is refused, and the refusal is
/// recorded), nor read, lock or erase the log (it is held like a credential, past the static
/// layer too), and an empty message does not end the relay.
#[test]
fn nested_invocations_are_recorded_and_the_command_cannot_forge_or_erase_records() {
    let lab = Lab::new();
    let link = lab.outside.join("bin/bash");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(lab::SB, &link).unwrap();
    let log = lab.outside.join("audit.jsonl");
    let forge = lab::py(
        "import os, socket, json, array\n\
         fd = int(os.environ[\"SANDBOX_BASH_AUDIT_CHANNEL\"])\n\
         s = socket.socket(fileno=fd)\n\
         s.send(b\"\")\n\
         a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)\n\
         rec = b\"\\x02R\" + json.dumps({\"program\": \"FORGED\", \"verdict\": \"allow\", \"nested\": True}).encode()\n\
         s.sendmsg([rec], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array(\"i\", [b.fileno()]))])\n\
         print(\"forger got\", a.recv(1024)[:2])",
    );
    let touch = |how: &str| {
        lab::py(&format!(
            "import fcntl\ntry:\n f = open({:?}, {how:?}); fcntl.flock(f, fcntl.LOCK_EX); print(\"held\")\nexcept OSError as e: print(\"refused:\", e.strerror)",
            log.to_string_lossy()
        ))
    };
    let program = format!(
        "echo outer\nwrapper() {{ {link} -c 'echo inner-one; {link} -c \"echo inner-two\"'; }}\nwrapper\n{forge}\n{}\n{}\n{link} -c 'echo after-the-forger'",
        touch("w"),
        touch("r"),
        link = link.display()
    );
    let out = lab.command("0467", &program).env("SANDBOX_BASH_AUDIT_LOG", &log).output().unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("outer\ninner-one\ninner-two\n"), "{stdout}");
    // A record in the protocol's own framing, refused for who sent it: version 2, "N".
    assert!(stdout.contains("forger got b'\\x02N'"), "{stdout}");
    assert_eq!(stdout.matches("refused: ").count(), 2, "{stdout}");
    assert!(!stdout.contains("held"), "{stdout}");
    assert!(stdout.ends_with("after-the-forger\n"), "{stdout}");
    let records = lines(&log);
    let programs: Vec<&str> = records.iter().filter_map(|r| r["program"].as_str()).collect();
    // The empty message and the forged record are both refused.
    assert_eq!(records.len(), 6, "{records:#?}");
    // The two opens of the log the rules refused were seen, told and recorded.
    let all = all_lines(&log);
    let refused: Vec<&serde_json::Value> =
        all.iter().filter(|r| told(r) && r["target"] == log.to_str().unwrap()).collect();
    assert_eq!(refused.len(), 2, "{all:#?}");
    assert!(refused.iter().all(|r| r["verdict"] == "deny" && r["program"] == "python3"), "{refused:#?}");
    assert!(
        text(&out.stderr).contains(&format!("opens for writing {} (openat)", log.display())),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(records[0]["nested"], serde_json::Value::Null);
    assert!(programs[0].starts_with("echo outer"), "{programs:?}");
    assert!(programs[1].starts_with("echo inner-one"), "{programs:?}");
    assert_eq!(programs[2], "echo inner-two");
    for nested in [&records[1], &records[2], &records[5]] {
        assert_eq!(nested["nested"], true, "{nested}");
        assert_eq!(nested["verdict"], "allow", "{nested}");
        assert!(nested["pid"].as_i64().unwrap() > 1, "{nested}");
    }
    for refused in &records[3..5] {
        assert_eq!(refused["event"], "audit-channel", "{refused}");
        assert_eq!(refused["verdict"], "refused", "{refused}");
        assert!(refused["reason"].as_str().unwrap().contains("python3"), "{refused}");
    }
    assert!(!records.iter().any(|r| r["program"] == "FORGED"), "{records:#?}");
    // The static layer says so too.
    let out =
        lab.command("0467", &format!(": > {}", log.display())).env("SANDBOX_BASH_AUDIT_LOG", &log).output().unwrap();
    assert_eq!(out.status.code(), Some(126), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("missing system write (2000)"), "{}", text(&out.stderr));
    assert_eq!(lines(&log).len(), 7, "the denial is recorded, nothing erased");
}

/// A log in a tree the command may write (the workspace, scratch) could be moved away and
/// another put in its place: it is refused before anything runs.
#[test]
fn a_log_the_command_could_move_away_is_refused() {
    let lab = Lab::new();
    let tmp = tempfile::Builder::new().prefix("sbx-audit-").tempdir_in("/tmp").unwrap();
    for (mode, log) in [("0467", lab.ws.join("logs/audit.jsonl")), ("0444", tmp.path().join("audit.jsonl"))] {
        std::fs::create_dir_all(log.parent().unwrap()).unwrap();
        let out = lab.command(mode, "touch ran").env("SANDBOX_BASH_AUDIT_LOG", &log).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(125), "{stderr}");
        let head = format!("sandbox-bash: error: refusing to write the audit log to {}", log.display());
        assert!(stderr.starts_with(&head), "{stderr}");
        assert!(stderr.contains("could move it away"), "{stderr}");
        assert!(!log.exists() && !lab.ws.join("ran").exists());
    }
    // Where the mode does not let the command write, the same place is fine.
    let log = lab.ws.join("logs/audit.jsonl");
    let out = lab.command("0444", "true").env("SANDBOX_BASH_AUDIT_LOG", &log).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(lines(&log).len(), 1);
}

/// A dynamically linked sandbox-bash started with `LD_PRELOAD` may run code that is not its
/// own before it sends its record: the relay refuses it (and the nested run with it). The
/// static build has no loader, and its record is taken.
#[test]
fn a_nested_run_under_a_preloaded_library_is_refused_by_a_dynamic_build() {
    let lab = Lab::new();
    let log = lab.outside.join("audit.jsonl");
    let libm = ["/lib/x86_64-linux-gnu/libm.so.6", "/lib/aarch64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .expect("a C math library to preload");
    let program = format!("LD_PRELOAD={libm} {} -c 'echo preloaded-ran'; echo status=$?", lab::SB);
    let out = lab.command("0467", &program).env("SANDBOX_BASH_AUDIT_LOG", &log).output().unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    let records = lines(&log);
    if cfg!(target_feature = "crt-static") {
        assert_eq!(stdout, "preloaded-ran\nstatus=0\n", "{stderr}");
        assert_eq!(records[1]["nested"], true, "{records:#?}");
    } else {
        assert_eq!(stdout, "status=125\n", "{stderr}");
        let why = "the audit relay refused the record: sent by a sandbox-bash started with LD_PRELOAD";
        assert!(stderr.contains(why), "{stderr}");
        assert_eq!(records[1]["event"], "audit-channel", "{records:#?}");
    }
}

/// Python's subprocess closes the descriptors it inherited, the audit channel among them: a
/// nested run below it reaches the relay again at its socket, is recorded and says nothing on
/// the command's stderr. What is not sandbox-bash and connects there is refused and recorded;
/// the socket goes with the relay. (The sender stays a moment after it sends: the relay judges
/// a sender by the program it runs, and one that is gone is refused for another reason.)
#[test]
fn a_nested_run_below_a_program_that_closed_the_channel_is_still_recorded() {
    let lab = Lab::new();
    let log = lab.outside.join("audit.jsonl");
    let program = format!(
        "python3 -c 'import subprocess; r = subprocess.run([\"{sb}\", \"-c\", \"echo nested-ran\"], capture_output=True); \
         print(r.stdout.decode(), end=\"\"); print(\"stderr=\" + repr(r.stderr.decode()))'; \
         python3 -c 'import os, socket, time\ns = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)\n\
         d, n = os.path.split(os.environ[\"SANDBOX_BASH_AUDIT_RELAY\"]); os.chdir(d)\n\
         s.connect(n); s.send(b\"{{}}\"); print(\"sent\"); time.sleep(1)'",
        sb = lab::SB
    );
    // The state directory deep enough that the socket's path is longer than a socket address
    // holds: it is reached through a descriptor of its directory.
    let state = lab.home.join("x".repeat(100));
    let out = lab
        .command("0467", &program)
        .env("SANDBOX_BASH_AUDIT_LOG", &log)
        .env("XDG_STATE_HOME", &state)
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), "nested-ran\nstderr=''\nsent\n", "{}", text(&out.stderr));
    let records = lines(&log);
    let nested: Vec<_> = records.iter().filter(|r| r["nested"] == true).collect();
    assert_eq!(nested.len(), 1, "{records:#?}");
    assert_eq!(nested[0]["program"], "echo nested-ran");
    let refused: Vec<_> = records.iter().filter(|r| r["event"] == "audit-channel").collect();
    assert_eq!(refused.len(), 1, "{records:#?}");
    assert!(refused[0]["reason"].as_str().unwrap_or_default().contains("not sandbox-bash"), "{records:#?}");
    let relays = state.join("sandbox-bash/relays");
    let mut left = 1;
    for _ in 0..60 {
        left = std::fs::read_dir(&relays).map(|d| d.count()).unwrap_or(0);
        if left == 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(left, 0, "the relay's socket outlived it");
}

/// Without a log, the command gets no channel; a channel the caller names that is not one is
/// said (a program on the way closed it) and not passed on.
#[test]
fn no_log_no_channel() {
    let lab = Lab::new();
    let echo = "echo \"channel=${SANDBOX_BASH_AUDIT_CHANNEL-unset}\"";
    let out = lab.command("0467", echo).env("SANDBOX_BASH_AUDIT_CHANNEL", "7").output().unwrap();
    assert_eq!(text(&out.stdout), "channel=unset\n", "{}", text(&out.stderr));
    let warning = "sandbox-bash: warning: SANDBOX_BASH_AUDIT_CHANNEL=7 names no audit channel here";
    assert!(text(&out.stderr).starts_with(warning), "{}", text(&out.stderr));
    let out = lab.command("0467", echo).output().unwrap();
    assert_eq!(text(&out.stdout), "channel=unset\n");
    assert_eq!(text(&out.stderr), "");
}

/// A nested record longer than the relay's channel carries has its program text cut, and says
/// so; the run is recorded and goes on.
#[test]
fn a_long_nested_record_is_shortened_and_kept() {
    let lab = Lab::new();
    let log = lab.outside.join("audit.jsonl");
    let long = "echo long-program-line-of-the-nested-run > /dev/null\n".repeat(4000);
    std::fs::write(lab.ws.join("long.sh"), &long).unwrap();
    // A script file: one argument may not be that long.
    let program = format!("{} long.sh && echo nested-ran", lab::SB);
    let out = lab.command("0467", &program).env("SANDBOX_BASH_AUDIT_LOG", &log).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "nested-ran\n");
    let records = lines(&log);
    assert_eq!(records.len(), 2, "{records:#?}");
    let nested = &records[1];
    assert_eq!(nested["nested"], true);
    let program = nested["program"].as_str().unwrap();
    assert!(program.len() < long.len() && program.ends_with('…'), "{}", program.len());
    assert!(long.starts_with(program.trim_end_matches('…')));
    assert!(nested["note"].as_str().unwrap().contains(&format!("{} bytes long", long.len())), "{nested}");
}

/// A log named through a link is judged where it really is: a link at its end is refused, and
/// `link/..` that leads into the workspace is refused as the workspace.
#[test]
fn a_log_named_through_a_link_is_judged_where_it_is() {
    let lab = Lab::new();
    let logs = lab.outside.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::create_dir_all(lab.ws.join("sub")).unwrap();
    std::os::unix::fs::symlink(lab.ws.join("sub"), logs.join("into-ws")).unwrap();
    std::os::unix::fs::symlink(lab.ws.join("real.jsonl"), logs.join("link.jsonl")).unwrap();
    for (log, why) in [
        (logs.join("into-ws/../dotdot.jsonl"), "which mode 0467 lets commands write"),
        (logs.join("link.jsonl"), "it is a symbolic link"),
    ] {
        let out = lab.command("0467", "touch ran").env("SANDBOX_BASH_AUDIT_LOG", &log).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(125), "{stderr}");
        assert!(stderr.starts_with("sandbox-bash: error: refusing to write the audit log to "), "{stderr}");
        assert!(stderr.contains(why), "{stderr}");
        assert!(!lab.ws.join("ran").exists() && !lab.ws.join("dotdot.jsonl").exists());
    }
}

/// A command that sets up a listener of its own and points the nested levels at it, to answer
/// "written" in the relay's place, is found out: the level checks that whoever answers at the
/// relay's socket is outside the sandbox, says on stderr that it is not recorded, and sends the
/// listener nothing. The genuine relay, reached by its socket, records what of the sender's
/// environment changes what bash runs (an exported function, the shell options, the trace
/// prompt), as it is.
#[test]
fn a_listener_inside_the_sandbox_is_not_taken_for_the_relay_and_the_senders_environment_is_recorded() {
    let lab = Lab::new();
    let log = lab.outside.join("audit.jsonl");
    let fake = "import os, socket, subprocess, sys\n\
         path = os.path.join(os.getcwd(), \"fake-relay\")\n\
         s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.bind(path); s.listen(4); s.settimeout(5)\n\
         env = dict(os.environ, SANDBOX_BASH_AUDIT_RELAY=path)\n\
         r = subprocess.run([sys.argv[1], \"-c\", \"echo nested-ran\"], env=env, capture_output=True, text=True)\n\
         print(r.stdout, end=\"\"); print(r.stderr, end=\"\", file=sys.stderr)\n\
         try:\n    c, _ = s.accept(); c.settimeout(1); print(\"fake got\", len(c.recv(65536)))\n\
         except OSError as e:\n    print(\"fake got nothing\")";
    let program = format!(
        "{} {sb}; ls() {{ echo not-ls; }}; export -f ls; env PS4='$(id)' SHELLOPTS=xtrace {sb} -c 'echo second'",
        lab::py(fake),
        sb = lab::SB
    );
    let out = lab.command("0467", &program).env("SANDBOX_BASH_AUDIT_LOG", &log).output().unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(stdout.starts_with("nested-ran\nfake got "), "{stdout}{stderr}");
    // The level connected, saw who answered, and sent nothing.
    assert!(stdout.contains("fake got 0\n") || stdout.contains("fake got nothing\n"), "{stdout}");
    assert!(stderr.contains("names no audit relay: the socket at"), "{stderr}");
    assert!(stderr.contains("which is inside this sandbox, not by the relay; this run is not recorded"), "{stderr}");
    let records = lines(&log);
    let nested: Vec<_> = records.iter().filter(|r| r["nested"] == true).collect();
    assert_eq!(nested.len(), 1, "only the second nested run is recorded: {records:#?}");
    let environment = &nested[0]["environment"];
    assert_eq!(environment["BASH_FUNC_ls%%"], "() {  echo not-ls\n}", "{environment:#?}");
    assert_eq!(environment["PS4"], "$(id)", "{environment:#?}");
    assert_eq!(environment["SHELLOPTS"], "xtrace", "{environment:#?}");
}
