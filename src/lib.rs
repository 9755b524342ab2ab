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
mod explain;
mod launch;
mod network;
mod outcome;
mod settings;
mod trail;
mod workspace;

pub use cli::{Action, sandbox_command, split_sandbox_args};
pub use outcome::Outcome;
pub use workspace::{WORKSPACE_VAR, find_workspace};

use cli::connect;
use decide::*;
use launch::*;
use network::*;
#[cfg(target_os = "linux")]
use workspace::sessions_dirs;

use std::ffi::OsString;

use analysis::Analysis;
use environ::Environ;
use error::Error;
use invocation::{Parsed, Tty};
use mode::{MODE_VAR, Mode};
use report::{Decision, Verdict};
use settings::{Modes, Settings};

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
    let settings = Settings::read(argv0, action, env)?;
    if let Action::Info { json } = action {
        return explain::info(&settings, env, json);
    }
    let Settings { ref argv0, ref config, ref net, ref cwd, .. } = settings;
    let Modes { requested, allowed, .. } = settings.modes;

    let tty = Tty { stdin: exec::is_tty(0), stderr: exec::is_tty(2) };
    let parsed = invocation::parse(argv0, &bash_args, tty);
    let mut layout = settings.layout(env)?;
    let trail = trail::Trail::find(&settings, env, &mut layout)?;
    // The agents' sessions' sockets: no command reaches another session's proxy (connecting
    // to a socket by path is beyond Landlock). The directory is made now, so that it is
    // masked even when the first proxy comes after this run started.
    #[cfg(target_os = "linux")]
    {
        layout.sessions = sessions_dirs(env, &layout);
        layout.extra_credentials.extend(layout.sessions.iter().cloned());
    }

    let bash = settings.find_bash(env);
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
            Some(decide(argv0, inv, allowed, &layout, env, cwd, asked)?)
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
        return Ok(explain::explain(decision, &settings, &layout, bash.as_deref().ok(), env, json));
    }

    // The agent session of the run (see `outside::session`): this outermost level's, or the
    // enclosing level's, whose id it was given.
    #[cfg(target_os = "linux")]
    let session = (!settings.nested()).then(|| session_of(env, &layout, allowed, net));
    #[cfg(target_os = "linux")]
    let session_id = session
        .as_ref()
        .map(|s| s.id.clone())
        .or_else(|| env.get(outside::session::MARKER_VAR).map(|v| v.to_string_lossy().into_owned()));
    #[cfg(not(target_os = "linux"))]
    let session_id = None;
    let (mut recorder, nested) = trail.open(&settings, env, session_id)?;

    match &decision.verdict {
        Verdict::Allow => {}
        Verdict::BashFails { error, message, status } => {
            recorder.record(&decision, "error", "none", Some(error), &[])?;
            return Ok(Outcome::BashFails(message.clone(), *status));
        }
        Verdict::Deny if let Some(message) = network_refusal(&decision, requested, net) => {
            recorder.record(&decision, "error", "none", Some(&message), &[])?;
            return Err(Error::Refused(message));
        }
        Verdict::Deny => {
            recorder.record(
                &decision,
                "deny",
                "none",
                decision.analysis.failure.as_ref().map(|f| f.message.as_str()),
                &[],
            )?;
            // Say when it is the administrator's ceiling that took a needed bit away.
            let ceiling = config.max_mode.and_then(|ceiling| {
                let cut = decision.required.intersect(requested).without(ceiling);
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
        settings: &settings,
        env,
        #[cfg(target_os = "linux")]
        session: session.as_ref(),
    };
    let result = lock_and_exec(&to_run, bash, nested, &mut recorder);
    // Only failures come back: record them (the record of a run is written before exec).
    if let Err(e) = &result
        && !matches!(e, Error::Audit(_))
    {
        recorder.record(&decision, "error", "none", Some(&e.to_string()), &[])?;
    }
    result
}
