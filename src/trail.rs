//! Where the records of a run go: the audit log this level writes, or the enclosing level's
//! relay, which writes it for this one (see [`crate::outside::relay`]).
//!
//! A record holds the program's text: written into a file that runs code later (a start-up
//! file, git's configuration), it would run outside any sandbox. A log in a tree the command
//! may write could be moved away and another put in its place. Inside readable trees it is held
//! like a credential: a command neither reads the commands recorded before it nor holds the
//! log's lock.

use std::ffi::OsStr;
#[cfg(target_os = "linux")]
use std::io::Write;

use crate::audit::{Enforced, Verdict};
use crate::cli::Action;
use crate::environ::Environ;
use crate::error::Error;
use crate::launch::Nested;
use crate::mode::{self, Mode, Perm};
#[cfg(target_os = "linux")]
use crate::outside;
use crate::report::Decision;
use crate::sandbox::StaticOnly;
use crate::scope::{self, Layout};
use crate::settings::Settings;
use crate::{audit, exec};

/// Where this run's records go, found before the decision.
pub(crate) struct Trail {
    /// The enclosing level's channel, when its relay takes this level's records.
    channel: Option<i32>,
    /// A note every record carries: the log lies where commands can write it.
    writable: Option<String>,
}

/// Writes the records of one run.
pub(crate) struct Recorder {
    log: Option<audit::Log>,
    writable: Option<String>,
}

impl Trail {
    /// Where the records go. A log the mode lets commands write, or one in a protected or
    /// credential path, or behind a link, is refused; the log's paths are held like
    /// credentials in `layout`. Explaining writes nothing and warns of nothing.
    pub(crate) fn find(settings: &Settings, env: &Environ, layout: &mut Layout) -> Result<Trail, Error> {
        let explaining = matches!(settings.action, Action::Explain { .. });
        let (config, cwd, allowed) = (&settings.config, settings.cwd.as_str(), settings.modes.allowed);
        // The audit log this level writes (none when an enclosing level's relay takes the records).
        // A record holds the program's text: written into a file that runs code later (a start-up
        // file, git's configuration), it would run outside any sandbox. A log in a tree the command
        // may write could be moved away and another put in its place. Inside readable trees it is
        // held like a credential: a command neither reads the commands recorded before it nor
        // holds the log's lock.
        // A program on the way may have closed the descriptors it inherited (Python's subprocess
        // does): the relay's socket is reached again by its path.
        // The relay's socket is tried first: who answers there can be checked (outside this
        // sandbox), which a descriptor handed down cannot be.
        #[cfg(target_os = "linux")]
        let (channel, unchecked) = match env
            .get(outside::relay::CHANNEL_VAR)
            .and(outside::relay::reconnect(env.get(outside::relay::RELAY_VAR)))
        {
            Some(Ok(fd)) => (Some(fd), None),
            Some(Err(why)) => (None, Some(why)),
            None => (outside::relay::inherited(env.get(outside::relay::CHANNEL_VAR)), None),
        };
        #[cfg(target_os = "linux")]
        if let Some(why) = &unchecked
            && !explaining
        {
            let _ = writeln!(
                std::io::stderr(),
                "sandbox-bash: warning: {} names no audit relay: {why}; this run is not recorded",
                outside::relay::RELAY_VAR
            );
        }
        // An enclosing level asked for a trail that this run cannot reach. Say so; it still runs.
        #[cfg(target_os = "linux")]
        if channel.is_none()
            && unchecked.is_none()
            && let Some(named) = env.get(outside::relay::CHANNEL_VAR)
            && !explaining
        {
            let _ = writeln!(
                std::io::stderr(),
                "sandbox-bash: warning: {}={} names no audit channel here (a program on the way closed the \
                 descriptors it inherited, as Python's subprocess does by default): this run is not recorded",
                outside::relay::CHANNEL_VAR,
                named.to_string_lossy()
            );
        }
        #[cfg(not(target_os = "linux"))]
        let channel: Option<i32> = None;
        let audit_paths: Vec<String> = env
            .get(audit::AUDIT_VAR)
            .map(|p| p.to_string_lossy().into_owned())
            .into_iter()
            .chain(config.audit_log.as_ref().map(|l| l.path.clone()))
            .filter(|p| !p.is_empty() && channel.is_none())
            .flat_map(|raw| {
                // Where it really is too: a link on the way (`dir/link/../log`) leads elsewhere than
                // the lexical path says.
                let joined = std::path::Path::new(&cwd).join(&raw);
                let real = joined.parent().and_then(|d| {
                    let name = joined.file_name()?.to_string_lossy().into_owned();
                    exec::canonicalize(&d.to_string_lossy()).ok().map(|d| format!("{}/{name}", d.trim_end_matches('/')))
                });
                let p = scope::normalize(cwd, &raw);
                let real = real.filter(|r| *r != p);
                std::iter::once(p).chain(real)
            })
            .collect();
        let mut log_writable: Option<String> = None;
        if !explaining {
            for n in &audit_paths {
                if layout.is_protected(n) || layout.is_credential(n) {
                    return Err(Error::Audit(format!(
                        "refusing to write the audit log to {n}: it is a protected or credential path, and the program \
                         text in the records would run later"
                    )));
                }
                if std::fs::symlink_metadata(n).is_ok_and(|m| m.file_type().is_symlink()) {
                    return Err(Error::Audit(format!(
                        "refusing to write the audit log to {n}: it is a symbolic link; name the file it leads to"
                    )));
                }
                // A mode that writes the system writes every tree: no place is left that a log
                // could be kept from commands in, and the records say so instead.
                if allowed.has(mode::Scope::System, Perm::Write) {
                    log_writable = Some(format!(
                        "the audit log {n} lies where mode {allowed} lets commands write (a mode with system write \
                         leaves no place they cannot): these records can be changed by the commands they record"
                    ));
                } else if let Some(tree) = writable_tree(layout, allowed, n) {
                    let place = match tree {
                        scope::Class::Scratch => "scratch (/tmp or $TMPDIR)".to_string(),
                        scope::Class::Workspace => format!("the workspace {}", layout.workspace),
                        class => format!("the {} scope", class.scope().map_or("scratch", |s| s.name())),
                    };
                    return Err(Error::Audit(format!(
                        "refusing to write the audit log to {n}: it lies in {place}, which mode {allowed} lets commands \
                         write, so a command could move it away and put another in its place; name a log where mode \
                         {allowed} gives commands no write (a system directory such as /var/log, unless the mode writes \
                         the system)"
                    )));
                }
            }
        }
        layout.audit_logs.clone_from(&audit_paths);
        layout.extra_credentials.extend(audit_paths);
        Ok(Trail { channel, writable: log_writable })
    }

    /// Opens the log, before anything is locked (the kernel rules need not reach it), for the
    /// agent session `session`; and how the records of nested invocations reach it: a relay of
    /// this level's own for a log it writes, or the enclosing level's channel passed on.
    pub(crate) fn open(
        self,
        settings: &Settings,
        env: &Environ,
        session: Option<String>,
    ) -> Result<(Recorder, Option<Nested>), Error> {
        let (channel, config) = (self.channel, &settings.config);
        // The audit log is opened before anything is locked: the kernel rules need not reach it.
        // The caller's variable and the system file may name any file; a user file only the
        // caller's own.
        // Inside an enclosing level that writes a log, the records go through its relay, whatever
        // this level's environment says: the command cannot send them elsewhere.
        #[cfg(target_os = "linux")]
        let relayed = channel.map(audit::Log::relayed);
        #[cfg(not(target_os = "linux"))]
        let relayed: Option<audit::Log> = channel.and(None);
        let mut audit = match (relayed, env.get(audit::AUDIT_VAR), &config.audit_log) {
            (Some(relayed), _, _) => Some(relayed),
            (None, Some(path), _) => Some(audit::Log::open(path).map_err(Error::Audit)?),
            (None, None, Some(log)) if log.by_system => {
                Some(audit::Log::open(OsStr::new(&log.path)).map_err(Error::Audit)?)
            }
            (None, None, Some(log)) => Some(audit::Log::open_owned(&log.path, &log.named_by).map_err(Error::Audit)?),
            (None, None, None) => None,
        };
        if let Some(log) = audit.as_mut() {
            log.set_session(session);
        }
        let nested = match audit.as_ref() {
            Some(l) if l.is_relayed() => Some(Nested::PassOn(l.raw_fd())),
            Some(l) => Some(Nested::Relay(Some(l.try_clone().map_err(Error::Audit)?))),
            None => None,
        };
        Ok((Recorder { log: audit, writable: self.writable }, nested))
    }
}

impl Recorder {
    /// Writes the record of `decision` (when a log is set): the verdict, the enforcement, the
    /// error, and what only the static layer holds.
    pub(crate) fn record(
        &mut self,
        decision: &Decision,
        verdict: Verdict,
        enforcement: Enforced,
        error: Option<&str>,
        static_only: &[StaticOnly],
    ) -> Result<(), Error> {
        let Some(log) = self.log.as_mut() else { return Ok(()) };
        let with_note: Vec<StaticOnly>;
        let static_only = match &self.writable {
            Some(note) => {
                with_note = static_only.iter().cloned().chain([StaticOnly::Run(note.clone())]).collect();
                &with_note[..]
            }
            None => static_only,
        };
        log.record(decision, verdict, enforcement, error, static_only).map_err(Error::Audit)
    }

    /// The line that declares the sandbox the run is in: every later record carries it.
    pub(crate) fn declare(&mut self, line: String) {
        if let Some(log) = self.log.as_mut() {
            log.set_sandbox(line);
        }
    }

    /// The log's descriptor, for a process that closes the rest.
    #[cfg(target_os = "linux")]
    pub(crate) fn raw_fd(&self) -> Option<i32> {
        self.log.as_ref().map(audit::Log::raw_fd)
    }

    /// Appends a record of something other than the invocation (`event`, `verdict`, then what
    /// `detail` says), with this process's pid.
    pub(crate) fn event(
        &mut self,
        event: &'static str,
        verdict: &'static str,
        detail: &impl serde::Serialize,
    ) -> Result<(), Error> {
        let Some(log) = self.log.as_mut() else { return Ok(()) };
        let line = audit::event_record(std::process::id() as i32, crate::exec::uid(), event, verdict, detail)
            .map_err(Error::Audit)?;
        log.append_line(&line).map_err(Error::Audit)
    }
}

/// The tree `log` lies in when the mode lets commands write it (scratch always).
fn writable_tree(layout: &Layout, allowed: Mode, log: &str) -> Option<scope::Class> {
    match layout.classify(log, true) {
        scope::Class::Scratch => Some(scope::Class::Scratch),
        class => class.scope().filter(|s| allowed.has(*s, Perm::Write)).map(|_| class),
    }
}
