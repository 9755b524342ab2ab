//! What one invocation goes by, read once before anything else: the configuration files, the
//! environment's settings, the enclosing level's marker, and the mode they come to. The mode is
//! narrowed here and nowhere else: by the enclosing level's mode, by the administrator's
//! ceiling, and by a network that can only be held by a namespace that cannot be had.

use std::ffi::{OsStr, OsString};

use crate::cli::Action;
use crate::environ::Environ;
use crate::error::Error;
use crate::mode::{self, MODE_VAR, Mode, Perm};
use crate::network::{NETWORK_BITS, NetPlan, fingerprint, net_plan, network_allowlist};
use crate::sandbox::marker::Marker;
use crate::scope::{self, Layout};
use crate::{config, exec, sandbox};

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

/// The settings of one invocation.
#[derive(Clone)]
pub(crate) struct Settings {
    /// The name bash is started by (`argv[0]`).
    pub(crate) argv0: OsString,
    pub(crate) action: Action,
    pub(crate) config: config::Config,
    /// The enclosing level's marker (none: this level is the outermost).
    pub(crate) marker: Option<Marker>,
    pub(crate) modes: Modes,
    /// How the network is held.
    pub(crate) net: NetPlan,
    /// The working directory, read once: the layout and the analysis both start from it.
    pub(crate) cwd: String,
    /// The mode a person granted this run (see [`crate::approval`]), passed to nested levels.
    pub(crate) granted: Option<Mode>,
    /// The mode a person granted the enclosing level's run, as it said (a nested level only).
    pub(crate) outer_grant: Option<Mode>,
    /// The resource limits of the run: the configuration's, lowered by [`crate::limits::VAR`]
    /// and by what the enclosing levels hold.
    pub(crate) limits: crate::limits::Limits,
}

/// The limits an enclosing level's marker says hold, as far as they can be seen to.
#[cfg(target_os = "linux")]
fn held_limits(claimed: &crate::limits::Limits) -> crate::limits::Limits {
    crate::limits::cgroup::verified(claimed)
}

#[cfg(not(target_os = "linux"))]
fn held_limits(_: &crate::limits::Limits) -> crate::limits::Limits {
    crate::limits::Limits::NONE
}

impl Settings {
    /// The limits this level enforces itself: those lower than what the enclosing levels hold.
    pub(crate) fn own_limits(&self) -> crate::limits::Limits {
        let held = self.marker.as_ref().map(|m| m.limits).unwrap_or_default();
        self.limits.beyond(&held)
    }
}

/// The variable a level that a person granted a wider mode gives its command: a nested level
/// that makes the same request then runs as asked, whatever stale marker (such as one a
/// client's shell snapshot exported in an earlier call) says. It can widen nothing the
/// enclosing level's kernel rules hold.
pub(crate) const GRANTED_VAR: &str = "SANDBOX_BASH_GRANTED";

impl Settings {
    /// Reads the settings of an invocation started as `argv0` that asks for `action`.
    pub(crate) fn read(argv0: OsString, action: Action, env: &Environ) -> Result<Settings, Error> {
        // Configuration files, when there are any (none: nothing is parsed).
        let home_var = env.get("HOME");
        let sources = config::Sources::from_env(
            env.get(config::CONFIG_VAR),
            env.get("XDG_CONFIG_HOME"),
            home_var,
            env.get("TMPDIR"),
        );
        let config = config::load(&sources, home_var.and_then(|h| h.to_str())).map_err(Error::Config)?;
        let requested = match env.get(MODE_VAR) {
            Some(value) => Mode::from_env_value(Some(value)).map_err(Error::Mode)?,
            None => config.default_mode.unwrap_or(mode::DEFAULT_MODE),
        };
        // An enclosing sandbox-bash enforces its own mode on us, and the administrator's
        // ceiling holds whatever is asked: we can only narrow.
        let marker = Marker::of(env);
        let outer = marker.as_ref().map(|m| m.mode);
        let mut allowed = outer.map_or(requested, |o| requested.intersect(o));
        if let Some(ceiling) = config.max_mode {
            allowed = allowed.intersect(ceiling);
        }
        // With a network allowlist in force, the command's own network namespace and the proxy
        // outside it are the way out; where they cannot be had, the command gets no network at
        // all (and a program that needs it is refused), never every host.
        let allowlist = network_allowlist(&config, env)?;
        let mut net = net_plan(allowlist.as_ref(), allowed, marker.as_ref());
        if matches!(action, Action::Info { .. } | Action::Explain { .. })
            && let NetPlan::Proxy(_) = &net
            && let Err(why) = sandbox::network_namespace_probe(false)
        {
            net = NetPlan::Off(why);
        }
        if let NetPlan::Off(_) = &net {
            allowed = allowed.without(NETWORK_BITS);
        }
        let degraded_ok = sandbox::degraded_allowed(env.get(sandbox::DEGRADED_VAR))? || config.allow_degraded;
        let cwd = std::env::current_dir().map_err(Error::Cwd)?.to_string_lossy().into_owned();
        let modes = Modes { requested, allowed, outer, degraded_ok };
        let outer_grant = marker
            .as_ref()
            .and_then(|_| env.get(GRANTED_VAR))
            .and_then(|v| v.to_str())
            .and_then(|v| Mode::parse(v).ok());
        let asked = match env.get(crate::limits::VAR).map(|v| v.to_string_lossy()) {
            Some(text) => crate::limits::Limits::parse(&text)
                .map_err(|e| Error::Config(format!("invalid {}: {e}", crate::limits::VAR)))?,
            None => crate::limits::Limits::NONE,
        };
        let held = marker.as_ref().map(|m| held_limits(&m.limits)).unwrap_or_default();
        let limits = config.limits.lower(&asked).lower(&held);
        let marker = marker.map(|m| Marker { limits: held, ..m });
        Ok(Settings { argv0, action, config, marker, modes, net, cwd, granted: None, outer_grant, limits })
    }

    /// The settings of this one run once a request for `mode` is granted (or held by the
    /// enclosing level): the mode as allowed and asked, still within the enclosing level's
    /// mode and the ceiling, and the network planned for it.
    pub(crate) fn widen(&mut self, mode: Mode, hosts: &[String], env: &Environ) -> Result<(), Error> {
        // Within the enclosing level's mode, or the mode a person granted its run.
        let mut allowed = match self.modes.outer {
            Some(_) if self.outer_grant == Some(mode) => mode,
            Some(o) => mode.intersect(o),
            None => mode,
        };
        if let Some(ceiling) = self.config.max_mode {
            allowed = allowed.intersect(ceiling);
        }
        let mut allowlist = network_allowlist(&self.config, env)?;
        if !hosts.is_empty() {
            let entries: Vec<crate::allowlist::Entry> = hosts
                .iter()
                .map(|h| crate::allowlist::Entry::parse(h))
                .collect::<Result<_, _>>()
                .map_err(Error::Config)?;
            allowlist = allowlist.map(|l| l.with_hosts(&entries));
        }
        self.net = net_plan(allowlist.as_ref(), allowed, self.marker.as_ref());
        if let NetPlan::Off(_) = &self.net {
            allowed = allowed.without(NETWORK_BITS);
        }
        self.modes.requested = mode;
        self.modes.allowed = allowed;
        Ok(())
    }

    /// Where the run stands (see [`crate::workspace`]). A configuration file the command may
    /// write is refused: it would widen every later run, and the kernel cannot keep a file
    /// inside the writable workspace from being changed.
    pub(crate) fn layout(&self, env: &Environ) -> Result<Layout, Error> {
        let allowed = self.modes.allowed;
        // The caches' layers are kept apart by mode and network list: what a run wrote there
        // is found only by runs that may do no more than it could.
        let layers_for = match self.network_list() {
            Some(fp) => format!("{allowed}-{fp}"),
            None => allowed.to_string(),
        };
        let run = self.action == Action::Run;
        let layout = crate::workspace::layout(self, env, &layers_for, run)?;
        if allowed.has(mode::Scope::Workspace, Perm::Write) {
            for f in self.config.files.iter().filter(|f| !scope::is_system_path(f)) {
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
    }

    /// The fingerprint of the network list the run is held to, when it is held to one.
    pub(crate) fn network_list(&self) -> Option<String> {
        match &self.net {
            NetPlan::Proxy(list) | NetPlan::Enclosed(_, list) => Some(fingerprint(list)),
            _ => None,
        }
    }

    /// The real bash: the variable's, else the configuration's, else the first on `PATH`.
    pub(crate) fn find_bash(&self, env: &Environ) -> Result<std::path::PathBuf, Error> {
        let explicit = env
            .get(exec::REAL_BASH_VAR)
            .map(|b| (b, exec::Setting::Variable))
            .or_else(|| self.config.real_bash.as_deref().map(|b| (OsStr::new(b), exec::Setting::Config)));
        exec::find_real_bash(explicit, env.get("PATH"))
    }

    /// Whether an enclosing sandbox-bash started this level.
    pub(crate) fn nested(&self) -> bool {
        self.marker.is_some()
    }

    /// What the configuration adds to the kernel rules.
    pub(crate) fn extra(&self) -> sandbox::policy::Extra {
        let config = &self.config;
        sandbox::policy::Extra {
            config_files: config.files.clone(),
            runtime_read: config.runtime_read.clone(),
            runtime_execute: config.runtime_execute.clone(),
            ceiling: config.max_mode,
            sockets: config.sockets.clone(),
        }
    }
}
