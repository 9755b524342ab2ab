//! Everything the analysis asks of the filesystem, asked here and, while a walk is recorded,
//! written down with its answer.
//!
//! The walk is a function of the program text, its [`super::Context`] and the answers to these
//! questions, and of nothing else: no clock, no randomness that reaches its result, no other
//! file read. So an analysis whose questions all get the same answers again, for the same text
//! and context, would come out the same, and can be taken from an earlier run (see
//! [`super::kept`]). Each answer is what the walk took from the kernel's reply and no more (a
//! file's kind, not its whole status; a file's contents as their SHA-256), so that only a change
//! the walk could see makes it ask again.
//!
//! A question asked twice with two different answers (the file changed while it was read)
//! spoils the record: such a walk is not kept. So does the one question that cannot be asked
//! again cheaply (whether the real bash accepts a text the parser refuses).

use std::cell::RefCell;

/// What a path is, as the walk sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Kind {
    File,
    Dir,
    Link,
    /// A device, pipe or socket.
    Other,
}

/// Why a status could not be taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Missing {
    /// Nothing there (`ENOENT`).
    NotFound,
    /// A component on the way is not a directory (`ENOTDIR`).
    NotDir,
    /// Any other error (permission, a loop of links, …).
    Other,
}

/// One question.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Question {
    /// The kind of what `path` names, the last link followed or not.
    Status { path: String, follow: bool },
    /// The canonical form of `path` (every link resolved), if it has one.
    Canonical { path: String },
    /// The target of the link at `path`.
    Link { path: String },
    /// The names in the directory `path`, in the kernel's order.
    List { path: String },
    /// A regular file of at most `limit` bytes, read whole.
    Read { path: String, limit: u64 },
    /// The first `n` bytes of a regular file.
    Head { path: String, n: usize },
    /// A file read whole as UTF-8 text.
    Text { path: String },
    /// A variable of the environment bash starts with (see [`env_var`]).
    Env { name: String },
    /// Whether a credential-named path of the workspace is project content (see
    /// [`crate::project::Committed::holds`]: its content is a blob its repository stores).
    Committed { path: String },
}

/// Its answer. Contents are kept as their SHA-256 (hex), never as themselves.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Answer {
    Status(Result<Kind, Missing>),
    Path(Option<String>),
    Digest(Option<String>),
    Flag(bool),
}

/// The questions one walk asked, each with the answer it got.
pub type Answers = Vec<(Question, Answer)>;

#[derive(Default)]
struct Record {
    asked: Answers,
    seen: rustc_hash::FxHashMap<Question, usize>,
    /// The environment's variables asked for (asked often: a name is looked up without a
    /// question made for it).
    vars: rustc_hash::FxHashSet<String>,
    spoiled: bool,
}

thread_local! {
    static RECORD: RefCell<Option<Record>> = const { RefCell::new(None) };
}

/// Runs `walk` with its questions recorded: its result, and the questions with their answers
/// (`None` when the record is spoiled, see the module's comment).
pub fn recorded<R>(walk: impl FnOnce() -> R) -> (R, Option<Answers>) {
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            RECORD.with(|r| r.borrow_mut().take());
        }
    }
    RECORD.with(|r| *r.borrow_mut() = Some(Record::default()));
    let clear = Clear;
    let result = walk();
    let record = RECORD.with(|r| r.borrow_mut().take());
    drop(clear);
    let answers = record.filter(|r| !r.spoiled).map(|r| r.asked);
    (result, answers)
}

/// Marks the walk being recorded as one that cannot be taken again.
pub fn spoil() {
    RECORD.with(|r| {
        if let Some(record) = r.borrow_mut().as_mut() {
            record.spoiled = true;
        }
    });
}

fn note(question: Question, answer: &Answer) {
    RECORD.with(|r| {
        let mut r = r.borrow_mut();
        let Some(record) = r.as_mut() else { return };
        match record.seen.get(&question) {
            Some(&i) => {
                if record.asked[i].1 != *answer {
                    record.spoiled = true;
                }
            }
            None => {
                record.seen.insert(question.clone(), record.asked.len());
                record.asked.push((question, answer.clone()));
            }
        }
    });
}

fn recording() -> bool {
    RECORD.with(|r| r.borrow().is_some())
}

/// Asks `question` now, of the filesystem or of the context `ctx` (nothing recorded).
pub fn answer(question: &Question, ctx: &super::Context) -> Answer {
    match question {
        Question::Env { name } => Answer::Digest(ctx.env.get(name).map(|v| digest(v.as_encoded_bytes()))),
        Question::Committed { path } => Answer::Flag(ctx.layout.committed.as_ref().is_some_and(|c| c.holds(path))),
        Question::Status { path, follow } => Answer::Status(status_now(path, *follow)),
        Question::Canonical { path } => Answer::Path(canonical_now(path)),
        Question::Link { path } => Answer::Path(link_now(path)),
        Question::List { path } => Answer::Digest(list_now(path).map(|names| digest_names(&names))),
        Question::Read { path, limit } => Answer::Digest(read_now(path, *limit).map(|b| digest(&b))),
        Question::Head { path, n } => Answer::Digest(head_now(path, *n).map(|b| digest(&b))),
        Question::Text { path } => Answer::Digest(text_now(path).map(|t| digest(t.as_bytes()))),
    }
}

/// Whether every question gets the answer it got before, in the context `ctx`.
pub fn still(answers: &Answers, ctx: &super::Context) -> bool {
    answers.iter().all(|(q, a)| answer(q, ctx) == *a)
}

/// Notes what [`crate::project::Committed::holds`] answered for `path`, when a walk is
/// recorded (the layout's credential checks reach the files there, outside the walk's code).
pub fn committed(path: &str, holds: bool) {
    if recording() {
        note(Question::Committed { path: path.to_string() }, &Answer::Flag(holds));
    }
}

/// The variable `name` of `env`, the environment bash starts with: the walk's only way to it,
/// so that a kept analysis depends on the variables it read and on no other.
pub fn env_var<'e>(env: &'e crate::environ::Environ, name: &str) -> Option<&'e std::ffi::OsStr> {
    let got = env.get(name);
    RECORD.with(|r| {
        let mut r = r.borrow_mut();
        let Some(record) = r.as_mut() else { return };
        if record.vars.contains(name) {
            return;
        }
        record.vars.insert(name.to_string());
        let answer = Answer::Digest(got.map(|v| digest(v.as_encoded_bytes())));
        record.asked.push((Question::Env { name: name.to_string() }, answer));
    });
    got
}

/// The SHA-256 of `bytes`, in hex.
pub fn digest(bytes: &[u8]) -> String {
    hex(&hmac_sha256::Hash::hash(bytes))
}

pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn digest_names(names: &[String]) -> String {
    let mut h = hmac_sha256::Hash::new();
    for n in names {
        h.update(n.as_bytes());
        h.update([0u8]);
    }
    hex(&h.finalize())
}

/// What `path` is (the last link followed when `follow`).
pub fn status(path: &str, follow: bool) -> Result<Kind, Missing> {
    let got = status_now(path, follow);
    if recording() {
        note(Question::Status { path: path.to_string(), follow }, &Answer::Status(got));
    }
    got
}

/// Whether `path` is a directory, links followed (`Path::is_dir`).
pub fn is_dir(path: &str) -> bool {
    status(path, true) == Ok(Kind::Dir)
}

/// Whether `path` is a regular file, links followed (`Path::is_file`).
pub fn is_file(path: &str) -> bool {
    status(path, true) == Ok(Kind::File)
}

/// Whether something is at `path`, links followed (`Path::exists`).
pub fn exists(path: &str) -> bool {
    status(path, true).is_ok()
}

fn status_now(path: &str, follow: bool) -> Result<Kind, Missing> {
    let p = super::bytes::path(path);
    let meta = if follow { std::fs::metadata(p) } else { std::fs::symlink_metadata(p) };
    match meta {
        Ok(m) => {
            let t = m.file_type();
            Ok(if t.is_symlink() {
                Kind::Link
            } else if t.is_dir() {
                Kind::Dir
            } else if t.is_file() {
                Kind::File
            } else {
                Kind::Other
            })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Missing::NotFound),
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => Err(Missing::NotDir),
        Err(_) => Err(Missing::Other),
    }
}

/// The canonical form of `path`, if it has one.
pub fn canonical(path: &str) -> Option<String> {
    let got = canonical_now(path);
    if recording() {
        note(Question::Canonical { path: path.to_string() }, &Answer::Path(got.clone()));
    }
    got
}

fn canonical_now(path: &str) -> Option<String> {
    std::fs::canonicalize(super::bytes::path(path)).ok().map(|p| super::bytes::from_os(&p))
}

/// The target of the link at `path`.
pub fn link(path: &str) -> Option<String> {
    let got = link_now(path);
    if recording() {
        note(Question::Link { path: path.to_string() }, &Answer::Path(got.clone()));
    }
    got
}

fn link_now(path: &str) -> Option<String> {
    std::fs::read_link(super::bytes::path(path)).ok().map(|p| super::bytes::from_os(&p))
}

/// The names in the directory `path`, in the kernel's order.
pub fn list(path: &str) -> Option<Vec<String>> {
    let got = list_now(path);
    if recording() {
        note(Question::List { path: path.to_string() }, &Answer::Digest(got.as_deref().map(digest_names)));
    }
    got
}

fn list_now(path: &str) -> Option<Vec<String>> {
    let entries = std::fs::read_dir(super::bytes::path(path)).ok()?;
    Some(entries.flatten().map(|e| super::bytes::from_os(std::path::Path::new(&e.file_name()))).collect())
}

/// A regular file of at most `limit` bytes (see [`super::files::read_regular`]).
pub fn read(path: &str, limit: u64) -> Option<Vec<u8>> {
    read_digested(path, limit).map(|(bytes, _)| bytes)
}

/// [`read`], with the SHA-256 of what it read (hex).
pub fn read_digested(path: &str, limit: u64) -> Option<(Vec<u8>, String)> {
    let got = read_now(path, limit).map(|bytes| {
        let d = digest(&bytes);
        (bytes, d)
    });
    if recording() {
        note(Question::Read { path: path.to_string(), limit }, &Answer::Digest(got.as_ref().map(|(_, d)| d.clone())));
    }
    got
}

fn read_now(path: &str, limit: u64) -> Option<Vec<u8>> {
    super::files::read_regular(&super::bytes::path(path), limit).ok()
}

/// The first `n` bytes of a regular file (see [`super::files::head`]).
pub fn head(path: &str, n: usize) -> Option<Vec<u8>> {
    let got = head_now(path, n);
    if recording() {
        note(Question::Head { path: path.to_string(), n }, &Answer::Digest(got.as_deref().map(digest)));
    }
    got
}

fn head_now(path: &str, n: usize) -> Option<Vec<u8>> {
    super::files::head(&super::bytes::path(path), n)
}

/// A regular file of at most 1 MiB read whole as UTF-8 text (never a pipe or a device: the
/// question is asked again outside the analysis' watchdog).
pub fn text(path: &str) -> Option<String> {
    let got = text_now(path);
    if recording() {
        note(Question::Text { path: path.to_string() }, &Answer::Digest(got.as_deref().map(|t| digest(t.as_bytes()))));
    }
    got
}

fn text_now(path: &str) -> Option<String> {
    String::from_utf8(read_now(path, 1 << 20)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walk_records_each_question_once_with_its_answer() {
        let dir = crate::unit_scratch();
        let file = dir.path().join("lib.sh");
        std::fs::write(&file, "echo one\n").unwrap();
        let path = file.to_str().unwrap();
        let (got, answers) = recorded(|| {
            let a = read(path, 1 << 20);
            let b = read(path, 1 << 20);
            (a, b, status(path, false), status(&format!("{path}.not"), false))
        });
        assert_eq!(got.0.as_deref(), Some(&b"echo one\n"[..]));
        assert_eq!(got.1, got.0);
        assert_eq!(got.2, Ok(Kind::File));
        assert_eq!(got.3, Err(Missing::NotFound));
        let answers = answers.expect("a record");
        assert_eq!(answers.len(), 3, "{answers:?}");
        assert!(still(&answers, &crate::analysis::Context::plain(Default::default(), Default::default())));
        // The same length, another text: the digest tells.
        std::fs::write(&file, "echo two\n").unwrap();
        assert!(!still(&answers, &crate::analysis::Context::plain(Default::default(), Default::default())));
        std::fs::write(&file, "echo one\n").unwrap();
        assert!(still(&answers, &crate::analysis::Context::plain(Default::default(), Default::default())));
        std::fs::write(format!("{path}.not"), "").unwrap();
        assert!(!still(&answers, &crate::analysis::Context::plain(Default::default(), Default::default())));
        // Outside a record nothing is noted.
        assert!(!recording());
    }

    #[test]
    fn a_question_answered_two_ways_or_one_that_cannot_be_asked_again_spoils_the_record() {
        let dir = crate::unit_scratch();
        let file = dir.path().join("lib.sh");
        std::fs::write(&file, "a").unwrap();
        let path = file.to_str().unwrap().to_string();
        let (_, answers) = recorded(|| {
            read(&path, 10);
            std::fs::write(&file, "b").unwrap();
            read(&path, 10);
        });
        assert!(answers.is_none());
        let (_, answers) = recorded(|| {
            read(&path, 10);
            spoil();
        });
        assert!(answers.is_none());
        let (_, answers) = recorded(|| read(&path, 10));
        assert!(answers.is_some());
    }

    #[test]
    fn a_pipe_is_no_text_and_is_not_waited_for() {
        let dir = crate::unit_scratch();
        let fifo = dir.path().join("config");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        #[allow(unsafe_code)]
        let made = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
        assert_eq!(made, 0);
        assert_eq!(text(fifo.to_str().unwrap()), None);
        assert_eq!(read(fifo.to_str().unwrap(), 1 << 20), None);
    }
}
