//! The namespace layer, tried against the kernel: the read-only view, the masks over
//! credentials, the persistence points kept read-only, the command's own terminals and IPC,
//! the frozen script, and what happens where no namespaces can be had. Every attack goes
//! through a path the static layer does not see (the program on standard input, `python3 -c`,
//! paths computed with `$(…)`), as root and as the unprivileged user nobody. Each refusal
//! asserts the errno's text and that the target is unchanged; each has a positive control.
//! Labs live under the build's temporary directory; a few trees are put under /tmp and /home
//! on purpose, created by the test and removed afterwards.
#![cfg(target_os = "linux")]

use crate::lab;

use std::ffi::CStr;
use std::io::{BufRead, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use lab::{Lab, NOBODY, SB, USERS, User, as_user, give, give_tree, lab_for, ok, text};

const PATH: &str = "/usr/bin:/bin:/usr/sbin:/sbin";

#[cfg(target_arch = "x86_64")]
const LOADER: &str = "/lib64/ld-linux-x86-64.so.2";
#[cfg(target_arch = "aarch64")]
const LOADER: &str = "/lib/ld-linux-aarch64.so.1";

/// sandbox-bash under `mode`, run by `user` in `ws` (the workspace), with a clean environment.
fn sb_in(ws: &Path, home: &Path, user: User, mode: &str) -> Command {
    let mut c = as_user(user, SB);
    c.current_dir(ws).env_clear();
    c.env("BASH_AGENT_BASH_MODE", mode).env("SANDBOX_BASH_WORKSPACE", ws).env("HOME", home);
    c.env("PATH", PATH).env("LC_ALL", "C");
    c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

fn sb(lab: &Lab, user: User, mode: &str) -> Command {
    sb_in(&lab.ws, &lab.home, user, mode)
}

/// Runs `c` with `script` on its standard input (`-s`): the static layer does not read it.
fn feed(mut c: Command, script: &str) -> Output {
    c.arg("-s").stdin(Stdio::piped());
    let mut child = c.spawn().unwrap();
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn run(lab: &Lab, user: User, mode: &str, script: &str) -> Output {
    feed(sb(lab, user, mode), script)
}

fn all(out: &Output) -> String {
    format!("{}{}", text(&out.stdout), text(&out.stderr))
}

/// The program got past the static layer and sandbox-bash itself did not fail.
#[track_caller]
fn past_static(out: &Output) {
    let all = all(out);
    assert!(!crate::lab::statically_denied(out), "the static layer denied it; this test needs the kernel:\n{all}");
    assert!(!all.contains("sandbox-bash: error:"), "sandbox-bash itself failed:\n{all}");
}

/// The output holds `needle` exactly `n` times.
#[track_caller]
fn says_n(out: &Output, needle: &str, n: usize) {
    past_static(out);
    let all = all(out);
    assert_eq!(all.matches(needle).count(), n, "expected {n} times {needle:?}, status {:?}:\n{all}", out.status.code());
}

#[track_caller]
fn says(out: &Output, needle: &str) {
    says_n(out, needle, 1);
}

/// A Python one-liner as a bash word (single-quoted), run by the system's interpreter.
fn py(code: &str) -> String {
    format!("/usr/bin/python3 -c '{}'", code.replace('\'', "'\\''"))
}

/// A word quoted for bash.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// What a file or directory is, as far as a change to it would show: its content (a
/// directory's names), mode, owner, modification time and extended attributes.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Snap {
    content: Vec<u8>,
    mode: u32,
    uid: u32,
    gid: u32,
    mtime: (i64, i64),
    xattrs: Vec<String>,
}

fn snap(p: &Path) -> Snap {
    let m = std::fs::symlink_metadata(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let content = if m.is_dir() {
        let mut names: Vec<String> =
            std::fs::read_dir(p).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names.join("\n").into_bytes()
    } else if m.file_type().is_file() {
        std::fs::read(p).unwrap()
    } else {
        Vec::new()
    };
    Snap { content, mode: m.mode(), uid: m.uid(), gid: m.gid(), mtime: (m.mtime(), m.mtime_nsec()), xattrs: xattrs(p) }
}

fn xattrs(p: &Path) -> Vec<String> {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    let mut buf = vec![0u8; 4096];
    // SAFETY: valid NUL-terminated path and a buffer of the size given.
    let n = unsafe { libc::llistxattr(c.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    if n <= 0 {
        return Vec::new();
    }
    let mut names: Vec<String> = buf[..n as usize]
        .split(|b| *b == 0)
        .filter(|s| !s.is_empty())
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect();
    names.sort();
    names
}

fn mode_bits(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

/// The namespace of kind `kind` (`mnt`, `ipc`, …) this test process is in.
fn own_ns(kind: &str) -> String {
    std::fs::read_link(format!("/proc/self/ns/{kind}")).unwrap().to_string_lossy().into_owned()
}

/// A name no other run of these tests uses at the same time.
fn unique(tag: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    format!("sbx-ns-{tag}-{}-{nanos}", std::process::id())
}

/// A file or tree this test created, removed when dropped.
struct Made(PathBuf);

impl Drop for Made {
    fn drop(&mut self) {
        if self.0.is_dir() {
            let _ = std::fs::remove_dir_all(&self.0);
        } else {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 1. The process: PID, ids, status, signals, nesting.
// ---------------------------------------------------------------------------------------------

#[test]
fn the_command_keeps_its_pid_ids_and_exit_status() {
    for user in USERS {
        let lab = lab_for(user);
        let program = "echo $$; id -u; id -g; \
                       readlink /proc/self/ns/mnt /proc/self/ns/ipc /proc/self/ns/pid /proc/self/ns/user; exit 42";
        let mut c = sb(&lab, user, "0467");
        c.arg("-c").arg(program);
        let child = c.spawn().unwrap();
        let pid = child.id();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(42), "{user:?}: {}", all(&out));
        let stdout = text(&out.stdout);
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 7, "{user:?}: {stdout}{}", text(&out.stderr));
        assert_eq!(lines[0], pid.to_string(), "{user:?}: bash runs in the very process that was started");
        assert_eq!(lines[1], user.uid().to_string(), "{user:?}: id -u");
        assert_eq!(lines[2], user.uid().to_string(), "{user:?}: id -g");
        // Mount and IPC namespaces of its own; the PID namespace is the caller's; a user
        // namespace only for a caller that may not administer mounts.
        assert_ne!(lines[3], own_ns("mnt"), "{user:?}");
        assert_ne!(lines[4], own_ns("ipc"), "{user:?}");
        assert_eq!(lines[5], own_ns("pid"), "{user:?}");
        assert_eq!(lines[6] == own_ns("user"), user == User::Root, "{user:?}: user namespace {}", lines[6]);
        assert_eq!(text(&out.stderr), "", "{user:?}");

        // The program on standard input and a Python child: the same process, the status passed on.
        let mut c = sb(&lab, user, "0467");
        c.arg("-s").stdin(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let pid = child.id();
        let script =
            format!("echo $$\n{}\n", py("import os, sys; print(os.getppid(), os.getuid(), os.getgid()); sys.exit(7)"));
        child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(7), "{user:?}: {}", all(&out));
        let uid = user.uid();
        assert_eq!(text(&out.stdout), format!("{pid}\n{pid} {uid} {uid}\n"), "{user:?}");
        assert_eq!(ok(&run(&lab, user, "0467", "exit 0\n")), "");
        assert_eq!(run(&lab, user, "0444", "(exit 42); exit $?\n").status.code(), Some(42), "{user:?}");
    }
}

#[test]
fn a_signal_from_outside_ends_the_command() {
    for user in USERS {
        let lab = lab_for(user);
        for (signal, name) in [(libc::SIGTERM, "TERM"), (libc::SIGKILL, "KILL"), (libc::SIGHUP, "HUP")] {
            let mut c = sb(&lab, user, "0467");
            // bash itself waits (a builtin), so the signal reaches bash, not a child of it.
            c.arg("-c").arg("echo ready; read -t 60 line; echo after").stdin(Stdio::piped());
            let mut child = c.spawn().unwrap();
            let _stdin = child.stdin.take().unwrap();
            let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
            let mut line = String::new();
            stdout.read_line(&mut line).unwrap();
            assert_eq!(line, "ready\n", "{user:?} {name}");
            let started = Instant::now();
            // bash notes a caught signal and acts on it at its next check: one that lands after
            // `echo` and before `read` blocks waits for the read to return (bash itself does
            // that). So the signal is sent again each half second until bash is gone.
            let status = loop {
                // SAFETY: a plain kill of the child this test started (it has not been reaped).
                assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
                std::thread::sleep(Duration::from_millis(500));
                if let Some(status) = child.try_wait().unwrap() {
                    break status;
                }
                assert!(started.elapsed() < Duration::from_secs(10), "{user:?} {name}: still running");
            };
            assert_eq!(status.signal(), Some(signal), "{user:?} {name}: {status:?}");
            assert!(started.elapsed() < Duration::from_secs(10), "{user:?} {name}: it took the read's timeout");
            let mut rest = String::new();
            stdout.read_to_string(&mut rest).unwrap();
            assert_eq!(rest, "", "{user:?} {name}");
        }
    }
}

#[test]
fn twenty_nested_levels_run_in_the_first_levels_view() {
    let bin = Path::new(SB).parent().unwrap().to_string_lossy().into_owned();
    for user in USERS {
        let lab = Lab::new();
        std::fs::write(lab.ws.join(".env"), "NESTED ENV CANARY\n").unwrap();
        give(&lab, user);
        let outside_file = lab.outside.join("file.txt");
        let before = snap(&outside_file);
        // Each level starts the next with its own program text, which no static analysis can
        // follow; the innermost one tries the view.
        let program = "d=${d:-1}; echo \"level $d $$ $(id -u) $(id -g) $(readlink /proc/self/ns/mnt) ${SANDBOX_BASH_ENFORCED%%:*}\"; \
                       if [ \"$d\" -lt 20 ]; then d=$((d+1)) sandbox-bash -c \"$BASH_EXECUTION_STRING\" || exit $?; \
                       else cat $(ls -a | grep '^\\.en'); /usr/bin/python3 -c 'open(\"@OUT@\", \"a\").write(\"x\")'; \
                       echo inner >> nested.txt; fi"
            .replace("@OUT@", &outside_file.to_string_lossy());
        let mut c = sb(&lab, user, "0467");
        c.env("PATH", format!("{bin}:{PATH}")).arg("-c").arg(&program);
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{user:?}: {}", all(&out));
        let stdout = text(&out.stdout);
        let levels: Vec<Vec<&str>> = stdout.lines().map(|l| l.split(' ').collect()).collect();
        assert_eq!(levels.len(), 20, "{user:?}: {stdout}");
        let mut pids: Vec<&str> = levels.iter().map(|l| l[2]).collect();
        pids.sort();
        pids.dedup();
        assert_eq!(pids.len(), 20, "{user:?}: every level is a process of its own");
        for (i, l) in levels.iter().enumerate() {
            assert_eq!(l[0..2], ["level", &(i + 1).to_string()], "{user:?}: {stdout}");
            assert_eq!(l[3..5], [user.uid().to_string(), user.uid().to_string()], "{user:?}: {stdout}");
            // The first level's mount namespace, for every level: the nested ones build none.
            assert_eq!(l[5], levels[0][5], "{user:?}: {stdout}");
            assert_eq!(l[6], "0467+ns", "{user:?}: {stdout}");
        }
        assert_ne!(levels[0][5], own_ns("mnt"));
        // The innermost level: the mask and the read-only view of the first level hold (and
        // the first level's supervisor tells so).
        let told = text(&out.stderr);
        assert!(told.contains("held by the credential mask") && told.contains("held by the read-only view"), "{told}");
        let stderr = crate::common::untold(&told);
        assert!(stderr.starts_with("cat: .env: Permission denied\n"), "{user:?}: {stderr}");
        assert!(
            stderr.ends_with(&format!("OSError: [Errno 30] Read-only file system: '{}'\n", outside_file.display())),
            "{user:?}: {stderr}"
        );
        assert_eq!(snap(&outside_file), before, "{user:?}");
        assert_eq!(std::fs::read_to_string(lab.ws.join("nested.txt")).unwrap(), "inner\n", "{user:?}");

        // Five levels written out, each analysed by the level that starts it.
        let mut literal = "echo deep $(id -u) $(readlink /proc/self/ns/mnt); cat $(ls -a | grep '^\\.en')".to_string();
        for _ in 0..4 {
            literal = format!("sandbox-bash -c {}", quote(&literal));
        }
        let mut c = sb(&lab, user, "0467");
        c.env("PATH", format!("{bin}:{PATH}")).arg("-c").arg(&literal);
        let out = c.output().unwrap();
        let stdout = text(&out.stdout);
        let deep: Vec<&str> = stdout.trim_end().split(' ').collect();
        assert_eq!(deep.len(), 3, "{user:?}: {stdout}{}", text(&out.stderr));
        assert_eq!(deep[..2], ["deep", &user.uid().to_string()], "{user:?}");
        assert_ne!(deep[2], own_ns("mnt"), "{user:?}: the innermost level is inside the first one's view");
        // The first level's supervisor tells the mask's refusal; the rest is the program's.
        let told = text(&out.stderr);
        assert!(told.contains("opens for reading") && told.contains("held by the credential mask"), "{user:?}: {told}");
        assert_eq!(crate::common::untold(&told), "cat: .env: Permission denied\n", "{user:?}");
        assert_eq!(out.status.code(), Some(1), "{user:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// 2. The read-only view.
// ---------------------------------------------------------------------------------------------

/// chmod, chown, touch and extended attributes on `target`, and Python's utime.
fn metadata_script(target: &Path) -> String {
    let t = target.display();
    format!(
        "chmod 600 {t}\nchown {NOBODY}:{NOBODY} {t}\ntouch -d '2001-01-01 00:00:00' {t}\n{}\n{}\n",
        py(&format!("import os; os.setxattr(\"{t}\", \"user.x\", b\"1\")")),
        py(&format!("import os; os.utime(\"{t}\", (0, 0))")),
    )
}

#[test]
fn metadata_outside_the_writable_trees_cannot_change() {
    for user in USERS {
        let lab = Lab::new();
        let canary = lab.outside.join("canary.txt");
        std::fs::write(&canary, "METADATA CANARY\n").unwrap();
        let inside = lab.ws.join("mine.txt");
        std::fs::write(&inside, "mine\n").unwrap();
        give(&lab, user);
        for mode in ["0467", "0447", "0444"] {
            let before = snap(&canary);
            let out = run(&lab, user, mode, &metadata_script(&canary));
            let c = canary.display();
            says(&out, &format!("chmod: changing permissions of '{c}': Read-only file system"));
            says(&out, &format!("chown: changing ownership of '{c}': Read-only file system"));
            says(&out, &format!("touch: cannot touch '{c}': Read-only file system"));
            // setxattr names the file; utime does not.
            says(&out, &format!("OSError: [Errno 30] Read-only file system: '{c}'"));
            says(&out, "OSError: [Errno 30] Read-only file system\n");
            assert_eq!(snap(&canary), before, "{user:?} {mode}: the canary changed");
        }
        // Positive controls: the same in the workspace, which 0467 lets write...
        let out = run(&lab, user, "0467", &metadata_script(&inside));
        assert_eq!(ok(&out), "", "{user:?}");
        assert_eq!(text(&out.stderr), "", "{user:?}");
        let after = snap(&inside);
        assert_eq!(
            (after.mode & 0o7777, after.uid, after.gid, after.mtime),
            (0o600, NOBODY, NOBODY, (0, 0)),
            "{user:?}"
        );
        assert_eq!(after.xattrs, ["user.x"], "{user:?}");
        // ... and on the canary itself under external write.
        let out = run(&lab, user, "0667", &metadata_script(&canary));
        assert_eq!(ok(&out), "", "{user:?}: {}", text(&out.stderr));
        let after = snap(&canary);
        assert_eq!(
            (after.mode & 0o7777, after.mtime, after.xattrs.as_slice()),
            (0o600, (0, 0), &["user.x".to_string()][..])
        );
    }
}

#[test]
fn the_view_cannot_be_taken_apart_from_inside() {
    for user in USERS {
        let lab = Lab::new();
        std::fs::write(lab.ws.join(".env"), "ENV CANARY\n").unwrap();
        let canary = lab.outside.join("canary.txt");
        std::fs::write(&canary, "CANARY\n").unwrap();
        give(&lab, user);
        let before = snap(&canary);
        let w = lab.ws.display();
        // umount2(MNT_DETACH) of the root, the workspace, a mask and /dev/shm; mount_setattr
        // clearing read-only on the whole tree; a remount read-write.
        let code = format!(
            "import ctypes, os\n\
             l = ctypes.CDLL(None, use_errno=True)\n\
             for p in [b\"/\", b\"{w}\", b\"{w}/.env\", b\"/dev/shm\", b\"/dev/pts\"]:\n\
             \x20   r = l.umount2(p, 2); print(\"umount\", p.decode(), r, os.strerror(ctypes.get_errno()))\n\
             attr = (ctypes.c_uint64 * 4)(0, 1, 0, 0)\n\
             r = l.syscall({nr}, -100, b\"/\", 0x8000, attr, 32); print(\"mount_setattr\", r, os.strerror(ctypes.get_errno()))\n\
             r = l.mount(None, b\"/\", None, 32 | 4096, None); print(\"remount\", r, os.strerror(ctypes.get_errno()))\n",
            nr = libc::SYS_mount_setattr
        );
        let script = format!("{}\necho x >> {}\ncat .env\n", py(&code), canary.display());
        // 1467 keeps CAP_SYS_ADMIN for a root caller; 7777 is every right.
        for mode in ["0467", "1467", "7777"] {
            let out = run(&lab, user, mode, &script);
            past_static(&out);
            let stdout = text(&out.stdout);
            for p in ["/", "/dev/shm", "/dev/pts"] {
                assert!(
                    stdout.contains(&format!("umount {p} -1 Operation not permitted\n")),
                    "{user:?} {mode}: {stdout}"
                );
            }
            // Under 7777 the base stays writable: the workspace is no mount of its own, and
            // system read masks nothing; root, who may unmount, is told so.
            let why = if mode == "7777" && user == User::Root { "Invalid argument" } else { "Operation not permitted" };
            for p in [w.to_string(), format!("{w}/.env")] {
                assert!(stdout.contains(&format!("umount {p} -1 {why}\n")), "{user:?} {mode}: {stdout}");
            }
            assert!(stdout.contains("mount_setattr -1 Operation not permitted\n"), "{user:?} {mode}: {stdout}");
            assert!(stdout.contains("remount -1 Operation not permitted\n"), "{user:?} {mode}: {stdout}");
            if mode == "7777" {
                // Every right: the canary is writable, and the mask does not apply (system read).
                assert!(stdout.contains("ENV CANARY"), "{user:?}: {stdout}");
            } else {
                says(&out, &format!("{}: Read-only file system", canary.display()));
                says(&out, "cat: .env: Permission denied");
                assert_eq!(snap(&canary), before, "{user:?} {mode}");
            }
        }
    }
}

#[test]
fn a_workspace_under_tmp_stays_read_only_without_workspace_write() {
    for user in USERS {
        let lab = lab_for(user);
        // Under /tmp on purpose: scratch is writable whole, the workspace in it is not.
        let ws = tempfile::Builder::new().prefix("sbx-ns-ws-").tempdir_in("/tmp").unwrap();
        let data = ws.path().join("data.txt");
        std::fs::write(&data, "DATA\n").unwrap();
        give_tree(ws.path(), user);
        let scratch = Made(PathBuf::from("/tmp").join(unique("scratch")));
        let script = format!(
            "echo x >> data.txt\ntouch new.txt\nchmod 600 data.txt\n{}\necho scratch > {s}\ncat {s}\n",
            py("open(\"data.txt\", \"a\").write(\"y\")"),
            s = scratch.0.display()
        );
        let before = snap(&data);
        let out = feed(sb_in(ws.path(), &lab.home, user, "0444"), &script);
        says(&out, "data.txt: Read-only file system");
        says(&out, "touch: cannot touch 'new.txt': Read-only file system");
        says(&out, "chmod: changing permissions of 'data.txt': Read-only file system");
        says(&out, "OSError: [Errno 30] Read-only file system: 'data.txt'");
        assert_eq!(text(&out.stdout), "scratch\n", "{user:?}: /tmp itself stays writable");
        assert_eq!(snap(&data), before, "{user:?}");
        assert!(!ws.path().join("new.txt").exists(), "{user:?}");
        assert_eq!(std::fs::read_to_string(&scratch.0).unwrap(), "scratch\n");
        std::fs::remove_file(&scratch.0).unwrap();
        // Positive control: with workspace write all of it works.
        let out = feed(sb_in(ws.path(), &lab.home, user, "0467"), &script);
        assert_eq!(ok(&out), "scratch\n", "{user:?}");
        assert_eq!(std::fs::read_to_string(&data).unwrap(), "DATA\nx\ny");
        assert_eq!(mode_bits(&data), 0o600);
        assert!(ws.path().join("new.txt").exists());
    }
}

#[test]
fn no_code_is_mapped_from_the_workspace_or_scratch_without_workspace_execute() {
    for user in USERS {
        let lab = Lab::new();
        std::fs::copy("/bin/true", lab.ws.join("true")).unwrap();
        give(&lab, user);
        let scratch = tempfile::Builder::new().prefix("sbx-ns-bin-").tempdir_in("/tmp").unwrap();
        std::fs::copy("/bin/true", scratch.path().join("true")).unwrap();
        give_tree(scratch.path(), user);
        let s = scratch.path().join("true");
        let s = s.display();
        let map = py("import mmap, os, sys\n\
                      fd = os.open(sys.argv[1], os.O_RDONLY)\n\
                      mmap.mmap(fd, 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC)\n\
                      print(\"mapped\", sys.argv[1])");
        let script = format!(
            "{LOADER} ./true; echo \"ws=$?\"\n{LOADER} {s}; echo \"scratch=$?\"\n\
             cp /bin/true /dev/shm/sbx-ns-true-$$ && {LOADER} /dev/shm/sbx-ns-true-$$; echo \"shm=$?\"; rm -f /dev/shm/sbx-ns-true-$$\n\
             {map} true\n{map} {s}\n./true; echo \"direct=$?\"\n"
        );
        let out = run(&lab, user, "0444", &script);
        past_static(&out);
        assert_eq!(text(&out.stdout), "ws=127\nscratch=127\nshm=127\ndirect=126\n", "{user:?}: {}", all(&out));
        says(&out, "./true: error while loading shared libraries: ./true: failed to map segment from shared object");
        says(
            &out,
            &format!("{s}: error while loading shared libraries: {s}: failed to map segment from shared object"),
        );
        says_n(&out, "failed to map segment from shared object", 3);
        says_n(&out, "PermissionError: [Errno 1] Operation not permitted", 2);
        says(&out, "./true: Permission denied");
        // Positive control: with workspace execute the same loads and maps run.
        let out = run(&lab, user, "0467", &script);
        assert_eq!(
            ok(&out),
            format!("ws=0\nscratch=0\nshm=0\nmapped true\nmapped {s}\ndirect=0\n"),
            "{user:?}: {}",
            text(&out.stderr)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Masks over credentials.
// ---------------------------------------------------------------------------------------------

/// Another account's home under /home, made by the test and removed afterwards, with a key
/// in `.ssh` (a masked directory) and a `.netrc` (a masked file).
fn other_home() -> Made {
    let home = Made(PathBuf::from("/home").join(format!("sandbox-bash-test-{}", unique("home"))));
    std::fs::create_dir_all(home.0.join(".ssh")).unwrap();
    std::fs::write(home.0.join(".ssh/id_rsa"), "OTHER HOME KEY CANARY\n").unwrap();
    std::fs::write(home.0.join(".netrc"), "machine x password NETRC CANARY\n").unwrap();
    for (p, m) in [("", 0o755), (".ssh", 0o755), (".ssh/id_rsa", 0o644), (".netrc", 0o644)] {
        std::fs::set_permissions(home.0.join(p), std::fs::Permissions::from_mode(m)).unwrap();
    }
    home
}

#[test]
fn credentials_are_masked_for_root_and_other_users() {
    let other = other_home();
    let h = other.0.display().to_string();
    for user in USERS {
        let lab = Lab::new();
        std::fs::write(lab.ws.join(".env"), "ENV CANARY\n").unwrap();
        std::fs::write(lab.ws.join("deploy.key"), "DEPLOY KEY CANARY\n").unwrap();
        std::fs::create_dir_all(lab.ws.join("sub/dir")).unwrap();
        std::fs::write(lab.ws.join("sub/dir/secret.pem"), "PEM CANARY\n").unwrap();
        std::fs::write(lab.ws.join("notes.txt"), "notes\n").unwrap();
        give(&lab, user);
        let targets: Vec<PathBuf> = [".env", "deploy.key", "sub/dir/secret.pem"]
            .iter()
            .map(|p| lab.ws.join(p))
            .chain([other.0.join(".ssh/id_rsa"), other.0.join(".netrc"), other.0.join(".ssh")])
            .collect();
        let before: Vec<Snap> = targets.iter().map(|t| snap(t)).collect();
        let read = format!(
            "cat $(ls -a | grep '^\\.en')\n{}\ncat $(find sub -name '*.pem')\n{}\ncat {h}/.ssh/id_rsa\nls -A {h}/.ssh\ncat notes.txt\n",
            py("print(open(\"deploy.key\").read(), end=\"\")"),
            py(&format!("print(open(\"{h}/.netrc\").read(), end=\"\")")),
        );
        for mode in ["0467", "0444"] {
            let out = run(&lab, user, mode, &read);
            says(&out, "cat: .env: Permission denied");
            says(&out, "PermissionError: [Errno 13] Permission denied: 'deploy.key'");
            says(&out, "cat: sub/dir/secret.pem: Permission denied");
            says(&out, &format!("PermissionError: [Errno 13] Permission denied: '{h}/.netrc'"));
            // A masked directory is empty: root finds nothing in it, others cannot enter it.
            match user {
                User::Root => {
                    says(&out, &format!("cat: {h}/.ssh/id_rsa: No such file or directory"));
                }
                User::Nobody => {
                    says(&out, &format!("cat: {h}/.ssh/id_rsa: Permission denied"));
                    says(&out, &format!("ls: cannot open directory '{h}/.ssh': Permission denied"));
                }
            }
            assert_eq!(text(&out.stdout), "notes\n", "{user:?} {mode}: nothing but the notes");
        }
        // Neither written nor moved nor removed.
        let write = format!(
            "echo x > deploy.key\nrm -f .env\nmv sub/dir/secret.pem sub/moved.pem\n{}\n",
            py("import os; open(\"replacement\", \"w\").write(\"x\"); os.replace(\"replacement\", \".env\")")
        );
        let out = run(&lab, user, "0467", &write);
        says(&out, "deploy.key: Permission denied");
        says(&out, "rm: cannot remove '.env': Device or resource busy");
        says(&out, "mv: cannot move 'sub/dir/secret.pem' to 'sub/moved.pem': Device or resource busy");
        says(&out, "OSError: [Errno 16] Device or resource busy: 'replacement' -> '.env'");
        std::fs::remove_file(lab.ws.join("replacement")).unwrap();
        for (t, b) in targets.iter().zip(&before) {
            assert_eq!(&snap(t), b, "{user:?}: {} changed", t.display());
        }
        // Positive control: system read reads them all (and keeps them read-only).
        let out = run(&lab, user, "4467", &read);
        assert_eq!(
            ok(&out),
            "ENV CANARY\nDEPLOY KEY CANARY\nPEM CANARY\nmachine x password NETRC CANARY\nOTHER HOME KEY CANARY\nid_rsa\nnotes\n",
            "{user:?}: {}",
            text(&out.stderr)
        );
        let out = run(&lab, user, "4467", "echo x >> .env\n");
        says(&out, ".env: Read-only file system");
        assert_eq!(snap(&targets[0]), before[0]);
    }
}

/// A unix socket server of the test's, counting the connections it answers.
struct Agent {
    path: PathBuf,
    answered: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Agent {
    fn start(path: PathBuf) -> Agent {
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777)).unwrap();
        let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = answered.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut s) = stream else { return };
                if s.write_all(b"AGENT-HELLO\n").is_ok() {
                    count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            }
        });
        Agent { path, answered }
    }

    fn answered(&self) -> usize {
        self.answered.load(std::sync::atomic::Ordering::SeqCst)
    }
}

#[test]
fn an_agent_socket_cannot_be_reached() {
    for user in USERS {
        let lab = lab_for(user);
        let agent = Agent::start(lab.outside.join("agent.sock"));
        let connect = py(&format!(
            "import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect(\"{}\")\nprint(s.recv(100).decode(), end=\"\")",
            agent.path.display()
        ));
        let script = format!("{connect}\n");
        for mode in ["0467", "0444", "0767"] {
            let mut c = sb(&lab, user, mode);
            c.env("SSH_AUTH_SOCK", &agent.path);
            let out = feed(c, &script);
            // Root reaches the stand-in, which is no socket; others may not even do that.
            match user {
                User::Root => says(&out, "ConnectionRefusedError: [Errno 111] Connection refused"),
                User::Nobody => says(&out, "PermissionError: [Errno 13] Permission denied"),
            }
            assert_eq!(text(&out.stdout), "", "{user:?} {mode}");
            assert_eq!(agent.answered(), 0, "{user:?} {mode}: the agent was reached");
        }
        // Positive control: with system read the agent answers.
        let mut c = sb(&lab, user, "4467");
        c.env("SSH_AUTH_SOCK", &agent.path);
        assert_eq!(ok(&feed(c, &script)), "AGENT-HELLO\n", "{user:?}");
        assert_eq!(agent.answered(), 1, "{user:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// 4. Persistence points.
// ---------------------------------------------------------------------------------------------

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("/usr/bin/git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", all(&out));
}

/// A repository in the workspace with a hook that leaves a marker, a nested repository, a
/// submodule-style `.git` file, a worktree and a repository whose hooks lie elsewhere
/// (core.hooksPath).
fn repositories(ws: &Path) {
    git(ws, &["init", "-q", "."]);
    git(ws, &["commit", "-q", "--allow-empty", "-m", "init"]);
    let hook = ws.join(".git/hooks/pre-commit");
    std::fs::write(&hook, "#!/bin/sh\necho hook-ran >> \"$(git rev-parse --show-toplevel)/hook.marker\"\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    git(ws, &["init", "-q", "nested"]);
    std::fs::create_dir_all(ws.join(".git/modules")).unwrap();
    let modules = ws.join(".git/modules/lib");
    git(ws, &["init", "-q", &format!("--separate-git-dir={}", modules.display()), "lib"]);
    std::fs::write(ws.join("lib/.git"), "gitdir: ../.git/modules/lib\n").unwrap();
    git(ws, &["worktree", "add", "-q", "wt"]);
    std::fs::create_dir_all(ws.join("githooks")).unwrap();
    std::fs::write(ws.join("githooks/post-commit"), "#!/bin/sh\n").unwrap();
    git(ws, &["init", "-q", "hp"]);
    git(&ws.join("hp"), &["config", "core.hooksPath", "../githooks"]);
}

#[test]
fn persistence_points_stay_read_only_and_git_still_works() {
    for user in USERS {
        let lab = Lab::new();
        repositories(&lab.ws);
        give(&lab, user);
        let appended = [
            ".git/hooks/pre-commit",
            ".git/config",
            "nested/.git/config",
            ".git/modules/lib/config",
            "lib/.git",
            "wt/.git",
            ".git/worktrees/wt/commondir",
            "githooks/post-commit",
            "hp/.git/config",
        ];
        let created = [".git/hooks/post-merge", "nested/.git/hooks/pre-push", ".git/modules/lib/hooks/pre-commit"];
        let moved = [".git", "nested/.git", ".git/modules/lib", "lib/.git", "wt/.git", "githooks", ".git/hooks"];
        let watched: Vec<PathBuf> = appended
            .iter()
            .chain(&[".git/hooks", "nested/.git/hooks", ".git/modules/lib/hooks", "githooks"])
            .map(|p| lab.ws.join(p))
            .collect();
        let before: Vec<Snap> = watched.iter().map(|p| snap(p)).collect();
        let mut script = String::new();
        for p in appended {
            script.push_str(&format!("echo pwned >> {p}\n"));
        }
        for p in created {
            script.push_str(&format!("touch {p}\n"));
        }
        for p in moved {
            script.push_str(&format!("mv {p} {p}.away\n"));
        }
        script.push_str(&py("import os; open(\".git/config.new\", \"w\").write(\"x\"); os.replace(\".git/config.new\", \".git/config\")"));
        script.push_str("\n/usr/bin/git config core.fsmonitor /tmp/evil; echo \"config=$?\"\n");
        script.push_str(&format!("{}\n", py("import os; os.chmod(\".git/hooks/pre-commit\", 0o777)")));
        let out = run(&lab, user, "0467", &script);
        for p in appended {
            says(&out, &format!(" {p}: Read-only file system"));
        }
        for p in created {
            says(&out, &format!("touch: cannot touch '{p}': Read-only file system"));
        }
        for p in moved {
            says(&out, &format!("mv: cannot move '{p}' to '{p}.away': Device or resource busy"));
        }
        says(&out, "OSError: [Errno 16] Device or resource busy: '.git/config.new' -> '.git/config'");
        says(&out, "error: could not write config file .git/config: Device or resource busy");
        says(&out, "config=4");
        says(&out, "OSError: [Errno 30] Read-only file system: '.git/hooks/pre-commit'");
        for (p, b) in watched.iter().zip(&before) {
            assert_eq!(&snap(p), b, "{user:?}: {} changed", p.display());
        }
        for p in moved {
            assert!(!lab.ws.join(format!("{p}.away")).exists(), "{user:?}: {p} was moved");
        }

        // Positive control: git still works, and runs the hook that was there before.
        let commit = "/usr/bin/git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m inside && \
                      /usr/bin/git log --format=%s -1 && cat hook.marker\n";
        let out = run(&lab, user, "0467", commit);
        assert_eq!(ok(&out), "inside\nhook-ran\n", "{user:?}: {}", text(&out.stderr));
        let log = Command::new("/usr/bin/git")
            .args(["-c", "safe.directory=*", "log", "--format=%s"])
            .current_dir(&lab.ws)
            .env("HOME", &lab.home)
            .output()
            .unwrap();
        assert!(text(&log.stdout).starts_with("inside\n"), "{}", all(&log));
        // With system write the hooks and configuration are the command's to change.
        let out = run(&lab, user, "6467", "echo '# more' >> .git/hooks/pre-commit && echo '# more' >> .git/config\n");
        assert_eq!(ok(&out), "", "{user:?}: {}", text(&out.stderr));
        assert!(std::fs::read_to_string(lab.ws.join(".git/hooks/pre-commit")).unwrap().ends_with("# more\n"));
        assert!(std::fs::read_to_string(lab.ws.join(".git/config")).unwrap().ends_with("# more\n"));
    }
}

// ---------------------------------------------------------------------------------------------
// 5. Terminals and IPC.
// ---------------------------------------------------------------------------------------------

struct Pty {
    master: OwnedFd,
    slave: OwnedFd,
    name: String,
}

/// A terminal pair of the test's own.
fn open_pty() -> Pty {
    // SAFETY: plain calls on descriptors this function owns; the name buffer is sized.
    unsafe {
        let m = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        assert!(m >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
        let master = OwnedFd::from_raw_fd(m);
        assert_eq!(libc::grantpt(m), 0);
        assert_eq!(libc::unlockpt(m), 0);
        let mut buf = [0 as libc::c_char; 128];
        assert_eq!(libc::ptsname_r(m, buf.as_mut_ptr(), buf.len()), 0);
        let name = CStr::from_ptr(buf.as_ptr()).to_str().unwrap().to_string();
        let s = libc::open(buf.as_ptr(), libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        assert!(s >= 0, "{name}: {}", std::io::Error::last_os_error());
        Pty { master, slave: OwnedFd::from_raw_fd(s), name }
    }
}

/// What can be read from `fd` now, without waiting.
fn drain(fd: &OwnedFd) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        // SAFETY: a poll and a read on a descriptor this test owns, into a live buffer.
        let n = unsafe {
            let mut p = libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
            if libc::poll(&mut p, 1, 200) <= 0 || p.revents & libc::POLLIN == 0 {
                break;
            }
            libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len())
        };
        if n <= 0 {
            break;
        }
        out.extend_from_slice(&buf[..n as usize]);
    }
    out
}

#[test]
fn other_terminals_cannot_be_opened_and_its_own_works() {
    for user in USERS {
        let lab = lab_for(user);
        // Another terminal, the user's to open outside the sandbox.
        let other = open_pty();
        let other_path = Path::new(&other.name).to_path_buf();
        std::os::unix::fs::chown(&other_path, Some(user.uid()), Some(user.uid())).unwrap();
        let other_before = snap(&other_path);
        // The command's own terminal, its controlling one.
        let own = open_pty();
        let code = format!(
            "import os\n\
             try:\n\
             \x20   os.open(\"{o}\", os.O_RDWR | os.O_NOCTTY); print(\"OPENED\")\n\
             except OSError as e:\n\
             \x20   print(\"other:\", e.strerror)\n\
             print(\"pts:\", sorted(os.listdir(\"/dev/pts\")))\n\
             m, s = os.openpty(); os.write(m, b\"ping\\n\"); print(\"own pty:\", os.read(s, 100))\n\
             t = os.open(\"/dev/tty\", os.O_RDWR); os.write(t, b\"VIA-DEV-TTY\\n\"); print(\"tty:\", os.isatty(0))\n",
            o = other.name
        );
        let mut c = sb(&lab, user, "0467");
        c.arg("-c").arg(py(&code));
        c.stdin(Stdio::from(std::fs::File::from(own.slave.try_clone().unwrap())));
        // SAFETY: setsid and an ioctl on standard input, between fork and exec.
        unsafe {
            c.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let out = c.output().unwrap();
        assert_eq!(
            ok(&out),
            "other: No such file or directory\npts: ['ptmx']\nown pty: b'ping\\n'\ntty: True\n",
            "{user:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stderr), "", "{user:?}");
        assert_eq!(drain(&own.master), b"VIA-DEV-TTY\r\n", "{user:?}: /dev/tty is its own terminal");
        assert_eq!(drain(&other.master), b"", "{user:?}: the other terminal was written");
        assert_eq!(snap(&other_path), other_before, "{user:?}");
        // Positive control: outside the sandbox the user opens the other terminal.
        let out = as_user(user, "/usr/bin/python3")
            .arg("-c")
            .arg(format!("import os; os.write(os.open(\"{}\", os.O_RDWR | os.O_NOCTTY), b\"outside\\n\")", other.name))
            .output()
            .unwrap();
        assert!(out.status.success(), "{user:?}: {}", all(&out));
        assert_eq!(drain(&other.master), b"outside\r\n", "{user:?}");
        drop(other.slave);
    }
}

/// A SysV shared memory segment, a /dev/shm file and a POSIX message queue of the test's,
/// removed when dropped.
struct Ipc {
    shm_id: String,
    shm_file: PathBuf,
    queue: String,
}

impl Drop for Ipc {
    fn drop(&mut self) {
        let _ = Command::new("ipcrm").args(["-m", &self.shm_id]).output();
        let _ = std::fs::remove_file(&self.shm_file);
        let _ = Command::new("/usr/bin/python3")
            .arg("-c")
            .arg(format!("import ctypes; ctypes.CDLL(None).mq_unlink(b\"{}\")", self.queue))
            .output();
    }
}

fn segment(id: &str) -> String {
    let out = Command::new("ipcs").args(["-m", "-i", id]).env("LC_ALL", "C").output().unwrap();
    assert!(out.status.success(), "ipcs -m -i {id}: {}", all(&out));
    text(&out.stdout)
}

/// Python that attaches segment `id`, opens queue `name` and reports the errno of each.
fn ipc_probe(id: &str, queue: &str) -> String {
    py(&format!(
        "import ctypes, os\n\
         l = ctypes.CDLL(None, use_errno=True)\n\
         l.shmat.restype = ctypes.c_void_p\n\
         r = l.shmat({id}, None, 0); print(\"shmat:\", \"attached\" if r not in (None, 2**64 - 1) else os.strerror(ctypes.get_errno()))\n\
         r = l.mq_open(b\"{queue}\", os.O_RDONLY); print(\"mq_open:\", \"opened\" if r >= 0 else os.strerror(ctypes.get_errno()))\n"
    ))
}

#[test]
fn shared_memory_and_ipc_are_the_commands_own() {
    for user in USERS {
        let lab = lab_for(user);
        let tag = unique(&format!("{user:?}").to_lowercase());
        let out = Command::new("ipcmk").args(["-M", "4096", "-p", "0666"]).env("LC_ALL", "C").output().unwrap();
        let shm_id = text(&out.stdout).trim().rsplit(' ').next().unwrap().to_string();
        assert!(out.status.success() && shm_id.parse::<u32>().is_ok(), "ipcmk: {}", all(&out));
        let queue = format!("/{tag}");
        let made = Command::new("/usr/bin/python3")
            .arg("-c")
            .arg(format!(
                "import ctypes, os\nos.umask(0)\nassert ctypes.CDLL(None).mq_open(b\"{queue}\", os.O_CREAT | os.O_RDWR, 0o666, None) >= 0"
            ))
            .status()
            .unwrap();
        assert!(made.success(), "mq_open outside");
        let ipc = Ipc { shm_id, shm_file: PathBuf::from(format!("/dev/shm/{tag}-out")), queue };
        std::fs::write(&ipc.shm_file, "OUTSIDE SHM\n").unwrap();
        std::fs::set_permissions(&ipc.shm_file, std::fs::Permissions::from_mode(0o666)).unwrap();
        let inside_file = PathBuf::from(format!("/dev/shm/{tag}-in"));
        let inside_queue = format!("/{tag}-in");
        // A key of our own for the segment made inside, to look for outside.
        let key = (std::process::id() << 8) | if user == User::Root { 1 } else { 2 };
        let before = segment(&ipc.shm_id);
        let file_before = snap(&ipc.shm_file);
        let script = format!(
            "ls -A /dev/shm; echo listed\ncat {out}\necho INSIDE > {inf} && cat {inf}\n\
             ipcs -m | grep -c '^0x'\nipcrm -m {id}\n{probe}\n{own}\n",
            out = ipc.shm_file.display(),
            inf = inside_file.display(),
            id = ipc.shm_id,
            probe = ipc_probe(&ipc.shm_id, &ipc.queue),
            own = py(&format!(
                "import ctypes, os\n\
                 l = ctypes.CDLL(None, use_errno=True)\n\
                 l.shmat.restype = ctypes.c_void_p\n\
                 i = l.shmget({key}, 4096, 0o1000 | 0o600); r = l.shmat(i, None, 0)\n\
                 ctypes.memmove(r, b\"mine\", 4); print(\"own segment:\", ctypes.string_at(r, 4).decode())\n\
                 r = l.mq_open(b\"{inside_queue}\", os.O_CREAT | os.O_RDWR, 0o600, None)\n\
                 print(\"own queue:\", \"opened\" if r >= 0 else os.strerror(ctypes.get_errno()))\n"
            )),
        );
        let out = run(&lab, user, "0467", &script);
        past_static(&out);
        assert_eq!(
            text(&out.stdout),
            "listed\nINSIDE\n0\nshmat: Invalid argument\nmq_open: No such file or directory\nown segment: mine\n\
             own queue: Permission denied\n",
            "{user:?}: {}",
            text(&out.stderr)
        );
        says(&out, &format!("cat: {}: No such file or directory", ipc.shm_file.display()));
        says(&out, &format!("ipcrm: invalid id ({})", ipc.shm_id));
        // Nothing outside changed, and nothing made inside shows outside.
        assert_eq!(segment(&ipc.shm_id), before, "{user:?}");
        assert_eq!(snap(&ipc.shm_file), file_before, "{user:?}");
        assert!(!inside_file.exists(), "{user:?}: /dev/shm is shared");
        let ipcs = Command::new("ipcs").arg("-m").env("LC_ALL", "C").output().unwrap();
        assert!(!text(&ipcs.stdout).contains(&format!("0x{key:08x}")), "{user:?}: {}", text(&ipcs.stdout));
        // Positive control: outside the sandbox the same user reaches all of it.
        let out = as_user(user, "/usr/bin/python3")
            .arg("-c")
            .arg(format!(
                "import ctypes, os\n\
                 l = ctypes.CDLL(None, use_errno=True)\n\
                 l.shmat.restype = ctypes.c_void_p\n\
                 print(l.shmat({id}, None, 0) not in (None, 2**64 - 1), l.mq_open(b\"{q}\", os.O_RDONLY) >= 0, \
                 l.mq_open(b\"{iq}\", os.O_RDONLY) >= 0, open(\"{f}\").read(), end=\"\")",
                id = ipc.shm_id,
                q = ipc.queue,
                iq = inside_queue,
                f = ipc.shm_file.display()
            ))
            .output()
            .unwrap();
        assert_eq!(text(&out.stdout), "True True False OUTSIDE SHM\n", "{user:?}: {}", text(&out.stderr));
    }
}

// ---------------------------------------------------------------------------------------------
// 6. The frozen script.
// ---------------------------------------------------------------------------------------------

const SWAPPED_SCRIPT: &str = "echo \"0=$0 source=${BASH_SOURCE[0]} line=$LINENO\"\n\
touch started; while [ ! -e swapped ]; do sleep 0.02; done\n\
echo ORIGINAL-A\n\
echo ORIGINAL-B\n\
nosuchcmd_sbx_frozen\n\
echo \"end $LINENO\"\n\
echo x >> script.sh\n\
/usr/bin/python3 -c 'import os; open(\"new.sh\", \"w\").write(\"echo REPLACED\\n\"); os.replace(\"new.sh\", \"script.sh\")'\n";

/// Runs `c` (a script in `ws`), and once it has started rewrites the script from outside: in
/// place (`rename` false) or by a new file renamed over it.
fn swap_while_running(mut c: Command, ws: &Path, rename: bool) -> Output {
    let script = ws.join("script.sh");
    for f in ["started", "swapped"] {
        let _ = std::fs::remove_file(ws.join(f));
    }
    let child = c.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !ws.join("started").exists() {
        assert!(Instant::now() < deadline, "the script never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    let swapped = SWAPPED_SCRIPT.replace("ORIGINAL", "SWAPPED!");
    if rename {
        let new = ws.join("script.new");
        std::fs::write(&new, &swapped).unwrap();
        std::fs::rename(&new, &script).unwrap();
    } else {
        // The same file, the same length: bash reading on would run the new lines.
        std::fs::OpenOptions::new().write(true).open(&script).unwrap().write_all(swapped.as_bytes()).unwrap();
    }
    std::fs::write(ws.join("swapped"), "").unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn the_script_bash_reads_is_the_one_analysed() {
    for user in USERS {
        let lab = Lab::new();
        let script = lab.ws.join("script.sh");
        std::fs::write(&script, SWAPPED_SCRIPT).unwrap();
        give(&lab, user);
        let swapped = SWAPPED_SCRIPT.replace("ORIGINAL", "SWAPPED!");

        // Control: the real bash on its own reads the rewritten lines.
        let mut c = as_user(user, "/bin/bash");
        c.arg("script.sh").current_dir(&lab.ws).env_clear().env("PATH", PATH).env("LC_ALL", "C");
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        let out = swap_while_running(c, &lab.ws, false);
        assert!(text(&out.stdout).contains("SWAPPED!-A\nSWAPPED!-B\n"), "{user:?}: {}", all(&out));
        std::fs::write(&script, SWAPPED_SCRIPT).unwrap();
        give(&lab, user);
        let _ = std::fs::remove_file(lab.ws.join("new.sh"));

        for rename in [false, true] {
            let mut c = sb(&lab, user, "0467");
            c.arg("script.sh");
            let out = swap_while_running(c, &lab.ws, rename);
            past_static(&out);
            assert_eq!(
                text(&out.stdout),
                "0=script.sh source=script.sh line=1\nORIGINAL-A\nORIGINAL-B\nend 6\n",
                "{user:?} rename={rename}: {}",
                text(&out.stderr)
            );
            let stderr = text(&out.stderr);
            assert!(stderr.starts_with("script.sh: line 5: nosuchcmd_sbx_frozen: command not found\n"), "{stderr}");
            if rename {
                // The path now names the new file; bash still read the analysed one to the end.
                assert_eq!(out.status.code(), Some(0), "{user:?}: {stderr}");
            } else {
                // Writing the path from inside reaches the frozen copy: read-only, and a mount.
                assert!(stderr.contains("script.sh: line 7: script.sh: Read-only file system\n"), "{stderr}");
                assert!(
                    stderr.contains("OSError: [Errno 16] Device or resource busy: 'new.sh' -> 'script.sh'"),
                    "{stderr}"
                );
                assert_eq!(out.status.code(), Some(1), "{user:?}: {stderr}");
                assert_eq!(std::fs::read_to_string(&script).unwrap(), swapped, "{user:?}: the script changed");
            }
            std::fs::write(&script, SWAPPED_SCRIPT).unwrap();
            give(&lab, user);
            let _ = std::fs::remove_file(lab.ws.join("new.sh"));
        }
    }
}

#[test]
fn a_script_sees_its_name_lines_and_errors_as_with_bash() {
    let body = "echo \"0=$0 source=${BASH_SOURCE[*]} line=$LINENO args=$#:$*\"\n\
                f() {\n\
                \x20 echo \"f: line=$LINENO source=${BASH_SOURCE[*]} funcs=${FUNCNAME[*]}\"\n\
                \x20 caller 0\n\
                }\n\
                f\n\
                nosuchcmd_sbx_lines\n\
                echo $((1/0))\n\
                echo \"after $LINENO\"\n\
                cd /nonexistent-sbx-dir\n\
                echo \"lines=$(wc -l < \"$0\") $(head -1 \"$0\" | cut -c1-4)\"\n\
                trap 'echo \"exit trap at $LINENO\"' EXIT\n\
                exit 3\n";
    for user in USERS {
        let lab = Lab::new();
        std::fs::write(lab.ws.join("script.sh"), body).unwrap();
        std::fs::create_dir_all(lab.ws.join("sub")).unwrap();
        std::fs::write(lab.ws.join("sub/other.sh"), body).unwrap();
        give(&lab, user);
        let abs = lab.ws.join("script.sh").to_string_lossy().into_owned();
        let invocations =
            [vec!["script.sh"], vec!["./script.sh", "a", "b c"], vec!["sub/other.sh", "x"], vec![abs.as_str()]];
        // A umask that leaves no bit at all: the frozen copy is still the script's to read.
        for (args, umask) in invocations.iter().map(|a| (a, 0o022)).chain([(&invocations[0], 0o777)]) {
            let with_umask = |c: &mut Command| {
                // SAFETY: umask between fork and exec.
                unsafe {
                    c.pre_exec(move || {
                        libc::umask(umask);
                        Ok(())
                    });
                }
            };
            let mut c = as_user(user, "/bin/bash");
            c.args(args).current_dir(&lab.ws).env_clear().env("PATH", PATH).env("LC_ALL", "C").env("HOME", &lab.home);
            with_umask(&mut c);
            let want = c.output().unwrap();
            let mut c = sb(&lab, user, "0467");
            c.args(args);
            with_umask(&mut c);
            let got = c.output().unwrap();
            past_static(&got);
            assert_eq!(text(&got.stdout), text(&want.stdout), "{user:?} {args:?} umask {umask:o}");
            assert_eq!(text(&got.stderr), text(&want.stderr), "{user:?} {args:?} umask {umask:o}");
            assert_eq!(got.status.code(), want.status.code(), "{user:?} {args:?} umask {umask:o}");
            assert_eq!(want.status.code(), Some(3));
            let name = args[0];
            assert!(text(&want.stderr).contains(&format!("{name}: line 7: nosuchcmd_sbx_lines: command not found")));
            assert!(text(&want.stdout).contains("lines=13 echo\n"), "{}", text(&want.stdout));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 7. Without namespaces.
// ---------------------------------------------------------------------------------------------

/// A seccomp filter of the test's own, installed between fork and exec: unshare(2) fails with
/// EPERM for the command and everything it starts (sandbox-bash among them). The machine's
/// settings stay as they are.
fn deny_unshare(c: &mut Command) {
    // BPF_LD | BPF_W | BPF_ABS, BPF_JMP | BPF_JEQ | BPF_K, BPF_RET | BPF_K.
    const LD_W_ABS: u16 = 0x20;
    const JEQ_K: u16 = 0x15;
    const RET_K: u16 = 0x06;
    const ALLOW: u32 = 0x7fff_0000;
    const ERRNO: u32 = 0x0005_0000;
    #[cfg(target_arch = "x86_64")]
    const ARCH: u32 = 0xc000_003e;
    #[cfg(target_arch = "aarch64")]
    const ARCH: u32 = 0xc000_00b7;
    let op = |code: u16, jt: u8, jf: u8, k: u32| libc::sock_filter { code, jt, jf, k };
    let filter = [
        op(LD_W_ABS, 0, 0, 4),
        op(JEQ_K, 1, 0, ARCH),
        op(RET_K, 0, 0, ALLOW),
        op(LD_W_ABS, 0, 0, 0),
        op(JEQ_K, 0, 1, libc::SYS_unshare as u32),
        op(RET_K, 0, 0, ERRNO | libc::EPERM as u32),
        op(RET_K, 0, 0, ALLOW),
    ];
    // SAFETY: two prctl calls between fork and exec on a filter prepared before the fork.
    unsafe {
        c.pre_exec(move || {
            let prog = libc::sock_fprog { len: filter.len() as u16, filter: filter.as_ptr() as *mut libc::sock_filter };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(libc::PR_SET_SECCOMP, 2, &prog as *const libc::sock_fprog) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// The last record of the audit log at `log`.
/// The last record of an invocation (the supervisor's records of refusals it told come after).
fn last_record(log: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(log).unwrap();
    let records: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    records.into_iter().rev().find(|r| r["event"] != "file" && r["event"] != "signal").expect("an audit record")
}

fn static_only(record: &serde_json::Value) -> Vec<String> {
    record["static_only"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

/// What sandbox-bash says it cannot hold without the namespace layer, for the reason `why`.
fn fallback_static_only(why: &str) -> Vec<String> {
    std::iter::once(format!("no namespace layer: {why}"))
        .chain(sandbox_bash::sandbox::NAMESPACE_EXCEPTIONS.iter().map(|e| format!("static only: {e}")))
        .collect()
}

/// The lines of one kind (`kernel`, `static`, `none`) of one area of `--sandbox-info`.
fn info_lines(info: &serde_json::Value, area: &str, kind: &str) -> Vec<String> {
    let area = info["areas"].as_array().unwrap().iter().find(|a| a["area"] == area).unwrap();
    area[kind].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect()
}

/// Runs `probe` under 0467 with the audit log in the lab, and `--sandbox-info`, each command
/// made by `make`; returns the probe's output, its record and the declaration.
fn probe_with(
    lab: &Lab,
    user: User,
    make: &dyn Fn(Command) -> Command,
    probe: &str,
) -> (Output, serde_json::Value, serde_json::Value) {
    let log = lab.outside.join("audit.jsonl");
    let mut c = sb(lab, user, "0467");
    c.env("SANDBOX_BASH_AUDIT_LOG", &log).arg("-c").arg(probe);
    let out = make(c).output().unwrap();
    let record = last_record(&log);
    let mut c = sb(lab, user, "0467");
    c.args(["--sandbox-info", "--sandbox-json"]);
    let info = make(c).output().unwrap();
    assert_eq!(info.status.code(), Some(0), "{}", all(&info));
    (out, record, serde_json::from_slice(&info.stdout).unwrap())
}

/// The probe: the command runs, Landlock still refuses a write outside (EACCES now, not the
/// view's EROFS), and the workspace's .env, which no mask covers, is read.
fn fallback_probe(lab: &Lab) -> String {
    format!(
        "id -u; cat $(ls -a | grep '^\\.en'); {}; readlink /proc/self/ns/mnt",
        py(&format!("open(\"{}\", \"a\").write(\"x\")", lab.outside.join("file.txt").display()))
    )
}

#[test]
fn where_namespaces_are_refused_the_command_runs_and_says_what_is_static_only() {
    for user in USERS {
        let lab = Lab::new();
        std::fs::write(lab.ws.join(".env"), "FALLBACK ENV\n").unwrap();
        give(&lab, user);
        let outside = lab.outside.join("file.txt");
        let before = snap(&outside);
        let why = match user {
            User::Root => "cannot create mount and IPC namespaces: Operation not permitted (os error 1)",
            User::Nobody => "user namespaces are not available to this user: Operation not permitted (os error 1)",
        };
        let denied = |mut c: Command| {
            deny_unshare(&mut c);
            c
        };
        let (out, record, info) = probe_with(&lab, user, &denied, &fallback_probe(&lab));
        assert_eq!(
            text(&out.stdout),
            format!("{}\nFALLBACK ENV\n{}\n", user.uid(), own_ns("mnt")),
            "{user:?}: {}",
            text(&out.stderr)
        );
        let told = text(&out.stderr);
        let stderr = crate::common::untold(&told);
        assert!(!stderr.contains("sandbox-bash"), "{user:?}: {stderr}");
        assert!(told.contains(&format!("{} (openat); held by Landlock;", outside.display())), "{user:?}: {told}");
        assert!(
            stderr.ends_with(&format!("PermissionError: [Errno 13] Permission denied: '{}'\n", outside.display())),
            "{user:?}: only Landlock's refusal: {stderr}"
        );
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(snap(&outside), before);
        assert_eq!(record["verdict"], "allow", "{record}");
        assert_eq!(record["enforcement"], "enforced", "{record}");
        assert_eq!(static_only(&record), fallback_static_only(why), "{user:?}: {record}");
        let fs_static = info_lines(&info, "filesystem", "static");
        assert!(fs_static.contains(&format!("no namespace layer here: {why}")), "{user:?}: {fs_static:#?}");
        for e in sandbox_bash::sandbox::NAMESPACE_EXCEPTIONS {
            assert!(fs_static.contains(&format!("held by the static layer only: {e}")), "{user:?}: {e}");
        }
        assert!(
            !info_lines(&info, "process and devices", "kernel").iter().any(|l| l.contains("namespaces of its own")),
            "{user:?}"
        );

        // Positive control: without the filter the view holds, and says so.
        let (out, record, info) = probe_with(&lab, user, &|c| c, &fallback_probe(&lab));
        assert_eq!(text(&out.stdout).lines().next(), Some(user.uid().to_string().as_str()));
        assert_ne!(text(&out.stdout).lines().last(), Some(own_ns("mnt").as_str()));
        assert!(!text(&out.stdout).contains("FALLBACK ENV"), "{user:?}");
        let told = text(&out.stderr);
        assert!(told.contains("held by the credential mask") && told.contains("held by the read-only view"), "{told}");
        let stderr = crate::common::untold(&told);
        assert!(stderr.starts_with("cat: .env: Permission denied\n"), "{user:?}: {stderr}");
        assert!(
            stderr.ends_with(&format!("OSError: [Errno 30] Read-only file system: '{}'\n", outside.display())),
            "{user:?}: {stderr}"
        );
        assert!(!static_only(&record).iter().any(|s| s.starts_with("no namespace layer")), "{record}");
        assert!(
            info_lines(&info, "process and devices", "kernel").iter().any(|l| l.contains("namespaces of its own")),
            "{user:?}: {info:#}"
        );
        assert!(!info_lines(&info, "filesystem", "static").iter().any(|l| l.starts_with("no namespace layer")));
    }
}

/// `c`, run by nobody inside a user namespace of the test's own (every uid below 65536
/// mapped to itself) whose limit of user namespaces is set to 0, in that namespace only.
fn in_a_namespace_without_room(c: &Command) -> Command {
    let mut sh = Command::new("/bin/sh");
    sh.arg("-c")
        // The maps are written once this shell runs, so it has no capabilities in the namespace;
        // the programs it starts afterwards, as the namespace's root, do.
        .arg("read go; /bin/sh -c 'echo 0 > /proc/sys/user/max_user_namespaces' || exit 99; exec \"$@\" </dev/null")
        .arg("sh")
        .arg(c.get_program())
        .args(c.get_args());
    sh.env_clear();
    for (name, value) in c.get_envs() {
        if let Some(v) = value {
            sh.env(name, v);
        }
    }
    if let Some(dir) = c.get_current_dir() {
        sh.current_dir(dir);
    }
    // SAFETY: one unshare between fork and exec.
    unsafe {
        sh.pre_exec(|| {
            if libc::unshare(libc::CLONE_NEWUSER) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    sh.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    sh
}

/// Starts `sh` (from [`in_a_namespace_without_room`]): maps its namespace, lets it go on.
fn start_unroomy(mut sh: Command) -> Output {
    let mut child = sh.spawn().unwrap();
    let pid = child.id();
    for map in ["uid_map", "gid_map"] {
        std::fs::write(format!("/proc/{pid}/{map}"), "0 0 65536\n").unwrap_or_else(|e| panic!("{map}: {e}"));
    }
    child.stdin.take().unwrap().write_all(b"go\n").unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn nobody_in_a_user_namespace_without_room_for_another_runs_without_the_view() {
    let lab = Lab::new();
    std::fs::write(lab.ws.join(".env"), "FALLBACK ENV\n").unwrap();
    give(&lab, User::Nobody);
    let log = lab.outside.join("audit.jsonl");
    let mut c = sb(&lab, User::Nobody, "0467");
    c.env("SANDBOX_BASH_AUDIT_LOG", &log).arg("-c").arg(fallback_probe(&lab));
    let out = start_unroomy(in_a_namespace_without_room(&c));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with(&format!("{NOBODY}\nFALLBACK ENV\n")), "{stdout}{}", text(&out.stderr));
    let told = text(&out.stderr);
    let stderr = crate::common::untold(&told);
    assert!(!stderr.contains("sandbox-bash"), "{stderr}");
    let outside = lab.outside.join("file.txt");
    assert!(stderr.ends_with(&format!("PermissionError: [Errno 13] Permission denied: '{}'\n", outside.display())));
    // Without the view, Landlock alone held it, and the line says so.
    assert!(told.contains(&format!("opens for writing {} (openat); held by Landlock;", outside.display())), "{told}");
    assert_eq!(out.status.code(), Some(0));
    let why = "no user namespace can be created here (the limit of user namespaces is reached: No space left on \
               device (os error 28))";
    assert_eq!(static_only(&last_record(&log)), fallback_static_only(why));
    // The host's own limit is untouched.
    assert_ne!(std::fs::read_to_string("/proc/sys/user/max_user_namespaces").unwrap().trim(), "0");
}

#[test]
fn require_namespaces_refuses_a_command_without_them() {
    for user in USERS {
        let lab = Lab::new();
        let system = lab.outside.join("system.toml");
        std::fs::write(&system, "require_namespaces = true\n").unwrap();
        give(&lab, user);
        std::fs::set_permissions(&system, std::fs::Permissions::from_mode(0o644)).unwrap();
        let log = lab.outside.join("audit.jsonl");
        let command = |deny: bool| {
            let mut c = sb(&lab, user, "0467");
            c.env("SANDBOX_BASH_TEST_SYSTEM_CONFIG", &system).env("SANDBOX_BASH_AUDIT_LOG", &log);
            c.arg("-c").arg("touch ran.marker");
            if deny {
                deny_unshare(&mut c);
            }
            c
        };
        let out = command(true).output().unwrap();
        let why = match user {
            User::Root => "cannot create mount and IPC namespaces: Operation not permitted (os error 1)",
            User::Nobody => "user namespaces are not available to this user: Operation not permitted (os error 1)",
        };
        assert_eq!(out.status.code(), Some(125), "{user:?}: {}", all(&out));
        assert_eq!(
            text(&out.stderr),
            format!(
                "sandbox-bash: error: the system file requires the namespace layer (require_namespaces = true in \
                 /etc/sandbox-bash/config.toml), and it cannot be had here: {why}\n"
            ),
            "{user:?}"
        );
        assert!(!lab.ws.join("ran.marker").exists(), "{user:?}: the command ran");
        let record = last_record(&log);
        assert_eq!(record["verdict"], "error", "{record}");
        assert!(record["error"].as_str().unwrap().contains("require_namespaces = true"), "{record}");
        // Without it in the system file the same refusal of namespaces is a fallback ...
        let mut c = command(true);
        c.env_remove("SANDBOX_BASH_TEST_SYSTEM_CONFIG");
        assert_eq!(ok(&c.output().unwrap()), "", "{user:?}");
        assert!(lab.ws.join("ran.marker").exists());
        std::fs::remove_file(lab.ws.join("ran.marker")).unwrap();
        // ... and with it, where namespaces can be had, the command runs.
        let out = command(false).output().unwrap();
        assert_eq!(ok(&out), "", "{user:?}: {}", text(&out.stderr));
        assert_eq!(text(&out.stderr), "");
        assert!(lab.ws.join("ran.marker").exists(), "{user:?}");
    }
}

#[test]
fn a_script_beside_the_home_files_runs_under_its_frozen_copy() {
    for user in USERS {
        let lab = lab_for(user);
        // A file directly in the home gets a rule of its own (the home is entered, not granted
        // whole); the frozen copy over it carries that rule.
        let script = lab.home.join("hello.sh");
        std::fs::write(&script, "echo \"ran $0 line $LINENO\"\n").unwrap();
        give_tree(&lab.home, user);
        let mut c = sb(&lab, user, "0467");
        c.arg(&script);
        let out = c.output().unwrap();
        assert_eq!(ok(&out), format!("ran {} line 1\n", script.display()), "{user:?}");
    }
}

#[test]
fn a_home_in_scratch_gets_no_new_start_up_or_settings_files() {
    for user in USERS {
        let lab = lab_for(user);
        // Under /tmp on purpose: scratch is writable whole, and these files do not exist yet.
        let home = Made(PathBuf::from("/tmp").join(unique("home")));
        std::fs::create_dir_all(home.0.join("work")).unwrap();
        std::fs::write(home.0.join(".bashrc"), "# rc\n").unwrap();
        give_tree(&home.0, user);
        let h = home.0.display();
        let script = format!(
            "echo x > {h}/.gitconfig\nmkdir {h}/.config\necho y > {h}/.bash_profile\ntouch {h}/new\n\
             echo ok > {h}/work/f && cat {h}/work/f\n"
        );
        let out = feed(sb_in(&lab.ws, &home.0, user, "0467"), &script);
        says(&out, ".gitconfig: Read-only file system");
        says(&out, "cannot create directory");
        says(&out, ".bash_profile: Read-only file system");
        says(&out, "touch: cannot touch");
        assert_eq!(text(&out.stdout), "ok\n", "{user:?}: the home's own entries stay writable");
        for made in [".gitconfig", ".config", ".bash_profile", "new"] {
            assert!(!home.0.join(made).exists(), "{user:?}: {made} was created");
        }
        // Positive control: with system write they can be made.
        let out = feed(sb_in(&lab.ws, &home.0, user, "6467"), &format!("echo x > {h}/.gitconfig\n"));
        ok(&out);
        assert!(home.0.join(".gitconfig").exists());
    }
}

#[test]
fn a_directory_that_cannot_be_listed_is_masked_whole() {
    // Root lists any directory; the owner who took read away from it cannot.
    let user = User::Nobody;
    let lab = lab_for(user);
    let hidden = lab.ws.join("conf");
    std::fs::create_dir_all(hidden.join("keys")).unwrap();
    std::fs::write(hidden.join("keys/deploy.pem"), "PEM CANARY\n").unwrap();
    std::fs::write(hidden.join("plain.txt"), "plain\n").unwrap();
    give(&lab, user);
    std::fs::set_permissions(&hidden, std::fs::Permissions::from_mode(0o311)).unwrap();
    let script = "cat conf/keys/deploy.pem\ncat conf/plain.txt\n";
    let out = run(&lab, user, "0467", script);
    says_n(&out, "Permission denied", 2);
    assert!(!text(&out.stdout).contains("CANARY"));
    // Positive control: readable again, it is searched, and only the key is masked.
    std::fs::set_permissions(&hidden, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = run(&lab, user, "0467", script);
    says(&out, "conf/keys/deploy.pem: Permission denied");
    assert_eq!(text(&out.stdout), "plain\n");
    // A workspace that cannot be listed is refused: its credentials could not be found.
    std::fs::set_permissions(&lab.ws, std::fs::Permissions::from_mode(0o311)).unwrap();
    let out = run(&lab, user, "0467", "echo ran\n");
    std::fs::set_permissions(&lab.ws, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(out.status.code(), Some(125), "{}", all(&out));
    assert!(text(&out.stderr).starts_with("sandbox-bash: error: "), "{}", all(&out));
    assert!(text(&out.stderr).contains("cannot search the workspace"), "{}", all(&out));
    assert!(text(&out.stdout).is_empty());
}

#[test]
fn a_credential_name_that_is_a_link_is_masked_where_it_leads() {
    for user in USERS {
        let lab = lab_for(user);
        // The key lives outside the workspace, in a tree the default mode reads.
        let target = lab.ws.parent().unwrap().join("shared-app.env");
        std::fs::write(&target, "LINKED CANARY\n").unwrap();
        std::os::unix::fs::symlink(&target, lab.ws.join(".env")).unwrap();
        give(&lab, user);
        let script = format!("cat .env\n{}\n", py("print(open(\".env\").read())"));
        let out = run(&lab, user, "0467", &script);
        says(&out, "cat: .env: Permission denied");
        says(&out, "PermissionError: [Errno 13] Permission denied");
        assert!(!text(&out.stdout).contains("CANARY"), "{user:?}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "LINKED CANARY\n");
        // Positive control: with system read it is readable through the link.
        let out = run(&lab, user, "4467", "cat .env\n");
        assert_eq!(ok(&out), "LINKED CANARY\n", "{user:?}");
    }
}

/// The snapshot an agent's shell takes (Claude Code's `-c -l` script writing a new file in
/// `~/.claude/shell-snapshots`) is written in every mode; nothing else in that directory is,
/// past the static layer either: not the snapshots that exist (other sessions source them, some
/// perhaps outside any sandbox), not a new name a hidden write picks, not the snapshot of an
/// earlier run. The settings beside it, and the home, stay read-only.
#[test]
fn an_agents_snapshot_is_written_and_nothing_else_beside_it() {
    for user in USERS {
        for mode in ["0467", "0444"] {
            let lab = Lab::new();
            let claude = lab.home.join(".claude");
            let dir = claude.join("shell-snapshots");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::create_dir_all(lab.home.join(".codex/shell_snapshots")).unwrap();
            std::fs::write(claude.join("settings.json"), "{}\n").unwrap();
            std::fs::write(dir.join("other-session.sh"), "alias g=git\n").unwrap();
            std::fs::write(lab.home.join(".codex/shell_snapshots/other.sh"), "export A=1\n").unwrap();
            give(&lab, user);
            let before: Vec<(PathBuf, Snap)> = [
                claude.join("settings.json"),
                dir.join("other-session.sh"),
                lab.home.join(".codex/shell_snapshots/other.sh"),
            ]
            .into_iter()
            .map(|p| (p.clone(), snap(&p)))
            .collect();
            let home = snap(&lab.home);
            // The capture as Claude Code starts it: `-c -l`, the new file named literally.
            let snapshot = dir.join("snapshot-bash-1-abc.sh");
            let capture = format!(
                "SNAPSHOT_FILE={}\necho 'alias ll=ls' >| \"$SNAPSHOT_FILE\"\necho '# PATH' >> \"$SNAPSHOT_FILE\"",
                quote(&snapshot.to_string_lossy())
            );
            let out = sb(&lab, user, mode).args(["-c", "-l", &capture]).output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{user:?} {mode}: {}", all(&out));
            assert_eq!(std::fs::read_to_string(&snapshot).unwrap(), "alias ll=ls\n# PATH\n", "{user:?} {mode}");
            assert_eq!(std::fs::metadata(&snapshot).unwrap().mode() & 0o777, 0o600);
            // Past the static layer, nothing else there takes a write.
            let targets = [
                dir.join("other-session.sh"),
                dir.join("picked-by-a-hidden-write.sh"),
                snapshot.clone(),
                lab.home.join(".codex/shell_snapshots/other.sh"),
                lab.home.join(".codex/shell_snapshots/new.sh"),
                claude.join("settings.json"),
                lab.home.join("new"),
            ];
            for target in &targets {
                let code = "import sys\ntry:\n open(sys.argv[1], \"a\").write(\"touch PWNED\\n\"); print(\"wrote\")\nexcept OSError as e: print(e.strerror)";
                let out = run(&lab, user, mode, &format!("{} {}", py(code), quote(&target.to_string_lossy())));
                says(&out, "Read-only file system");
            }
            // Named literally, an existing snapshot needs external write, which no mode here has.
            let out = sb(&lab, user, mode)
                .args(["-c", &format!("echo evil >> {}", quote(&dir.join("other-session.sh").to_string_lossy()))])
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(126), "{}", all(&out));
            assert!(all(&out).contains("missing external write (0200)"), "{}", all(&out));
            for (path, was) in &before {
                assert_eq!(&snap(path), was, "{user:?} {mode}: {}", path.display());
            }
            assert_eq!(std::fs::read_to_string(&snapshot).unwrap(), "alias ll=ls\n# PATH\n", "{user:?} {mode}");
            assert!(!dir.join("picked-by-a-hidden-write.sh").exists());
            // sandbox-bash makes the caches it layers and its own state before the lock (see
            // `made_by_sandbox_bash`); the command made nothing in the home.
            assert_eq!(without_own(&snap(&lab.home).content), without_own(&home.content), "{user:?} {mode}");
            made_by_sandbox_bash(&lab.home);
        }
    }
}

/// A home's listing without the directories sandbox-bash itself makes before the lock.
fn without_own(listing: &[u8]) -> String {
    String::from_utf8_lossy(listing).lines().filter(|n| ![".cache", ".npm", ".local"].contains(n)).collect()
}

/// The directories sandbox-bash makes in a home before the lock, when they are missing: the
/// caches it layers (`~/.cache`, and `~/.npm` where npm is installed) and its own state. Nothing
/// a command wrote reaches them: writes there go to the layers.
fn made_by_sandbox_bash(home: &Path) {
    for cache in [".cache", ".npm"] {
        if let Ok(entries) = std::fs::read_dir(home.join(cache)) {
            let names: Vec<String> = entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
            assert!(names.is_empty(), "{cache} holds {names:?}: a write reached the real cache");
        }
    }
}

/// A snapshot directory that is a link grants nothing: it could lead the write rule to the
/// keys or anywhere else.
#[test]
fn a_linked_snapshot_directory_grants_nothing() {
    for user in USERS {
        let lab = Lab::new();
        std::fs::create_dir_all(lab.home.join(".claude")).unwrap();
        std::os::unix::fs::symlink(lab.home.join(".ssh"), lab.home.join(".claude/shell-snapshots")).unwrap();
        std::os::unix::fs::symlink(&lab.outside, lab.home.join(".codex")).unwrap();
        give(&lab, user);
        let keys = snap(&lab.home.join(".ssh"));
        let outside = snap(&lab.outside);
        for target in
            [lab.home.join(".claude/shell-snapshots/authorized_keys"), lab.home.join(".codex/shell_snapshots")]
        {
            let out = run(
                &lab,
                user,
                "0467",
                &py(&format!(
                    "import os\ntry:\n os.makedirs({:?}); print(\"made\")\nexcept OSError as e: print(e)",
                    target.join("x").to_string_lossy()
                )),
            );
            past_static(&out);
            assert!(!all(&out).contains("made"), "{user:?}: {}", all(&out));
        }
        assert_eq!(snap(&lab.home.join(".ssh")), keys, "{user:?}");
        assert_eq!(snap(&lab.outside).content, outside.content, "{user:?}");
        // A snapshot directory that is the workspace, or holds it, is governed by the
        // workspace's bits: a read-only audit writes nothing there.
        for config_dir in [lab.ws.parent().unwrap().to_path_buf(), lab.ws.join("cc")] {
            let state = config_dir.join("shell-snapshots");
            std::fs::create_dir_all(&state).unwrap();
            give_tree(&config_dir, user);
            let ws = if state.starts_with(&lab.ws) { lab.ws.clone() } else { state.clone() };
            let target = state.join("snapshot-bash-2-x.sh");
            let out = sb_in(&ws, &lab.home, user, "0444")
                .env("CLAUDE_CONFIG_DIR", &config_dir)
                .args(["-c", &format!("echo x > {}", quote(&target.to_string_lossy()))])
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(126), "{user:?}: {}", all(&out));
            assert!(all(&out).contains("missing workspace write (0002)"), "{}", all(&out));
            assert!(!target.exists());
        }
    }
}

/// A workspace that holds sandbox-bash's own state directory (`XDG_STATE_HOME` placed in it) is
/// granted entry by entry; its credentials are still masked, deep ones included.
#[test]
fn a_workspace_holding_the_state_directory_still_has_its_credentials_masked() {
    let lab = lab::Lab::new();
    std::fs::create_dir_all(lab.ws.join("sub")).unwrap();
    std::fs::write(lab.ws.join("sub/.env"), "SUB_SECRET=canary\n").unwrap();
    std::fs::write(lab.ws.join("sub/notes.txt"), "notes\n").unwrap();
    // The paths are in the script, which the static layer does not read as paths.
    std::fs::write(
        lab.ws.join("rd.py"),
        "for p in ['sub/.env', 'sub/notes.txt']:\n  try: print(open(p).read().strip())\n  except OSError as e: print(p, e.strerror)\n",
    )
    .unwrap();
    let read = "python3 rd.py";
    for state in [None, Some(lab.ws.join("state"))] {
        let mut c = lab.command("0467", read);
        if let Some(s) = &state {
            c.env("XDG_STATE_HOME", s);
        }
        let out = c.output().unwrap();
        let all = format!("{}{}", lab::text(&out.stdout), lab::text(&out.stderr));
        assert!(!all.contains("SUB_SECRET"), "state {state:?}: the credential was read:\n{all}");
        assert!(all.contains("notes"), "state {state:?}: positive control:\n{all}");
    }
}
