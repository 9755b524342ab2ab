//! The static layer: from program text to the mode it requires, with a reason for every bit.
//!
//! The text is parsed with `brush-parser`; the tree is walked with a small abstract state
//! (known variable values, the cwd, functions, aliases), and every simple command is looked up
//! in the command knowledge table (`commands.rs`). Anything the walk cannot know is reported as
//! unresolved rather than guessed. The only I/O here is looking at what the text itself names
//! (`source`d files with literal paths, script files given to shells, glob matches, the paths
//! it reads and writes), and all of it goes through [`asked`], with the environment's
//! variables: so an analysis can be kept for the next run and taken again while every answer
//! is the same ([`analyze_kept`]).
//!
//! The whole analysis runs on one thread with a large stack, after a cheap scan has bounded
//! the nesting depth, so that no input can overflow the stack.

pub mod asked;
pub mod bytes;
mod commands;
mod effects;
pub mod files;
pub(crate) mod glob;
#[cfg(target_os = "linux")]
mod kept;
pub mod oracle;
mod parse;
pub(crate) mod programs;
mod rescue;
mod table;
mod walk;
mod word;

pub use parse::nesting;
pub use walk::{
    SHALLOW_NESTING, SHALLOW_STACK_BYTES, SHALLOW_TEXT_BYTES, analyze_program, analyze_program_shallow, literal_startup,
};

pub use parse::{MAX_DEPTH, MAX_TEXT_BYTES};
pub use table::{TABLE, TableEntry};

use crate::mode::{Mode, Perm, Scope};
use crate::scope::Layout;

/// A position in the program text the user gave (1-based).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// One bit of the mode that one part of the program needs, and why.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Access {
    pub scope: Scope,
    pub perm: Perm,
    /// The path, host or command the bit is needed for.
    pub target: String,
    /// The command that needs it.
    pub command: String,
    pub reason: String,
    pub pos: Pos,
    pub certainty: Certainty,
    /// The file `pos` is in, when it is not the program itself (a sourced file, a script run
    /// by path).
    pub file: Option<String>,
    /// The text of the simple command the access belongs to, as written (shortened), when it
    /// belongs to one.
    pub text: Option<std::sync::Arc<str>>,
    /// How many more places need the same (the same bit, target, command, reason and
    /// certainty): the first is kept, the others counted (a library calls `[` thousands of
    /// times).
    pub more: usize,
}

/// Why `cd` and its kin record the directory they enter: a possible read that reads nothing
/// (the kernel lets any directory be entered), so whatever rules are in force hold it.
pub const ENTERS_DIRECTORY: &str = "changes into a directory (what runs there is checked where it reads)";

/// Whether an access is known to happen, or only possible.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Certainty {
    /// It happens when this code runs (a redirection, an operand a modelled command really
    /// reads, writes or runs, code read whole): it needs its bit.
    Known,
    /// A word the analysis only suspects is a path (an argument of a program it does not
    /// model): listed in the explanation and left to whatever holds this kind of boundary.
    Possible(Bound),
}

/// What holds the boundary a possible access would cross.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Bound {
    /// Landlock and seccomp: a scope's rights on a whole tree (an ordinary path).
    Kernel,
    /// The namespace layer's view: a credential or protected path (absolute, in `target`),
    /// held only where the view masks it or makes it read-only.
    View,
    /// Nothing but the static layer (a path known only in part, a container engine's
    /// socket): the access needs its bit as if it were known.
    Static,
}

/// Where a position is, for people: `line 3:5`, or `FILE:3:5` in another file.
pub fn place(pos: Pos, file: Option<&str>) -> String {
    match file {
        Some(f) => format!("{}:{pos}", bytes::shown(f)),
        None => format!("line {pos}"),
    }
}

impl Access {
    /// Where it is, for people (see [`place`]).
    pub fn place(&self) -> String {
        place(self.pos, self.file.as_deref())
    }

    /// Whether the bit is required whatever the kernel holds.
    pub fn required(&self) -> bool {
        matches!(self.certainty, Certainty::Known | Certainty::Possible(Bound::Static))
    }

    /// The boundary that holds this access in place of the static layer, for a possible one.
    pub fn bound(&self) -> Option<Bound> {
        match self.certainty {
            Certainty::Possible(b @ (Bound::Kernel | Bound::View)) => Some(b),
            _ => None,
        }
    }
}

/// A program or builtin the text can run. `name` is `None` when it is not static.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct CommandUse {
    pub name: Option<String>,
    /// The source text of a name that is not static.
    pub text: Option<String>,
    pub pos: Pos,
    /// The file `pos` is in (see [`Access::file`]).
    pub file: Option<String>,
}

/// A word whose value the analysis could not know.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Unresolved {
    pub text: String,
    pub pos: Pos,
    /// The file `pos` is in (see [`Access::file`]).
    pub file: Option<String>,
}

/// Why the program cannot be analysed at all (it is then denied as a whole).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Failure {
    pub message: String,
    pub pos: Option<Pos>,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.pos {
            Some(pos) => write!(f, "{} (line {})", self.message, pos),
            None => write!(f, "{}", self.message),
        }
    }
}

/// The result of analysing one program.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Analysis {
    pub accesses: Vec<Access>,
    pub commands: Vec<CommandUse>,
    pub unresolved: Vec<Unresolved>,
    pub failure: Option<Failure>,
    /// The first lines of texts handed to `eval` or `bash -c` that are request lines (see
    /// [`crate::request`]): clients wrap the command they are given so.
    pub requests: Vec<String>,
    /// The files the walk read as code (scripts it runs, files it sources), each with the
    /// SHA-256 of what it read: an answer to a request is bound to them too.
    pub texts: Vec<(String, String)>,
}

impl Analysis {
    /// The union of the bits the accesses that must be allowed need (known ones, and possible
    /// ones nothing but the static layer could hold).
    pub fn required(&self) -> Mode {
        self.accesses.iter().filter(|a| a.required()).fold(Mode::NONE, |m, a| m.union(Mode::bit(a.scope, a.perm)))
    }

    /// The bits possible accesses would need where the kernel does not hold them.
    pub fn possible(&self) -> Mode {
        self.accesses
            .iter()
            .filter(|a| a.bound().is_some())
            .fold(Mode::NONE, |m, a| m.union(Mode::bit(a.scope, a.perm)))
    }
}

/// Everything about the world the analysis may consult, gathered before it starts.
#[derive(Clone, Debug)]
pub struct Context {
    /// The cwd the program starts in (absolute, normal).
    pub cwd: String,
    pub layout: Layout,
    /// The environment bash will start with (exported variables).
    pub env: crate::environ::Environ,
    /// `$0`.
    pub arg0: String,
    /// `$1`, `$2`, …
    pub args: Vec<String>,
    /// Directories whose programs run as if named on `PATH` (the runtime baseline: the system
    /// program directories and the caller's `PATH`), so `/usr/bin/env` is treated like `env`.
    pub program_dirs: Vec<String>,
    /// The start-up file bash reads before the program (see
    /// [`crate::invocation::Invocation::startup_file`]): a value bash expands as in double
    /// quotes, as `$BASH_ENV` and `$ENV` are (a literal `--rcfile` path goes through
    /// [`literal_startup`]).
    pub bash_env: Option<String>,
    /// The script file being analysed (absolute), so that running it again is not analysed
    /// again.
    pub script_path: Option<String>,
    /// sandbox-bash's own executable: running it by path is running it by name (nesting).
    pub self_exe: Option<String>,
    /// Toolchain homes the runtime baseline grants read and execute (see
    /// [`crate::scope::Layout::toolchains_on_path`]): reading and running in them needs no bit.
    pub toolchains: Vec<String>,
    /// The real bash, asked whether it accepts a program the parser refuses (see
    /// [`oracle`]); without it, such a program is refused.
    pub bash: Option<std::path::PathBuf>,
    /// bash starts in POSIX mode (`--posix`, `-o posix`, run as `sh`), which it parses in.
    pub posix: bool,
}

impl Context {
    /// A context for a `-c` program run by `bash` in `layout`, with the workspace as the cwd, the
    /// system program directories, and nothing else known (no arguments, no start-up file, no
    /// script file, no real bash to ask).
    pub fn plain(layout: Layout, env: crate::environ::Environ) -> Context {
        Context {
            cwd: layout.workspace.clone(),
            layout,
            env,
            arg0: "bash".into(),
            args: Vec::new(),
            program_dirs: ["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"].map(String::from).to_vec(),
            bash_env: None,
            script_path: None,
            self_exe: None,
            toolchains: Vec::new(),
            bash: None,
            posix: false,
        }
    }
}

/// What kind of text is analysed; scripts may start with a `#!` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextKind {
    Command,
    Script,
}

/// Analyses `text` as bash would run it in `ctx`. Never panics on any input; failures to
/// understand the text are reported in [`Analysis::failure`].
pub fn analyze(text: &[u8], kind: TextKind, ctx: &Context) -> Analysis {
    analyze_answered(text, kind, ctx).0
}

/// [`analyze`], taken from an earlier run's when nothing it depends on changed, and kept for
/// the next (see `kept`).
pub fn analyze_kept(text: &[u8], kind: TextKind, ctx: &Context) -> Analysis {
    #[cfg(target_os = "linux")]
    return kept::analyze(text, kind, ctx);
    #[cfg(not(target_os = "linux"))]
    return analyze(text, kind, ctx);
}

/// [`analyze`], with the questions the walk asked of the filesystem and their answers (see
/// [`asked`]); `None` when they cannot be asked again.
pub fn analyze_answered(text: &[u8], kind: TextKind, ctx: &Context) -> (Analysis, Option<asked::Answers>) {
    let text = match parse::check_text(text) {
        Ok(text) => text.into_owned(),
        Err(failure) => return (Analysis { failure: Some(failure), ..Analysis::default() }, Some(Vec::new())),
    };
    // Small programs (most commands an agent runs) are analysed right here: starting a
    // thread costs a third of a millisecond. Anything deeper goes to the big stack.
    if crate::exec::on_main_thread() && crate::exec::main_stack_bytes() >= walk::SHALLOW_STACK_BYTES {
        // A panic (the parser crate has a few) must end as a failure here too, as it does on
        // the analysis thread. (The binary aborts on panic; its hook denies first.)
        let shallow = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            asked::recorded(|| walk::analyze_program_shallow(&text, kind, ctx))
        }));
        match shallow {
            Ok((Some(analysis), answers)) => return (analysis, answers),
            Ok((None, _)) => {}
            Err(_) => return (failure(STOPPED), None),
        }
    }
    let ctx = ctx.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new().name("analysis".into()).stack_size(parse::STACK_BYTES).spawn(move || {
        let _ = tx.send(asked::recorded(|| walk::analyze_program(&text, kind, &ctx)));
    });
    let handle = match spawned {
        Ok(handle) => handle,
        Err(e) => return (failure(&format!("cannot start the analysis thread: {e}")), None),
    };
    // A watchdog: no input may keep the analysis busy for long. The thread is left behind
    // (the process denies and exits right after).
    match rx.recv_timeout(TIME_LIMIT) {
        Ok(answered) => {
            // The kernel rules are applied to one thread: the process must be single-threaded
            // again before they are.
            if handle.join().is_err() {
                return (failure(STOPPED), None);
            }
            answered
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            (failure(&format!("the analysis took longer than {} seconds", TIME_LIMIT.as_secs())), None)
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => (failure(STOPPED), None),
    }
}

/// The failure when the analysis thread ended without a result (it panicked).
pub const STOPPED: &str = "the analysis stopped unexpectedly";

/// The longest the analysis may take before the program is denied.
pub const TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(20);

fn failure(message: &str) -> Analysis {
    Analysis { failure: Some(Failure { message: message.into(), pos: None }), ..Analysis::default() }
}
