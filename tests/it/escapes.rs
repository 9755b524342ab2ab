//! Escapes that the seccomp filter and the dropped capabilities close in every mode, tried the
//! way an attacker would: through the program on standard input (which the static layer does
//! not see), as root and as an unprivileged user. Each denial asserts the errno and that the
//! target is unchanged; each has a positive control.
#![cfg(target_os = "linux")]

use crate::lab;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use lab::{Lab, NOBODY, SB, USERS, User, as_user, give, kernel_refused, lab_for, ok, text};

/// sandbox-bash under `mode`, reading `script` on standard input, run by `user` in the lab's
/// workspace. Python is the system's, which every user can run.
fn run(lab: &Lab, user: User, mode: &str, script: &str) -> Output {
    run_in(lab, user, &lab.home, "/usr/bin:/bin:/usr/sbin:/sbin", mode, script)
}

/// Like [`run`], with `home` as the home directory and `path` as `PATH`.
fn run_in(lab: &Lab, user: User, home: &Path, path: &str, mode: &str, script: &str) -> Output {
    use std::io::Write;
    let mut c = as_user(user, SB);
    c.arg("-s").current_dir(&lab.ws).env_clear();
    c.env("BASH_AGENT_BASH_MODE", mode).env("SANDBOX_BASH_WORKSPACE", &lab.ws).env("HOME", home);
    c.env("PATH", path).env("LC_ALL", "C");
    c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn mode_bits(p: &Path) -> u32 {
    std::fs::metadata(p).map(|m| m.permissions().mode() & 0o7777).unwrap_or(0)
}

/// A file of scratch space this test owns, removed when dropped.
struct ScratchFile(std::path::PathBuf);

impl ScratchFile {
    fn new(tag: &str) -> ScratchFile {
        let p = std::path::PathBuf::from(format!("/tmp/sbx-escape-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_file(&p);
        ScratchFile(p)
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn no_mode_lets_a_command_plant_a_setuid_or_setgid_program() {
    for user in USERS {
        let lab = lab_for(user);
        let copy = ScratchFile::new(&format!("suid-{user:?}"));
        let created = ScratchFile::new(&format!("created-{user:?}"));
        let in_ws = lab.ws.join("prog");
        for mode in ["0004", "0467", "7777"] {
            // In scratch: chmod(1), Python's chmod, and a file created with the bit.
            let mut script = format!(
                "cp /bin/true {c}; chmod 4755 {c}; /usr/bin/python3 -c 'import os; os.chmod(\"{c}\", 0o2755)'; \
                 /usr/bin/python3 -c 'import os; os.open(\"{n}\", os.O_CREAT | os.O_WRONLY, 0o4755)'\n",
                c = copy.0.display(),
                n = created.0.display()
            );
            let mut refusals = 3;
            if mode != "0004" {
                // In the workspace, where the mode lets the command write.
                script.push_str(&format!("cp /bin/true {w}; chmod g+s {w}\n", w = in_ws.display()));
                refusals += 1;
            }
            let out = run(&lab, user, mode, &script);
            kernel_refused(&out, &[]);
            let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
            assert_eq!(all.matches("Operation not permitted").count(), refusals, "{user:?} {mode}: {all}");
            assert_eq!(mode_bits(&copy.0), 0o755, "{user:?} {mode}: the copy in /tmp changed");
            assert!(!created.0.exists(), "{user:?} {mode}: a setuid file was created");
            if mode != "0004" {
                assert_eq!(mode_bits(&in_ws), 0o755, "{user:?} {mode}: the workspace copy changed");
                std::fs::remove_file(&in_ws).unwrap();
            }
            // Positive control: ordinary permission changes work, the sticky bit included.
            let fine = format!(
                "chmod 0751 {c} && /usr/bin/python3 -c 'import os; os.chmod(\"{c}\", 0o1755)'",
                c = copy.0.display()
            );
            ok(&run(&lab, user, mode, &fine));
            assert_eq!(mode_bits(&copy.0), 0o1755, "{user:?} {mode}");
            std::fs::remove_file(&copy.0).unwrap();
        }
    }
}

#[test]
fn a_root_command_cannot_give_a_file_capabilities() {
    let lab = Lab::new();
    let target = lab.ws.join("capable");
    std::fs::copy("/bin/true", &target).unwrap();
    // A version 2 capability set with CAP_SETUID effective and permitted.
    let set = format!(
        "/usr/bin/python3 -c 'import os, struct; os.setxattr(\"{}\", \"security.capability\", struct.pack(\"<5I\", 0x02000001, 1 << 7, 0, 0, 0))'",
        target.display()
    );
    for mode in ["0467", "7777"] {
        kernel_refused(&run(&lab, User::Root, mode, &set), &[]);
        assert!(xattr_missing(&target), "{mode}: the capability was set");
    }
    // Positive control: the same call outside the sandbox does set it, on this filesystem.
    let out = Command::new("sh").arg("-c").arg(&set).output().unwrap();
    assert!(out.status.success(), "outside: {}", text(&out.stderr));
    assert!(!xattr_missing(&target));
}

fn xattr_missing(p: &Path) -> bool {
    let out = Command::new("/usr/bin/python3")
        .arg("-c")
        .arg(format!("import os; os.getxattr('{}', 'security.capability')", p.display()))
        .output()
        .unwrap();
    !out.status.success() && text(&out.stderr).contains("No data available")
}

/// A process outside the sandbox, of `user`, to aim at.
fn victim(user: User) -> Child {
    let mut c = match user {
        User::Root => Command::new("sleep"),
        User::Nobody => {
            let mut c = Command::new("setpriv");
            c.args([&format!("--reuid={NOBODY}"), &format!("--regid={NOBODY}"), "--clear-groups", "sleep"]);
            c
        }
    };
    c.arg("60").stdin(Stdio::null()).spawn().unwrap()
}

/// What another process's limits and scheduling look like from outside.
fn observe(pid: u32) -> String {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
    // nice (19th field), rt priority and policy (40th, 41st); the CPU affinity.
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let affinity = status.lines().find(|l| l.starts_with("Cpus_allowed_list")).unwrap_or_default().to_string();
    let io = Command::new("ionice").arg("-p").arg(pid.to_string()).output().unwrap();
    format!("{limits}\nnice={} rt={} policy={}\n{affinity}\n{}", fields[16], fields[37], fields[38], text(&io.stdout))
}

#[test]
fn other_processes_keep_their_limits_priorities_and_scheduling() {
    for user in USERS {
        let lab = lab_for(user);
        let mut v = victim(user);
        let pid = v.id();
        // Let it start.
        std::thread::sleep(std::time::Duration::from_millis(100));
        let before = observe(pid);
        let py = "/usr/bin/python3 -c";
        let attacks = [
            format!("prlimit --pid {pid} --cpu=1"),
            format!("{py} 'import resource; resource.prlimit({pid}, resource.RLIMIT_NOFILE, (3, 3))'"),
            format!("renice -n 5 -p {pid}"),
            format!("{py} 'import os; os.setpriority(os.PRIO_USER, 0, 10)'"),
            format!("{py} 'import os; os.setpriority(os.PRIO_PGRP, 0, 10)'"),
            format!("{py} 'import os; os.sched_setaffinity({pid}, {{0}})'"),
            format!("chrt -b -p 0 {pid}"),
            format!("{py} 'import os; os.sched_setparam({pid}, os.sched_param(0))'"),
            format!("ionice -c 3 -p {pid}"),
            format!("{py} 'import os; os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))'"),
            format!("{py} 'import os; os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(1))'"),
            "chrt -d --sched-runtime 1000000 --sched-deadline 2000000 --sched-period 2000000 0 true".to_string(),
        ];
        for attack in &attacks {
            for mode in ["0467", "7777"] {
                let out = run(&lab, user, mode, &format!("{attack}\n"));
                kernel_refused(&out, &[]);
                assert_ne!(out.status.code(), Some(0), "{user:?} {mode}: {attack}");
            }
        }
        assert_eq!(observe(pid), before, "{user:?}: the process outside changed");
        // Reading another process's limits is no change.
        let read = format!("prlimit --pid {pid} --nofile --output SOFT --noheadings");
        assert!(!ok(&run(&lab, user, "0467", &read)).trim().is_empty());
        // Positive controls: the command's own limits, niceness and scheduling.
        let own = "ulimit -n 64; ulimit -n; ulimit -t 500; ulimit -t; nice -n 5 nice; \
                   /usr/bin/python3 -c 'import os; os.sched_setaffinity(0, {0}); print(sorted(os.sched_getaffinity(0)))'; \
                   chrt -b 0 sh -c 'chrt -p $$' | grep -c SCHED_BATCH; ionice -c 3 sh -c 'ionice'\n";
        assert_eq!(ok(&run(&lab, user, "0467", own)), "64\n500\n5\n[0]\n1\nidle\n", "{user:?}");
        v.kill().unwrap();
        v.wait().unwrap();
    }
}

/// The effective capabilities in a `/proc/PID/status` text.
fn effective_caps(status: &str) -> u64 {
    let line = status.lines().find(|l| l.starts_with("CapEff:")).expect("CapEff line");
    u64::from_str_radix(line["CapEff:".len()..].trim(), 16).unwrap()
}

#[test]
fn a_root_command_may_not_raise_its_priority_or_limits_without_system_execute() {
    const SYS_NICE: u64 = 1 << 23;
    const SYS_RESOURCE: u64 = 1 << 24;
    let lab = Lab::new();
    let ours = effective_caps(&std::fs::read_to_string("/proc/self/status").unwrap());
    assert_ne!(ours & SYS_NICE, 0, "the test needs a root caller that holds CAP_SYS_NICE");
    let script = "nice -n -5 nice; cat /proc/self/status\n";
    let out = run(&lab, User::Root, "6467", script);
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("0\n"), "the niceness stayed 0: {stdout}{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("Permission denied"), "{}", text(&out.stderr));
    assert_eq!(effective_caps(&stdout) & (SYS_NICE | SYS_RESOURCE), 0);
    // Positive control: with system execute a root caller keeps what it had (this machine's
    // root may lack CAP_SYS_RESOURCE itself).
    let stdout = ok(&run(&lab, User::Root, "7467", script));
    assert!(stdout.starts_with("-5\n"), "{stdout}");
    assert_eq!(effective_caps(&stdout) & (SYS_NICE | SYS_RESOURCE), ours & (SYS_NICE | SYS_RESOURCE));
}

#[test]
fn a_read_only_audit_runs_no_code_it_brought() {
    for user in USERS {
        let lab = lab_for(user);
        let copy = ScratchFile::new(&format!("exec-{user:?}"));
        let memfd = "/usr/bin/python3 -c 'import os, sys\n\
                     fd = os.memfd_create(\"x\")\n\
                     os.write(fd, open(\"/bin/true\", \"rb\").read())\n\
                     os.execv(\"/proc/self/fd/%d\" % fd, [\"x\"])'";
        let by_fd = "/usr/bin/python3 -c 'import os; os.execve(os.open(\"/bin/true\", os.O_RDONLY), [\"true\"], {})'";
        let script = format!(
            "cp /bin/true {c}; {c} && echo RAN-SCRATCH\n{memfd} && echo RAN-MEMFD\n{by_fd} && echo RAN-FD\n",
            c = copy.0.display()
        );
        let out = run(&lab, user, "0444", &script);
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        kernel_refused(&out, &[]);
        assert!(!all.contains("RAN-"), "{user:?}: {all}");
        // The copy: Landlock's execute right; the memory file: seccomp's EACCES; the
        // descriptor: EPERM.
        assert!(all.contains(&format!("{}: Permission denied", copy.0.display())), "{user:?}: {all}");
        assert!(all.contains("[Errno 13] Permission denied"), "{user:?}: {all}");
        assert!(all.contains("[Errno 1] Operation not permitted"), "{user:?}: {all}");
        // Positive control: with workspace execute, all three run.
        let out = ok(&run(&lab, user, "0447", &script));
        assert_eq!(out, "RAN-SCRATCH\nRAN-MEMFD\nRAN-FD\n", "{user:?}");
    }
}

/// Files whose change makes a later, unsandboxed program run code, each with its content.
fn persistence_points(home: &Path, bin: &Path) -> Vec<(std::path::PathBuf, &'static str)> {
    let points = vec![
        (home.join(".gitconfig"), "[user]\n\tname = me\n"),
        (home.join(".config/git/config"), "[core]\n"),
        (home.join(".config/sandbox-bash/config.toml"), "# mine\n"),
        (home.join(".claude/settings.json"), "{}\n"),
        (home.join(".claude/settings.local.json"), "{}\n"),
        (home.join(".codex/config.toml"), "model = \"x\"\n"),
        (home.join(".zshenv"), "# zsh\n"),
        (bin.join("git"), "#!/bin/sh\n"),
    ];
    for (p, content) in &points {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    points
}

#[test]
fn a_command_that_may_write_the_home_cannot_plant_code_for_later() {
    for user in USERS {
        plant_code_for_later(user);
    }
}

fn plant_code_for_later(user: User) {
    let lab = Lab::new();
    let bin = lab.outside.join("bin");
    let points = persistence_points(&lab.home, &bin);
    std::fs::create_dir_all(lab.home.join(".claude/projects")).unwrap();
    std::fs::write(lab.home.join("notes.txt"), "notes\n").unwrap();
    give(&lab, user);
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let mut script = String::new();
    for (p, _) in &points {
        // Appending to each, then replacing it through a new file beside it.
        script.push_str(&format!(
            "echo pwned >> {p}; /usr/bin/python3 -c 'import os; open(\"{p}.new\", \"w\").write(\"x\"); os.replace(\"{p}.new\", \"{p}\")'\n",
            p = p.display()
        ));
    }
    // The missing ones cannot be created either.
    script.push_str(&format!("echo pwned > {}/.config/git/ignore\n", lab.home.display()));
    script.push_str(&format!("echo pwned > {}/ls\n", bin.display()));
    let out = run_in(&lab, user, &lab.home, &path, "0667", &script);
    kernel_refused(&out, &[]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    // Landlock refuses the missing ones; the existing ones lie on read-only mounts too.
    let refused = all.matches("Permission denied").count() + all.matches("Read-only file system").count();
    assert_eq!(refused, 2 * points.len() + 2, "{all}");
    for (p, content) in &points {
        assert_eq!(std::fs::read_to_string(p).unwrap(), *content, "{} changed", p.display());
        assert!(!Path::new(&format!("{}.new", p.display())).exists());
    }
    assert!(!lab.home.join(".config/git/ignore").exists() && !bin.join("ls").exists());
    // Positive controls: the rest of the home is writable under external write, and system
    // write opens the protected files too.
    let fine = format!(
        "echo more >> {h}/notes.txt && echo x > {h}/.claude/projects/p.json && echo ok",
        h = lab.home.display()
    );
    assert_eq!(ok(&run_in(&lab, user, &lab.home, &path, "0667", &fine)), "ok\n");
    let first = &points[0].0;
    ok(&run_in(&lab, user, &lab.home, &path, "2667", &format!("echo '# mine' >> {}\n", first.display())));
    assert!(std::fs::read_to_string(first).unwrap().ends_with("# mine\n"));
    // The static layer names them too, with what it takes.
    for (p, _) in &points {
        let out = as_user(user, SB)
            .args(["--sandbox-explain", "-c", &format!("echo x >> {}", p.display())])
            .current_dir(&lab.ws)
            .env("BASH_AGENT_BASH_MODE", "0667")
            .env("SANDBOX_BASH_WORKSPACE", &lab.ws)
            .env("HOME", &lab.home)
            .env("PATH", &path)
            .output()
            .unwrap();
        let said = text(&out.stdout);
        assert_eq!(out.status.code(), Some(126), "{}: {said}", p.display());
        assert!(said.contains("2000 system write") && said.contains("a protected path"), "{}: {said}", p.display());
    }
}

/// The lines of one area of the `--sandbox-info` JSON, by kind (`kernel`, `static`, `none`).
/// Whether one of an area's lines of that kind names `path` as a location of its own.
fn declared(info: &serde_json::Value, area: &str, kind: &str, path: &str) -> bool {
    let area = info["areas"].as_array().unwrap().iter().find(|a| a["area"] == area).unwrap();
    area[kind].as_array().unwrap().iter().any(|l| l.as_str().unwrap().split([' ', ':']).any(|word| word == path))
}

#[test]
fn the_declaration_says_what_a_probe_finds() {
    for user in USERS {
        declaration_against_probe(user);
    }
}

fn declaration_against_probe(user: User) {
    let lab = Lab::new();
    // A home under /tmp on purpose: containers do this, and scratch is writable whole.
    let scratch_home = tempfile::Builder::new().prefix("sbx-home-").tempdir_in("/tmp").unwrap();
    for home in [lab.home.as_path(), scratch_home.path()] {
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_ed25519"), "KEY CANARY\n").unwrap();
        std::fs::write(home.join(".gitconfig"), "[user]\n").unwrap();
        give(&lab, user);
        if user == User::Nobody {
            let status = Command::new("chown").arg("-R").arg(format!("{NOBODY}:{NOBODY}")).arg(home).status().unwrap();
            assert!(status.success());
        }
        let path = "/usr/bin:/bin";
        for mode in ["0467", "0667"] {
            let info = as_user(user, SB)
                .args(["--sandbox-info", "--sandbox-json"])
                .current_dir(&lab.ws)
                .env_clear()
                .env("BASH_AGENT_BASH_MODE", mode)
                .env("SANDBOX_BASH_WORKSPACE", &lab.ws)
                .env("HOME", home)
                .env("PATH", path)
                .output()
                .unwrap();
            let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
            let key_held = declared(&info, "credentials", "kernel", "~/.ssh");
            let key_static = declared(&info, "credentials", "static", "~/.ssh");
            assert!(key_held != key_static, "{}: ~/.ssh must be declared once\n{info:#}", home.display());
            let read = run_in(
                &lab,
                user,
                home,
                path,
                mode,
                "/usr/bin/python3 -c 'import os; print(open(os.path.expanduser(\"~/.ssh/id_ed25519\")).read(), end=\"\")'\n",
            );
            let readable = text(&read.stdout).contains("KEY CANARY");
            assert_eq!(
                key_held,
                !readable,
                "{} {mode}: declared held={key_held}, the probe read it={readable}",
                home.display()
            );
            if !readable {
                // A masked directory is empty: what was in it is not there (root), or it
                // cannot be entered (other users).
                kernel_refused(&read, &["No such file or directory"]);
            }
            let write = run_in(
                &lab,
                user,
                home,
                path,
                mode,
                "/usr/bin/python3 -c 'import os; open(os.path.expanduser(\"~/.gitconfig\"), \"a\").write(\"[alias]\\n\")'\n",
            );
            let written = std::fs::read_to_string(home.join(".gitconfig")).unwrap().contains("[alias]");
            let config_held = declared(&info, "filesystem", "kernel", "~/.gitconfig");
            let config_static = declared(&info, "filesystem", "static", "~/.gitconfig");
            assert!(config_held != config_static, "{}: ~/.gitconfig must be declared once\n{info:#}", home.display());
            assert_eq!(
                config_held,
                !written,
                "{} {mode}: declared held={config_held}, the probe wrote it={written}",
                home.display()
            );
            if !written {
                kernel_refused(&write, &[]);
            }
            std::fs::write(home.join(".gitconfig"), "[user]\n").unwrap();
        }
    }
}

#[test]
fn a_command_cannot_replace_sandbox_bash_itself() {
    for user in USERS {
        let lab = Lab::new();
        // A copy installed outside every tree the baseline grants, as a user would install it.
        let opt = lab.outside.join("opt");
        std::fs::create_dir_all(&opt).unwrap();
        let copy = opt.join("sandbox-bash");
        std::fs::copy(SB, &copy).unwrap();
        give(&lab, user);
        let before = std::fs::read(&copy).unwrap();
        let script = format!("cat /usr/bin/id > {c}; cp /usr/bin/id {c}.new && mv {c}.new {c}\n", c = copy.display());
        for mode in ["0646", "0667", "0767"] {
            let mut c = match user {
                User::Root => Command::new(&copy),
                User::Nobody => {
                    let mut c = Command::new("setpriv");
                    c.args([&format!("--reuid={NOBODY}"), &format!("--regid={NOBODY}"), "--clear-groups"]).arg(&copy);
                    c
                }
            };
            c.arg("-s").current_dir(&lab.ws).env_clear();
            c.env("BASH_AGENT_BASH_MODE", mode).env("SANDBOX_BASH_WORKSPACE", &lab.ws).env("HOME", &lab.home);
            c.env("PATH", "/usr/bin:/bin");
            c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
            let mut child = c.spawn().unwrap();
            use std::io::Write;
            child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
            let out = child.wait_with_output().unwrap();
            kernel_refused(&out, &[]);
            assert!(std::fs::read(&copy).unwrap() == before, "{user:?} {mode}: sandbox-bash was replaced");
        }
        // Positive control: its neighbour in the same directory is writable under external write.
        let fine = format!("echo ok > {}/neighbour && cat {}/neighbour\n", opt.display(), opt.display());
        assert_eq!(ok(&run(&lab, user, "0667", &fine)), "ok\n");
    }
}

#[test]
fn a_path_directory_in_scratch_runs_nothing_without_workspace_execute() {
    let lab = Lab::new();
    let bin = tempfile::Builder::new().prefix("sbx-pathbin-").tempdir_in("/tmp").unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let script = format!("cp /bin/true {b}/mine && {b}/mine && echo RAN\n", b = bin.path().display());
    let out = run_in(&lab, User::Root, &lab.home, &path, "0444", &script);
    kernel_refused(&out, &[]);
    assert!(!text(&out.stdout).contains("RAN"));
    // Positive control: with workspace execute scratch runs programs.
    assert_eq!(ok(&run_in(&lab, User::Root, &lab.home, &path, "0447", &script)), "RAN\n");
    // A TMPDIR inside a PATH directory is not scratch: nothing there is writable under 0444.
    let pathdir = lab.outside.join("bin");
    let tmp = pathdir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut c = Command::new(SB);
    c.args(["-s"]).current_dir(&lab.ws).env_clear().env("BASH_AGENT_BASH_MODE", "0444");
    c.env("SANDBOX_BASH_WORKSPACE", &lab.ws).env("HOME", &lab.home).env("TMPDIR", &tmp);
    c.env("PATH", format!("{}:/usr/bin:/bin", pathdir.display()));
    c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("cp /bin/true {}/mine && echo WROTE\n", tmp.display()).as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    kernel_refused(&out, &[]);
    assert!(!tmp.join("mine").exists());
}

#[test]
fn links_from_credentials_and_start_up_files_are_followed() {
    for user in USERS {
        let lab = Lab::new();
        let dots = lab.home.join("dotfiles");
        std::fs::create_dir_all(dots.join("ssh")).unwrap();
        std::fs::write(dots.join("profile"), "# profile\n").unwrap();
        std::fs::write(dots.join("ssh/id_rsa"), "LINKED KEY CANARY\n").unwrap();
        std::fs::write(dots.join("netrc"), "machine x password CANARY\n").unwrap();
        std::fs::write(dots.join("aws-credentials"), "AWS CANARY\n").unwrap();
        std::fs::write(dots.join("notes"), "notes\n").unwrap();
        std::os::unix::fs::symlink("dotfiles/profile", lab.home.join(".profile")).unwrap();
        std::fs::remove_dir_all(lab.home.join(".ssh")).unwrap();
        std::os::unix::fs::symlink("dotfiles/ssh", lab.home.join(".ssh")).unwrap();
        std::os::unix::fs::symlink("dotfiles/netrc", lab.home.join(".netrc")).unwrap();
        std::fs::create_dir_all(lab.home.join(".aws")).unwrap();
        std::os::unix::fs::symlink("../dotfiles/aws-credentials", lab.home.join(".aws/credentials")).unwrap();
        give(&lab, user);
        let h = lab.home.display();
        // Read through the link and under the other name; write the start-up file both ways.
        let read = format!(
            "cat {h}/.ssh/id_rsa; cat {h}/dotfiles/ssh/id_rsa; cat {h}/.netrc; cat {h}/.aws/credentials; cat {h}/dotfiles/aws-credentials\n"
        );
        let out = run(&lab, user, "0667", &read);
        kernel_refused(&out, &[]);
        assert!(!text(&out.stdout).contains("CANARY"), "{user:?}: {}", text(&out.stdout));
        assert_eq!(text(&out.stderr).matches("Permission denied").count(), 5, "{user:?}: {}", text(&out.stderr));
        let write = format!("echo PWN >> {h}/.profile; echo PWN >> {h}/dotfiles/profile\n");
        let out = run(&lab, user, "0667", &write);
        kernel_refused(&out, &[]);
        assert_eq!(std::fs::read_to_string(dots.join("profile")).unwrap(), "# profile\n");
        // Positive controls: the rest of the same directory, and system read for the keys.
        assert_eq!(
            ok(&run(&lab, user, "0667", &format!("echo more >> {h}/dotfiles/notes; cat {h}/dotfiles/notes\n"))),
            "notes\nmore\n"
        );
        assert!(ok(&run(&lab, user, "4467", &format!("cat {h}/.ssh/id_rsa\n"))).contains("LINKED KEY CANARY"));
    }
}

#[test]
fn proc_and_sys_stay_unwritable_without_system_execute() {
    for user in USERS {
        let lab = lab_for(user);
        let mut v = victim(user);
        let pid = v.id();
        std::thread::sleep(std::time::Duration::from_millis(100));
        let score = || std::fs::read_to_string(format!("/proc/{pid}/oom_score_adj")).unwrap();
        let before = score();
        let attack = format!("echo 900 > /proc/{pid}/oom_score_adj\n");
        for mode in ["2467", "6667"] {
            kernel_refused(&run(&lab, user, mode, &attack), &[]);
            assert_eq!(score(), before, "{user:?} {mode}");
        }
        // Positive control: system write and execute administer the machine.
        ok(&run(&lab, user, "3467", &attack));
        assert_eq!(score().trim(), "900", "{user:?}");
        v.kill().unwrap();
        v.wait().unwrap();
    }
}

#[test]
fn the_declaration_says_what_a_root_caller_keeps_with_system_execute() {
    let lab = Lab::new();
    let info = |mode: &str| {
        let out = Command::new(SB)
            .args(["--sandbox-info", "--sandbox-json"])
            .current_dir(&lab.ws)
            .env("BASH_AGENT_BASH_MODE", mode)
            .env("SANDBOX_BASH_WORKSPACE", &lab.ws)
            .env("HOME", &lab.home)
            .output()
            .unwrap();
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let lines = |v: &serde_json::Value, kind: &str| -> String {
        let area = v["areas"].as_array().unwrap().iter().find(|a| a["area"] == "process and devices").unwrap();
        area[kind].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect::<Vec<_>>().join("\n")
    };
    let held = info("0467");
    assert!(lines(&held, "kernel").contains("other processes cannot be traced"));
    let kept = info("1467");
    assert!(!lines(&kept, "kernel").contains("other processes cannot be traced"));
    assert!(lines(&kept, "none").contains("keeps CAP_SYS_PTRACE"));
    // And what the probe finds: another process's environment, readable with it, not without.
    let mut v = Command::new("sleep").arg("60").env("SBX_OUTSIDE_MARK", "outside-secret").spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
    let probe = format!("tr '\\0' '\\n' < /proc/{}/environ | grep SBX_OUTSIDE_MARK\n", v.id());
    kernel_refused(&run(&lab, User::Root, "0467", &probe), &[]);
    assert!(ok(&run(&lab, User::Root, "1467", &probe)).contains("outside-secret"));
    v.kill().unwrap();
    v.wait().unwrap();
}

#[test]
fn the_account_home_is_guarded_whatever_home_the_command_is_given() {
    // The test runs as root, whose home in /etc/passwd is read here; nothing in it is touched.
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
    let own = passwd.lines().find(|l| l.split(':').nth(2) == Some("0")).and_then(|l| l.split(':').nth(5)).unwrap();
    assert_ne!(own, "/", "root's home in /etc/passwd");
    let lab = Lab::new();
    let explain = |program: &str| {
        Command::new(SB)
            .args(["--sandbox-explain", "-c", program])
            .current_dir(&lab.ws)
            .env("BASH_AGENT_BASH_MODE", "0667")
            .env("SANDBOX_BASH_WORKSPACE", &lab.ws)
            .env("HOME", &lab.home)
            .output()
            .unwrap()
    };
    for (program, need) in [
        (format!("echo x >> {own}/.bashrc"), "2000 system write"),
        (format!("echo x >> {own}/.gitconfig"), "2000 system write"),
        (format!("cat {own}/.ssh/id_ed25519"), "4000 system read"),
    ] {
        let out = explain(&program);
        assert_eq!(out.status.code(), Some(126), "{program}: {}", text(&out.stdout));
        assert!(text(&out.stdout).contains(need), "{program}: {}", text(&out.stdout));
    }
    // The kernel layer holds them too, and says so.
    let info = as_user(User::Root, SB)
        .args(["--sandbox-info", "--sandbox-json"])
        .current_dir(&lab.ws)
        .env("BASH_AGENT_BASH_MODE", "0667")
        .env("SANDBOX_BASH_WORKSPACE", &lab.ws)
        .env("HOME", &lab.home)
        .output()
        .unwrap();
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert!(declared(&info, "filesystem", "kernel", &format!("{own}/.bashrc")), "{info:#}");
    assert!(declared(&info, "credentials", "kernel", &format!("{own}/.ssh")), "{info:#}");
}

#[test]
fn sandbox_bash_inside_the_workspace_leaves_the_workspace_whole() {
    // sandbox-bash built in its own repository, or vendored into a project: protected, but
    // the workspace around it is not split up for it (that is left to the static layer).
    let lab = Lab::new();
    std::fs::create_dir_all(lab.ws.join("tools")).unwrap();
    std::fs::create_dir_all(lab.ws.join(".git")).unwrap();
    let copy = lab.ws.join("tools/sb");
    std::fs::copy(SB, &copy).unwrap();
    let mut c = Command::new(&copy);
    c.arg("-s").current_dir(&lab.ws).env_clear();
    c.env("BASH_AGENT_BASH_MODE", "0467").env("SANDBOX_BASH_WORKSPACE", &lab.ws).env("HOME", &lab.home);
    c.env("PATH", "/usr/bin:/bin");
    c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"touch newfile && touch .git/index.lock && mkdir -p new/dir && echo ok\n")
        .unwrap();
    assert_eq!(ok(&child.wait_with_output().unwrap()), "ok\n");
    assert!(lab.ws.join("newfile").exists() && lab.ws.join(".git/index.lock").exists());
    // The static layer still refuses to replace it.
    let out = Command::new(&copy)
        .args(["--sandbox-explain", "-c", "cp /usr/bin/id tools/sb"])
        .current_dir(&lab.ws)
        .env("BASH_AGENT_BASH_MODE", "0467")
        .env("SANDBOX_BASH_WORKSPACE", &lab.ws)
        .env("HOME", &lab.home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(126), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("2000 system write"), "{}", text(&out.stdout));
}

#[test]
fn the_link_sandbox_bash_was_started_through_cannot_be_pointed_elsewhere() {
    let lab = Lab::new();
    let dir = lab.outside.join("shells");
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("bash");
    std::os::unix::fs::symlink(SB, &link).unwrap();
    std::fs::write(dir.join("neighbour"), "").unwrap();
    let script =
        format!("ln -sf /usr/bin/id {l}; rm -f {l}; echo ok >> {d}/neighbour\n", l = link.display(), d = dir.display());
    let mut c = Command::new(&link);
    c.arg("-s").current_dir(&lab.ws).env_clear();
    c.env("BASH_AGENT_BASH_MODE", "0667").env("SANDBOX_BASH_WORKSPACE", &lab.ws).env("HOME", &lab.home);
    c.env("PATH", "/usr/bin:/bin");
    c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    kernel_refused(&out, &[]);
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new(SB), "the link was changed");
    // Positive control: the files beside it stay writable under external write (new ones
    // cannot be made there: Landlock grants the directory's entries one by one).
    assert_eq!(std::fs::read_to_string(dir.join("neighbour")).unwrap(), "ok\n");
}
