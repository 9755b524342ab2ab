//! The decision: the analysis of the program in its context, and what the mode makes of it.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use crate::analysis::{self, Access, Analysis, Context, Pos, TextKind};
use crate::audit::Enforced;
use crate::environ::Environ;
use crate::error::Error;
use crate::invocation::{self, Source};
use crate::launch::MAX_SNAPSHOTS;
use crate::mode::{self, Mode, Perm};
use crate::network::{NetPlan, network_refusal, refuse_hosts};
use crate::outcome::Outcome;
use crate::report::{Decision, Verdict};
use crate::scope::{self, Layout};
use crate::settings::Settings;
use crate::trail::Recorder;
use crate::workspace::SYSTEM_PROGRAM_DIRS;
use crate::{exec, plain, request, sandbox};

/// Whether some possible access of `decision` needs a bit the mode does not allow.
pub(crate) fn has_pending(decision: &Decision) -> bool {
    decision.analysis.accesses.iter().any(|a| pending(decision, a))
}

/// Whether `access` is possible and needs a bit the mode of `decision` does not allow.
pub(crate) fn pending(decision: &Decision, access: &Access) -> bool {
    access.bound().is_some() && !decision.allowed.covers(Mode::bit(access.scope, access.perm))
}

/// The decision as it stands once the rules are in force, when a possible access the mode does
/// not allow is not held by them: that access is then required, with the reason it is.
pub(crate) fn unheld_possible(decision: &Decision, holding: &sandbox::Holding<'_>) -> Option<Decision> {
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

/// Gathers the facts the analysis may consult.
pub(crate) fn context(argv0: &OsStr, source: &Source, layout: &Layout, env: &Environ, cwd: &str) -> Context {
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
pub(crate) fn locate_script(path: &OsStr, cwd: &str, env: &Environ) -> std::path::PathBuf {
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
pub(crate) fn strerror(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// The static layer's verdict for an invocation that runs a program.
pub(crate) fn decide(
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
    let mut decision =
        Decision::nothing(inv.source.kind(), ctx.cwd.clone(), ctx.layout.workspace.clone(), allowed, None);
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
        more: 0,
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
                            more: 0,
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
    let mut analysis = analysis::analyze_kept(&text, kind, &ctx);
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
            more: 0,
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
pub(crate) fn relax_pins(
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
pub(crate) fn repository_config(target: &str, workspace: &str) -> Option<String> {
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

/// bash's argv and the decision on what it would run. Help, version and usage errors run no
/// program: they get a decision that allows bash (a usage error keeps bash from running
/// anything after the offending argument). Hosts the program names that the list refuses are
/// denied before anything runs, in the proxy's words.
pub(crate) fn invocation(
    parsed: &invocation::Parsed,
    bash_args: &[OsString],
    settings: &Settings,
    layout: &Layout,
    env: &Environ,
    bash: Option<&std::path::Path>,
) -> Result<(Vec<OsString>, Decision), Error> {
    let Settings { argv0, cwd, .. } = settings;
    let allowed = settings.modes.allowed;
    let mut exec_args: Vec<OsString> = vec![argv0.clone()];
    let decision = match parsed {
        invocation::Parsed::Informational => {
            exec_args.extend(bash_args.iter().cloned());
            None
        }
        invocation::Parsed::UsageError { keep, then_stop } => {
            // bash rejects these arguments before running anything; let it say so in its own
            // words, and make sure nothing after the offending argument can run.
            exec_args.extend(bash_args[..(*keep).min(bash_args.len())].iter().cloned());
            if *then_stop {
                exec_args.push("-n".into());
            }
            None
        }
        invocation::Parsed::Run(inv) => {
            exec_args.extend(bash_args.iter().cloned());
            Some(decide(argv0, inv, allowed, layout, env, cwd, bash)?)
        }
    };
    let mut decision = decision.unwrap_or_else(|| {
        let note = "bash prints its help, version or a usage error and runs nothing";
        Decision::nothing("command", cwd.clone(), layout.workspace.clone(), allowed, Some(note.into()))
    });
    if let NetPlan::Proxy(list) | NetPlan::Enclosed(_, list) = &settings.net {
        refuse_hosts(&mut decision, list);
    }
    decision.request = request::hint(&decision, bounds(settings));
    Ok((exec_args, decision))
}

/// What a request for more access is judged by, besides the decision.
pub(crate) fn bounds(settings: &Settings) -> request::Bounds<'_> {
    request::Bounds {
        ceiling: settings.config.max_mode,
        outer: settings.modes.outer,
        outer_grant: settings.outer_grant,
        network_off: match &settings.net {
            NetPlan::Off(why) => Some(why.as_str()),
            _ => None,
        },
        list: match &settings.net {
            NetPlan::Proxy(list) => Some(list),
            _ => None,
        },
        observed: None,
    }
}

/// What a decision that does not run comes to, recorded: bash's own failure, a refusal (a
/// network the run cannot have), or a denial (with a note when it is the administrator's
/// ceiling that took a needed bit away). `None`: it runs.
pub(crate) fn stopped(
    decision: &Decision,
    settings: &Settings,
    recorder: &mut Recorder,
) -> Result<Option<Result<Outcome, Error>>, Error> {
    let requested = settings.modes.requested;
    match &decision.verdict {
        Verdict::Allow => Ok(None),
        Verdict::BashFails { error, message, status } => {
            recorder.record(decision, crate::audit::Verdict::Error, Enforced::Nothing, Some(error), &[])?;
            Ok(Some(Ok(Outcome::BashFails(message.clone(), *status))))
        }
        Verdict::Deny if let Some(message) = network_refusal(decision, requested, &settings.net) => {
            recorder.record(decision, crate::audit::Verdict::Error, Enforced::Nothing, Some(&message), &[])?;
            Ok(Some(Err(Error::Refused(message))))
        }
        Verdict::Deny => {
            let failure = decision.analysis.failure.as_ref().map(|f| f.message.as_str());
            recorder.record(decision, crate::audit::Verdict::Deny, Enforced::Nothing, failure, &[])?;
            let ceiling = settings.config.max_mode.and_then(|ceiling| {
                let cut = decision.required.intersect(requested).without(ceiling);
                (cut != Mode::NONE).then(|| {
                    format!(
                        "the administrator's ceiling max_mode={ceiling} ({}) removed {cut} from the requested mode \
                         {requested}",
                        crate::config::SYSTEM_FILE
                    )
                })
            });
            Ok(Some(Ok(Outcome::Deny(Box::new(decision.clone()), ceiling))))
        }
    }
}
