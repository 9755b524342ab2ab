//! The tree walk: an abstract run of the program that records what each command needs.
//!
//! The state follows bash where it can be known cheaply and soundly: variables assigned
//! literal values in straight-line code, the cwd through `cd`/`pushd`, positional parameters.
//! Branches are joined (a value that differs becomes unknown), loop bodies start from a state
//! where everything they assign is unknown, subshells and pipeline parts do not leak their
//! changes. Function bodies and trap actions are analysed at the end, when every assignment
//! of the program is known, and a function's needs count only if something can call it.

use std::collections::BTreeSet;
use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use brush_parser::ast;

use super::commands;
use super::parse;
use super::programs::{Nest, Stdin, shell_quote};
use super::word::{Arg, Field};
use super::{Access, Analysis, Bound, Certainty, CommandUse, Context, Failure, Pos, TextKind, Unresolved};
use crate::mode::{MODE_VAR, Mode, Perm, Scope};
use crate::scope::{self, Class};

/// Variables that make the dynamic loader map code into the programs started with them.
pub const LOADER_VARS: &[&str] =
    &["LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH", "GCONV_PATH", "OPENSSL_MODULES", "OPENSSL_CONF"];

/// Deepest chain of nested texts (`eval` inside `bash -c` inside `$(…)` …).
const MAX_NESTED_TEXTS: usize = 64;
/// Most texts parsed for one program, and most bytes parsed in all.
const MAX_PARSES: usize = 20_000;
const MAX_PARSED_BYTES: usize = 64 * 1024 * 1024;
/// Loops nested deeper than this are not pre-run; their bodies start from a fully unknown state.
const MAX_PRERUN_LOOP_DEPTH: usize = 4;
/// Largest nested text kept parsed for a second walk.
const MAX_CACHED_TEXT: usize = 64 * 1024;
/// Deepest chain of function calls followed into function bodies.
const MAX_CALL_DEPTH: usize = 4;
/// Calls followed into their bodies before calls inside them are no longer followed (their
/// effects are applied from their syntax, and their bodies analysed on their own at the end).
const MAX_FOLLOWED_CALLS: usize = 2_000;
/// Most commands and compound commands walked for one program.
const MAX_STEPS: usize = 2_000_000;
/// Largest file read for `source`/script analysis (the same limit as the program text).
const MAX_FILE_BYTES: u64 = parse::MAX_TEXT_BYTES as u64;

/// Most distinct values a variable may hold before the analysis forgets them.
pub const MAX_CHOICES: usize = 8;

/// A variable's value as far as it is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Val {
    Unset,
    Known(String),
    /// An indexed array whose elements are all known.
    Array(Vec<String>),
    /// One of `values`, or (when `open`) anything else too.
    Choice {
        values: BTreeSet<String>,
        open: bool,
    },
}

impl Val {
    /// A value nothing is known about.
    pub fn unknown() -> Val {
        Val::Choice { values: BTreeSet::new(), open: true }
    }

    pub fn from_option(v: Option<String>) -> Val {
        v.map_or_else(Val::unknown, Val::Known)
    }

    /// The possible scalar values (`$name`), and whether others are possible too.
    pub fn scalars(&self) -> (BTreeSet<String>, bool) {
        match self {
            Val::Unset => ([String::new()].into_iter().collect(), false),
            Val::Known(s) => ([s.clone()].into_iter().collect(), false),
            Val::Array(a) => ([a.first().cloned().unwrap_or_default()].into_iter().collect(), false),
            Val::Choice { values, open } => (values.clone(), *open),
        }
    }

    /// The value on either of two paths through the program.
    pub fn join(&self, other: &Val) -> Val {
        if self == other {
            return self.clone();
        }
        if matches!(self, Val::Array(_)) || matches!(other, Val::Array(_)) {
            return Val::unknown();
        }
        let (mut a, open_a) = self.scalars();
        let (b, open_b) = other.scalars();
        a.extend(b);
        if a.len() > MAX_CHOICES {
            return Val::unknown();
        }
        Val::Choice { values: a, open: open_a || open_b }
    }

    /// The single known scalar value, if there is one.
    pub fn exact(&self) -> Option<String> {
        let (values, open) = self.scalars();
        if open || values.len() != 1 {
            return None;
        }
        values.into_iter().next()
    }
}

/// A variable's name in [`State`].
type Name = Rc<str>;
/// The variables and their values.
type Vars = imbl::OrdMap<Name, Rc<Val>>;

/// The programs whose written paths are removed, not made.
const REMOVERS: &[&str] = &["rm", "rmdir", "unlink", "srm", "trash", "trash-put", "gio-trash"];

/// The programs that write a file that exists by making a new one beside it and renaming it
/// over (`sed -i`, `perl -i`), or move it away (`mv`).
const REPLACERS: &[&str] = &["sed", "perl", "ruby", "mv", "install", "rsync"];

/// The abstract shell state at one point of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// Names and values are shared, not copied, when a branch of the walk first changes a map
    /// node it shares with another (the map copies the node's entries then).
    vars: Vars,
    /// Names the program exports; the caller's environment (`Context::env`) is exported too,
    /// without being copied here (see [`Walker::is_exported`]).
    exported: imbl::OrdSet<String>,
    /// Names declared with `declare -n`, and the variable each refers to.
    namerefs: HashMap<String, String>,
    /// The cwd, when known.
    pub cwd: Option<String>,
    /// When `cwd` is not known: the few directories it may be (after branches that end in
    /// different directories, or a `cd` that searches `CDPATH`), or `None` when it could be
    /// anywhere.
    cwd_alts: Option<Rc<BTreeSet<String>>>,
    dirs: Option<Vec<Option<String>>>,
    /// `$1…`; `positional_open` when there may be more than these, or they are not known.
    positional: Vec<Val>,
    positional_open: bool,
    pub arg0: String,
    /// Every variable not in `vars` is unknown (after code the analysis could not see).
    all_unknown: bool,
    /// Variables not in `vars` that are unknown (for code that runs at times the walk cannot
    /// know: every variable the program assigns anywhere).
    havoc_names: Option<std::sync::Arc<HashSet<String>>>,
    /// Files this program downloaded, so running them later is running fetched code.
    pub downloaded: imbl::OrdSet<String>,
    /// Functions defined on every path that leads here (so a program of that name does not
    /// run instead).
    pub defined: imbl::OrdSet<String>,
}

impl State {
    fn new(ctx: &Context) -> State {
        State {
            vars: imbl::OrdMap::new(),
            exported: imbl::OrdSet::new(),
            havoc_names: None,
            namerefs: HashMap::default(),
            cwd: Some(ctx.cwd.clone()),
            cwd_alts: None,
            dirs: Some(Vec::new()),
            positional: ctx.args.iter().cloned().map(Val::Known).collect(),
            positional_open: false,
            arg0: ctx.arg0.clone(),
            all_unknown: false,
            downloaded: imbl::OrdSet::new(),
            defined: imbl::OrdSet::new(),
        }
    }

    /// Sets a variable; `None` means its value is not known.
    /// The directories the cwd may be, or `None` when it could be anywhere.
    pub fn cwds(&self) -> Option<Vec<String>> {
        match (&self.cwd, &self.cwd_alts) {
            (Some(cwd), _) => Some(vec![cwd.clone()]),
            (None, Some(alts)) => Some(alts.iter().cloned().collect()),
            (None, None) => None,
        }
    }

    /// Sets the cwd to one of `dirs` (`None`: anywhere). Past a few it could be anywhere.
    pub fn set_cwds(&mut self, dirs: Option<BTreeSet<String>>) {
        self.cwd = None;
        self.cwd_alts = None;
        match dirs {
            Some(dirs) if dirs.len() == 1 => self.cwd = dirs.into_iter().next(),
            Some(dirs) if !dirs.is_empty() && dirs.len() <= MAX_CHOICES => self.cwd_alts = Some(Rc::new(dirs)),
            _ => {}
        }
    }

    /// Sets a variable; `None` means its value is not known.
    pub fn set_var(&mut self, name: &str, value: Option<String>) {
        self.set_val(name, Val::from_option(value));
    }

    pub fn set_val(&mut self, name: &str, value: Val) {
        let target = self.resolve_name(name);
        self.vars.insert(Name::from(target.as_ref()), Rc::new(value));
    }

    fn unset_var(&mut self, name: &str) {
        let target = self.resolve_name(name);
        self.vars.insert(Name::from(target.as_ref()), Rc::new(Val::Unset));
    }

    /// Follows `declare -n` references.
    fn resolve_name<'a>(&self, name: &'a str) -> std::borrow::Cow<'a, str> {
        if self.namerefs.is_empty() {
            return std::borrow::Cow::Borrowed(name);
        }
        let mut current = name.to_string();
        for _ in 0..8 {
            match self.namerefs.get(&current) {
                Some(next) => current = next.clone(),
                None => break,
            }
        }
        std::borrow::Cow::Owned(current)
    }

    pub fn set_nameref(&mut self, name: &str, target: &str) {
        self.namerefs.insert(name.to_string(), target.to_string());
    }

    /// `$n` (n ≥ 1).
    pub fn positional_val(&self, n: usize) -> Val {
        match self.positional.get(n - 1) {
            Some(v) => v.clone(),
            None if self.positional_open => Val::unknown(),
            None => Val::Unset,
        }
    }

    /// All positional parameters, when their number is known.
    pub fn all_positional(&self) -> Option<Vec<Val>> {
        if self.positional_open { None } else { Some(self.positional.clone()) }
    }

    pub fn set_positional_vals(&mut self, values: Option<Vec<Val>>) {
        match values {
            Some(v) => {
                self.positional = v;
                self.positional_open = false;
            }
            None => {
                self.positional = Vec::new();
                self.positional_open = true;
            }
        }
    }

    /// Merges the state of another path through the program: what differs becomes the set of
    /// both values (or unknown, past a few). `default` gives a variable's starting value.
    fn join_with(&mut self, other: &State, default: &dyn Fn(&str, &State) -> Val) {
        // Only what differs between the two paths needs joining; shared parts are skipped.
        let mut changes: Vec<(Name, Val)> = Vec::new();
        for item in self.vars.diff(&other.vars) {
            match item {
                imbl::ordmap::DiffItem::Update { old: (k, a), new: (_, b) } => changes.push((k.clone(), a.join(b))),
                imbl::ordmap::DiffItem::Remove(k, a) => changes.push((k.clone(), a.join(&default(k, other)))),
                imbl::ordmap::DiffItem::Add(k, b) => changes.push((k.clone(), default(k, self).join(b))),
            }
        }
        for (k, v) in changes {
            self.vars.insert(k, Rc::new(v));
        }
        if !self.exported.ptr_eq(&other.exported) {
            self.exported = self.exported.clone().union(other.exported.clone());
        }
        for (k, v) in &other.namerefs {
            if self.namerefs.get(k) != Some(v) {
                self.namerefs.insert(k.clone(), v.clone());
            }
        }
        if self.cwd != other.cwd || self.cwd_alts != other.cwd_alts {
            let joined = match (self.cwds(), other.cwds()) {
                (Some(a), Some(b)) => Some(a.into_iter().chain(b).collect()),
                _ => None,
            };
            self.set_cwds(joined);
        }
        if self.dirs != other.dirs {
            self.dirs = None;
        }
        if self.positional != other.positional || self.positional_open != other.positional_open {
            let n = self.positional.len().max(other.positional.len());
            let mut joined = Vec::with_capacity(n);
            for i in 0..n {
                joined.push(self.positional_val(i + 1).join(&other.positional_val(i + 1)));
            }
            self.positional_open |= other.positional_open;
            self.positional = joined;
        }
        self.all_unknown |= other.all_unknown;
        if !self.downloaded.ptr_eq(&other.downloaded) {
            self.downloaded = self.downloaded.clone().union(other.downloaded.clone());
        }
        if !self.defined.ptr_eq(&other.defined) {
            self.defined = self.defined.clone().intersection(other.defined.clone());
        }
    }

    /// Forgets everything about variables and the cwd (after code the analysis cannot see).
    /// Every variable may have any value now (the cwd and the positional parameters stay).
    fn havoc_variables(&mut self) {
        self.vars.clear();
        self.namerefs.clear();
        self.all_unknown = true;
    }

    fn havoc(&mut self) {
        // Code the analysis cannot see may have removed a function too.
        self.defined.clear();
        self.vars.clear();
        self.namerefs.clear();
        self.all_unknown = true;
        self.set_cwds(None);
        self.dirs = None;
        self.positional.clear();
        self.positional_open = true;
    }
}

/// Where nested text sits in the text the user gave, to report positions there.
#[derive(Clone, Copy, Debug)]
struct Origin {
    base: Pos,
    /// The nested text appears verbatim at `base`, so inner positions can be offset; otherwise
    /// (decoded strings, files) every inner position is reported as `base`.
    verbatim: bool,
    /// The file (an index into the walker's file names) whose text this is, when it is not
    /// the program's own: positions are that file's.
    file: Option<u32>,
}

impl Origin {
    fn map(&self, p: Pos) -> Pos {
        if !self.verbatim {
            return self.base;
        }
        if p.line <= 1 {
            Pos { line: self.base.line, column: self.base.column + p.column.saturating_sub(1) }
        } else {
            Pos { line: self.base.line + p.line - 1, column: p.column }
        }
    }
}

/// Accesses of one body of code whose needs count only if it can run.
#[derive(Default)]
struct Sink {
    accesses: Vec<Access>,
    /// What would hold each access were it only possible (beside `accesses`).
    bounds: Vec<Bound>,
    /// Static command names this code runs (to activate functions of that name).
    calls: HashSet<String>,
    /// This code runs a command whose name is not static (it could call any function).
    dynamic: bool,
}

/// A function definition, analysed at the end.
struct FunctionDef {
    name: String,
    body: std::sync::Arc<ast::FunctionBody>,
    origin: Origin,
    sink: usize,
}

/// The value of one assignment word.
enum Assigned {
    Scalar {
        value: Field,
        append: bool,
    },
    /// An array; its elements when all are known.
    Array(Option<Vec<String>>),
}

/// How much of the shell's state code the analysis cannot see may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reach {
    /// Anything: variables, functions, aliases, the cwd (`eval "$x"`).
    Everything,
    /// Only variables (`$(…)` in a word, `${x:=…}`).
    Variables,
}

/// The walker: the abstract interpreter and everything it records.
pub struct Walker<'c> {
    pub ctx: &'c Context,
    failure: Option<Failure>,
    origin: Origin,
    nested_texts: usize,
    /// Walking on the caller's own (small) stack: anything deeper than the shallow bounds
    /// stops the walk, and the analysis starts again on a big stack.
    shallow: bool,
    /// The program's own text is parsed ahead, in pieces, on a second thread.
    parse_ahead: bool,
    parses: usize,
    parsed_bytes: usize,
    quiet: u32,
    /// Inside code whose accesses are only possible (see [`Certainty::Possible`]).
    possible: u32,
    /// A possible execute is an exec the kernel holds (see [`Self::possibly_exec`]).
    exec_held: bool,
    /// The words whose command substitutions are being walked, innermost last (to show the
    /// whole word where the parser cuts one short).
    pub expanding: Vec<String>,
    loop_depth: usize,
    sink: usize,
    sinks: Vec<Sink>,
    commands: Vec<CommandUse>,
    unresolved: Vec<Unresolved>,
    functions: Vec<FunctionDef>,
    function_sinks: HashMap<String, Vec<usize>>,
    traps: Vec<(String, Origin)>,
    /// Aliases by name; `None` when the value is not known.
    aliases: HashMap<String, Option<String>>,
    aliases_unknown: bool,
    /// Every variable name the program assigns anywhere, and whether it assigns names it
    /// computes at run time.
    assigned: HashSet<String>,
    assigned_dynamic: bool,
    cwd_changes: bool,
    /// Every directory the program's cwd may be at some point (`None`: anywhere), for code
    /// that runs at times the walk cannot know.
    entered_cwds: Option<BTreeSet<String>>,
    /// A network read was recorded since this was last cleared (for taint tracking).
    fetched: bool,
    pending_taint: bool,
    /// Paths this program writes (normal, absolute), so a later `source` of one is not trusted.
    written: HashSet<String>,
    written_unknown: bool,
    /// A program ran that may create files the table does not name: no file absent now is
    /// sure to be absent later.
    unmodelled_program: bool,
    /// Position of the command being analysed, for words without a recorded location.
    here: Pos,
    /// What commands read when nothing more specific is known (the stdin of an enclosing
    /// compound command).
    stdin_ctx: Stdin,
    /// The latest definition of each function, by name.
    function_by_name: HashMap<String, usize>,
    /// Functions whose bodies are being walked for a call.
    call_stack: Vec<String>,
    /// Files whose text is being walked (`source`, scripts run by path or by a shell).
    file_stack: Vec<String>,
    /// Every file whose text was walked, for the positions in it.
    file_names: Vec<String>,
    /// Hashes of the texts being walked, outermost first.
    text_stack: Vec<u64>,
    steps: usize,
    /// Size of the program text, which the work budgets grow with.
    input_len: usize,
    /// Parsed nested texts, by text.
    parse_cache: HashMap<String, std::rc::Rc<ast::Program>>,
    /// Parsed words, by text.
    pub word_cache: HashMap<String, std::rc::Rc<Vec<brush_parser::word::WordPieceWithSource>>>,
    /// The same for here-document bodies, which split differently (quotes are plain text).
    pub heredoc_cache: HashMap<String, std::rc::Rc<Vec<brush_parser::word::WordPieceWithSource>>>,
    /// What each function may change, read from its syntax, by function index.
    function_effects: HashMap<usize, super::effects::Effects>,
    /// Links the program creates (link path, where it leads), and paths resolved on disk.
    links: Vec<(String, String)>,
    canonical_cache: HashMap<String, Option<String>>,
    /// Functions whose bodies were walked at a call, and those whose call was not followed.
    function_walked: HashSet<usize>,
    function_skipped: HashSet<usize>,
    /// Function calls followed into their bodies so far.
    calls_followed: usize,
    /// For each call being followed: the variables as it found them, and the names it made its
    /// own with `local`.
    local_frames: Vec<(Vars, Vec<String>)>,
}

/// Runs the analysis of a whole program text.
/// The bounds of a walk on the caller's stack: texts at most this long and this deep, nested
/// texts and function calls at most this far. A test checks that the worst case within them
/// fits in [`SHALLOW_STACK_BYTES`].
pub const SHALLOW_TEXT_BYTES: usize = 2048;
/// How much of a text the analysis cannot read the explanation shows.
const MAX_UNSEEN_SHOWN: usize = 400;
pub const SHALLOW_NESTING: usize = 12;
const SHALLOW_TEXTS: usize = 3;
const SHALLOW_CALLS: usize = 3;
/// The stack the shallow bounds are made for; the caller's must be at least this big.
pub const SHALLOW_STACK_BYTES: usize = 4 * 1024 * 1024;

/// Analyses a small program on the current stack. `None` when it turns out to need more
/// (deep nesting, a file to read, deep calls): then run [`analyze_program`] on a big stack.
pub fn analyze_program_shallow(text: &str, kind: TextKind, ctx: &Context) -> Option<Analysis> {
    if text.len() > SHALLOW_TEXT_BYTES || parse::nesting(text) > SHALLOW_NESTING {
        return None;
    }
    let mut w = Walker::new(ctx);
    w.shallow = true;
    let analysis = w.walk_program(text, kind, ctx);
    if analysis.too_deep { None } else { Some(analysis.analysis) }
}

pub fn analyze_program(text: &str, kind: TextKind, ctx: &Context) -> Analysis {
    // A long text is first walked with the parse ahead; where that cannot stand for the
    // whole text (a piece that does not parse, or a failure), it is walked again, parsed whole,
    // which also gives a failure its message in the whole text.
    if text.len() >= PARSE_AHEAD_FROM {
        let mut w = Walker::new(ctx);
        w.parse_ahead = true;
        let walked = w.walk_program(text, kind, ctx);
        if !walked.parse_ahead_stopped && walked.analysis.failure.is_none() {
            return walked.analysis;
        }
    }
    Walker::new(ctx).walk_program(text, kind, ctx).analysis
}

struct Walked {
    analysis: Analysis,
    too_deep: bool,
    /// The walk with the parse ahead came to a piece that does not parse, or to a text the
    /// checks refuse: it cannot stand for the walk of the whole text.
    parse_ahead_stopped: bool,
}

const NEEDS_STACK: &str = "the program needs a bigger stack";

impl Walker<'_> {
    fn stop_shallow(&mut self) {
        self.fail(Failure { message: NEEDS_STACK.into(), pos: None });
    }

    fn walk_program(mut self, text: &str, kind: TextKind, ctx: &Context) -> Walked {
        let (body, mut st) = self.start(text, kind, ctx);
        let origin = Origin { base: Pos { line: 1, column: 1 }, verbatim: true, file: None };
        let parse_ahead_stopped = if self.parse_ahead {
            !self.run_parsing_ahead(&body, origin, &mut st)
        } else {
            self.run_text(&body, origin, &mut st, Nest::Same);
            false
        };
        let analysis = self.finish();
        let too_deep = analysis.failure.as_ref().is_some_and(|f| f.message == NEEDS_STACK);
        Walked { analysis, too_deep, parse_ahead_stopped }
    }

    /// What comes before the program's own text: limits, the state bash starts with, and the
    /// start-up file bash reads first (`$BASH_ENV`, `$ENV`, `--rcfile`). Returns the text to walk.
    fn start(&mut self, text: &str, kind: TextKind, ctx: &Context) -> (String, State) {
        self.input_len = text.len();
        self.file_stack.extend(ctx.script_path.iter().cloned());
        let mut st = State::new(ctx);
        let body = if kind == TextKind::Script { strip_shebang(text) } else { text.to_string() };
        if let Some(value) = &ctx.bash_env {
            let startup = Origin { base: Pos { line: 1, column: 1 }, verbatim: false, file: None };
            let saved = std::mem::replace(&mut self.origin, startup);
            self.startup_file(value, "bash", &mut st);
            self.origin = saved;
        }
        (body, st)
    }
}

/// Programs at least this long are parsed on a second thread while the walk goes through
/// what is parsed already: on a long script the parser takes a third of the time.
const PARSE_AHEAD_FROM: usize = 64 * 1024;
/// The length of one piece parsed ahead: short enough that the walk starts soon.
const PIECE_BYTES: usize = 8 * 1024;

/// What the parsing thread hands the walk.
enum Ahead {
    /// The next piece and the line it starts on.
    Piece(ast::Program, usize),
    /// A piece that does not parse, or the checks refused the whole text (they know only at
    /// its end).
    Stop,
    /// Every piece was sent.
    Done,
}

impl Walker<'_> {
    /// The program's own text when it is long: [`Self::run_text`], with the text parsed in
    /// pieces (see [`parse::cut`]) on a second thread while this one walks the pieces parsed
    /// already. It is the same walk: bash runs a script's top-level commands one after the
    /// other, and each piece is walked with the state the one before left. Returns `false` at
    /// the first piece that does not parse (a cut the scan put in the wrong place, or code the
    /// parser cannot read) or when the checks refuse the text: then only the walk of the text
    /// parsed whole can say what it does.
    fn run_parsing_ahead(&mut self, text: &str, origin: Origin, st: &mut State) -> bool {
        let Some(key) = self.admit_text(text, origin.base) else { return true };
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::channel();
            let parser = std::thread::Builder::new().name("parser".into()).stack_size(parse::STACK_BYTES).spawn_scoped(
                scope,
                move || {
                    let mut line = 1;
                    let checked = parse::cut(text, PIECE_BYTES, &mut |from, to| {
                        let piece = &text[from..to];
                        let ahead = match parse::program(piece) {
                            Ok(program) => Ahead::Piece(program, line),
                            Err(_) => Ahead::Stop,
                        };
                        line += piece.bytes().filter(|&b| b == b'\n').count();
                        let parsed = matches!(ahead, Ahead::Piece(..));
                        tx.send(ahead).is_ok() && parsed
                    });
                    let _ = tx.send(if checked.is_ok() { Ahead::Done } else { Ahead::Stop });
                },
            );
            if parser.is_err() {
                return false;
            }
            // The receiver goes with the walk: when the walk stops early, dropping it stops the
            // parser at its next piece.
            self.inside_text(key, origin, |w| {
                for ahead in rx {
                    match ahead {
                        Ahead::Piece(program, line) => {
                            w.origin = Origin { base: Pos { line, column: 1 }, ..origin };
                            w.program(&program, st);
                            if w.failed() {
                                return true;
                            }
                        }
                        Ahead::Stop => return false,
                        Ahead::Done => return true,
                    }
                }
                false
            })
        })
    }
}

/// `text` with `"` that is not escaped escaped, so that `"…"` around it is the double-quoted
/// word whose expansion bash gives `$BASH_ENV`'s value (`"` is not special there, the other
/// characters are as in double quotes).
fn quote_for_double_quotes(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    let mut backslashes = 0;
    for c in text.chars() {
        if c == '"' && backslashes % 2 == 0 {
            out.push('\\');
        }
        backslashes = if c == '\\' { backslashes + 1 } else { 0 };
        out.push(c);
    }
    if backslashes % 2 == 1 {
        // A trailing backslash would escape the closing quote.
        out.push('\\');
    }
    out
}

/// The value for [`Context::bash_env`] that names the file `path` as it is (`--rcfile FILE`,
/// which bash does not expand but for a leading `~`).
pub fn literal_startup(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '$' | '`' | '\\' | '"') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A `#!` line is a comment to bash; keep it out of the parser but keep line numbers.
fn strip_shebang(text: &str) -> String {
    if text.starts_with("#!") {
        match text.find('\n') {
            Some(nl) => text[nl..].to_string(),
            None => String::new(),
        }
    } else {
        text.to_string()
    }
}

impl<'c> Walker<'c> {
    fn new(ctx: &'c Context) -> Walker<'c> {
        Walker {
            ctx,
            failure: None,
            origin: Origin { base: Pos { line: 1, column: 1 }, verbatim: true, file: None },
            nested_texts: 0,
            parses: 0,
            parsed_bytes: 0,
            quiet: 0,
            possible: 0,
            exec_held: false,
            expanding: Vec::new(),
            loop_depth: 0,
            sink: 0,
            sinks: vec![Sink::default()],
            commands: Vec::new(),
            unresolved: Vec::new(),
            functions: Vec::new(),
            function_sinks: HashMap::default(),
            traps: Vec::new(),
            aliases: HashMap::default(),
            aliases_unknown: false,
            assigned: HashSet::default(),
            assigned_dynamic: false,
            cwd_changes: false,
            entered_cwds: Some([ctx.cwd.clone()].into_iter().collect()),
            fetched: false,
            pending_taint: false,
            written: HashSet::default(),
            written_unknown: false,
            unmodelled_program: false,
            here: Pos { line: 1, column: 1 },
            stdin_ctx: Stdin::Unknown,
            function_by_name: HashMap::default(),
            call_stack: Vec::new(),
            shallow: false,
            parse_ahead: false,
            local_frames: Vec::new(),
            file_stack: Vec::new(),
            file_names: Vec::new(),
            text_stack: Vec::new(),
            steps: 0,
            input_len: 0,
            parse_cache: HashMap::default(),
            word_cache: HashMap::default(),
            heredoc_cache: HashMap::default(),
            function_effects: HashMap::default(),
            function_walked: HashSet::default(),
            links: Vec::new(),
            canonical_cache: HashMap::default(),
            function_skipped: HashSet::default(),
            calls_followed: 0,
        }
    }

    // ----- recording -------------------------------------------------------------------

    /// Records the first failure; the program is then denied as a whole.
    pub fn fail(&mut self, f: Failure) {
        if self.failure.is_none() {
            self.failure = Some(f);
        }
    }

    pub fn failed(&self) -> bool {
        self.failure.is_some()
    }

    /// Records that `command` needs `perm` in `scope` for `target`. Inside [`Self::possibly`],
    /// the access is possible, and only the static layer holds it.
    pub fn need(&mut self, scope: Scope, perm: Perm, target: &str, command: &str, reason: &str, pos: Pos) {
        self.need_bounded(scope, perm, target, command, reason, pos, Bound::Static);
    }

    /// [`Self::need`] for an access that `bound` holds when it is only possible.
    #[allow(clippy::too_many_arguments)]
    fn need_bounded(
        &mut self,
        scope: Scope,
        perm: Perm,
        target: &str,
        command: &str,
        reason: &str,
        pos: Pos,
        bound: Bound,
    ) {
        if scope == Scope::Network && perm == Perm::Read {
            self.fetched = true;
        }
        if self.quiet > 0 {
            return;
        }
        // Running code is held by the kernel only where it is an exec of a program that is not
        // there (`exec_held`): an interpreter reads its script past Landlock and noexec alike.
        let bound = if perm == Perm::Execute && !self.exec_held { Bound::Static } else { bound };
        let certainty = if self.possible > 0 { Certainty::Possible(bound) } else { Certainty::Known };
        let file = self.file_here();
        self.sinks[self.sink].bounds.push(bound);
        self.sinks[self.sink].accesses.push(Access {
            scope,
            perm,
            target: target.to_string(),
            command: command.to_string(),
            reason: reason.to_string(),
            pos,
            certainty,
            file,
            text: None,
        });
    }

    /// [`Self::possibly`] for an exec of a program by its path, which the kernel's execute
    /// rights hold (a probe for a program that is not there).
    pub fn possibly_exec<R>(&mut self, walk: impl FnOnce(&mut Self) -> R) -> R {
        let saved = std::mem::replace(&mut self.exec_held, true);
        let result = self.possibly(walk);
        self.exec_held = saved;
        result
    }

    /// Runs `walk` with every access it records only possible: the words of a program the
    /// analysis does not model, which may or may not be paths it opens.
    pub fn possibly<R>(&mut self, walk: impl FnOnce(&mut Self) -> R) -> R {
        self.possible += 1;
        let result = walk(self);
        self.possible -= 1;
        result
    }

    /// The file the text being walked comes from, when it is not the program's own.
    fn file_here(&self) -> Option<String> {
        self.origin.file.and_then(|i| self.file_names.get(i as usize)).cloned()
    }

    /// Records a word whose value is not known.
    pub fn unresolved(&mut self, text: &str, pos: Pos) {
        if self.quiet == 0 {
            let file = self.file_here();
            self.unresolved.push(Unresolved { text: text.to_string(), pos, file });
        }
    }

    fn record_command(&mut self, name: Option<&str>, text: &str, pos: Pos) {
        if self.quiet > 0 {
            return;
        }
        let file = self.file_here();
        self.commands.push(CommandUse {
            file,
            name: name.map(str::to_string),
            text: if name.is_none() { Some(text.to_string()) } else { None },
            pos,
        });
        match name {
            Some(n) => {
                self.sinks[self.sink].calls.insert(n.to_string());
            }
            None => self.sinks[self.sink].dynamic = true,
        }
    }

    /// Marks that code the analysis cannot see runs here: it needs workspace execute, it may
    /// call any function, and afterwards nothing about variables or the cwd is known.
    pub fn unknown_code(&mut self, what: &str, command: &str, pos: Pos, tainted: bool, st: &mut State) {
        self.unknown_code_reaching(what, command, pos, tainted, Reach::Everything, st);
    }

    /// [`Self::unknown_code`] that can change only what `reach` says.
    fn unknown_code_reaching(
        &mut self,
        what: &str,
        command: &str,
        pos: Pos,
        tainted: bool,
        reach: Reach,
        st: &mut State,
    ) {
        self.unresolved(what, pos);
        if tainted {
            self.need(Scope::Network, Perm::Execute, what, command, "runs code fetched from the network", pos);
        } else {
            self.need(Scope::Workspace, Perm::Execute, what, command, "runs code the analysis cannot see", pos);
        }
        if self.quiet == 0 {
            self.sinks[self.sink].dynamic = true;
        }
        self.assigned_dynamic = true;
        match reach {
            Reach::Everything => {
                self.aliases_unknown = true;
                st.havoc();
            }
            Reach::Variables => st.havoc_variables(),
        }
    }

    /// Code bash runs that the analysis cannot read (`why`): listed as a command that is not
    /// static, with its text, and treated as [`Self::unknown_code`].
    pub fn unseen(&mut self, code: &str, why: &str, pos: Pos, st: &mut State) {
        let mut shown = code.trim();
        if shown.len() > MAX_UNSEEN_SHOWN {
            let mut end = MAX_UNSEEN_SHOWN;
            while !shown.is_char_boundary(end) {
                end -= 1;
            }
            shown = &shown[..end];
        }
        self.record_command(None, shown, pos);
        self.unknown_code(why, "bash", pos, false, st);
    }

    /// An expansion the parser cannot follow (`raw`, the whole word): its value is not known
    /// and code in it runs unseen. In a subshell (`$(…)`) or as an assignment (`${x:=…}`,
    /// arithmetic) it can change only variables here; bash 5.3's `${ …; }` runs in this shell
    /// and can change anything.
    pub fn unseen_expansion(&mut self, raw: &str, what: &str, pos: Pos, st: &mut State) {
        let funsub = |t: &str| t.contains("${ ") || t.contains("${\t") || t.contains("${\n") || t.contains("${|");
        if funsub(raw) || funsub(what) {
            self.unseen(raw, what, pos, st);
            return;
        }
        self.record_command(None, raw, pos);
        self.unknown_code_reaching(what, "bash", pos, false, Reach::Variables, st);
    }

    pub fn take_taint(&mut self) -> bool {
        std::mem::take(&mut self.pending_taint)
    }

    /// Maps a position of the text being walked to the user's text.
    pub fn map(&self, p: Pos) -> Pos {
        self.origin.map(p)
    }

    fn word_pos(&self, w: &ast::Word) -> Pos {
        parse::word_pos(w).map_or(self.here, |p| self.map(p))
    }

    // ----- variables ---------------------------------------------------------------------

    /// A variable's value where the program has not assigned it: the environment's, or unset.
    fn default_val(&self, name: &str, st: &State) -> Val {
        if st.all_unknown || st.havoc_names.as_ref().is_some_and(|h| h.contains(name)) {
            return Val::unknown();
        }
        match name {
            "PWD" => return self.cwd_val(st),
            "IFS" => return Val::Known(" \t\n".into()),
            _ => {}
        }
        if is_dynamic_bash_var(name) {
            return Val::unknown();
        }
        match self.ctx.env.get(name) {
            Some(v) => Val::Known(v.to_string_lossy().into_owned()),
            None => Val::Unset,
        }
    }

    /// A variable's value as far as it is known.
    pub fn var_val(&self, name: &str, st: &State) -> Val {
        let name = st.resolve_name(name);
        match st.vars.get(name.as_ref()) {
            Some(v) => Val::clone(v),
            None => self.default_val(&name, st),
        }
    }

    /// Whether two states are the same (cheap when they share their maps).
    fn same_state(a: &State, b: &State) -> bool {
        a.vars.diff(&b.vars).next().is_none()
            && a.exported == b.exported
            && a.namerefs == b.namerefs
            && a.cwd == b.cwd
            && a.cwd_alts == b.cwd_alts
            && a.dirs == b.dirs
            && a.positional == b.positional
            && a.positional_open == b.positional_open
            && a.all_unknown == b.all_unknown
            && a.downloaded == b.downloaded
    }

    /// The value of a variable when it is exactly known (unset variables are known empty).
    pub fn var_value(&self, name: &str, st: &State) -> Option<String> {
        self.var_val(name, st).exact()
    }

    /// Whether a variable is set: `None` when not known.
    pub fn var_is_set(&self, name: &str, st: &State) -> Option<bool> {
        match self.var_val(name, st) {
            Val::Unset => Some(false),
            Val::Known(_) | Val::Array(_) => Some(true),
            Val::Choice { .. } => None,
        }
    }

    /// Joins another path's state into `st`.
    pub fn join(&self, st: &mut State, other: &State) {
        st.join_with(other, &|name, s| self.default_val(name, s));
    }

    pub fn ifs(&self, st: &State) -> String {
        self.var_value("IFS", st).unwrap_or_else(|| " \t\n".into())
    }

    /// Records an assignment the program makes.
    pub fn assign(&mut self, name: &str, value: Option<String>, st: &mut State) {
        self.assign_val(name, Val::from_option(value), st);
    }

    pub fn assign_val(&mut self, name: &str, value: Val, st: &mut State) {
        let target = st.resolve_name(name).into_owned();
        if target == MODE_VAR {
            self.mode_assignment(&value);
        }
        if LOADER_VARS.contains(&target.as_str()) {
            self.loader_assignment(&target, &value, st);
        }
        self.assigned.insert(target);
        st.set_val(name, value);
    }

    fn assign_unset(&mut self, name: &str, st: &mut State) {
        if st.resolve_name(name) == MODE_VAR {
            self.mode_assignment(&Val::Unset);
        }
        self.assigned.insert(name.to_string());
        st.unset_var(name);
    }

    /// Setting `BASH_AGENT_BASH_MODE` sets what nested invocations allow: it needs every bit it
    /// grants (so it can narrow, never widen). A value the analysis cannot know may grant all.
    pub fn mode_assignment(&mut self, value: &Val) {
        let (values, open) = value.scalars();
        let mut granted = if open { Mode::ALL } else { Mode::NONE };
        for v in values {
            let m = match v.as_str() {
                "" if matches!(value, Val::Unset) => crate::mode::DEFAULT_MODE,
                text => Mode::parse(text).unwrap_or(Mode::NONE),
            };
            granted = granted.union(m);
        }
        let pos = self.here;
        for (scope, perm) in granted.bits() {
            self.need(
                scope,
                perm,
                MODE_VAR,
                "export",
                &format!("sets {MODE_VAR} for nested invocations, which grants this bit"),
                pos,
            );
        }
    }

    /// Setting a variable that makes the dynamic loader map code into every program started
    /// later (`LD_PRELOAD`, `LD_AUDIT`, `LD_LIBRARY_PATH`, and the C library's `GCONV_PATH` and
    /// OpenSSL's module directory and configuration, which name modules to load): each file or
    /// directory named needs
    /// execute in its scope. In scratch that is workspace execute: the kernel layer stops no
    /// library mapped from there, as it stops no program run by an interpreter. The system's
    /// own library directories need nothing; a value the analysis cannot know is code it cannot
    /// see.
    pub fn loader_assignment(&mut self, var: &str, value: &Val, st: &State) {
        let (values, open) = value.scalars();
        let pos = self.here;
        // Libraries from a place the analysis cannot name: code it cannot see.
        let unknown = |w: &mut Self, text: &str, reason: &str| {
            w.unresolved(text, pos);
            w.need(Scope::Workspace, Perm::Execute, text, var, reason, pos);
        };
        if open {
            unknown(self, var, "loads libraries the analysis cannot name");
        }
        // Directory lists: an empty entry is the cwd, as the loader reads it.
        let dirs = matches!(var, "LD_LIBRARY_PATH" | "GCONV_PATH" | "OPENSSL_MODULES");
        let separators: &[char] = if dirs { &[':', ';'] } else { &[':', ' '] };
        for v in values {
            if v.is_empty() {
                continue;
            }
            for entry in v.split(separators) {
                let entry = if entry.is_empty() {
                    if !dirs {
                        continue;
                    }
                    "."
                } else {
                    entry
                };
                // `$ORIGIN`, `$LIB`, `$PLATFORM`: the loader expands them where the program is.
                if entry.contains('$') {
                    unknown(self, entry, "loads libraries from a place the loader computes");
                    continue;
                }
                // A bare name is looked up in the system's library directories.
                if !dirs && !entry.contains('/') {
                    continue;
                }
                let Some(abs) = self.absolute(entry, st) else {
                    unknown(self, entry, "loads libraries from a place not known");
                    continue;
                };
                if ["/usr", "/lib", "/lib32", "/lib64", "/libx32"].iter().any(|r| scope::is_within(&abs, r)) {
                    continue;
                }
                let reason = format!("{var} makes later programs load code from here");
                if self.ctx.layout.classify(&abs, false) == Class::Scratch {
                    self.need(
                        Scope::Workspace,
                        Perm::Execute,
                        &abs,
                        var,
                        &format!("{reason} (scratch: runs only where the workspace may)"),
                        pos,
                    );
                } else {
                    self.classified(&abs, &[Perm::Execute], var, &reason, pos);
                }
            }
        }
    }

    /// `declare -n name=target`.
    pub fn nameref(&mut self, name: &str, target: &str, st: &mut State) {
        self.assigned.insert(name.to_string());
        st.set_nameref(name, target);
    }

    pub fn export(&mut self, name: &str, st: &mut State) {
        st.exported.insert(name.to_string());
    }

    // ----- nested text -------------------------------------------------------------------

    /// Parses and walks a piece of text that bash will run.
    fn run_text(&mut self, text: &str, origin: Origin, st: &mut State, nest: Nest) {
        let Some(key) = self.admit_text(text, origin.base) else { return };
        let program = match self.parse_cached(text) {
            Ok(p) => p,
            Err(mut f) => {
                f.pos = f.pos.map(|p| origin.map(p)).or(Some(origin.base));
                self.unparsed(text, key, origin, f, st, nest);
                return;
            }
        };
        self.inside_text(key, origin, |w| match nest {
            Nest::Same => w.program(&program, st),
            Nest::Subshell | Nest::NewShell => {
                let mut inner = st.clone();
                w.program(&program, &mut inner);
            }
        });
    }

    /// A text the parser refused. Beyond the fixed bounds, or where bash refuses it too, the
    /// program is refused (bash would run what comes before the error). Otherwise it is valid
    /// bash the parser cannot read: nested code (`eval`, `source`, `bash -c`) is code the
    /// analysis cannot see, where it runs; the program itself is walked in the pieces that do
    /// parse, and each piece that does not is such code.
    fn unparsed(&mut self, text: &str, key: u64, origin: Origin, f: Failure, st: &mut State, nest: Nest) {
        if !parse::within_bounds(text) {
            self.fail(f);
            return;
        }
        let place = f.pos.unwrap_or(origin.base);
        if self.nested_texts > 0 {
            let what = format!("code the analysis cannot read ({})", f.message);
            let shown = self.expanding.last().cloned().unwrap_or_else(|| text.to_string());
            // Recorded where the text is (a sourced file's own line).
            let saved = std::mem::replace(&mut self.origin, origin);
            match nest {
                Nest::Same => self.unseen(&shown, &what, place, st),
                // A subshell or a new shell changes nothing here; a word the parser cut short
                // may still assign variables around it.
                Nest::Subshell | Nest::NewShell => self.unseen_expansion(&shown, &what, place, st),
            }
            self.origin = saved;
            return;
        }
        let asked = self.ctx.bash.as_deref();
        let valid =
            asked.is_some_and(|bash| super::oracle::bash_accepts(bash, &super::bytes::encode(text), self.ctx.posix));
        if !valid {
            let mut f = f;
            if asked.is_some() {
                f.message.push_str("; bash -n rejects it too");
            }
            self.fail(f);
            return;
        }
        let mut pieces: Vec<(usize, usize)> = Vec::new();
        if parse::cut(text, 1, &mut |from, to| {
            pieces.push((from, to));
            true
        })
        .is_err()
        {
            // The checks refused the whole text at its end (where the cut does not hand over
            // the last piece): what follows the pieces found is one more.
            let end = pieces.last().map_or(0, |&(_, to)| to);
            pieces.push((end, text.len()));
        }
        let mut line = 1;
        self.inside_text(key, origin, |w| {
            for (from, to) in pieces {
                let piece = &text[from..to];
                let base = origin.map(Pos { line, column: 1 });
                line += piece.bytes().filter(|&b| b == b'\n').count();
                match parse::program(piece) {
                    Ok(program) => {
                        let inner = Origin { base, ..origin };
                        let saved = std::mem::replace(&mut w.origin, inner);
                        match nest {
                            Nest::Same => w.program(&program, st),
                            Nest::Subshell | Nest::NewShell => w.program(&program, &mut st.clone()),
                        }
                        w.origin = saved;
                    }
                    Err(e) => {
                        let at = e.pos.map_or(base, |p| Origin { base, ..origin }.map(p));
                        let what = format!("code the parser cannot read, which bash accepts ({})", e.message);
                        w.unseen(piece, &what, at, st);
                    }
                }
                if w.failed() {
                    return;
                }
            }
        });
    }

    /// The checks and counts before a text bash will run is parsed and walked (`pos` is
    /// where it comes from). Returns the key it takes on the stack of texts being walked, or
    /// `None` when it must not be walked (the reason is recorded).
    fn admit_text(&mut self, text: &str, pos: Pos) -> Option<u64> {
        if self.failed() {
            return None;
        }
        if self.shallow && (self.nested_texts >= SHALLOW_TEXTS || parse::nesting(text) > SHALLOW_NESTING) {
            self.stop_shallow();
            return None;
        }
        if self.nested_texts >= MAX_NESTED_TEXTS {
            self.fail(Failure {
                message: format!("code nests more than {MAX_NESTED_TEXTS} texts deep (eval, bash -c, substitutions)"),
                pos: Some(pos),
            });
            return None;
        }
        // The same text inside itself (`P='… bash -c "$P"'`): it is being analysed already.
        let key = hash_text(text);
        if self.text_stack.contains(&key) {
            self.unresolved("the same program, run again inside itself", pos);
            return None;
        }
        // Parsing is what this budget bounds: a text parsed before (a loop body, a function
        // called again) is walked again from the cache, which the step budget bounds.
        if !self.parse_cache.contains_key(text) {
            self.parses += 1;
            self.parsed_bytes += text.len();
        }
        if self.parses > MAX_PARSES + self.input_len / 8 || self.parsed_bytes > MAX_PARSED_BYTES + 16 * self.input_len {
            self.fail(Failure {
                message: "the program expands into more nested code than the analysis accepts".into(),
                pos: Some(pos),
            });
            return None;
        }
        Some(key)
    }

    /// Runs `walk` inside the text `key` (from [`Self::admit_text`]) that sits at `origin`,
    /// and restores where the walk was afterwards.
    fn inside_text<R>(&mut self, key: u64, origin: Origin, walk: impl FnOnce(&mut Self) -> R) -> R {
        let saved_origin = std::mem::replace(&mut self.origin, origin);
        let saved_here = self.here;
        self.nested_texts += 1;
        self.text_stack.push(key);
        let result = walk(self);
        self.nested_texts -= 1;
        self.text_stack.pop();
        self.origin = saved_origin;
        self.here = saved_here;
        result
    }

    /// The parse of `text`: loop bodies are walked more than once and a command substitution
    /// is read for its output too, but each text is parsed once.
    pub fn parse_cached(&mut self, text: &str) -> Result<std::rc::Rc<ast::Program>, Failure> {
        if let Some(p) = self.parse_cache.get(text) {
            return Ok(std::rc::Rc::clone(p));
        }
        let p = std::rc::Rc::new(parse::program(text)?);
        if text.len() <= MAX_CACHED_TEXT {
            self.parse_cache.insert(text.to_string(), std::rc::Rc::clone(&p));
        }
        Ok(p)
    }

    /// Walks text that appears verbatim at `pos` in the current text.
    pub fn run_verbatim(&mut self, text: &str, pos: Pos, st: &mut State, nest: Nest) {
        let origin = Origin { base: pos, verbatim: true, file: self.origin.file };
        self.run_text(text, origin, st, nest)
    }

    /// Walks text that was decoded from a word at `pos` (positions inside map to `pos`).
    pub fn run_decoded(&mut self, text: &str, pos: Pos, st: &mut State, nest: Nest) {
        let origin = Origin { base: pos, verbatim: false, file: self.origin.file };
        self.run_text(text, origin, st, nest)
    }

    /// Walks one possible text of a code string. A text with placeholders for unknown parts
    /// is only an approximation, so a parse failure in it means "unknown code", not a denial
    /// (the unknown part is flagged by the caller either way).
    pub fn run_code_variant(&mut self, code: &str, pos: Pos, st: &mut State, nest: Nest, placeholder: bool) {
        let clean = self.failure.is_none();
        self.run_decoded(code, pos, st, nest);
        if placeholder && clean && self.failure.is_some() {
            self.failure = None;
            self.unknown_code(code, "eval", pos, false, st);
        }
    }

    /// Whether `name` is passed to child processes: it came with the environment or the
    /// program exported it. (The analysis never takes the export away again: a child that
    /// sees a variable it might not have only makes the analysis see more.)
    fn is_exported(&self, name: &str, st: &State) -> bool {
        st.exported.contains(name) || self.ctx.env.get(name).is_some()
    }

    /// The state a new bash process starts with: exported variables only.
    pub fn new_shell_state(&self, st: &State, arg0: String, args: Vec<Val>, extra: &[(String, Field)]) -> State {
        let mut inner = st.clone();
        let hidden: Vec<Name> = inner.vars.keys().filter(|n| !self.is_exported(n, &inner)).cloned().collect();
        for name in hidden {
            inner.vars.insert(name, Rc::new(Val::Unset));
        }
        inner.namerefs.clear();
        for (name, value) in extra {
            inner.vars.insert(Name::from(name.as_str()), Rc::new(field_val(value)));
            inner.exported.insert(name.clone());
        }
        inner.arg0 = arg0;
        inner.set_positional_vals(Some(args));
        inner.dirs = Some(Vec::new());
        inner
    }

    /// Reads a file bash will run as code (`source`, `bash FILE`), if it can be trusted to be
    /// what will run: readable now, not too large, valid text, and not written earlier by this
    /// very program.
    pub fn read_code_file(&mut self, path: &str) -> Option<String> {
        if self.written.contains(path) || self.written_unknown {
            return None;
        }
        if self.shallow {
            // A file can be as deep as it likes: not on a small stack.
            self.stop_shallow();
            return None;
        }
        if self.file_stack.iter().any(|f| f == path) {
            // Already being analysed further up (a script that runs or sources itself).
            return Some(String::new());
        }
        let bytes = super::files::read_regular(&super::bytes::path(path), MAX_FILE_BYTES).ok()?;
        // The work budgets grow with the code there is to read, files included (once each).
        if !self.file_names.iter().any(|f| f == path) {
            self.input_len += bytes.len();
        }
        // A binary or an oversized file is not text bash would run as a script; it stays
        // unknown code for the caller.
        parse::check_text(&bytes).ok().map(std::borrow::Cow::into_owned)
    }

    /// Whether `path` (absolute) names nothing now and nothing the program does before could
    /// have put a file there (it writes nothing at or above it, and no write of an unknown
    /// place): then `source`ing it runs nothing. A dangling link is not nothing.
    pub fn absent_code_file(&self, path: &str) -> bool {
        if self.written_unknown || self.unmodelled_program || self.written.iter().any(|w| scope::is_within(path, w)) {
            return false;
        }
        if self.links.iter().any(|(link, _)| scope::is_within(path, link)) {
            return false;
        }
        match std::fs::symlink_metadata(super::bytes::path(path)) {
            Ok(_) => false,
            Err(e) => e.kind() == std::io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR),
        }
    }

    /// Whether `abs` lies in a toolchain home the runtime baseline grants.
    fn in_toolchain(&self, abs: &str) -> bool {
        self.ctx.toolchains.iter().any(|t| scope::is_within(abs, t))
    }

    /// Whether no program is at the system path `path` now and this program puts none there:
    /// neither a file it writes nor a link it makes leads there.
    pub fn absent_program(&self, path: &str) -> bool {
        // Only where the program cannot put one without system write.
        if self.ctx.layout.classify(path, true) != Class::System {
            return false;
        }
        if self.written_unknown
            || self.written.iter().any(|w| scope::is_within(path, w))
            || self.links.iter().any(|(link, _)| scope::is_within(path, link))
        {
            return false;
        }
        // A directory or a device is no program either (`/`, `/dev/null`): bash cannot run it.
        match std::fs::metadata(super::bytes::path(path)) {
            Ok(m) => !m.is_file(),
            Err(e) => e.kind() == std::io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR),
        }
    }

    /// The start-up file a shell reads before its program: `value` is expanded as in double
    /// quotes (as bash expands `$BASH_ENV` and `$ENV`; see [`literal_startup`] for
    /// `--rcfile`), a leading `~` is expanded, and the file it names is sourced, relative to
    /// the cwd and never looked up on `PATH`. A file that is not there is skipped, as bash
    /// skips it.
    pub fn startup_file(&mut self, value: &str, command: &str, st: &mut State) {
        let pos = self.map(Pos { line: 1, column: 1 });
        let field = self.expand_single(&format!("\"{}\"", quote_for_double_quotes(value)), pos, st);
        let path = match field.known() {
            Some(text) if text.is_empty() => return,
            Some(text) => match text.strip_prefix('~') {
                Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                    self.var_value("HOME", st).map(|home| format!("{home}{rest}"))
                }
                // `~user/…`: whose home it is, the analysis does not look up.
                Some(_) => None,
                None if text.starts_with('/') => Some(text),
                None => Some(format!("./{text}")),
            },
            None => None,
        };
        let arg = match path {
            Some(p) => {
                Arg { field: Field { tainted: field.tainted, ..Field::literal(&p) }, pos, raw: value.to_string() }
            }
            None => Arg { field: Field { tainted: field.tainted, ..Field::unknown() }, pos, raw: value.to_string() },
        };
        commands::source_file(self, &arg, command, st, Nest::Same);
    }

    /// Walks the text of the file at `path` as code run at `pos`.
    pub fn run_file(&mut self, path: &str, text: &str, pos: Pos, st: &mut State, nest: Nest) {
        let body = strip_shebang(text);
        // Positions in the file are its own, and name it.
        let _ = pos;
        let index = match self.file_names.iter().position(|f| f == path) {
            Some(i) => i,
            None => {
                self.file_names.push(path.to_string());
                self.file_names.len() - 1
            }
        };
        let origin = Origin { base: Pos { line: 1, column: 1 }, verbatim: true, file: Some(index as u32) };
        self.file_stack.push(path.to_string());
        self.run_text(&body, origin, st, nest);
        self.file_stack.pop();
    }

    // ----- the tree ----------------------------------------------------------------------

    fn program(&mut self, p: &ast::Program, st: &mut State) {
        for list in &p.complete_commands {
            self.compound_list(list, st);
            if self.failed() {
                return;
            }
        }
    }

    fn compound_list(&mut self, list: &ast::CompoundList, st: &mut State) {
        for ast::CompoundListItem(and_or, sep) in &list.0 {
            if matches!(sep, ast::SeparatorOperator::Async) {
                let mut inner = st.clone();
                self.and_or(and_or, &mut inner);
            } else {
                self.and_or(and_or, st);
            }
            if self.failed() {
                return;
            }
        }
    }

    fn and_or(&mut self, list: &ast::AndOrList, st: &mut State) {
        self.pipeline(&list.first, st);
        if list.additional.is_empty() {
            return;
        }
        // Everything after the first pipeline may or may not run.
        let before = st.clone();
        for item in &list.additional {
            let p = match item {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => p,
            };
            self.pipeline(p, st);
        }
        self.join(st, &before);
    }

    fn pipeline(&mut self, p: &ast::Pipeline, st: &mut State) {
        if p.seq.len() == 1 {
            self.command(&p.seq[0], st, Stdin::Unknown);
            return;
        }
        // A quiet pass only learns what changes this shell's state; the parts of a pipeline
        // run in subshells and change nothing here.
        if self.quiet > 0 {
            return;
        }
        let mut upstream_fetched = false;
        let mut upstream_text: Option<String> = None;
        for cmd in &p.seq {
            let mut inner = st.clone();
            let stdin = if upstream_fetched {
                Stdin::Fetched
            } else if upstream_text.is_some() {
                Stdin::Text(upstream_text.take())
            } else {
                Stdin::Unknown
            };
            upstream_text = match cmd {
                ast::Command::Simple(s)
                    if s.word_or_name.as_ref().is_some_and(|w| matches!(w.value.as_str(), "echo" | "printf")) =>
                {
                    self.static_stdout(&cmd.to_string(), st)
                }
                _ => None,
            };
            let saved = std::mem::replace(&mut self.fetched, false);
            self.command(cmd, &mut inner, stdin);
            upstream_fetched |= self.fetched;
            self.fetched |= saved;
            st.downloaded = st.downloaded.clone().union(inner.downloaded);
            if self.failed() {
                return;
            }
        }
    }

    fn command(&mut self, c: &ast::Command, st: &mut State, stdin: Stdin) {
        match c {
            ast::Command::Simple(s) => self.simple(s, st, stdin),
            ast::Command::Compound(cc, redirects) => {
                let stdin = match redirects {
                    Some(r) => self.redirects(&r.0, "", st, stdin),
                    None => stdin,
                };
                self.compound(cc, st, stdin);
            }
            ast::Command::Function(f) => {
                st.defined.insert(f.fname.value.clone());
                self.define_function(f);
            }
            ast::Command::ExtendedTest(t, redirects) => {
                if let Some(r) = redirects {
                    self.redirects(&r.0, "[[", st, stdin);
                }
                self.record_command(Some("[["), "[[", self.here);
                self.extended_test(&t.expr, st);
            }
        }
    }

    fn compound(&mut self, c: &ast::CompoundCommand, st: &mut State, stdin: Stdin) {
        self.step();
        if self.failed() {
            return;
        }
        // What the compound command reads, its commands read (`while read …; done < file`).
        let saved_stdin =
            if stdin == Stdin::Unknown { None } else { Some(std::mem::replace(&mut self.stdin_ctx, stdin)) };
        self.compound_inner(c, st);
        if let Some(saved) = saved_stdin {
            self.stdin_ctx = saved;
        }
    }

    fn compound_inner(&mut self, c: &ast::CompoundCommand, st: &mut State) {
        match c {
            ast::CompoundCommand::Arithmetic(a) => {
                let pos = self.here;
                self.arithmetic(&a.expr.value, pos, st);
                self.arith_assignments(&a.expr.value, st);
            }
            ast::CompoundCommand::ArithmeticForClause(f) => {
                let pos = self.here;
                for e in [&f.initializer, &f.condition, &f.updater].into_iter().flatten() {
                    self.arithmetic(&e.value, pos, st);
                    self.arith_assignments(&e.value, st);
                }
                self.looped(st, |w, st| w.compound_list(&f.body.list, st));
            }
            ast::CompoundCommand::BraceGroup(b) => self.compound_list(&b.list, st),
            ast::CompoundCommand::Subshell(_) if self.quiet > 0 => {}
            ast::CompoundCommand::Subshell(s) => {
                let mut inner = st.clone();
                self.compound_list(&s.list, &mut inner);
                st.downloaded = st.downloaded.clone().union(inner.downloaded);
            }
            ast::CompoundCommand::ForClause(f) => {
                // The loop variable takes each value of the list in turn.
                let mut values: Vec<Field> = Vec::new();
                match &f.values {
                    Some(words) => {
                        for word in words {
                            let pos = self.word_pos(word);
                            for arg in self.expand_word(&word.value, pos, st) {
                                values.push(arg.field);
                            }
                        }
                    }
                    None => match st.all_positional() {
                        Some(vals) => values.extend(vals.iter().map(val_field)),
                        None => values.push(Field::unknown()),
                    },
                }
                let mut var_val = Val::Choice { values: BTreeSet::new(), open: false };
                for v in &values {
                    var_val = match (&var_val, field_val(v)) {
                        (Val::Choice { values, open: false }, first) if values.is_empty() => first,
                        (acc, next) => acc.join(&next),
                    };
                }
                let var = f.variable_name.clone();
                self.assigned.insert(var.clone());
                self.looped(st, |w, st| {
                    st.set_val(&var, var_val.clone());
                    w.compound_list(&f.body.list, st)
                });
            }
            ast::CompoundCommand::CaseClause(c) => {
                let pos = self.word_pos(&c.value);
                self.expand_single(&c.value.value, pos, st);
                let before = st.clone();
                let mut merged = before.clone();
                for item in &c.cases {
                    for pattern in &item.patterns {
                        let pos = self.word_pos(pattern);
                        self.expand_single(&pattern.value, pos, st);
                    }
                    if let Some(body) = &item.cmd {
                        let mut inner = before.clone();
                        self.compound_list(body, &mut inner);
                        self.join(&mut merged, &inner);
                    }
                }
                *st = merged;
            }
            ast::CompoundCommand::IfClause(i) => {
                self.compound_list(&i.condition, st);
                let before = st.clone();
                let mut then = before.clone();
                self.compound_list(&i.then, &mut then);
                let mut merged = then;
                let mut has_else = false;
                let mut cond_state = before.clone();
                for e in i.elses.iter().flatten() {
                    if let Some(cond) = &e.condition {
                        self.compound_list(cond, &mut cond_state);
                    } else {
                        has_else = true;
                    }
                    let mut branch = cond_state.clone();
                    self.compound_list(&e.body, &mut branch);
                    self.join(&mut merged, &branch);
                }
                if !has_else {
                    self.join(&mut merged, &cond_state);
                }
                *st = merged;
            }
            ast::CompoundCommand::WhileClause(w) | ast::CompoundCommand::UntilClause(w) => {
                // The condition runs at least once; condition and body may then repeat.
                self.compound_list(&w.0, st);
                self.looped(st, |walker, st| {
                    walker.compound_list(&w.1.list, st);
                    walker.compound_list(&w.0, st);
                });
            }
            ast::CompoundCommand::Coprocess(c) => {
                self.record_command(Some("coproc"), "coproc", self.here);
                let mut inner = st.clone();
                self.command(&c.body, &mut inner, Stdin::Unknown);
            }
        }
    }

    /// Walks a loop body from a state that covers every iteration: quiet runs of the body
    /// learn what it changes (until nothing new appears, or the changes are forgotten), then
    /// the body is walked for real, and the result is joined with the state before the loop
    /// (the body may run zero times).
    fn looped(&mut self, st: &mut State, body: impl Fn(&mut Self, &mut State)) {
        self.loop_depth += 1;
        let before = st.clone();
        let mut entry = st.clone();
        if self.quiet > 0 || self.loop_depth > MAX_PRERUN_LOOP_DEPTH {
            // Inside a quiet run of an outer loop (or nested too deep): one pass, and whatever
            // it changes may change again.
            body(self, &mut entry);
            Self::widen(&mut entry, &before);
        } else {
            let saved_fetched = self.fetched;
            self.quiet += 1;
            let mut converged = false;
            for _ in 0..2 {
                let mut probe = entry.clone();
                body(self, &mut probe);
                let mut next = entry.clone();
                self.join(&mut next, &probe);
                if Self::same_state(&next, &entry) {
                    converged = true;
                    break;
                }
                entry = next;
            }
            self.quiet -= 1;
            self.fetched = saved_fetched;
            if !converged {
                Self::widen(&mut entry, &before);
            }
            body(self, &mut entry);
        }
        self.join(&mut entry, &before);
        *st = entry;
        self.loop_depth -= 1;
    }

    /// What changed since `before` may take other values too: its values stay listed, and it
    /// becomes open.
    fn widen(entry: &mut State, before: &State) {
        let changed: Vec<Name> = before
            .vars
            .diff(&entry.vars)
            .filter_map(|item| match item {
                imbl::ordmap::DiffItem::Update { new: (k, _), .. } | imbl::ordmap::DiffItem::Add(k, _) => {
                    Some(k.clone())
                }
                imbl::ordmap::DiffItem::Remove(..) => None,
            })
            .collect();
        for name in changed {
            let widened = match entry.vars.get(&name) {
                Some(v) => {
                    let (values, _) = v.scalars();
                    if matches!(**v, Val::Array(_)) || values.len() > MAX_CHOICES {
                        Val::unknown()
                    } else {
                        Val::Choice { values, open: true }
                    }
                }
                None => Val::unknown(),
            };
            entry.vars.insert(name, Rc::new(widened));
        }
        if entry.cwd != before.cwd || entry.cwd_alts != before.cwd_alts {
            entry.set_cwds(None);
        }
        if entry.positional != before.positional || entry.positional_open != before.positional_open {
            entry.set_positional_vals(None);
        }
    }

    fn define_function(&mut self, f: &ast::FunctionDefinition) {
        let name = f.fname.value.clone();
        let pos = self.word_pos(&f.fname);
        if self.quiet > 0 {
            return;
        }
        let sink = self.sinks.len();
        self.sinks.push(Sink::default());
        self.function_sinks.entry(name.clone()).or_default().push(sink);
        self.function_by_name.insert(name.clone(), self.functions.len());
        let origin = if self.origin.verbatim { self.origin } else { Origin { base: pos, ..self.origin } };
        self.functions.push(FunctionDef { name, body: std::sync::Arc::new(f.body.clone()), origin, sink });
    }

    fn extended_test(&mut self, e: &ast::ExtendedTestExpr, st: &mut State) {
        match e {
            ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
                self.extended_test(a, st);
                self.extended_test(b, st);
            }
            ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => self.extended_test(a, st),
            ast::ExtendedTestExpr::UnaryTest(pred, w) => {
                let pos = self.word_pos(w);
                let value = self.expand_single(&w.value, pos, st);
                if matches!(pred, ast::UnaryPredicate::ShellVariableIsSetAndAssigned)
                    && let Some(name) = value.known()
                {
                    self.subscript_text(&name, pos, st);
                }
            }
            ast::ExtendedTestExpr::BinaryTest(pred, a, b) => {
                let pa = self.word_pos(a);
                self.expand_single(&a.value, pa, st);
                let pb = self.word_pos(b);
                self.expand_single(&b.value, pb, st);
                let arithmetic = matches!(
                    pred,
                    ast::BinaryPredicate::ArithmeticEqualTo
                        | ast::BinaryPredicate::ArithmeticNotEqualTo
                        | ast::BinaryPredicate::ArithmeticLessThan
                        | ast::BinaryPredicate::ArithmeticLessThanOrEqualTo
                        | ast::BinaryPredicate::ArithmeticGreaterThan
                        | ast::BinaryPredicate::ArithmeticGreaterThanOrEqualTo
                );
                if arithmetic {
                    self.arithmetic(&a.value, pa, st);
                    self.arithmetic(&b.value, pb, st);
                }
            }
        }
    }

    /// Variables an arithmetic expression assigns (`x=1`, `x+=2`, `x++`) become unknown.
    fn arith_assignments(&mut self, text: &str, st: &mut State) {
        for name in super::effects::arithmetic_targets(text) {
            self.assign(name, None, st);
        }
    }

    // ----- simple commands ---------------------------------------------------------------

    fn simple(&mut self, c: &ast::SimpleCommand, st: &mut State, stdin: Stdin) {
        let stdin = if stdin == Stdin::Unknown { self.stdin_ctx.clone() } else { stdin };
        let items: Vec<&ast::CommandPrefixOrSuffixItem> =
            c.prefix.iter().flat_map(|p| p.0.iter()).chain(c.suffix.iter().flat_map(|s| s.0.iter())).collect();
        let prefix_len = c.prefix.as_ref().map_or(0, |p| p.0.len());
        if let Some(w) = &c.word_or_name {
            self.here = self.word_pos(w);
        } else if let Some(first) = items.first()
            && let ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) | ast::CommandPrefixOrSuffixItem::Word(w) =
                first
        {
            self.here = self.word_pos(w);
        }

        // Expansions, left to right.
        let mut assigns: Vec<(String, Assigned)> = Vec::new();
        let mut args: Vec<Arg> = Vec::new();
        let mut redirects: Vec<&ast::IoRedirect> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let in_prefix = i < prefix_len;
            if !in_prefix
                && i == prefix_len
                && let Some(w) = &c.word_or_name
            {
                let pos = self.word_pos(w);
                args.extend(self.expand_word(&w.value, pos, st));
            }
            match item {
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(r),
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, w) if in_prefix => {
                    let pos = self.word_pos(w);
                    let (name, value) = self.assignment(a, pos, st);
                    assigns.push((name, value));
                }
                ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) | ast::CommandPrefixOrSuffixItem::Word(w) => {
                    let pos = self.word_pos(w);
                    args.extend(self.expand_word(&w.value, pos, st));
                }
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                    let pos = self.here;
                    let tainted = self.process_substitution(sub, st);
                    let mut field = Field::literal("/dev/fd/63");
                    field.tainted = tainted;
                    field.content = self.static_stdout(&sub.list.to_string(), st);
                    args.push(Arg { field, pos, raw: "<(…)".into() });
                }
            }
        }
        if prefix_len == items.len()
            && let Some(w) = &c.word_or_name
        {
            let pos = self.word_pos(w);
            args.extend(self.expand_word(&w.value, pos, st));
        }
        if self.failed() {
            return;
        }

        let name_for_messages = args.first().and_then(|a| a.known()).unwrap_or_else(|| "the shell".to_string());
        let mark = self.sinks[self.sink].accesses.len();
        let stdin = self.redirects_of(&redirects, &name_for_messages, st, stdin);

        if args.is_empty() {
            self.name_accesses(mark, c);
            // Assignments (and redirections) only: they stay in this shell.
            for (name, value) in assigns {
                match value {
                    Assigned::Scalar { value, append } => {
                        let value = self.combine_append(&name, value, append, st);
                        self.assign_field(&name, &value, st);
                    }
                    Assigned::Array(Some(items)) => self.assign_val(&name, Val::Array(items), st),
                    Assigned::Array(None) => self.assign_val(&name, Val::unknown(), st),
                }
            }
            return;
        }

        // Assignments before a command are its environment only.
        let env: Vec<(String, Field)> = assigns
            .into_iter()
            .map(|(n, v)| match v {
                Assigned::Scalar { value, .. } => (n, value),
                Assigned::Array(_) => (n, Field::unknown()),
            })
            .collect();
        for (name, value) in &env {
            if let Some(v) = value.known() {
                self.code_variable(name, &v, st);
            }
        }
        let fetched_before = std::mem::replace(&mut self.fetched, false);
        self.run_command(&args, &env, stdin, st, true);
        self.name_accesses(mark, c);
        // A fetch whose output is redirected to a file downloads that file.
        if self.fetched {
            for target in stdout_targets(&redirects) {
                if let Some(abs) = self.absolute(&target, st) {
                    st.downloaded.insert(abs);
                }
            }
        }
        self.fetched |= fetched_before;
        if self.failed() || self.quiet > 0 {
            return;
        }
        let sink = &self.sinks[self.sink];
        if !sink.accesses[mark..].iter().any(Access::required) {
            let pos = args[0].pos;
            self.need(
                Scope::Workspace,
                Perm::Read,
                &name_for_messages,
                &name_for_messages,
                "runs a program (every program needs workspace read)",
                pos,
            );
        }
    }

    /// Gives the accesses this simple command recorded since `mark` its own text: inside a
    /// client's wrapper, the position alone points into the wrapper. Those of commands nested
    /// in it have theirs already; a command that needs nothing gets no text made.
    fn name_accesses(&mut self, mark: usize, c: &ast::SimpleCommand) {
        let accesses = &mut self.sinks[self.sink].accesses;
        if accesses.len() <= mark || accesses[mark..].iter().all(|a| a.text.is_some()) {
            return;
        }
        let text = command_text(c);
        for a in accesses[mark..].iter_mut().filter(|a| a.text.is_none()) {
            a.text = Some(text.clone());
        }
    }

    fn combine_append(&self, name: &str, value: Field, append: bool, st: &State) -> Field {
        if !append {
            return value;
        }
        match (self.var_value(name, st), value.known()) {
            (Some(old), Some(new)) => Field::literal(&format!("{old}{new}")),
            _ => Field::unknown(),
        }
    }

    fn assign_field(&mut self, name: &str, value: &Field, st: &mut State) {
        if value.known().is_none() {
            self.assign_val(name, field_val(value), st);
            return;
        }
        self.assign(name, value.known(), st);
        if let Some(v) = value.known() {
            self.code_variable(name, &v, st);
        }
        if value.tainted {
            // Remember nothing more precise: the value is unknown anyway.
            self.assign(name, None, st);
        }
    }

    /// Variables whose value bash runs as code later.
    fn code_variable(&mut self, name: &str, value: &str, st: &mut State) {
        match name {
            "PROMPT_COMMAND" => {
                let pos = self.here;
                self.run_decoded(value, pos, st, Nest::Subshell);
            }
            "PS0" | "PS1" | "PS2" | "PS4" if value.contains("$(") || value.contains('`') => {
                let pos = self.here;
                let mut inner = st.clone();
                self.eval_text(value, pos, &mut inner, true);
            }
            _ => {}
        }
    }

    /// Evaluates one assignment word: returns the name, the value and whether it appends.
    fn assignment(&mut self, a: &ast::Assignment, pos: Pos, st: &mut State) -> (String, Assigned) {
        let name = match &a.name {
            ast::AssignmentName::VariableName(n) => n.clone(),
            ast::AssignmentName::ArrayElementName(n, index) => {
                self.arithmetic(index, pos, st);
                self.subscript_text(&format!("[{index}]"), pos, st);
                n.clone()
            }
        };
        let value = match &a.value {
            ast::AssignmentValue::Scalar(w) => {
                let v = self.expand_single(&w.value, pos, st);
                if matches!(a.name, ast::AssignmentName::ArrayElementName(..)) { Field::unknown() } else { v }
            }
            ast::AssignmentValue::Array(items) => {
                let mut elements: Option<Vec<String>> = Some(Vec::new());
                for (key, value) in items {
                    if let Some(k) = key {
                        self.arithmetic(&k.value, pos, st);
                        self.subscript_text(&k.value, pos, st);
                        elements = None;
                    }
                    for arg in self.expand_word(&value.value, pos, st) {
                        match (&mut elements, arg.field.known()) {
                            (Some(list), Some(text)) if !arg.field.has_glob() && !arg.field.tainted => list.push(text),
                            _ => elements = None,
                        }
                    }
                }
                return (name, Assigned::Array(elements.filter(|_| !a.append)));
            }
        };
        (name, Assigned::Scalar { value, append: a.append })
    }

    /// What a piece of code writes to stdout, when that is fixed (`echo x`, `printf %s x`).
    fn static_stdout(&mut self, code: &str, st: &State) -> Option<String> {
        commands::static_output(code, self, st).map(|t| t + "\n")
    }

    fn process_substitution(&mut self, sub: &ast::SubshellCommand, st: &mut State) -> bool {
        if self.quiet > 0 {
            return false;
        }
        let saved = std::mem::replace(&mut self.fetched, false);
        let mut inner = st.clone();
        self.compound_list(&sub.list, &mut inner);
        let tainted = self.fetched;
        self.fetched |= saved;
        tainted
    }

    /// A command substitution: analysed as a subshell; its output is known only for a few
    /// fixed forms.
    pub fn command_substitution(
        &mut self,
        code: &str,
        pos: Pos,
        verbatim: bool,
        st: &mut State,
        quoted: bool,
    ) -> super::word::Part {
        if self.quiet > 0 {
            // A subshell: in a quiet pass only its fixed output matters.
            return match commands::static_output(code, self, st) {
                Some(text) => super::word::Part::Lit { text, quoted, split: !quoted },
                None => super::word::Part::Unknown { numeric: false },
            };
        }
        let saved = std::mem::replace(&mut self.fetched, false);
        if verbatim {
            self.run_verbatim(code, pos, st, Nest::Subshell);
        } else {
            self.run_decoded(code, pos, st, Nest::Subshell);
        }
        let tainted = self.fetched;
        self.fetched |= saved;
        if tainted {
            self.pending_taint = true;
        }
        match commands::static_output(code, self, st) {
            Some(text) => super::word::Part::Lit { text, quoted, split: !quoted },
            None => super::word::Part::Unknown { numeric: false },
        }
    }

    // ----- redirections ------------------------------------------------------------------

    fn redirects(&mut self, list: &[ast::IoRedirect], command: &str, st: &mut State, stdin: Stdin) -> Stdin {
        let refs: Vec<&ast::IoRedirect> = list.iter().collect();
        self.redirects_of(&refs, command, st, stdin)
    }

    fn redirects_of(&mut self, list: &[&ast::IoRedirect], command: &str, st: &mut State, mut stdin: Stdin) -> Stdin {
        let command = if command.is_empty() { "redirection" } else { command };
        for r in list {
            match r {
                ast::IoRedirect::File(fd, kind, target) => {
                    let reads_stdin = fd.is_none_or(|f| f == 0);
                    match target {
                        ast::IoFileRedirectTarget::Filename(w) | ast::IoFileRedirectTarget::Duplicate(w) => {
                            let pos = self.word_pos(w);
                            let field = self.expand_single(&w.value, pos, st);
                            if matches!(target, ast::IoFileRedirectTarget::Duplicate(_)) {
                                // `>&2`, `<&-`, `>&$fd`: a descriptor, not a file, unless it is a name.
                                let text = field.known();
                                let is_fd = text.as_deref().is_some_and(|t| {
                                    t == "-" || t.trim_end_matches('-').bytes().all(|b| b.is_ascii_digit())
                                });
                                if is_fd || text.is_none() && fd.is_some() {
                                    continue;
                                }
                            }
                            let arg = Arg { field, pos, raw: w.value.clone() };
                            match kind {
                                ast::IoFileRedirectKind::Read | ast::IoFileRedirectKind::DuplicateInput => {
                                    self.path(&arg, &[Perm::Read], command, "reads a file through a redirection", st);
                                    if reads_stdin {
                                        stdin = match arg.known() {
                                            Some(p) if p == "/dev/null" => Stdin::Empty,
                                            Some(p) => Stdin::File(self.absolute(&p, st).unwrap_or(p)),
                                            None => Stdin::Unknown,
                                        };
                                    }
                                }
                                ast::IoFileRedirectKind::ReadAndWrite => {
                                    self.path(
                                        &arg,
                                        &[Perm::Read, Perm::Write],
                                        command,
                                        "opens a file for reading and writing through a redirection",
                                        st,
                                    );
                                }
                                _ => {
                                    self.path(&arg, &[Perm::Write], command, "writes a file through a redirection", st);
                                }
                            }
                        }
                        ast::IoFileRedirectTarget::Fd(_) => {}
                        ast::IoFileRedirectTarget::ProcessSubstitution(_, sub) => {
                            let tainted = self.process_substitution(sub, st);
                            if reads_stdin && matches!(kind, ast::IoFileRedirectKind::Read) {
                                stdin = if tainted {
                                    Stdin::Fetched
                                } else {
                                    Stdin::Text(self.static_stdout(&sub.list.to_string(), st))
                                };
                            }
                        }
                    }
                }
                ast::IoRedirect::HereDocument(fd, doc) => {
                    let pos = self.word_pos(&doc.doc);
                    let text = if doc.requires_expansion {
                        self.eval_heredoc(&doc.doc.value, pos, st)
                    } else {
                        Some(doc.doc.value.clone())
                    };
                    let text = text.map(|t| if doc.remove_tabs { strip_leading_tabs(&t) } else { t });
                    if fd.is_none_or(|f| f == 0) {
                        stdin = Stdin::Text(text);
                    }
                }
                ast::IoRedirect::HereString(fd, w) => {
                    let pos = self.word_pos(w);
                    let field = self.expand_single(&w.value, pos, st);
                    if fd.is_none_or(|f| f == 0) {
                        stdin =
                            if field.tainted { Stdin::Fetched } else { Stdin::Text(field.known().map(|t| t + "\n")) };
                    }
                }
                ast::IoRedirect::OutputAndError(w, _) => {
                    let pos = self.word_pos(w);
                    let field = self.expand_single(&w.value, pos, st);
                    let arg = Arg { field, pos, raw: w.value.clone() };
                    self.path(&arg, &[Perm::Write], command, "writes a file through a redirection", st);
                }
            }
        }
        stdin
    }

    // ----- paths -------------------------------------------------------------------------

    /// The absolute, normal form of a path in the current cwd, when it can be known.
    pub fn absolute(&self, path: &str, st: &State) -> Option<String> {
        if path.starts_with('/') {
            Some(scope::normalize("/", path))
        } else {
            st.cwd.as_ref().map(|cwd| scope::normalize(cwd, path))
        }
    }

    /// Every absolute, normal form a path may have: one per directory the cwd may be.
    /// `None` when the path is relative and the cwd could be anywhere.
    pub fn absolutes(&self, path: &str, st: &State) -> Option<Vec<String>> {
        if path.starts_with('/') {
            return Some(vec![scope::normalize("/", path)]);
        }
        let all: BTreeSet<String> = st.cwds()?.iter().map(|cwd| scope::normalize(cwd, path)).collect();
        Some(all.into_iter().collect())
    }

    /// `path`, as written in `arg`, classified in each directory the cwd may be; where the cwd
    /// is not known, unresolved and scoped wherever it could land.
    fn classified_at(&mut self, path: &str, arg: &Arg, perms: &[Perm], command: &str, reason: &str, st: &State) {
        match self.absolutes(path, st) {
            Some(all) => {
                for abs in all {
                    self.classified(&abs, perms, command, reason, arg.pos);
                }
            }
            None => {
                self.unresolved(&arg.raw, arg.pos);
                self.anywhere(path, perms, command, reason, arg.pos);
            }
        }
    }

    /// A relative path where the cwd could be anywhere (after `cd` to a directory the walk
    /// cannot know): it is not taken for the workspace. It is scoped by its name in the places
    /// it could be — in the workspace, in a `.git` directory, in the home directory — so that
    /// a credential or a protected path (`.git/hooks/…`, `config` in `.git`, `.bashrc`)
    /// needs system access; everything else about it is bounded by the kernel layer.
    pub fn anywhere(&mut self, rel: &str, perms: &[Perm], command: &str, reason: &str, pos: Pos) {
        // The cwd's own entry, written without going into it (`mkdir -p .`, `touch .`),
        // plants nothing wherever the cwd is.
        if scope::normalize("/", rel) == "/" && !perms.contains(&Perm::Read) {
            return;
        }
        let layout = &self.ctx.layout;
        let mut bases = vec![layout.workspace.clone(), format!("{}/.git", layout.workspace.trim_end_matches('/'))];
        bases.extend(layout.home.iter().cloned());
        let mut needs: Vec<(Perm, &'static str)> = Vec::new();
        for &perm in perms {
            for base in &bases {
                let class = layout.classify(&scope::normalize(base, rel), perm == Perm::Write);
                let noun = match class {
                    Class::Credential => "a credential",
                    Class::Protected => "a protected path (changing it runs code later)",
                    _ => continue,
                };
                if !needs.iter().any(|(p, _)| *p == perm) {
                    needs.push((perm, noun));
                }
            }
        }
        for (perm, noun) in needs {
            let why = format!("{reason}; the cwd is not known here, and in some directory this path is {noun}");
            self.need(Scope::System, perm, rel, command, &why, pos);
        }
    }

    /// Records the accesses a command makes to the file named by `arg`.
    pub fn path(&mut self, arg: &Arg, perms: &[Perm], command: &str, reason: &str, st: &State) {
        let field = &arg.field;
        if field.tainted {
            self.unresolved(&arg.raw, arg.pos);
        }
        if field.known().is_none()
            && let Some((values, open)) = field.alternatives()
        {
            // Each possible value is a path this command may touch.
            for value in values {
                let words: Vec<&str> =
                    if field.splits_choices() { value.split_whitespace().collect() } else { vec![value.as_str()] };
                for w in words {
                    let alt = Arg { field: Field::literal(w), pos: arg.pos, raw: arg.raw.clone() };
                    self.path(&alt, perms, command, reason, st);
                }
            }
            if open {
                self.unresolved(&arg.raw, arg.pos);
            }
            return;
        }
        match field.known() {
            Some(_) if field.has_glob() => self.glob_path(arg, &field.glob_pattern(), perms, command, reason, st),
            Some(text) => {
                if text.is_empty() {
                    return;
                }
                self.classified_at(&text, arg, perms, command, reason, st);
            }
            None => {
                let prefix = field.prefix();
                let certain = field.only_numbers_unknown();
                // `/proc/$PPID/cmdline`: what a process is, whichever process it is.
                if certain && !perms.contains(&Perm::Write) && scope::is_process_info(&field.with_numbers("1")) {
                    return;
                }
                if !certain {
                    self.unresolved(&arg.raw, arg.pos);
                }
                // The directory part of the known prefix scopes it, as for a glob.
                if let Some(slash) = prefix.rfind('/') {
                    let dir = if slash == 0 { "/".to_string() } else { prefix[..slash].to_string() };
                    for abs in self.absolutes(&dir, st).unwrap_or_default() {
                        self.classified(&abs, perms, command, reason, arg.pos);
                    }
                } else if certain {
                    for cwd in st.cwds().unwrap_or_default() {
                        self.classified(&cwd, perms, command, reason, arg.pos);
                    }
                }
                self.credential_fragments(field, perms, command, reason, arg.pos);
                self.protected_fragments(field, perms, command, reason, arg.pos);
            }
        }
    }

    /// Partly known paths whose known parts name a credential are treated as credentials.
    fn credential_fragments(&mut self, field: &Field, perms: &[Perm], command: &str, reason: &str, pos: Pos) {
        let names_secret = field
            .fragments()
            .iter()
            .any(|f| f.split('/').any(|c| scope::credential_name(c) || scope::home_credential_name(c)));
        if names_secret {
            let target = field.fragments().concat();
            for p in perms {
                self.need(Scope::System, *p, &target, command, &format!("{reason}; the path names a credential"), pos);
            }
        }
    }

    /// Partly known paths whose known parts name a protected path (`$d/.git/hooks/x`) are
    /// written as protected paths.
    fn protected_fragments(&mut self, field: &Field, perms: &[Perm], command: &str, reason: &str, pos: Pos) {
        if !perms.contains(&Perm::Write) {
            return;
        }
        let known = field.fragments().concat();
        let rel = known.trim_start_matches('/');
        if rel.is_empty() {
            return;
        }
        let protected = self.ctx.layout.is_protected(&known)
            || self.ctx.layout.classify(&scope::normalize(&self.ctx.layout.workspace, rel), true) == Class::Protected;
        if protected {
            let why = format!("{reason}; the path names a protected path (changing it runs code later)");
            self.need(Scope::System, Perm::Write, &known, command, &why, pos);
        }
    }

    fn glob_path(&mut self, arg: &Arg, pattern: &str, perms: &[Perm], command: &str, reason: &str, st: &State) {
        // Scoped by the literal directory before the first glob character…
        let first_glob = first_unescaped_glob(pattern).unwrap_or(pattern.len());
        let literal = unescape_glob(&pattern[..first_glob]);
        let dir = match literal.rfind('/') {
            Some(0) => "/".to_string(),
            Some(i) => literal[..i].to_string(),
            None => ".".to_string(),
        };

        // (Where the cwd is not known, the names it can match decide, not the directory.)
        match self.absolutes(&dir, st) {
            Some(_) => self.classified_at(&dir, arg, perms, command, reason, st),
            None => {
                self.unresolved(&arg.raw, arg.pos);
                self.anywhere(pattern, perms, command, reason, arg.pos);
            }
        }
        // …and by the credential and protected paths it matches now.
        for abs_pattern in self.absolute_patterns(pattern, st) {
            for m in super::glob::matches(&abs_pattern, 4096) {
                let write = perms.contains(&Perm::Write);
                let class = self.ctx.layout.classify(&m, write);
                if matches!(class, Class::Credential | Class::Protected) {
                    self.classified(&m, perms, command, reason, arg.pos);
                }
            }
        }
    }

    /// Pathname expansion of a command word: bash lists the directory a glob names
    /// (`echo /etc/*` and `for f in /etc/*` read `/etc`), whatever the command does with the
    /// words it gets. Scoped by the longest literal directory before the first glob character.
    pub fn glob_listing(&mut self, arg: &Arg, st: &State) {
        if self.quiet > 0 || !arg.field.has_glob() {
            return;
        }
        if arg.field.known().is_none() {
            // Where the glob is depends on text the walk cannot know.
            self.unresolved(&arg.raw, arg.pos);
            return;
        }
        let pattern = arg.field.glob_pattern();
        let Some(first) = first_glob_pattern_char(&pattern) else { return };
        let literal = unescape_glob(&pattern[..first]);
        let dir = match literal.rfind('/') {
            Some(0) => "/".to_string(),
            Some(i) => literal[..i].to_string(),
            None => ".".to_string(),
        };
        let reason = "expands a glob, which lists the directory";
        self.classified_at(&dir, arg, &[Perm::Read], "the shell", reason, st);
    }

    /// The absolute forms of a glob pattern, one per directory the cwd may be.
    fn absolute_patterns(&self, pattern: &str, st: &State) -> Vec<String> {
        if pattern.starts_with('/') {
            vec![pattern.to_string()]
        } else {
            let cwds = st.cwds().unwrap_or_default();
            cwds.iter().map(|cwd| format!("{}/{pattern}", cwd.trim_end_matches('/'))).collect()
        }
    }

    /// Records the bits an absolute path needs for `perms`.
    pub fn classified(&mut self, abs: &str, perms: &[Perm], command: &str, reason: &str, pos: Pos) {
        if self.quiet > 0 {
            // A quiet run (a loop body walked ahead) still says which files may be written
            // before a later `source` reads them.
            if perms.contains(&Perm::Write) {
                self.written.insert(abs.to_string());
            }
            return;
        }
        self.classified_once(abs, perms, command, reason, pos);
        // A link lands somewhere else: the place it leads to needs the same bits.
        if let Some(target) = self.link_target(abs) {
            let why = format!("{reason}, through a link to {target}");
            self.classified_once(&target, perms, command, &why, pos);
        }
    }

    /// Where a path really leads when a link is on the way: one this program creates (`ln`),
    /// or one that exists now in a place the program could have planted it.
    fn link_target(&mut self, abs: &str) -> Option<String> {
        for (link, target) in &self.links {
            if scope::is_within(abs, link) {
                return Some(format!("{target}{}", &abs[link.len()..]));
            }
        }
        let class = self.ctx.layout.classify(abs, false);
        if !matches!(class, Class::Workspace | Class::External | Class::Scratch) {
            return None;
        }
        // /dev/stderr, /dev/fd/N and /proc/self are links that mean the running process's
        // own files: their names decide, not where they point while sandbox-bash runs.
        if abs.starts_with("/dev/") || abs.starts_with("/proc/") {
            return None;
        }
        if let Some(cached) = self.canonical_cache.get(abs) {
            return cached.clone();
        }
        let resolved =
            std::fs::canonicalize(super::bytes::path(abs)).ok().map(|p| super::bytes::from_os(&p)).filter(|p| p != abs);
        self.canonical_cache.insert(abs.to_string(), resolved.clone());
        resolved
    }

    /// Records a link the program creates.
    pub fn record_link(&mut self, link: &str, target: &str) {
        if self.quiet == 0 {
            self.links.push((link.to_string(), target.to_string()));
        }
    }

    /// Whether writing `abs` makes or removes an entry right in the home, or in a directory of
    /// it that holds start-up, settings or credential files: the kernel layer keeps such a
    /// directory itself read-only unless the mode grants the whole system (see
    /// [`scope::Layout::holds`]). A path that does not exist is made, but by a program that
    /// removes (then nothing happens); one that exists is removed or replaced by such a program
    /// or one of [`REPLACERS`], and written in place by any other.
    fn entry_of_pinned(&self, abs: &str, command: &str) -> bool {
        let layout = &self.ctx.layout;
        let Some(home) = layout.home.as_deref().filter(|h| *h != "/") else { return false };
        let Some((parent, _)) = abs.rsplit_once('/') else { return false };
        if !scope::is_within(parent, home) || !layout.holds(parent, true) {
            return false;
        }
        Self::makes_or_removes(abs, command)
    }

    /// Whether `abs` is an entry made, removed or replaced right in a client's directory at
    /// the top of the workspace, which the kernel layer keeps read-only itself unless the mode
    /// writes the system (see [`scope::Client::holder`]).
    fn entry_of_workspace_holder(&self, abs: &str, command: &str) -> bool {
        let Some((parent, _)) = abs.rsplit_once('/') else { return false };
        self.ctx.layout.is_workspace_holder(parent) && Self::makes_or_removes(abs, command)
    }

    /// Whether `command` writing `abs` makes, removes or replaces the entry (see
    /// [`Walker::entry_of_pinned`]).
    fn makes_or_removes(abs: &str, command: &str) -> bool {
        let name = command.rsplit('/').next().unwrap_or(command);
        let removes = REMOVERS.contains(&name);
        match std::fs::symlink_metadata(super::bytes::path(abs)) {
            Ok(_) => removes || REPLACERS.contains(&name),
            Err(e) => e.kind() == std::io::ErrorKind::NotFound && !removes,
        }
    }

    fn classified_once(&mut self, abs: &str, perms: &[Perm], command: &str, reason: &str, pos: Pos) {
        for &perm in perms {
            if perm == Perm::Read && scope::is_process_info(abs) {
                continue;
            }
            let class = self.ctx.layout.classify(abs, perm == Perm::Write);
            // What every program may read and run whatever the mode (the runtime baseline: the
            // program directories, the /etc entries programs read at run time, a toolchain on
            // PATH) needs no bit: the kernel grants it at every level.
            if perm != Perm::Write
                && ((class == Class::System && crate::baseline::baseline_grants(abs, perm))
                    || (class == Class::External && self.in_toolchain(abs)))
            {
                continue;
            }
            if perm == Perm::Write && self.quiet == 0 {
                self.written.insert(abs.to_string());
            }
            if perm == Perm::Write && class == Class::External && self.entry_of_pinned(abs, command) {
                let why = format!(
                    "{reason} (an entry made, removed or replaced right in a directory the kernel layer \
                     keeps read-only unless the mode grants the whole system, so that start-up and settings \
                     files that do not exist yet cannot be made there; a directory of its own takes new files)"
                );
                for p in Perm::ALL {
                    self.need_bounded(Scope::System, p, abs, command, &why, pos, Bound::Kernel);
                }
            }
            if perm == Perm::Write && class == Class::Workspace && self.entry_of_workspace_holder(abs, command) {
                let why = format!(
                    "{reason} (an entry made, removed or replaced right in an agent's directory at the top of the \
                     workspace, which the kernel layer keeps read-only so that a second settings file cannot be made \
                     there; its other entries stay writable)"
                );
                self.need_bounded(Scope::System, Perm::Write, abs, command, &why, pos, Bound::View);
            }
            if let Some(scope) = class.scope() {
                let why = match class {
                    Class::Credential => format!("{reason} ({})", class.noun()),
                    Class::Protected => format!("{reason} (a protected path: changing it runs code later)"),
                    Class::Network => format!("{reason} (bash's network pseudo-device)"),
                    _ => reason.to_string(),
                };
                let bound = match class {
                    Class::Credential | Class::Protected => Bound::View,
                    Class::Network => Bound::Static,
                    _ => Bound::Kernel,
                };
                self.need_bounded(scope, perm, abs, command, &why, pos, bound);
            }
            if is_engine_socket(abs) {
                self.need(
                    Scope::System,
                    Perm::Execute,
                    abs,
                    command,
                    "talks to a container engine, which is root-equivalent",
                    pos,
                );
            }
        }
    }

    pub fn note_unknown_write(&mut self) {
        if self.quiet == 0 {
            self.written_unknown = true;
        }
    }

    /// A program ran whose every output the table does not name.
    pub fn note_unmodelled_program(&mut self) {
        self.unmodelled_program = true;
    }

    // ----- running a command -------------------------------------------------------------

    /// Analyses running `args` (name first) with extra environment `env`.
    pub fn run_command(&mut self, args: &[Arg], env: &[(String, Field)], stdin: Stdin, st: &mut State, direct: bool) {
        let Some(first) = args.first() else { return };
        let pos = first.pos;
        self.step();
        let name = match first.field.known() {
            Some(n) => n,
            None => {
                // A name with a few possible values: each of them may run.
                if let Some((values, open)) = first.field.alternatives() {
                    let before = st.clone();
                    let mut merged: Option<State> = None;
                    for value in values {
                        let mut words = value.split_whitespace();
                        let name = if first.field.splits_choices() {
                            words.next().unwrap_or("").to_string()
                        } else {
                            value.clone()
                        };
                        let mut alt: Vec<Arg> = vec![Arg {
                            field: Field { tainted: first.field.tainted, ..Field::literal(&name) },
                            pos,
                            raw: first.raw.clone(),
                        }];
                        if first.field.splits_choices() {
                            alt.extend(words.map(|w| Arg { field: Field::literal(w), pos, raw: first.raw.clone() }));
                        }
                        alt.extend(args[1..].iter().cloned());
                        let mut branch = before.clone();
                        self.run_command(&alt, env, stdin.clone(), &mut branch, direct);
                        match &mut merged {
                            None => merged = Some(branch),
                            Some(m) => self.join(m, &branch),
                        }
                    }
                    if let Some(m) = merged {
                        *st = m;
                    }
                    if !open {
                        return;
                    }
                }
                self.record_command(None, &first.raw, pos);
                // Whatever runs, the paths it is given are still paths.
                commands::generic(self, &first.raw, args, st);
                self.unknown_code(&first.raw, &first.raw, pos, first.field.tainted, st);
                return;
            }
        };
        self.record_command(Some(&name), &name, pos);
        if name.is_empty() {
            return;
        }
        if first.field.tainted {
            self.need(
                Scope::Network,
                Perm::Execute,
                &name,
                &name,
                "runs a command named by text fetched from the network",
                pos,
            );
        }
        if direct {
            self.expand_alias(&name, args, st);
        }
        for (var, value) in env {
            if var == MODE_VAR {
                self.mode_assignment(&field_val(value));
            }
            if LOADER_VARS.contains(&var.as_str()) {
                self.loader_assignment(var, &field_val(value), st);
            }
            if let Some(v) = value.known()
                && (var == "BASH_ENV" || var == "ENV")
            {
                // A new shell started by this command sources it first.
                let arg = Arg { field: Field::literal(&v), pos, raw: v.clone() };
                commands::source_file(self, &arg, &name, st, Nest::Subshell);
            }
        }
        let program = if name.contains('/') {
            match self.absolute(&name, st) {
                Some(abs) if self.in_program_dirs(&abs) => abs.rsplit('/').next().unwrap_or(&name).to_string(),
                Some(abs) => {
                    commands::run_path(self, &abs, &name, args, st);
                    return;
                }
                None => {
                    self.unknown_code(&first.raw, &name, pos, false, st);
                    return;
                }
            }
        } else {
            name.clone()
        };
        // A function runs instead of any program of its name: its body, walked with these
        // arguments, is what the call does. (A program the table knows is analysed too: the
        // definition may not have run.)
        let defined = st.defined.contains(&name);
        if direct && !name.contains('/') && self.call_function(&name, args, st) {
            // The program of that name runs only where the definition may not have run: what
            // it would do is possible there, and held where the kernel holds it.
            if !defined && commands::is_modelled(&program) {
                self.possibly(|w| commands::dispatch(w, &program, args, env, stdin, st));
            }
            return;
        }
        commands::dispatch(self, &program, args, env, stdin, st);
    }

    /// A call of a function defined earlier: its body runs here, in this shell, with the
    /// call's arguments as positional parameters (the body is also analysed on its own at the
    /// end, for calls the walk cannot see).
    fn call_function(&mut self, name: &str, args: &[Arg], st: &mut State) -> bool {
        let Some(&index) = self.function_by_name.get(name) else { return false };
        // While probing a loop, follow calls one level deep only; and past a budget of calls
        // followed (a library of thousands of functions calling each other), none deeper than
        // the first.
        let depth_limit = if self.quiet > 0 || self.calls_followed >= MAX_FOLLOWED_CALLS { 1 } else { MAX_CALL_DEPTH };
        if self.call_stack.iter().any(|n| n == name) || self.call_stack.len() >= depth_limit {
            // Not followed: what the function may change, changes.
            if self.quiet == 0 {
                self.function_skipped.insert(index);
            }
            self.apply_call_effects(name, st);
            return true;
        }
        if self.shallow && self.call_stack.len() >= SHALLOW_CALLS {
            self.stop_shallow();
            return true;
        }
        let (body, origin) = {
            let f = &self.functions[index];
            (std::sync::Arc::clone(&f.body), f.origin)
        };
        let saved_positional = (st.positional.clone(), st.positional_open);
        st.set_positional_vals(Some(args[1..].iter().map(|a| field_val(&a.field)).collect()));
        // The variables as the call finds them, for the names it makes its own.
        self.local_frames.push((st.vars.clone(), Vec::new()));
        if self.quiet == 0 {
            self.function_walked.insert(index);
        }
        self.calls_followed += 1;
        self.call_stack.push(name.to_string());
        let saved_origin = std::mem::replace(&mut self.origin, origin);
        let stdin = match &body.1 {
            Some(r) => self.redirects(&r.0, "", st, Stdin::Unknown),
            None => Stdin::Unknown,
        };
        self.compound(&body.0, st, stdin);
        if let Some((before, locals)) = self.local_frames.pop() {
            for name in locals {
                match before.get(name.as_str()) {
                    Some(value) => st.vars.insert(Name::from(name.as_str()), Rc::clone(value)),
                    None => st.vars.remove(name.as_str()),
                };
            }
        }
        self.origin = saved_origin;
        self.call_stack.pop();
        st.positional = saved_positional.0;
        st.positional_open = saved_positional.1;
        true
    }

    /// `name` is the running function's own (`local`): when the call returns, the value it had
    /// before comes back. Outside a followed call (a function walked on its own, or the top
    /// level) it is an ordinary assignment.
    pub fn declare_local(&mut self, name: &str) {
        if let Some((_, locals)) = self.local_frames.last_mut()
            && !locals.iter().any(|n| n == name)
        {
            locals.push(name.to_string());
        }
    }

    /// Applies what a call of `name` (and the calls it makes) may change, read from syntax.
    fn apply_call_effects(&mut self, name: &str, st: &mut State) {
        let mut all = super::effects::Effects::default();
        let mut seen: HashSet<String> = HashSet::default();
        let mut queue = vec![name.to_string()];
        while let Some(n) = queue.pop() {
            if !seen.insert(n.clone()) {
                continue;
            }
            let Some(&index) = self.function_by_name.get(&n) else { continue };
            let effects = match self.function_effects.get(&index) {
                Some(e) => e.clone(),
                None => {
                    let e = super::effects::Effects::of_compound(&self.functions[index].body.0);
                    self.function_effects.insert(index, e.clone());
                    e
                }
            };
            queue.extend(effects.calls.iter().cloned());
            all.merge(effects);
        }
        if all.dynamic {
            self.assigned_dynamic = true;
            st.havoc();
            return;
        }
        for (n, (values, open)) in all.names {
            // The old value stays possible (the assignment may not run), plus what it may assign.
            let (mut now, was_open) = self.var_val(&n, st).scalars();
            now.extend(values);
            let widened = if now.len() > MAX_CHOICES {
                Val::unknown()
            } else {
                Val::Choice { values: now, open: open || was_open }
            };
            self.assign_val(&n, widened, st);
        }
        if all.cwd {
            self.cwd_changes = true;
            st.set_cwds(None);
            st.dirs = None;
            self.entered_cwds = None;
        }
        if all.positional {
            st.set_positional_vals(None);
        }
    }

    /// Counts work, so that no input can make the analysis run for long.
    pub fn step(&mut self) {
        self.steps += 1;
        if self.steps > MAX_STEPS + 64 * self.input_len && !self.failed() {
            self.fail(Failure {
                message: format!("the program needs more than {MAX_STEPS} analysis steps"),
                pos: Some(self.here),
            });
        }
    }

    fn in_program_dirs(&self, abs: &str) -> bool {
        // Anything under the program roots (the dynamic loader in /lib64, /usr/lib/git-core/…)
        // runs as if named: the baseline lets every mode run it, and its name says what it does.
        if self.ctx.self_exe.as_deref() == Some(abs) || crate::baseline::in_program_roots(abs) {
            return true;
        }
        // sandbox-bash through a link (one named `bash` put first on PATH) is sandbox-bash.
        if let Some(me) = self.ctx.self_exe.as_deref()
            && std::fs::symlink_metadata(super::bytes::path(abs)).is_ok_and(|m| m.file_type().is_symlink())
            && crate::exec::canonicalize(abs).is_ok_and(|real| real == me)
        {
            return true;
        }
        let dir = match abs.rfind('/') {
            Some(0) => "/",
            Some(i) => &abs[..i],
            None => return false,
        };
        let layout = &self.ctx.layout;
        if scope::is_within(dir, &layout.workspace) || layout.is_credential(abs) {
            return false;
        }
        self.ctx.program_dirs.iter().any(|d| d == dir)
    }

    fn expand_alias(&mut self, name: &str, args: &[Arg], st: &mut State) {
        match self.aliases.get(name).cloned() {
            Some(Some(text)) => {
                let rest: Vec<String> =
                    args[1..].iter().map(|a| shell_quote(&a.known().unwrap_or_else(|| a.raw.clone()))).collect();
                let code = if rest.is_empty() { text } else { format!("{text} {}", rest.join(" ")) };
                let pos = args[0].pos;
                // Aliases do not expand recursively into themselves.
                let saved = self.aliases.remove(name);
                self.run_decoded(&code, pos, st, Nest::Same);
                if let Some(v) = saved {
                    self.aliases.insert(name.to_string(), v);
                }
            }
            Some(None) => {
                let pos = args[0].pos;
                self.unknown_code(&format!("alias {name}"), name, pos, false, st);
            }
            None => {}
        }
    }

    /// `alias NAME=VALUE …`.
    pub fn define_alias(&mut self, name: &str, value: Option<String>) {
        self.aliases.insert(name.to_string(), value);
    }

    pub fn set_trap(&mut self, action: &str, pos: Pos) {
        if self.quiet == 0 {
            self.traps.push((action.to_string(), Origin { base: pos, verbatim: false, file: self.origin.file }));
        }
    }

    /// `cd`/`pushd`: the directory becomes the cwd.
    pub fn change_dir(&mut self, target: Option<&Arg>, command: &str, st: &mut State) {
        self.cwd_changes = true;
        let old = self.cwd_val(st);
        let dests = match target {
            None => self.var_value("HOME", st).filter(|h| !h.is_empty()).and_then(|h| self.absolutes(&h, st)),
            Some(arg) => match arg.known() {
                Some(t) if t == "-" => {
                    self.var_value("OLDPWD", st).filter(|h| !h.is_empty()).and_then(|h| self.absolutes(&h, st))
                }
                Some(t) => self.cd_destinations(&t, st),
                None => None,
            },
        };
        let pos = target.map_or(self.here, |a| a.pos);
        // Entering a directory reads nothing in it (the kernel lets any directory be entered);
        // what later commands read there is resolved against it and checked then.
        let reason = "changes into a directory (what runs there is checked where it reads)";
        self.possibly(|w| match &dests {
            Some(all) => {
                for d in all {
                    w.classified(d, &[Perm::Read], command, reason, pos);
                }
            }
            None => {
                let raw = target.map_or("$HOME".to_string(), |a| a.raw.clone());
                w.unresolved(&raw, pos);
                if let Some(arg) = target {
                    w.path(arg, &[Perm::Read], command, reason, st);
                }
            }
        });
        st.set_cwds(dests.map(|d| d.into_iter().collect()));
        self.entered(st);
        self.assign_val("OLDPWD", old, st);
        let new = self.cwd_val(st);
        self.assign_val("PWD", new, st);
    }

    /// Where `cd DIR` may land. As bash does: a name that does not start with `/`, `./` or
    /// `../` (and is not `.` or `..`) is looked up in each directory of `CDPATH` in turn (an
    /// empty entry is the cwd), and then in the cwd; the first that is a directory when the
    /// command runs is taken, so each is possible. `None` when it could be anywhere.
    fn cd_destinations(&self, dir: &str, st: &State) -> Option<Vec<String>> {
        let searches = !dir.is_empty()
            && !dir.starts_with('/')
            && !dir.starts_with("./")
            && !dir.starts_with("../")
            && dir != "."
            && dir != "..";
        if !searches {
            return self.absolutes(dir, st);
        }
        let (values, open) = self.var_val("CDPATH", st).scalars();
        if open {
            return None;
        }
        let mut all: BTreeSet<String> = self.absolutes(dir, st)?.into_iter().collect();
        for value in values.iter().filter(|v| !v.is_empty()) {
            for entry in value.split(':') {
                let candidate = if entry.is_empty() { dir.to_string() } else { format!("{entry}/{dir}") };
                all.extend(self.absolutes(&candidate, st)?);
            }
        }
        Some(all.into_iter().collect())
    }

    /// The value `$PWD` has for the cwd `st` is in.
    fn cwd_val(&self, st: &State) -> Val {
        match (&st.cwd, &st.cwd_alts) {
            (Some(cwd), _) => Val::Known(cwd.clone()),
            (None, Some(alts)) => Val::Choice { values: BTreeSet::clone(alts), open: false },
            (None, None) => Val::unknown(),
        }
    }

    /// Notes the directories the cwd may now be, for code that runs at unknown times.
    fn entered(&mut self, st: &State) {
        match (st.cwds(), &mut self.entered_cwds) {
            (Some(dirs), Some(entered)) => {
                entered.extend(dirs);
                if entered.len() > MAX_CHOICES {
                    self.entered_cwds = None;
                }
            }
            _ => self.entered_cwds = None,
        }
    }

    pub fn push_dir(&mut self, target: Option<&Arg>, command: &str, st: &mut State) {
        let old = st.cwd.clone();
        self.change_dir(target, command, st);
        if let Some(dirs) = &mut st.dirs {
            dirs.push(old);
        }
    }

    pub fn pop_dir(&mut self, st: &mut State) {
        self.cwd_changes = true;
        let popped = st.dirs.as_mut().and_then(|d| d.pop());
        let dest = popped.flatten();
        st.set_cwds(dest.map(|d| [d].into_iter().collect()));
        self.entered(st);
        let new = self.cwd_val(st);
        self.assign_val("PWD", new, st);
    }

    pub fn set_positional(&mut self, values: Option<Vec<Val>>, st: &mut State) {
        st.set_positional_vals(values);
    }

    pub fn shift_positional(&mut self, n: Option<usize>, st: &mut State) {
        match n {
            Some(n) if n <= st.positional.len() => {
                st.positional.drain(..n);
            }
            Some(_) if !st.positional_open => {}
            _ => st.set_positional_vals(None),
        }
    }

    pub fn unset(&mut self, name: &str, st: &mut State) {
        self.assign_unset(name, st);
    }

    /// The program assigns variables whose names are computed at run time.
    pub fn assign_dynamic(&mut self, st: &mut State) {
        self.assigned_dynamic = true;
        let cwd = st.cwds();
        let dirs = st.dirs.clone();
        let positional = st.positional.clone();
        let open = st.positional_open;
        st.havoc();
        st.set_cwds(cwd.map(|c| c.into_iter().collect()));
        st.dirs = dirs;
        st.positional = positional;
        st.positional_open = open;
    }

    /// Runs `f` without recording anything (to compute a value a second time).
    pub fn quiet_eval<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.quiet += 1;
        let fetched = self.fetched;
        let taint = self.pending_taint;
        let out = f(self);
        self.fetched = fetched;
        self.pending_taint = taint;
        self.quiet -= 1;
        out
    }

    /// The text of a file bash would run as a shell script when executed by path: one with a
    /// `#!` line naming a POSIX shell, or a text file without one (bash runs those itself).
    pub fn read_code_file_if_shell(&mut self, path: &str) -> Option<String> {
        let head = super::files::head(&super::bytes::path(path), 256)?;
        let head = head.as_slice();
        if head.starts_with(b"#!") {
            let line = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
            let line = String::from_utf8_lossy(&line[2..]).into_owned();
            let mut words = line.split_whitespace();
            let interp = words.next().unwrap_or("").rsplit('/').next().unwrap_or("").to_string();
            let interp =
                if interp == "env" { words.find(|w| !w.starts_with('-')).unwrap_or("").to_string() } else { interp };
            if !matches!(interp.as_str(), "bash" | "sh" | "dash" | "ash" | "ksh" | "mksh" | "sandbox-bash") {
                return None;
            }
        } else if head.iter().take(80).any(|&b| b == 0) || head.starts_with(b"\x7fELF") {
            return None;
        }
        self.read_code_file(path)
    }

    // ----- the end -----------------------------------------------------------------------

    fn finish(mut self) -> Analysis {
        if self.failed() {
            return Analysis { failure: self.failure, ..Analysis::default() };
        }
        // Function bodies and traps run later, at times the walk cannot know: analyse them in
        // a state where everything the program assigns anywhere is unknown. If they assign
        // more, analyse once more with every variable unknown.
        let commands_mark = self.commands.len();
        let unresolved_mark = self.unresolved.len();
        let trap_sink = self.sinks.len();
        self.sinks.push(Sink::default());
        let mut round = 0;
        loop {
            let assigned_before = self.assigned.len();
            let dynamic_before = self.assigned_dynamic;
            self.commands.truncate(commands_mark);
            self.unresolved.truncate(unresolved_mark);
            for s in self.sinks.iter_mut().skip(1) {
                *s = Sink::default();
            }
            let mut done = 0;
            let mut traps_done = 0;
            while done < self.functions.len() || traps_done < self.traps.len() {
                while done < self.functions.len() {
                    let (body, origin, sink) = {
                        let f = &self.functions[done];
                        (std::sync::Arc::clone(&f.body), f.origin, f.sink)
                    };
                    let index = done;
                    done += 1;
                    // A body already walked at its calls needs no second, vaguer walk: that one
                    // would see the same commands, with less known about their words. A call
                    // the walk cannot see (a name that is not static) is itself reported, needs
                    // workspace execute, and makes every function's needs count.
                    let implicit = self.functions[index].name == "command_not_found_handle";
                    if !implicit && self.function_walked.contains(&index) && !self.function_skipped.contains(&index) {
                        continue;
                    }
                    let mut st = self.deferred_state(round);
                    self.sink = sink;
                    let saved = std::mem::replace(&mut self.origin, origin);
                    self.nested_texts += 1;
                    let mut inner = st.clone();
                    let redirect_stdin = match &body.1 {
                        Some(r) => self.redirects(&r.0, "", &mut inner, Stdin::Unknown),
                        None => Stdin::Unknown,
                    };
                    self.compound(&body.0, &mut st, redirect_stdin);
                    self.nested_texts -= 1;
                    self.origin = saved;
                    if self.failed() {
                        return Analysis { failure: self.failure, ..Analysis::default() };
                    }
                }
                while traps_done < self.traps.len() {
                    let (text, origin) = self.traps[traps_done].clone();
                    traps_done += 1;
                    let mut st = self.deferred_state(round);
                    self.sink = trap_sink;
                    self.run_text(&text, origin, &mut st, Nest::Same);
                    if self.failed() {
                        return Analysis { failure: self.failure, ..Analysis::default() };
                    }
                }
            }
            round += 1;
            let grew = self.assigned.len() != assigned_before || self.assigned_dynamic != dynamic_before;
            if !grew || round >= 2 {
                break;
            }
        }
        self.sink = 0;

        // Which bodies can run: the main program and the traps, plus every function some
        // running code calls by name (or all of them, if any running code calls a name that
        // is not static).
        let mut active: HashSet<usize> = [0, trap_sink].into_iter().collect();
        let mut queue: Vec<usize> = active.iter().copied().collect();
        let mut all = false;
        while let Some(s) = queue.pop() {
            if self.sinks[s].dynamic {
                all = true;
            }
            let calls: Vec<String> = self.sinks[s].calls.iter().cloned().collect();
            for name in calls.iter().chain(std::iter::once(&"command_not_found_handle".to_string())) {
                for &fs in self.function_sinks.get(name).into_iter().flatten() {
                    if active.insert(fs) {
                        queue.push(fs);
                    }
                }
            }
        }
        // A body only a command whose name is not static can call runs only if that command
        // happens to name it: what it does there is possible (that command already needs
        // workspace execute, as code the analysis cannot see).
        let mut accesses = Vec::new();
        for (i, sink) in self.sinks.into_iter().enumerate() {
            if active.contains(&i) {
                accesses.extend(sink.accesses);
            } else if all {
                for (mut a, bound) in sink.accesses.into_iter().zip(sink.bounds) {
                    if a.certainty == Certainty::Known {
                        a.certainty = Certainty::Possible(bound);
                        a.reason.push_str(" (in a function only a command whose name is not static can call)");
                    }
                    accesses.push(a);
                }
            }
        }
        Analysis {
            accesses: dedup(accesses),
            commands: dedup(self.commands),
            unresolved: dedup(self.unresolved),
            failure: None,
        }
    }

    fn deferred_state(&self, round: usize) -> State {
        let mut st = State::new(self.ctx);
        st.set_positional_vals(None);
        if round > 0 || self.assigned_dynamic {
            st.havoc();
        } else {
            st.havoc_names = Some(std::sync::Arc::new(self.assigned.clone()));
            if self.cwd_changes {
                // They run in one of the directories the program went to.
                st.set_cwds(self.entered_cwds.clone());
                st.dirs = None;
            }
        }
        st
    }
}

/// The value a field gives a variable.
pub fn field_val(f: &Field) -> Val {
    if f.tainted {
        return Val::unknown();
    }
    if let Some(text) = f.known() {
        return Val::Known(text);
    }
    match f.alternatives() {
        Some((values, open)) if values.len() <= MAX_CHOICES => {
            Val::Choice { values: values.into_iter().collect(), open }
        }
        _ => Val::unknown(),
    }
}

/// The field a value expands to (quoted).
pub fn val_field(v: &Val) -> Field {
    let (values, open) = v.scalars();
    if !open && values.len() == 1 {
        return Field::literal(values.iter().next().map_or("", String::as_str));
    }
    if values.is_empty() {
        return Field::unknown();
    }
    Field {
        parts: vec![super::word::Part::Choice {
            values: values.into_iter().collect(),
            open,
            quoted: true,
            split: false,
        }],
        tainted: false,
        content: None,
    }
}

fn hash_text(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// The literal files a command's standard output is redirected to.
fn stdout_targets(redirects: &[&ast::IoRedirect]) -> Vec<String> {
    let mut out = Vec::new();
    for r in redirects {
        match r {
            ast::IoRedirect::File(fd, kind, ast::IoFileRedirectTarget::Filename(w))
                if fd.is_none_or(|f| f == 1)
                    && matches!(
                        kind,
                        ast::IoFileRedirectKind::Write
                            | ast::IoFileRedirectKind::Append
                            | ast::IoFileRedirectKind::Clobber
                    ) =>
            {
                out.push(w.value.clone());
            }
            ast::IoRedirect::OutputAndError(w, _) => out.push(w.value.clone()),
            _ => {}
        }
    }
    out.retain(|t| !t.contains(['$', '`', '\'', '"', '\\', '*', '?', '[', '~', '{']));
    out
}

/// Removes repeated items, keeping the first of each.
/// A simple command's text as written, on one line and at most [`COMMAND_TEXT_MAX`] characters.
fn command_text(c: &ast::SimpleCommand) -> Arc<str> {
    let text = c.to_string();
    if text.len() <= COMMAND_TEXT_MAX && !text.contains('\n') {
        return text.into();
    }
    let one_line = text.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(COMMAND_TEXT_MAX) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]).into(),
        None => one_line.into(),
    }
}

/// How much of a command's text an explanation repeats.
const COMMAND_TEXT_MAX: usize = 160;

fn dedup<T: Eq + std::hash::Hash>(items: Vec<T>) -> Vec<T> {
    // Which to keep is decided on references, so nothing is copied.
    let keep: Vec<bool> = {
        let mut seen: HashSet<&T> = HashSet::with_capacity_and_hasher(items.len(), Default::default());
        items.iter().map(|item| seen.insert(item)).collect()
    };
    items.into_iter().zip(keep).filter_map(|(item, keep)| keep.then_some(item)).collect()
}

fn strip_leading_tabs(text: &str) -> String {
    text.lines().map(|l| l.trim_start_matches('\t')).collect::<Vec<_>>().join("\n")
        + if text.ends_with('\n') { "\n" } else { "" }
}

/// Variables bash sets itself, whose values the analysis does not know.
fn is_dynamic_bash_var(name: &str) -> bool {
    super::word::NUMERIC_BASH_VARS.contains(&name)
        || matches!(
            name,
            "GROUPS"
                | "HOSTNAME"
                | "HOSTTYPE"
                | "OSTYPE"
                | "MACHTYPE"
                | "BASH"
                | "BASH_VERSION"
                | "BASH_VERSINFO"
                | "PIPESTATUS"
                | "FUNCNAME"
                | "BASH_SOURCE"
                | "BASH_LINENO"
                | "BASH_COMMAND"
                | "BASH_REMATCH"
                | "BASH_ARGV"
                | "BASH_ARGC"
                | "REPLY"
                | "OPTARG"
                | "COPROC"
                | "DIRSTACK"
                | "EPOCHREALTIME"
                | "_"
                | "BASH_SUBSHELL"
                | "HISTCMD"
                | "COLUMNS"
                | "LINES"
                | "MAPFILE"
                | "OLDPWD"
                | "BASHOPTS"
                | "SHELLOPTS"
        )
}

/// Whether a path is a container engine's control socket.
pub fn is_engine_socket(abs: &str) -> bool {
    let name = abs.rsplit('/').next().unwrap_or("");
    matches!(name, "docker.sock" | "podman.sock" | "containerd.sock" | "crio.sock" | "dockershim.sock")
}

fn first_unescaped_glob(pattern: &str) -> Option<usize> {
    let b = pattern.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'*' | b'?' | b'[' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Where the first character is that makes `pattern` a glob for bash's pathname expansion:
/// an unescaped `*` or `?`, or a `[` that a `]` closes later (a lone `[`, as in `[ -f x ]`,
/// is matched literally and lists nothing).
fn first_glob_pattern_char(pattern: &str) -> Option<usize> {
    let b = pattern.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'*' | b'?' => return Some(i),
            b'[' if b[i + 1..].contains(&b']') => return Some(i),
            _ => i += 1,
        }
    }
    None
}

fn unescape_glob(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The walk's own rules, each on a short program: how values join after branches and loops,
/// how functions see their arguments, how `cd` moves the paths after it.
#[cfg(test)]
mod tests {
    use super::super::{Certainty, Context, TextKind};
    use crate::environ::Environ;
    use crate::scope::Layout;

    /// W = /home/u/proj = cwd, HOME = /home/u.
    fn context() -> Context {
        let layout = Layout { workspace: "/home/u/proj".into(), home: Some("/home/u".into()), ..Default::default() };
        Context::plain(layout, Environ::from_pairs([("HOME", "/home/u"), ("PATH", "/usr/bin:/bin")]))
    }

    /// The paths `command` is known to touch in `text`, sorted.
    fn touched(text: &str, command: &str) -> Vec<String> {
        let a = super::analyze_program(text, TextKind::Command, &context());
        assert!(a.failure.is_none(), "{text}: {:?}", a.failure);
        let mut paths: Vec<String> = a
            .accesses
            .iter()
            .filter(|x| x.command == command && x.certainty == Certainty::Known && x.target.starts_with('/'))
            .filter(|x| x.target != "/home/u/proj")
            .map(|x| x.target.clone())
            .collect();
        paths.sort();
        paths.dedup();
        paths
    }

    /// The words the walk could not resolve in `text`.
    fn unresolved(text: &str) -> Vec<String> {
        super::analyze_program(text, TextKind::Command, &context()).unresolved.into_iter().map(|u| u.text).collect()
    }

    #[test]
    fn after_a_branch_a_variable_has_the_values_of_every_branch() {
        let text = "if test -n \"$1\"; then f=/etc/a; else f=~/b; fi\ncat \"$f\"";
        assert_eq!(touched(text, "cat"), ["/etc/a", "/home/u/b"]);
        let text = "case $1 in x) f=/etc/a;; y) f=/etc/b;; *) f=/etc/c;; esac; cat \"$f\"";
        assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b", "/etc/c"]);
        // A branch that does not run leaves the value before it.
        let text = "f=/etc/a; if false; then f=/etc/b; fi; cat \"$f\"";
        assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b"]);
    }

    #[test]
    fn a_loop_variable_takes_every_value_and_the_body_sees_each() {
        assert_eq!(touched("for f in /etc/a ~/b; do cat \"$f\"; done", "cat"), ["/etc/a", "/home/u/b"]);
        // What the body assigns reaches the next round and the code after the loop.
        let text = "d=/etc; for n in a b; do cat \"$d/$n\"; d=~; done; cat \"$d/c\"";
        assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b", "/etc/c", "/home/u/a", "/home/u/b", "/home/u/c"]);
    }

    #[test]
    fn a_function_sees_the_arguments_of_each_call() {
        let text = "show() { cat \"$1\"; }\nshow /etc/a\nshow ~/b";
        assert_eq!(touched(text, "cat"), ["/etc/a", "/home/u/b"]);
        // A function's own variables (local) do not leak; its globals do.
        let text = "f() { local x=/etc/in; g=/etc/out; }; x=/etc/before; f; cat \"$x\" \"$g\"";
        assert_eq!(touched(text, "cat"), ["/etc/before", "/etc/out"]);
        // Scopes are dynamic: a function the first calls sees its locals; `declare -g` is global.
        let text =
            "f() { local x=/etc/in; declare -g y=/etc/g; g; }; g() { cat \"$x\"; }; x=/etc/out; f; cat \"$x\" \"$y\"";
        assert_eq!(touched(text, "cat"), ["/etc/g", "/etc/in", "/etc/out"]);
    }

    #[test]
    fn cd_moves_relative_paths_and_a_subshell_keeps_its_cd() {
        assert_eq!(touched("cd /etc && cat fstab", "cat"), ["/etc/fstab"]);
        assert_eq!(touched("(cd /etc; cat a); cat b", "cat"), ["/etc/a", "/home/u/proj/b"]);
        assert_eq!(touched("cd ~/x; cd ..; cat y", "cat"), ["/home/u/y"]);
        // A directory the walk cannot know leaves the paths after it unresolved (an empty `$1`
        // would be known: `cd ""` stays).
        let text = "cd \"$(head -1 dirs)\"; cat notes";
        assert_eq!(touched(text, "cat"), Vec::<String>::new());
        assert!(unresolved(text).iter().any(|u| u.contains("notes")), "{:?}", unresolved(text));
    }
}
