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
#[allow(unsafe_code)]
pub mod limits;
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

/// A directory of the build's own for a unit test, outside `/tmp` (scratch in every mode).
#[cfg(test)]
pub(crate) fn unit_scratch() -> tempfile::TempDir {
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/unit-tmp");
    std::fs::create_dir_all(&base).unwrap();
    tempfile::tempdir_in(base).unwrap()
}

/// Runs `body` in a process of its own, for a test that changes what the whole process shares
/// (a variable of its environment, the kept listings): the tests beside it must not see that.
/// Under a runner that gives each test a process (nextest) this is the test's own; under
/// `cargo test`, whose tests share one, the test binary runs this test again, alone, in a child
/// process, and the test passes when that run passes. `test` is the test's path in its crate
/// (`module_path!()` and its name).
#[cfg(all(test, target_os = "linux"))]
pub(crate) fn in_own_process(test: &str, body: impl FnOnce()) {
    const ALONE: &str = "SANDBOX_BASH_UNIT_TEST_ALONE";
    let own = std::env::var_os("NEXTEST_EXECUTION_MODE").is_some_and(|m| m == "process-per-test");
    if own || std::env::var_os(ALONE).is_some() {
        body();
        return;
    }
    let name = test.split_once("::").map_or(test, |(_, rest)| rest);
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--test-threads=1"])
        .env(ALONE, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{name} alone in its own process:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

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
    // The directory listings kept from earlier runs (see `sandbox::facts`): read by the
    // outermost level, written by one that runs. A nested level reads, in the same place, what
    // the enclosing view gives it instead (the listings the run may list itself), and writes
    // nothing.
    #[cfg(target_os = "linux")]
    sandbox::facts::open(match (settings.nested(), action) {
        (true, _) => sandbox::facts::Use::Given,
        (false, Action::Run) => sandbox::facts::Use::Write,
        (false, _) => sandbox::facts::Use::Read,
    });
    let tty = Tty { stdin: exec::is_tty(0), stderr: exec::is_tty(2) };
    let parsed = invocation::parse(&settings.argv0, &bash_args, tty);
    let bash = settings.find_bash(env);
    let replan = |s: &Settings| plan(s, &parsed, &bash_args, env, &bash);
    let mut planned = replan(&settings)?;
    if let Action::Explain { json } = action {
        return Ok(explain::explain(planned.decision, &settings, &planned.layout, bash.as_deref().ok(), env, json));
    }
    // A program that asks for more access: a person answers, before anything is locked.
    let asked = ask::through(&mut settings, &mut planned, &bash_args, env, &replan)?;
    let ask::Planned { layout, trail, exec_args, mut decision } = planned;
    let session = launch::session(&settings, &layout, env);
    let (mut recorder, nested) = trail.open(&settings, env, session.id())?;
    for e in &asked.events {
        recorder.event("approval", e.verdict, &e.line)?;
    }
    if let Some(why) = asked.refused {
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
) -> Result<ask::Planned, Error> {
    let mut layout = settings.layout(env)?;
    let trail = trail::Trail::find(settings, env, &mut layout)?;
    workspace::hold_sessions(&mut layout, env);
    // The directories the layout and the sessions made are looked at anew from here.
    #[cfg(target_os = "linux")]
    sandbox::facts::forget();
    let bash = bash.as_ref().ok().map(|b| b.as_path());
    let (exec_args, decision) = decide::invocation(parsed, bash_args, settings, &layout, env, bash)?;
    Ok(ask::Planned { layout, trail, exec_args, decision })
}
