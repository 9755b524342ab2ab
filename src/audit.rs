//! The audit log: one JSON line per invocation (who, where, what program, the modes, the verdict
//! and its reasons, what the kernel enforces), appended to the file `SANDBOX_BASH_AUDIT_LOG`
//! names. The file is opened afresh for every record, so rotation works; each record is one
//! `write` under an exclusive lock on an `O_APPEND` descriptor, so concurrent invocations never
//! interleave or lose lines. The user asked for a trail: when the record cannot be written, the
//! command does not run.
//!
//! The variable and the system file may name any file. A log a user's configuration file names
//! must be the caller's own: an existing regular file the caller owns, reached without
//! following a link at its end, or a new file created in a directory the caller owns, so that
//! such a file cannot point the records at a file of root's or another user's (where JSON lines
//! would run when it is sourced, or corrupt what it is read as).

use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};

use serde::Serialize;

use crate::report::{Decision, JsonAccess};

/// The variable that names the audit log.
pub const AUDIT_VAR: &str = "SANDBOX_BASH_AUDIT_LOG";

/// An open audit log: the file, or (in a nested invocation) the audit relay of the enclosing
/// level, which writes to the file for it.
pub struct Log {
    sink: Sink,
    path: String,
    /// The agent session the records' runs belong to (see [`crate::outside::session`]).
    session: Option<String>,
    /// The line that declares the sandbox the run is in, once it is locked.
    sandbox: Option<String>,
}

enum Sink {
    File(std::fs::File),
    /// The channel to the relay (a descriptor the enclosing level handed down).
    #[cfg(target_os = "linux")]
    Relay(std::os::fd::RawFd),
}

/// What became of an invocation, as its record says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// It runs.
    Allow,
    /// The mode does not allow it.
    Deny,
    /// It cannot run: bash would fail, or sandbox-bash refuses.
    Error,
}

/// What the kernel enforces for an invocation, as its record says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Enforced {
    /// Nothing: it did not run.
    #[serde(rename = "none")]
    Nothing,
    /// Every rule the mode needs.
    #[serde(rename = "enforced")]
    Whole,
    /// Not every rule, with the opt-in for running degraded.
    #[serde(rename = "degraded")]
    Degraded,
    /// Landlock's layer limit was reached: the enclosing level's rules bind.
    #[serde(rename = "outer layers")]
    OuterLayers,
    /// A nested level whose inputs are those its run locked with: the run's rules hold it, and
    /// it adds none of its own.
    #[serde(rename = "run layers")]
    RunLayers,
}

/// One record.
#[derive(Serialize)]
struct Record<'a> {
    time: String,
    version: &'static str,
    pid: u32,
    ppid: i32,
    uid: u32,
    cwd: &'a str,
    workspace: &'a str,
    source: &'a str,
    program: &'a str,
    allowed: String,
    required: String,
    verdict: Verdict,
    reasons: Vec<JsonAccess<'a>>,
    enforcement: Enforced,
    /// What the kernel does not hold on this run and the static layer alone does (empty for
    /// records of runs that did not start).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    static_only: &'a [String],
    error: Option<&'a str>,
    /// What was left out of a record the audit relay carried.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    /// The agent session of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<&'a str>,
    /// The sandbox the run is in, in one line; `not started` for a run that never started.
    sandbox: &'a str,
}

impl Log {
    /// Opens the log named by `path` for appending (created with mode 0600 if missing).
    pub fn open(path: &std::ffi::OsStr) -> Result<Log, String> {
        let shown = path.to_string_lossy().into_owned();
        if path.is_empty() {
            return Err(format!("{AUDIT_VAR} is set but empty"));
        }
        let file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .custom_flags(libc::O_CLOEXEC)
            .open(path)
            .map_err(|e| format!("cannot open the audit log {shown}: {e}"))?;
        Ok(Log { sink: Sink::File(file), path: shown, session: None, sandbox: None })
    }

    /// The log an enclosing level writes for this one, through its relay's channel `fd`.
    #[cfg(target_os = "linux")]
    pub fn relayed(fd: std::os::fd::RawFd) -> Log {
        Log {
            sink: Sink::Relay(fd),
            path: format!("(the enclosing level's, through descriptor {fd})"),
            session: None,
            sandbox: None,
        }
    }

    /// Whether the records go through an enclosing level's relay.
    pub fn is_relayed(&self) -> bool {
        !matches!(self.sink, Sink::File(_))
    }

    /// Opens the log `path` that the configuration file `named_by` names, only when it is the
    /// caller's own: a regular file the caller owns (a link at its end is not followed), or a
    /// new file (mode 0600) in a directory the caller owns. Nothing is written to a file that
    /// is refused.
    pub fn open_owned(path: &str, named_by: &str) -> Result<Log, String> {
        let uid = crate::exec::uid();
        let refuse = |why: String| {
            format!(
                "the audit log {path} that {named_by} names {why}; a user's configuration may only name a log of \
                 the caller's own: a file you own, or a new file in a directory you own (or set \
                 {AUDIT_VAR})"
            )
        };
        let append = libc::O_WRONLY | libc::O_APPEND | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY;
        let p = std::path::Path::new(path);
        // Twice at most: a file that appears between the two steps is opened as existing.
        for _ in 0..2 {
            let file = std::fs::OpenOptions::new().custom_flags(append | libc::O_CLOEXEC).append(true).open(p);
            match file {
                Ok(file) => {
                    let meta = file.metadata().map_err(|e| format!("cannot examine the audit log {path}: {e}"))?;
                    if !meta.is_file() {
                        return Err(refuse("is not a regular file".into()));
                    }
                    if meta.uid() != uid {
                        return Err(refuse(format!("is owned by uid {}, not by you (uid {uid})", meta.uid())));
                    }
                    return Ok(Log { sink: Sink::File(file), path: path.to_string(), session: None, sandbox: None });
                }
                Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                    return Err(refuse("is a symbolic link".into()));
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    let (Some(dir_path), Some(name)) = (p.parent(), p.file_name()) else {
                        return Err(refuse("is not a file name".into()));
                    };
                    let dir = crate::exec::open_dir(dir_path)
                        .map_err(|e| format!("cannot open the audit log {path}: {}: {e}", dir_path.display()))?;
                    let meta = dir.metadata().map_err(|e| format!("cannot examine {}: {e}", dir_path.display()))?;
                    if meta.uid() != uid {
                        return Err(refuse(format!(
                            "does not exist, and its directory {} is owned by uid {}, not by you (uid {uid})",
                            dir_path.display(),
                            meta.uid()
                        )));
                    }
                    match crate::exec::open_in(&dir, name, append | libc::O_CREAT | libc::O_EXCL, 0o600) {
                        Ok(file) => {
                            return Ok(Log {
                                sink: Sink::File(file),
                                path: path.to_string(),
                                session: None,
                                sandbox: None,
                            });
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                        Err(e) => return Err(format!("cannot create the audit log {path}: {e}")),
                    }
                }
                Err(e) => return Err(format!("cannot open the audit log {path}: {e}")),
            }
        }
        Err(format!("cannot open the audit log {path}: it appeared and vanished while it was opened"))
    }

    /// The log's descriptor, which the network proxy and the relay keep open when they close
    /// the rest.
    pub fn raw_fd(&self) -> i32 {
        match &self.sink {
            Sink::File(file) => file.as_raw_fd(),
            #[cfg(target_os = "linux")]
            Sink::Relay(fd) => *fd,
        }
    }

    /// A second descriptor of the same log, for the network proxy's records and the relay.
    /// Names the agent session of the runs recorded.
    pub fn set_session(&mut self, id: Option<String>) {
        self.session = id;
    }

    /// The line that declares the sandbox the run is in (see `sandbox::info::Declared`).
    pub fn set_sandbox(&mut self, line: String) {
        self.sandbox = Some(line);
    }

    pub fn try_clone(&self) -> Result<Log, String> {
        let again = |e: std::io::Error| format!("cannot open the audit log {} again: {e}", self.path);
        let sink = match &self.sink {
            Sink::File(file) => Sink::File(file.try_clone().map_err(again)?),
            #[cfg(target_os = "linux")]
            Sink::Relay(fd) => {
                let dup = crate::exec::duplicate(*fd).map_err(again)?;
                Sink::Relay(std::os::fd::IntoRawFd::into_raw_fd(dup))
            }
        };
        Ok(Log { sink, path: self.path.clone(), session: self.session.clone(), sandbox: self.sandbox.clone() })
    }

    /// Appends the record of a destination the network proxy refused to the command whose
    /// process is `command_pid`.
    #[cfg(target_os = "linux")]
    pub fn network_denial(&mut self, command_pid: i32, d: &crate::outside::protocol::Denial) -> Result<(), String> {
        self.append_line(&network_denial_record(command_pid, crate::exec::uid(), d)?)
    }

    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fn append(&mut self, record: &impl Serialize) -> Result<(), String> {
        self.append_line(&encode(record)?)
    }

    /// Appends one record, already encoded (without its newline).
    pub fn append_line(&mut self, line: &[u8]) -> Result<(), String> {
        match &mut self.sink {
            Sink::File(file) => {
                let mut whole = Vec::with_capacity(line.len() + 1);
                whole.extend_from_slice(line);
                whole.push(b'\n');
                let _lock = crate::exec::lock_exclusive(file.as_raw_fd())
                    .map_err(|e| format!("cannot lock the audit log {}: {e}", self.path))?;
                file.write_all(&whole)
                    .and_then(|()| file.flush())
                    .map_err(|e| format!("cannot write the audit log {}: {e}", self.path))
            }
            #[cfg(target_os = "linux")]
            Sink::Relay(fd) => {
                crate::outside::relay::send(*fd, &crate::outside::protocol::Request::Record(line.to_vec()))
            }
        }
    }

    /// Appends the record of a message the relay refused: who sent it (the kernel's pid and
    /// uid) and why; `last` says that further ones are only counted.
    #[cfg(target_os = "linux")]
    pub fn channel_refusal(&mut self, pid: i32, uid: u32, reason: &str, last: bool) -> Result<(), String> {
        #[derive(Serialize)]
        struct Refusal<'a> {
            reason: &'a str,
            #[serde(skip_serializing_if = "std::ops::Not::not")]
            more_not_kept: bool,
        }
        self.append(&Event::new(pid, uid, "audit-channel", "refused", Refusal { reason, more_not_kept: last }))
    }

    /// Appends the record for `decision` with `verdict` and the enforcement status.
    pub fn record(
        &mut self,
        decision: &Decision,
        verdict: Verdict,
        enforcement: Enforced,
        error: Option<&str>,
        static_only: &[crate::sandbox::StaticOnly],
    ) -> Result<(), String> {
        let missing = decision.required.missing_from(decision.allowed);
        let static_only: Vec<String> = static_only.iter().map(ToString::to_string).collect();
        let static_only = &static_only[..];
        let reasons = decision
            .analysis
            .accesses
            .iter()
            .filter(|a| verdict != Verdict::Deny || missing.has(a.scope, a.perm))
            .map(JsonAccess::from)
            .collect();
        #[allow(unused_mut)]
        let mut record = Record {
            time: now_utc(),
            version: env!("CARGO_PKG_VERSION"),
            pid: std::process::id(),
            ppid: crate::exec::ppid(),
            uid: crate::exec::uid(),
            cwd: &decision.cwd,
            workspace: &decision.workspace,
            source: decision.source,
            program: &decision.program,
            allowed: decision.allowed.to_string(),
            required: decision.required.to_string(),
            verdict,
            reasons,
            enforcement,
            static_only,
            error,
            note: None,
            session: self.session.as_deref(),
            sandbox: self.sandbox.as_deref().unwrap_or("not started"),
        };
        let line = encode(&record)?;
        // The relay's channel carries records of a bounded size: the program text is cut, then
        // the reasons, and the record says so.
        #[cfg(target_os = "linux")]
        if self.is_relayed() && line.len() > crate::outside::relay::MAX_RECORD {
            let mut cut = decision.program.len().min(crate::outside::relay::MAX_RECORD / 2);
            while !decision.program.is_char_boundary(cut) {
                cut -= 1;
            }
            let program = format!("{}…", &decision.program[..cut]);
            let shortened = format!(
                "the record was shortened for the audit relay: the program is {} bytes long",
                decision.program.len()
            );
            record.program = &program;
            record.note = Some(&shortened);
            let mut line = encode(&record)?;
            if line.len() > crate::outside::relay::MAX_RECORD {
                record.reasons.clear();
                line = encode(&record)?;
            }
            return self.append_line(&line);
        }
        self.append_line(&line)
    }
}

/// A record of something other than an invocation (a destination the proxy refused, a message
/// the relay refused): who, when, what kind, the verdict, then what `detail` says.
#[derive(Serialize)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
struct Event<T: Serialize> {
    time: String,
    version: &'static str,
    pid: i32,
    uid: u32,
    event: &'static str,
    verdict: &'static str,
    #[serde(flatten)]
    detail: T,
}

impl<T: Serialize> Event<T> {
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fn new(pid: i32, uid: u32, event: &'static str, verdict: &'static str, detail: T) -> Event<T> {
        Event { time: now_utc(), version: env!("CARGO_PKG_VERSION"), pid, uid, event, verdict, detail }
    }
}

/// The record of one destination the network proxy refused, as one JSON line (`pid` is the
/// command's process: the invocation's record has the same).
#[cfg(target_os = "linux")]
pub(crate) fn network_denial_record(
    pid: i32,
    uid: u32,
    d: &crate::outside::protocol::Denial,
) -> Result<Vec<u8>, String> {
    encode(&Event::new(pid, uid, "network", "deny", d))
}

/// The record of one call the rules refused that the supervisor saw (`event` is `file` or
/// `signal`), as one JSON line; `pid` is the command's process.
#[cfg(target_os = "linux")]
pub(crate) fn refusal_record(
    pid: i32,
    uid: u32,
    event: &'static str,
    detail: &impl Serialize,
) -> Result<Vec<u8>, String> {
    encode(&Event::new(pid, uid, event, "deny", detail))
}

/// A record of `event` with `verdict`, as one JSON line.
pub(crate) fn event_record(
    pid: i32,
    uid: u32,
    event: &'static str,
    verdict: &'static str,
    detail: &impl Serialize,
) -> Result<Vec<u8>, String> {
    encode(&Event::new(pid, uid, event, verdict, detail))
}

/// A record as one JSON line, without its newline.
fn encode(record: &impl Serialize) -> Result<Vec<u8>, String> {
    serde_json::to_vec(record).map_err(|e| format!("cannot encode the audit record: {e}"))
}

/// The current time in UTC as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub(crate) fn now_utc() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let secs = now.as_secs() as i64;
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Days since 1970-01-01 to a civil date (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3_600,
        rest % 3_600 / 60,
        rest % 60,
        now.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_is_utc_rfc3339() {
        let t = now_utc();
        assert_eq!(t.len(), 24, "{t}");
        assert!(t.ends_with('Z') && t.as_bytes()[10] == b'T', "{t}");
        let year: i32 = t[..4].parse().unwrap();
        assert!(year >= 2024, "{t}");
    }
}
