//! Who answers a request for more access (see [`crate::request`]), and how the answer is bound
//! to what was asked.
//!
//! The outermost level asks before it locks anything, so nothing of the command has run yet
//! and nothing of it can answer. It asks, in this order of preference:
//!
//! - the approver program the system file names (`[approval] program`), alone when there is
//!   one: the question as JSON on its standard input, `allow-once` or `reject` on its standard
//!   output, within the time limit;
//! - else every approvals listener of this user (`sandbox-bash --sandbox-approvals`, see
//!   [`listen`]) at once, each a socket in `{state}/approvals/`; the first answer wins and the
//!   others are told the request is gone.
//!
//! The directory is masked in every view (no mode below `7777` reaches it), and a listener's
//! word counts only when the kernel says it is this user running this executable, untraced,
//! with no more seccomp filters than the asking level (a process in a sandbox has more).

#[cfg(target_os = "linux")]
pub mod listen;
#[cfg(target_os = "linux")]
mod web;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::config::Approval;
use crate::environ::Environ;
use crate::mode::Mode;
use crate::report::Decision;

/// One missing bit, with the first access that needs it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Missing {
    pub bit: String,
    pub words: String,
    pub target: String,
    pub command: String,
    pub reason: String,
}

impl Missing {
    /// The line a person reads, every text escaped.
    pub fn shown(&self) -> String {
        if self.command.is_empty() {
            format!("{} ({}): {}", escaped(&self.words), escaped(&self.bit), escaped(&self.reason))
        } else {
            format!(
                "{} ({}): {} needs it for {}: {}",
                escaped(&self.words),
                escaped(&self.bit),
                escaped(&self.command),
                escaped(&self.target),
                escaped(&self.reason)
            )
        }
    }
}

/// Text with every control character and every character that changes how text shows
/// (bidirectional controls) written as an escape.
pub fn escaped(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\n' => "\\n".to_string(),
            '\t' => "\\t".to_string(),
            '\\' => "\\\\".to_string(),
            c if c.is_control()
                || ('\u{200b}'..='\u{200f}').contains(&c)
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || ('\u{2066}'..='\u{2069}').contains(&c) =>
            {
                format!("\\u{{{:x}}}", c as u32)
            }
            c => c.to_string(),
        })
        .collect()
}

/// What a person is asked, and what the answer is bound to.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Question {
    pub id: String,
    pub uid: u32,
    pub workspace: String,
    pub cwd: String,
    /// bash's arguments, as given.
    pub argv: Vec<String>,
    pub source: String,
    /// The program text.
    pub program: String,
    pub allowed: String,
    pub mode: String,
    pub missing: Vec<Missing>,
    pub hosts: Vec<String>,
    pub reason: String,
    /// The files the program runs or sources, as the analysis read them.
    #[serde(default)]
    pub files: Vec<String>,
    /// Seconds since the epoch.
    pub asked_at: u64,
    pub expires_at: u64,
    /// What the answer is bound to: argv, program, cwd, workspace, modes, hosts and uid.
    pub binding: String,
}

/// What the run and a listener say to each other, one JSON object a line.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Message {
    /// The run asks.
    Ask { question: Box<Question> },
    /// The listener shows it to a person (`by` says how: a terminal, a page).
    Held { by: String },
    /// The listener has no person to show it to.
    Absent { why: String },
    /// A person's answer: `allow-once` or `reject`.
    Answer { id: String, answer: String },
    /// The run took this listener's answer: what it came to.
    Decided { id: String, outcome: String },
    /// The request is gone for this listener (answered elsewhere, expired, refused).
    Withdrawn { id: String, why: String },
}

impl Message {
    pub fn line(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec(self).unwrap_or_default();
        v.push(b'\n');
        v
    }
}

/// How a request ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    AllowedOnce { by: String },
    Rejected { by: String },
    Expired { seconds: u64 },
    NoOne { why: String },
}

impl Answer {
    pub fn outcome(&self) -> &'static str {
        match self {
            Answer::AllowedOnce { .. } => "allowed-once",
            Answer::Rejected { .. } => "rejected",
            Answer::Expired { .. } => "expired",
            Answer::NoOne { .. } => "no-one-to-ask",
        }
    }
}

pub fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// A fresh request id: 128 random bits.
pub fn new_id() -> String {
    let mut b = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut b));
    if read.is_err() {
        // Unique still, if not secret: the id names, the connection carries the answer.
        let t = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        b.copy_from_slice(&(t ^ u128::from(std::process::id())).to_le_bytes());
    }
    hex(&b)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256(parts: &[&str]) -> String {
    let mut h = hmac_sha256::Hash::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    hex(&h.finalize())
}

/// What an answer is bound to.
#[derive(Clone, Copy)]
pub struct Bound<'a> {
    pub argv: &'a [String],
    pub program: &'a str,
    pub cwd: &'a str,
    pub workspace: &'a str,
    pub allowed: Mode,
    pub mode: Mode,
    pub hosts: &'a [String],
    pub uid: u32,
    /// The files the analysis read as code, each with the digest of what it read.
    pub texts: &'a [(String, String)],
}

/// The digest an answer is bound to.
pub fn binding(b: &Bound<'_>) -> String {
    let argv = b.argv.join("\0");
    let hosts = b.hosts.join("\0");
    let texts: Vec<String> = b.texts.iter().map(|(p, d)| format!("{p}\0{d}")).collect();
    let (allowed, mode, uid) = (b.allowed.to_string(), b.mode.to_string(), b.uid.to_string());
    sha256(&[&argv, b.program, b.cwd, b.workspace, &allowed, &mode, &hosts, &uid, &texts.join("\0")])
}

/// The question for a decided program that asks for `mode` because of `reason`.
pub fn question(decision: &Decision, argv: &[String], req: &crate::request::Request, timeout: u64) -> Question {
    let mode = req.mode;
    // Every bit the request adds, with the first access that needs it; a bit no word of the
    // program shows is asked for code the analysis cannot see.
    let added = mode.without(decision.allowed);
    let missing = added
        .bits()
        .map(|(scope, perm)| {
            let needing =
                decision.analysis.accesses.iter().find(|a| a.scope == scope && a.perm == perm && a.required());
            Missing {
                bit: Mode::bit(scope, perm).to_string(),
                words: crate::report::bit_words(scope, perm),
                target: needing.map_or_else(String::new, |a| a.target.clone()),
                command: needing.map_or_else(String::new, |a| a.command.clone()),
                reason: needing.map_or_else(
                    || {
                        "no word of the program needs it: the kernel refused it in this workspace lately, in code \
                         the analysis cannot see"
                            .into()
                    },
                    |a| a.reason.clone(),
                ),
            }
        })
        .collect();
    let uid = crate::exec::uid();
    let asked_at = now();
    Question {
        id: new_id(),
        uid,
        workspace: decision.workspace.clone(),
        cwd: decision.cwd.clone(),
        argv: argv.to_vec(),
        source: decision.source.to_string(),
        program: decision.program.clone(),
        allowed: decision.allowed.to_string(),
        mode: mode.to_string(),
        missing,
        hosts: req.hosts.clone(),
        reason: req.reason.clone(),
        files: decision.analysis.texts.iter().map(|(p, _)| p.clone()).collect(),
        asked_at,
        expires_at: asked_at + timeout,
        binding: binding(&Bound {
            argv,
            program: &decision.program,
            cwd: &decision.cwd,
            workspace: &decision.workspace,
            allowed: decision.allowed,
            mode,
            hosts: &req.hosts,
            uid,
            texts: &decision.analysis.texts,
        }),
    }
}

/// What makes two requests the same, however worded: the user, the workspace, each missing
/// bit with every target that needs it, the bits asked for code the analysis cannot see, and
/// the hosts.
pub fn sameness(decision: &Decision, req: &crate::request::Request) -> String {
    let missing = decision.required.missing_from(decision.allowed);
    let mut needs: Vec<String> = decision
        .analysis
        .accesses
        .iter()
        .filter(|a| a.required() && missing.has(a.scope, a.perm))
        .map(|a| format!("{} {}", Mode::bit(a.scope, a.perm), a.target))
        .collect();
    needs.push(format!("unseen {}", req.mode.without(decision.allowed).without(missing)));
    needs.extend(req.hosts.iter().map(|h| format!("host {}", h.to_ascii_lowercase())));
    needs.sort();
    needs.dedup();
    let uid = crate::exec::uid().to_string();
    sha256(&[&uid, &decision.workspace, &needs.join("\n")])
}

/// `{state}/approvals`, where listeners listen and rejections are remembered.
pub fn dir(env: &Environ, home: Option<&str>) -> Option<PathBuf> {
    let var = |name: &str| env.get(name).map(|v| v.to_string_lossy().into_owned());
    crate::caches::state_dir(home, &var).map(|s| PathBuf::from(s).join("approvals"))
}

/// Makes the directory (mode 0700) when missing; `false` when it is not a directory of this
/// user's own that only they can enter.
pub fn make_dir(dir: &Path) -> bool {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    let private = || {
        std::fs::symlink_metadata(dir)
            .is_ok_and(|m| m.is_dir() && m.uid() == crate::exec::uid() && m.permissions().mode() & 0o077 == 0)
    };
    // Looked at before it is made: it is there at almost every start.
    if private() {
        return true;
    }
    let _ = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir);
    private()
}

/// Until when a request like this one is refused without asking (seconds since the epoch).
pub fn rejected_until(dir: &Path, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(dir.join("rejected").join(key)).ok()?;
    let until: u64 = text.trim().parse().ok()?;
    (until > now()).then_some(until)
}

/// Remembers that a request like this one was rejected.
pub fn remember_rejection(dir: &Path, key: &str, seconds: u64) {
    let rejected = dir.join("rejected");
    if make_dir(&rejected) {
        let _ = std::fs::write(rejected.join(key), format!("{}\n", now() + seconds));
    }
}

/// How long what the kernel or the proxy refused in a workspace counts for a request that asks
/// for it, in seconds.
pub const OBSERVED_FOR: u64 = 600;

fn observed_file(dir: &Path, workspace: &str) -> PathBuf {
    let uid = crate::exec::uid().to_string();
    dir.join("observed").join(sha256(&[&uid, workspace]))
}

/// Notes that the kernel (a mode that would allow it) or the proxy (hosts) refused something
/// in `workspace` during a run: a later request for code the analysis cannot see may ask for
/// that much, and no more. Written by the processes outside the sandbox, in the approvals
/// directory no command reaches.
pub fn observe(dir: &Path, workspace: &str, mode: Option<Mode>, hosts: &[String]) {
    if !make_dir(&dir.join("observed")) {
        return;
    }
    let mut line = format!("{}", now());
    if let Some(m) = mode {
        line.push_str(&format!(" mode {m}"));
    }
    for h in hosts {
        line.push_str(&format!(" host {h}"));
    }
    line.push('\n');
    let path = observed_file(dir, workspace);
    let mut kept: Vec<String> = std::fs::read_to_string(&path)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.split(' ').next().and_then(|t| t.parse::<u64>().ok()).is_some_and(|t| t + OBSERVED_FOR > now()))
        .map(str::to_string)
        .collect();
    kept.truncate(64);
    kept.push(line.trim_end().to_string());
    let _ = std::fs::write(&path, kept.join("\n") + "\n");
}

/// What the kernel and the proxy refused in `workspace` lately: the union of the modes that
/// would have allowed it, and the hosts.
pub fn observed(dir: &Path, workspace: &str) -> (Mode, Vec<String>) {
    let text = std::fs::read_to_string(observed_file(dir, workspace)).unwrap_or_default();
    let (mut mode, mut hosts) = (Mode(0), Vec::new());
    for line in text.lines() {
        let mut words = line.split(' ');
        if words.next().and_then(|t| t.parse::<u64>().ok()).is_none_or(|t| t + OBSERVED_FOR <= now()) {
            continue;
        }
        while let (Some(kind), Some(value)) = (words.next(), words.next()) {
            match kind {
                "mode" => mode = mode.union(Mode::parse(value).unwrap_or(Mode(0))),
                "host" if !hosts.iter().any(|h| h == value) => hosts.push(value.to_string()),
                _ => {}
            }
        }
    }
    (mode, hosts)
}

/// Asks whoever can answer, and waits at most until the question expires.
pub fn ask(q: &Question, config: &Approval, dir: Option<&Path>) -> Answer {
    if let Some(program) = &config.program {
        return ask_program(q, program, config.timeout);
    }
    #[cfg(target_os = "linux")]
    if let Some(dir) = dir {
        return listen::ask_listeners(q, dir, config.timeout);
    }
    let _ = dir;
    Answer::NoOne { why: no_one(false) }
}

/// The words of "no one to ask".
pub fn no_one(listener_dir: bool) -> String {
    format!(
        "approval needed, and no one can be asked here (no approver configured, no approvals listener{})",
        if listener_dir { "" } else { "; and no state directory to find one in" }
    )
}

/// The approver program: the question on its standard input, its answer the first line of
/// its standard output. Anything but `allow-once`, a failure or no answer in time is a reject.
fn ask_program(q: &Question, program: &str, timeout: u64) -> Answer {
    let by = format!("the approver program {program}");
    let mut command = std::process::Command::new(program);
    // A group of its own, so that no process it started outlives a late answer.
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .env("SANDBOX_BASH_REQUEST_ID", &q.id)
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Answer::Rejected { by: format!("{by}, which cannot be started ({e})") },
    };
    let text = serde_json::to_vec(q).unwrap_or_default();
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(&text);
        }
        let mut out = Vec::new();
        if let Some(o) = stdout {
            let _ = o.take(4096).read_to_end(&mut out);
        }
        let _ = tx.send(out);
    });
    // Its whole output and its status, both before the deadline.
    let deadline = std::time::Instant::now() + Duration::from_secs(timeout);
    let out = rx.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now()));
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if out.is_ok() && std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            _ => break None,
        }
    };
    if status.is_none() {
        #[cfg(target_os = "linux")]
        let _ =
            nix::sys::signal::killpg(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGKILL);
        let _ = child.kill();
        let _ = child.wait();
    }
    // The run locks itself next, single-threaded; a reader still held by a process the
    // approver left behind is left to the denial that follows.
    if reader.is_finished() || status.is_some() {
        let _ = reader.join();
    }
    let (Ok(out), Some(status)) = (out, status) else { return Answer::Expired { seconds: timeout } };
    let text = String::from_utf8_lossy(&out);
    match (text.lines().next().unwrap_or("").trim(), status.success()) {
        ("allow-once", true) => Answer::AllowedOnce { by },
        ("reject", _) => Answer::Rejected { by },
        (other, true) => Answer::Rejected { by: format!("{by}, whose answer {other:?} counts as a reject") },
        (_, false) => Answer::Rejected { by: format!("{by}, which failed ({status}), and that counts as a reject") },
    }
}

/// The record of a request asked or decided.
#[derive(Serialize)]
pub struct Record<'a> {
    pub id: &'a str,
    pub allowed: &'a str,
    pub mode: &'a str,
    pub reason: &'a str,
    pub missing: &'a [Missing],
    pub hosts: &'a [String],
    pub cwd: &'a str,
    pub workspace: &'a str,
    pub program: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<&'a str>,
}

impl<'a> Record<'a> {
    pub fn of(q: &'a Question) -> Record<'a> {
        Record {
            id: &q.id,
            allowed: &q.allowed,
            mode: &q.mode,
            reason: &q.reason,
            missing: &q.missing,
            hosts: &q.hosts,
            cwd: &q.cwd,
            workspace: &q.workspace,
            program: &q.program,
            outcome: None,
            by: None,
            why: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_one_line_each_and_read_back() {
        let m = Message::Answer { id: "ab".into(), answer: "allow-once".into() };
        let line = m.line();
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        assert_eq!(serde_json::from_slice::<Message>(&line).unwrap(), m);
    }

    #[test]
    fn the_binding_changes_with_every_field_it_binds() {
        let argv = vec!["-c".to_string(), "x".to_string()];
        let other_argv = vec!["-c".to_string(), "y".to_string()];
        let hosts = vec!["a.example".to_string()];
        let texts = vec![("/w/x.sh".to_string(), "00".to_string())];
        let base = Bound {
            argv: &argv,
            program: "x",
            cwd: "/w",
            workspace: "/w",
            allowed: Mode(0o467),
            mode: Mode(0o667),
            hosts: &[],
            uid: 0,
            texts: &[],
        };
        let first = binding(&base);
        for other in [
            Bound { argv: &other_argv, ..base },
            Bound { program: "y", ..base },
            Bound { cwd: "/v", ..base },
            Bound { workspace: "/v", ..base },
            Bound { allowed: Mode(0o447), ..base },
            Bound { mode: Mode(0o677), ..base },
            Bound { hosts: &hosts, ..base },
            Bound { uid: 1, ..base },
            Bound { texts: &texts, ..base },
        ] {
            assert_ne!(first, binding(&other));
        }
        assert_eq!(first, binding(&Bound { ..base }));
    }

    #[test]
    fn ids_are_fresh() {
        assert_ne!(new_id(), new_id());
        assert_eq!(new_id().len(), 32);
    }
}
