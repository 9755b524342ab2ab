//! Approvals listeners: `sandbox-bash --sandbox-approvals` (a terminal, `--json` for tools,
//! `--web` for a page on loopback), and the run's side that asks them.
//!
//! Each listener listens at `{state}/approvals/PID.sock`. A run connects to every
//! socket there, believes only a listener the kernel says is this user running this
//! executable, untraced and outside any sandbox of this run's (no more seccomp filters than the
//! run has before it locks), and sends its question. The queue is the set of open
//! connections: a request is pending while its run waits, and gone for every listener when it
//! is answered anywhere, expires, or its run ends.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use super::{Answer, Message, Question, escaped, now};
use crate::outside::peer::{Executable, Status};

/// A socket's path has room for 107 bytes, and a home can be deeper than that leaves: a socket
/// in `dir` is named through a descriptor of the directory (`/proc/self/fd/N/NAME`), whatever
/// its depth.
struct Short {
    dir: std::fs::File,
}

impl Short {
    fn open(dir: &Path) -> Option<Short> {
        std::fs::File::open(dir).ok().map(|dir| Short { dir })
    }

    fn path(&self, name: &std::ffi::OsStr) -> std::path::PathBuf {
        use std::os::fd::AsRawFd;
        Path::new(&format!("/proc/self/fd/{}", self.dir.as_raw_fd())).join(name)
    }
}

/// The longest line either side reads.
const MAX_LINE: u64 = 1 << 20;

/// The pid and uid of the process at the other end, from the kernel.
fn peer(stream: &UnixStream) -> Option<(i32, u32)> {
    let cred = nix::sys::socket::getsockopt(&stream.as_fd(), nix::sys::socket::sockopt::PeerCredentials).ok()?;
    Some((cred.pid(), cred.uid()))
}

/// Why the listener at `pid` is not one whose answer counts, or `None` when it is.
pub fn listener_doubt(pid: i32, uid: u32) -> Option<String> {
    if uid != crate::exec::uid() {
        return Some(format!("it runs as uid {uid}"));
    }
    match (Executable::of(&pid.to_string()), Executable::own()) {
        (Ok(a), Ok(b)) if a == b => {}
        _ => return Some("it is not this sandbox-bash".into()),
    }
    let (theirs, own) = (Status::of(&pid.to_string()), Status::of("self"));
    match (theirs, own) {
        (Some(t), _) if t.tracer != 0 => Some(format!("process {} traces it", t.tracer)),
        (Some(Status { filters: Some(t), .. }), Some(Status { filters: Some(o), .. })) if t <= o => None,
        (Some(Status { filters: Some(_), .. }), Some(Status { filters: Some(_), .. })) => {
            Some("it runs inside a sandbox (it carries more seccomp filters than this run)".into())
        }
        _ => Some("its seccomp filters cannot be counted".into()),
    }
}

fn read_message(reader: &mut impl BufRead) -> Option<Message> {
    let mut line = String::new();
    match reader.by_ref().take(MAX_LINE).read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => serde_json::from_str(line.trim()).ok(),
    }
}

/// What one listener's answer comes to, `by` naming it.
pub fn judge_answer(q: &Question, id: &str, answer: &str, by: &str) -> Answer {
    if id != q.id {
        return Answer::Rejected {
            by: format!("{by}, which answered another request ({id}): an answer binds one request"),
        };
    }
    if now() > q.expires_at {
        return Answer::Expired { seconds: q.expires_at.saturating_sub(q.asked_at) };
    }
    match answer {
        "allow-once" => Answer::AllowedOnce { by: by.to_string() },
        "reject" => Answer::Rejected { by: by.to_string() },
        other => Answer::Rejected { by: format!("{by}, whose answer {other:?} counts as a reject") },
    }
}

/// The run's side: asks every listener of this user at once, and waits for the first answer
/// until the question expires.
pub fn ask_listeners(q: &Question, dir: &Path, timeout: u64) -> Answer {
    // Each listener that holds the question: the stream to write to, the reader (whose buffer
    // may already hold the answer that came right after "held"), and how the run names it.
    let mut held: Vec<(UnixStream, BufReader<UnixStream>, String)> = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "sock")).collect())
        .unwrap_or_default();
    entries.sort();
    let ask = Message::Ask { question: Box::new(q.clone()) }.line();
    let Some(short) = Short::open(dir) else { return Answer::NoOne { why: super::no_one(true) } };
    for path in entries.into_iter().take(16) {
        let Some(name) = path.file_name() else { continue };
        let Ok(mut stream) = UnixStream::connect(short.path(name)) else { continue };
        let Some((pid, uid)) = peer(&stream) else { continue };
        if listener_doubt(pid, uid).is_some() {
            continue;
        }
        let _ = stream.set_write_timeout(Some(Duration::from_secs(2)));
        let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
        if stream.write_all(&ask).is_err() {
            continue;
        }
        let Ok(clone) = stream.try_clone() else { continue };
        let mut reader = BufReader::new(clone);
        if let Some(Message::Held { by }) = read_message(&mut reader) {
            let _ = stream.set_read_timeout(None);
            held.push((stream, reader, format!("{by} (pid {pid}, uid {uid})")));
        }
    }
    if held.is_empty() {
        return Answer::NoOne { why: super::no_one(true) };
    }
    let (tx, rx) = mpsc::channel::<(usize, Option<Message>)>();
    let mut readers = Vec::new();
    let mut streams: Vec<(UnixStream, String)> = Vec::new();
    for (i, (stream, mut reader, by)) in held.into_iter().enumerate() {
        streams.push((stream, by));
        let tx = tx.clone();
        readers.push(std::thread::spawn(move || {
            loop {
                let m = read_message(&mut reader);
                let end = m.is_none();
                if tx.send((i, m)).is_err() || end {
                    break;
                }
            }
        }));
    }
    drop(tx);
    let deadline = Instant::now() + Duration::from_secs(q.expires_at.saturating_sub(now()).min(timeout));
    let mut live = streams.len();
    let mut winner: Option<usize> = None;
    let answer = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((i, Some(Message::Answer { id, answer }))) => {
                winner = Some(i);
                break judge_answer(q, &id, &answer, &streams[i].1);
            }
            Ok((_, Some(_))) => {}
            Ok((_, None)) => {
                live -= 1;
                if live == 0 {
                    break Answer::NoOne {
                        why: "approval needed, and every approvals listener went away before answering".into(),
                    };
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => break Answer::Expired { seconds: timeout },
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break Answer::NoOne { why: "approval needed, and no approvals listener is left to answer".into() };
            }
        }
    };
    let why = match &answer {
        Answer::Expired { .. } => "expired",
        _ => "answered elsewhere",
    };
    for (i, (stream, _)) in streams.iter_mut().enumerate() {
        let m = if Some(i) == winner {
            Message::Decided { id: q.id.clone(), outcome: answer.outcome().to_string() }
        } else {
            Message::Withdrawn { id: q.id.clone(), why: why.to_string() }
        };
        let _ = stream.write_all(&m.line());
        let _ = stream.shutdown(std::net::Shutdown::Both);
    }
    // The run locks itself next, single-threaded.
    for r in readers {
        let _ = r.join();
    }
    answer
}

/// One pending request as a listener holds it.
pub(super) struct Pending {
    pub number: usize,
    pub question: Question,
    pub stream: UnixStream,
    /// This listener answered it already.
    pub answered: bool,
}

/// What the listener's loop hears.
pub(super) enum Event {
    New(usize),
    /// A request gone, with why; `Some` outcome when it was this listener's answer that the run
    /// took.
    Gone(usize, String, Option<String>),
    Input(String),
    /// A browser opened the page's link: its code, and who it is.
    Pairing(u32, String),
    End,
}

/// The queue a listener shows.
#[derive(Default)]
pub(super) struct Queue {
    pub pending: Vec<Pending>,
    pub next: usize,
}

pub(super) type Shared = Arc<Mutex<Queue>>;

/// The controlling terminal of `pid` (`self` for this one), 0 for none.
fn terminal_of(pid: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, a)| a);
    // state ppid pgrp session tty_nr
    after.split_whitespace().nth(4).and_then(|t| t.parse().ok()).unwrap_or(0)
}

/// Whether anyone is there to answer, and how the run should name them.
pub(super) type Presence = Arc<dyn Fn() -> Result<String, String> + Send + Sync>;

/// Accepts runs' questions at `path`, forever.
pub(super) fn serve(listener: UnixListener, queue: Shared, tx: mpsc::Sender<Event>, presence: Presence) {
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { continue };
            let (queue, tx, presence) = (Arc::clone(&queue), tx.clone(), Arc::clone(&presence));
            std::thread::spawn(move || take(conn, &queue, &tx, &presence));
        }
    });
}

/// One run's connection: its question, then what becomes of it.
fn take(mut conn: UnixStream, queue: &Shared, tx: &mpsc::Sender<Event>, presence: &Presence) {
    let Some((pid, uid)) = peer(&conn) else { return };
    // Only sandbox-bash itself asks, untraced, as this user: nothing else puts a question in the
    // queue (a question from inside a sandbox could only ask for what encloses it, but it could
    // mislead).
    if uid != crate::exec::uid()
        || Executable::of(&pid.to_string()).ok() != Executable::own().ok()
        || Status::of(&pid.to_string()).is_none_or(|s| s.tracer != 0)
    {
        return;
    }
    let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
    let Ok(clone) = conn.try_clone() else { return };
    let mut reader = BufReader::new(clone);
    let Some(Message::Ask { question }) = read_message(&mut reader) else { return };
    if question.uid != uid || question.expires_at <= now() || !well_formed(&question) {
        return;
    }
    let own = terminal_of("self");
    if own != 0 && terminal_of(&pid.to_string()) == own {
        let why = "the approvals listener runs on the terminal of the command that asks: whatever drives that terminal \
                   would answer itself";
        let _ = conn.write_all(&Message::Absent { why: why.into() }.line());
        return;
    }
    let by = match presence() {
        Ok(by) => by,
        Err(why) => {
            let _ = conn.write_all(&Message::Absent { why }.line());
            return;
        }
    };
    let _ = conn.set_read_timeout(None);
    let Ok(stream) = conn.try_clone() else { return };
    let number = {
        let Ok(mut q) = queue.lock() else { return };
        q.next += 1;
        let number = q.next;
        q.pending.push(Pending { number, question: *question, stream, answered: false });
        number
    };
    if conn.write_all(&Message::Held { by }.line()).is_err() {
        remove(queue, number);
        return;
    }
    let _ = tx.send(Event::New(number));
    let (why, outcome) = match read_message(&mut reader) {
        Some(Message::Decided { outcome, .. }) => ("answered here".to_string(), Some(outcome)),
        Some(Message::Withdrawn { why, .. }) => (why, None),
        _ => ("the run that asked went away".to_string(), None),
    };
    remove(queue, number);
    let _ = tx.send(Event::Gone(number, why, outcome));
}

/// The fields a person reads as they are, checked: an id of 32 hex digits, modes of four octal
/// digits, bits each a mode too (every other field is shown escaped).
fn well_formed(q: &Question) -> bool {
    let mode = |m: &str| m.len() == 4 && m.bytes().all(|b| (b'0'..=b'7').contains(&b));
    q.id.len() == 32
        && q.id.bytes().all(|b| b.is_ascii_hexdigit())
        && mode(&q.allowed)
        && mode(&q.mode)
        && q.missing.iter().all(|m| mode(&m.bit) && m.words.bytes().all(|b| b.is_ascii_lowercase() || b == b' '))
        && q.missing.len() <= 12
        && q.hosts.len() <= 16
}

fn remove(queue: &Shared, number: usize) {
    if let Ok(mut q) = queue.lock() {
        q.pending.retain(|p| p.number != number);
    }
}

/// Sends a person's answer to request `number` (or the one with id `id`); what to say of it.
pub(super) fn answer(queue: &Shared, which: Which<'_>, allow: bool) -> Result<usize, String> {
    let Ok(mut q) = queue.lock() else { return Err("the queue is unusable".into()) };
    let waiting = q.pending.iter().filter(|p| !p.answered).count();
    if matches!(which, Which::Oldest) && waiting > 1 {
        return Err(format!("{waiting} requests are waiting: say which, as a N or r N"));
    }
    let pending = match which {
        Which::Oldest => q.pending.iter_mut().find(|p| !p.answered),
        Which::Number(n) => q.pending.iter_mut().find(|p| p.number == n),
        Which::Id(id) => q.pending.iter_mut().find(|p| p.question.id == id),
    };
    let Some(p) = pending else {
        return Err(match which {
            Which::Oldest => "no request is waiting".into(),
            Which::Number(n) => format!("no request {n} is waiting (answered, expired, or never made)"),
            Which::Id(id) => format!("no request with id {id} is waiting (answered, expired, or never made)"),
        });
    };
    if p.answered {
        return Err(format!("request {} was answered already: a second answer is refused", p.number));
    }
    let m =
        Message::Answer { id: p.question.id.clone(), answer: if allow { "allow-once" } else { "reject" }.to_string() };
    p.stream.write_all(&m.line()).map_err(|_| format!("request {} is gone", p.number))?;
    p.answered = true;
    Ok(p.number)
}

pub(super) enum Which<'a> {
    Oldest,
    Number(usize),
    Id(&'a str),
}

/// Binds this listener's socket in `dir`, removing sockets no one listens at any more.
fn bind(dir: &Path) -> Result<(UnixListener, std::path::PathBuf), String> {
    if !super::make_dir(dir) {
        return Err(format!("{} is not a directory of this user's own that only they can enter", dir.display()));
    }
    let short = Short::open(dir).ok_or_else(|| format!("cannot open {}", dir.display()))?;
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "sock")
                && let Err(err) = UnixStream::connect(short.path(&e.file_name()))
                && err.kind() == std::io::ErrorKind::ConnectionRefused
            {
                let _ = std::fs::remove_file(&p);
            }
        }
    }
    let name = format!("{}.sock", std::process::id());
    let path = dir.join(&name);
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(short.path(name.as_ref()))
        .map_err(|e| format!("cannot listen at {}: {e}", path.display()))?;
    Ok((listener, path))
}

/// `sandbox-bash --sandbox-approvals [--json | --web [ADDR:PORT]]`: the listener's own loop.
pub fn run(dir: &Path, json: bool, web: Option<Option<String>>) -> Result<i32, String> {
    let (listener, path) = bind(dir)?;
    let queue: Shared = Arc::new(Mutex::new(Queue::default()));
    let (tx, rx) = mpsc::channel::<Event>();
    if let Some(addr) = web {
        let page = super::web::Page::start(addr.as_deref(), Arc::clone(&queue))?;
        let presence = page.presence();
        serve(listener, Arc::clone(&queue), tx.clone(), presence);
        let shown = page.url();
        println!("sandbox-bash: approvals for uid {} on a page: open {shown}", crate::exec::uid());
        println!("(the link lets one browser in once you confirm it here with y; requests wait at {})", path.display());
        let _ = std::io::stdout().flush();
        let result = page.run(rx, tx);
        let _ = std::fs::remove_file(&path);
        return result.map(|()| 0);
    }
    let tty = std::fs::read_link("/proc/self/fd/0").map_or("standard input".into(), |p| p.display().to_string());
    let by = if json {
        "sandbox-bash --sandbox-approvals --json".to_string()
    } else {
        format!("sandbox-bash --sandbox-approvals on {tty}")
    };
    let presence: Presence = Arc::new(move || Ok(by.clone()));
    serve(listener, Arc::clone(&queue), tx.clone(), presence);
    let input = tx;
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            let Ok(line) = line else { break };
            if input.send(Event::Input(line)).is_err() {
                return;
            }
        }
        let _ = input.send(Event::End);
    });
    let mut out = std::io::stdout();
    if json {
        emit(&mut out, &serde_json::json!({"event": "listening", "socket": path.display().to_string()}));
    } else {
        let _ = writeln!(
            out,
            "sandbox-bash: approvals for uid {}: waiting for requests (a N: allow request N once, r N: reject it; \
             a or r alone: the oldest; ^D ends)",
            crate::exec::uid()
        );
    }
    for event in rx {
        match event {
            Event::New(n) => {
                let Some(q) = question(&queue, n) else { continue };
                if json {
                    let left = q.expires_at.saturating_sub(now());
                    emit(
                        &mut out,
                        &serde_json::json!({"event": "pending", "number": n, "expires_in": left, "request": q}),
                    );
                } else {
                    let _ = out.write_all(show(n, &q).as_bytes());
                }
            }
            Event::Gone(n, why, outcome) => {
                if json {
                    emit(&mut out, &serde_json::json!({"event": "gone", "number": n, "why": why, "outcome": outcome}));
                } else {
                    let _ = match outcome {
                        Some(o) => writeln!(out, "request {n}: {}", escaped(&o)),
                        None => writeln!(out, "request {n}: gone ({})", escaped(&why)),
                    };
                }
            }
            Event::Input(line) => {
                let said = input_answer(&queue, line.trim());
                match (said, json) {
                    (None, _) => {}
                    (Some(Ok(n)), true) => emit(&mut out, &serde_json::json!({"event": "answered", "number": n})),
                    (Some(Ok(n)), false) => {
                        let _ = writeln!(out, "request {n}: answer sent");
                    }
                    (Some(Err(why)), true) => emit(&mut out, &serde_json::json!({"event": "refused", "why": why})),
                    (Some(Err(why)), false) => {
                        let _ = writeln!(out, "{}", escaped(&why));
                    }
                }
            }
            Event::End => break,
            Event::Pairing(..) => {}
        }
        let _ = out.flush();
    }
    let _ = std::fs::remove_file(&path);
    Ok(0)
}

fn emit(out: &mut impl Write, value: &serde_json::Value) {
    let _ = writeln!(out, "{value}");
    let _ = out.flush();
}

pub(super) fn question(queue: &Shared, n: usize) -> Option<Question> {
    queue.lock().ok()?.pending.iter().find(|p| p.number == n).map(|p| p.question.clone())
}

/// A line typed or sent: `a`, `r`, `a N`, `r N`, or `{"id": …, "answer": "allow-once"|"reject"}`.
fn input_answer(queue: &Shared, line: &str) -> Option<Result<usize, String>> {
    if line.is_empty() {
        return None;
    }
    if line.starts_with('{') {
        #[derive(serde::Deserialize)]
        struct Said {
            id: String,
            answer: String,
        }
        return Some(match serde_json::from_str::<Said>(line) {
            Ok(s) if s.answer == "allow-once" || s.answer == "reject" => {
                answer(queue, Which::Id(&s.id), s.answer == "allow-once")
            }
            Ok(s) => Err(format!("the answer {:?} is neither allow-once nor reject", s.answer)),
            Err(e) => Err(format!("cannot read the answer: {e}")),
        });
    }
    let mut words = line.split_whitespace();
    let allow = match words.next() {
        Some("a" | "allow") => true,
        Some("r" | "reject") => false,
        _ => return Some(Err("answer with a N (allow once) or r N (reject)".into())),
    };
    let which = match words.next().map(str::parse::<usize>) {
        None => Which::Oldest,
        Some(Ok(n)) => Which::Number(n),
        Some(Err(_)) => return Some(Err("answer with a N (allow once) or r N (reject)".into())),
    };
    Some(answer(queue, which, allow))
}

/// A request as the terminal shows it: every text escaped, and what is asked (the modes) again
/// right above the answer, so that no text before it can scroll it away unseen.
pub(super) fn show(n: usize, q: &Question) -> String {
    let mut s = format!(
        "\n[{n}] request {} from uid {}, expires in {} s\n",
        escaped(&q.id),
        q.uid,
        q.expires_at.saturating_sub(now())
    );
    s.push_str(&format!("    workspace  {}\n    cwd        {}\n", escaped(&q.workspace), escaped(&q.cwd)));
    let argv: Vec<String> = q.argv.iter().map(|a| format!("'{}'", escaped(a))).collect();
    s.push_str(&format!("    command    bash {}\n", argv.join(" ")));
    if !q.files.is_empty() {
        let files: Vec<String> = q.files.iter().map(|f| escaped(f)).collect();
        s.push_str(&format!("    runs       {}\n", files.join(", ")));
    }
    s.push_str(&format!("    reason     {}\n", escaped(&q.reason)));
    for m in &q.missing {
        s.push_str(&format!("    missing    {}\n", m.shown()));
    }
    if !q.hosts.is_empty() {
        s.push_str(&format!("    hosts      {}\n", escaped(&q.hosts.join(", "))));
    }
    s.push_str(&format!("    mode       {} -> {}\n", escaped(&q.allowed), escaped(&q.mode)));
    s.push_str(&format!(
        "    answer     a {n} = allow request {n} once ({} -> {}), r {n} = reject\n",
        escaped(&q.allowed),
        escaped(&q.mode)
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q() -> Question {
        Question {
            id: "1".repeat(32),
            uid: 0,
            workspace: "/w".into(),
            cwd: "/w".into(),
            argv: vec!["-c".into(), "x".into()],
            source: "command".into(),
            program: "x".into(),
            allowed: "0467".into(),
            mode: "0667".into(),
            missing: Vec::new(),
            hosts: Vec::new(),
            reason: "r".into(),
            files: Vec::new(),
            asked_at: now(),
            expires_at: now() + 60,
            binding: String::new(),
        }
    }

    #[test]
    fn an_answer_counts_only_for_its_own_request_and_before_its_expiry() {
        let q = q();
        assert_eq!(judge_answer(&q, &q.id, "allow-once", "t"), Answer::AllowedOnce { by: "t".into() });
        assert_eq!(judge_answer(&q, &q.id, "reject", "t"), Answer::Rejected { by: "t".into() });
        assert!(matches!(judge_answer(&q, &"2".repeat(32), "allow-once", "t"), Answer::Rejected { .. }));
        assert!(matches!(judge_answer(&q, &q.id, "yes", "t"), Answer::Rejected { .. }));
        let old = Question { expires_at: now() - 1, ..q };
        assert!(matches!(judge_answer(&old, &old.id, "allow-once", "t"), Answer::Expired { .. }));
    }

    #[test]
    fn shown_text_escapes_what_would_hide_or_change_it() {
        assert_eq!(escaped("a\nb\u{1b}[2Jc\u{202e}d"), "a\\nb\\u{1b}[2Jc\\u{202e}d");
    }
}
