//! sandbox-bash: a drop-in `bash` that checks each program against a four-scope rwx mode.
//!
//! The data flow is argv → program text → analysis → decision → exec. What does not end in
//! exec is an [`Outcome`]: [`run`] prints it and exits with its one status mapping.

pub mod allowlist;
pub mod analysis;
pub mod approval;
pub mod audit;
pub mod baseline;
pub mod caches;
pub mod config;
pub mod environ;
pub mod error;
#[allow(unsafe_code)]
pub mod exec;
pub mod hygiene;
pub mod invocation;
pub mod later;
pub mod mode;
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub mod outside;
pub mod plain;
pub mod project;
pub mod report;
pub mod request;
#[allow(unsafe_code)]
pub mod sandbox;
pub mod scope;

mod ask;
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

use launch::{ToRun, lock_and_exec};

use std::ffi::OsString;

use environ::Environ;
use error::Error;
use invocation::Tty;
use settings::Settings;

/// The whole program, given its arguments (`argv[0]` first): returns the exit status (it
/// returns at all only when it does not exec).
pub fn run(args: Vec<OsString>, env: Environ) -> i32 {
    // A panic must never let a command run: it is an internal error, said clearly.
    exec::stop_on_panic();
    // Before anything of our own is open.
    #[cfg(target_os = "linux")]
    sandbox::inherited::take();
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

/// One invocation: sandbox-bash's own options; the settings, read once; where the run stands
/// and where its records go; the decision on the program; then, for a program that runs, what
/// runs outside, the lock and bash.
fn run_with(args: &[OsString], env: &Environ) -> Result<Outcome, Error> {
    let argv0 = args.first().cloned().unwrap_or_else(|| OsString::from("sandbox-bash"));
    let (action, bash_args) = split_sandbox_args(args.get(1..).unwrap_or(&[]))?;
    if let Some(immediate) = cli::immediate(action, &bash_args, env) {
        return immediate;
    }
    let mut settings = Settings::read(argv0, action, env)?;
    if let Action::Info { json } = action {
        return explain::info(&settings, env, json);
    }
    let tty = Tty { stdin: exec::is_tty(0), stderr: exec::is_tty(2) };
    let parsed = invocation::parse(&settings.argv0, &bash_args, tty);
    let bash = settings.find_bash(env);
    let (mut layout, mut trail, mut exec_args, mut decision) = plan(&settings, &parsed, &bash_args, env, &bash)?;
    if let Action::Explain { json } = action {
        return Ok(explain::explain(decision, &settings, &layout, bash.as_deref().ok(), env, json));
    }
    // A program that asks for more access: a person answers, before anything is locked.
    let mut events = Vec::new();
    let mut refused = None;
    let would_run = |mode: mode::Mode, hosts: &[String]| -> Result<(), String> {
        let mut wider = settings.clone();
        wider.widen(mode, hosts, env).map_err(|e| e.to_string())?;
        let (.., decision) = plan(&wider, &parsed, &bash_args, env, &bash).map_err(|e| e.to_string())?;
        match decision.verdict {
            report::Verdict::Allow => Ok(()),
            _ => Err(format!(
                "with it the program would still be denied: {}",
                decision.denial_message().lines().last().unwrap_or("").trim_start_matches("sandbox-bash: denied: ")
            )),
        }
    };
    match ask::settle(&settings, &layout, &decision, &bash_args, env, &would_run, &mut events) {
        ask::Settled::Nothing => {}
        ask::Settled::Deny(why) => refused = Some(why),
        ask::Settled::Run(mode, hosts, question) => {
            let allowed_before = settings.modes.allowed;
            settings.widen(mode, &hosts, env)?;
            settings.granted = question.is_some().then_some(mode).or(settings.outer_grant.filter(|g| *g == mode));
            (layout, trail, exec_args, decision) = plan(&settings, &parsed, &bash_args, env, &bash)?;
            if let Some(q) = &question {
                if ask::still_bound(q, &decision, &bash_args, allowed_before) {
                    let by = events.last().and_then(|e| e.line.get("by")).and_then(|b| b.as_str()).unwrap_or("?");
                    let hosts =
                        if hosts.is_empty() { String::new() } else { format!(" and the hosts {}", hosts.join(", ")) };
                    eprintln!("sandbox-bash: request: allowed once (by {by}): this run has mode {mode}{hosts}");
                } else {
                    refused = Some(
                        "the program, its arguments or its place changed while the request was asked: the answer was \
                         for another; ask again"
                            .to_string(),
                    );
                }
            }
        }
    }
    let session = launch::session(&settings, &layout, env);
    let (mut recorder, nested) = trail.open(&settings, env, session.id())?;
    for e in &events {
        recorder.event("approval", e.verdict, &e.line)?;
    }
    if let Some(why) = refused {
        recorder.record(&decision, audit::Verdict::Deny, audit::Enforced::Nothing, Some(&why), &[])?;
        decision.request = None;
        return Ok(Outcome::Deny(Box::new(decision), Some(why)));
    }
    if let Some(stopped) = decide::stopped(&decision, &settings, &mut recorder)? {
        return stopped;
    }
    let to_run = ToRun {
        decision: &decision,
        layout: &layout,
        exec_args: &exec_args,
        settings: &settings,
        env,
        session: session.own(),
    };
    let result = lock_and_exec(&to_run, bash, nested, &mut recorder);
    // Only failures come back: record them (the record of a run is written before exec).
    if let Err(e) = &result
        && !matches!(e, Error::Audit(_))
    {
        recorder.record(&decision, audit::Verdict::Error, audit::Enforced::Nothing, Some(&e.to_string()), &[])?;
    }
    result
}

/// Where the run stands, where its records go, and the decision on what it runs.
fn plan(
    settings: &Settings,
    parsed: &invocation::Parsed,
    bash_args: &[OsString],
    env: &Environ,
    bash: &Result<std::path::PathBuf, Error>,
) -> Result<(scope::Layout, trail::Trail, Vec<OsString>, report::Decision), Error> {
    let mut layout = settings.layout(env)?;
    let trail = trail::Trail::find(settings, env, &mut layout)?;
    workspace::hold_sessions(&mut layout, env);
    let (exec_args, decision) =
        decide::invocation(parsed, bash_args, settings, &layout, env, bash.as_ref().ok().map(|b| b.as_path()))?;
    Ok((layout, trail, exec_args, decision))
}
