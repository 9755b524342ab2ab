//! A laboratory for kernel-layer tests: a workspace, an external directory, a fake home with
//! a credential canary and a system-scope canary, all created by the test in temporary
//! directories and removed afterwards. Nothing here touches a file the test did not create.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const SB: &str = env!("CARGO_BIN_EXE_sandbox-bash");

/// Where temporary trees for external-scope tests can live: not under /tmp (scratch, which
/// every mode may write) nor under a system root. The build's own temporary directory when it
/// qualifies, else a directory under the real home.
fn external_base() -> PathBuf {
    let target_tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let t = target_tmp.to_string_lossy().into_owned();
    if !(t.starts_with("/tmp/") || sandbox_bash::scope::is_system_path(&t)) {
        return target_tmp;
    }
    let home = std::env::var("HOME").expect("HOME must be set for the kernel tests");
    let base = PathBuf::from(home).join(".cache/sandbox-bash-tests");
    std::fs::create_dir_all(&base).unwrap();
    base
}

/// The Landlock ABI of this kernel; the kernel tests need it and fail loudly without it.
pub fn require_landlock() -> i32 {
    match sandbox_bash::sandbox::linux::landlock_abi() {
        Ok(v) => v,
        Err(why) => panic!(
            "KERNEL FEATURE MISSING: these tests need Landlock and this kernel has none ({why}); \
             they fail rather than skip"
        ),
    }
}

pub struct Lab {
    _root: tempfile::TempDir,
    _system: tempfile::TempDir,
    pub ws: PathBuf,
    pub outside: PathBuf,
    pub home: PathBuf,
    /// A directory in system scope (under /var/tmp) holding `canary`.
    pub system: PathBuf,
    /// Use the fake home (for credential tests) or the real one (for toolchains).
    pub fake_home: bool,
}

impl Lab {
    pub fn new() -> Lab {
        require_landlock();
        let root = tempfile::Builder::new().prefix("sbx-lab-").tempdir_in(external_base()).unwrap();
        let system = tempfile::Builder::new().prefix("sbx-system-").tempdir_in("/var/tmp").unwrap();
        let ws = root.path().join("ws");
        let outside = root.path().join("outside");
        let home = root.path().join("home");
        for d in [&ws, &outside, &home.join(".ssh")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(ws.join("file.txt"), "workspace data\n").unwrap();
        std::fs::write(outside.join("file.txt"), "outside data\n").unwrap();
        std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE KEY CANARY\n").unwrap();
        std::fs::write(system.path().join("canary"), "SYSTEM CANARY\n").unwrap();
        Lab { ws, outside, home, system: system.path().to_path_buf(), _root: root, _system: system, fake_home: true }
    }

    pub fn canary(&self) -> PathBuf {
        self.system.join("canary")
    }

    /// The command that runs `program` with `-c` under `mode`, in the workspace.
    pub fn command(&self, mode: &str, program: &str) -> Command {
        let mut c = Command::new(SB);
        c.arg("-c").arg(program).current_dir(&self.ws).env("BASH_AGENT_BASH_MODE", mode);
        c.env("SANDBOX_BASH_WORKSPACE", &self.ws).env_remove("SANDBOX_BASH_ENFORCED");
        c.env_remove("SANDBOX_BASH_ALLOW_DEGRADED").env_remove("BASH_ENV").env_remove("TMPDIR");
        if self.fake_home {
            c.env("HOME", &self.home).env("PATH", "/usr/local/bin:/usr/bin:/bin");
        }
        c.stdin(Stdio::null());
        c
    }

    /// `command(mode, program)` started through `wrapper`: the wrapper's arguments, then
    /// `program` (sandbox-bash unless given) and its arguments, with the same environment and
    /// working directory. For tests that need a mount namespace or a terminal around it.
    pub fn wrapped(&self, wrapper: &[&OsStr], program_path: Option<&str>, mode: &str, program: &str) -> Command {
        let inner = self.command(mode, program);
        let mut c = Command::new(wrapper[0]);
        c.args(&wrapper[1..]).arg(program_path.unwrap_or(SB)).args(inner.get_args());
        for (name, value) in inner.get_envs() {
            match value {
                Some(v) => c.env(name, v),
                None => c.env_remove(name),
            };
        }
        if let Some(dir) = inner.get_current_dir() {
            c.current_dir(dir);
        }
        c.stdin(Stdio::null());
        c
    }

    pub fn run(&self, mode: &str, program: &str) -> Output {
        self.command(mode, program).output().unwrap()
    }

    /// Runs `script` fed on standard input (`sandbox-bash -s`), which the static layer does
    /// not check yet: only the kernel stands in the way.
    pub fn run_stdin(&self, mode: &str, script: &str) -> Output {
        use std::io::Write;
        let mut c = Command::new(SB);
        c.arg("-s").current_dir(&self.ws).env("BASH_AGENT_BASH_MODE", mode).env("SANDBOX_BASH_WORKSPACE", &self.ws);
        c.env("PATH", "/usr/local/bin:/usr/bin:/bin").env("HOME", &self.home);
        c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    }
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Asserts the program ran (status 0) and returns its stdout.
#[track_caller]
pub fn ok(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "expected success\nstdout: {}\nstderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// Whether `out` holds a denial of the static layer: a `sandbox-bash: denied:` line that is not
/// one the supervisor tells of a refusal it saw (those say what held it).
pub fn statically_denied(out: &Output) -> bool {
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    all.lines().any(|l| l.starts_with("sandbox-bash: denied:") && !crate::common::told_line(l))
}

/// Asserts that the kernel refused: the program got past the static layer (no denial marker,
/// no sandbox-bash error) and reported EACCES, EPERM (or `extra`) in its output.
#[track_caller]
pub fn kernel_refused(out: &Output, extra: &[&str]) {
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!statically_denied(out), "the static layer denied it; this test needs the kernel:\n{all}");
    assert!(!all.contains("sandbox-bash: error:"), "sandbox-bash itself failed:\n{all}");
    let words = [
        "Permission denied",
        "Operation not permitted",
        "Read-only file system",
        "EACCES",
        "EPERM",
        "EROFS",
        "Errno 13",
        "Errno 1]",
        "Errno 30",
    ];
    assert!(
        words.iter().chain(extra).any(|w| all.contains(w)),
        "expected EACCES, EPERM or EROFS from the kernel, got status {:?}:\n{all}",
        out.status.code()
    );
}

/// A Python one-liner as a bash word (single-quoted).
pub fn py(code: &str) -> String {
    format!("python3 -c '{}'", code.replace('\'', "'\\''"))
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| format!("<{e}>"))
}

/// The uid and gid of the unprivileged user the tests run as.
pub const NOBODY: u32 = 65534;

/// Who runs sandbox-bash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum User {
    Root,
    Nobody,
}

pub const USERS: [User; 2] = [User::Root, User::Nobody];

impl User {
    pub fn uid(self) -> u32 {
        match self {
            User::Root => 0,
            User::Nobody => NOBODY,
        }
    }
}

/// A lab that `user` owns, so that the unprivileged user can work in it too.
pub fn lab_for(user: User) -> Lab {
    let lab = Lab::new();
    give(&lab, user);
    lab
}

/// Hands everything in the lab (made so far) to `user`.
pub fn give(lab: &Lab, user: User) {
    give_tree(lab.ws.parent().unwrap(), user);
    give_tree(&lab.system, user);
}

/// Hands a tree the test made to `user`.
pub fn give_tree(dir: &Path, user: User) {
    if user == User::Nobody {
        let status = Command::new("chown").arg("-R").arg(format!("{NOBODY}:{NOBODY}")).arg(dir).status().unwrap();
        assert!(status.success(), "chown {}", dir.display());
    }
}

/// `program` run as `user` (through setpriv, which execs it: the PID stays).
pub fn as_user(user: User, program: &str) -> Command {
    match user {
        User::Root => Command::new(program),
        User::Nobody => {
            let mut c = Command::new("setpriv");
            c.args([&format!("--reuid={NOBODY}"), &format!("--regid={NOBODY}"), "--clear-groups", program]);
            c
        }
    }
}
