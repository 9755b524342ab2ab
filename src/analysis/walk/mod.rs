//! The tree walk: an abstract run of the program that records what each command needs.
//!
//! The state follows bash where it can be known cheaply and soundly: variables assigned
//! literal values in straight-line code, the cwd through `cd`/`pushd`, positional parameters.
//! Branches are joined (a value that differs becomes unknown), loop bodies start from a state
//! where everything they assign is unknown, subshells and pipeline parts do not leak their
//! changes. Function bodies and trap actions are analysed at the end, when every assignment
//! of the program is known, and a function's needs count only if something can call it.
//!
//! This file holds the walker ([`Walker`]: everything it records and the bounds of its work),
//! the entry points, and the walk of a program's lists, pipelines and commands, which hands
//! each kind of command to the room that knows it. The rooms, one file each: `state.rs` (values,
//! the state and its joins), `record.rs` (what the walk records), `variables.rs`, `texts.rs`
//! (nested code and the parse ahead), `scripts.rs` (files bash runs as code), `compound.rs`,
//! `simple.rs`, `redirects.rs`, `paths.rs` (a word as a path, and what an access needs),
//! `calls.rs` (running a command), `functions.rs` (functions, aliases, traps), `jumps.rs` (`return`,
//! `break`, `continue`), `cwd.rs`,
//! `builtins.rs`, `finish.rs` (the end of the walk) and `tests.rs`.

mod ahead;
mod branches;
mod builtins;
mod calls;
mod compound;
mod cwd;
mod finish;
mod functions;
mod jumps;
mod paths;
mod record;
mod redirects;
mod scripts;
mod simple;
mod state;
#[cfg(test)]
mod tests;
mod texts;
mod variables;

use std::collections::BTreeSet;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use brush_parser::ast;

use super::parse;
use super::programs::{Nest, Stdin};
use super::{Access, Analysis, Bound, CommandUse, Context, Failure, Pos, TextKind, Unresolved};
use scripts::strip_shebang;
use state::Vars;
use texts::PARSE_AHEAD_FROM;
pub use variables::Download;

pub(super) use builtins::builtin;
pub(super) use jumps::Jump;
pub use scripts::literal_startup;
pub(super) use state::{MAX_CHOICES, State, Val, field_val};
pub(super) use variables::LOADER_VARS;

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
    /// Where each access is in `accesses`, by a hash of what makes it the same need (see
    /// [`Access::more`]).
    same: HashMap<u64, usize>,
    /// The places of each access (beside `accesses`; its own first), each once.
    places: Vec<Vec<Place>>,
    /// Which access has which place already (an index into `accesses`, and the place).
    placed: HashSet<(usize, Place)>,
}

/// A position, and the file it is in (see [`Origin::file`]).
type Place = (Pos, Option<u32>);

/// Items in the order they were first recorded, each once. A body walked again records the
/// same commands again (nvm.sh's `nvm` records 72,000 where 3,000 differ): kept only once,
/// the copies are dropped at once rather than held to the end, and found by a hash of what
/// they are made of before anything is made for them.
struct Distinct<T> {
    items: Vec<T>,
    /// Where the items of each hash are in `items`.
    by_hash: HashMap<u64, Vec<usize>>,
}

impl<T> Default for Distinct<T> {
    fn default() -> Self {
        Distinct { items: Vec::new(), by_hash: HashMap::default() }
    }
}

/// The hash [`Distinct`] files an item by: of the parts the item is made of, hashed in
/// their order.
fn hash_of(parts: impl std::hash::Hash) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    parts.hash(&mut h);
    h.finish()
}

impl<T> Distinct<T> {
    /// Adds the item `make` makes, unless one that `same` says is it was recorded already;
    /// `hash` is the hash of what `same` compares.
    fn push_with(&mut self, hash: u64, same: impl Fn(&T) -> bool, make: impl FnOnce() -> T) {
        let at = self.by_hash.entry(hash).or_default();
        if at.iter().any(|&i| same(&self.items[i])) {
            return;
        }
        at.push(self.items.len());
        self.items.push(make());
    }

    fn len(&self) -> usize {
        self.items.len()
    }

    /// Forgets the items recorded after the first `len` (they may be recorded again).
    fn truncate(&mut self, len: usize) {
        if len >= self.items.len() {
            return;
        }
        self.items.truncate(len);
        self.by_hash.retain(|_, at| {
            at.retain(|&i| i < len);
            !at.is_empty()
        });
    }

    fn into_vec(self) -> Vec<T> {
        self.items
    }
}

/// A function definition, analysed at the end.
struct FunctionDef {
    name: String,
    body: std::sync::Arc<ast::FunctionBody>,
    origin: Origin,
    /// The text the body was parsed from.
    source: Option<std::sync::Arc<str>>,
    sink: usize,
}

/// The walker: the abstract interpreter and everything it records.
pub struct Walker<'c> {
    pub ctx: &'c Context,
    failure: Option<Failure>,
    origin: Origin,
    /// The text being walked, as parsed (commands are quoted from it).
    source: Option<std::sync::Arc<str>>,
    nested_texts: usize,
    /// Request lines that begin texts handed to `eval` or `bash -c`.
    requests: Vec<String>,
    /// Files read as code, with the SHA-256 of what was read.
    texts_read: Vec<(String, String)>,
    /// Walking on the caller's own (small) stack: anything deeper than the shallow bounds
    /// stops the walk, and the analysis starts again on a big stack.
    shallow: bool,
    /// The program's own text is parsed ahead, in pieces, on a second thread.
    parse_ahead: bool,
    parses: usize,
    parsed_bytes: usize,
    quiet: u32,
    /// Inside code whose accesses are only possible (see [`Certainty::Possible`](super::Certainty::Possible)).
    possible: u32,
    /// A possible execute is an exec the kernel holds (see [`Self::possibly_exec`]).
    exec_held: bool,
    /// The words whose command substitutions are being walked, innermost last (to show the
    /// whole word where the parser cuts one short).
    pub expanding: Vec<String>,
    /// The variables whose values arithmetic is evaluating, innermost last (bash evaluates
    /// a value that is itself an expression, to a bound).
    pub arithmetic_values: Vec<String>,
    loop_depth: usize,
    /// Accesses recorded that need their bit whatever the kernel holds, repeats included.
    required_recorded: usize,
    sink: usize,
    sinks: Vec<Sink>,
    commands: Distinct<CommandUse>,
    unresolved: Distinct<Unresolved>,
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
    /// The files the last redirections walked send standard output to (`None`: one whose name
    /// is not known).
    stdout_to: Vec<crate::analysis::word::Arg>,
    /// Every variable given fetched text anywhere (for code walked on its own).
    tainted_ever: HashSet<String>,
    /// Functions some call gave a fetched argument (by name: a trap may call an earlier
    /// definition), and whether positional parameters were set from fetched text (`set --`,
    /// `source FILE ARGS`: a trap may run where they were).
    given_fetched: HashMap<String, (Vec<usize>, Option<usize>)>,
    /// The functions whose entry there grew since the bodies walked on their own began a pass.
    given_changed: HashSet<String>,
    params_fetched: bool,
    /// Some command was given a fetched argument (`command_not_found_handle` gets the words
    /// of one not found).
    fetched_args: bool,
    /// While a body is walked on its own: which (a function's index; `None` for a trap).
    deferred_body: Option<Option<usize>>,
    /// Code that always counts runs fetched code already: what more fetched text reaches
    /// changes no verdict, and is not followed in bodies walked on their own.
    fetched_code_known: bool,
    /// What such bodies read as not fetched that came from outside them: the hashes of the
    /// variables' names, and the bodies that read their own parameters. Text fetched later in
    /// the same round reaching one of them makes the round walk again.
    read_clean: HashSet<(u64, Option<usize>)>,
    params_read_clean: HashSet<Option<usize>>,
    /// Every file the program may have saved fetched text to, and whether it may have saved
    /// some it cannot name (for code walked on its own, as for variables); whether the body
    /// being walked on its own asked of a file and found it not downloaded, and the bodies
    /// that did.
    downloaded_ever: HashSet<String>,
    /// The names of files saved where the walk could not tell the directory.
    downloaded_names: HashSet<String>,
    /// `chmod` may have made a file saved with fetched text executable: a command named only
    /// at run time may be that file.
    pub(super) downloads_executable: bool,
    /// Words not known whole that name files fetched text was saved to (see
    /// `variables::word_key`).
    downloaded_words: HashSet<String>,
    pub(crate) asked_downloads: std::cell::Cell<bool>,
    bodies_asked_downloads: HashSet<Option<usize>>,
    pub(crate) pending_taint: bool,
    /// The command being walked read a file saved with fetched text: what it prints may be
    /// fetched text (for a pipe or a substitution; a file it writes is not followed).
    read_saved: bool,
    /// The files the command being walked writes, as its words name them: where it read fetched
    /// text (its input, its words, a file saved with some), each may hold that text.
    written_now: Vec<crate::analysis::word::Arg>,
    /// Descriptors a redirection may have opened on a file saved with fetched text (`exec 3<
    /// FILE`; 0 after `exec < FILE`): what is read from them is fetched text. Never cleared.
    pub(crate) fetched_fds: Vec<i32>,
    /// The command being walked extracts files the walk cannot name (into the cwd, or a
    /// directory an option names).
    pub(crate) extracts_now: bool,
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
    /// Texts the parsing thread parsed ahead (see `ahead`), taken into `parse_cache` when the
    /// walk first parses them: until then they count as not parsed (`admit_text`).
    prepared_programs: HashMap<String, ast::Program>,
    /// Parsed words, by text.
    pub word_cache: HashMap<String, std::rc::Rc<Vec<brush_parser::word::WordPieceWithSource>>>,
    /// The same for here-document bodies, which split differently (quotes are plain text).
    pub heredoc_cache: HashMap<String, std::rc::Rc<Vec<brush_parser::word::WordPieceWithSource>>>,
    /// What each function may change, read from its syntax, by function index.
    function_effects: HashMap<usize, super::effects::Effects>,
    /// What a call of each function may change with the functions it calls, by name: the same
    /// until a function is defined again, so it is gathered once (a library of a hundred
    /// functions calling each other has it asked for at most of its calls).
    call_effects: HashMap<String, std::rc::Rc<super::effects::Effects>>,
    /// Links the program creates (link path, where it leads), and paths resolved on disk.
    links: Vec<(String, String)>,
    canonical_cache: HashMap<String, Option<String>>,
    /// What the layout makes of each path asked, for reading and for writing: the layout does
    /// not change during a walk, and the same paths are asked again and again.
    classes: [HashMap<String, crate::scope::Class>; 2],
    /// Functions whose bodies were walked at a call, and those whose call was not followed.
    function_walked: HashSet<usize>,
    function_skipped: HashSet<usize>,
    /// Function calls followed into their bodies so far.
    calls_followed: usize,
    /// Variables a trap action may assign where it can run between any two commands (a
    /// signal's, `ERR`, `DEBUG`, `RETURN`): their values may change at any time after it is
    /// set. All of them when such an action's effects cannot be read. The commands those
    /// actions run, so that a function of that name defined later adds its assignments too.
    volatile: HashSet<String>,
    /// Every name declared a reference (`declare -n`): a trap assigning one may change any.
    pub(super) reference_names: HashSet<String>,
    /// For each function call being walked, the assignments before its name (`X=v f`) with the
    /// values they hide: `unset X` inside brings the hidden value back.
    prefix_frames: Vec<Vec<(String, state::Val)>>,
    /// `set -k` may be on: a `NAME=VALUE` argument may be an assignment for the command.
    pub keyword_args: bool,
    volatile_all: bool,
    volatile_calls: HashSet<String>,
    /// Such an action may change the positional parameters, or the working directory.
    pub volatile_positional: bool,
    volatile_cwd: bool,
    /// A reference whose target is not a plain name was declared: `"$r"` may be several fields.
    pub list_references: bool,
    /// For each call being followed: the variables as it found them, and the names it made its
    /// own with `local`.
    local_frames: Vec<(Vars, Vec<String>)>,
    /// The calls, sourced files and loop passes being walked, with the states their jumps
    /// (`return`, `break`, `continue`) left them in.
    jumps: Vec<jumps::Frame>,
}

/// The bounds of a walk on the caller's stack: texts at most this long and this deep, nested
/// texts and function calls at most this far. A test checks that the worst case within them
/// fits in [`SHALLOW_STACK_BYTES`].
pub const SHALLOW_TEXT_BYTES: usize = 2048;
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

/// Runs the analysis of a whole program text.
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

/// Most commands and compound commands walked for one program.
const MAX_STEPS: usize = 2_000_000;

impl<'c> Walker<'c> {
    fn new(ctx: &'c Context) -> Walker<'c> {
        Walker {
            ctx,
            failure: None,
            origin: Origin { base: Pos { line: 1, column: 1 }, verbatim: true, file: None },
            source: None,
            nested_texts: 0,
            requests: Vec::new(),
            texts_read: Vec::new(),
            parses: 0,
            parsed_bytes: 0,
            quiet: 0,
            possible: 0,
            exec_held: false,
            expanding: Vec::new(),
            arithmetic_values: Vec::new(),
            loop_depth: 0,
            stdout_to: Vec::new(),
            tainted_ever: HashSet::default(),
            given_fetched: HashMap::default(),
            given_changed: HashSet::default(),
            params_fetched: false,
            fetched_args: false,
            deferred_body: None,
            fetched_code_known: false,
            read_clean: HashSet::default(),
            params_read_clean: HashSet::default(),
            downloaded_ever: HashSet::default(),
            downloaded_names: HashSet::default(),
            downloads_executable: false,
            downloaded_words: HashSet::default(),
            read_saved: false,
            written_now: Vec::new(),
            fetched_fds: Vec::new(),
            extracts_now: false,
            asked_downloads: std::cell::Cell::new(false),
            bodies_asked_downloads: HashSet::default(),
            required_recorded: 0,
            sink: 0,
            sinks: vec![Sink::default()],
            commands: Distinct::default(),
            unresolved: Distinct::default(),
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
            jumps: Vec::new(),
            file_stack: Vec::new(),
            file_names: Vec::new(),
            text_stack: Vec::new(),
            steps: 0,
            input_len: 0,
            parse_cache: HashMap::default(),
            prepared_programs: HashMap::default(),
            word_cache: HashMap::default(),
            heredoc_cache: HashMap::default(),
            function_effects: HashMap::default(),
            call_effects: HashMap::default(),
            function_walked: HashSet::default(),
            links: Vec::new(),
            canonical_cache: HashMap::default(),
            classes: Default::default(),
            function_skipped: HashSet::default(),
            calls_followed: 0,
            volatile: HashSet::default(),
            reference_names: HashSet::default(),
            prefix_frames: Vec::new(),
            keyword_args: false,
            volatile_all: false,
            volatile_calls: HashSet::default(),
            volatile_positional: false,
            volatile_cwd: false,
            list_references: false,
        }
    }

    /// The layout's class of `path` (see [`crate::scope::Layout::classify`]), kept.
    pub fn classify(&mut self, path: &str, write: bool) -> crate::scope::Class {
        let kept = &mut self.classes[usize::from(write)];
        if let Some(&class) = kept.get(path) {
            return class;
        }
        let class = self.ctx.layout.classify(path, write);
        kept.insert(path.to_string(), class);
        class
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
                st.keep_saved_files(&inner);
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
            st.keep_saved_files(&inner);
            if self.failed() {
                return;
            }
        }
    }

    fn command(&mut self, c: &ast::Command, st: &mut State, stdin: Stdin) {
        match c {
            ast::Command::Simple(s) => self.simple(s, st, stdin),
            ast::Command::Compound(cc, None) => self.compound(cc, st, stdin),
            ast::Command::Compound(cc, Some(r)) => {
                self.stdout_to.clear();
                let stdin = self.redirects(&r.0, "", st, stdin);
                let stdout_to = std::mem::take(&mut self.stdout_to);
                // What its commands print goes to the files it redirects to: fetched text
                // printed there saves them (`{ cat saved; } > g`).
                let fetched_before = std::mem::replace(&mut self.fetched, false);
                self.compound(cc, st, stdin);
                if self.fetched {
                    for target in &stdout_to {
                        self.note_download_to(target, st);
                    }
                }
                self.fetched |= fetched_before;
            }
            ast::Command::Function(f) => {
                st.defined.insert(f.fname.value.clone());
                self.define_function(f, st);
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
}
