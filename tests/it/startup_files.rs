//! The start-up file bash reads before the program is analysed with it, exactly when bash
//! reads it: `$BASH_ENV` for non-interactive shells not named `sh`, not in POSIX mode and not
//! privileged; `$ENV` for interactive shells named `sh` or in POSIX mode; `--rcfile FILE` /
//! `--init-file FILE` only for interactive shells (`bash --rcfile F -c cmd` does not read F).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const SANDBOX: &str = env!("CARGO_BIN_EXE_sandbox-bash");

/// What the start-up file does: a write of a system file, which nothing else needs.
const STARTUP: &str = "echo x > /etc/sandbox-bash-startup-test\n";
const SYSTEM_WRITE: &str = "2";

/// One invocation: argv[0], extra environment, arguments, standard input, and whether bash
/// reads the start-up file.
type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [&'a str], &'a str, bool);

struct Lab {
    dir: tempfile::TempDir,
}

impl Lab {
    fn new() -> Lab {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        for d in ["home", "work", "bin"] {
            std::fs::create_dir(dir.path().join(d)).unwrap();
        }
        let lab = Lab { dir };
        std::fs::write(lab.work().join("rc.sh"), STARTUP).unwrap();
        std::fs::write(lab.home().join("rc.sh"), STARTUP).unwrap();
        std::fs::write(lab.dir.path().join("bin/onpath.sh"), STARTUP).unwrap();
        lab
    }

    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// The mode `--sandbox-explain` says the invocation requires.
    fn required(&self, argv0: &str, env: &[(&str, &str)], args: &[&str], stdin: &str) -> String {
        use std::io::Write;
        use std::os::unix::process::CommandExt;
        let mut cmd = Command::new(SANDBOX);
        cmd.arg0(argv0)
            .arg("--sandbox-explain")
            .args(args)
            .current_dir(self.work())
            .env_clear()
            .env("HOME", self.home())
            .env("PATH", format!("{}:/usr/bin:/bin", self.dir.path().join("bin").display()))
            .env("SANDBOX_BASH_WORKSPACE", self.work())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text
            .lines()
            .find(|l| l.starts_with("required:"))
            .unwrap_or_else(|| panic!("no required line for {args:?}: {text}{}", String::from_utf8_lossy(&out.stderr)));
        line.split_whitespace().nth(1).unwrap_or_default().to_string()
    }
}

fn reads_startup(required: &str) -> bool {
    required.starts_with(SYSTEM_WRITE) || required.starts_with('6') || required.starts_with('3')
}

#[test]
fn startup_files_are_analysed_exactly_when_bash_reads_them() {
    let lab = Lab::new();
    let home_rc = lab.home().join("rc.sh");
    let home_rc = home_rc.to_str().unwrap();
    #[rustfmt::skip]
    let cases: &[Case] = &[
        // $BASH_ENV: non-interactive bash, expanded, relative to the cwd, never on PATH.
        ("bash", &[("BASH_ENV", "rc.sh")], &["-c", "true"], "", true),
        ("bash", &[("BASH_ENV", "$HOME/rc.sh")], &["-c", "true"], "", true),
        ("bash", &[("BASH_ENV", "~/rc.sh")], &["-c", "true"], "", true),
        ("bash", &[("BASH_ENV", home_rc)], &["-c", "true"], "", true),
        ("bash", &[("BASH_ENV", "onpath.sh")], &["-c", "true"], "", false),
        ("bash", &[("BASH_ENV", "rc.sh")], &["-s"], "true\n", true),
        ("bash", &[("BASH_ENV", "rc.sh")], &["--posix", "-c", "true"], "", false),
        ("bash", &[("BASH_ENV", "rc.sh")], &["-o", "posix", "-c", "true"], "", false),
        ("bash", &[("BASH_ENV", "rc.sh")], &["-p", "-c", "true"], "", false),
        ("sh", &[("BASH_ENV", "rc.sh")], &["-c", "true"], "", false),
        ("bash", &[("BASH_ENV", "rc.sh")], &["-i", "-c", "true"], "", false),
        // --rcfile / --init-file: interactive bash only, not a login shell, not with --norc.
        ("bash", &[], &["--rcfile", "rc.sh", "-c", "true"], "", false),
        ("bash", &[], &["--rcfile", "rc.sh", "-i", "-c", "true"], "", true),
        ("bash", &[], &["--init-file", "rc.sh", "-ic", "true"], "", true),
        ("bash", &[], &["--rcfile", "~/rc.sh", "-ic", "true"], "", true),
        ("bash", &[], &["--rcfile", "$HOME/rc.sh", "-ic", "true"], "", false),
        ("bash", &[], &["--rcfile", "rc.sh", "--norc", "-ic", "true"], "", false),
        ("bash", &[], &["--rcfile", "rc.sh", "-l", "-ic", "true"], "", false),
        ("bash", &[], &["--rcfile", "rc.sh", "-i"], "", true),
        // $ENV: interactive shells named sh or in POSIX mode.
        ("sh", &[("ENV", "rc.sh")], &["-c", "true"], "", false),
        ("sh", &[("ENV", "rc.sh")], &["-ic", "true"], "", true),
        ("sh", &[("ENV", "rc.sh")], &["--rcfile", "nothing.sh", "-ic", "true"], "", true),
        ("bash", &[("ENV", "rc.sh")], &["--posix", "-ic", "true"], "", true),
        ("bash", &[("ENV", "rc.sh")], &["-ic", "true"], "", false),
        ("bash", &[("ENV", "rc.sh")], &["--posix", "-p", "-ic", "true"], "", false),
        // Shells the program starts read theirs the same way.
        ("bash", &[], &["-c", "export BASH_ENV=./rc.sh; bash -c true"], "", true),
        ("bash", &[], &["-c", "BASH_ENV=rc.sh; bash -c true"], "", false),
        ("bash", &[], &["-c", "bash --rcfile ./rc.sh -ic true"], "", true),
        ("bash", &[], &["-c", "bash --rcfile ./rc.sh -c true"], "", false),
        ("bash", &[], &["-c", "export ENV=./rc.sh; sh -ic true"], "", true),
        ("bash", &[], &["-c", "export ENV=./rc.sh; sh -c true"], "", false),
    ];
    let mut failures = Vec::new();
    for (argv0, env, args, stdin, expected) in cases {
        let required = lab.required(argv0, env, args, stdin);
        if reads_startup(&required) != *expected {
            failures.push(format!(
                "{argv0} {args:?} with {env:?}: required {required}, the start-up file {} be analysed",
                if *expected { "should" } else { "should not" }
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// bash's own behaviour, which the table above follows: it reads the file exactly then.
#[test]
fn bash_reads_them_so() {
    let lab = Lab::new();
    let bash = ["/bin/bash", "/usr/bin/bash"].iter().map(Path::new).find(|p| p.exists()).expect("bash is installed");
    std::fs::write(lab.work().join("say.sh"), "echo SOURCED\n").unwrap();
    let run = |argv0: &str, env: &[(&str, &str)], args: &[&str]| {
        use std::os::unix::process::CommandExt;
        let out = Command::new(bash)
            .arg0(argv0)
            .args(args)
            .current_dir(lab.work())
            .env_clear()
            .env("HOME", lab.home())
            .env("PATH", "/usr/bin:/bin")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).contains("SOURCED")
    };
    assert!(run("bash", &[("BASH_ENV", "say.sh")], &["-c", "true"]));
    assert!(!run("bash", &[("BASH_ENV", "say.sh")], &["-p", "-c", "true"]));
    assert!(!run("sh", &[("BASH_ENV", "say.sh")], &["-c", "true"]));
    assert!(!run("bash", &[], &["--rcfile", "say.sh", "-c", "true"]));
    assert!(run("bash", &[], &["--rcfile", "say.sh", "-i", "-c", "true"]));
    assert!(!run("bash", &[], &["--rcfile", "say.sh", "-l", "-i", "-c", "true"]));
    assert!(run("sh", &[("ENV", "say.sh")], &["-i", "-c", "true"]));
    assert!(!run("sh", &[("ENV", "say.sh")], &["-c", "true"]));
    assert!(run("bash", &[("ENV", "say.sh")], &["--posix", "-i", "-c", "true"]));
}
