//! From an allowed program to bash: what runs outside is started, the process locks itself,
//! the audit record is written, and bash is executed with the command's environment.

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;

use crate::decide::unheld_possible;
use crate::environ::Environ;
use crate::error::Error;
use crate::mode::{self, Mode, Perm};
use crate::network::{NETWORK_BITS, NetPlan, fingerprint, network_refusal};
use crate::outcome::Outcome;
use crate::report::Decision;
use crate::scope::{self, Layout};
use crate::{allowlist, audit, caches, config, exec, hygiene, plain, sandbox};
#[cfg(target_os = "linux")]
use crate::{inherited, outside, proxy};

/// Writes one audit record (verdict, enforcement status, error, what only the static layer
/// holds), or nothing when no log is set.
pub(crate) type AuditWriter<'a> = dyn FnMut(&str, &str, Option<&str>, &[String]) -> Result<(), Error> + 'a;

/// The modes of one invocation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Modes {
    /// What the caller asked for (or the configured default).
    pub(crate) requested: Mode,
    /// What is allowed: the request within the enclosing sandbox-bash's mode and the ceiling.
    pub(crate) allowed: Mode,
    /// The enclosing sandbox-bash's mode, when there is one.
    pub(crate) outer: Option<Mode>,
    /// Running with a kernel layer that cannot enforce everything is allowed.
    pub(crate) degraded_ok: bool,
}

/// A program the static layer allowed, with what running it needs.
pub(crate) struct ToRun<'a> {
    pub(crate) decision: &'a Decision,
    pub(crate) layout: &'a Layout,
    /// bash's argv, `argv[0]` first.
    pub(crate) exec_args: &'a [OsString],
    pub(crate) modes: Modes,
    pub(crate) config: &'a config::Config,
    pub(crate) env: &'a Environ,
    pub(crate) net: &'a NetPlan,
    /// The agent session of an outermost level.
    #[cfg(target_os = "linux")]
    pub(crate) session: Option<&'a outside::session::Session>,
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

/// Locks this process with the kernel and execs the real bash; returns only when it does not
/// exec: a possible access the rules in force do not hold (a denial), or an error. The audit
/// record (when asked for) is written after the rules hold and before exec.
pub(crate) fn lock_and_exec(
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
pub(crate) type Started = (Option<(outside::Supervisor, bool)>, Option<String>);

#[cfg(target_os = "linux")]
pub(crate) fn start_supervisor(to_run: &ToRun<'_>, own_log: Option<audit::Log>) -> Result<Started, Error> {
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
pub(crate) const SIGNAL_SENDERS: &[&str] = &["kill", "pkill", "killall", "fuser", "skill", "pidof", "killpg"];

/// Whether the program may signal a process it did not start: it names a program that sends
/// signals, or runs code the analysis cannot see (workspace execute: an interpreter, a build
/// tool, a script, a name that is not static), or comes on standard input or interactively.
#[cfg(target_os = "linux")]
pub(crate) fn sends_signals(decision: &Decision) -> bool {
    decision.source != "command" && decision.source != "script"
        || decision.required.has(mode::Scope::Workspace, Perm::Execute)
        || decision.analysis.commands.iter().any(|c| c.name.as_deref().is_none_or(|n| SIGNAL_SENDERS.contains(&n)))
}

/// How many new snapshot files one program may name (an agent's shell takes one).
pub(crate) const MAX_SNAPSHOTS: usize = 4;

/// The tree `log` lies in when the mode lets commands write it (scratch always).
pub(crate) fn writable_tree(layout: &Layout, allowed: Mode, log: &str) -> Option<scope::Class> {
    match layout.classify(log, true) {
        scope::Class::Scratch => Some(scope::Class::Scratch),
        class => class.scope().filter(|s| allowed.has(*s, Perm::Write)).map(|_| class),
    }
}

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

/// What the configuration adds to the kernel rules.
pub(crate) fn extra(config: &config::Config) -> sandbox::policy::Extra {
    sandbox::policy::Extra {
        config_files: config.files.clone(),
        runtime_read: config.runtime_read.clone(),
        runtime_execute: config.runtime_execute.clone(),
        ceiling: config.max_mode,
        sockets: config.sockets.clone(),
    }
}

/// The agent session of an outermost level's run (see [`outside::session`]).
#[cfg(target_os = "linux")]
pub(crate) fn session_of(env: &Environ, layout: &Layout, allowed: Mode, net: &NetPlan) -> outside::session::Session {
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
pub(crate) fn sandbox_info(
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
