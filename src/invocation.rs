//! bash's command line, understood exactly as bash 5 understands it, without any I/O.
//!
//! bash reads its arguments in two passes (shell.c): first the "long" options, which may be
//! spelled with one or two dashes (`--login`, `-login`), until the first argument that is not
//! one; then the short option groups (`-xe`, `+o pipefail`, `-abouo emacs ignoreeof`) until the
//! first argument that starts with neither `-` nor `+`, or a lone `-`/`--`. Only then does it
//! pick the program: the `-c` string (the next argument after all options, so `-c -l STR` is
//! valid), else a script file, else standard input. This module reproduces that and nothing
//! else; it never touches the world except through the [`Tty`] facts it is given.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

/// Whether the standard streams bash looks at are terminals (bash checks fd 0 and fd 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tty {
    pub stdin: bool,
    pub stderr: bool,
}

/// Where the program that bash will run comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `-c STRING [NAME [ARGS...]]`.
    Command { text: OsString, name: Option<OsString>, args: Vec<OsString> },
    /// `FILE [ARGS...]`: a script file, looked up as bash looks it up.
    Script { path: OsString, args: Vec<OsString> },
    /// Commands read from a non-terminal standard input (`-s`, or no arguments left).
    Stdin { args: Vec<OsString> },
    /// An interactive shell: commands are typed in.
    Interactive { args: Vec<OsString> },
}

impl Source {
    /// The name used in explain output and JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            Source::Command { .. } => "command",
            Source::Script { .. } => "script",
            Source::Stdin { .. } => "stdin",
            Source::Interactive { .. } => "interactive",
        }
    }
}

/// A bash invocation that will run commands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    pub source: Source,
    /// `-l`, `--login`, or `argv[0]` starting with `-`.
    pub login: bool,
    /// `-i`, or no program given while stdin and stderr are terminals.
    pub interactive: bool,
    /// `-n` / `-o noexec` (or `--dump-strings`) in force after all options: bash only parses.
    pub noexec: bool,
    /// `--posix`, `-o posix`.
    pub posix: bool,
    /// `--norc`.
    pub no_rc: bool,
    /// `--noprofile`.
    pub no_profile: bool,
    /// `--rcfile FILE` / `--init-file FILE`.
    pub rcfile: Option<OsString>,
    /// Started as `sh`: it reads the start-up files `sh` reads.
    pub sh: bool,
    /// `-p` / `-o privileged` in force after all options: bash reads no `$BASH_ENV` or `$ENV`.
    pub privileged: bool,
    /// `-O NAME` / `+O NAME` in order (name, on).
    pub shopts: Vec<(OsString, bool)>,
}

/// What bash would do with this command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    /// It runs a program.
    Run(Invocation),
    /// It prints its help or version and exits without running anything.
    Informational,
    /// It rejects the command line. `keep` is how many arguments (after `argv[0]`) reach the
    /// offending one; `then_stop` says whether appending `-n` after them is safe (it is not
    /// when the error is a missing option argument, because `-n` would become that argument).
    UsageError { keep: usize, then_stop: bool },
}

const LONG_FLAGS: &[&str] = &[
    "debug",
    "debugger",
    "dump-po-strings",
    "dump-strings",
    "help",
    "login",
    "noediting",
    "noprofile",
    "norc",
    "posix",
    "pretty-print",
    "restricted",
    "verbose",
    "version",
];
const LONG_WITH_ARGUMENT: &[&str] = &["init-file", "rcfile"];

/// The one-letter flags bash's `change_flag` accepts, besides the invocation-only ones.
const SET_FLAGS: &[u8] = b"abefhikmnprtuvxBCEHPT";

/// Scans bash's arguments (`args` excludes `argv[0]`).
pub fn parse(argv0: &OsStr, args: &[OsString], tty: Tty) -> Parsed {
    let mut i = 0;
    let name = argv0.as_bytes().rsplit(|&b| b == b'/').next().unwrap_or(&[]);
    let mut inv = Invocation {
        source: Source::Interactive { args: Vec::new() },
        login: argv0.as_bytes().first() == Some(&b'-'),
        interactive: false,
        noexec: false,
        // Started as `sh`, bash is in POSIX mode.
        posix: name == b"sh" || name == b"-sh",
        no_rc: false,
        no_profile: false,
        rcfile: None,
        sh: name == b"sh" || name == b"-sh",
        privileged: false,
        shopts: Vec::new(),
    };
    let mut want_help = false;
    let mut want_version = false;
    let mut dump_strings = false;

    // Pass 1: long options, with one or two dashes.
    while let Some(arg) = args.get(i) {
        let bytes = arg.as_bytes();
        if bytes.first() != Some(&b'-') {
            break;
        }
        let two_dashes = bytes.len() > 2 && bytes[1] == b'-';
        let name = if two_dashes { &bytes[2..] } else { &bytes[1..] };
        if let Some(flag) = LONG_FLAGS.iter().find(|f| f.as_bytes() == name) {
            match *flag {
                "help" => want_help = true,
                "version" => want_version = true,
                "login" => inv.login = true,
                "noprofile" => inv.no_profile = true,
                "norc" => inv.no_rc = true,
                "posix" => inv.posix = true,
                "dump-strings" | "dump-po-strings" => dump_strings = true,
                _ => {}
            }
            i += 1;
        } else if LONG_WITH_ARGUMENT.iter().any(|f| f.as_bytes() == name) {
            match args.get(i + 1) {
                Some(value) => inv.rcfile = Some(value.clone()),
                None => return Parsed::UsageError { keep: i + 1, then_stop: false },
            }
            i += 2;
        } else if two_dashes {
            return Parsed::UsageError { keep: i + 1, then_stop: true };
        } else {
            break;
        }
    }
    if want_help || want_version {
        return Parsed::Informational;
    }

    // Pass 2: short option groups.
    let mut want_command = false;
    let mut read_stdin = false;
    let mut forced_interactive = false;
    let mut restricted = false;
    while let Some(arg) = args.get(i) {
        let bytes = arg.as_bytes();
        let on = match bytes.first() {
            Some(b'-') => true,
            Some(b'+') => false,
            _ => break,
        };
        if on && (bytes.len() == 1 || bytes == b"--") {
            i += 1;
            break;
        }
        let mut next = i + 1;
        for &c in &bytes[1..] {
            match c {
                b'c' => want_command = true,
                b'l' => inv.login = true,
                b's' => read_stdin = true,
                b'D' => dump_strings = true,
                b'o' => match args.get(next) {
                    // Without a name bash lists the options and carries on.
                    None => {}
                    Some(name) => {
                        match name.as_bytes() {
                            b"noexec" => inv.noexec = on,
                            b"posix" => inv.posix = on,
                            b"privileged" => inv.privileged = on,
                            _ => {}
                        }
                        next += 1;
                    }
                },
                b'O' => {
                    if let Some(name) = args.get(next) {
                        inv.shopts.push((name.clone(), on));
                        next += 1;
                    }
                }
                _ if SET_FLAGS.contains(&c) => {
                    if c == b'r' && !on && restricted {
                        return Parsed::UsageError { keep: i + 1, then_stop: true };
                    }
                    match c {
                        b'i' => forced_interactive = on,
                        b'n' => inv.noexec = on,
                        b'r' => restricted = on,
                        b'p' => inv.privileged = on,
                        _ => {}
                    }
                }
                _ => return Parsed::UsageError { keep: i + 1, then_stop: true },
            }
        }
        i = next;
    }

    let rest = |from: usize| args.get(from..).map(<[OsString]>::to_vec).unwrap_or_default();
    let command = if want_command {
        match args.get(i) {
            Some(text) => Some(text.clone()),
            None => return Parsed::UsageError { keep: args.len(), then_stop: false },
        }
    } else {
        None
    };
    inv.interactive =
        forced_interactive || (command.is_none() && (i == args.len() || read_stdin) && tty.stdin && tty.stderr);
    inv.noexec = (inv.noexec || dump_strings) && !inv.interactive;
    inv.source = if let Some(text) = command {
        Source::Command { text, name: args.get(i + 1).cloned(), args: rest(i + 2) }
    } else if i < args.len() && !read_stdin {
        Source::Script { path: args[i].clone(), args: rest(i + 1) }
    } else if inv.interactive {
        Source::Interactive { args: rest(i) }
    } else {
        Source::Stdin { args: rest(i) }
    };
    Parsed::Run(inv)
}

impl Invocation {
    /// The start-up file bash reads before the program, as bash's `run_startup_files` decides,
    /// for the files that come from the command line and the environment (the user's own
    /// `~/.bashrc`, `/etc/bash.bashrc` and login profiles are not among them):
    ///
    /// - a non-interactive shell not named `sh`, not in POSIX mode and not privileged reads
    ///   `$BASH_ENV` (`bash --rcfile F -c cmd` does not read `F`);
    /// - an interactive one named `sh` or in POSIX mode reads `$ENV` (unless privileged);
    /// - an interactive bash that is no login shell and has no `--norc` reads `--rcfile FILE`
    ///   (`bash -i --rcfile F -c cmd` reads `F`).
    ///
    /// `var` gives a variable's value in the shell's environment.
    pub fn startup_file(&self, var: &dyn Fn(&str) -> Option<String>) -> Option<Startup> {
        let nonempty = |name: &str| var(name).filter(|v| !v.is_empty()).map(Startup::Expanded);
        if !self.interactive {
            return if self.posix || self.sh || self.privileged { None } else { nonempty("BASH_ENV") };
        }
        if self.posix || self.sh {
            return if self.privileged { None } else { nonempty("ENV") };
        }
        if self.login || self.no_rc {
            return None;
        }
        self.rcfile.as_ref().map(|f| Startup::Literal(f.to_string_lossy().into_owned()))
    }
}

/// A start-up file bash reads before the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Startup {
    /// The value of `$BASH_ENV` or `$ENV`: bash expands it as in double quotes first.
    Expanded(String),
    /// `--rcfile FILE`, as given.
    Literal(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    fn run(args: &[&str]) -> Invocation {
        match parse(OsStr::new("bash"), &os(args), Tty::default()) {
            Parsed::Run(inv) => inv,
            other => panic!("{args:?} gave {other:?}"),
        }
    }

    fn command(text: &str, name: Option<&str>, args: &[&str]) -> Source {
        Source::Command { text: text.into(), name: name.map(OsString::from), args: os(args) }
    }

    #[test]
    fn command_string_forms() {
        assert_eq!(run(&["-c", "echo hi"]).source, command("echo hi", None, &[]));
        assert_eq!(run(&["-c", "echo $0", "n", "a", "b"]).source, command("echo $0", Some("n"), &["a", "b"]));
        let claude = run(&["-c", "-l", "echo hi"]);
        assert_eq!(claude.source, command("echo hi", None, &[]));
        assert!(claude.login);
        assert!(run(&["-lc", "x"]).login);
        assert_eq!(run(&["-ec", "x"]).source, command("x", None, &[]));
        assert_eq!(run(&["-eo", "pipefail", "-c", "x"]).source, command("x", None, &[]));
        assert_eq!(run(&["-eu", "-o", "pipefail", "-c", "x"]).source, command("x", None, &[]));
        assert_eq!(run(&["-abouo", "emacs", "ignoreeof", "-c", "x"]).source, command("x", None, &[]));
        // Options end at the command string: later words are $0 and $@.
        assert_eq!(run(&["-c", "x", "-l"]).source, command("x", Some("-l"), &[]));
        assert!(!run(&["-c", "x", "-l"]).login);
        assert_eq!(run(&["-s", "-c", "x"]).source, command("x", None, &[]));
    }

    #[test]
    fn long_options() {
        let inv = run(&["--noprofile", "--norc", "-e", "-o", "pipefail", "/tmp/x.sh"]);
        assert!(inv.no_profile && inv.no_rc);
        assert_eq!(inv.source, Source::Script { path: "/tmp/x.sh".into(), args: vec![] });
        assert!(run(&["-login", "-c", "x"]).login);
        assert!(run(&["--login", "-c", "x"]).login);
        assert_eq!(run(&["--rcfile", "f", "-c", "x"]).rcfile, Some("f".into()));
        assert_eq!(run(&["--init-file", "f", "-c", "x"]).rcfile, Some("f".into()));
        assert!(run(&["--posix", "-c", "x"]).posix);
        // Long options are only read before the first short option.
        assert_eq!(
            parse(OsStr::new("bash"), &os(&["-e", "--login", "-c", "x"]), Tty::default()),
            Parsed::UsageError { keep: 2, then_stop: true }
        );
    }

    #[test]
    fn scripts_and_stdin() {
        assert_eq!(run(&["-xe", "s.sh", "a"]).source, Source::Script { path: "s.sh".into(), args: os(&["a"]) });
        assert_eq!(run(&["--", "s.sh"]).source, Source::Script { path: "s.sh".into(), args: vec![] });
        assert_eq!(run(&["-", "s.sh", "y"]).source, Source::Script { path: "s.sh".into(), args: os(&["y"]) });
        assert_eq!(run(&["-s", "a", "b"]).source, Source::Stdin { args: os(&["a", "b"]) });
        assert_eq!(run(&["-l"]).source, Source::Stdin { args: vec![] });
        assert_eq!(run(&[]).source, Source::Stdin { args: vec![] });
        let inv = run(&["-i"]);
        assert!(inv.interactive);
        assert_eq!(inv.source, Source::Interactive { args: vec![] });
    }

    #[test]
    fn interactivity_follows_the_terminals() {
        let both = Tty { stdin: true, stderr: true };
        let only_in = Tty { stdin: true, stderr: false };
        let inter = |args: &[&str], tty| match parse(OsStr::new("bash"), &os(args), tty) {
            Parsed::Run(inv) => inv.interactive,
            _ => panic!(),
        };
        assert!(inter(&[], both));
        assert!(!inter(&[], only_in));
        assert!(inter(&["-s", "a"], both));
        assert!(!inter(&["s.sh"], both));
        assert!(!inter(&["-c", "x"], both));
        assert!(inter(&["-ic", "x"], Tty::default()));
    }

    #[test]
    fn startup_files_follow_bash() {
        let env = |name: &str| match name {
            "BASH_ENV" => Some("/b".to_string()),
            "ENV" => Some("/e".to_string()),
            _ => None,
        };
        let startup = |argv0: &str, args: &[&str]| match parse(OsStr::new(argv0), &os(args), Tty::default()) {
            Parsed::Run(inv) => inv.startup_file(&env),
            other => panic!("{args:?} gave {other:?}"),
        };
        let bash_env = Some(Startup::Expanded("/b".into()));
        let env_file = Some(Startup::Expanded("/e".into()));
        let rc = Some(Startup::Literal("F".into()));
        assert_eq!(startup("bash", &["-c", "x"]), bash_env);
        assert_eq!(startup("bash", &["s.sh"]), bash_env);
        assert_eq!(startup("bash", &["--rcfile", "F", "-c", "x"]), bash_env);
        assert_eq!(startup("bash", &["--posix", "-c", "x"]), None);
        assert_eq!(startup("bash", &["-o", "posix", "-c", "x"]), None);
        assert_eq!(startup("sh", &["-c", "x"]), None);
        assert_eq!(startup("bash", &["-p", "-c", "x"]), None);
        assert_eq!(startup("bash", &["--rcfile", "F", "-i", "-c", "x"]), rc);
        assert_eq!(startup("bash", &["--init-file", "F", "-ic", "x"]), rc);
        assert_eq!(startup("bash", &["--rcfile", "F", "--norc", "-ic", "x"]), None);
        assert_eq!(startup("bash", &["--rcfile", "F", "-l", "-ic", "x"]), None);
        assert_eq!(startup("bash", &["-ic", "x"]), None);
        assert_eq!(startup("sh", &["-ic", "x"]), env_file);
        assert_eq!(startup("sh", &["--rcfile", "F", "-ic", "x"]), env_file);
        assert_eq!(startup("bash", &["--posix", "-ic", "x"]), env_file);
        assert_eq!(startup("bash", &["--posix", "-p", "-ic", "x"]), None);
    }

    #[test]
    fn noexec_is_the_final_state_and_ignored_when_interactive() {
        assert!(run(&["-n", "-c", "x"]).noexec);
        assert!(!run(&["-n", "+n", "-c", "x"]).noexec);
        assert!(!run(&["-o", "noexec", "+o", "noexec", "-c", "x"]).noexec);
        assert!(run(&["--dump-strings", "-c", "x"]).noexec);
        assert!(!run(&["-n", "-i"]).noexec);
    }

    #[test]
    fn posix_mode_from_argv0() {
        for (argv0, posix) in [("sh", true), ("/bin/sh", true), ("-sh", true), ("bash", false), ("shell", false)] {
            match parse(OsStr::new(argv0), &os(&["-c", "x"]), Tty::default()) {
                Parsed::Run(inv) => assert_eq!(inv.posix, posix, "{argv0}"),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn login_from_argv0() {
        match parse(OsStr::new("-bash"), &[], Tty::default()) {
            Parsed::Run(inv) => assert!(inv.login),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn usage_errors_and_information() {
        let p = |args: &[&str]| parse(OsStr::new("bash"), &os(args), Tty::default());
        assert_eq!(p(&["--version"]), Parsed::Informational);
        assert_eq!(p(&["--help"]), Parsed::Informational);
        assert_eq!(p(&["-version"]), Parsed::Informational);
        assert_eq!(p(&["--nosuch", "-c", "x"]), Parsed::UsageError { keep: 1, then_stop: true });
        assert_eq!(p(&["--rcfile"]), Parsed::UsageError { keep: 1, then_stop: false });
        assert_eq!(p(&["-Q", "-c", "x"]), Parsed::UsageError { keep: 1, then_stop: true });
        assert_eq!(p(&["-x-c", "x"]), Parsed::UsageError { keep: 1, then_stop: true });
        assert_eq!(p(&["-r", "+r", "-c", "x"]), Parsed::UsageError { keep: 2, then_stop: true });
        assert_eq!(p(&["-c"]), Parsed::UsageError { keep: 1, then_stop: false });
        assert_eq!(p(&["-e", "-c"]), Parsed::UsageError { keep: 2, then_stop: false });
        // `-o` without a name lists the options and goes on to read stdin.
        assert!(matches!(p(&["-o"]), Parsed::Run(Invocation { source: Source::Stdin { .. }, .. })));
    }
}
