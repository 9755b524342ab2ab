//! From an allowed program to bash: what runs outside is started, the process locks itself,
//! the audit record is written, and bash is executed with the command's environment.

#[cfg(target_os = "linux")]
pub(crate) mod linux;
#[cfg(not(target_os = "linux"))]
mod macos;

#[cfg(target_os = "linux")]
pub(crate) use linux::{Outside, Session, session};
#[cfg(not(target_os = "linux"))]
pub(crate) use macos::{Outside, Session, session};

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;

use crate::audit::{Enforced, Verdict};
use crate::decide::unheld_possible;
use crate::environ::Environ;
use crate::error::Error;
use crate::network::{NetPlan, network_refusal};
use crate::outcome::Outcome;
use crate::report::Decision;
use crate::sandbox::StaticOnly;
use crate::sandbox::marker::Marker;
use crate::scope::Layout;
use crate::settings::{Modes, Settings};
use crate::trail::Recorder;
use crate::{audit, exec, hygiene, plain, sandbox};

/// A program the static layer allowed, with what running it needs.
pub(crate) struct ToRun<'a> {
    pub(crate) decision: &'a Decision,
    pub(crate) layout: &'a Layout,
    /// bash's argv, `argv[0]` first.
    pub(crate) exec_args: &'a [OsString],
    pub(crate) settings: &'a Settings,
    pub(crate) env: &'a Environ,
    /// The agent session of an outermost level.
    pub(crate) session: Option<&'a Session>,
}

/// How the records of nested invocations reach the log.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) enum Nested {
    /// This level writes the log: a relay of its own, with this descriptor of the log (taken
    /// by the supervisor that holds it).
    Relay(Option<audit::Log>),
    /// The enclosing level's channel, this descriptor, goes on to the command.
    PassOn(i32),
}

/// Whether a nested sandbox-bash may start in the run: its program is not all seen (standard
/// input, an interactive shell), or runs a shell by name, a command whose name is not static,
/// the workspace's own programs, or code or paths the analysis cannot see (only speed hangs on
/// it: a nested level without the listings lists for itself).
fn nested_may_start(decision: &crate::report::Decision) -> bool {
    let me = crate::exec::self_exe();
    // This program by its path, whatever its name.
    let itself = |n: &str| {
        n.contains('/')
            && me.is_some_and(|me| crate::exec::canonicalize(n).is_ok_and(|r| std::path::Path::new(&r) == me))
    };
    let shell = |c: &crate::analysis::CommandUse| {
        c.name
            .as_deref()
            .is_none_or(|n| matches!(n.rsplit('/').next(), Some("bash" | "sh" | "sandbox-bash")) || itself(n))
    };
    not_all_seen(decision) || unseen(decision) || decision.analysis.commands.iter().any(shell)
}

/// The program is not all seen (standard input, an interactive shell), or runs the workspace's
/// own programs.
pub(crate) fn not_all_seen(decision: &crate::report::Decision) -> bool {
    (decision.source != "command" && decision.source != "script")
        || decision.required.has(crate::mode::Scope::Workspace, crate::mode::Perm::Execute)
}

/// The program reaches paths the analysis could not name: words it could not resolve, accesses
/// only possible.
pub(crate) fn unseen(decision: &crate::report::Decision) -> bool {
    let analysis = &decision.analysis;
    !analysis.unresolved.is_empty() || analysis.accesses.iter().any(|a| a.bound().is_some())
}

/// Programs that make names their words do not list: archives, recursive copies, patches, names
/// a file or a server gives (`gunzip -N`, `gpg --use-embedded-filename`, `curl -OJ`), and the
/// decompressors, whose output is named by stripping a suffix (`xz -d .mcp.json.xz`).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const MAKES_UNLISTED: &[&str] = &[
    "tar",
    "gtar",
    "bsdtar",
    "unzip",
    "7z",
    "7za",
    "7zr",
    "cpio",
    "pax",
    "ar",
    "rsync",
    "cp",
    "patch",
    "git",
    "unrar",
    "unar",
    "jar",
    "busybox",
    "gzip",
    "gunzip",
    "pigz",
    "unpigz",
    "gpg",
    "gpg2",
    "curl",
    "wget",
    "xz",
    "unxz",
    "lzma",
    "unlzma",
    "bzip2",
    "bunzip2",
    "zstd",
    "unzstd",
    "lz4",
    "lzip",
    "brotli",
    "compress",
    "uncompress",
];

/// The program writes a directory in which it may make a persistence point it does not name
/// (`tar xf` or `cp -r` into the workspace, `git apply`): at a mode that does not write the
/// system, only the watch holds a point that does not exist yet (see
/// `outside::watch::Rules::absent`).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn writes_above_points(decision: &crate::report::Decision, layout: &Layout) -> bool {
    use crate::mode::{Perm, Scope};
    let w = layout.workspace.as_str();
    if decision.allowed.has(Scope::System, Perm::Write) || w == "/" {
        return false;
    }
    let points = || {
        crate::scope::project_settings().copied().chain(crate::scope::project_holders()).chain([
            ".git/hooks",
            ".git/config",
            ".git/config.worktree",
            ".git/commondir",
            ".git/worktrees",
        ])
    };
    // A program that makes names its words do not list, wherever it writes (scratch included,
    // which no access records): an absolute member (`tar -P -C /tmp`), a `..` one (`unzip -:`),
    // a name from the file's own header (`gunzip -N`) or a link inside its target lands it
    // anywhere.
    let unlisted = |c: &crate::analysis::CommandUse| {
        c.name.as_deref().and_then(|n| n.rsplit('/').next()).is_some_and(|n| MAKES_UNLISTED.contains(&n))
    };
    if decision.analysis.commands.iter().any(unlisted) {
        return true;
    }
    decision.analysis.accesses.iter().filter(|a| a.perm == Perm::Write).any(|a| {
        let t = a.target.as_str();
        crate::scope::is_within(w, t)
            || (crate::scope::is_within(t, w)
                && (points().any(|p| crate::scope::is_within(&format!("{w}/{p}"), t))
                    || std::fs::symlink_metadata(format!("{t}/.git")).is_ok()))
    })
}

/// Locks this process with the kernel and execs the real bash; returns only when it does not
/// exec: a possible access the rules in force do not hold (a denial), or an error. The audit
/// record (when asked for) is written after the rules hold and before exec.
pub(crate) fn lock_and_exec(
    to_run: &ToRun<'_>,
    bash: Result<std::path::PathBuf, Error>,
    nested: Option<Nested>,
    recorder: &mut Recorder,
) -> Result<Outcome, Error> {
    let ToRun { decision, layout, exec_args, settings, env, .. } = *to_run;
    let Modes { requested, allowed, degraded_ok, .. } = settings.modes;
    let config = &settings.config;
    let bash = bash?;
    // bash reads the script again: it must still be the file that was analysed.
    if let Some(script) = decision.script.as_ref()
        && !script.unchanged()
    {
        return Err(Error::ScriptChanged(script.path.display().to_string()));
    }
    // Limits a group or a deadline holds: the keeper forks here, before anything else starts,
    // and stays outside all of it; this process goes on as the run.
    let limits = keep_limits(settings, layout, recorder)?;
    // What runs outside is started before anything is locked, so that it is outside all of it.
    let mut outside = Outside::start(to_run, nested)?;
    // The run's process enters its groups after what runs outside was started (which stays
    // out of them).
    limits.enter()?;
    let with_snapshots;
    let layout = match with_program_files(layout, decision) {
        Some(l) => {
            with_snapshots = l;
            &with_snapshots
        }
        None => layout,
    };
    // The run's own relay stays reachable for its nested levels.
    let extra = sandbox::policy::Extra {
        sockets: config.sockets.iter().cloned().chain(outside.sockets()).collect(),
        ..settings.extra()
    };
    // What decides the rules besides the mode, only where a nested level compares it or may
    // start to: a program that makes files for its run, or that the kernel layer relaxes for,
    // has inputs no nested level shares, and gives them no word and takes none.
    let may_start = nested_may_start(decision);
    let boundary = ((settings.nested() || may_start)
        && decision.client_files.is_empty()
        && decision.relaxed == plain::Relaxed::default())
    .then(|| sandbox::boundary(layout, &bash, &extra, !settings.nested()));
    // Lock first, then exec: bash and everything it starts inherit the rules.
    let mut locked = sandbox::lock(sandbox::Lock {
        allowed,
        requested,
        outer: settings.marker.as_ref(),
        degraded_ok,
        layout,
        real_bash: &bash,
        env,
        extra,
        keep_env: &config.keep_env,
        require_namespaces: config.require_namespaces,
        frozen: frozen(decision),
        network: outside.network(),
        join: outside.join(),
        in_view: limits.marks().then_some(&|| limits.mark()),
        nested_may_start: may_start,
        boundary,
    })?;
    outside.locked(&mut locked)?;
    // No network namespace: no network at all.
    if let sandbox::NetworkLayer::Unavailable(why) = &locked.network
        && let Some(message) = network_refusal(decision, requested, &NetPlan::Off(why.clone()))
    {
        return Err(Error::Refused(message));
    }
    // What the mode does not allow but the program only possibly does rests on the rules now
    // in force: each such access must be held by them, or the program is denied after all.
    if let Some(mut denial) = unheld_possible(decision, &locked.holding()) {
        denial.request = crate::request::hint(&denial, crate::decide::bounds(settings));
        let why = Some("a possible access the rules in force do not hold");
        recorder.record(decision, Verdict::Deny, Enforced::Nothing, why, &locked.static_only)?;
        return Ok(Outcome::Deny(Box::new(denial), None));
    }
    let sandbox::Locked { mode, outcome, mut static_only, namespaces, network, .. } = locked;
    // The proxy gets its listeners; its port goes to the command.
    outside.serve(network)?;
    warn_degraded(&outcome);
    static_only.extend(outside.note().map(StaticOnly::Run));
    static_only.extend(removed_secrets(settings, env).map(StaticOnly::Run));
    let e = &outcome.enforcement;
    let declared = sandbox::info::Declared {
        mode,
        landlock: e.landlock,
        seccomp: e.seccomp,
        scoped: e.landlock && e.landlock_abi.is_some_and(|v| v >= 6) || sandbox::BACKEND == "seatbelt",
        view: namespaces || sandbox::BACKEND == "seatbelt",
        hosts: match &settings.net {
            NetPlan::Proxy(list) => Some(Some(list.host_count())),
            NetPlan::Enclosed(..) => Some(None),
            _ => None,
        },
        limits: &settings.limits,
    };
    let declared = declared.line();
    limits.declare(&declared);
    recorder.declare(declared);
    recorder.record(decision, Verdict::Allow, enforced(&outcome), None, &static_only)?;
    // Secrets and sandbox-bash's own settings stay behind; the enforced mode goes along.
    let network = outside.held_lists(&settings.net);
    let marker =
        Marker { mode, namespaces, network, workspace: Some(layout.workspace.clone().into()), limits: settings.limits };
    let marker = marker_variable(&marker, &bash)?;
    let replaced: Vec<&str> =
        [sandbox::ENFORCED_VAR, crate::settings::GRANTED_VAR].into_iter().chain(outside.replaced(settings)).collect();
    let variables = outside.variables(settings, env)?;
    let mut command_env = hygiene::command_environment(env, &replaced, &config.keep_env);
    command_env.push(&marker);
    let granted = settings
        .granted
        .map(|g| std::ffi::CString::new(format!("{}={g}", crate::settings::GRANTED_VAR)).unwrap_or_default());
    command_env.extend(granted.iter().map(|g| g.as_c_str()));
    command_env.extend(variables.iter().map(|v| v.as_c_str()));
    Err(exec::exec(&bash, exec_args, &command_env))
}

/// Starts keeping the limits this level enforces itself (see [`crate::limits`]); a limit
/// that cannot be held here refuses the run.
#[cfg(target_os = "linux")]
fn keep_limits(
    settings: &Settings,
    layout: &Layout,
    recorder: &mut Recorder,
) -> Result<crate::limits::keeper::Entry, Error> {
    use crate::limits::{cgroup, disk, keeper};
    let own = settings.own_limits();
    let plan = if own.is_empty() {
        cgroup::Plan::default()
    } else {
        cgroup::plan(&own, &cgroup::hierarchies()).map_err(|why| {
            Error::Refused(format!(
                "{why}; the command did not run (lower or remove that limit in {} or the configuration, or run \
                 where a cgroup can be delegated to this user)",
                crate::limits::VAR
            ))
        })?
    };
    keeper::keep(&own, &plan, &disk::scratch(layout.tmpdir.as_deref()), recorder)
}

/// Limits are not held on this platform yet: a run that has some is refused.
#[cfg(not(target_os = "linux"))]
fn keep_limits(settings: &Settings, _: &Layout, _: &mut Recorder) -> Result<NoLimits, Error> {
    let own = settings.own_limits();
    match own.iter().next() {
        None => Ok(NoLimits),
        Some((kind, value)) => Err(Error::Refused(format!(
            "the {} limit ({}) cannot be enforced on this platform; the command did not run",
            kind.key(),
            crate::limits::bound(kind, value)
        ))),
    }
}

#[cfg(not(target_os = "linux"))]
struct NoLimits;

#[cfg(not(target_os = "linux"))]
impl NoLimits {
    fn enter(&self) -> Result<(), Error> {
        Ok(())
    }

    fn marks(&self) -> bool {
        false
    }

    fn mark(&self) -> Result<(), String> {
        Ok(())
    }

    fn declare(&self, _: &str) {}
}

/// The layout with what the program earns: the snapshot file it takes, created now so that
/// the kernel can grant that one file, and what a plain program lifts (`None`: nothing).
fn with_program_files(layout: &Layout, decision: &Decision) -> Option<Layout> {
    let snapshots = create_client_files(layout, &decision.client_files);
    if snapshots.is_empty() && decision.relaxed == plain::Relaxed::default() {
        return None;
    }
    Some(Layout { client_files: snapshots, relaxed: decision.relaxed.clone(), ..layout.clone() })
}

/// The script bash reads, as it was analysed: the namespace layer gives bash this copy.
fn frozen(decision: &Decision) -> Option<sandbox::view::Frozen<'_>> {
    match (decision.script.as_ref(), decision.script_bytes.as_ref()) {
        (Some(identity), Some((path, bytes))) => {
            Some(sandbox::view::Frozen { path, bytes, identity: identity.node(), mode: identity.permissions() })
        }
        _ => None,
    }
}

/// Running degraded is said every time.
fn warn_degraded(outcome: &sandbox::Outcome) {
    if outcome.shortfalls.is_empty() {
        return;
    }
    let missing: Vec<String> = outcome.shortfalls.iter().map(|s| format!("{} ({})", s.what, s.why)).collect();
    let _ = writeln!(
        std::io::stderr(),
        "sandbox-bash: warning: running degraded ({}=1): not enforced: {}",
        sandbox::DEGRADED_VAR,
        missing.join("; ")
    );
}

/// The marker as the command's environment gets it.
fn marker_variable(marker: &Marker, bash: &std::path::Path) -> Result<std::ffi::CString, Error> {
    let mut entry = format!("{}=", sandbox::ENFORCED_VAR).into_bytes();
    entry.extend_from_slice(marker.value().as_bytes());
    std::ffi::CString::new(entry).map_err(|_| Error::Exec {
        path: bash.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "the workspace path contains a NUL byte"),
    })
}

/// What the record says the kernel enforces.
fn enforced(outcome: &sandbox::Outcome) -> Enforced {
    if !outcome.shortfalls.is_empty() {
        Enforced::Degraded
    } else if outcome.layer_limit {
        Enforced::OuterLayers
    } else if outcome.run_layers {
        Enforced::RunLayers
    } else {
        Enforced::Whole
    }
}

/// Secrets are removed from the command's environment; the outermost level names them once, so
/// that an empty variable is not a mystery (and the record says so too).
fn removed_secrets(settings: &Settings, env: &Environ) -> Option<String> {
    if settings.nested() {
        return None;
    }
    let removed: Vec<String> = hygiene::removed_names(env, &settings.config.keep_env)
        .into_iter()
        .filter(|n| !n.starts_with(hygiene::CONTROL_PREFIX))
        .collect();
    if removed.is_empty() {
        return None;
    }
    let line = format!(
        "removed from the command's environment because their names or values look secret: {} (keep one with \
         [environment] keep in the configuration)",
        removed.join(" ")
    );
    let _ = writeln!(std::io::stderr(), "sandbox-bash: note: {line}");
    Some(line)
}

/// How many new snapshot files one program may name (an agent's shell takes one).
pub(crate) const MAX_SNAPSHOTS: usize = 4;

/// Creates the new files `files` (empty, mode 0600), each in its agent's directory reached by
/// no link and still the directory that was examined, and returns those it created with their
/// device and inode: a file that appeared meanwhile, or a directory swapped since, is not this
/// run's and gets no rule.
pub(crate) fn create_client_files(layout: &Layout, files: &[String]) -> Vec<(String, (u64, u64))> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::own_real_dir;

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
