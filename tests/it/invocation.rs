//! sandbox-bash started in every form clients use must behave exactly as bash: the same
//! stdout, stderr and exit status, with the same argv[0], environment, cwd and stdin.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const SANDBOX: &str = env!("CARGO_BIN_EXE_sandbox-bash");

fn real_bash() -> PathBuf {
    ["/bin/bash", "/usr/bin/bash"].iter().map(PathBuf::from).find(|p| p.exists()).expect("bash is installed")
}

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("home")).unwrap();
        std::fs::create_dir(dir.path().join("work")).unwrap();
        Env { dir }
    }

    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.work().join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    /// Runs `program` with `argv0` and `args`, feeding `stdin`; returns (stdout, stderr, status).
    fn run(&self, program: &Path, argv0: &str, args: &[&str], stdin: &str) -> (String, String, i32) {
        let mut cmd = Command::new(program);
        cmd.arg0(argv0)
            .args(args)
            .current_dir(self.work())
            .env_clear()
            .env("HOME", self.dir.path().join("home"))
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("LANG", "C")
            .env("TERM", "dumb")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        // A program that does not read its input may be gone before it is written.
        match child.stdin.take().unwrap().write_all(stdin.as_bytes()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            other => other.unwrap(),
        }
        let out = child.wait_with_output().unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code().unwrap_or(-1),
        )
    }

    /// Asserts that sandbox-bash and bash agree exactly on this invocation.
    fn same(&self, argv0: &str, args: &[&str], stdin: &str) {
        // What sandbox-bash tells of refusals while the command runs is the boundary's.
        let (out, err, status) = self.run(Path::new(SANDBOX), argv0, args, stdin);
        let ours = (out, crate::common::untold(&err), status);
        let theirs = self.run(&real_bash(), argv0, args, stdin);
        assert_eq!(ours, theirs, "argv0={argv0:?} args={args:?}: sandbox-bash (left) differs from bash (right)");
    }
}

#[test]
fn command_strings() {
    let e = Env::new();
    e.same("bash", &["-c", "echo hello"], "");
    e.same("bash", &["-c", "echo \"$0|$1|$2|$#\"", "name", "a", "b c"], "");
    e.same("bash", &["-c", "echo \"$0|$#\""], "");
    e.same("bash", &["-c", "exit 7"], "");
    e.same("bash", &["-c", "echo out; echo err >&2; false"], "");
    e.same("bash", &["-c", "-l", "echo $0; shopt login_shell"], "");
    e.same("bash", &["-lc", "shopt login_shell; echo $-"], "");
    e.same("bash", &["-ec", "false; echo not reached"], "");
    e.same("bash", &["-eo", "pipefail", "-c", "false | true; echo not reached"], "");
    e.same("bash", &["-eu", "-o", "pipefail", "-c", "echo $-; set -o | grep pipefail"], "");
    e.same("bash", &["-xc", "echo traced"], "");
    e.same("bash", &["-c", "echo $1", "-l", "x"], "");
    e.same("bash", &["-abouo", "emacs", "ignoreeof", "-c", "echo $-"], "");
    e.same("bash", &["+o", "braceexpand", "-c", "echo {a,b}"], "");
    e.same("bash", &["-O", "extglob", "-c", "shopt extglob"], "");
    e.same("bash", &["+O", "checkwinsize", "-c", "shopt checkwinsize"], "");
    e.same("bash", &["-s", "-c", "echo cmd $0"], "echo not read\n");
    e.same("bash", &["--posix", "-c", "set -o | grep posix"], "");
    e.same("bash", &["--login", "--noprofile", "-c", "shopt login_shell"], "");
    e.same("bash", &["--norc", "--noediting", "-c", "echo ok"], "");
    e.same("bash", &["--restricted", "-c", "cd ..; echo $?"], "");
    e.same("bash", &["-r", "-c", "echo $-"], "");
    e.same("bash", &["--verbose", "-c", "echo verbose"], "");
    e.same("bash", &["-login", "-c", "shopt login_shell"], "");
    e.same("bash", &["--", "-c"], "");
    e.same("bash", &["-D", "-c", "echo $\"translatable\""], "");
    e.same("bash", &["-n", "-c", "echo not run"], "");
    e.same("bash", &["-n", "+n", "-c", "echo run"], "");
}

#[test]
fn login_shell_from_argv0() {
    let e = Env::new();
    e.same("-bash", &["-c", "shopt login_shell; echo $0"], "");
    e.same("-bash", &[], "shopt login_shell\necho from-stdin\n");
}

#[test]
fn script_files() {
    let e = Env::new();
    let script = e.write("s.sh", "echo \"script $0 $# $1\"\nfalse\necho after\n");
    let s = script.to_str().unwrap();
    e.same("bash", &[s, "arg1", "arg2"], "");
    e.same("bash", &["--noprofile", "--norc", "-e", "-o", "pipefail", s], "");
    e.same("bash", &["--noprofile", "--norc", "-eo", "pipefail", s], "");
    e.same("bash", &["-e", s], "");
    e.same("bash", &["-xe", s], "");
    e.same("bash", &["s.sh", "relative"], "");
    e.same("bash", &["--", "s.sh"], "");
    e.same("bash", &["-", "s.sh", "y"], "");
    e.same("bash", &["-n", s], "");
    let shebang = e.write("sb.sh", "#!/bin/bash\necho shebang $1\n");
    e.same("bash", &[shebang.to_str().unwrap(), "x"], "");
}

#[test]
fn scripts_on_stdin() {
    let e = Env::new();
    let job = "echo job line 1\nset -e\necho $0 $#\nexit 3\n";
    e.same("bash", &["-l"], job);
    e.same("bash", &["--login"], job);
    e.same("bash", &[], job);
    e.same("bash", &["-s", "a", "b"], "echo $0 $1 $2 $#\n");
    e.same("bash", &["-n"], "if true; then echo x; fi\n");
    e.same("bash", &["-n"], "if true; then\n");
    e.same("bash", &["-i"], "echo interactive $-\n");
    e.same("bash", &["-il"], "echo il\n");
    e.same("bash", &["--init-file", "/dev/null", "-i"], "echo init\n");
    e.same("bash", &["--rcfile", "/dev/null", "-i"], "echo rc\n");
    // The analysis never reads the stream bash is about to read.
    e.same("bash", &["-c", "source /dev/stdin"], "echo sourced\n");
    e.same("bash", &["-c", ". /dev/fd/0; echo after"], "echo dotted\n");
    e.same("bash", &["-c", "bash /dev/stdin"], "echo inner\n");
    e.same("bash", &["/dev/stdin"], "echo as-script\n");
}

#[test]
fn information_and_usage_errors() {
    let e = Env::new();
    e.same("bash", &["--version"], "");
    e.same("bash", &["--help"], "");
    e.same("bash", &["--nosuch"], "");
    e.same("bash", &["--nosuch", "-c", "echo never"], "");
    e.same("bash", &["-Q", "-c", "echo never"], "");
    e.same("bash", &["-x-c", "echo never"], "");
    e.same("bash", &["-c"], "");
    e.same("bash", &["-e", "-c"], "");
    e.same("bash", &["--rcfile"], "");
    e.same("bash", &["-o", "nosuch", "-c", "echo never"], "");
    e.same("bash", &["-O", "nosuch", "-c", "echo never"], "");
    e.same("bash", &["-r", "+r", "-c", "echo never"], "");
    e.same("bash", &["-o"], "");
}

#[test]
fn missing_and_unreadable_scripts() {
    let e = Env::new();
    e.same("bash", &["no-such-script.sh"], "");
    e.same("/bin/bash", &["no-such-script.sh", "a"], "");
    e.same("bash", &["/no/such/dir/x.sh"], "");
    std::fs::create_dir(e.work().join("adir")).unwrap();
    e.same("bash", &["adir"], "");
}

#[test]
fn started_through_a_link_named_bash() {
    let e = Env::new();
    let bin = e.dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(SANDBOX, bin.join("bash")).unwrap();
    let link = bin.join("bash");
    let ours = e.run(&link, "bash", &["-c", "echo via link $0"], "");
    let theirs = e.run(&real_bash(), "bash", &["-c", "echo via link $0"], "");
    assert_eq!(ours, theirs);
    // And the link is really sandbox-bash: it denies what the mode forbids.
    let denied = e.run(&link, "bash", &["-c", "cat /etc/shadow"], "");
    assert_eq!(denied.2, 126);
    assert!(denied.1.starts_with("sandbox-bash: denied:"), "{}", denied.1);
    // Through a PATH lookup of `bash` too: the real bash is found, never the link itself.
    let mut cmd = Command::new(&link);
    cmd.arg0("bash")
        .args(["-c", "echo found"])
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .current_dir(e.work());
    let out = cmd.output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "found\n");
}

#[test]
fn bash_replaces_sandbox_bash_in_the_same_process() {
    let e = Env::new();
    // The PID the caller started is bash's own `$$`.
    let child = Command::new(SANDBOX)
        .args(["-c", "echo $$; exec sleep 0"])
        .current_dir(e.work())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), pid.to_string());
    // A signal to that PID reaches bash, and the status says so, as with bash.
    use std::os::unix::process::ExitStatusExt;
    let status = Command::new(SANDBOX).args(["-c", "kill -TERM $$"]).current_dir(e.work()).status().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGTERM));
    let status = Command::new(SANDBOX).args(["-c", "exit 42"]).current_dir(e.work()).status().unwrap();
    assert_eq!(status.code(), Some(42));
}

/// Runs `program -c text` with SIGPIPE `ignored` (or at its default) and descriptor 2 closed
/// when `close_stderr`; returns its standard output.
fn inherited(program: &Path, text: &str, ignored: bool, close_stderr: bool) -> String {
    let e = Env::new();
    let mut cmd = Command::new(program);
    cmd.args(["-c", text]).current_dir(e.work()).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null());
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(libc::SIGPIPE, if ignored { libc::SIG_IGN } else { libc::SIG_DFL });
            if close_stderr {
                libc::close(2);
            }
            Ok(())
        });
    }
    String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned()
}

#[test]
fn signal_dispositions_and_closed_descriptors_pass_through() {
    // `yes | head -1` ends `yes` with SIGPIPE (141) when SIGPIPE is at its default; with it
    // ignored, `yes` sees EPIPE instead. sandbox-bash must hand bash what it got.
    let text = "grep SigIgn /proc/self/status; yes | head -1; echo ${PIPESTATUS[@]}; \
                if [ -e /proc/self/fd/2 ]; then echo fd2-open; else echo fd2-closed; fi";
    let sandbox = Path::new(SANDBOX);
    for ignored in [false, true] {
        for close_stderr in [false, true] {
            let ours = inherited(sandbox, text, ignored, close_stderr);
            let theirs = inherited(&real_bash(), text, ignored, close_stderr);
            assert_eq!(ours, theirs, "SIGPIPE ignored={ignored}, fd 2 closed={close_stderr}");
        }
    }
    // The controls: the four cases differ from each other, so the comparison can fail.
    let bash = real_bash();
    assert!(inherited(&bash, text, false, false).contains("141 0\nfd2-open"));
    assert!(inherited(&bash, text, true, true).contains("1 0\nfd2-closed"));
}
