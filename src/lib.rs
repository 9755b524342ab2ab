//! sandbox-bash: a drop-in `bash` that checks each program against a four-scope rwx mode.
//!
//! The data flow is argv → program text → analysis → decision → exec. What does not end in
//! exec is an [`Outcome`]: [`run`] prints it and exits with its one status mapping.

pub mod allowlist;
pub mod analysis;
pub mod audit;
pub mod caches;
pub mod config;
pub mod environ;
pub mod error;
pub mod exec;
pub mod hygiene;
#[cfg(target_os = "linux")]
pub mod inherited;
pub mod invocation;
pub mod later;
pub mod mode;
#[cfg(target_os = "linux")]
pub mod outside;
pub mod plain;
pub mod project;
#[cfg(target_os = "linux")]
pub mod proxy;
pub mod report;
pub mod sandbox;
pub mod scope;

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;

use analysis::{Access, Analysis, Context, Pos, TextKind};
use environ::Environ;
use error::Error;
use invocation::{Parsed, Source, Tty};
use mode::{MODE_VAR, Mode, Perm};
use report::{Decision, Verdict};
use scope::Layout;

/// The variable that overrides the workspace root.
pub const WORKSPACE_VAR: &str = "SANDBOX_BASH_WORKSPACE";

/// Directories whose programs are part of the runtime baseline: running them by path is
/// the same as running them by name.
const SYSTEM_PROGRAM_DIRS: &[&str] = &[
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
    "/usr/libexec",
    "/usr/lib/git-core",
];

/// What sandbox-bash's own options (the `--sandbox-*` arguments before bash's) ask for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Action {
    /// Analyse, lock and run bash: no option given.
    #[default]
    Run,
    /// Print the verdict and its reasons, run nothing.
    Explain {
        json: bool,
    },
    /// Print what is enforced here and now, run nothing.
    Info {
        json: bool,
    },
    Help,
    Version,
    /// `--sandbox-connect HOST PORT`: a tunnel through the network proxy on stdin and stdout.
    Connect,
}

/// The `--sandbox-*` option parser; it is also the source of the manual's option list.
pub fn sandbox_command() -> clap::Command {
    use clap::{Arg, ArgAction, Command};
    Command::new("sandbox-bash")
        .no_binary_name(true)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(
            Arg::new("sandbox-explain")
                .long("sandbox-explain")
                .action(ArgAction::SetTrue)
                .help("Analyse what the rest of the arguments would run, print the verdict and reasons, run nothing"),
        )
        .arg(
            Arg::new("sandbox-info")
                .long("sandbox-info")
                .action(ArgAction::SetTrue)
                .help("Print what is enforced here and now (backend, workspace, mode, rules), run nothing"),
        )
        .arg(
            Arg::new("sandbox-json")
                .long("sandbox-json")
                .action(ArgAction::SetTrue)
                .requires("report")
                .help("With --sandbox-explain or --sandbox-info: print one JSON object instead of text"),
        )
        .arg(
            Arg::new("sandbox-connect")
                .long("sandbox-connect")
                .num_args(2)
                .value_names(["HOST", "PORT"])
                .value_parser(clap::value_parser!(OsString))
                .help(
                    "Join stdin and stdout to HOST:PORT through the network proxy (an ssh ProxyCommand: \
                     sandbox-bash --sandbox-connect %h %p)",
                ),
        )
        .arg(
            Arg::new("sandbox-help")
                .long("sandbox-help")
                .action(ArgAction::SetTrue)
                .help("Print sandbox-bash's own options"),
        )
        .arg(
            Arg::new("sandbox-version")
                .long("sandbox-version")
                .action(ArgAction::SetTrue)
                .help("Print sandbox-bash's version"),
        )
        // One thing to do: explain, info, help or version.
        .group(clap::ArgGroup::new("report").args(["sandbox-explain", "sandbox-info"]))
        .group(clap::ArgGroup::new("action").args([
            "sandbox-explain",
            "sandbox-info",
            "sandbox-help",
            "sandbox-version",
            "sandbox-connect",
        ]))
}

/// Splits the leading `--sandbox-*` arguments from bash's arguments.
pub fn split_sandbox_args(args: &[OsString]) -> Result<(Action, Vec<OsString>), Error> {
    let mut count = args.iter().take_while(|a| a.as_bytes().starts_with(b"--sandbox-")).count();
    // The one option with values of its own: what follows it is its host and port, not bash's.
    if count > 0 && args[count - 1] == "--sandbox-connect" {
        count = (count + 2).min(args.len());
    }
    let (ours, bash) = args.split_at(count);
    if ours.is_empty() {
        return Ok((Action::Run, bash.to_vec()));
    }
    let matches = sandbox_command().try_get_matches_from(ours).map_err(|e| {
        // clap's message up to its usage part, on one line.
        let text = e.to_string();
        let lines: Vec<&str> = text.lines().map(str::trim).take_while(|l| !l.is_empty()).collect();
        let message = lines.join(" ");
        let message = message.trim_start_matches("error: ");
        Error::Options(format!("{} (see --sandbox-help)", if message.is_empty() { "invalid option" } else { message }))
    })?;
    let json = matches.get_flag("sandbox-json");
    if let Some(target) = matches.get_many::<OsString>("sandbox-connect") {
        let mut rest: Vec<OsString> = target.cloned().collect();
        rest.extend(bash.iter().cloned());
        return Ok((Action::Connect, rest));
    }
    let action = if matches.get_flag("sandbox-help") {
        Action::Help
    } else if matches.get_flag("sandbox-version") {
        Action::Version
    } else if matches.get_flag("sandbox-info") {
        Action::Info { json }
    } else if matches.get_flag("sandbox-explain") {
        Action::Explain { json }
    } else {
        Action::Run
    };
    Ok((action, bash.to_vec()))
}

/// The whole program, given its arguments (`argv[0]` first): returns the exit status (it
/// returns at all only when it does not exec).
pub fn run(args: Vec<OsString>, env: Environ) -> i32 {
    // A panic must never let a command run: it is an internal error, said clearly.
    exec::stop_on_panic();
    // Before anything of our own is open.
    #[cfg(target_os = "linux")]
    inherited::take();
    let outcome = run_with(&args, &env).unwrap_or_else(Outcome::Refuse);
    match outcome.print() {
        Ok(()) => outcome.exit_status(),
        Err(e) => {
            let failed = Outcome::Refuse(e);
            let _ = failed.print();
            failed.exit_status()
        }
    }
}

/// What one invocation comes to when it does not exec bash.
#[derive(Debug)]
pub enum Outcome {
    /// Text for standard output: help, version, `--sandbox-info`.
    Print(String),
    /// `--sandbox-explain`: the explanation, and the status of its verdict.
    Explain(String, i32),
    /// Denied by policy: the denial (one line per missing bit), with a note when the
    /// administrator's ceiling took away a bit the mode asked for.
    Deny(Box<Decision>, Option<String>),
    /// bash itself fails before running anything: its message and status.
    BashFails(String, i32),
    /// sandbox-bash cannot run the command safely.
    Refuse(Error),
    /// A tool of sandbox-bash's own ran to its end (`--sandbox-connect`): its status.
    Exit(i32),
}

impl Outcome {
    /// The one mapping from outcome to exit status.
    pub fn exit_status(&self) -> i32 {
        match self {
            Outcome::Print(_) => 0,
            // What the run would exit with.
            Outcome::Explain(_, status) => *status,
            Outcome::Deny(..) => report::DENIED,
            Outcome::Refuse(_) => report::REFUSED,
            Outcome::BashFails(_, status) | Outcome::Exit(status) => *status,
        }
    }

    /// Writes what the outcome says: the text on standard output, the rest on standard error.
    fn print(&self) -> Result<(), Error> {
        let mut stderr = std::io::stderr();
        match self {
            Outcome::Print(text) | Outcome::Explain(text, _) => write_stdout(text)?,
            Outcome::Deny(decision, ceiling) => {
                let _ = stderr.write_all(decision.denial_message().as_bytes());
                if let Some(note) = ceiling {
                    let _ = writeln!(stderr, "sandbox-bash: denied: {note}");
                }
            }
            Outcome::BashFails(message, _) => {
                let _ = stderr.write_all(message.as_bytes());
            }
            Outcome::Refuse(e) => {
                let _ = writeln!(stderr, "sandbox-bash: error: {e}");
            }
            Outcome::Exit(_) => {}
        }
        Ok(())
    }
}

/// Writes our own output; a reader that went away is not an error.
fn write_stdout(text: &str) -> Result<(), Error> {
    let mut out = std::io::stdout();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Output(e)),
        _ => Ok(()),
    }
}

fn run_with(args: &[OsString], env: &Environ) -> Result<Outcome, Error> {
    let argv0 = args.first().cloned().unwrap_or_else(|| OsString::from("sandbox-bash"));
    let (action, bash_args) = split_sandbox_args(args.get(1..).unwrap_or(&[]))?;
    if matches!(action, Action::Help | Action::Version) {
        let text = if action == Action::Help {
            format!(
                "sandbox-bash {}: a drop-in bash that checks every program against {MODE_VAR}.\n\
                 Usage: sandbox-bash [--sandbox-OPTION…] [bash arguments…]\n\n{}\n",
                env!("CARGO_PKG_VERSION"),
                sandbox_command().render_help()
            )
        } else {
            format!("sandbox-bash {}\n", env!("CARGO_PKG_VERSION"))
        };
        return Ok(Outcome::Print(text));
    }
    if action == Action::Connect {
        return connect(&bash_args, env);
    }
    // Configuration files, when there are any (none: nothing is parsed).
    let home_var = env.get("HOME");
    let config = config::load(
        &config::Sources::from_env(
            env.get(config::CONFIG_VAR),
            env.get("XDG_CONFIG_HOME"),
            home_var,
            env.get("TMPDIR"),
        ),
        home_var.and_then(|h| h.to_str()),
    )
    .map_err(Error::Config)?;
    let requested = match env.get(MODE_VAR) {
        Some(value) => Mode::from_env_value(Some(value)).map_err(Error::Mode)?,
        None => config.default_mode.unwrap_or(mode::DEFAULT_MODE),
    };
    // An enclosing sandbox-bash enforces its own mode on us, and the administrator's ceiling
    // holds whatever is asked: we can only narrow.
    let outer = sandbox::outer_mode(env.get(sandbox::ENFORCED_VAR));
    let mut allowed = outer.map_or(requested, |o| Mode(requested.0 & o.0));
    if let Some(ceiling) = config.max_mode {
        allowed = Mode(allowed.0 & ceiling.0);
    }
    // With a network allowlist in force, the command's own network namespace and the proxy
    // outside it are the way out; where they cannot be had, the command gets no network at all
    // (and a program that needs it is refused), never every host.
    let allowlist = network_allowlist(&config, env)?;
    let mut net = net_plan(allowlist.as_ref(), allowed, env, outer.is_some());
    if matches!(action, Action::Info { .. } | Action::Explain { .. })
        && let NetPlan::Proxy(_) = &net
        && let Err(why) = sandbox::network_namespace_probe(false)
    {
        net = NetPlan::Off(why);
    }
    if let NetPlan::Off(_) = &net {
        allowed = Mode(allowed.0 & !NETWORK_BITS.0);
    }
    let degraded_ok = sandbox::degraded_allowed(env.get(sandbox::DEGRADED_VAR))? || config.allow_degraded;
    // The cwd is read once: the layout and the analysis both start from it.
    let cwd = std::env::current_dir().map_err(Error::Cwd)?.to_string_lossy().into_owned();
    let layout = || -> Result<Layout, Error> {
        // The caches' layers are kept apart by mode and network list: what a run wrote there
        // is found only by runs that may do no more than it could.
        let layers_for = match &net {
            NetPlan::Proxy(list) | NetPlan::Enclosed(_, list) => format!("{allowed}-{}", fingerprint(list)),
            _ => allowed.to_string(),
        };
        let layout = layout(&config, env, &cwd, &argv0, allowed, &layers_for, action == Action::Run)?;
        // A configuration file the command may write would widen every later run: the kernel
        // cannot keep a file inside the writable workspace from being changed.
        if allowed.has(mode::Scope::Workspace, Perm::Write) {
            for f in config.files.iter().filter(|f| !scope::is_system_path(f)) {
                if scope::is_within(f, &layout.workspace) {
                    return Err(Error::Config(format!(
                        "the configuration file {f} lies in the workspace {}, which mode {allowed} lets commands \
                         write: a command could change it and widen every later run; move it out of the workspace",
                        layout.workspace
                    )));
                }
            }
        }
        Ok(layout)
    };
    let find_bash = || {
        let explicit = env
            .get(exec::REAL_BASH_VAR)
            .map(|b| (b, exec::Setting::Variable))
            .or_else(|| config.real_bash.as_deref().map(|b| (OsStr::new(b), exec::Setting::Config)));
        exec::find_real_bash(explicit, env.get("PATH"))
    };

    if let Action::Info { json } = action {
        let layout = layout()?;
        let bash = find_bash()?;
        let layout = sandbox::with_programs(&layout, &bash);
        let policy = sandbox::plan_here(allowed, &layout, &bash, env.get("PATH"), outer.is_some(), extra(&config));
        let modes = Modes { requested, allowed, outer, degraded_ok };
        let info = sandbox_info(&policy, &layout, &modes, &config, &net, env);
        return Ok(Outcome::Print(if json { info.json() + "\n" } else { info.text() }));
    }

    let tty = Tty { stdin: exec::is_tty(0), stderr: exec::is_tty(2) };
    let parsed = invocation::parse(&argv0, &bash_args, tty);
    let mut layout = layout()?;
    // The audit log this level writes (none when an enclosing level's relay takes the records).
    // A record holds the program's text: written into a file that runs code later (a start-up
    // file, git's configuration), it would run outside any sandbox. A log in a tree the command
    // may write could be moved away and another put in its place. Inside readable trees it is
    // held like a credential: a command neither reads the commands recorded before it nor
    // holds the log's lock.
    // A program on the way may have closed the descriptors it inherited (Python's subprocess
    // does): the relay's socket is reached again by its path.
    // The relay's socket is tried first: who answers there can be checked (outside this
    // sandbox), which a descriptor handed down cannot be.
    #[cfg(target_os = "linux")]
    let (channel, unchecked) =
        match env.get(outside::relay::CHANNEL_VAR).and(outside::relay::reconnect(env.get(outside::relay::RELAY_VAR))) {
            Some(Ok(fd)) => (Some(fd), None),
            Some(Err(why)) => (None, Some(why)),
            None => (outside::relay::inherited(env.get(outside::relay::CHANNEL_VAR)), None),
        };
    #[cfg(target_os = "linux")]
    if let Some(why) = &unchecked
        && !matches!(action, Action::Explain { .. })
    {
        let _ = writeln!(
            std::io::stderr(),
            "sandbox-bash: warning: {} names no audit relay: {why}; this run is not recorded",
            outside::relay::RELAY_VAR
        );
    }
    // An enclosing level asked for a trail that this run cannot reach. Say so; it still runs.
    #[cfg(target_os = "linux")]
    if channel.is_none()
        && unchecked.is_none()
        && let Some(named) = env.get(outside::relay::CHANNEL_VAR)
        && !matches!(action, Action::Explain { .. })
    {
        let _ = writeln!(
            std::io::stderr(),
            "sandbox-bash: warning: {}={} names no audit channel here (a program on the way closed the \
             descriptors it inherited, as Python's subprocess does by default): this run is not recorded",
            outside::relay::CHANNEL_VAR,
            named.to_string_lossy()
        );
    }
    #[cfg(not(target_os = "linux"))]
    let channel: Option<i32> = None;
    let audit_paths: Vec<String> = env
        .get(audit::AUDIT_VAR)
        .map(|p| p.to_string_lossy().into_owned())
        .into_iter()
        .chain(config.audit_log.as_ref().map(|l| l.path.clone()))
        .filter(|p| !p.is_empty() && channel.is_none())
        .flat_map(|raw| {
            // Where it really is too: a link on the way (`dir/link/../log`) leads elsewhere than
            // the lexical path says.
            let joined = std::path::Path::new(&cwd).join(&raw);
            let real = joined.parent().and_then(|d| {
                let name = joined.file_name()?.to_string_lossy().into_owned();
                exec::canonicalize(&d.to_string_lossy()).ok().map(|d| format!("{}/{name}", d.trim_end_matches('/')))
            });
            let p = scope::normalize(&cwd, &raw);
            let real = real.filter(|r| *r != p);
            std::iter::once(p).chain(real)
        })
        .collect();
    let mut log_writable: Option<String> = None;
    if !matches!(action, Action::Explain { .. }) {
        for n in &audit_paths {
            if layout.is_protected(n) || layout.is_credential(n) {
                return Err(Error::Audit(format!(
                    "refusing to write the audit log to {n}: it is a protected or credential path, and the program \
                     text in the records would run later"
                )));
            }
            if std::fs::symlink_metadata(n).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(Error::Audit(format!(
                    "refusing to write the audit log to {n}: it is a symbolic link; name the file it leads to"
                )));
            }
            // A mode that writes the system writes every tree: no place is left that a log
            // could be kept from commands in, and the records say so instead.
            if allowed.has(mode::Scope::System, Perm::Write) {
                log_writable = Some(format!(
                    "the audit log {n} lies where mode {allowed} lets commands write (a mode with system write \
                     leaves no place they cannot): these records can be changed by the commands they record"
                ));
            } else if let Some(tree) = writable_tree(&layout, allowed, n) {
                let place = match tree {
                    scope::Class::Scratch => "scratch (/tmp or $TMPDIR)".to_string(),
                    scope::Class::Workspace => format!("the workspace {}", layout.workspace),
                    class => format!("the {} scope", class.scope().map_or("scratch", |s| s.name())),
                };
                return Err(Error::Audit(format!(
                    "refusing to write the audit log to {n}: it lies in {place}, which mode {allowed} lets commands \
                     write, so a command could move it away and put another in its place; name a log where mode \
                     {allowed} gives commands no write (a system directory such as /var/log, unless the mode writes \
                     the system)"
                )));
            }
        }
    }
    layout.extra_credentials.extend(audit_paths);
    // The agents' sessions' sockets: no command reaches another session's proxy (connecting
    // to a socket by path is beyond Landlock). The directory is made now, so that it is
    // masked even when the first proxy comes after this run started.
    #[cfg(target_os = "linux")]
    {
        layout.sessions = sessions_dirs(env, &layout);
        layout.extra_credentials.extend(layout.sessions.iter().cloned());
    }

    let bash = find_bash();
    let mut exec_args: Vec<OsString> = vec![argv0.clone()];
    let decision = match &parsed {
        Parsed::Informational => {
            exec_args.extend(bash_args.iter().cloned());
            None
        }
        Parsed::UsageError { keep, then_stop } => {
            // bash rejects these arguments before running anything; let it say so in its own
            // words, and make sure nothing after the offending argument can run.
            exec_args.extend(bash_args[..(*keep).min(bash_args.len())].iter().cloned());
            if *then_stop {
                exec_args.push("-n".into());
            }
            None
        }
        Parsed::Run(inv) => {
            exec_args.extend(bash_args.iter().cloned());
            let asked = bash.as_ref().ok().map(|b| b.as_path());
            Some(decide(&argv0, inv, allowed, &layout, env, &cwd, asked)?)
        }
    };

    // Help, version and usage errors run no program: they get a decision that allows bash.
    let decision = decision.unwrap_or_else(|| Decision {
        source: "command",
        cwd: cwd.clone(),
        workspace: layout.workspace.clone(),
        allowed,
        required: Mode::NONE,
        verdict: Verdict::Allow,
        analysis: Analysis::default(),
        note: Some("bash prints its help, version or a usage error and runs nothing".into()),
        script: None,
        script_bytes: None,
        program: String::new(),
        hosts_refused: Vec::new(),
        client_files: Vec::new(),
        relaxed: plain::Relaxed::default(),
        inherited: Vec::new(),
    });

    // Hosts the program names that the list refuses are denied before anything runs, in the
    // proxy's words.
    let mut decision = decision;
    if let NetPlan::Proxy(list) | NetPlan::Enclosed(_, list) = &net {
        refuse_hosts(&mut decision, list);
    }

    if let Action::Explain { json } = action {
        // Possible accesses the mode does not allow rest on the rules this run would get: say
        // here what the run would find.
        let decision = match (&bash, &decision.verdict) {
            (Ok(real), Verdict::Allow) if has_pending(&decision) => {
                let layout = sandbox::with_programs(&layout, real);
                let policy =
                    sandbox::plan_here(allowed, &layout, real, env.get("PATH"), outer.is_some(), extra(&config));
                let (_, shortfalls) = sandbox::kernel_facts(&policy);
                let facts = sandbox::namespace_facts(&policy, &layout, env, &config.keep_env, outer.is_some());
                let (view, no_view) = match &facts {
                    Some((view, Ok(()))) => (Some(view), None),
                    Some((_, Err(why))) => (None, Some(why.clone())),
                    None => (None, None),
                };
                let holding =
                    sandbox::Holding { enforced: shortfalls.is_empty(), policy: Some(&policy), view, no_view };
                unheld_possible(&decision, &holding).unwrap_or(decision)
            }
            _ => decision,
        };
        #[cfg_attr(not(target_os = "linux"), allow(unused_mut))]
        let mut decision = decision;
        #[cfg(target_os = "linux")]
        {
            decision.inherited = inherited::taken()
                .iter()
                .map(|d| {
                    let what = match inherited::judge(
                        d,
                        allowed,
                        &layout,
                        &config.sockets,
                        matches!(net, NetPlan::Proxy(_)),
                    ) {
                        inherited::Verdict::Kept => "kept".to_string(),
                        inherited::Verdict::Closed { needs, why } if needs == Mode::NONE => format!("closed: {why}"),
                        inherited::Verdict::Closed { needs, why } => format!("closed: {why} (it needs {needs})"),
                    };
                    format!("{}: {}: {what}", d.fd, d.shown())
                })
                .collect();
        }
        let mut text = if json { decision.json() + "\n" } else { decision.text() };
        // A run would be refused, not denied: say so, with the same words and status.
        if let Some(message) = network_refusal(&decision, requested, &net) {
            if !json {
                text.push_str(&format!("sandbox-bash: {message}\n"));
            }
            return Ok(Outcome::Explain(text, report::REFUSED));
        }
        return Ok(Outcome::Explain(text, decision.verdict.status()));
    }

    // The audit log is opened before anything is locked: the kernel rules need not reach it.
    // The caller's variable and the system file may name any file; a user file only the
    // caller's own.
    // Inside an enclosing level that writes a log, the records go through its relay, whatever
    // this level's environment says: the command cannot send them elsewhere.
    #[cfg(target_os = "linux")]
    let relayed = channel.map(audit::Log::relayed);
    #[cfg(not(target_os = "linux"))]
    let relayed: Option<audit::Log> = channel.and(None);
    let mut audit = match (relayed, env.get(audit::AUDIT_VAR), &config.audit_log) {
        (Some(relayed), _, _) => Some(relayed),
        (None, Some(path), _) => Some(audit::Log::open(path).map_err(Error::Audit)?),
        (None, None, Some(log)) if log.by_system => {
            Some(audit::Log::open(OsStr::new(&log.path)).map_err(Error::Audit)?)
        }
        (None, None, Some(log)) => Some(audit::Log::open_owned(&log.path, &log.named_by).map_err(Error::Audit)?),
        (None, None, None) => None,
    };
    // The agent session of the run (see `outside::session`): this outermost level's, or the
    // enclosing level's, whose id it was given.
    #[cfg(target_os = "linux")]
    let session = outer.is_none().then(|| session_of(env, &layout, allowed, &net));
    #[cfg(target_os = "linux")]
    if let Some(log) = audit.as_mut() {
        let id = session.as_ref().map(|s| s.id.clone());
        log.set_session(id.or_else(|| env.get(outside::session::MARKER_VAR).map(|v| v.to_string_lossy().into_owned())));
    }
    // The records of nested invocations: a relay of this level's own for a log it writes, or
    // the enclosing level's channel passed on.
    let audit_for_nested = match audit.as_ref() {
        Some(l) if l.is_relayed() => Some(Nested::PassOn(l.raw_fd())),
        Some(l) => Some(Nested::Relay(Some(l.try_clone().map_err(Error::Audit)?))),
        None => None,
    };
    let mut log =
        |verdict: &str, enforcement: &str, error: Option<&str>, static_only: &[String]| -> Result<(), Error> {
            let with_log: Vec<String>;
            let static_only = match &log_writable {
                Some(note) => {
                    with_log = static_only.iter().cloned().chain([note.clone()]).collect();
                    &with_log[..]
                }
                None => static_only,
            };
            match audit.as_mut() {
                Some(log) => log.record(&decision, verdict, enforcement, error, static_only).map_err(Error::Audit),
                None => Ok(()),
            }
        };

    match &decision.verdict {
        Verdict::Allow => {}
        Verdict::BashFails { error, message, status } => {
            log("error", "none", Some(error), &[])?;
            return Ok(Outcome::BashFails(message.clone(), *status));
        }
        Verdict::Deny if let Some(message) = network_refusal(&decision, requested, &net) => {
            log("error", "none", Some(&message), &[])?;
            return Err(Error::Refused(message));
        }
        Verdict::Deny => {
            log("deny", "none", decision.analysis.failure.as_ref().map(|f| f.message.as_str()), &[])?;
            // Say when it is the administrator's ceiling that took a needed bit away.
            let ceiling = config.max_mode.and_then(|ceiling| {
                let cut = Mode(decision.required.0 & requested.0 & !ceiling.0);
                (cut != Mode::NONE).then(|| {
                    format!(
                        "the administrator's ceiling max_mode={ceiling} ({}) removed {cut} from the requested mode \
                         {requested}",
                        config::SYSTEM_FILE
                    )
                })
            });
            return Ok(Outcome::Deny(Box::new(decision), ceiling));
        }
    }
    let to_run = ToRun {
        decision: &decision,
        layout: &layout,
        exec_args: &exec_args,
        modes: Modes { requested, allowed, outer, degraded_ok },
        config: &config,
        env,
        net: &net,
        #[cfg(target_os = "linux")]
        session: session.as_ref(),
    };
    let result = lock_and_exec(&to_run, bash, audit_for_nested, &mut log);
    // Only failures come back: record them (the record of a run is written before exec).
    if let Err(e) = &result
        && !matches!(e, Error::Audit(_))
    {
        log("error", "none", Some(&e.to_string()), &[])?;
    }
    result
}

/// Writes one audit record (verdict, enforcement status, error, what only the static layer
/// holds), or nothing when no log is set.
type AuditWriter<'a> = dyn FnMut(&str, &str, Option<&str>, &[String]) -> Result<(), Error> + 'a;

/// The modes of one invocation.
#[derive(Clone, Copy, Debug)]
struct Modes {
    /// What the caller asked for (or the configured default).
    requested: Mode,
    /// What is allowed: the request within the enclosing sandbox-bash's mode and the ceiling.
    allowed: Mode,
    /// The enclosing sandbox-bash's mode, when there is one.
    outer: Option<Mode>,
    /// Running with a kernel layer that cannot enforce everything is allowed.
    degraded_ok: bool,
}

/// A program the static layer allowed, with what running it needs.
struct ToRun<'a> {
    decision: &'a Decision,
    layout: &'a Layout,
    /// bash's argv, `argv[0]` first.
    exec_args: &'a [OsString],
    modes: Modes,
    config: &'a config::Config,
    env: &'a Environ,
    net: &'a NetPlan,
    /// The agent session of an outermost level.
    #[cfg(target_os = "linux")]
    session: Option<&'a outside::session::Session>,
}

/// How the records of nested invocations reach the log.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
enum Nested {
    /// This level writes the log: a relay of its own, with this descriptor of the log (taken
    /// by the supervisor that holds it).
    Relay(Option<audit::Log>),
    /// The enclosing level's channel, this descriptor, goes on to the command.
    PassOn(i32),
}

/// Locks this process with the kernel and execs the real bash; returns only when it does not
/// exec: a possible access the rules in force do not hold (a denial), or an error. The audit
/// record (when asked for) is written after the rules hold and before exec.
fn lock_and_exec(
    to_run: &ToRun<'_>,
    bash: Result<std::path::PathBuf, Error>,
    nested: Option<Nested>,
    log: &mut AuditWriter<'_>,
) -> Result<Outcome, Error> {
    let ToRun { decision, layout, exec_args, modes, config, env, net, .. } = *to_run;
    #[cfg(target_os = "linux")]
    let session = to_run.session;
    let Modes { requested, mut allowed, outer, degraded_ok } = modes;
    let bash = bash?;
    // bash reads the script again: it must still be the file that was analysed.
    if let Some(script) = decision.script.as_ref()
        && !script.unchanged()
    {
        return Err(Error::ScriptChanged(script.path.display().to_string()));
    }

    // What the caller left open and the mode does not give is closed before anything is
    // started or locked (the proxy and the relay would inherit it too).
    let by_host = matches!(net, NetPlan::Proxy(_));
    // A nested level's connection to the audit relay (made by a level above, at the relay's
    // socket in the state directory, which no command can write) stays.
    let var = |name: &str| env.get(name).map(|v| v.to_string_lossy().into_owned());
    let relays = caches::state_dir(layout.home.as_deref(), &var).map(|s| format!("{s}/relays"));
    let reachable: Vec<String> = config.sockets.iter().cloned().chain(relays).collect();
    #[cfg(target_os = "linux")]
    inherited::close(allowed, layout, &reachable, by_host);
    #[cfg(not(target_os = "linux"))]
    let _ = (reachable, by_host);

    // Lock first, then exec: bash and everything it starts inherit the rules.
    let frozen = match (decision.script.as_ref(), decision.script_bytes.as_ref()) {
        (Some(identity), Some((path, bytes))) => {
            Some(sandbox::view::Frozen { path, bytes, identity: identity.node(), mode: identity.permissions() })
        }
        _ => None,
    };
    // What runs outside is started before anything is locked, so that it is outside all of
    // it: first the supervisor (the audit log of this level and the agent session's signals),
    // then the proxy, whose refusals go to the supervisor.
    #[cfg(target_os = "linux")]
    let (own_log, nested) = match nested {
        Some(Nested::Relay(log)) => (log, Some(Nested::Relay(None))),
        other => (None, other),
    };
    #[cfg(target_os = "linux")]
    let (supervisor, supervisor_missing) = start_supervisor(to_run, own_log)?;
    #[cfg(target_os = "linux")]
    let signals = supervisor.as_ref().is_some_and(|s| s.1);
    #[cfg(target_os = "linux")]
    let mut supervisor = supervisor.map(|s| s.0);
    // The command's end of the audit channel, and the relay's socket: this level's, or the
    // enclosing level's passed on.
    #[cfg(target_os = "linux")]
    let (channel, relay_path): (Option<(Option<std::os::fd::OwnedFd>, i32)>, Option<String>) = match &nested {
        Some(Nested::Relay(_)) => match supervisor.as_mut() {
            Some(s) => {
                let fd = s.channel.take();
                let raw = fd.as_ref().map(std::os::fd::AsRawFd::as_raw_fd);
                (fd.zip(raw).map(|(fd, raw)| (Some(fd), raw)), s.relay_path.clone())
            }
            None => (None, None),
        },
        Some(Nested::PassOn(raw)) => (
            Some((None, *raw)),
            env.get(outside::relay::RELAY_VAR).map(|p| p.to_string_lossy().into_owned()).filter(|p| p.starts_with('/')),
        ),
        None => (None, None),
    };
    #[cfg(not(target_os = "linux"))]
    let _ = nested;
    // A later call of an agent session joins the session's namespace and proxy instead, when
    // they live.
    #[cfg(target_os = "linux")]
    let registry = session.and_then(|s| {
        let var = |name: &str| env.get(name).map(|v| v.to_string_lossy().into_owned());
        // Its directory was made with the layout (see `sessions_dirs`).
        let state = caches::state_dir(layout.home.as_deref(), &var)?;
        let state = exec::canonicalize(&state).ok()?;
        Some(proxy::registry::path(&state, &s.id))
    });
    #[cfg(target_os = "linux")]
    let mut joined: Option<(std::os::fd::OwnedFd, u16)> = None;
    #[cfg(target_os = "linux")]
    let (proxy, loopback) = match net {
        NetPlan::Proxy(list) => {
            let sockets = sandbox::netns::inherited_network_sockets().map_err(Error::Refused)?;
            if !sockets.is_empty() {
                let fds: Vec<String> = sockets.iter().map(i32::to_string).collect();
                return Err(Error::Refused(format!(
                    "descriptor {} is a network socket made outside the sandbox: through it the command would \
                     reach the network around the allowlist; start sandbox-bash without it (close it, or mark it \
                     close-on-exec)",
                    fds.join(", ")
                )));
            }
            joined = registry.as_deref().and_then(|p| proxy::registry::join(p).ok());
            if joined.is_some() {
                (None, Some(list.loopback()))
            } else {
                let access = if allowed.has(mode::Scope::Network, Perm::Write) {
                    proxy::Access::Write
                } else {
                    proxy::Access::Read
                };
                // Its refusals: to this level's supervisor, or through the enclosing level's
                // channel (a copy of its own).
                let records = match (&nested, supervisor.as_mut()) {
                    (Some(Nested::Relay(_)), Some(s)) => s.proxy_records.take(),
                    (Some(Nested::PassOn(raw)), _) => {
                        // SAFETY: the channel's descriptor, open for this whole run; only borrowed.
                        let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(*raw) };
                        borrowed.try_clone_to_owned().ok()
                    }
                    _ => None,
                };
                let spawned = proxy::spawn(list.clone(), access, records, registry).map_err(Error::Refused)?;
                (Some(spawned), Some(list.loopback()))
            }
        }
        _ => (None, None),
    };
    #[cfg(not(target_os = "linux"))]
    let loopback: Option<Vec<u16>> = None;
    // The snapshot the program takes: created now, so that the kernel can grant that one file.
    // What a plain program earns goes to the view with it.
    let snapshots = create_client_files(layout, &decision.client_files);
    let with_snapshots;
    let layout = if snapshots.is_empty() && decision.relaxed == plain::Relaxed::default() {
        layout
    } else {
        with_snapshots = Layout { client_files: snapshots, relaxed: decision.relaxed.clone(), ..layout.clone() };
        &with_snapshots
    };
    #[cfg_attr(not(target_os = "linux"), allow(unused_mut))]
    let mut locked = sandbox::lock(sandbox::Lock {
        allowed,
        requested,
        outer,
        degraded_ok,
        layout,
        real_bash: &bash,
        env,
        // The run's own relay stays reachable for its nested levels.
        extra: sandbox::policy::Extra {
            sockets: {
                #[cfg(target_os = "linux")]
                let own = relay_path.clone();
                #[cfg(not(target_os = "linux"))]
                let own: Option<String> = None;
                config.sockets.iter().cloned().chain(own).collect()
            },
            ..extra(config)
        },
        keep_env: &config.keep_env,
        require_namespaces: config.require_namespaces,
        frozen,
        network: loopback.as_deref(),
        #[cfg(target_os = "linux")]
        join: joined.as_ref().map(|(fd, _)| fd),
        #[cfg(target_os = "linux")]
        signals,
        #[cfg(not(target_os = "linux"))]
        signals: false,
    })?;
    #[cfg(target_os = "linux")]
    if let Some(supervisor) = supervisor {
        supervisor.hand_over(locked.signals.take()).map_err(Error::Refused)?;
    }
    // No network namespace: no network at all.
    match &locked.network {
        sandbox::NetworkLayer::NotAsked => {}
        #[cfg(target_os = "linux")]
        sandbox::NetworkLayer::Held(_) | sandbox::NetworkLayer::Joined => {}
        sandbox::NetworkLayer::Unavailable(why) => {
            allowed = Mode(allowed.0 & !NETWORK_BITS.0);
            if let Some(message) = network_refusal(decision, requested, &NetPlan::Off(why.clone())) {
                return Err(Error::Refused(message));
            }
        }
    }
    // What the mode does not allow but the program only possibly does rests on the rules now
    // in force: each such access must be held by them, or the program is denied after all.
    if let Some(denial) = unheld_possible(decision, &locked.holding()) {
        log("deny", "none", Some("a possible access the rules in force do not hold"), &locked.static_only)?;
        return Ok(Outcome::Deny(Box::new(denial), None));
    }
    let sandbox::Locked { outcome, static_only, namespaces, network, .. } = locked;
    // The proxy gets its listeners; its port goes to the command.
    #[cfg(target_os = "linux")]
    let proxy_port = match (proxy, network, &joined) {
        (Some(spawned), sandbox::NetworkLayer::Held(handover), _) => {
            let port = handover.port;
            spawned.hand_over(handover).map_err(Error::Refused)?;
            Some(port)
        }
        // The session's namespace, joined: its proxy's port.
        (None, sandbox::NetworkLayer::Joined, Some((_, port))) => Some(*port),
        _ => None,
    };
    #[cfg(not(target_os = "linux"))]
    let proxy_port: Option<u16> = {
        let _ = network;
        None
    };
    let enforcement = if !outcome.shortfalls.is_empty() {
        "degraded"
    } else if outcome.layer_limit {
        "outer layers"
    } else {
        "enforced"
    };
    if !outcome.shortfalls.is_empty() {
        let missing: Vec<String> = outcome.shortfalls.iter().map(|s| format!("{} ({})", s.what, s.why)).collect();
        let _ = writeln!(
            std::io::stderr(),
            "sandbox-bash: warning: running degraded ({}=1): not enforced: {}",
            sandbox::DEGRADED_VAR,
            missing.join("; ")
        );
    }
    // Secrets are removed from the command's environment; the outermost level names them once,
    // so that an empty variable is not a mystery (and the record says so too).
    let removed: Vec<String> = if outer.is_none() {
        hygiene::removed_names(env, &config.keep_env)
            .into_iter()
            .filter(|n| !n.starts_with(hygiene::CONTROL_PREFIX))
            .collect()
    } else {
        Vec::new()
    };
    let mut static_only = static_only;
    #[cfg(target_os = "linux")]
    static_only.extend(supervisor_missing);
    if !removed.is_empty() {
        let line = format!(
            "removed from the command's environment because their names or values look secret: {} (keep one with \
             [environment] keep in the configuration)",
            removed.join(" ")
        );
        let _ = writeln!(std::io::stderr(), "sandbox-bash: note: {line}");
        static_only.push(line);
    }
    log("allow", enforcement, None, &static_only)?;
    // Secrets and sandbox-bash's own settings stay behind; the enforced mode goes along.
    let mut enforced = format!("{}=", sandbox::ENFORCED_VAR).into_bytes();
    let held_list = match (net, proxy_port) {
        (NetPlan::Proxy(list), Some(_)) => Some(
            (1..=list.layers.len())
                .map(|n| fingerprint(&allowlist::Allowlist { layers: list.layers[..n].to_vec() }))
                .collect::<Vec<_>>()
                .join("."),
        ),
        (NetPlan::Enclosed(fp, _), _) => Some(fp.clone()),
        _ => None,
    };
    enforced.extend_from_slice(
        sandbox::enforced_value(allowed, &layout.workspace, namespaces, held_list.as_deref()).as_bytes(),
    );
    let enforced = std::ffi::CString::new(enforced).map_err(|_| Error::Exec {
        path: bash.clone(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "the workspace path contains a NUL byte"),
    })?;
    // The proxy's variables: this level's, or the enclosing level's as they came (a nested run
    // is inside the enclosing namespace, whose proxy is its way out).
    let proxy_vars: Vec<std::ffi::CString> = match (proxy_port, net) {
        #[cfg(target_os = "linux")]
        (Some(port), _) => proxy::variables(port)
            .into_iter()
            .filter_map(|(n, v)| std::ffi::CString::new(format!("{n}={v}")).ok())
            .collect(),
        #[cfg(target_os = "linux")]
        (None, _) if outer.is_some() => proxy::variable_names()
            .into_iter()
            .filter_map(|n| env.get(n).map(|v| (n, v)))
            .filter_map(|(n, v)| {
                let mut entry = format!("{n}=").into_bytes();
                entry.extend_from_slice(v.as_bytes());
                std::ffi::CString::new(entry).ok()
            })
            .collect(),
        _ => Vec::new(),
    };
    #[cfg(target_os = "linux")]
    let replaced: Vec<&str> = if proxy_port.is_some() || outer.is_some() {
        std::iter::once(sandbox::ENFORCED_VAR).chain(proxy::variable_names()).collect()
    } else {
        vec![sandbox::ENFORCED_VAR]
    };
    #[cfg(not(target_os = "linux"))]
    let replaced: Vec<&str> = vec![sandbox::ENFORCED_VAR];
    #[cfg(target_os = "linux")]
    let replaced: Vec<&str> = replaced.into_iter().chain([outside::relay::CHANNEL_VAR]).collect();
    let mut command_env = hygiene::command_environment(env, &replaced, &config.keep_env);
    command_env.push(&enforced);
    // The command's end of the audit channel, inherited across exec.
    #[cfg(target_os = "linux")]
    let channel_var = match &channel {
        Some((owned, raw)) => {
            if let Some(fd) = owned {
                outside::relay::inherit(fd).map_err(Error::Audit)?;
            }
            std::ffi::CString::new(format!("{}={raw}", outside::relay::CHANNEL_VAR)).ok()
        }
        None => None,
    };
    #[cfg(target_os = "linux")]
    command_env.extend(channel_var.as_deref());
    #[cfg(target_os = "linux")]
    let relay_var = relay_path.and_then(|p| std::ffi::CString::new(format!("{}={p}", outside::relay::RELAY_VAR)).ok());
    #[cfg(target_os = "linux")]
    command_env.extend(relay_var.as_deref());
    command_env.extend(proxy_vars.iter().map(|v| v.as_c_str()));
    // The session's id goes to every process of the run: this level's, or the enclosing one's.
    #[cfg(target_os = "linux")]
    let marker = match session {
        Some(s) => std::ffi::CString::new(format!("{}={}", outside::session::MARKER_VAR, s.id)).ok(),
        None => env.get(outside::session::MARKER_VAR).and_then(|v| {
            let mut entry = format!("{}=", outside::session::MARKER_VAR).into_bytes();
            entry.extend_from_slice(v.as_bytes());
            std::ffi::CString::new(entry).ok()
        }),
    };
    #[cfg(target_os = "linux")]
    command_env.extend(marker.as_deref());
    Err(exec::exec(&bash, exec_args, &command_env))
}

/// The supervisor of this run (see [`outside`]), when it has a job: the audit log this level
/// writes (`own_log`), or the signals of an agent session whose program may send them. With
/// it, whether it serves the signals; without it, for a session, why not (the run goes on; its
/// calls cannot signal each other's processes, and the record says so). A log that cannot be
/// kept is an error: the user asked for a trail.
#[cfg(target_os = "linux")]
type Started = (Option<(outside::Supervisor, bool)>, Option<String>);

#[cfg(target_os = "linux")]
fn start_supervisor(to_run: &ToRun<'_>, own_log: Option<audit::Log>) -> Result<Started, Error> {
    let session = to_run.session.filter(|_| sends_signals(to_run.decision)).cloned();
    let writes_log = own_log.is_some();
    if !writes_log && session.is_none() {
        return Ok((None, None));
    }
    let var = |name: &str| to_run.env.get(name).map(|v| v.to_string_lossy().into_owned());
    let state = caches::state_dir(to_run.layout.home.as_deref(), &var).and_then(|s| exec::canonicalize(&s).ok());
    let proxy = matches!(to_run.net, NetPlan::Proxy(_));
    let signals = session.is_some();
    let audit = own_log.map(|log| outside::Audit { log, state, proxy });
    match outside::spawn(outside::Jobs { audit, session }) {
        Ok(s) => Ok((Some((s, signals)), None)),
        Err(why) if writes_log => Err(Error::Audit(why)),
        Err(why) => {
            Ok((None, Some(format!("the calls of this agent session cannot signal each other's processes: {why}"))))
        }
    }
}

/// Programs that send signals to processes they name.
#[cfg(target_os = "linux")]
const SIGNAL_SENDERS: &[&str] = &["kill", "pkill", "killall", "fuser", "skill", "pidof", "killpg"];

/// Whether the program may signal a process it did not start: it names a program that sends
/// signals, or runs code the analysis cannot see (workspace execute: an interpreter, a build
/// tool, a script, a name that is not static), or comes on standard input or interactively.
#[cfg(target_os = "linux")]
fn sends_signals(decision: &Decision) -> bool {
    decision.source != "command" && decision.source != "script"
        || decision.required.has(mode::Scope::Workspace, Perm::Execute)
        || decision.analysis.commands.iter().any(|c| c.name.as_deref().is_none_or(|n| SIGNAL_SENDERS.contains(&n)))
}

/// How many new snapshot files one program may name (an agent's shell takes one).
const MAX_SNAPSHOTS: usize = 4;

/// The tree `log` lies in when the mode lets commands write it (scratch always).
fn writable_tree(layout: &Layout, allowed: Mode, log: &str) -> Option<scope::Class> {
    match layout.classify(log, true) {
        scope::Class::Scratch => Some(scope::Class::Scratch),
        class => class.scope().filter(|s| allowed.has(*s, Perm::Write)).map(|_| class),
    }
}

/// Creates the new files `files` (empty, mode 0600), each in its agent's directory reached by
/// no link and still the directory that was examined, and returns those it created with their
/// device and inode: a file that appeared meanwhile, or a directory swapped since, is not this
/// run's and gets no rule.
fn create_client_files(layout: &Layout, files: &[String]) -> Vec<(String, (u64, u64))> {
    use std::os::unix::fs::MetadataExt;
    let create = |file: &String| -> Option<(String, (u64, u64))> {
        let path = std::path::Path::new(file);
        let (dir, name) = (path.parent()?, path.file_name()?);
        let examined = layout.client_state.iter().find(|(d, _)| std::path::Path::new(d) == dir)?.1;
        let d = exec::open_dir_no_links(dir).ok()?;
        let m = d.metadata().ok()?;
        if (m.dev(), m.ino()) != examined {
            return None;
        }
        let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
        let f = exec::open_in(&d, name, flags, 0o600).ok()?.metadata().ok()?;
        Some((file.clone(), (f.dev(), f.ino())))
    };
    files.iter().filter_map(create).collect()
}

/// Whether some possible access of `decision` needs a bit the mode does not allow.
fn has_pending(decision: &Decision) -> bool {
    decision.analysis.accesses.iter().any(|a| pending(decision, a))
}

/// Whether `access` is possible and needs a bit the mode of `decision` does not allow.
fn pending(decision: &Decision, access: &Access) -> bool {
    access.bound().is_some() && !decision.allowed.covers(Mode::bit(access.scope, access.perm))
}

/// The decision as it stands once the rules are in force, when a possible access the mode does
/// not allow is not held by them: that access is then required, with the reason it is.
fn unheld_possible(decision: &Decision, holding: &sandbox::Holding<'_>) -> Option<Decision> {
    let mut after = decision.clone();
    let mut unheld = false;
    for access in &mut after.analysis.accesses {
        if !pending(decision, access) {
            continue;
        }
        if let Err(why) = holding.holds(access) {
            access.reason = format!("{} (possible, and {why}, so it needs its bit)", access.reason);
            access.certainty = analysis::Certainty::Known;
            unheld = true;
        }
    }
    if !unheld {
        return None;
    }
    after.required = after.analysis.required();
    after.verdict = Verdict::Deny;
    Some(after)
}

/// What the configuration adds to the kernel rules.
fn extra(config: &config::Config) -> sandbox::policy::Extra {
    sandbox::policy::Extra {
        config_files: config.files.clone(),
        runtime_read: config.runtime_read.clone(),
        runtime_execute: config.runtime_execute.clone(),
        ceiling: config.max_mode,
        sockets: config.sockets.clone(),
    }
}

/// The directories where agent sessions' proxies listen (see [`proxy::registry`]): this
/// environment's, made when missing, and the home's default when it is another.
#[cfg(target_os = "linux")]
fn sessions_dirs(env: &Environ, layout: &Layout) -> Vec<String> {
    let var = |name: &str| env.get(name).map(|v| v.to_string_lossy().into_owned());
    let none = |_: &str| None;
    let mut out: Vec<String> = Vec::new();
    for state in [caches::state_dir(layout.home.as_deref(), &var), caches::state_dir(layout.home.as_deref(), &none)]
        .into_iter()
        .flatten()
    {
        let dir = format!("{state}/sessions");
        if out.is_empty() {
            let mut b = std::fs::DirBuilder::new();
            std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
            let _ = b.recursive(true).create(&dir);
        }
        if !out.contains(&dir) && std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
            out.push(dir);
        }
    }
    out
}

/// The agent session of an outermost level's run (see [`outside::session`]).
#[cfg(target_os = "linux")]
fn session_of(env: &Environ, layout: &Layout, allowed: Mode, net: &NetPlan) -> outside::session::Session {
    let list = match net {
        NetPlan::Proxy(list) => Some(fingerprint(list)),
        _ => None,
    };
    let name = env.get(outside::session::NAME_VAR).map(|v| v.to_string_lossy().into_owned());
    outside::session::Session::of(
        name.as_deref(),
        exec::ppid(),
        exec::uid(),
        &layout.workspace,
        &allowed.to_string(),
        list.as_deref(),
    )
}

/// The declaration `--sandbox-info` prints.
fn sandbox_info(
    policy: &sandbox::policy::Policy,
    layout: &Layout,
    modes: &Modes,
    config: &config::Config,
    net: &NetPlan,
    env: &Environ,
) -> sandbox::info::Info {
    let Modes { requested, allowed, outer, degraded_ok } = *modes;
    #[cfg(target_os = "linux")]
    let session = outer.is_none().then(|| session_of(env, layout, allowed, net)).map(|s| (s.id, s.client));
    #[cfg(not(target_os = "linux"))]
    let session = {
        let _ = allowed;
        None
    };
    let (abi, shortfalls) = sandbox::kernel_facts(policy);
    let layer = sandbox::namespace_facts(policy, layout, env, &config.keep_env, outer.is_some());
    let caller_is_root = exec::euid() == 0;
    let facts = sandbox::info::Facts {
        backend: sandbox::BACKEND,
        landlock_abi: abi,
        shortfalls: &shortfalls,
        degraded_ok,
        requested,
        outer,
        caller_is_root,
        removed_environment: hygiene::removed_names(env, &config.keep_env),
        config_files: config.files.clone(),
        ceiling: config.max_mode,
        layer: layer.as_ref().map(|(view, held)| (view, held.clone())),
        network_list: match net {
            NetPlan::Open => None,
            NetPlan::Proxy(list) => Some(Ok(list.layers.iter().map(|l| l.source.clone()).collect())),
            NetPlan::Enclosed(..) => Some(Ok(vec!["the enclosing sandbox-bash's".into()])),
            NetPlan::Off(why) => Some(Err(why.clone())),
        },
        session,
    };
    sandbox::info::build(policy, layout, &facts)
}

/// The workspace root: `explicit` (`SANDBOX_BASH_WORKSPACE`, the configuration's, or an
/// enclosing level's), else the top of the git work tree that holds `cwd` (a `.git` entry,
/// looked for upwards without running git) below any of `homes`, else `cwd`.
pub fn find_workspace(cwd: &str, explicit: Option<&OsStr>, homes: &[String]) -> Result<String, Error> {
    let chosen = match explicit {
        Some(value) => {
            let text = value.to_string_lossy().into_owned();
            let abs = scope::normalize(cwd, &text);
            let canonical =
                exec::canonicalize(&abs).map_err(|e| Error::Workspace { path: text.clone(), why: e.to_string() })?;
            if !std::path::Path::new(&canonical).is_dir() {
                return Err(Error::Workspace { path: text, why: "not a directory".into() });
            }
            canonical
        }
        None => {
            let mut dir = cwd.to_string();
            let mut found = None;
            loop {
                // A repository at the home or above it (a home kept in git) is not the
                // workspace of the directories below: the home is never one by default.
                if dir == "/" || homes.iter().any(|h| scope::is_within(h, &dir)) {
                    break;
                }
                if std::fs::symlink_metadata(format!("{dir}/.git")).is_ok() {
                    found = Some(dir.clone());
                    break;
                }
                dir = match dir.rfind('/') {
                    Some(0) | None => "/".into(),
                    Some(i) => dir[..i].to_string(),
                };
            }
            found.unwrap_or_else(|| cwd.to_string())
        }
    };
    if !scope::acceptable_workspace(&chosen) {
        return Err(Error::Workspace {
            path: chosen,
            why: "it is the filesystem root or a system directory, which would make the whole system the workspace"
                .into(),
        });
    }
    Ok(chosen)
}

fn canonical_or_normal(path: &str) -> String {
    match exec::canonicalize(path) {
        Ok(p) => p,
        Err(_) => scope::normalize("/", path),
    }
}

/// The places that decide scopes: workspace, home, temporary directory.
/// The places that decide scopes for a run under `allowed`; with `run`, the directories the
/// caches' layers need are made (explaining and describing change nothing).
fn layout(
    config: &config::Config,
    env: &Environ,
    cwd: &str,
    argv0: &OsStr,
    allowed: Mode,
    layers_for: &str,
    run: bool,
) -> Result<Layout, Error> {
    // An explicit setting, else the configuration's, else the workspace an enclosing
    // sandbox-bash worked in (nested invocations keep it), else the git work tree or the cwd.
    let explicit = env
        .get(WORKSPACE_VAR)
        .map(OsStr::to_os_string)
        .or_else(|| config.workspace.as_ref().map(OsString::from))
        .or_else(|| sandbox::outer_workspace(env.get(sandbox::ENFORCED_VAR)));
    let home = env.get("HOME").filter(|h| !h.is_empty()).map(|h| canonical_or_normal(&h.to_string_lossy()));
    let homes: Vec<String> = [home.clone(), account_home(exec::uid())].into_iter().flatten().collect();
    let mut workspace = find_workspace(cwd, explicit.as_deref(), &homes)?;
    let mut no_workspace = false;
    // The home is never the workspace unless a setting says so (a start in the home, or in a
    // directory of it with no repository of its own below a home that is one): the workspace is
    // then an empty directory of sandbox-bash's own, which commands may not write, and the home
    // keeps the external bits.
    let state =
        caches::state_dir(home.as_deref(), &|name: &str| env.get(name).map(|v| v.to_string_lossy().into_owned()));
    let none = state.as_ref().map(|s| format!("{s}/{}", caches::NO_WORKSPACE));
    // A nested level is given the stand-in as its workspace.
    if none.as_deref().is_some_and(|n| canonical_or_normal(n) == workspace) {
        no_workspace = true;
    }
    if explicit.is_none()
        && homes.iter().any(|h| scope::is_within(h, &workspace))
        && let Some(none) = none
    {
        if run {
            let mut b = std::fs::DirBuilder::new();
            std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
            // Made when missing; where it cannot be (an enclosing view), nothing is there to search.
            let _ = b.recursive(true).create(&none);
        }
        workspace = canonical_or_normal(&none);
        no_workspace = true;
    }
    let path_dirs: Vec<String> = scope::path_dirs(env.get("PATH").map(OsStr::as_bytes)).collect();
    let tmpdir = env
        .get("TMPDIR")
        .filter(|raw| raw.as_bytes().starts_with(b"/"))
        .map(|raw| scope::normalize("/", &raw.to_string_lossy()))
        .filter(|t| scope::acceptable_tmpdir(t, home.as_deref(), &workspace))
        // Inside a PATH directory, which programs run from, it would not be scratch.
        .filter(|t| !path_dirs.iter().any(|d| d != "/" && scope::is_within(t, d)));
    let mut extra_protected = config.protected.clone();
    let xdg = env.get("XDG_CONFIG_HOME").map(|x| x.to_string_lossy().into_owned());
    extra_protected.extend(scope::protected_for(&path_dirs, xdg.as_deref(), &workspace, home.as_deref()));
    extra_protected.extend(later::git_indirections(&workspace, home.as_deref(), xdg.as_deref()));
    extra_protected.extend(later::named_by_settings(&workspace, home.as_deref()));
    // The configuration files read: changing one widens every later run.
    extra_protected.extend(config.files.iter().filter(|f| !scope::is_system_path(f)).cloned());
    // sandbox-bash itself: a command that replaced it would run unsandboxed at the next start.
    // So would one that pointed the link it was started through (`~/bin/bash`, a `SHELL`
    // setting) somewhere else.
    if let Some(me) = exec::self_exe() {
        extra_protected.push(me.to_string_lossy().into_owned());
        let started = argv0.to_string_lossy();
        let started = started.strip_prefix('-').unwrap_or(&started);
        let shell = env.get("SHELL").map(|s| s.to_string_lossy().into_owned());
        for entry in [Some(started), shell.as_deref()].into_iter().flatten() {
            if !entry.contains('/') {
                continue;
            }
            let path = scope::normalize(cwd, entry);
            let link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
            if link && exec::canonicalize(&path).is_ok_and(|real| std::path::Path::new(&real) == me) {
                extra_protected.push(path);
            }
        }
    }
    let mut extra_credentials = config.credentials.clone();
    if let Some(h) = home.as_deref() {
        link_targets(h, &workspace, &mut extra_credentials, &mut extra_protected);
    }
    // The account's own home when HOME names another: the next unsandboxed login reads its
    // start-up files and keys, whatever HOME the command was given.
    if let Some(own) = account_home(exec::uid())
        && home.as_deref().is_none_or(|h| h != own && canonical_or_normal(h) != own)
    {
        for entry in scope::HOME_CREDENTIALS {
            extra_credentials.push(format!("{own}/{entry}"));
        }
        for entry in scope::STARTUP_FILES.iter().chain(scope::home_protected()) {
            extra_protected.push(format!("{own}/{entry}"));
        }
        link_targets(&own, &workspace, &mut extra_credentials, &mut extra_protected);
    }
    let var = |name: &str| env.get(name).map(|v| v.to_string_lossy().into_owned());
    // sandbox-bash's own state (the caches' layers) wherever XDG_STATE_HOME puts it.
    extra_protected.extend(caches::state_dir(home.as_deref(), &var));
    // Each home where it really is: a link on the way (`GOPATH=/x/link/.ssh`) must not lead the
    // checks one way and the rule another. A home that is not there grants nothing.
    let toolchains: Vec<scope::Toolchain> = scope::toolchain_groups(home.as_deref(), &var)
        .into_iter()
        .map(|g| scope::Toolchain {
            homes: g.homes.iter().filter_map(|h| exec::canonicalize(h).ok()).collect(),
            credentials: g.credentials,
            named: g.named.iter().filter_map(|h| exec::canonicalize(h).ok()).collect(),
        })
        .filter(|g| !g.homes.is_empty())
        .collect();
    let committed = Some(project::Committed::new(&workspace));
    let mut layout = Layout {
        workspace,
        no_workspace,
        home,
        tmpdir,
        extra_credentials,
        credential_names: config.credential_names.clone(),
        credential_exempt: config.credential_exempt.clone(),
        committed,
        extra_protected,
        toolchains: Some(toolchains),
        client_state: Vec::new(),
        client_files: Vec::new(),
        caches: Vec::new(),
        sessions: Vec::new(),
        relaxed: plain::Relaxed::default(),
    };
    // A temporary directory among credentials is not scratch: it keeps being a credential.
    if layout.tmpdir.as_deref().is_some_and(|t| layout.is_credential(t)) {
        layout.tmpdir = None;
    }
    // An agent's shell-state directory counts only where it is a real directory of the caller's
    // own, reached by no link (a link there would lead the snapshot's rule anywhere), and not
    // where it meets the workspace, whose bits govern it.
    let client_state: Vec<(String, (u64, u64))> = scope::client_state_dirs(layout.home.as_deref(), &var)
        .into_iter()
        .filter(|d| !scope::is_system_path(d) && !layout.is_credential(d) && !layout.is_protected(d))
        .filter(|d| !scope::is_within(d, &layout.workspace) && !scope::is_within(&layout.workspace, d))
        .filter_map(|d| own_real_dir(&d).map(|node| (d, node)))
        .collect();
    layout.client_state = client_state;
    // The package caches get a layer of their own when the run may write its workspace and
    // the mode does not write the system (which would write the caches themselves).
    if allowed.has(mode::Scope::Workspace, Perm::Write) && !allowed.has(mode::Scope::System, Perm::Write) {
        layout.caches = caches::layers(&layout, &var, layers_for, run);
    }
    Ok(layout)
}

/// The device and inode of `dir` when it is a directory the caller owns, reached by no
/// symbolic link on the way.
fn own_real_dir(dir: &str) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = exec::open_dir_no_links(std::path::Path::new(dir)).and_then(|d| d.metadata()).ok()?;
    (m.is_dir() && m.uid() == exec::uid()).then_some((m.dev(), m.ino()))
}

/// The home directory of `uid` in `/etc/passwd`, when it is there and absolute (accounts
/// from other sources are not looked up: that would start the C library's name services).
fn account_home(uid: u32) -> Option<String> {
    let text = std::fs::read("/etc/passwd").ok()?;
    let uid = uid.to_string();
    for line in text.split(|&b| b == b'\n') {
        let mut fields = line.split(|&b| b == b':');
        let (_name, _pw, id) = (fields.next()?, fields.next(), fields.next());
        if id != Some(uid.as_bytes()) {
            continue;
        }
        let home = fields.nth(2)?;
        let home = std::str::from_utf8(home).ok()?;
        return (home.starts_with('/') && home != "/").then(|| scope::normalize("/", home));
    }
    None
}

/// Where the home's credential and protected entries lead when they are symbolic links (a
/// dotfile manager's `~/.bashrc -> dotfiles/bash/.bashrc`), themselves or one level inside
/// them (`~/.ssh/config -> …`): the targets are credentials and protected paths too, or a
/// command would read or write them under their other name. A target that holds the home or
/// the workspace is left out: it would make them whole a credential. The home is listed once
/// (and the few directories the entries lie in), rather than every entry looked up: this runs
/// at every start.
fn link_targets(home: &str, workspace: &str, credentials: &mut Vec<String>, protected: &mut Vec<String>) {
    use sandbox::policy::{Entry, World};
    // (entry relative to the home, whether it is a credential)
    let entries = scope::HOME_CREDENTIALS
        .iter()
        .map(|e| (*e, true))
        .chain(std::iter::once((".cargo/credentials.toml", true)))
        .chain(scope::STARTUP_FILES.iter().chain(scope::home_protected()).map(|e| (*e, false)));
    use sandbox::policy::join;
    // The directories listed so far, by their path relative to the home.
    let mut listed: Vec<(&str, String, Option<Vec<Entry>>)> = Vec::with_capacity(8);
    let add = |link: &str, into: &mut Vec<String>| {
        if let Ok(target) = exec::canonicalize(link)
            && !scope::is_within(home, &target)
            && !scope::is_within(workspace, &target)
            && !into.contains(&target)
        {
            into.push(target);
        }
    };
    for (entry, credential) in entries {
        let (rel, name) = entry.rsplit_once('/').unwrap_or(("", entry));
        let at = match listed.iter().position(|(r, _, _)| *r == rel) {
            Some(at) => at,
            None => {
                let dir = if rel.is_empty() { home.to_string() } else { join(home, rel) };
                let entries = sandbox::RealWorld.list(&dir);
                listed.push((rel, dir, entries));
                listed.len() - 1
            }
        };
        let (_, dir, entries) = &listed[at];
        let Some(found) = entries.as_ref().and_then(|l| l.iter().find(|e| e.name == name)) else { continue };
        let into = if credential { &mut *credentials } else { &mut *protected };
        let path = join(dir, name);
        if found.link {
            add(&path, into);
        } else if found.dir {
            for inner in sandbox::RealWorld.list(&path).unwrap_or_default() {
                if inner.link {
                    add(&join(&path, &inner.name), into);
                }
            }
        }
    }
}

/// Gathers the facts the analysis may consult.
fn context(argv0: &OsStr, source: &Source, layout: &Layout, env: &Environ, cwd: &str) -> Context {
    let mut program_dirs: Vec<String> = SYSTEM_PROGRAM_DIRS.iter().map(|s| s.to_string()).collect();
    // The PATH directories as written and where they lead, for the toolchain homes.
    let mut path_entries: Vec<String> = Vec::new();
    if let Some(path) = env.get("PATH") {
        for dir in std::env::split_paths(path) {
            let d = dir.to_string_lossy();
            if d.starts_with('/') {
                let n = scope::normalize("/", &d);
                path_entries.push(n.clone());
                if let Ok(real) = exec::canonicalize(&n)
                    && real != n
                {
                    path_entries.push(real);
                }
                if !program_dirs.contains(&n) {
                    program_dirs.push(n);
                }
            }
        }
    }
    let lossy = |s: &OsString| analysis::bytes::decode(s.as_bytes()).into_owned();
    let (arg0, args) = match source {
        Source::Command { name, args, .. } => {
            (name.as_ref().map_or_else(|| lossy(&argv0.to_os_string()), lossy), args.iter().map(lossy).collect())
        }
        Source::Script { path, args } => (lossy(path), args.iter().map(lossy).collect()),
        Source::Stdin { args } | Source::Interactive { args } => {
            (lossy(&argv0.to_os_string()), args.iter().map(lossy).collect())
        }
    };
    Context {
        cwd: cwd.to_string(),
        layout: layout.clone(),
        env: env.clone(),
        arg0,
        args,
        program_dirs,
        bash_env: None,
        script_path: None,
        self_exe: exec::self_exe().map(|p| p.to_string_lossy().into_owned()),
        toolchains: layout.toolchains_on_path(&path_entries),
        bash: None,
        posix: false,
    }
}

/// How bash finds a script named on its command line: as given when it has a slash or exists
/// in the cwd, else on `PATH`.
fn locate_script(path: &OsStr, cwd: &str, env: &Environ) -> std::path::PathBuf {
    let p = std::path::Path::new(path);
    if path.as_bytes().contains(&b'/') || p.exists() {
        return p.to_path_buf();
    }
    if let Some(path_var) = env.get("PATH") {
        for dir in std::env::split_paths(path_var) {
            let candidate = dir.join(p);
            if candidate.is_file() {
                return candidate;
            }
        }
    }
    std::path::Path::new(cwd).join(p)
}

/// The C library's text for an OS error, as bash prints it.
fn strerror(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// The static layer's verdict for an invocation that runs a program.
fn decide(
    argv0: &OsStr,
    inv: &invocation::Invocation,
    allowed: Mode,
    layout: &Layout,
    env: &Environ,
    cwd: &str,
    bash: Option<&std::path::Path>,
) -> Result<Decision, Error> {
    let mut ctx = context(argv0, &inv.source, layout, env, cwd);
    ctx.bash = bash.map(std::path::Path::to_path_buf);
    ctx.posix = inv.posix;
    // The start-up file bash reads first is part of the program.
    ctx.bash_env = inv.startup_file(&|name| env.get(name).map(|v| v.to_string_lossy().into_owned())).map(|s| match s {
        invocation::Startup::Expanded(value) => value,
        invocation::Startup::Literal(path) => analysis::literal_startup(&path),
    });
    let mut decision = Decision {
        source: inv.source.kind(),
        cwd: ctx.cwd.clone(),
        workspace: ctx.layout.workspace.clone(),
        allowed,
        required: Mode::NONE,
        verdict: Verdict::Allow,
        analysis: Analysis::default(),
        note: None,
        script: None,
        script_bytes: None,
        program: String::new(),
        hosts_refused: Vec::new(),
        client_files: Vec::new(),
        relaxed: plain::Relaxed::default(),
        inherited: Vec::new(),
    };
    let shell_itself = |command: &str| Access {
        scope: mode::Scope::Workspace,
        perm: Perm::Read,
        target: command.to_string(),
        command: command.to_string(),
        reason: "runs a shell (every program needs workspace read)".into(),
        pos: Pos { line: 1, column: 1 },
        certainty: analysis::Certainty::Known,
        file: None,
        text: None,
    };
    let (text, kind, extra): (Vec<u8>, TextKind, Vec<Access>) = match &inv.source {
        Source::Command { text, .. } => (text.as_bytes().to_vec(), TextKind::Command, Vec::new()),
        Source::Script { path, .. } => {
            let located = locate_script(path, &ctx.cwd, env);
            let located_text = analysis::bytes::from_os(&located);
            match analysis::files::read_regular_with_identity(&located, analysis::MAX_TEXT_BYTES as u64) {
                Ok((bytes, identity)) => {
                    decision.script = Some(identity);
                    decision.script_bytes = Some((located.clone(), bytes.clone()));
                    let abs = scope::normalize(&ctx.cwd, &located_text);
                    ctx.script_path = Some(abs.clone());
                    let mut extra = Vec::new();
                    let class = ctx.layout.classify(&abs, false);
                    if let Some(scope) = class.scope() {
                        extra.push(Access {
                            scope,
                            perm: Perm::Read,
                            target: abs.clone(),
                            command: "bash".into(),
                            reason: "reads the script it runs".into(),
                            pos: Pos { line: 1, column: 1 },
                            certainty: analysis::Certainty::Known,
                            file: None,
                            text: None,
                        });
                    }
                    (bytes, TextKind::Script, extra)
                }
                Err(analysis::files::NotRead::TooLarge(size)) => {
                    let message = format!(
                        "the program is {size} bytes long; the analysis accepts at most {} bytes",
                        analysis::MAX_TEXT_BYTES
                    );
                    if allowed == Mode::ALL {
                        // Refused for the analysis's sake only: a mode that allows everything runs it.
                        decision.note = Some(format!("{message}; the mode allows everything, so it runs unread"));
                        decision.analysis.accesses.push(Access {
                            reason: "runs a script the analysis does not read".into(),
                            perm: Perm::Execute,
                            ..shell_itself("bash")
                        });
                        decision.required = decision.analysis.required();
                        return Ok(decision);
                    }
                    decision.analysis.failure = Some(analysis::Failure { message, pos: None });
                    decision.verdict = Verdict::Deny;
                    return Ok(decision);
                }
                Err(analysis::files::NotRead::NotRegular) if !located.is_dir() => {
                    // A pipe or device (`bash <(…)`): reading it here would take the program
                    // away from bash. It is a stream, like standard input.
                    decision.note = Some(format!(
                        "the script {located_text} is a pipe or device, a stream like standard input: \
                         it is not checked statically yet; only the shell itself is"
                    ));
                    decision.analysis.accesses.push(shell_itself("bash"));
                    decision.required = decision.analysis.required();
                    decision.verdict = if allowed.covers(decision.required) { Verdict::Allow } else { Verdict::Deny };
                    return Ok(decision);
                }
                Err(not_read) => {
                    // bash fails the same way before running anything; say it as bash does.
                    let shown = path.to_string_lossy();
                    let (message, status, why) = match &not_read {
                        analysis::files::NotRead::Io(e) => {
                            let status = if e.kind() == std::io::ErrorKind::NotFound { 127 } else { 126 };
                            (format!("{}: {shown}: {}\n", argv0.to_string_lossy(), strerror(e)), status, strerror(e))
                        }
                        _ => (format!("{shown}: {shown}: Is a directory\n"), 126, "Is a directory".to_string()),
                    };
                    decision.verdict = Verdict::BashFails {
                        error: format!("cannot read the script {}: {why}", located.display()),
                        message,
                        status,
                    };
                    return Ok(decision);
                }
            }
        }
        Source::Stdin { .. } | Source::Interactive { .. } => {
            decision.note = Some(format!(
                "commands from {} are not checked statically yet; only the shell itself and its start-up file are",
                if inv.interactive { "an interactive session" } else { "standard input" }
            ));
            if ctx.bash_env.is_some() && !inv.noexec {
                // The start-up file is read before the first command.
                decision.analysis = analysis::analyze(b"", TextKind::Command, &ctx);
                if decision.analysis.failure.is_some() {
                    decision.verdict = Verdict::Deny;
                    return Ok(decision);
                }
            }
            decision.analysis.accesses.push(shell_itself("bash"));
            decision.required = decision.analysis.required();
            decision.verdict = if allowed.covers(decision.required) { Verdict::Allow } else { Verdict::Deny };
            return Ok(decision);
        }
    };
    decision.program = analysis::bytes::shown(&analysis::bytes::decode(&text)).into_owned();
    let mut analysis = analysis::analyze(&text, kind, &ctx);
    analysis.accesses.extend(extra);
    if inv.noexec {
        // bash only parses: nothing the text names can run.
        decision.note = Some("bash runs with -n (noexec): it only parses, so only the shell itself needs a bit".into());
        analysis.failure = None;
        analysis.accesses = vec![shell_itself("bash")];
    }
    // A mode that allows everything refuses nothing for the analysis's sake: what it could
    // not follow is code it cannot see, bounded by the kernel layer as everything is.
    if allowed == Mode::ALL
        && let Some(failure) = analysis.failure.take()
    {
        decision.note = Some(format!(
            "the analysis could not follow the program ({failure}); the mode allows everything, so it runs, bounded \
             by the kernel layer"
        ));
        let pos = failure.pos.unwrap_or(Pos { line: 1, column: 1 });
        analysis.unresolved.push(analysis::Unresolved { text: failure.message.clone(), pos, file: None });
        analysis.accesses.push(Access {
            scope: mode::Scope::Workspace,
            perm: Perm::Execute,
            target: failure.message,
            command: "bash".into(),
            reason: "runs code the analysis cannot see".into(),
            pos,
            certainty: analysis::Certainty::Known,
            file: None,
            text: None,
        });
    }
    // A new file the program writes right into an agent's shell-state directory is the snapshot
    // it takes: it needs only workspace read, and the kernel grants that very file for this run.
    // The snapshots that exist stay external (other sessions source them).
    for a in &mut analysis.accesses {
        let snapshot = a.perm == Perm::Write
            && a.scope == mode::Scope::External
            && a.certainty == analysis::Certainty::Known
            && a.target.ends_with(".sh")
            && layout.is_client_state_entry(&a.target)
            && (decision.client_files.contains(&a.target) || decision.client_files.len() < MAX_SNAPSHOTS)
            && std::fs::symlink_metadata(&a.target).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
        if snapshot {
            if !decision.client_files.contains(&a.target) {
                decision.client_files.push(a.target.clone());
            }
            // What every program needs, and no more.
            a.scope = mode::Scope::Workspace;
            a.perm = Perm::Read;
            a.reason = "takes an agent's shell snapshot: this new file alone is writable for this run".into();
        }
    }
    let program_text = match &inv.source {
        Source::Command { text, .. } if !inv.noexec => text.to_str(),
        _ => None,
    };
    decision.relaxed = relax_pins(&mut analysis, program_text, &ctx.cwd, layout, env);
    decision.required = analysis.required();
    decision.verdict =
        if analysis.failure.is_some() || !allowed.covers(decision.required) { Verdict::Deny } else { Verdict::Allow };
    decision.analysis = analysis;
    Ok(decision)
}

/// What a plain program earns from the kernel layer (see [`plain`]): the configuration files it
/// writes with keys that run no program, and the nested repositories it deletes first, are not
/// pinned in its run. A configuration write that earns nothing is denied here, with why, rather
/// than left for the kernel to refuse (git would go on as if it had written it).
fn relax_pins(
    analysis: &mut Analysis,
    text: Option<&str>,
    cwd: &str,
    layout: &Layout,
    env: &Environ,
) -> plain::Relaxed {
    // The analysis names a write of a repository's configuration with safe keys as a
    // workspace write of its `.git/config`; every other write there is a protected one.
    let configured: Vec<(usize, Option<String>)> = analysis
        .accesses
        .iter()
        .enumerate()
        .filter(|(_, a)| {
            a.perm == Perm::Write && a.scope == mode::Scope::Workspace && a.target.ends_with("/.git/config")
        })
        .map(|(i, a)| (i, repository_config(&a.target, &layout.workspace)))
        .collect();
    let var = |name: &str| env.get(name).map(|v| v.to_string_lossy().into_owned());
    let names: Vec<String> = env.vars().map(|v| String::from_utf8_lossy(v.name).into_owned()).collect();
    let files: Vec<String> = configured.iter().filter_map(|(_, f)| f.clone()).collect();
    let mut relaxed = match text {
        Some(text) => plain::relax(text, cwd, &files, layout.home.as_deref(), &var, &names),
        None => plain::Relaxed::default(),
    };
    // Never the workspace's own repository, nor a tree holding it: the next git command there
    // would find whatever the run put in its place.
    let own = format!("{}/.git", layout.workspace);
    relaxed
        .deleted
        .retain(|t| scope::is_within(t, &layout.workspace) && t != &layout.workspace && !scope::is_within(&own, t));
    let mut denied = Vec::new();
    // A tree with a repository in it that the program deletes without earning the relaxation:
    // the kernel keeps that repository's hooks and configuration, so the deletion would fail
    // half done. Said before anything runs.
    for a in analysis.accesses.iter().filter(|a| {
        a.command == "rm"
            && a.perm == Perm::Write
            && a.scope == mode::Scope::Workspace
            && a.certainty == analysis::Certainty::Known
    }) {
        if relaxed.deleted.iter().any(|t| scope::is_within(&a.target, t)) {
            continue;
        }
        if let Some(repo) = plain::repository_below(&a.target) {
            denied.push(Access {
                scope: mode::Scope::System,
                perm: Perm::Write,
                reason: format!("deletes the repository {repo}, {}", plain::DELETE_NEEDS),
                ..a.clone()
            });
        }
    }
    for (i, file) in configured {
        if file.as_ref().is_none_or(|f| !relaxed.config.contains(f)) {
            let a = &analysis.accesses[i];
            denied.push(Access {
                scope: mode::Scope::System,
                perm: Perm::Write,
                reason: format!("{} ({})", a.reason, plain::CONFIG_NEEDS),
                certainty: analysis::Certainty::Known,
                ..a.clone()
            });
        }
    }
    analysis.accesses.extend(denied);
    relaxed
}

/// The configuration file of the repository `{dir}/.git/config` names: the nearest `.git`
/// directory at or above `dir`, in the workspace. A `.git` file (a worktree, a submodule) is
/// not followed: its configuration lies elsewhere and stays pinned.
fn repository_config(target: &str, workspace: &str) -> Option<String> {
    let mut dir = target.strip_suffix("/.git/config")?.to_string();
    loop {
        let git = format!("{dir}/.git");
        match std::fs::symlink_metadata(&git) {
            Ok(m) if m.is_dir() => return Some(format!("{git}/config")),
            Ok(_) => return None,
            Err(_) => {}
        }
        if dir == workspace || !scope::is_within(&dir, workspace) {
            return None;
        }
        dir = dir.rsplit_once('/').map(|(d, _)| d.to_string()).filter(|d| !d.is_empty())?;
    }
}

/// `--sandbox-connect HOST PORT`.
fn connect(args: &[OsString], env: &Environ) -> Result<Outcome, Error> {
    let [host, port] = args else {
        return Err(Error::Options("--sandbox-connect takes a host and a port, and nothing after them".into()));
    };
    #[cfg(target_os = "linux")]
    {
        let status =
            proxy::connect::run(&host.to_string_lossy(), &port.to_string_lossy(), env).map_err(Error::Refused)?;
        Ok(Outcome::Exit(status))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (host, port, env);
        Err(Error::Refused("--sandbox-connect needs the network proxy, which this platform does not have".into()))
    }
}

/// How the network is held for one run.
enum NetPlan {
    /// No allowlist (or no network bit): the mode's network bits reach every host.
    Open,
    /// The command's own network namespace, and the proxy outside it for this list.
    Proxy(allowlist::Allowlist),
    /// An enclosing sandbox-bash holds this list, or a narrower one, through its proxy (its
    /// marker's fingerprints, as they came): the bits stay, bounded by its namespace.
    Enclosed(String, allowlist::Allowlist),
    /// No network at all, for this reason.
    Off(String),
}

fn net_plan(list: Option<&allowlist::Allowlist>, allowed: Mode, env: &Environ, nested: bool) -> NetPlan {
    let Some(list) = list else { return NetPlan::Open };
    if allowed.0 & NETWORK_BITS.0 == 0 {
        return NetPlan::Open;
    }
    let sources: Vec<&str> = list.layers.iter().map(|l| l.source.as_str()).collect();
    let sources = sources.join(", ");
    if !cfg!(target_os = "linux") {
        return NetPlan::Off(format!(
            "a network allowlist is in force ({sources}), and this platform has no network namespace to enforce it in"
        ));
    }
    if nested {
        let fp = fingerprint(list);
        // The enclosing proxy holds this list only if the marker says so and this process is in
        // fact in a namespace with nothing but loopback: a marker set from outside any sandbox
        // gets no network at all, never the network without the list.
        #[cfg(target_os = "linux")]
        let enclosed = sandbox::netns::only_loopback();
        #[cfg(not(target_os = "linux"))]
        let enclosed = false;
        // The enclosing level names every list its proxy holds at least as strictly (its own and
        // each of its layers' prefixes): a nested run without the variable the enclosing one had
        // (it is not passed on) has a prefix of that list.
        return match sandbox::outer_network(env.get(sandbox::ENFORCED_VAR)) {
            Some(outer) if outer.split('.').any(|f| f == fp) && enclosed => NetPlan::Enclosed(outer, list.clone()),
            _ => NetPlan::Off(format!(
                "a network allowlist is in force ({sources}) that the enclosing sandbox-bash does not hold, and a \
                 nested invocation cannot have a network namespace of its own"
            )),
        };
    }
    NetPlan::Proxy(list.clone())
}

/// Programs whose network targets are literal hosts: `user@host`, `host:path` and bare host
/// names are hosts for them (a URL is a host for every program).
const REMOTE_PROGRAMS: &[&str] = &["ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "telnet", "git"];

/// Denies `decision` when a network access names a host literally that `list` refuses: one line
/// per host, in the words the proxy would answer with, and where the program names it.
fn refuse_hosts(decision: &mut Decision, list: &allowlist::Allowlist) {
    for a in decision.analysis.accesses.iter().filter(|a| a.scope == mode::Scope::Network && a.bound().is_none()) {
        let remote = REMOTE_PROGRAMS.contains(&a.command.as_str());
        let Some((host, port)) = allowlist::literal_destination(&a.target, remote) else { continue };
        // The namespace's own loopback, where the command's own servers are: not the proxy's.
        if matches!(host.as_str(), "localhost" | "127.0.0.1" | "::1") {
            continue;
        }
        let refused = match port {
            Some(p) => list.check(&allowlist::Destination::new(&host, p)).err(),
            None => list.denied_on_every_port(&host),
        };
        let Some(r) = refused else { continue };
        let (why, remedy) = allowlist::refusal_words(&r, &host, port);
        let at = allowlist::bracketed(&host);
        let at = port.map_or(at.clone(), |p| format!("{at}:{p}"));
        let line = format!("{at}: {why}; {remedy} ({} at line {}:{})", a.command, a.pos.line, a.pos.column);
        if !decision.hosts_refused.contains(&line) {
            decision.hosts_refused.push(line);
        }
    }
    if !decision.hosts_refused.is_empty() && decision.verdict == Verdict::Allow {
        decision.verdict = Verdict::Deny;
    }
}

/// The refusal (125) of a program that needs network the plan takes away: denied for want of
/// those bits, or allowed with them before the lock found no namespace to hold them in.
fn network_refusal(decision: &Decision, requested: Mode, net: &NetPlan) -> Option<String> {
    let NetPlan::Off(why) = net else { return None };
    let cut = Mode(decision.required.0 & requested.0 & NETWORK_BITS.0);
    let applies = match decision.verdict {
        Verdict::Deny => true,
        Verdict::Allow => decision.allowed.0 & NETWORK_BITS.0 != 0,
        Verdict::BashFails { .. } => false,
    };
    (applies && cut != Mode::NONE)
        .then(|| format!("the program needs network ({cut}), and {why}: so it allows no network at all"))
}

/// A short fingerprint of an allowlist, which tells a nested invocation whether the enclosing
/// one holds the same list (FNV-1a over its normal form).
fn fingerprint(list: &allowlist::Allowlist) -> String {
    let text = format!("{:?}", list.layers);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The network bits of a mode (read, write, execute).
const NETWORK_BITS: Mode = Mode(0o0070);

/// The network allowlist in force: the configuration's layers, narrowed by
/// `SANDBOX_BASH_NETWORK_ALLOW`; `None` when neither names one (every host, as the mode allows).
fn network_allowlist(config: &config::Config, env: &Environ) -> Result<Option<allowlist::Allowlist>, Error> {
    let var = env.get(allowlist::ALLOW_VAR);
    if config.network.is_none() && var.is_none() {
        return Ok(None);
    }
    // Without a configured list, the variable's layer alone narrows every host to its entries.
    let base = config.network.clone().unwrap_or_default();
    match var {
        None => Ok(Some(base)),
        Some(v) => {
            let text = v.to_str().ok_or_else(|| Error::Config(format!("{} is not UTF-8", allowlist::ALLOW_VAR)))?;
            let narrowed = base.narrowed(allowlist::ALLOW_VAR, text);
            narrowed.map(Some).map_err(|e| Error::Config(format!("{}: {e}", allowlist::ALLOW_VAR)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The snapshot file is made only in the directory that was examined, reached by no link: a
    /// directory swapped for a link, or for another directory, since then gets nothing.
    #[test]
    fn a_snapshot_is_made_only_in_the_directory_examined() {
        // No sandbox here: only links and directories, so /tmp does.
        let root = tempfile::tempdir().unwrap();
        let real = exec::canonicalize(&root.path().to_string_lossy()).unwrap();
        let dir = format!("{real}/shell-snapshots");
        let elsewhere = format!("{real}/elsewhere");
        std::fs::create_dir(&dir).unwrap();
        std::fs::create_dir(&elsewhere).unwrap();
        let node = own_real_dir(&dir).expect("a directory of the caller's own");
        let layout = Layout { client_state: vec![(dir.clone(), node)], ..Default::default() };
        let file = format!("{dir}/snapshot-bash-1-a.sh");

        let made = create_client_files(&layout, std::slice::from_ref(&file));
        assert_eq!(made.len(), 1);
        assert!(std::path::Path::new(&file).exists());
        // It exists now: not made again.
        assert!(create_client_files(&layout, std::slice::from_ref(&file)).is_empty());

        // Swapped for a link to another directory.
        std::fs::rename(&dir, format!("{real}/moved")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &dir).unwrap();
        let other = format!("{dir}/snapshot-bash-2-b.sh");
        assert!(create_client_files(&layout, std::slice::from_ref(&other)).is_empty());
        // Swapped for another real directory.
        std::fs::remove_file(&dir).unwrap();
        std::fs::rename(&elsewhere, &dir).unwrap();
        assert!(create_client_files(&layout, std::slice::from_ref(&other)).is_empty());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "nothing made in the directory put in its place");
    }
}
