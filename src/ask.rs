//! A program that asks for more access (see [`crate::request`]): judged, asked (see
//! [`crate::approval`]), and what the answer comes to for this one run.

use std::ffi::OsString;

use crate::approval::{self, Answer, Question};
use crate::decide;
use crate::environ::Environ;
use crate::mode::Mode;
use crate::report::Decision;
use crate::request::{self, Judged};
use crate::scope::Layout;
use crate::settings::Settings;

/// What a run goes by once planned: where it stands, where its records go, bash's argv and the
/// decision.
pub(crate) struct Planned {
    pub(crate) layout: Layout,
    pub(crate) trail: crate::trail::Trail,
    pub(crate) exec_args: Vec<OsString>,
    pub(crate) decision: Decision,
}

/// What asking came to for the run: the records to write, and why the program is denied.
pub(crate) struct Asked {
    pub(crate) events: Vec<Event>,
    pub(crate) refused: Option<String>,
}

/// The program's request, if it makes one, through to the run: judged, asked, and when allowed
/// once, the settings widened and the run planned again (`replan`) and checked against what was
/// asked. Nothing is locked yet.
pub(crate) fn through(
    settings: &mut Settings,
    planned: &mut Planned,
    bash_args: &[OsString],
    env: &Environ,
    replan: &dyn Fn(&Settings) -> Result<Planned, crate::error::Error>,
) -> Result<Asked, crate::error::Error> {
    let mut events = Vec::new();
    let would_run = |mode: Mode, hosts: &[String]| -> Result<(), String> {
        let mut wider = settings.clone();
        wider.widen(mode, hosts, env).map_err(|e| e.to_string())?;
        let decision = replan(&wider).map_err(|e| e.to_string())?.decision;
        match decision.verdict {
            crate::report::Verdict::Allow => Ok(()),
            _ => Err(format!(
                "with it the program would still be denied: {}",
                decision.denial_message().lines().last().unwrap_or("").trim_start_matches("sandbox-bash: denied: ")
            )),
        }
    };
    let settled = settle(settings, &planned.layout, &planned.decision, bash_args, env, &would_run, &mut events);
    let refused = match settled {
        Settled::Nothing => None,
        Settled::Deny(why) => Some(why),
        Settled::Run(mode, hosts, question) => {
            let allowed_before = settings.modes.allowed;
            settings.widen(mode, &hosts, env)?;
            settings.granted = question.is_some().then_some(mode).or(settings.outer_grant.filter(|g| *g == mode));
            // A person may have changed a permission while the question waited.
            #[cfg(target_os = "linux")]
            if question.is_some() {
                crate::sandbox::facts::forget_refused();
            }
            *planned = replan(settings)?;
            match &question {
                Some(q) if !still_bound(q, &planned.decision, bash_args, allowed_before) => Some(
                    "the program, its arguments or its place changed while the request was asked: the answer was \
                     for another; ask again"
                        .to_string(),
                ),
                Some(_) => {
                    let by = events.last().and_then(|e| e.line.get("by")).and_then(|b| b.as_str()).unwrap_or("?");
                    let hosts =
                        if hosts.is_empty() { String::new() } else { format!(" and the hosts {}", hosts.join(", ")) };
                    eprintln!("sandbox-bash: request: allowed once (by {by}): this run has mode {mode}{hosts}");
                    None
                }
                None => None,
            }
        }
    };
    Ok(Asked { events, refused })
}

/// What a request comes to.
pub(crate) enum Settled {
    /// The program asks for nothing.
    Nothing,
    /// Denied: the line that says why (after the denial's own lines).
    Deny(String),
    /// This run alone goes on with `mode` and `hosts` added to the network allowlist; the
    /// answer is bound to `question` (none where nothing was asked: a nested level within what
    /// encloses it).
    Run(Mode, Vec<String>, Option<Box<Question>>),
}

/// Why a program would not run with a mode and hosts (see [`settle`]).
pub(crate) type WouldRun<'a> = dyn Fn(Mode, &[String]) -> Result<(), String> + 'a;

/// An audit record to write once the log is open.
pub(crate) struct Event {
    pub(crate) verdict: &'static str,
    pub(crate) line: serde_json::Value,
}

/// Judges the program's request and asks when it may be asked: `would_run` says, before
/// anyone is asked, why the program would not run with the mode and hosts asked for (the
/// whole plan made again with them). `events` gets the records of the asking and of the answer.
pub(crate) fn settle(
    settings: &Settings,
    layout: &Layout,
    decision: &Decision,
    bash_args: &[OsString],
    env: &Environ,
    would_run: &WouldRun<'_>,
    events: &mut Vec<Event>,
) -> Settled {
    let Some(found) = request::of_decision(decision) else { return Settled::Nothing };
    let req = match found {
        Ok(r) => r,
        Err(why) => return Settled::Deny(why),
    };
    let dir = approval::dir(env, layout.home.as_deref());
    let observed = dir.as_deref().map(|d| approval::observed(d, &decision.workspace));
    let bounds = request::Bounds { observed: observed.as_ref(), ..decide::bounds(settings) };
    match request::judge(&req, decision, bounds) {
        Judged::Ask => {}
        Judged::Held(mode) => return Settled::Run(mode, Vec::new(), None),
        Judged::Needless(_) if req.loose => return Settled::Nothing,
        Judged::Refused(why) | Judged::Forbidden(why) | Judged::Needless(why) => return Settled::Deny(why),
    }
    // Nobody is asked for what could not run anyway.
    if let Err(why) = would_run(req.mode, &req.hosts) {
        return Settled::Deny(format!("the request for {} cannot be granted here: {why}", req.mode));
    }
    let config = &settings.config.approval;
    let argv: Vec<String> = bash_args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let q = approval::question(decision, &argv, &req, config.timeout);
    let same = approval::sameness(decision, &req);
    let record = |outcome: Option<&str>, by: Option<&str>, why: Option<&str>| {
        let mut r = approval::Record::of(&q);
        r.outcome = outcome;
        r.by = by;
        r.why = why;
        serde_json::to_value(&r).unwrap_or_default()
    };
    if let Some(dir) = dir.as_deref()
        && let Some(until) = approval::rejected_until(dir, &same)
    {
        let why = format!(
            "the same request (the same missing bits on the same targets in this workspace) was rejected; it is not \
             asked again for {} s more",
            until.saturating_sub(approval::now())
        );
        events.push(Event { verdict: "refused", line: record(Some("rejected-before"), None, Some(&why)) });
        return Settled::Deny(why);
    }
    events.push(Event { verdict: "asked", line: record(None, None, None) });
    let answer = approval::ask(&q, config, dir.as_deref());
    let (by, why) = match &answer {
        Answer::AllowedOnce { by } | Answer::Rejected { by } => (Some(by.as_str()), None),
        Answer::Expired { .. } | Answer::NoOne { .. } => (None, None),
    };
    events.push(Event { verdict: answer.outcome(), line: record(Some(answer.outcome()), by, why) });
    match answer {
        Answer::AllowedOnce { .. } => Settled::Run(req.mode, req.hosts.clone(), Some(Box::new(q))),
        Answer::Rejected { by } => {
            if let Some(dir) = dir.as_deref() {
                approval::remember_rejection(dir, &same, config.rejected_for);
            }
            Settled::Deny(format!("the request for {} was rejected (by {by})", req.mode))
        }
        Answer::Expired { seconds } => {
            Settled::Deny(format!("the request for {} expired: no answer within {seconds} s", req.mode))
        }
        Answer::NoOne { why } => Settled::Deny(why),
    }
}

/// Whether the program about to run is still the one the answer was given for (a script
/// edited while the question waited is not).
pub(crate) fn still_bound(q: &Question, decision: &Decision, argv: &[OsString], original_allowed: Mode) -> bool {
    let argv: Vec<String> = argv.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let mode = Mode::parse(&q.mode).unwrap_or(Mode::NONE);
    let bound = approval::Bound {
        argv: &argv,
        program: &decision.program,
        cwd: &decision.cwd,
        workspace: &decision.workspace,
        allowed: original_allowed,
        mode,
        hosts: &q.hosts,
        uid: q.uid,
        texts: &decision.analysis.texts,
    };
    approval::binding(&bound) == q.binding && q.uid == crate::exec::uid() && approval::now() <= q.expires_at
}
