//! What runs outside a run on Linux, from the run's side: the supervisor and the network proxy
//! are started before the lock (see [`crate::outside`]), get what the lock made, and the
//! command gets the variables that lead to them.

use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

use super::{Nested, ToRun};
use crate::environ::Environ;
use crate::error::Error;
use crate::mode::{self, Mode, Perm};
use crate::network::{NetPlan, fingerprint};
use crate::outside::proxy;
use crate::report::Decision;
use crate::sandbox::inherited;
use crate::scope::Layout;
use crate::settings::Settings;
use crate::{allowlist, caches, exec, outside, sandbox};

/// What runs outside for this run, started.
pub(crate) struct Outside {
    supervisor: Option<outside::Supervisor>,
    /// The supervisor serves the agent session's signals, and watches the run's refusals.
    signals: bool,
    /// Why the session's calls cannot signal each other's processes (no supervisor could be had).
    missing: Option<String>,
    proxy: Option<proxy::Spawned>,
    /// The agent session's namespace, joined, and its proxy's port.
    joined: Option<(OwnedFd, u16)>,
    /// The loopback ports the namespace forwards, when the network is held by host.
    loopback: Option<Vec<u16>>,
    /// The proxy's port, once it serves.
    port: Option<u16>,
    /// The command's end of the audit channel (owned: this level's; or the enclosing level's
    /// number), and the relay's socket.
    channel: Option<(Option<OwnedFd>, i32)>,
    relay_path: Option<String>,
    session: Option<outside::session::Session>,
}

impl Outside {
    /// Closes what the caller left open and the mode does not give (before anything is
    /// started, which would inherit it too), then starts the supervisor (the audit log this
    /// level writes, the agent session's signals) and the proxy, whose refusals go to it.
    pub(crate) fn start(to_run: &ToRun<'_>, nested: Option<Nested>) -> Result<Outside, Error> {
        let ToRun { layout, settings, env, .. } = *to_run;
        let state = state_dir(layout, env);
        let reachable = reachable_sockets(settings, layout, env);
        inherited::close(settings.modes.allowed, layout, &reachable, matches!(settings.net, NetPlan::Proxy(_)));
        let (own_log, passed_on) = match nested {
            Some(Nested::Relay(log)) => (log, None),
            Some(Nested::PassOn(raw)) => (None, Some(raw)),
            None => (None, None),
        };
        let writes_log = own_log.is_some();
        let mut started = Outside {
            supervisor: None,
            signals: false,
            missing: None,
            proxy: None,
            joined: None,
            loopback: None,
            port: None,
            channel: None,
            relay_path: None,
            session: to_run.session.cloned(),
        };
        started.start_supervisor(to_run, own_log, state.clone())?;
        if let Some(s) = started.supervisor.as_mut()
            && writes_log
        {
            let fd = s.channel.take();
            started.channel = fd.map(|fd| {
                let raw = fd.as_raw_fd();
                (Some(fd), raw)
            });
            started.relay_path = s.relay_path.clone();
        }
        if let Some(raw) = passed_on {
            started.channel = Some((None, raw));
            started.relay_path = env
                .get(outside::relay::RELAY_VAR)
                .map(|p| p.to_string_lossy().into_owned())
                .filter(|p| p.starts_with('/'));
        }
        if let NetPlan::Proxy(list) = &settings.net {
            // What the proxy refuses is noted where a later request may ask for it.
            let observe = to_run.layout.private.first().map(|d| (d.clone(), to_run.layout.workspace.clone()));
            started.start_proxy(list, settings.modes.allowed, state.as_deref(), observe)?;
        }
        Ok(started)
    }

    /// The supervisor, when it has a job: the audit log this level writes, or the signals of an
    /// agent session whose program may send them. Without it, a session's calls cannot signal
    /// each other's processes (said in the record; the run goes on); a log that cannot be kept
    /// is an error: the user asked for a trail.
    fn start_supervisor(
        &mut self,
        to_run: &ToRun<'_>,
        own_log: Option<crate::audit::Log>,
        state: Option<String>,
    ) -> Result<(), Error> {
        // The outermost level watches a program that may send signals, run code the analysis
        // cannot see, reach paths it could not name (words it could not resolve, accesses
        // only possible), or make names it does not list where a persistence point may be
        // made: what the rules refuse it is told on its stderr, and the watch refuses what
        // would make a point that is not there yet.
        let watched = !to_run.settings.nested()
            && (sends_signals(to_run.decision)
                || super::unseen(to_run.decision)
                || super::writes_above_points(to_run.decision, to_run.layout));
        let session = self.session.clone().filter(|_| watched);
        let writes_log = own_log.is_some();
        if !writes_log && !watched {
            return Ok(());
        }
        let proxy = matches!(to_run.settings.net, NetPlan::Proxy(_));
        let signals = watched;
        let audit = own_log.map(|log| outside::Audit { log, state, proxy });
        let watch = watched.then(|| outside::Watching {
            layout: to_run.layout.clone(),
            stderr: exec::duplicate(2).ok(),
            ceiling: to_run.settings.config.max_mode,
        });
        match outside::spawn(outside::Jobs { audit, session, watch }) {
            Ok(s) => {
                self.supervisor = Some(s);
                self.signals = signals;
            }
            Err(why) if writes_log => return Err(Error::Audit(why)),
            Err(why) => {
                self.missing =
                    Some(format!("the calls of this agent session cannot signal each other's processes: {why}"));
            }
        }
        Ok(())
    }

    /// The proxy for `list`; a later call of an agent session joins the session's namespace
    /// and proxy instead, when they live.
    fn start_proxy(
        &mut self,
        list: &allowlist::Allowlist,
        allowed: Mode,
        state: Option<&str>,
        observe: Option<(String, String)>,
    ) -> Result<(), Error> {
        let sockets = sandbox::netns::inherited_network_sockets().map_err(Error::Refused)?;
        if !sockets.is_empty() {
            let fds: Vec<String> = sockets.iter().map(i32::to_string).collect();
            return Err(Error::Refused(format!(
                "descriptor {} is a network socket made outside the sandbox: through it the command would reach the \
                 network around the allowlist; start sandbox-bash without it (close it, or mark it close-on-exec)",
                fds.join(", ")
            )));
        }
        self.loopback = Some(list.loopback());
        // The sessions' directory was made with the layout (see `sessions_dirs`).
        let registry = self.session.as_ref().zip(state).map(|(s, state)| proxy::registry::path(state, &s.id));
        // The command's standard error goes along: the session's proxy tells this call what it
        // refuses this call's processes.
        let stderr = exec::duplicate(2).ok();
        self.joined = registry.as_deref().and_then(|p| proxy::registry::join(p, stderr.as_ref()).ok());
        if self.joined.is_some() {
            return Ok(());
        }
        let access =
            if allowed.has(mode::Scope::Network, Perm::Write) { proxy::Access::Write } else { proxy::Access::Read };
        // Its refusals: to this level's supervisor, or through the enclosing level's channel (a
        // copy of its own).
        let records = match (&self.channel, self.supervisor.as_mut()) {
            (Some((Some(_), _)), Some(s)) => s.proxy_records.take(),
            (Some((None, raw)), _) => exec::duplicate(*raw).ok(),
            _ => None,
        };
        // The command's standard error, where the proxy tells each refusal while the command
        // lives (none when it is closed).
        let stderr = exec::duplicate(2).ok();
        // A request for more hosts is made at the outermost level, the one that starts a proxy.
        let mode = Some(allowed);
        let told = proxy::Tell { stderr, mode, observe };
        self.proxy = Some(proxy::spawn(list.clone(), access, records, registry, told).map_err(Error::Refused)?);
        Ok(())
    }

    /// The loopback ports of the network namespace the lock is to make, when the network is
    /// held by host.
    pub(crate) fn network(&self) -> Option<&[u16]> {
        self.loopback.as_deref()
    }

    /// The agent session's namespace to join instead.
    pub(crate) fn join(&self) -> Option<&OwnedFd> {
        self.joined.as_ref().map(|(fd, _)| fd)
    }

    /// The sockets the command keeps reaching: the run's own relay, for its nested levels.
    pub(crate) fn sockets(&self) -> Vec<String> {
        self.relay_path.iter().cloned().collect()
    }

    /// Once locked: puts the watch's filter on last and hands its listener to the supervisor at
    /// once, with the rules in force (until the supervisor holds it, every open of this process
    /// would wait: nothing is opened between the two).
    pub(crate) fn locked(&mut self, locked: &mut sandbox::Locked) -> Result<(), Error> {
        match self.supervisor.take() {
            Some(s) => {
                let watch = sandbox::Watch { paths: true, reads: true };
                let listener = if self.signals { sandbox::linux::install_watch(locked, watch) } else { None };
                let rules = listener.as_ref().and_then(|_| sandbox::watch_rules(locked));
                s.hand_over(listener, rules).map_err(Error::Refused)
            }
            None => Ok(()),
        }
    }

    /// Hands the proxy its listeners: the command may run.
    pub(crate) fn serve(&mut self, network: sandbox::NetworkLayer) -> Result<(), Error> {
        self.port = match (self.proxy.take(), network, &self.joined) {
            (Some(spawned), sandbox::NetworkLayer::Held(handover), _) => {
                let port = handover.port;
                spawned.hand_over(handover).map_err(Error::Refused)?;
                Some(port)
            }
            // The session's namespace, joined: its proxy's port.
            (None, sandbox::NetworkLayer::Joined, Some((_, port))) => Some(*port),
            _ => None,
        };
        Ok(())
    }

    /// What the record says the run goes without.
    pub(crate) fn note(&self) -> Option<String> {
        self.missing.clone()
    }

    /// The fingerprints of every list the network is held for, for the marker: this level's
    /// proxy holds its list and each of its layers' prefixes; an enclosing level's, as they came.
    pub(crate) fn held_lists(&self, net: &NetPlan) -> Option<String> {
        match (net, self.port) {
            (NetPlan::Proxy(list), Some(_)) => Some(
                (1..=list.layers.len())
                    .map(|n| fingerprint(&allowlist::Allowlist { layers: list.layers[..n].to_vec() }))
                    .collect::<Vec<_>>()
                    .join("."),
            ),
            (NetPlan::Enclosed(fp, _), _) => Some(fp.clone()),
            _ => None,
        }
    }

    /// The variables the command's environment gets anew from here.
    pub(crate) fn replaced(&self, settings: &Settings) -> Vec<&'static str> {
        let mut names = vec![outside::relay::CHANNEL_VAR];
        if self.port.is_some() || settings.nested() {
            names.extend(proxy::variable_names());
        }
        names
    }

    /// The variables that lead the command to what runs outside: the proxy's (this level's, or
    /// the enclosing level's as they came: a nested run is inside the enclosing namespace, whose
    /// proxy is its way out), the audit channel (inherited across exec) and the relay's socket,
    /// and the agent session's id (this level's, or the enclosing one's).
    pub(crate) fn variables(&self, settings: &Settings, env: &Environ) -> Result<Vec<CString>, Error> {
        let entry = |name: &str, value: &[u8]| {
            let mut bytes = format!("{name}=").into_bytes();
            bytes.extend_from_slice(value);
            CString::new(bytes).ok()
        };
        let mut vars: Vec<CString> = Vec::new();
        match self.port {
            Some(port) => vars.extend(proxy::variables(port).into_iter().filter_map(|(n, v)| entry(n, v.as_bytes()))),
            None if settings.nested() => vars.extend(
                proxy::variable_names().into_iter().filter_map(|n| env.get(n).and_then(|v| entry(n, v.as_bytes()))),
            ),
            None => {}
        }
        if let Some((owned, raw)) = &self.channel {
            if let Some(fd) = owned {
                outside::relay::inherit(fd).map_err(Error::Audit)?;
            }
            vars.extend(entry(outside::relay::CHANNEL_VAR, raw.to_string().as_bytes()));
        }
        if let Some(path) = &self.relay_path {
            vars.extend(entry(outside::relay::RELAY_VAR, path.as_bytes()));
        }
        let marker = outside::session::MARKER_VAR;
        match &self.session {
            Some(s) => vars.extend(entry(marker, s.id.as_bytes())),
            None => vars.extend(env.get(marker).and_then(|v| entry(marker, v.as_bytes()))),
        }
        Ok(vars)
    }
}

/// sandbox-bash's state directory, where it really is.
fn state_dir(layout: &Layout, env: &Environ) -> Option<String> {
    let var = |name: &str| env.get(name).map(|v| v.to_string_lossy().into_owned());
    caches::state_dir(layout.home.as_deref(), &var).and_then(|s| exec::canonicalize(&s).ok())
}

/// The servers' sockets an inherited descriptor may stay connected to: the configuration's, and
/// the audit relays' in the state directory (a nested level's connection to the relay, made by a
/// level above, which no command can write), where it is named and where it really is. The run
/// closes the others before the lock, and `--sandbox-explain` says so from the same list.
pub(crate) fn reachable_sockets(settings: &Settings, layout: &Layout, env: &Environ) -> Vec<String> {
    let var = |name: &str| env.get(name).map(|v| v.to_string_lossy().into_owned());
    let named = caches::state_dir(layout.home.as_deref(), &var);
    let real = named.as_deref().and_then(|s| exec::canonicalize(s).ok());
    let mut relays: Vec<String> = named.into_iter().chain(real).map(|s| format!("{s}/relays")).collect();
    relays.dedup();
    settings.config.sockets.iter().cloned().chain(relays).collect()
}

/// Programs that send signals to processes they name.
const SIGNAL_SENDERS: &[&str] = &["kill", "pkill", "killall", "fuser", "skill", "pidof", "killpg"];

/// Whether the program may signal a process it did not start: it names a program that sends
/// signals, or runs code the analysis cannot see (workspace execute: an interpreter, a build
/// tool, a script, a name that is not static), or comes on standard input or interactively.
fn sends_signals(decision: &Decision) -> bool {
    super::not_all_seen(decision)
        || decision.analysis.commands.iter().any(|c| c.name.as_deref().is_none_or(|n| SIGNAL_SENDERS.contains(&n)))
}

/// An agent session (see [`outside::session`]).
pub(crate) type Session = outside::session::Session;

/// The agent session of the run: this outermost level's, or the enclosing level's, whose id it
/// was given.
pub(crate) struct RunSession {
    own: Option<Session>,
    id: Option<String>,
}

impl RunSession {
    /// The session's id, for the records.
    pub(crate) fn id(&self) -> Option<String> {
        self.id.clone()
    }

    /// The session this level starts (it is the outermost).
    pub(crate) fn own(&self) -> Option<&Session> {
        self.own.as_ref()
    }
}

/// The agent session of the run.
pub(crate) fn session(settings: &Settings, layout: &Layout, env: &Environ) -> RunSession {
    let own = (!settings.nested()).then(|| session_of(env, layout, settings.modes.allowed, &settings.net));
    let id = own
        .as_ref()
        .map(|s| s.id.clone())
        .or_else(|| env.get(outside::session::MARKER_VAR).map(|v| v.to_string_lossy().into_owned()));
    RunSession { own, id }
}

/// The agent session of an outermost level's run (see [`outside::session`]).
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
