//! The abstract shell state at one point of the program: the values variables may have
//! ([`Val`]), the cwd and the directory stack, the positional parameters, and what the
//! program exported, defined and downloaded ([`State`]); how the states of two paths through
//! the program join, and what code the analysis cannot see makes unknown.

use std::collections::BTreeSet;
use std::rc::Rc;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::analysis::Context;
use crate::analysis::word::{Arg, Field, Part};

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
pub(super) type Name = Rc<str>;
/// The variables and their values.
pub(super) type Vars = imbl::OrdMap<Name, Rc<Val>>;

/// The abstract shell state at one point of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// Names and values are shared, not copied, when a branch of the walk first changes a map
    /// node it shares with another (the map copies the node's entries then).
    pub(super) vars: Vars,
    /// Names the program exports; the caller's environment (`Context::env`) is exported too,
    /// without being copied here (see [`Walker::is_exported`](super::Walker::is_exported)).
    pub(super) exported: imbl::OrdSet<String>,
    /// Names declared with `declare -n`, and the variable each refers to.
    pub(super) namerefs: HashMap<String, String>,
    /// The cwd, when known.
    pub cwd: Option<String>,
    /// When `cwd` is not known: the few directories it may be (after branches that end in
    /// different directories, or a `cd` that searches `CDPATH`), or `None` when it could be
    /// anywhere.
    pub(super) cwd_alts: Option<Rc<BTreeSet<String>>>,
    pub(super) dirs: Option<Vec<Option<String>>>,
    /// `$1…`; `positional_open` when there may be more than these, or they are not known.
    pub(super) positional: Vec<Val>,
    pub(super) positional_open: bool,
    pub arg0: String,
    /// Every variable not in `vars` is unknown (after code the analysis could not see).
    pub(super) all_unknown: bool,
    /// Variables not in `vars` that are unknown (for code that runs at times the walk cannot
    /// know: every variable the program assigns anywhere).
    pub(super) havoc_names: Option<std::sync::Arc<HashSet<String>>>,
    /// Files this program downloaded, so running them later is running fetched code.
    pub downloaded: imbl::OrdSet<String>,
    /// Words not known whole that name files this program saved fetched text to, while the
    /// variables they expand keep their value (see `variables::word_key`).
    pub saved_words: imbl::OrdSet<String>,
    /// A call read only from its syntax may have downloaded files the walk cannot name: any
    /// file run after it may be fetched code.
    pub downloads_unknown: bool,
    /// Variables that may hold text fetched from the network (`v=$(curl …)`).
    pub tainted: imbl::OrdSet<String>,
    /// Every variable whose value is not known here may hold fetched text (code that runs at
    /// times the walk cannot know, in a program that fetches).
    pub(super) all_fetched: bool,
    /// The positional parameters that may hold fetched text (`$1` is 0), and the first from
    /// which every one may (after an argument of unknown field count that was fetched).
    pub tainted_params: Vec<usize>,
    pub tainted_params_from: Option<usize>,
    /// Functions defined on every path that leads here (so a program of that name does not
    /// run instead).
    pub defined: imbl::OrdSet<String>,
}

impl State {
    pub(super) fn new(ctx: &Context) -> State {
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
            saved_words: imbl::OrdSet::new(),
            downloads_unknown: false,
            all_fetched: false,
            tainted: imbl::OrdSet::new(),
            tainted_params: Vec::new(),
            tainted_params_from: None,
            defined: imbl::OrdSet::new(),
        }
    }

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

    /// Drops the relative names kept by [`relative_save_key`] (they sort first): `cd`, `pushd`
    /// or `popd` moved the cwd, and they name other files from here on. (Code that may or may
    /// not have moved it, such as code the analysis cannot see, keeps them: the file may be the
    /// same.)
    pub(super) fn forget_relative_saves(&mut self) {
        let kept: Vec<String> = self.saved_words.iter().take_while(|k| k.starts_with(RELATIVE_SAVE)).cloned().collect();
        for k in kept {
            self.saved_words.remove(&k);
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

    pub(super) fn unset_var(&mut self, name: &str) {
        let target = self.resolve_name(name);
        self.vars.insert(Name::from(target.as_ref()), Rc::new(Val::Unset));
    }

    /// Follows `declare -n` references.
    pub(crate) fn resolve_name<'a>(&self, name: &'a str) -> std::borrow::Cow<'a, str> {
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

    /// Whether `$n` is set (1-based): `None` when their number is not known and `n` is past
    /// those known.
    pub fn positional_is_set(&self, n: usize) -> Option<bool> {
        if n <= self.positional.len() {
            Some(true)
        } else if self.positional_open {
            None
        } else {
            Some(false)
        }
    }

    /// All positional parameters, when their number is known.
    pub fn all_positional(&self) -> Option<Vec<Val>> {
        if self.positional_open { None } else { Some(self.positional.clone()) }
    }

    /// Sets the positional parameters to what `args` expand to: each one's value up to the
    /// first that may make no field or several (an unquoted expansion not known, `"$@"`, a
    /// glob), and after it any number of unknown ones.
    /// `references`: a reference may list an array (`declare -n r='a[@]'` makes `"$r"` several
    /// fields), so no expansion is sure to be one field.
    pub fn set_positional_args(&mut self, args: &[Arg], ifs: Option<&str>, references: bool) {
        let mut values = Vec::with_capacity(args.len());
        let references = references || !self.namerefs.is_empty();
        for arg in args {
            if !one_field(arg, ifs) || (references && arg.raw.contains('$')) {
                let exact = values.len();
                self.positional = values;
                self.positional_open = true;
                self.set_param_taint(args, exact);
                return;
            }
            values.push(field_val(&arg.field));
        }
        self.set_positional_vals(Some(values));
        self.set_param_taint(args, args.len());
    }

    /// Which parameters set from `args` may hold fetched text: those known one field each up
    /// to `exact`, and every one from the first fetched argument after that.
    fn set_param_taint(&mut self, args: &[Arg], exact: usize) {
        self.tainted_params = (0..exact.min(args.len())).filter(|&i| args[i].field.tainted).collect();
        self.tainted_params_from = args.iter().skip(exact).any(|a| a.field.tainted).then_some(exact);
    }

    /// Whether `$n` (from 1) may hold fetched text; `None`: whether any may.
    pub fn param_tainted(&self, n: Option<usize>) -> bool {
        match n {
            Some(n) if n >= 1 => {
                self.tainted_params.contains(&(n - 1)) || self.tainted_params_from.is_some_and(|from| n > from)
            }
            Some(_) => false,
            None => !self.tainted_params.is_empty() || self.tainted_params_from.is_some(),
        }
    }

    /// The parameters moved down by `n` (`shift`), or not known any more (`None`).
    pub fn shift_param_taint(&mut self, n: Option<usize>) {
        match n {
            Some(n) => {
                self.tainted_params = self.tainted_params.iter().filter(|&&i| i >= n).map(|i| i - n).collect();
                self.tainted_params_from = self.tainted_params_from.map(|f| f.saturating_sub(n));
            }
            None if self.param_tainted(None) => self.tainted_params_from = Some(0),
            None => {}
        }
    }

    pub fn set_positional_vals(&mut self, values: Option<Vec<Val>>) {
        match values {
            Some(v) => {
                self.positional = v;
                self.positional_open = false;
                self.tainted_params.clear();
                self.tainted_params_from = None;
            }
            None => {
                self.positional = Vec::new();
                self.positional_open = true;
                self.shift_param_taint(None);
            }
        }
    }

    /// Merges the state of another path through the program: what differs becomes the set of
    /// both values (or unknown, past a few). `default` gives a variable's starting value.
    /// The positional parameters that may hold fetched text here or in `other`.
    pub(super) fn join_tainted_params(&mut self, other: &State) {
        for &i in &other.tainted_params {
            if !self.tainted_params.contains(&i) {
                self.tainted_params.push(i);
            }
        }
        self.tainted_params_from = match (self.tainted_params_from, other.tainted_params_from) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }

    pub(super) fn join_with(&mut self, other: &State, default: &dyn Fn(&str, &State) -> Val) {
        // Only what differs between the two paths needs joining; shared parts are skipped. A
        // value the join leaves as it was is not set again: the map keeps sharing it with the
        // states it came from, so later joins and comparisons skip it too.
        let mut changes: Vec<(Name, Val)> = Vec::new();
        for item in self.vars.diff(&other.vars) {
            let (k, joined, was) = match item {
                imbl::ordmap::DiffItem::Update { old: (k, a), new: (_, b) } => (k, a.join(b), Some(a)),
                imbl::ordmap::DiffItem::Remove(k, a) => (k, a.join(&default(k, other)), Some(a)),
                // Not set on this path: its value here is the default, which later code may
                // change (the cwd for `PWD`), so the join is set even when it is that value.
                imbl::ordmap::DiffItem::Add(k, b) => (k, default(k, self).join(b), None),
            };
            if was.is_none_or(|a| **a != joined) {
                changes.push((k.clone(), joined));
            }
        }
        for (k, v) in changes {
            self.vars.insert(k, Rc::new(v));
        }
        union_into(&mut self.exported, &other.exported);
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
        self.downloads_unknown |= other.downloads_unknown;
        self.all_fetched |= other.all_fetched;
        self.join_tainted_params(other);
        union_into(&mut self.tainted, &other.tainted);
        union_into(&mut self.downloaded, &other.downloaded);
        union_into(&mut self.saved_words, &other.saved_words);
        intersect_into(&mut self.defined, &other.defined);
    }

    /// The files saved with fetched text that code run in a subshell or in the background
    /// (`state`) left: files outlast the process that wrote them.
    pub(super) fn keep_saved_files(&mut self, state: &State) {
        union_into(&mut self.downloaded, &state.downloaded);
        union_into(&mut self.saved_words, &state.saved_words);
        self.downloads_unknown |= state.downloads_unknown;
    }

    /// Forgets everything about variables and the cwd (after code the analysis cannot see).
    /// Every variable may have any value now (the cwd and the positional parameters stay).
    pub(super) fn havoc_variables(&mut self) {
        self.vars.clear();
        self.namerefs.clear();
        self.all_unknown = true;
    }

    pub(super) fn havoc(&mut self) {
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

/// What starts a key of [`State::saved_words`] that is a relative file name, not a word: no
/// word or path holds it.
const RELATIVE_SAVE: char = '\0';

/// The key under which `saved_words` keeps the relative file name `name` a save of fetched
/// text used: where the cwd is not known, the same name names the same file until `cd`,
/// `pushd` or `popd` moves the cwd. (`./f`, `f` and `.//f` are one name.)
pub(super) fn relative_save_key(name: &str) -> String {
    let mut key = String::from(RELATIVE_SAVE);
    for part in name.split('/').filter(|p| !p.is_empty() && *p != ".") {
        if key.len() > 1 {
            key.push('/');
        }
        key.push_str(part);
    }
    key
}

/// `to` made the union of `to` and `from`. The walk of what differs skips the parts of the two
/// sets that are shared; where `from` holds all of `to`, `to` becomes `from` and shares all of
/// it (its later joins are then free). (imbl's own union inserts every element of the smaller
/// set, each insert a copy of a path of the tree: with hundreds of names in two sets that are
/// nearly the same, most of the walk's time on long programs.)
pub(super) fn union_into<A: Ord + Clone>(to: &mut imbl::OrdSet<A>, from: &imbl::OrdSet<A>) {
    if to.ptr_eq(from) {
        return;
    }
    let mut added = Vec::new();
    let mut only_here = false;
    for item in to.diff(from) {
        match item {
            imbl::ordset::DiffItem::Add(x) => added.push(x.clone()),
            imbl::ordset::DiffItem::Remove(_) => only_here = true,
        }
    }
    if !only_here {
        *to = from.clone();
        return;
    }
    for x in added {
        to.insert(x);
    }
}

/// `to` made the intersection of `to` and `from`, as [`union_into`] makes the union.
pub(super) fn intersect_into<A: Ord + Clone>(to: &mut imbl::OrdSet<A>, from: &imbl::OrdSet<A>) {
    if to.ptr_eq(from) {
        return;
    }
    let mut removed = Vec::new();
    let mut only_there = false;
    for item in to.diff(from) {
        match item {
            imbl::ordset::DiffItem::Remove(x) => removed.push(x.clone()),
            imbl::ordset::DiffItem::Add(_) => only_there = true,
        }
    }
    if !only_there {
        *to = from.clone();
        return;
    }
    for x in removed {
        to.remove(&x);
    }
}

/// Whether an argument is surely one field in bash: a word wholly in double quotes that lists
/// nothing (`"$@"` and `"${!name}"` may); otherwise known text without a character a glob or
/// an extended glob reads outside quotes, and, where the word expands something, a choice of
/// texts none of which is empty or holds a separator of `ifs` (`None`: `IFS` is not known, and
/// nothing expanded outside quotes is sure).
fn one_field(arg: &Arg, ifs: Option<&str>) -> bool {
    let raw = arg.raw.as_str();
    if raw.len() >= 2
        && raw.starts_with('"')
        && raw.ends_with('"')
        && raw.matches('"').count() == 2
        && !raw.contains('@')
        && !raw.contains("${!")
    {
        return true;
    }
    let expands = raw.contains(['$', '`']);
    let ifs = match ifs {
        Some(ifs) => ifs,
        None if expands => return false,
        None => " \t\n",
    };
    let glob = |t: &str| t.contains(['*', '?', '[', '(']);
    // Text an expansion gave outside quotes is split on IFS (`${x:-a b}`) where the walk may
    // not have split it.
    let separated = |t: &str| expands && t.contains(|c| ifs.contains(c));
    arg.field.parts.iter().all(|part| match part {
        Part::Lit { text, quoted, .. } => *quoted || !(glob(text) || separated(text)),
        Part::Choice { values, open, quoted, split } => {
            (*quoted && !*split)
                || (!*open && values.iter().all(|v| !v.is_empty() && !glob(v) && !v.contains(|c| ifs.contains(c))))
        }
        Part::Unknown { .. } | Part::Break => false,
    })
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
        parts: vec![crate::analysis::word::Part::Choice {
            values: values.into_iter().collect(),
            open,
            quoted: true,
            split: false,
        }],
        tainted: false,
        content: None,
    }
}
