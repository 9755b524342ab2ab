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

mod cli;
mod decide;
mod launch;
mod network;
mod outcome;
mod workspace;

pub use cli::{Action, sandbox_command, split_sandbox_args};
pub use outcome::Outcome;
pub use workspace::{WORKSPACE_VAR, find_workspace};

use cli::connect;
use decide::*;
use launch::*;
use network::*;
use workspace::*;

use std::ffi::{OsStr, OsString};
use std::io::Write;

use analysis::Analysis;
use environ::Environ;
use error::Error;
use invocation::{Parsed, Tty};
use mode::{MODE_VAR, Mode, Perm};
use report::{Decision, Verdict};
use scope::Layout;

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
