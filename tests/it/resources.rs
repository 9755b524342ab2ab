//! Resource limits, reached for real: a deadline, CPU time, memory, processes and the size of a
//! file, each with a small bound and a positive control under it that runs as without limits;
//! as root (the run's own cgroups) and as nobody (who may make no cgroup on this machine: a
//! deadline and a file size still hold, the others refuse the run with 125).
//!
//! Workspaces live under the build's directory, never /tmp.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::lab::{Lab, USERS, User, as_user, lab_for, text};

/// `program` under `limits` in `lab`'s workspace, as `user`.
fn limited(lab: &Lab, user: User, limits: &str, program: &str) -> Command {
    with_args(lab, user, limits, &["-c", program])
}

/// sandbox-bash with `args` under `limits` in `lab`'s workspace, as `user`.
fn with_args(lab: &Lab, user: User, limits: &str, args: &[&str]) -> Command {
    let inner = lab.command("0467", "true");
    let mut c = as_user(user, inner.get_program().to_str().unwrap());
    c.args(args);
    for (name, value) in inner.get_envs() {
        match value {
            Some(v) => c.env(name, v),
            None => c.env_remove(name),
        };
    }
    c.current_dir(&lab.ws).env("SANDBOX_BASH_LIMITS", limits).env_remove("SANDBOX_BASH_AUDIT_LOG");
    c.stdin(Stdio::null());
    c
}

fn run(lab: &Lab, user: User, limits: &str, program: &str) -> (Output, Duration) {
    let start = Instant::now();
    let out = limited(lab, user, limits, program).output().unwrap();
    (out, start.elapsed())
}

/// The limit lines of `out`'s stderr.
fn limit_lines(out: &Output) -> Vec<String> {
    text(&out.stderr).lines().filter(|l| l.starts_with("sandbox-bash: limit: ")).map(String::from).collect()
}

#[track_caller]
fn reached(out: &Output, type_name: &str, bound: &str) -> String {
    let lines = limit_lines(out);
    let want = format!("sandbox-bash: limit: {type_name} ({bound}) reached: ");
    assert!(
        lines.iter().any(|l| l.starts_with(&want)),
        "expected a line starting {want:?}, status {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    );
    lines.into_iter().find(|l| l.starts_with(&want)).unwrap()
}

#[track_caller]
fn clean(out: &Output, status: i32) -> String {
    assert_eq!(out.status.code(), Some(status), "stdout: {}\nstderr: {}", text(&out.stdout), text(&out.stderr));
    assert!(limit_lines(out).is_empty(), "no limit was reached: {}", text(&out.stderr));
    text(&out.stdout)
}

/// Whether the process `pid` still runs (a zombie has ended).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rfind(')').map(|i| !s[i + 2..].starts_with('Z')))
        .unwrap_or(false)
}

/// The pid of the process whose command line is exactly `words`, if one runs.
fn find(words: &[&str]) -> Option<i32> {
    let want: Vec<u8> = words.iter().flat_map(|w| w.bytes().chain([0])).collect();
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: i32 = e.file_name().to_str()?.parse().ok()?;
        (std::fs::read(format!("/proc/{pid}/cmdline")).ok()? == want && alive(pid)).then_some(pid)
    })
}

/// [`find`], for up to two seconds: a double fork may still be on its way.
fn wait_for(words: &[&str]) -> Option<i32> {
    (0..200).find_map(|_| {
        find(words).or_else(|| {
            std::thread::sleep(Duration::from_millis(10));
            None
        })
    })
}

/// A number no other test uses, for a process this test can find again.
fn unique() -> String {
    format!("{}.{}", 4000 + std::process::id() % 1000, Instant::now().elapsed().subsec_nanos() % 1000)
}

#[test]
fn the_deadline_ends_every_process_of_the_run_with_124_double_forks_too() {
    for user in USERS {
        let lab = lab_for(user);
        let seconds = unique();
        // The double-forked sleep leaves bash's process group and session.
        let program = format!("(setsid sleep {seconds} > /dev/null 2>&1 &); sleep 60");
        let (out, took) = run(&lab, user, "wall=1s", &program);
        assert_eq!(out.status.code(), Some(124), "{user:?}: {}", text(&out.stderr));
        reached(&out, "deadline", "1 s");
        assert!(took < Duration::from_secs(20), "{user:?}: the deadline took {took:?}");
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(find(&["sleep", &seconds]), None, "{user:?}: the double-forked sleep outlived the deadline");
        // The positive control: under the deadline, the same program's status and output.
        let (out, _) = run(&lab, user, "wall=30s", "(setsid true &); echo done; exit 3");
        assert_eq!(clean(&out, 3), "done\n", "{user:?}");
    }
}

#[test]
fn what_a_run_leaves_running_is_still_bound_by_its_deadline() {
    let lab = lab_for(User::Root);
    let seconds = unique();
    let program = format!("(setsid sleep {seconds} > /dev/null 2>&1 &); echo left");
    let log = tempfile::Builder::new().prefix("sbx-limits-left-").tempdir_in("/var/tmp").unwrap();
    let path = log.path().join("audit.log");
    let start = Instant::now();
    let out = limited(&lab, User::Root, "wall=2s", &program).env("SANDBOX_BASH_AUDIT_LOG", &path).output().unwrap();
    let took = start.elapsed();
    // The command ended at once with its own status; what it left runs until the deadline.
    assert_eq!(clean(&out, 0), "left\n");
    assert!(took < Duration::from_millis(1800), "the call waited for what it left: {took:?}");
    // The double fork may still be on its way when bash has ended.
    let pid = wait_for(&["sleep", &seconds]).expect("the server the run left is running");
    std::thread::sleep(Duration::from_millis(2600));
    assert!(!alive(pid), "what the run left outlived its deadline");
    // One record of it, from the guard that stopped it.
    std::thread::sleep(Duration::from_millis(500));
    let log_text = std::fs::read_to_string(&path).unwrap();
    let limits: Vec<&str> = log_text.lines().filter(|l| l.contains("\"event\":\"limit\"")).collect();
    assert_eq!(limits.len(), 1, "{log_text}");
    assert!(limits[0].contains("the processes the run left running were stopped at its deadline"), "{}", limits[0]);
}

#[test]
fn cpu_time_of_the_whole_run_ends_it_with_152() {
    let lab = lab_for(User::Root);
    // Two busy processes: the bound counts them together.
    let (out, took) = run(&lab, User::Root, "cpu=1s", "while :; do :; done & while :; do :; done");
    assert_eq!(out.status.code(), Some(152), "{}", text(&out.stderr));
    let line = reached(&out, "cpu_limit", "1 s");
    assert!(line.contains("of CPU time and was stopped: 2 processes"), "{line}");
    assert!(took < Duration::from_secs(15), "{took:?}");
    let (out, _) = run(&lab, User::Root, "cpu=5s", "echo fine");
    assert_eq!(clean(&out, 0), "fine\n");
}

#[test]
fn memory_of_the_whole_run_ends_it_together_with_137() {
    let lab = lab_for(User::Root);
    let grab = "python3 -c 'b = bytearray(300 * 1024 * 1024); print(len(b))'";
    let (out, _) = run(&lab, User::Root, "memory=64M", grab);
    assert_eq!(out.status.code(), Some(137), "{}", text(&out.stderr));
    let line = reached(&out, "memory_limit", "64 MiB");
    assert!(line.contains("was stopped"), "{line}");
    assert!(!text(&out.stdout).contains("314572800"), "the allocation did not succeed");
    let small = "python3 -c 'b = bytearray(8 * 1024 * 1024); print(len(b))'";
    let (out, _) = run(&lab, User::Root, "memory=64M", small);
    assert_eq!(clean(&out, 0), "8388608\n");
}

#[test]
fn processes_beyond_the_bound_fail_to_fork_with_eagain_and_are_told() {
    let lab = lab_for(User::Root);
    let forks = "python3 -c '
import os, time
n = 0
try:
    for i in range(60):
        if os.fork() == 0:
            time.sleep(1); os._exit(0)
        n += 1
except BlockingIOError as e:
    print(\"refused after\", n, \"errno\", e.errno)
'";
    let (out, _) = run(&lab, User::Root, "pids=20", forks);
    let stdout = text(&out.stdout);
    // EAGAIN is 11; bash, python and the sandbox-bash level before exec count toward the bound.
    assert!(stdout.starts_with("refused after ") && stdout.contains("errno 11"), "{stdout}");
    assert_eq!(out.status.code(), Some(0), "the program's own status stands: {}", text(&out.stderr));
    let line = reached(&out, "pids_limit", "20 processes and threads");
    assert!(line.contains("fork failed with EAGAIN"), "{line}");
    let (out, _) = run(&lab, User::Root, "pids=100", &forks.replace("range(60)", "range(10)"));
    assert_eq!(clean(&out, 0), "");
}

#[test]
fn a_file_past_its_size_limit_is_cut_and_told_for_every_user() {
    for user in USERS {
        let lab = lab_for(user);
        let (out, _) = run(&lab, user, "file=1M", "head -c 3000000 /dev/zero > big");
        assert_eq!(out.status.code(), Some(153), "{user:?}: {}", text(&out.stderr));
        reached(&out, "file_limit", "1 MiB");
        assert_eq!(std::fs::metadata(lab.ws.join("big")).unwrap().len(), 1 << 20, "{user:?}");
        let (out, _) = run(&lab, user, "file=1M", "head -c 500000 /dev/zero > small; wc -c < small");
        assert_eq!(clean(&out, 0).trim(), "500000", "{user:?}");
    }
}

#[test]
fn a_limit_that_cannot_be_held_refuses_the_run_with_125() {
    // nobody may make no cgroup on this machine (its groups are root's).
    let lab = lab_for(User::Nobody);
    for (limits, name) in
        [("memory=64M", "memory limit (64 MiB)"), ("pids=50", "pids limit (50"), ("cpu=5s", "cpu limit (5 s)")]
    {
        let program = "touch ran";
        let (out, _) = run(&lab, User::Nobody, limits, program);
        assert_eq!(out.status.code(), Some(125), "{limits}: {}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(err.contains(&format!("the {name}")) && err.contains("cannot be enforced here"), "{err}");
        assert!(err.contains("the command did not run"), "{err}");
        assert!(!lab.ws.join("ran").exists(), "{limits}: the command ran without its limit");
        // The explanation says the same before anything runs.
        let explained = with_args(&lab, User::Nobody, limits, &["--sandbox-explain", "-c", program]).output().unwrap();
        assert_eq!(explained.status.code(), Some(125), "{limits}: {}", text(&explained.stdout));
        assert!(text(&explained.stdout).contains("cannot be enforced here"), "{}", text(&explained.stdout));
    }
    // Only root may be asked before each write (fanotify pre-content events).
    let (out, _) = run(&lab, User::Nobody, "disk=1G", "touch ran");
    assert_eq!(out.status.code(), Some(125), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("the disk limit (1 GiB) cannot be enforced here") && err.contains("CAP_SYS_ADMIN"), "{err}");
    assert!(!lab.ws.join("ran").exists());
    // A tmpfs scratch tree tells no write before it is made: refused, naming it.
    let lab = lab_for(User::Root);
    let out = with_args(&lab, User::Root, "disk=1G", &["-c", "touch ran"]).env("TMPDIR", "/dev/shm").output().unwrap();
    assert_eq!(out.status.code(), Some(125), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("/dev/shm is a tmpfs"), "{}", text(&out.stderr));
    assert!(!lab.ws.join("ran").exists());
    // A mistake in the variable is the user's own error, named.
    let lab = lab_for(User::Root);
    let (out, _) = run(&lab, User::Root, "memory=lots", "touch ran");
    assert_eq!(out.status.code(), Some(125));
    assert!(text(&out.stderr).contains("invalid SANDBOX_BASH_LIMITS: memory = \"lots\""), "{}", text(&out.stderr));
}

#[test]
fn the_keeper_cannot_be_signalled_from_inside_and_passes_the_callers_signals_on() {
    for user in USERS {
        let lab = lab_for(user);
        // The run's parent is the keeper, outside its sandbox: a signal to it is refused.
        let (out, _) = run(&lab, user, "wall=3s", "kill -KILL $PPID; echo \"kill: $?\"; sleep 30");
        assert_eq!(out.status.code(), Some(124), "{user:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("Operation not permitted"), "{user:?}: {}", text(&out.stderr));
        assert!(text(&out.stdout).contains("kill: 1"), "{user:?}");
        reached(&out, "deadline", "3 s");
        // Nor can it be traced.
        let trace = "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); \
                     r = libc.ptrace(16, os.getppid(), 0, 0); print('ptrace', r, ctypes.get_errno())";
        let (out, _) = run(&lab, user, "wall=30s", &crate::lab::py(trace));
        assert_eq!(text(&out.stdout), "ptrace -1 1\n", "{user:?}: {}", text(&out.stderr));
        // A signal the caller sends the process it started reaches bash.
        let child = limited(&lab, user, "wall=60s", "trap 'echo got TERM; kill %1; exit 7' TERM; sleep 30 & wait")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(800));
        // SAFETY: a signal to the child this test started.
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(7), "{user:?}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "got TERM\n");
    }
}

#[test]
fn bash_killed_by_a_signal_looks_killed_by_it_to_the_caller() {
    use std::os::unix::process::ExitStatusExt;
    let lab = lab_for(User::Root);
    let (out, _) = run(&lab, User::Root, "wall=30s", "kill -USR1 $$");
    assert_eq!(out.status.signal(), Some(libc::SIGUSR1), "{:?} {}", out.status, text(&out.stderr));
    assert!(limit_lines(&out).is_empty());
}

#[test]
fn other_processes_of_the_caller_are_not_touched() {
    let lab = lab_for(User::Root);
    let seconds = unique();
    let mut sibling = Command::new("sleep").arg(&seconds).spawn().unwrap();
    let (out, _) = run(&lab, User::Root, "wall=1s,memory=64M,pids=30,cpu=5s", "sleep 20");
    assert_eq!(out.status.code(), Some(124), "{}", text(&out.stderr));
    assert!(alive(sibling.id() as i32), "a process outside the run was stopped");
    sibling.kill().unwrap();
    sibling.wait().unwrap();
}

#[test]
fn the_declaration_names_each_limit_and_what_holds_it() {
    let lab = lab_for(User::Root);
    let limits = "cpu=60s,memory=2G,pids=256,disk=1G,wall=10m,file=512M";
    let info = with_args(&lab, User::Root, limits, &["--sandbox-info"]).output().unwrap();
    let info_text = text(&info.stdout);
    let first = info_text.lines().next().unwrap_or_default();
    assert!(first.starts_with("sandbox:   fs=workspace-write network="), "{first}");
    assert!(first.ends_with(" limits={cpu=1m,memory=2G,pids=256,disk=1G,wall=10m,file=512M}"), "{first}");
    for line in [
        "memory 2 GiB: cgroup v1 memory",
        "pids 256 processes and threads: cgroup v1 pids",
        "cpu 60 s: cgroup v2",
        "disk 1 GiB: the keeper, which the kernel asks before each write to the run's own mounts of /tmp",
        "wall 600 s: the keeper",
        "file 512 MiB: a resource limit on every process (RLIMIT_FSIZE)",
    ] {
        assert!(info_text.contains(line), "missing {line:?}:\n{info_text}");
    }
    // nobody: what cannot be held is said, and that commands are refused.
    let lab = lab_for(User::Nobody);
    let info = with_args(&lab, User::Nobody, "memory=2G,wall=10m", &["--sandbox-info"]).output().unwrap();
    let info_text = text(&info.stdout);
    assert!(info_text.contains("the memory limit (2 GiB) cannot be enforced here"), "{info_text}");
    assert!(info_text.contains("every command is refused (status 125)"), "{info_text}");
    let plain = with_args(&lab, User::Nobody, "", &["--sandbox-info"]).output().unwrap();
    assert!(text(&plain.stdout).lines().next().unwrap_or_default().ends_with(" limits=none"));
    assert!(text(&plain.stdout).contains("no limits on CPU time, memory, processes or disk use"));
    // The JSON form has the same line.
    let json = with_args(&lab, User::Nobody, "wall=10m", &["--sandbox-info", "--sandbox-json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(v["sandbox"].as_str().unwrap().ends_with(" limits={wall=10m}"), "{v}");
}

#[test]
fn the_audit_log_has_the_declaration_and_a_record_of_each_limit_reached() {
    let lab = lab_for(User::Root);
    let log = tempfile::Builder::new().prefix("sbx-limits-audit-").tempdir_in("/var/tmp").unwrap();
    let path = log.path().join("audit.log");
    let out = limited(&lab, User::Root, "wall=1s,memory=256M", "sleep 10")
        .env("SANDBOX_BASH_AUDIT_LOG", &path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(124), "{}", text(&out.stderr));
    let records: Vec<serde_json::Value> =
        std::fs::read_to_string(&path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let run = records.iter().find(|r| r["verdict"] == "allow").expect("the run's record");
    let sandbox = run["sandbox"].as_str().unwrap();
    assert!(
        sandbox.starts_with("fs=workspace-write ") && sandbox.ends_with(" limits={memory=256M,wall=1s}"),
        "{sandbox}"
    );
    let limit = records.iter().find(|r| r["event"] == "limit").expect("the limit's record");
    assert_eq!(limit["type"], "deadline");
    assert_eq!(limit["bound"], "1 s");
    assert_eq!(limit["command_pid"], run["pid"]);
    assert!(limit["peak"]["memory_bytes"].as_u64().is_some_and(|m| m > 0), "{limit}");
    assert!(limit["peak"]["wall_ms"].as_u64().is_some_and(|m| m >= 1000), "{limit}");
    assert_eq!(limit["sandbox"], run["sandbox"]);
}

#[test]
fn a_nested_level_lowers_the_deadline_and_cannot_raise_it() {
    let lab = lab_for(User::Root);
    // Lowered inside: the inner command ends at its own deadline, the outer goes on.
    let sb = crate::lab::SB;
    let program = format!("SANDBOX_BASH_LIMITS=wall=1s {sb} -c 'sleep 20'; echo \"inner: $?\"");
    let (out, took) = run(&lab, User::Root, "wall=30s", &program);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "inner: 124\n");
    assert!(took < Duration::from_secs(15));
    // Raised inside: the outer deadline still holds.
    let program = format!("SANDBOX_BASH_LIMITS=wall=60s {sb} -c 'sleep 20'; echo \"inner: $?\"");
    let (out, _) = run(&lab, User::Root, "wall=1s", &program);
    assert_eq!(out.status.code(), Some(124), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");
}

/// cgroup v2 as a container sees it: the run's own cgroup namespace, whose root is a group
/// this test made, with the unified hierarchy mounted anew inside it (so /proc/self/cgroup says
/// `0::/` and the mount shows only the subtree). The run makes its group below that root,
/// counts its CPU time there and stops its whole tree through `cgroup.kill`.
#[test]
fn in_a_cgroup_namespace_the_run_holds_its_tree_in_a_group_below_the_namespace_root() {
    let lab = lab_for(User::Root);
    let v2 = sandbox_bash::limits::cgroup::hierarchies().into_iter().find(|h| h.v2).unwrap_or_else(|| {
        panic!("MISSING: this test needs a cgroup v2 hierarchy (this machine mounts one); it fails rather than skips")
    });
    let root = format!("{}/sbx-test-ns-{}", v2.current, std::process::id());
    std::fs::create_dir(&root).unwrap();
    let sb = crate::lab::SB;
    let inner = format!("{sb} -c 'cat /proc/self/cgroup; sleep 30'");
    let script = format!(
        "echo $$ > {root}/cgroup.procs && exec unshare --cgroup --mount sh -c \
         'umount -l {mount} && mount -t cgroup2 none {mount} && grep ^0:: /proc/self/cgroup && exec {inner}'",
        mount = v2.mount,
        inner = inner.replace('\'', "'\\''"),
    );
    let mut c = lab.command("0467", "true");
    let envs: Vec<_> = c.get_envs().map(|(n, v)| (n.to_owned(), v.map(|v| v.to_owned()))).collect();
    c = Command::new("sh");
    c.arg("-c").arg(&script).current_dir(&lab.ws).stdin(Stdio::null());
    for (n, v) in envs {
        match v {
            Some(v) => c.env(n, v),
            None => c.env_remove(n),
        };
    }
    c.env("SANDBOX_BASH_LIMITS", "wall=1s,cpu=30s");
    let out = c.output().unwrap();
    // The keeper removes the run's group before it ends.
    let groups: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    for _ in 0..200 {
        if std::fs::remove_dir(&root).is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!std::path::Path::new(&root).exists(), "the test's own group could not be removed");
    assert_eq!(out.status.code(), Some(124), "{}\n{}", text(&out.stdout), text(&out.stderr));
    reached(&out, "deadline", "1 s");
    let stdout = text(&out.stdout);
    let mut lines = stdout.lines().filter(|l| l.starts_with("0::"));
    assert_eq!(lines.next(), Some("0::/"), "the namespace's root: {stdout}");
    let run = lines.next().unwrap_or_default();
    assert!(run.starts_with("0::/sandbox-bash-"), "the run's own group below it: {stdout}");
    assert!(groups.is_empty(), "the run's group was left behind: {groups:?}");
}

/// A run whose keeper was killed with its caller's process group leaves its group behind: the
/// next run with limits removes it once empty, and leaves a group whose keeper's pid is in use.
#[test]
fn groups_left_by_a_killed_keeper_are_swept_by_the_next_run() {
    let lab = lab_for(User::Root);
    let v2 = sandbox_bash::limits::cgroup::hierarchies().into_iter().find(|h| h.v2).expect("MISSING: cgroup v2");
    let stale = format!("{}/sandbox-bash-2147480001", v2.current);
    let live = format!("{}/sandbox-bash-{}", v2.current, std::process::id());
    std::fs::create_dir(&stale).unwrap();
    std::fs::create_dir(&live).unwrap();
    let (out, _) = run(&lab, User::Root, "cpu=10s", "true");
    let (stale_left, live_left) = (std::path::Path::new(&stale).exists(), std::path::Path::new(&live).exists());
    let _ = std::fs::remove_dir(&stale);
    let _ = std::fs::remove_dir(&live);
    clean(&out, 0);
    assert!(!stale_left, "the stale group was left");
    assert!(live_left, "a group whose keeper's pid is in use was removed");
}

/// Harnesses time out with SIGKILL to the process they started (and its process group): the
/// run's processes still end at the deadline, and its groups go.
#[test]
fn a_killed_keeper_leaves_nothing_past_the_deadline() {
    let lab = lab_for(User::Root);
    let seconds = unique();
    let program = format!("(setsid sleep {seconds} > /dev/null 2>&1 &); sleep 30");
    let mut child = limited(&lab, User::Root, "wall=2s,memory=256M", &program).stderr(Stdio::null()).spawn().unwrap();
    let keeper = child.id();
    let pid = wait_for(&["sleep", &seconds]).expect("the double fork runs");
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(alive(pid), "killed before its deadline: the test shows nothing");
    std::thread::sleep(Duration::from_millis(2600));
    assert!(!alive(pid), "a process of the run outlived its deadline after its keeper was killed");
    let name = format!("sandbox-bash-{keeper}");
    let left: Vec<String> = sandbox_bash::limits::cgroup::hierarchies()
        .iter()
        .map(|h| format!("{}/{name}", h.current))
        .filter(|d| std::path::Path::new(d).exists())
        .collect();
    assert!(left.is_empty(), "groups left: {left:?}");
}

/// A caller that stopped reading standard error does not kill the keeper (SIGPIPE).
#[test]
fn a_closed_stderr_does_not_lose_the_status() {
    let lab = lab_for(User::Root);
    let mut child = limited(&lab, User::Root, "wall=1s,pids=50", "sleep 10").stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(124), "{status:?}");
}

/// Without a deadline the keeper does not wait for what the command left running.
#[test]
fn without_a_deadline_the_call_ends_with_the_command() {
    for user in USERS {
        let lab = lab_for(user);
        let (out, took) = run(&lab, user, "file=1M", "(setsid sleep 3 > /dev/null 2>&1 &); echo ended");
        assert_eq!(clean(&out, 0), "ended\n", "{user:?}");
        assert!(took < Duration::from_millis(2500), "{user:?}: the call waited {took:?}");
    }
}

/// A marker is an environment variable: one that claims limits nothing holds enforces nothing
/// less.
#[test]
fn a_forged_marker_does_not_turn_a_limit_off() {
    let lab = lab_for(User::Root);
    let marker = format!("0467+lim=wall=1ms,memory=1,cpu=1ms:{}", lab.ws.display());
    let (out, took) = {
        let start = Instant::now();
        let out = limited(&lab, User::Root, "wall=1s,memory=64M", "sleep 5")
            .env("SANDBOX_BASH_ENFORCED", &marker)
            .output()
            .unwrap();
        (out, start.elapsed())
    };
    assert_eq!(out.status.code(), Some(124), "{}", text(&out.stderr));
    reached(&out, "deadline", "1 s");
    assert!(took < Duration::from_secs(4));
}

/// A name in /tmp for this test's own file (scratch is what the disk limit counts).
fn scratch_file(tag: &str) -> String {
    format!("/tmp/sbx-disk-{tag}-{}", unique())
}

#[test]
fn writes_past_the_disk_limit_fail_with_enospc_and_are_told() {
    let lab = lab_for(User::Root);
    let f = scratch_file("dd");
    // dd, then python: what the analysis cannot see is held the same.
    let program = format!(
        "dd if=/dev/zero of={f} bs=1M count=20 2>/dev/null; echo \"dd: $?\"; stat -c %s {f}; rm -f {f}
python3 -c '
import errno
f = open(\"{f}\", \"wb\")
try:
    for i in range(20): f.write(bytes(1 << 20)); f.flush()
except OSError as e: print(\"python:\", errno.errorcode[e.errno])
'
rm -f {f}"
    );
    let log = tempfile::Builder::new().prefix("sbx-limits-disk-").tempdir_in("/var/tmp").unwrap();
    let path = log.path().join("audit.log");
    let out = limited(&lab, User::Root, "disk=8M", &program).env("SANDBOX_BASH_AUDIT_LOG", &path).output().unwrap();
    let stdout = text(&out.stdout);
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("dd: 1"), "{stdout}\n{}", text(&out.stderr));
    let size: u64 = lines.next().and_then(|l| l.parse().ok()).expect("the size of what dd wrote");
    assert!((4 << 20..=8 << 20).contains(&size), "dd wrote {size} bytes");
    assert_eq!(lines.next(), Some("python: ENOSPC"), "{stdout}");
    // The program's own status stands; the line names the type, the bound and what failed.
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let line = reached(&out, "disk_limit", "8 MiB");
    assert!(line.contains(&format!("a write to {f} failed with ENOSPC")), "{line}");
    assert!(!std::path::Path::new(&f).exists());
    // One record, with the same words and the most the run had added.
    let log_text = std::fs::read_to_string(&path).unwrap();
    let records: Vec<serde_json::Value> = log_text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &serde_json::Value| r["event"] == "limit")
        .collect();
    assert_eq!(records.len(), 1, "{log_text}");
    assert_eq!(records[0]["type"], "disk_limit");
    assert_eq!(records[0]["bound"], "8 MiB");
    let peak = records[0]["peak"]["disk_bytes"].as_u64().unwrap_or(0);
    assert!((4 << 20..=8 << 20).contains(&peak), "{}", records[0]);
    // The positive control: under the bound, and what the run deletes gives its room back.
    // A large sparse file written in one place adds what is written, not its length.
    let program = format!(
        "head -c 6000000 /dev/zero > {f}; rm {f}; head -c 6000000 /dev/zero > {f}; wc -c < {f}; rm {f}
truncate -s 100M {f}; dd if=/dev/zero of={f} bs=4k seek=20000 count=1 conv=notrunc 2>/dev/null && echo sparse; rm {f}"
    );
    let (out, _) = run(&lab, User::Root, "disk=8M", &program);
    assert_eq!(clean(&out, 0), "6000000\nsparse\n");
    // The workspace is not scratch.
    let (out, _) = run(&lab, User::Root, "disk=8M", "head -c 20000000 /dev/zero > big; wc -c < big; rm big");
    assert_eq!(clean(&out, 0).trim(), "20000000");
}

#[test]
fn the_disk_limit_is_not_fooled_by_open_deleted_files_and_lets_reads_through() {
    let lab = lab_for(User::Root);
    let (a, b, small) = (scratch_file("a"), scratch_file("b"), scratch_file("small"));
    let program = format!(
        "python3 -c '
import errno, os
def fill(f, n):
    try:
        for i in range(n): f.write(bytes(1 << 20)); f.flush()
        return \"ok\"
    except OSError as e: return errno.errorcode[e.errno]
a = open(\"{a}\", \"wb\"); print(\"a:\", fill(a, 6)); os.unlink(\"{a}\")
b = open(\"{b}\", \"wb\"); print(\"b while a is open:\", fill(b, 6))
t = os.fdopen(os.open(\"/tmp\", os.O_TMPFILE | os.O_WRONLY), \"wb\"); print(\"unnamed:\", fill(t, 6))
a.close(); t.close(); b.close(); os.unlink(\"{b}\")
s = open(\"{small}\", \"wb\"); print(\"near the bound:\", fill(s, 7)); s.close()
print(\"read past the end:\", len(open(\"{small}\", \"rb\").read(64 << 20)))
os.unlink(\"{small}\")
'"
    );
    let (out, _) = run(&lab, User::Root, "disk=8M", &program);
    assert_eq!(
        text(&out.stdout),
        "a: ok\nb while a is open: ENOSPC\nunnamed: ENOSPC\nnear the bound: ok\nread past the end: 7340032\n",
        "{}",
        text(&out.stderr)
    );
    reached(&out, "disk_limit", "8 MiB");
    for f in [&a, &b, &small] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn what_a_run_leaves_running_stays_within_the_disk_limit() {
    let lab = lab_for(User::Root);
    let f = scratch_file("left");
    let status = lab.ws.join("left-status");
    // The command ends at once; what it left writes a moment later, through the guard.
    let program = format!(
        "(sleep 1; dd if=/dev/zero of={f} bs=1M count=20 2>/dev/null; echo $? > {}) > /dev/null 2>&1 &
head -c 3000000 /dev/zero > {f}.first; rm {f}.first; echo left",
        status.display()
    );
    let (out, took) = run(&lab, User::Root, "disk=8M", &program);
    assert_eq!(clean(&out, 0), "left\n");
    assert!(took < Duration::from_millis(900), "the call waited for what it left: {took:?}");
    let done = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(100));
        std::fs::read_to_string(&status).is_ok_and(|s| s.ends_with('\n'))
    });
    assert!(done, "the process the run left did not finish");
    assert_eq!(std::fs::read_to_string(&status).unwrap(), "1\n");
    let size = std::fs::metadata(&f).unwrap().len();
    std::fs::remove_file(&f).unwrap();
    assert!(size <= 8 << 20, "what the run left wrote {size} bytes");
}

#[test]
fn a_nested_level_writes_within_the_outer_disk_limit_and_cannot_lower_it() {
    let lab = lab_for(User::Root);
    let sb = crate::lab::SB;
    let f = scratch_file("nested");
    let program = format!(
        "{sb} -c 'dd if=/dev/zero of={f} bs=1M count=20 2>/dev/null; echo \"inner dd: $?\"'; rm -f {f}
SANDBOX_BASH_LIMITS=disk=4M {sb} -c 'echo lowered ran'; echo \"lowered: $?\""
    );
    let (out, _) = run(&lab, User::Root, "disk=8M", &program);
    assert_eq!(text(&out.stdout), "inner dd: 1\nlowered: 125\n", "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("the disk limit (4 MiB) cannot be enforced here"), "{}", text(&out.stderr));
    reached(&out, "disk_limit", "8 MiB");
}

#[test]
fn appends_holes_mappings_and_racing_writers_are_counted_as_what_they_add() {
    let lab = lab_for(User::Root);
    let f = scratch_file("shapes");
    // Each shape tries to add 40 MiB under an 8 MiB bound, through python, which the analysis
    // cannot see into; each prints how much the file took.
    let program = format!(
        r#"python3 -c '
import ctypes, errno, os, threading
f, M = "{f}", 1 << 20
def took(): n = os.stat(f).st_blocks * 512; os.unlink(f); return n // M
def fill(write):
    try:
        for i in range(40): write(i)
        return "all"
    except OSError as e: return errno.errorcode[e.errno]
# Appending: the call names the file position, the write lands at the end.
fd = os.open(f, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
print("append", fill(lambda i: (os.lseek(fd, 0, 0), os.write(fd, bytes(M)))), took()); os.close(fd)
fd = os.open(f, os.O_WRONLY | os.O_CREAT)
os.write(fd, bytes(M))
print("rwf_append", fill(lambda i: os.pwritev(fd, [bytes(M)], 0, os.RWF_APPEND)), took()); os.close(fd)
# Filling the holes below data written far out.
fd = os.open(f, os.O_RDWR | os.O_CREAT)
os.pwrite(fd, bytes(4 * M), 1 << 30)
print("holes", fill(lambda i: os.pwrite(fd, bytes(M), i * M)), took()); os.close(fd)
# A read-only shared mapping of a descriptor that may write, made writable afterwards.
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
fd = os.open(f, os.O_RDWR | os.O_CREAT)
os.ftruncate(fd, 40 * M)
p = libc.mmap(None, 40 * M, 1, 1, fd, 0)
if p in (None, ctypes.c_void_p(-1).value): print("mapping", errno.errorcode[ctypes.get_errno()], took())
else:
    libc.mprotect(ctypes.c_void_p(p), 40 * M, 3); ctypes.memset(p, 1, 40 * M); print("mapping", "all", took())
os.close(fd)
# A small shared mapping of a file with no hole, then the file made longer: a mapping grown
# later could fill it.
fd = os.open(f, os.O_RDWR | os.O_CREAT)
os.write(fd, bytes(4096))
p = libc.mmap(None, 4096, 3, 1, fd, 0)
print("grown", fill(lambda i: os.ftruncate(fd, (i + 1) * M)), took()); os.close(fd)
# What a mapping may fill counts while it is mapped, deleted or not.
libc.munmap(ctypes.c_void_p(p), 4096)
fd = os.open(f, os.O_RDWR | os.O_CREAT)
os.write(fd, bytes(4096))
p = libc.mmap(None, 4096, 3, 1, fd, 0)
print("written_past", fill(lambda i: os.pwrite(fd, b"x", (i + 1) * M - 1)), took()); os.close(fd)
libc.munmap(ctypes.c_void_p(p), 4096)
# A file in the inode of a deleted one the run wrote is a new file, counted from nothing.
def reused(i):
    a = f + ".old"
    with open(a, "wb") as w: w.write(bytes(M))
    ino = os.stat(a).st_ino; os.unlink(a)
    for j in range(3000):
        b = "%s.%d.%d" % (f, i, j)
        open(b, "wb").close()
        if os.stat(b).st_ino == ino: break
        os.unlink(b)
    else: return
    with open(b, "wb") as w: w.write(bytes(6 * M))
    try:
        with open(f + ".push", "wb") as w: w.write(bytes(3 * M))
    finally:
        if os.path.exists(f + ".push"): os.unlink(f + ".push")
    with open(b, "ab") as w: w.write(b"x")
try:
    for i in range(5): reused(i)
    print("reused", "all", 0)
except OSError as e: print("reused", errno.errorcode[e.errno], 0)
import glob
[os.unlink(x) for x in glob.glob(f + ".*")]
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
def both(g):
    n = (os.stat(f).st_blocks + os.stat(g).st_blocks) * 512; os.unlink(f); os.unlink(g); return n // M
# A hole punched under a shared mapping of a file with none, filled again through it: no event.
fd = os.open(f, os.O_RDWR | os.O_CREAT)
os.write(fd, bytes(4 * M))
p = libc.mmap(None, 4 * M, 3, 1, fd, 0)
libc.fallocate(fd, 3, 0, 4 * M)
gd = os.open(f + ".g", os.O_WRONLY | os.O_CREAT)
r = fill(lambda i: os.write(gd, bytes(M)))
ctypes.memset(p, 2, 4 * M); libc.munmap(ctypes.c_void_p(p), 4 * M)
print("punched", r, both(f + ".g")); os.close(fd); os.close(gd)
# Writes let through and waiting (a splice from an empty pipe) while a shared mapping fills
# the same file: what the mapping filled is not what they owe.
fd = os.open(f, os.O_RDWR | os.O_CREAT)
pipes = [os.pipe() for i in range(4)]
import fcntl, time
[fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, M) for r, w in pipes]
ts = [threading.Thread(target=os.splice, args=(pipes[i][0], fd, M), kwargs=dict(offset_dst=(4 + i) * M)) for i in range(4)]
[t.start() for t in ts]; time.sleep(0.3)
os.ftruncate(fd, 4 * M)
p = libc.mmap(None, 4 * M, 3, 1, fd, 0)
ctypes.memset(p, 1, 4 * M); os.pread(fd, 1, 0)
gd = os.open(f + ".g", os.O_WRONLY | os.O_CREAT)
r = fill(lambda i: os.write(gd, bytes(M)))
[os.write(w, bytes(M)) for r_, w in pipes]; [t.join() for t in ts]
libc.munmap(ctypes.c_void_p(p), 4 * M)
print("spliced", r, both(f + ".g")); os.close(fd); os.close(gd)
# Deleted files held only by descriptors sent over a socket count: the run can take them back.
import socket
sa, sb = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
sent = []
def send(i):
    g = "%s.s%d" % (f, i)
    gd = os.open(g, os.O_RDWR | os.O_CREAT)
    try: os.write(gd, bytes(3 * M))
    finally: socket.send_fds(sa, [b"x"], [gd]); os.close(gd); os.unlink(g); sent.append(i)
r = fill(send)
back = [socket.recv_fds(sb, 10, 1)[1][0] for i in sent]
print("sent", r, sum(os.fstat(x).st_blocks for x in back) * 512 // M); [os.close(x) for x in back]
# Twelve threads writing 4 MiB each into one file at once, four times: the writes land in any
# order, and in pieces.
for round in range(4):
    fd = os.open(f, os.O_RDWR | os.O_CREAT)
    gate, results = threading.Barrier(12), []
    def one(i):
        gate.wait()
        try: os.pwrite(fd, bytes(4 * M), i * 4 * M); results.append("ok")
        except OSError: results.append("no")
    ts = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    [t.start() for t in ts]; [t.join() for t in ts]
    print("threads", results.count("ok"), took()); os.close(fd)
'"#
    );
    let (out, _) = run(&lab, User::Root, "disk=8M", &program);
    let stdout = text(&out.stdout);
    let _ = std::fs::remove_file(&f);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 14, "{stdout}\n{}", text(&out.stderr));
    for line in lines {
        let words: Vec<&str> = line.split(' ').collect();
        let took: u64 = words.last().and_then(|w| w.parse().ok()).unwrap_or(u64::MAX);
        assert!(took <= 8, "{line}: the file took {took} MiB under an 8 MiB bound\n{stdout}");
        assert!(!line.contains(" all "), "{line}: every write went through");
    }
    reached(&out, "disk_limit", "8 MiB");
}

/// Runs `rewrite` (python that rewrites the file `f` in place, its `M` and `K` 1 MiB and 64
/// KiB, and prints what it names) under an 8 MiB bound: nothing is added, nothing is refused.
fn rewritten_in_place_under_the_bound(tag: &str, rewrite: &str, printed: &str) {
    let lab = lab_for(User::Root);
    let f = scratch_file(tag);
    let program = format!(
        r#"python3 -c '
import os, threading, mmap
f, M, K = "{f}", 1 << 20, 64 << 10
fd = os.open(f, os.O_RDWR | os.O_CREAT)
os.write(fd, bytes(M))
{rewrite}
'"#
    );
    let (out, _) = run(&lab, User::Root, "disk=8M", &program);
    let _ = std::fs::remove_file(&f);
    assert_eq!(text(&out.stdout), printed, "{}", text(&out.stderr));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(limit_lines(&out).is_empty(), "{:?}", limit_lines(&out));
}

#[test]
fn threads_rewriting_a_file_in_place_are_not_refused() {
    // A database's shape: two threads rewrite a 1 MiB file, 64 KiB at a time, 800 writes in
    // all (50 MiB written, nothing added).
    rewritten_in_place_under_the_bound(
        "rewritten",
        "done = []
def rewrite(i):
    for j in range(400): os.pwrite(fd, bytes(K), ((2 * j + i) * K) % M)
    done.append(i)
ts = [threading.Thread(target=rewrite, args=(i,)) for i in range(2)]
[t.start() for t in ts]; [t.join() for t in ts]
print(len(done), os.stat(f).st_blocks * 512 // M)",
        "2 1\n",
    );
}

#[test]
fn a_mapped_file_rewritten_in_place_is_not_refused() {
    // sqlite with `mmap_size`, LMDB: a 1 MiB file mapped shared and rewritten with writes, 64
    // KiB at a time, 400 times (25 MiB written, nothing added).
    rewritten_in_place_under_the_bound(
        "mapped-rewritten",
        "m = mmap.mmap(fd, M, mmap.MAP_SHARED, mmap.PROT_READ)
for j in range(400): os.pwrite(fd, bytes(K), (j * K) % M)
print(m[0], os.stat(f).st_blocks * 512 // M)",
        "0 1\n",
    );
}

#[test]
fn a_killed_keeper_leaves_the_disk_limit_to_the_guard() {
    let lab = lab_for(User::Root);
    let f = scratch_file("killed");
    let status = lab.ws.join("killed-status");
    // A second and a bit that names this test's sleep.
    let seconds = format!("1.{}", 100 + std::process::id() % 900);
    // The keeper is killed; what the run left writes afterwards.
    let program = format!(
        "(sleep {seconds}; head -c 3000000 /dev/zero > {f}.a;
          dd if=/dev/zero of={f} bs=1M count=20 2>/dev/null; echo $? > {}) > /dev/null 2>&1 &
sleep 30",
        status.display()
    );
    let mut child = limited(&lab, User::Root, "disk=8M,wall=30s", &program).stderr(Stdio::null()).spawn().unwrap();
    wait_for(&["sleep", &seconds]).expect("the run's background job runs");
    child.kill().unwrap();
    child.wait().unwrap();
    let done = (0..200).any(|_| {
        std::thread::sleep(Duration::from_millis(100));
        std::fs::read_to_string(&status).is_ok_and(|s| s.ends_with('\n'))
    });
    let size = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
    let _ = std::fs::remove_file(&f);
    let _ = std::fs::remove_file(format!("{f}.a"));
    assert!(done, "the job the run left did not finish");
    assert_eq!(std::fs::read_to_string(&status).unwrap(), "1\n", "its write past the bound went through");
    assert!(size <= 8 << 20, "the job wrote {size} bytes after its keeper was killed");
}
