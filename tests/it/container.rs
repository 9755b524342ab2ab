//! sandbox-bash as the shell of a container image, laid out as docs/containers.md and
//! packaging/container/Dockerfile lay it out: (a) as `/bin/bash`, with the real bash moved to
//! `/usr/lib/sandbox-bash/real/bash` and named by `/etc/sandbox-bash/config.toml`; (b) as
//! `SHELL`, with `/bin/sh` and `/bin/bash` left alone.
//!
//! There is no container engine here, so the container is made with bubblewrap: a new root
//! holding this machine's `/usr`, `/lib*` and `/etc` read-only, the binary at
//! `/usr/local/bin/sandbox-bash` (and over `/bin/bash` and `/usr/bin/bash` in form (a), with the
//! real bash at its moved path), a workspace at `/workspace` (the image's WORKDIR), a home, and a
//! writable data directory outside the workspace. Every container runs once where user
//! namespaces can be had and once where they cannot (`--disable-userns`, as in a default Docker
//! container), as root with Docker's default capabilities and as an unprivileged user.
//! Everything the tests bind in is created by them under the build's temporary directory; the
//! machine's own files are bound read-only and never changed.
//!
//! Without bubblewrap these tests fail (they never skip).
#![cfg(target_os = "linux")]

use crate::lab;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use lab::{SB, text};

/// Where form (a) moves the real bash: no `PATH` search finds it, only the configuration.
const REAL_BASH: &str = "/usr/lib/sandbox-bash/real/bash";
/// Where both forms install sandbox-bash itself.
const INSTALLED: &str = "/usr/local/bin/sandbox-bash";
/// The system file and the line of it that names the real bash.
const SYSTEM_FILE: &str = "/etc/sandbox-bash/config.toml";
const REAL_BASH_LINE: &str = "real_bash = \"/usr/lib/sandbox-bash/real/bash\"";
/// The check each Dockerfile ends with: sandbox-bash answers, having read the system file (a),
/// or none (b); it runs nothing.
const CHECK_BIN_BASH: &str = "bash --sandbox-info | grep -q '^config: */etc/sandbox-bash/config.toml$'";
const CHECK_SHELL: &str = "\"$SHELL\" --sandbox-info | grep -q '^config: *none read$'";
/// The image's WORKDIR, the workspace of every command started there.
const WORKDIR: &str = "/workspace";
/// A directory the container lets every process write, outside the workspace.
const DATA: &str = "/srv/data";
/// A system file the test creates: what `cat /etc/shadow` is on a real system.
const CANARY: &str = "/etc/sbx-canary.conf";
/// Docker's `PATH` for images that set none.
const DOCKER_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/// The capabilities Docker gives a container's root by default (no CAP_SYS_ADMIN).
const DOCKER_CAPS: &[&str] = &[
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_FSETID",
    "CAP_FOWNER",
    "CAP_MKNOD",
    "CAP_NET_RAW",
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_SETFCAP",
    "CAP_SETPCAP",
    "CAP_NET_BIND_SERVICE",
    "CAP_SYS_CHROOT",
    "CAP_KILL",
    "CAP_AUDIT_WRITE",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// sandbox-bash is `/bin/bash` and `/usr/bin/bash`; the real bash is moved.
    BinBash,
    /// sandbox-bash is `SHELL`; `/bin/bash` and `/bin/sh` are the system's own.
    Shell,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum User {
    /// uid 0 with Docker's default capabilities, as `docker run` gives.
    Root,
    /// uid 1000, an image's `USER agent`.
    Agent,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Userns {
    Allowed,
    /// `bwrap --disable-userns`: no process in the container can make a user namespace.
    Forbidden,
}

const EVERY_CONTAINER: [(User, Userns); 4] = [
    (User::Root, Userns::Allowed),
    (User::Root, Userns::Forbidden),
    (User::Agent, Userns::Allowed),
    (User::Agent, Userns::Forbidden),
];

/// bubblewrap, checked once per test: missing or too old for `--disable-userns` (0.8.0) fails
/// the test with what to install.
fn require_bwrap() {
    let out = Command::new("bwrap").arg("--version").output().unwrap_or_else(|e| {
        panic!(
            "BUBBLEWRAP MISSING: the container tests make their containers with bubblewrap and cannot run `bwrap` \
             ({e}); install it (apt-get install bubblewrap, as .ci/run does). They fail rather than skip."
        )
    });
    let said = text(&out.stdout);
    let version: Vec<u32> =
        said.trim().rsplit(' ').next().unwrap_or("").split('.').map(|p| p.parse().unwrap_or(0)).collect();
    assert!(
        out.status.success() && version.as_slice() >= [0, 8].as_slice(),
        "BUBBLEWRAP TOO OLD: the container tests need bwrap 0.8.0 or later (--disable-userns), found {said:?}"
    );
}

/// The files one image adds to the machine's: the test creates them all.
struct Image {
    dir: tempfile::TempDir,
    form: Form,
    /// The text of `/etc/sandbox-bash/config.toml`, when the image has one.
    config: Option<String>,
}

impl Image {
    fn new(form: Form, config: Option<&str>) -> Image {
        lab::require_landlock();
        require_bwrap();
        let dir = tempfile::Builder::new().prefix("sbx-container-").tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let d = dir.path();
        for sub in ["workspace", "data", "root", "agent", "etc-sandbox-bash"] {
            std::fs::create_dir(d.join(sub)).unwrap();
            std::fs::set_permissions(d.join(sub), std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::write(d.join("workspace/file.txt"), "workspace data\n").unwrap();
        std::fs::write(d.join("data/file.txt"), "outside data\n").unwrap();
        std::fs::write(d.join("canary"), "SYSTEM CANARY\n").unwrap();
        std::fs::write(
            d.join("passwd"),
            "root:x:0:0:root:/root:/bin/bash\nagent:x:1000:1000:agent:/home/agent:/bin/bash\n",
        )
        .unwrap();
        std::fs::write(d.join("group"), "root:x:0:\nagent:x:1000:\n").unwrap();
        if let Some(c) = config {
            let file = d.join("etc-sandbox-bash/config.toml");
            std::fs::write(&file, c).unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        Image { dir, form, config: config.map(str::to_string) }
    }

    /// A file of the image as the machine sees it.
    fn host(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `argv` run in a container of this image, as `user`, with user namespaces as `userns`
    /// allow, in the WORKDIR, with `env` added to the container's environment.
    fn run(&self, user: User, userns: Userns, env: &[(&str, &str)], argv: &[&str]) -> Output {
        self.run_in(user, userns, WORKDIR, env, argv)
    }

    fn run_in(&self, user: User, userns: Userns, cwd: &str, env: &[(&str, &str)], argv: &[&str]) -> Output {
        let mut c = Command::new("bwrap");
        let (uid, home) = match user {
            User::Root => ("0", "/root"),
            User::Agent => ("1000", "/home/agent"),
        };
        c.arg("--unshare-user");
        if userns == Userns::Forbidden {
            c.arg("--disable-userns");
        }
        c.args(["--uid", uid, "--gid", uid, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent"]);
        c.args(["--hostname", "container"]);
        if user == User::Root {
            c.args(["--cap-drop", "ALL"]);
            for cap in DOCKER_CAPS {
                c.args(["--cap-add", cap]);
            }
        }
        // The machine's /usr read-only, with /usr/lib and /usr/local made anew so the image can
        // add its own files there (an empty /usr/local, as in a Debian image).
        c.args(["--ro-bind", "/usr", "/usr", "--tmpfs", "/usr/lib", "--tmpfs", "/usr/local"]);
        copy_entries(&mut c, "/usr/lib", &["sandbox-bash"]);
        for top in ["bin", "sbin", "lib", "lib32", "lib64", "libx32"] {
            let p = Path::new("/").join(top);
            match std::fs::read_link(&p) {
                Ok(to) => {
                    c.arg("--symlink").arg(to).arg(&p);
                }
                Err(_) if p.is_dir() => {
                    c.arg("--ro-bind").arg(&p).arg(&p);
                }
                Err(_) => {}
            }
        }
        c.args(["--dir", "/etc"]);
        copy_entries(&mut c, "/etc", &["sandbox-bash", "passwd", "group"]);
        c.arg("--ro-bind").arg(self.host("passwd")).arg("/etc/passwd");
        c.arg("--ro-bind").arg(self.host("group")).arg("/etc/group");
        c.arg("--ro-bind").arg(self.host("canary")).arg(CANARY);
        if self.config.is_some() {
            c.arg("--ro-bind").arg(self.host("etc-sandbox-bash")).arg("/etc/sandbox-bash");
        }
        c.args(["--ro-bind", SB, INSTALLED]);
        if self.form == Form::BinBash {
            // The real bash at its new place, sandbox-bash where it was. On a merged /usr,
            // /bin/bash and /usr/bin/bash are one file, bound once.
            let mut places: Vec<PathBuf> = Vec::new();
            for p in ["/bin/bash", "/usr/bin/bash"] {
                if let Ok(real) = std::fs::canonicalize(p)
                    && !places.contains(&real)
                {
                    places.push(real);
                }
            }
            assert!(!places.is_empty(), "this machine has no /bin/bash or /usr/bin/bash to move");
            c.arg("--ro-bind").arg(&places[0]).arg(REAL_BASH);
            for p in &places {
                c.arg("--ro-bind").arg(SB).arg(p);
            }
        }
        c.args(["--remount-ro", "/usr/lib", "--remount-ro", "/usr/local"]);
        c.args(["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/var/tmp"]);
        c.arg("--bind").arg(self.host("workspace")).arg(WORKDIR);
        c.arg("--bind").arg(self.host("data")).arg(DATA);
        let home_dir = if user == User::Root { "root" } else { "agent" };
        c.arg("--bind").arg(self.host(home_dir)).arg(home);
        c.args(["--chdir", cwd, "--"]).args(argv);
        c.env_clear().env("PATH", DOCKER_PATH).env("HOME", home).env("HOSTNAME", "container");
        if self.form == Form::Shell {
            c.env("SHELL", INSTALLED);
        }
        for (k, v) in env {
            c.env(k, v);
        }
        c.stdin(Stdio::null()).output().expect("bwrap runs")
    }
}

/// Adds every entry of the machine's directory `dir` to the container's (read-only; links as
/// links), but those named in `skip`, which the image provides (or the machine may be
/// installing right now). `-try`: an entry removed meanwhile is left out.
fn copy_entries(c: &mut Command, dir: &str, skip: &[&str]) {
    let mut names: Vec<_> = std::fs::read_dir(dir).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
    names.sort();
    for name in names {
        if skip.iter().any(|s| name == *s) {
            continue;
        }
        let p = Path::new(dir).join(&name);
        match std::fs::read_link(&p) {
            Ok(to) => c.arg("--symlink").arg(to).arg(&p),
            Err(_) => c.arg("--ro-bind-try").arg(&p).arg(&p),
        };
    }
}

fn all(out: &Output) -> String {
    format!("status {:?}\nstdout: {}\nstderr: {}", out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[track_caller]
fn ran(out: &Output, expected: &str, what: &str) {
    assert_eq!(out.status.code(), Some(0), "{what}: {}", all(out));
    assert_eq!(text(&out.stdout), expected, "{what}: {}", all(out));
}

/// A denial by sandbox-bash's static layer: status 126, the marker first, nothing printed.
#[track_caller]
fn denied(out: &Output, naming: &str, what: &str) {
    assert_eq!(out.status.code(), Some(126), "{what}: {}", all(out));
    let err = text(&out.stderr);
    assert!(err.starts_with("sandbox-bash: denied:"), "{what}: {}", all(out));
    assert!(err.contains(naming), "{what}: the denial should name {naming}: {}", all(out));
    assert_eq!(text(&out.stdout), "", "{what}: {}", all(out));
}

/// A refusal by sandbox-bash before anything ran: status 125 and its error line.
#[track_caller]
fn refused(out: &Output, words: &[&str], what: &str) {
    assert_eq!(out.status.code(), Some(125), "{what}: {}", all(out));
    let err = text(&out.stderr);
    assert!(err.starts_with("sandbox-bash: error:"), "{what}: {}", all(out));
    for w in words {
        assert!(err.contains(w), "{what}: {w:?} missing: {}", all(out));
    }
}

/// `--sandbox-info --sandbox-json` through `shell`, parsed.
fn info(image: &Image, user: User, userns: Userns, shell: &str) -> serde_json::Value {
    let out = image.run(user, userns, &[], &[shell, "--sandbox-info", "--sandbox-json"]);
    assert_eq!(out.status.code(), Some(0), "{shell} --sandbox-info: {}", all(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{shell} --sandbox-info: {e}: {}", all(&out)))
}

fn area<'a>(info: &'a serde_json::Value, name: &str, kind: &str) -> Vec<&'a str> {
    let area = info["areas"].as_array().unwrap().iter().find(|a| a["area"] == name).unwrap();
    area[kind].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect()
}

/// What `--sandbox-info` must say about the namespace layer in this container.
#[track_caller]
fn check_namespace_layer(info: &serde_json::Value, userns: Userns, what: &str) {
    assert_eq!(info["status"], "enforced", "{what}: {info:#}");
    let fs_static = area(info, "filesystem", "static");
    let process_kernel = area(info, "process and devices", "kernel");
    let none_here = fs_static.iter().find(|l| l.starts_with("no namespace layer here: "));
    let held: Vec<&str> = fs_static.iter().filter_map(|l| l.strip_prefix("held by the static layer only: ")).collect();
    let own_namespaces =
        process_kernel.iter().any(|l| l.starts_with("the command has mount and IPC namespaces of its own"));
    match userns {
        Userns::Allowed => {
            assert!(none_here.is_none() && held.is_empty(), "{what}: the namespace layer should hold: {fs_static:#?}");
            assert!(own_namespaces, "{what}: {process_kernel:#?}");
        }
        Userns::Forbidden => {
            let why = none_here.unwrap_or_else(|| panic!("{what}: no 'no namespace layer here' line: {fs_static:#?}"));
            assert!(why.contains("no user namespace can be created here"), "{what}: {why}");
            assert_eq!(held, sandbox_bash::sandbox::NAMESPACE_EXCEPTIONS, "{what}");
            assert!(!own_namespaces, "{what}: {process_kernel:#?}");
        }
    }
}

/// The Python write the static layer cannot see (the path is inside Python's code).
fn python_append(path: &str) -> String {
    format!("python3 -c 'open(\"{path}\", \"a\").write(\"changed\\n\")'")
}

/// The kernel's refusal of a write outside the workspace: EROFS from the namespace layer's
/// read-only view where it holds, EACCES from Landlock where it cannot be had.
#[track_caller]
fn kernel_refused_write(out: &Output, userns: Userns, what: &str) {
    let err = text(&out.stderr);
    let untold = crate::common::untold(&err);
    assert!(!untold.contains("sandbox-bash:"), "{what}: the kernel should refuse, not sandbox-bash: {}", all(out));
    assert_ne!(out.status.code(), Some(0), "{what}: {}", all(out));
    let (errno, held) = match userns {
        Userns::Allowed => ("[Errno 30] Read-only file system", "held by the read-only view and Landlock"),
        Userns::Forbidden => ("[Errno 13] Permission denied", "held by Landlock;"),
    };
    assert!(err.contains(errno), "{what}: expected {errno:?}: {}", all(out));
    // The refusal is told, with the rule that held it.
    assert!(
        err.starts_with("sandbox-bash: denied: missing external write (0200): python3") && err.contains(held),
        "{what}: {err}"
    );
}

fn bin_bash_image() -> Image {
    Image::new(Form::BinBash, Some(&format!("{REAL_BASH_LINE}\n")))
}

#[test]
fn as_bin_bash_every_bash_is_sandbox_bash_and_sh_is_left_alone() {
    let image = bin_bash_image();
    let cat = format!("cat {CANARY}");
    for (user, userns) in EVERY_CONTAINER {
        let what = format!("{user:?}, user namespaces {userns:?}");
        ran(&image.run(user, userns, &[], &["bash", "-c", "echo ok"]), "ok\n", &what);
        ran(&image.run(user, userns, &[], &["/bin/sh", "-c", CHECK_BIN_BASH]), "", &format!("{what}: the check"));
        // It is sandbox-bash, it read the image's system file, and that file named the real bash.
        let info = info(&image, user, userns, "/bin/bash");
        assert_eq!(info["config_files"], serde_json::json!([SYSTEM_FILE]), "{what}");
        assert_eq!(info["workspace"], WORKDIR, "{what}");
        let program = info["rules"].as_array().unwrap().iter().find(|r| r["why"] == "program");
        assert_eq!(program.map(|r| &r["path"]), Some(&serde_json::json!(REAL_BASH)), "{what}: {info:#}");
        check_namespace_layer(&info, userns, &what);
        // Every name of bash is sandbox-bash, also when another program starts it.
        for bash in ["bash", "/bin/bash", "/usr/bin/bash"] {
            denied(&image.run(user, userns, &[], &[bash, "-c", &cat]), CANARY, &format!("{what}: {bash}"));
        }
        let through_sh = format!("bash -c '{cat}'");
        denied(&image.run(user, userns, &[], &["/bin/sh", "-c", &through_sh]), CANARY, &format!("{what}: sh -c bash"));
        let through_python =
            format!("import subprocess, sys; sys.exit(subprocess.run(['bash', '-c', '{cat}']).returncode)");
        denied(&image.run(user, userns, &[], &["python3", "-c", &through_python]), CANARY, &format!("{what}: python"));
        // Positive controls: the canary is readable in the container, by /bin/sh (dash, left
        // alone) and by the real bash at its new place: the denials are sandbox-bash's.
        let sh = image.run(user, userns, &[], &["/bin/sh", "-c", &format!("{cat}; readlink -f /bin/sh")]);
        let said = text(&sh.stdout);
        assert!(sh.status.success() && said.starts_with("SYSTEM CANARY\n"), "{what}: {}", all(&sh));
        assert!(!said.contains("bash"), "{what}: /bin/sh should not be bash here: {said}");
        let real = image.run(user, userns, &[], &[REAL_BASH, "-c", &format!("{cat}; echo \"$BASH\"")]);
        ran(&real, &format!("SYSTEM CANARY\n{REAL_BASH}\n"), &format!("{what}: the real bash"));
    }
}

#[test]
fn as_bin_bash_the_kernel_refuses_a_write_the_analysis_cannot_see() {
    let image = bin_bash_image();
    let outside = image.host("data/file.txt");
    let inside = image.host("workspace/file.txt");
    let mut expected_inside = String::from("workspace data\n");
    for (user, userns) in EVERY_CONTAINER {
        let what = format!("{user:?}, user namespaces {userns:?}");
        let out = image.run(user, userns, &[], &["bash", "-c", &python_append(&format!("{DATA}/file.txt"))]);
        kernel_refused_write(&out, userns, &what);
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside data\n", "{what}");
        // The container itself lets the same user write there: the real bash can.
        let control = format!("echo {user:?} >> {DATA}/control.txt");
        ran(&image.run(user, userns, &[], &[REAL_BASH, "-c", &control]), "", &format!("{what}: control"));
        // And the same write inside the workspace goes through sandbox-bash.
        let out = image.run(user, userns, &[], &["bash", "-c", &python_append(&format!("{WORKDIR}/file.txt"))]);
        ran(&out, "", &format!("{what}: write in the workspace"));
        expected_inside.push_str("changed\n");
        assert_eq!(std::fs::read_to_string(&inside).unwrap(), expected_inside, "{what}");
    }
    assert_eq!(std::fs::read_to_string(image.host("data/control.txt")).unwrap(), "Root\nRoot\nAgent\nAgent\n");
}

#[test]
fn as_bin_bash_sandbox_info_says_what_is_static_only_without_user_namespaces() {
    let image = bin_bash_image();
    for user in [User::Root, User::Agent] {
        let out = image.run(user, Userns::Forbidden, &[], &["bash", "--sandbox-info"]);
        assert_eq!(out.status.code(), Some(0), "{}", all(&out));
        let said = text(&out.stdout);
        assert!(said.contains("\nstatus:    enforced\n"), "{said}");
        assert!(said.contains(&format!("\nconfig:    {SYSTEM_FILE}\n")), "{said}");
        assert!(said.contains("\n  static  no namespace layer here: no user namespace can be created here"), "{said}");
        for e in sandbox_bash::sandbox::NAMESPACE_EXCEPTIONS {
            assert!(said.contains(&format!("\n  static  held by the static layer only: {e}\n")), "{e:?}: {said}");
        }
        // Positive control: where user namespaces can be had, none of it is said.
        let out = image.run(user, Userns::Allowed, &[], &["bash", "--sandbox-info"]);
        let said = text(&out.stdout);
        assert!(out.status.success() && said.contains("\nstatus:    enforced\n"), "{}", all(&out));
        assert!(!said.contains("no namespace layer here") && !said.contains("held by the static layer only"), "{said}");
        assert!(said.contains("\n  kernel  the command has mount and IPC namespaces of its own"), "{said}");
    }
}

#[test]
fn require_namespaces_refuses_where_user_namespaces_are_forbidden() {
    let image = Image::new(Form::BinBash, Some(&format!("{REAL_BASH_LINE}\nrequire_namespaces = true\n")));
    let ran_file = image.host("workspace/ran.txt");
    for user in [User::Root, User::Agent] {
        let out = image.run(user, Userns::Forbidden, &[], &["bash", "-c", "echo ran > ran.txt"]);
        refused(
            &out,
            &["require_namespaces = true", SYSTEM_FILE, "no user namespace can be created here"],
            "forbidden",
        );
        assert!(!ran_file.exists(), "{user:?}: the command ran");
        // Positive control: where they can be had, the same image runs it.
        ran(&image.run(user, Userns::Allowed, &[], &["bash", "-c", "echo ran > ran.txt"]), "", "allowed");
        assert_eq!(std::fs::read_to_string(&ran_file).unwrap(), "ran\n");
        std::fs::remove_file(&ran_file).unwrap();
    }
}

#[test]
fn as_bin_bash_the_moved_bash_is_found_only_through_its_setting() {
    // Without the system file nothing names the moved bash: every bash on the search path is
    // sandbox-bash itself, and nothing runs (it never executes itself in a loop).
    let image = Image::new(Form::BinBash, None);
    let ran_file = image.host("workspace/ran.txt");
    for userns in [Userns::Allowed, Userns::Forbidden] {
        let out = image.run(User::Root, userns, &[], &["bash", "-c", "echo ran > ran.txt"]);
        refused(&out, &["cannot find the real bash", "/bin/bash", "/usr/bin/bash"], "no setting");
        assert!(!ran_file.exists());
        // SANDBOX_BASH_REAL_BASH names it as well as the file does.
        let out = image.run(
            User::Root,
            userns,
            &[("SANDBOX_BASH_REAL_BASH", REAL_BASH)],
            &["bash", "-c", "echo ran > ran.txt"],
        );
        ran(&out, "", "the variable");
        assert_eq!(std::fs::read_to_string(&ran_file).unwrap(), "ran\n");
        std::fs::remove_file(&ran_file).unwrap();
    }
}

#[test]
fn the_image_needs_a_workdir_other_than_the_root() {
    let image = bin_bash_image();
    let out = image.run_in(User::Root, Userns::Forbidden, "/", &[], &["bash", "-c", "echo ok"]);
    refused(&out, &["the workspace root \"/\" is not acceptable"], "cwd /");
    // Positive controls: the WORKDIR, or a workspace named outright.
    ran(&image.run(User::Root, Userns::Forbidden, &[], &["bash", "-c", "echo ok"]), "ok\n", "WORKDIR");
    let named = [("SANDBOX_BASH_WORKSPACE", WORKDIR)];
    ran(&image.run_in(User::Root, Userns::Forbidden, "/", &named, &["bash", "-c", "echo ok"]), "ok\n", "named");
}

#[test]
fn as_shell_only_what_starts_shell_is_sandboxed() {
    let image = Image::new(Form::Shell, None);
    let cat = format!("cat {CANARY}");
    let outside = image.host("data/file.txt");
    let inside = image.host("workspace/file.txt");
    let mut expected_inside = String::from("workspace data\n");
    for (user, userns) in EVERY_CONTAINER {
        let what = format!("{user:?}, user namespaces {userns:?}");
        // What a client does with SHELL.
        ran(&image.run(user, userns, &[], &["/bin/sh", "-c", "\"$SHELL\" -c 'echo ok'"]), "ok\n", &what);
        denied(&image.run(user, userns, &[], &["/bin/sh", "-c", &format!("\"$SHELL\" -c '{cat}'")]), CANARY, &what);
        ran(&image.run(user, userns, &[], &["/bin/sh", "-c", CHECK_SHELL]), "", &format!("{what}: the check"));
        // It found the system's bash where it is, with no configuration.
        let info = info(&image, user, userns, INSTALLED);
        assert_eq!(info["config_files"], serde_json::json!([]), "{what}");
        let program = info["rules"].as_array().unwrap().iter().find(|r| r["why"] == "program");
        assert_eq!(program.map(|r| &r["path"]), Some(&serde_json::json!("/bin/bash")), "{what}: {info:#}");
        check_namespace_layer(&info, userns, &what);
        // The kernel layer holds under SHELL too.
        let out = image.run(user, userns, &[], &[INSTALLED, "-c", &python_append(&format!("{DATA}/file.txt"))]);
        kernel_refused_write(&out, userns, &what);
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside data\n", "{what}");
        let out = image.run(user, userns, &[], &[INSTALLED, "-c", &python_append(&format!("{WORKDIR}/file.txt"))]);
        ran(&out, "", &format!("{what}: write in the workspace"));
        expected_inside.push_str("changed\n");
        assert_eq!(std::fs::read_to_string(&inside).unwrap(), expected_inside, "{what}");
        // /bin/sh and /bin/bash are the system's own and unchecked: this form sandboxes only
        // the programs that start SHELL.
        for shell in ["/bin/sh", "bash"] {
            ran(&image.run(user, userns, &[], &[shell, "-c", &cat]), "SYSTEM CANARY\n", &format!("{what}: {shell}"));
        }
        let out = image.run(user, userns, &[], &["bash", "--sandbox-info"]);
        assert_eq!(out.status.code(), Some(2), "{what}: bash is the real one: {}", all(&out));
    }
}

#[test]
fn the_recipe_describes_the_layout_tested_here() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dockerfile = std::fs::read_to_string(format!("{root}/packaging/container/Dockerfile")).unwrap();
    let docs = std::fs::read_to_string(format!("{root}/docs/containers.md")).unwrap();
    for (name, file) in [("packaging/container/Dockerfile", &dockerfile), ("docs/containers.md", &docs)] {
        for needle in [REAL_BASH, INSTALLED, REAL_BASH_LINE, "/etc/sandbox-bash", &format!("WORKDIR {WORKDIR}")] {
            assert!(file.contains(needle), "{name} lacks {needle:?}");
        }
    }
    assert!(dockerfile.contains(&format!("RUN {CHECK_BIN_BASH}")), "the Dockerfile's check is not the one tested");
    assert!(docs.contains(&format!("RUN {CHECK_BIN_BASH}")) && docs.contains(&format!("RUN {CHECK_SHELL}")));
    for needle in ["ENV SHELL=/usr/local/bin/sandbox-bash", "require_namespaces = true", "no namespace layer here:"] {
        assert!(docs.contains(needle), "docs/containers.md lacks {needle:?}");
    }
    // The page shows the Dockerfile as it is, from FROM on.
    let from = &dockerfile[dockerfile.find("\nFROM ").expect("a FROM line") + 1..];
    let shown = docs.split("```dockerfile\n").nth(1).and_then(|b| b.split("```").next()).unwrap_or("");
    assert_eq!(shown, from, "docs/containers.md's first Dockerfile differs from packaging/container/Dockerfile");
    // The --sandbox-info it shows has this version's wording.
    for e in sandbox_bash::sandbox::NAMESPACE_EXCEPTIONS {
        assert!(docs.contains(&format!("static  held by the static layer only: {e}")), "docs/containers.md: {e:?}");
    }
}
