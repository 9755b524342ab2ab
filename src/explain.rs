//! Telling what a run would be without running it: `--sandbox-explain` (the verdict on a
//! program and why) and `--sandbox-info` (what is enforced here and now).

use crate::decide::{has_pending, unheld_possible};
use crate::environ::Environ;
use crate::error::Error;

#[cfg(target_os = "linux")]
use crate::launch::linux::{reachable_sockets, session_of};
use crate::network::{NetPlan, network_refusal};
use crate::outcome::Outcome;
use crate::report::{self, Decision, Verdict};
#[cfg(target_os = "linux")]
use crate::sandbox::inherited;
use crate::scope::Layout;
use crate::settings::{Modes, Settings};
use crate::{exec, hygiene, sandbox};

/// `--sandbox-info`: the declaration of what is enforced here and now, as text or JSON.
pub(crate) fn info(settings: &Settings, env: &Environ, json: bool) -> Result<Outcome, Error> {
    let layout = settings.layout(env)?;
    let bash = settings.find_bash(env)?;
    let layout = sandbox::with_programs(&layout, &bash);
    let policy = sandbox::plan_here(
        settings.modes.allowed,
        &layout,
        &bash,
        env.get("PATH"),
        settings.nested(),
        settings.extra(),
    );
    let info = declaration(&policy, &layout, settings, env);
    Ok(Outcome::Print(if json { info.json() + "\n" } else { info.text() }))
}

/// Each limit in force and what holds it: this level's own, as the run would hold them here;
/// those an enclosing level holds, as held there. A limit that cannot be held is an error line.
fn limit_lines(settings: &Settings) -> Vec<Result<String, String>> {
    use crate::limits::{Kind, bound};
    let own = settings.own_limits();
    let shown = |k: Kind, v: u64| format!("{} {}", k.key(), bound(k, v));
    let mut lines: Vec<Result<String, String>> = settings
        .limits
        .iter()
        .filter(|(k, _)| own.get(*k).is_none())
        .map(|(k, v)| Ok(format!("{}: held by the enclosing sandbox-bash", shown(k, v))))
        .collect();
    if own.is_empty() {
        return lines;
    }
    #[cfg(target_os = "linux")]
    {
        use crate::limits::cgroup;
        match cgroup::plan(&own, &cgroup::hierarchies()) {
            Ok(plan) => lines.extend(
                plan.enforcers
                    .iter()
                    .map(|(k, e)| Ok(format!("{}: {}", shown(*k, own.get(*k).unwrap_or(0)), e.words()))),
            ),
            Err(why) => lines.push(Err(format!("{why}: every command is refused (status 125)"))),
        }
    }
    #[cfg(not(target_os = "linux"))]
    lines.extend(own.iter().map(|(k, v)| {
        Err(format!("{}: cannot be enforced on this platform (every command is refused, status 125)", shown(k, v)))
    }));
    lines
}

/// The rules in force when this is a nested level that adds none of its own, as the run would
/// find (see `sandbox::word`): a program that would make files for its run, a network list of
/// its own or a required view make the run lock itself instead.
fn run_rules(
    decision: &Decision,
    settings: &Settings,
    layout: &Layout,
    real: &std::path::Path,
) -> Option<sandbox::policy::Policy> {
    if !settings.nested()
        || !decision.client_files.is_empty()
        || decision.relaxed != crate::plain::Relaxed::default()
        || matches!(settings.net, NetPlan::Proxy(_))
        || settings.config.require_namespaces
    {
        return None;
    }
    let boundary = sandbox::boundary(layout, real, &settings.extra(), false);
    sandbox::run_rules(settings.modes.allowed, &boundary)
}

/// `--sandbox-explain`: the decision on the program, with what the rules this run would get
/// make of its possible accesses and of the descriptors it was given, and the status the run
/// would end with.
pub(crate) fn explain(
    decision: Decision,
    settings: &Settings,
    layout: &Layout,
    bash: Option<&std::path::Path>,
    env: &Environ,
    json: bool,
) -> Outcome {
    let Modes { requested, allowed, .. } = settings.modes;
    let (config, net) = (&settings.config, &settings.net);
    // Possible accesses the mode does not allow rest on the rules this run would get: say
    // here what the run would find.
    let decision = match (bash, &decision.verdict) {
        // A nested level that the run's rules hold (its inputs are the run's) answers with them,
        // as its run would.
        (Some(real), Verdict::Allow)
            if has_pending(&decision)
                && let Some(policy) = run_rules(&decision, settings, layout, real) =>
        {
            let no_view = Some("an enclosing sandbox-bash's Landlock rules refuse new mounts".to_string());
            let holding = sandbox::Holding { enforced: true, policy: Some(&policy), view: None, no_view, exact: true };
            unheld_possible(&decision, &holding).unwrap_or(decision)
        }
        (Some(real), Verdict::Allow) if has_pending(&decision) => {
            let layout = sandbox::with_programs(layout, real);
            let policy =
                sandbox::plan_here(allowed, &layout, real, env.get("PATH"), settings.nested(), settings.extra());
            let (_, shortfalls) = sandbox::kernel_facts(&policy);
            let facts = sandbox::namespace_facts(&policy, &layout, env, &config.keep_env, settings.nested());
            let (view, no_view) = match &facts {
                Some((view, Ok(()))) => (Some(view), None),
                Some((_, Err(why))) => (None, Some(why.clone())),
                None => (None, None),
            };
            let holding = sandbox::Holding {
                enforced: shortfalls.is_empty(),
                policy: Some(&policy),
                view,
                no_view,
                exact: view.is_some(),
            };
            unheld_possible(&decision, &holding).unwrap_or(decision)
        }
        _ => decision,
    };
    #[cfg_attr(not(target_os = "linux"), allow(unused_mut))]
    let mut decision = decision;
    #[cfg(target_os = "linux")]
    {
        let reachable = reachable_sockets(settings, layout, env);
        decision.inherited = inherited::taken()
            .iter()
            .map(|d| {
                let what = match inherited::judge(d, allowed, layout, &reachable, matches!(net, NetPlan::Proxy(_))) {
                    inherited::Verdict::Kept => "kept".to_string(),
                    inherited::Verdict::Closed { needs, why } if needs == crate::mode::Mode::NONE => {
                        format!("closed: {why}")
                    }
                    inherited::Verdict::Closed { needs, why } => format!("closed: {why} (it needs {needs})"),
                };
                format!("{}: {}: {what}", d.fd, d.shown())
            })
            .collect();
    }
    let mut text = if json { decision.json() + "\n" } else { decision.text() };
    // A run would be refused, not denied: say so, with the same words and status.
    if let Some(message) = network_refusal(&decision, requested, net) {
        if !json {
            text.push_str(&format!("sandbox-bash: {message}\n"));
        }
        return Outcome::Explain(text, report::REFUSED);
    }
    // A limit that cannot be held here refuses the run: said here too, with its status.
    if decision.verdict == Verdict::Allow
        && let Some(Err(why)) = limit_lines(settings).into_iter().find(Result::is_err)
    {
        if !json {
            text.push_str(&format!("sandbox-bash: {why}\n"));
        }
        return Outcome::Explain(text, report::REFUSED);
    }
    Outcome::Explain(text, decision.verdict.status())
}

/// The declaration `--sandbox-info` prints.
fn declaration(
    policy: &sandbox::policy::Policy,
    layout: &Layout,
    settings: &Settings,
    env: &Environ,
) -> sandbox::info::Info {
    let Modes { requested, allowed, outer, degraded_ok } = settings.modes;
    let (config, net) = (&settings.config, &settings.net);
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
        seccomp_listener: sandbox::seccomp_listener(),
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
        hosts: match net {
            NetPlan::Proxy(list) => Some(Some(list.host_count())),
            NetPlan::Enclosed(..) => Some(None),
            _ => None,
        },
        limits: &settings.limits,
        limit_lines: limit_lines(settings),
    };
    sandbox::info::build(policy, layout, &facts)
}
