//! Variables: the value of one where the program has not assigned it (the environment's, or
//! unknown for the ones bash sets itself), assignments and what some of them do (the mode
//! variable, the dynamic loader's variables), exports and the state a new shell starts with,
//! and the positional parameters.

use std::rc::Rc;

use super::Walker;
use super::state::{Name, State, Val, field_val};
use crate::analysis::glob::fnmatch;
use crate::analysis::word::{Field, Part};
use crate::mode::{MODE_VAR, Mode, Perm, Scope};
use crate::scope::{self, Class};

/// The last component of a path.
fn last_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A file saved with fetched text that a file named only at run time may be.
pub enum Download {
    /// The file at this path.
    Path(String),
    /// A file of this name, in a directory the walk does not know.
    Name(String),
    /// The file this word names, which the same word named where fetched text was saved.
    Word(String),
}

impl Download {
    /// The need's target and reason.
    pub fn need(&self) -> (String, &'static str) {
        match self {
            Download::Path(p) => (
                p.clone(),
                "runs a file named only at run time, which may be this file the program saves fetched text to",
            ),
            Download::Word(w) => (
                w.clone(),
                "runs the file this word names, and the program saves fetched text to the file the same word names",
            ),
            Download::Name(n) => (
                n.clone(),
                "runs a file named only at run time, which may be a file of this name the program saves fetched text to",
            ),
        }
    }
}

/// A word as the same file's name, wherever it is written: without double quotes and with
/// `$name` as `${name}`. Only a word that expands a variable (`"$tmp"`, `"$dir/x.sh"`) names the
/// same file twice; a command substitution may not.
pub(super) fn word_key(raw: &str) -> Option<String> {
    if !raw.contains('$') || raw.contains(['`', '(', '\'', '[', '@', '*', '#', '?', '!']) {
        return None;
    }
    let mut key = String::new();
    let mut rest = raw;
    while let Some(c) = rest.chars().next() {
        // `${name}` or `$name`, as `${name}`; a positional parameter is the running
        // function's own.
        let expansion = match rest.strip_prefix("${") {
            Some(after) => after.find('}').map(|end| (&after[..end], &after[end + 1..])),
            None => rest.strip_prefix('$').map(|after| {
                let len = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
                (&after[..len], &after[len..])
            }),
        };
        if rest.starts_with('$') {
            let (name, after) = expansion?;
            if !crate::analysis::word::is_name(name) {
                return None;
            }
            key.push_str("${");
            key.push_str(name);
            key.push('}');
            rest = after;
            continue;
        }
        if c != '"' {
            key.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    Some(key)
}

/// Whether a symbolic `chmod` clause (`u+x`, `go-w+x`, `g=u`) may add execute.
fn adds_execute_bits(clause: &str) -> bool {
    let mut adding = false;
    for c in clause.trim_start_matches(['u', 'g', 'o', 'a']).chars() {
        match c {
            '+' | '=' => adding = true,
            '-' => adding = false,
            'x' | 'X' | 's' | 'u' | 'g' | 'o' if adding => return true,
            _ => {}
        }
    }
    false
}

/// What a word key holds where it expands the variable `name`.
fn expansion_of(name: &str) -> String {
    format!("${{{name}}}")
}

/// `text` added to a shell pattern: as itself when `quoted`, else with its glob characters.
fn push_pattern(pattern: &mut String, text: &str, quoted: bool) {
    if quoted {
        push_escaped(pattern, text);
    } else {
        pattern.push_str(text);
    }
}

/// The pattern `text` (NUL where a part not known was) as an absolute one, or one starting
/// with `*`: relative to `cwd` where that is known, with `.` and `..` resolved where the
/// component before is known text; else the last component alone, in any directory.
fn anchored(text: &str, cwd: Option<&str>) -> String {
    let any_dir = |rest: &str| format!("*/{}", rest.rsplit('/').next().unwrap_or(rest));
    if let Some(i) = text.rfind('\0') {
        let rest = &text[i + 1..];
        return if rest.contains("..") { any_dir(rest) } else { format!("*{rest}") };
    }
    let full = if text.starts_with('/') {
        text.to_string()
    } else {
        match cwd {
            Some(cwd) => {
                let mut full = String::new();
                push_escaped(&mut full, cwd.trim_end_matches('/'));
                full.push('/');
                full.push_str(text);
                full
            }
            None => return any_dir(text),
        }
    };
    let mut parts: Vec<&str> = Vec::new();
    for c in full.split('/') {
        match c {
            "" | "." => {}
            ".." => match parts.pop() {
                Some(prev) if !prev.contains(['*', '?', '[', '\\']) => {}
                _ => return any_dir(text),
            },
            c => parts.push(c),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `text` added to a shell pattern as itself.
fn push_escaped(pattern: &mut String, text: &str) {
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
}

/// The name under which a read through a reference is noted, and fetched text given to a name
/// not known is: any variable may be it.
const ANY_NAME: &str = "";

/// Variables that make the dynamic loader map code into the programs started with them.
pub const LOADER_VARS: &[&str] =
    &["LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH", "GCONV_PATH", "OPENSSL_MODULES", "OPENSSL_CONF"];

impl Walker<'_> {
    /// A variable's value where the program has not assigned it: the environment's, or unset.
    fn default_val(&self, name: &str, st: &State) -> Val {
        if st.all_unknown || st.havoc_names.as_ref().is_some_and(|h| h.contains(name)) {
            return Val::unknown();
        }
        match name {
            "PWD" => return self.cwd_val(st),
            "IFS" => return Val::Known(" \t\n".into()),
            // The bash this program runs in: the real one, which sandbox-bash starts.
            "BASH" => {
                if let Some(bash) = &self.ctx.bash {
                    return Val::Known(bash.to_string_lossy().into_owned());
                }
            }
            _ => {}
        }
        if is_dynamic_bash_var(name) {
            return Val::unknown();
        }
        match crate::analysis::asked::env_var(&self.ctx.env, name) {
            Some(v) => Val::Known(v.to_string_lossy().into_owned()),
            None => Val::Unset,
        }
    }

    /// A variable's value as far as it is known.
    pub fn var_val(&self, name: &str, st: &State) -> Val {
        let name = st.resolve_name(name);
        let val = match st.vars.get(name.as_ref()) {
            Some(v) => Val::clone(v),
            None => self.default_val(&name, st),
        };
        // A trap may have changed it since (see `volatile`).
        if self.volatile_all || (!self.volatile.is_empty() && self.volatile.contains(name.as_ref())) {
            return val.join(&Val::unknown());
        }
        val
    }

    /// Whether `name` may hold text fetched from the network. In a body walked on its own, a
    /// variable it did not assign may have been given fetched text anywhere in the program
    /// (asked as the walk goes: a body walked later may be the one that fetches).
    pub fn var_fetched(&mut self, name: &str, st: &State) -> bool {
        let target = st.resolve_name(name);
        if !st.tainted.is_empty() && st.tainted.contains(target.as_ref()) {
            return true;
        }
        if st.all_fetched && !matches!(self.var_val(name, st), Val::Known(_) | Val::Array(_) | Val::Unset) {
            return true;
        }
        // A value that may still be the one from outside (not assigned here, or on some paths
        // only): a reference may name any variable.
        if let Some(body) = self.deferred_body
            && !self.fetched_code_known
            && !matches!(self.var_val(name, st), Val::Known(_) | Val::Array(_) | Val::Unset)
        {
            if self.tainted_ever.contains(target.as_ref())
                || self.tainted_ever.contains(ANY_NAME)
                || (self.reference_names.contains(name) && !self.tainted_ever.is_empty())
            {
                return true;
            }
            self.read_clean.insert((super::hash_of(target.as_ref()), body));
            if self.reference_names.contains(name) {
                self.read_clean.insert((super::hash_of(ANY_NAME), body));
            }
        }
        false
    }

    /// Records that the program may save fetched text to `path` (absolute).
    pub fn note_download(&mut self, path: &str, st: &mut State) {
        // A device (`/dev/null`, `/dev/stderr`) keeps nothing to run or read back.
        if path.starts_with("/dev/") && !path.starts_with("/dev/shm/") {
            return;
        }
        self.downloaded_ever.insert(path.to_string());
        st.downloaded.insert(path.to_string());
    }

    /// Records that the program may save fetched text to the file `target` names: each file it
    /// may name, or, where the walk cannot tell the directory, the file's name alone where that
    /// much is known (any file of that name may be it).
    /// Where the name is not known whole, the word itself is kept too: the same word, run
    /// later, names the same file (`curl -so "$tmp" URL; bash "$tmp"`).
    pub fn note_download_to(&mut self, target: &crate::analysis::word::Arg, st: &mut State) {
        if target.known().is_none()
            && let Some(key) = word_key(&target.raw)
        {
            self.downloaded_words.insert(key.clone());
            st.saved_words.insert(key);
        }
        let target = &target.field;
        let texts = match target.alternatives() {
            Some((texts, false)) => texts,
            _ => Vec::new(),
        };
        let paths: Option<Vec<String>> =
            if texts.is_empty() { None } else { texts.iter().map(|t| self.absolute(t, st)).collect() };
        // A relative name names the file where the cwd is not known, now or after code that
        // may not have moved it, until `cd`, `pushd` or `popd` does.
        for t in texts.iter().filter(|t| !t.starts_with('/')) {
            st.saved_words.insert(super::state::relative_save_key(t));
        }
        match paths {
            Some(paths) => {
                for p in paths {
                    self.note_download(&p, st);
                }
            }
            None if !texts.is_empty() => {
                for t in &texts {
                    self.downloaded_names.insert(last_name(t).to_string());
                }
            }
            // (A file whose name is not known either, such as a temporary one, is not followed:
            // every file run after it would count.)
            None => {
                if let Some(name) = target.last_component() {
                    self.downloaded_names.insert(name);
                }
            }
        }
    }

    /// `chmod MODE FILE…`: notes whether it may make a file saved with fetched text executable
    /// (a mode that adds execute, or one not known, given such a file or a name not known).
    pub fn note_chmod(&mut self, args: &[crate::analysis::word::Arg], st: &State) {
        // `--reference=FILE` gives the mode of a file: it may add execute.
        let reference = args[1..].iter().any(|a| a.known().is_some_and(|t| t.starts_with("--reference")));
        let mut words = args[1..].iter().filter(|a| {
            !a.known().is_some_and(|t| {
                t.starts_with('-') && t.len() > 1 && !t[1..].starts_with(['r', 'w', 'x', 'X', 's', 't'])
            })
        });
        if !reference {
            let Some(mode) = words.next() else { return };
            let adds_execute = match mode.known() {
                Some(m) if m.bytes().all(|b| b.is_ascii_digit()) => m.bytes().any(|b| (b - b'0') % 2 == 1),
                // A clause that adds or sets bits (after its `ugoa`), execute among them or
                // copied from a class (`g=u`).
                Some(m) => m.split(',').any(adds_execute_bits),
                None => true,
            };
            if !adds_execute {
                return;
            }
        }
        // (`-R DIR`: a saved file below it.)
        let below = |a: &crate::analysis::word::Arg| {
            a.known().and_then(|t| self.absolutes(&t, st)).is_some_and(|dirs| {
                dirs.iter().any(|d| {
                    let d = format!("{}/", d.trim_end_matches('/'));
                    st.downloaded.iter().chain(&self.downloaded_ever).any(|p| p.starts_with(&d))
                })
            })
        };
        if words.any(|a| self.arg_may_be_download(a, st) || below(a)) {
            self.downloads_executable = true;
        }
    }

    /// `f`'s answer, without marking the body walked on its own as one that asked of saved
    /// files (it is not walked again when a later body saves one).
    pub fn without_asking<T>(&self, f: impl FnOnce(&Self) -> T) -> T {
        let asked = self.asked_downloads.get();
        let answer = f(self);
        self.asked_downloads.set(asked);
        answer
    }

    /// Whether a body walked on its own is being walked, in a program not known to run
    /// fetched code already: what the whole program saved counts, and a body that asks is
    /// walked again when a later one saves more.
    fn asks_program_wide(&self) -> bool {
        self.deferred_body.is_some() && !self.fetched_code_known
    }

    /// The paths saved with fetched text a file here may be: this state's, and in a body walked
    /// on its own, the whole program's.
    fn saved_paths<'a>(&'a self, st: &'a State) -> impl Iterator<Item = &'a String> {
        st.downloaded.iter().chain(self.asks_program_wide().then_some(&self.downloaded_ever).into_iter().flatten())
    }

    /// Whether no file saved with fetched text can be named here: none in this state, and, in
    /// a body walked on its own, none anywhere in the program (which such a body asks: one
    /// saved later in the round walks it again).
    fn nothing_saved(&self, st: &State) -> bool {
        let here = st.downloaded.is_empty() && st.saved_words.is_empty() && self.downloaded_names.is_empty();
        if self.asks_program_wide() {
            if here && self.downloaded_ever.is_empty() && self.downloaded_words.is_empty() {
                self.asked_downloads.set(true);
                return true;
            }
            return false;
        }
        here
    }

    /// Whether the file `arg` names may be one the program saved fetched text to, by its name
    /// (not where only a call not followed may have saved files it cannot name).
    pub fn arg_may_be_download(&self, arg: &crate::analysis::word::Arg, st: &State) -> bool {
        self.saved_file_named_by(arg, st).is_some()
    }

    /// Whether `arg` names a file saved with fetched text by its path, by a glob or a choice
    /// that fits that path, or by the word that named the save (not by a file's name alone,
    /// in a directory not known: too weak to follow data through).
    pub fn names_saved_file(&self, arg: &crate::analysis::word::Arg, st: &State) -> bool {
        matches!(self.saved_file(arg, st), Some(Download::Path(_) | Download::Word(_)))
    }

    /// The file saved with fetched text that `arg` may name (not the file a process
    /// substitution gives).
    pub fn saved_file_named_by(&self, arg: &crate::analysis::word::Arg, st: &State) -> Option<Download> {
        if arg.field.content.is_some() {
            return None;
        }
        self.saved_file(arg, st)
    }

    /// The file saved with fetched text that `arg` may name: by its path where the word is
    /// known (by its name where the directory is not), else as [`Self::download_named_by`].
    fn saved_file(&self, arg: &crate::analysis::word::Arg, st: &State) -> Option<Download> {
        if self.nothing_saved(st) {
            return None;
        }
        match arg.known() {
            Some(t) if !arg.field.has_glob() => match self.absolutes(&t, st) {
                Some(paths) => paths.into_iter().find(|p| self.downloaded_here(p, true, st)).map(Download::Path),
                // The relative name a save used since the cwd last changed: the same file.
                None if st.saved_words.contains(&super::state::relative_save_key(&t)) => Some(Download::Word(t)),
                None => self.may_run_download(&t, st).then_some(Download::Name(t)),
            },
            _ => self.download_named_by(arg, st),
        }
    }

    /// Whether standard input `stdin` gives fetched text: a pipe from a fetch, or a file the
    /// program saved fetched text to (by its path, or by the relative name the save used where
    /// the cwd is not known).
    pub fn stdin_fetched(&self, stdin: &crate::analysis::programs::Stdin, st: &State) -> bool {
        use crate::analysis::programs::Stdin;
        match stdin {
            Stdin::Fetched => true,
            Stdin::File(p) => self.downloaded_here(p, true, st),
            _ => false,
        }
    }

    /// Whether the file at `path` (absolute, or where the cwd is not known the relative name a
    /// save used) may hold fetched text (`named`: only where it was
    /// named as saved, not where the program saved files it cannot name). In a body walked on
    /// its own, a file saved anywhere in the program counts.
    pub fn downloaded_here(&self, path: &str, named: bool, st: &State) -> bool {
        if st.downloaded.contains(path) || (!named && st.downloads_unknown) {
            return true;
        }
        // A descriptor opened on such a file, by its name in `/dev/fd` or `/proc/self/fd`.
        if !self.fetched_fds.is_empty()
            && let Some(n) = fd_path(path)
            && self.fetched_fds.contains(&n)
        {
            return true;
        }
        // A relative name, where the cwd is not known: the one a save used.
        if !path.starts_with('/') && st.saved_words.contains(&super::state::relative_save_key(path)) {
            return true;
        }
        if !named && self.downloaded_names.contains(last_name(path)) {
            return true;
        }
        if self.asks_program_wide() {
            if self.downloaded_ever.contains(path) {
                return true;
            }
            self.asked_downloads.set(true);
        }
        false
    }

    /// Whether a file run by `name` where the walk cannot tell which file that is (the
    /// directory is not known) may be one the program saved fetched text to: one of that name.
    /// (Not where only a call not followed may have saved some: that is code it cannot see
    /// already.)
    pub fn may_run_download(&self, name: &str, st: &State) -> bool {
        let mut pattern = String::from("*/");
        push_escaped(&mut pattern, last_name(name));
        self.download_fitting(&pattern, st).is_some()
    }

    /// A file the program saved fetched text to that the file `field` names may be, where the
    /// walk cannot read the name whole (`bash "$f"`, `. ./*.sh`): what it knows of the name must
    /// fit. Such a file is only written at run time, so no glob finds it now.
    /// (Not where only a call not followed may have saved some: that is code it cannot see
    /// already, and every `eval` it cannot read counts as such a call.)
    pub fn download_named_by(&self, arg: &crate::analysis::word::Arg, st: &State) -> Option<Download> {
        if self.nothing_saved(st) {
            return None;
        }
        // (In a body walked on its own, a word that named a save anywhere.)
        let deferred = self.asks_program_wide();
        if let Some(key) =
            word_key(&arg.raw).filter(|k| st.saved_words.contains(k) || (deferred && self.downloaded_words.contains(k)))
        {
            return Some(Download::Word(key));
        }
        self.name_patterns(&arg.field, st).iter().find_map(|p| self.download_fitting(p, st))
    }

    /// The files saved with fetched text that the glob `field` may match when it runs (they
    /// are not there now, so the walk's own matching does not find them): their paths, and
    /// whether one known by its name alone may be among them.
    pub fn downloads_globbed(&self, field: &Field, st: &State) -> (Vec<String>, bool) {
        if self.nothing_saved(st) {
            return (Vec::new(), false);
        }
        let deferred = self.asks_program_wide();
        let mut paths = Vec::new();
        let mut by_name = false;
        for pattern in self.name_patterns(field, st) {
            paths.extend(self.saved_paths(st).filter(|p| fnmatch(&pattern, p)).cloned());
            let last = pattern.rsplit('/').next().unwrap_or(&pattern);
            by_name |= self.downloaded_names.iter().any(|n| fnmatch(last, n));
        }
        if deferred && paths.is_empty() && !by_name {
            self.asked_downloads.set(true);
        }
        paths.sort();
        paths.dedup();
        (paths, by_name)
    }

    /// The shell patterns (absolute, or starting with `*`, where `*` spans directories) the
    /// paths a file named by `field` may have fit: one per text a closed choice may give. A
    /// part not known may hold `../`, so only the text after the last such part binds.
    fn name_patterns(&self, field: &Field, st: &State) -> Vec<String> {
        // (NUL, which no path holds, marks where a part not known was.)
        let mut texts = vec![String::new()];
        for part in &field.parts {
            match part {
                Part::Lit { text, quoted, .. } => texts.iter_mut().for_each(|t| push_pattern(t, text, *quoted)),
                Part::Choice { values, open: false, quoted, .. }
                    if !values.is_empty() && texts.len() * values.len() <= super::MAX_CHOICES * 4 =>
                {
                    texts = texts
                        .iter()
                        .flat_map(|t| {
                            values.iter().map(move |v| {
                                let mut t = t.clone();
                                push_pattern(&mut t, v, *quoted);
                                t
                            })
                        })
                        .collect();
                }
                Part::Unknown { .. } | Part::Choice { .. } => texts.iter_mut().for_each(|t| t.push('\0')),
                Part::Break => {}
            }
        }
        texts.into_iter().map(|t| anchored(&t, st.cwd.as_deref())).collect()
    }

    /// A file saved with fetched text whose path fits the shell pattern `pattern` (absolute, or
    /// starting with `*`; `*` spans directories), by path or by name alone. In a body walked on
    /// its own, a file saved anywhere in the program counts.
    fn download_fitting(&self, pattern: &str, st: &State) -> Option<Download> {
        let deferred = self.asks_program_wide();
        if let Some(p) = self.saved_paths(st).find(|p| fnmatch(pattern, p)) {
            return Some(Download::Path(p.clone()));
        }
        // A file known by its name alone may be in any directory.
        let last = pattern.rsplit('/').next().unwrap_or(pattern);
        if let Some(n) = self.downloaded_names.iter().find(|n| fnmatch(last, n)) {
            return Some(Download::Name(n.clone()));
        }
        if deferred {
            self.asked_downloads.set(true);
        }
        None
    }

    /// Records that `target` holds fetched text now (or not, `fetched` false).
    pub fn set_fetched(&mut self, target: &str, fetched: bool, st: &mut State) {
        if fetched {
            if !self.tainted_ever.contains(target) {
                self.tainted_ever.insert(target.to_string());
            }
            // Through a reference, the variable it names (a body walked on its own may not
            // know which): any variable.
            if self.reference_names.contains(target) {
                self.fetched_anywhere();
            }
            st.tainted.insert(target.to_string());
        } else if st.tainted.contains(target) {
            st.tainted.remove(target);
        }
    }

    /// Fetched text was given to a variable whose name is not known: in code walked on its
    /// own, any variable may hold it.
    pub fn fetched_anywhere(&mut self) {
        if !self.tainted_ever.contains(ANY_NAME) {
            self.tainted_ever.insert(ANY_NAME.to_string());
        }
    }

    /// Whether `$n` (`None`: any parameter) may hold fetched text; in a body walked on its own,
    /// that it read them as not fetched is noted.
    pub fn param_fetched(&mut self, n: Option<usize>, st: &State) -> bool {
        let fetched = st.param_tainted(n);
        if !fetched
            && !self.fetched_code_known
            && self.call_stack.is_empty()
            && let Some(body) = self.deferred_body
        {
            self.params_read_clean.insert(body);
        }
        fetched
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

    /// `IFS` as bash splits with it, when that is known (unset splits as the default does).
    pub fn exact_ifs(&self, st: &State) -> Option<String> {
        match self.var_val("IFS", st) {
            Val::Unset => Some(" \t\n".into()),
            v => v.exact(),
        }
    }

    /// Records an assignment the program makes.
    pub fn assign(&mut self, name: &str, value: Option<String>, st: &mut State) {
        self.assign_val(name, Val::from_option(value), st);
    }

    pub fn assign_val(&mut self, name: &str, value: Val, st: &mut State) {
        // A value naming an array element whose subscript holds code runs that code wherever
        // bash evaluates it: as a reference's target, or as the value of an integer variable
        // (`declare -i n; n='a[$(cmd)]'`), which the walk does not follow. Walked here.
        if let Val::Known(text) = &value
            && text.contains('[')
            && (text.contains('$') || text.contains('`'))
        {
            let pos = self.here;
            let text = text.clone();
            self.subscript_text(&text, pos, st);
        }
        let target = st.resolve_name(name).into_owned();
        if target == MODE_VAR {
            self.mode_assignment(&value);
        }
        if LOADER_VARS.contains(&target.as_str()) {
            self.loader_assignment(&target, &value, st);
        }
        if !st.saved_words.is_empty() {
            // A word that expands it names another file now.
            let expansion = expansion_of(&target);
            let stale: Vec<String> = st.saved_words.iter().filter(|k| k.contains(&expansion)).cloned().collect();
            for k in stale {
                st.saved_words.remove(&k);
            }
        }
        self.assigned.insert(target);
        st.set_val(name, value);
    }

    fn assign_unset(&mut self, name: &str, st: &mut State) {
        if st.resolve_name(name) == MODE_VAR {
            self.mode_assignment(&Val::Unset);
        }
        self.assigned.insert(name.to_string());
        // Unsetting an assignment made before a function's name brings back the value it hid
        // (or leaves it unset, where the function made the name its own since).
        let hidden = self.prefix_frames.iter().rev().flatten().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        match hidden {
            Some(old) => st.set_val(name, Val::Unset.join(&old)),
            None => st.unset_var(name),
        }
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
                if self.classify(&abs, false) == Class::Scratch {
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
        // A trap that may run at any time assigns through it, to whichever name it refers to
        // then.
        if self.volatile.contains(name) {
            self.volatile_all = true;
        }
        self.reference_names.insert(name.to_string());
        st.set_nameref(name, target);
    }

    pub fn export(&mut self, name: &str, st: &mut State) {
        st.exported.insert(name.to_string());
    }

    /// Whether `name` is passed to child processes: it came with the environment or the
    /// program exported it. (The analysis never takes the export away again: a child that
    /// sees a variable it might not have only makes the analysis see more.)
    fn is_exported(&self, name: &str, st: &State) -> bool {
        st.exported.contains(name) || crate::analysis::asked::env_var(&self.ctx.env, name).is_some()
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

    pub fn shift_positional(&mut self, n: Option<usize>, st: &mut State) {
        match n {
            Some(n) if n <= st.positional.len() => {
                st.positional.drain(..n);
                st.shift_param_taint(Some(n));
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
}

/// Variables bash sets itself, whose values the analysis does not know.
fn is_dynamic_bash_var(name: &str) -> bool {
    crate::analysis::word::NUMERIC_BASH_VARS.contains(&name)
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
                | "PS4"
                | "OPTERR"
                | "BASH_ARGV0"
                | "BASH_EXECUTION_STRING"
                | "COMP_WORDBREAKS"
                | "BASH_LOADABLES_PATH"
                | "BASH_CMDS"
                | "BASH_ALIASES"
        )
}

/// The descriptor `/dev/fd/N`, `/proc/self/fd/N` or `/dev/stdin` names.
fn fd_path(path: &str) -> Option<i32> {
    if path == "/dev/stdin" {
        return Some(0);
    }
    path.strip_prefix("/dev/fd/").or_else(|| path.strip_prefix("/proc/self/fd/"))?.parse().ok()
}
