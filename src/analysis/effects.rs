//! What a piece of code can change in the shell that runs it, read from its syntax alone:
//! the variables it assigns, whether it changes the cwd or its positional parameters, which
//! functions it calls, whether it runs code whose effects cannot be read (`eval` of a
//! computed string, `source`, a command name that is not static), and whether it may fetch
//! from the network or save what it fetched (asked of the command knowledge's handlers).
//!
//! The walker uses this where it does not follow a function call into the body (a call
//! nested too deep): the call's effects are then applied as "these may have changed".

use std::collections::BTreeSet;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use brush_parser::ast;

/// The possible effects of some code on the shell state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effects {
    /// Variables it may assign: the plain literal values seen, and whether others are possible.
    pub names: HashMap<String, (BTreeSet<String>, bool)>,
    pub cwd: bool,
    /// It runs `set` or `shift`: the positional parameters where it runs may change (a
    /// function's own, which its caller's are not; a trap's or a `case` item's, which are).
    pub positional: bool,
    /// Code whose effects cannot be read: anything may change.
    pub dynamic: bool,
    /// It sets a trap: code that may run later, between any two commands of its caller.
    pub traps: bool,
    /// Functions called by name (their effects count too).
    pub calls: HashSet<String>,
    /// It may run a command that reads from the network (a modelled fetcher, a redirection from
    /// `/dev/tcp`), also inside a substitution: what it prints may be fetched code.
    pub fetches: bool,
    /// It may write what it fetched to a file it cannot name: a file run after it may be
    /// fetched code.
    pub downloads: bool,
    /// The files it may write what it fetched to, as written (plain words).
    pub downloaded: BTreeSet<String>,
    /// The positional parameters (`"$1"`) naming files it may write what it fetched to: the
    /// caller's words name them. (For one body's own code: not kept across calls.)
    pub downloaded_params: BTreeSet<usize>,
    /// While reading a part of a pipeline: an earlier part may fetch, so what this one saves
    /// may be fetched.
    pub piped_fetch: bool,
}

impl Effects {
    /// Records that `name` may be assigned `value` (`None`: some value not known).
    fn assign(&mut self, name: &str, value: Option<&str>) {
        let entry = self.names.entry(name.to_string()).or_insert_with(|| (BTreeSet::new(), false));
        match value {
            Some(v) if !v.contains(['$', '`', '\\', '\'', '"', '~', '*', '?', '[', '{']) => {
                entry.0.insert(v.to_string());
            }
            _ => entry.1 = true,
        }
    }

    /// Merges another summary into this one.
    pub fn merge(&mut self, other: Effects) {
        for (name, (values, open)) in other.names {
            let entry = self.names.entry(name).or_insert_with(|| (BTreeSet::new(), false));
            entry.0.extend(values);
            entry.1 |= open;
        }
        self.cwd |= other.cwd;
        self.positional |= other.positional;
        self.dynamic |= other.dynamic;
        self.traps |= other.traps;
        self.calls.extend(other.calls);
        self.take_fetches(other.fetches, other.downloads, other.downloaded);
        self.downloaded_params.extend(other.downloaded_params);
    }

    /// Words whose command cannot be read (`\\curl`, `exec curl`, `command "-p" curl`): any of
    /// them, unquoted, may be the program, with the words after it.
    fn any_fetcher(&mut self, words: &[&str]) {
        for (i, w) in words.iter().enumerate() {
            let name = super::commands::unquote(w.trim_start_matches('\\')).unwrap_or_default();
            if !name.is_empty() {
                let fetch = super::commands::may_fetch(&name, &words[i + 1..]);
                self.merge(fetch.fetch_only());
            }
        }
    }

    /// Only what it may fetch and download.
    pub fn fetch_only(self) -> Effects {
        Effects {
            fetches: self.fetches,
            downloads: self.downloads,
            downloaded: self.downloaded,
            downloaded_params: self.downloaded_params,
            ..Effects::default()
        }
    }

    /// The effects of a function's body, with the redirections of its definition.
    pub fn of_function(body: &ast::FunctionBody) -> Effects {
        let mut e = Effects::default();
        e.redirected(&body.0, body.1.as_ref());
        e
    }

    /// A compound command with its redirections: what it fetches and sends to a file there is
    /// downloaded.
    fn redirected(&mut self, cc: &ast::CompoundCommand, redirects: Option<&ast::RedirectList>) {
        let mut inner = Effects { piped_fetch: self.piped_fetch, ..Effects::default() };
        inner.compound(cc);
        for r in redirects.iter().flat_map(|r| r.0.iter()) {
            inner.redirect(r);
            if inner.fetches || self.piped_fetch {
                match stdout_file(r) {
                    Some(Some(file)) => {
                        inner.downloaded.insert(file);
                    }
                    Some(None) => inner.downloads = true,
                    None => {}
                }
            }
        }
        inner.piped_fetch = false;
        self.merge(inner);
    }

    /// Adds what other code may fetch and download.
    fn take_fetches(&mut self, fetches: bool, downloads: bool, downloaded: BTreeSet<String>) {
        self.fetches |= fetches;
        self.downloads |= downloads;
        self.downloaded.extend(downloaded);
    }

    /// Nothing could be read: it may fetch and download anything.
    fn fetches_anything(&mut self) {
        self.fetches = true;
        self.downloads = true;
    }

    /// The effects of a compound command (a function body).
    pub fn of_program(p: &ast::Program) -> Effects {
        let mut e = Effects::default();
        for list in &p.complete_commands {
            e.list(list);
        }
        e
    }

    pub fn of_compound(c: &ast::CompoundCommand) -> Effects {
        let mut e = Effects::default();
        e.compound(c);
        e
    }

    fn list(&mut self, list: &ast::CompoundList) {
        for ast::CompoundListItem(and_or, sep) in &list.0 {
            if matches!(sep, ast::SeparatorOperator::Async) {
                self.fetches_of(|e| {
                    e.pipeline(&and_or.first);
                    for item in &and_or.additional {
                        let (ast::AndOr::And(p) | ast::AndOr::Or(p)) = item;
                        e.pipeline(p);
                    }
                });
                continue;
            }
            self.pipeline(&and_or.first);
            for item in &and_or.additional {
                let (ast::AndOr::And(p) | ast::AndOr::Or(p)) = item;
                self.pipeline(p);
            }
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline) {
        // Every part of a pipeline of several commands runs in a subshell.
        if p.seq.len() == 1 {
            self.command(&p.seq[0]);
        } else {
            let mut upstream = false;
            for c in &p.seq {
                let mut apart = Effects { piped_fetch: upstream, ..Effects::default() };
                apart.command(c);
                upstream |= apart.fetches;
                self.take_fetches(apart.fetches, apart.downloads, apart.downloaded);
            }
        }
    }

    fn command(&mut self, c: &ast::Command) {
        match c {
            ast::Command::Simple(s) => self.simple(s),
            ast::Command::Compound(cc, redirects) => self.redirected(cc, redirects.as_ref()),
            // A function defined here replaces one a later call would find: what that call
            // does is no longer the body the walk knows. What it may fetch counts.
            ast::Command::Function(f) => {
                self.dynamic = true;
                let e = Effects::of_function(&f.body);
                self.take_fetches(e.fetches, e.downloads, e.downloaded);
            }
            ast::Command::ExtendedTest(t, _) => self.substitutions(&t.to_string()),
        }
    }

    fn compound(&mut self, c: &ast::CompoundCommand) {
        match c {
            ast::CompoundCommand::Arithmetic(a) => {
                self.substitutions(&a.expr.value);
                self.arithmetic(&a.expr.value);
            }
            ast::CompoundCommand::ArithmeticForClause(f) => {
                for e in [&f.initializer, &f.condition, &f.updater].into_iter().flatten() {
                    self.substitutions(&e.value);
                    self.arithmetic(&e.value);
                }
                self.list(&f.body.list);
            }
            ast::CompoundCommand::BraceGroup(b) => self.list(&b.list),
            ast::CompoundCommand::Subshell(sub) => self.fetches_of(|e| e.list(&sub.list)),
            ast::CompoundCommand::Coprocess(c) => self.fetches_of(|e| e.command(&c.body)),
            ast::CompoundCommand::ForClause(f) => {
                for w in f.values.iter().flatten() {
                    self.word(&w.value);
                }
                self.assign(&f.variable_name, None);
                self.list(&f.body.list);
            }
            ast::CompoundCommand::CaseClause(c) => {
                self.word(&c.value.value);
                for item in &c.cases {
                    for pattern in &item.patterns {
                        self.word(&pattern.value);
                    }
                    if let Some(body) = &item.cmd {
                        self.list(body);
                    }
                }
            }
            ast::CompoundCommand::IfClause(i) => {
                self.list(&i.condition);
                self.list(&i.then);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.list(c);
                    }
                    self.list(&e.body);
                }
            }
            ast::CompoundCommand::WhileClause(w) | ast::CompoundCommand::UntilClause(w) => {
                self.list(&w.0);
                self.list(&w.1.list);
            }
        }
    }

    /// `${x:=v}` and `${x=v}` assign while expanding; a substitution in it may fetch.
    fn word(&mut self, raw: &str) {
        self.substitutions(raw);
        let mut rest = raw;
        while let Some(i) = rest.find("${") {
            let after = &rest[i + 2..];
            let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            let tail = &after[name.len()..];
            if !name.is_empty() && (tail.starts_with(":=") || tail.starts_with('=')) {
                self.assign(&name, None);
            }
            rest = after;
        }
    }

    /// What the command substitutions (`$(…)`, backquotes) and process substitutions in `raw`
    /// may fetch or download. They run in subshells, so their assignments stay there. Text this
    /// cannot cut out or parse counts as fetching and downloading.
    fn substitutions(&mut self, raw: &str) {
        if !raw.contains(['`', '(']) {
            return;
        }
        let b = raw.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let inner = if b[i] == b'`' && (i == 0 || b[i - 1] != b'\\') {
                let end = (i + 1..b.len()).find(|&j| b[j] == b'`' && b[j - 1] != b'\\');
                end.map(|e| (i + 1, e))
            } else if matches!(b[i], b'$' | b'<' | b'>') && b.get(i + 1) == Some(&b'(') && b.get(i + 2) != Some(&b'(') {
                let mut depth = 0usize;
                let end = (i + 1..b.len()).find(|&j| {
                    match b[j] {
                        b'(' => depth += 1,
                        b')' => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                });
                end.map(|e| (i + 2, e))
            } else {
                i += 1;
                continue;
            };
            let Some((start, end)) = inner else {
                self.fetches_anything();
                return;
            };
            self.code_text(&raw[start..end]);
            i = end + 1;
        }
    }

    /// The effects of shell code given as text (a substitution, `eval`, `sh -c`, a trap):
    /// only what it may fetch and download, as it may run apart. Text that does not parse
    /// may do anything.
    fn code_text(&mut self, text: &str) {
        match super::parse::program(text) {
            Ok(p) => {
                let e = Effects::of_program(&p);
                self.take_fetches(e.fetches, e.downloads, e.downloaded);
            }
            Err(_) => self.fetches_anything(),
        }
    }

    /// A redirection or process substitution of a simple command; where it sends standard
    /// output: `Some(Some(file))` to a file named plainly, `Some(None)` to one it cannot name.
    fn redirect_item(&mut self, item: &ast::CommandPrefixOrSuffixItem) -> Option<Option<String>> {
        match item {
            ast::CommandPrefixOrSuffixItem::IoRedirect(r) => {
                self.redirect(r);
                stdout_file(r)
            }
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                self.fetches_of(|e| e.list(&sub.list));
                None
            }
            _ => None,
        }
    }

    /// A redirection from or to `/dev/tcp` or `/dev/udp` talks to the network.
    fn redirect(&mut self, r: &ast::IoRedirect) {
        let word = match r {
            ast::IoRedirect::File(
                _,
                _,
                ast::IoFileRedirectTarget::Filename(w) | ast::IoFileRedirectTarget::Duplicate(w),
            )
            | ast::IoRedirect::HereString(_, w)
            | ast::IoRedirect::OutputAndError(w, _) => &w.value,
            ast::IoRedirect::File(_, _, ast::IoFileRedirectTarget::ProcessSubstitution(_, sub)) => {
                self.fetches_of(|e| e.list(&sub.list));
                return;
            }
            ast::IoRedirect::HereDocument(_, doc) => {
                if doc.requires_expansion {
                    self.substitutions(&doc.doc.value);
                }
                return;
            }
            _ => return,
        };
        self.substitutions(word);
        // `/dev/tcp/…`, also where part of it is expanded (`/dev/$proto/…`).
        let device = word.trim_start_matches(['"', '\'']);
        if device.contains("/dev/tcp/")
            || device.contains("/dev/udp/")
            || device.starts_with("/dev/") && device.contains(['$', '`', '"', '\'', '\\'])
        {
            self.fetches = true;
        }
    }

    /// What code run apart (a subshell, a part of a pipeline, in the background) may fetch or
    /// download: its other effects stay there.
    fn fetches_of(&mut self, read: impl FnOnce(&mut Effects)) {
        let mut apart = Effects::default();
        read(&mut apart);
        self.take_fetches(apart.fetches, apart.downloads, apart.downloaded);
    }

    fn arithmetic(&mut self, text: &str) {
        for name in arithmetic_targets(text) {
            self.assign(name, None);
        }
    }

    fn simple(&mut self, s: &ast::SimpleCommand) {
        let mut words: Vec<&str> = Vec::new();
        // Where its standard output goes, when to a file (a fetch there downloads it).
        let mut stdout_to: Option<Option<String>> = None;
        let mut prefix_assignments: Vec<(String, Option<String>)> = Vec::new();
        for item in s.prefix.iter().flat_map(|p| p.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, w) => {
                    let (name, value) = match (&a.name, &a.value) {
                        (ast::AssignmentName::VariableName(n), ast::AssignmentValue::Scalar(v)) if !a.append => {
                            (n.clone(), Some(v.value.clone()))
                        }
                        (ast::AssignmentName::VariableName(n) | ast::AssignmentName::ArrayElementName(n, _), _) => {
                            (n.clone(), None)
                        }
                    };
                    prefix_assignments.push((name, value));
                    self.word(&w.value);
                }
                ast::CommandPrefixOrSuffixItem::Word(w) => self.word(&w.value),
                other => {
                    if let Some(to) = self.redirect_item(other) {
                        stdout_to = Some(to);
                    }
                }
            }
        }
        if let Some(w) = &s.word_or_name {
            words.push(&w.value);
            self.word(&w.value);
        }
        for item in s.suffix.iter().flat_map(|x| x.0.iter()) {
            if let ast::CommandPrefixOrSuffixItem::Word(w) | ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) = item
            {
                words.push(&w.value);
                self.word(&w.value);
            } else if let Some(to) = self.redirect_item(item) {
                stdout_to = Some(to);
            }
        }
        if words.is_empty() {
            // Assignments alone stay in this shell.
            for (n, v) in prefix_assignments {
                self.assign(&n, v.as_deref());
            }
            return;
        };
        // `command` and `builtin` run the command they name (`command -v` only looks it up); a
        // function or an alias of their name runs instead, so the name counts as a call too.
        let mut at = 0;
        while matches!(words[at], "command" | "builtin") {
            self.calls.insert(words[at].to_string());
            let mut next = at + 1;
            while let Some(option) = words.get(next).filter(|w| w.starts_with('-') && w.len() > 1) {
                if option.contains(['$', '`', '\\', '\'', '"']) {
                    self.dynamic = true;
                    self.any_fetcher(&words[next..]);
                    return;
                }
                if option.contains(['v', 'V']) {
                    return;
                }
                next += 1;
                if *option == "--" {
                    break;
                }
            }
            if next >= words.len() {
                return;
            }
            at = next;
        }
        let name = words[at];
        if name.contains(['$', '`', '\\', '\'', '"']) {
            self.dynamic = true;
            self.any_fetcher(&words[at..]);
            return;
        }
        let args = &words[at + 1..];
        match name {
            "cd" | "pushd" | "popd" => {
                self.cwd = true;
                self.assign("PWD", None);
                self.assign("OLDPWD", None);
            }
            "shift" => self.positional = true,
            // `set` with options only (`set +e`, `set -o pipefail`) leaves the parameters.
            "set" => {
                let mut rest = args.iter();
                while let Some(a) = rest.next() {
                    if a.contains(['$', '`', '\\', '\'', '"']) {
                        self.positional = true;
                        break;
                    }
                    match *a {
                        "-o" | "+o" => {
                            if rest.next().is_some_and(|o| o.contains(['$', '`', '\\', '\'', '"'])) {
                                self.positional = true;
                                break;
                            }
                        }
                        o if (o.starts_with('-') || o.starts_with('+')) && o.len() > 1 && o != "--" => {}
                        _ => {
                            self.positional = true;
                            break;
                        }
                    }
                }
            }
            "trap" => {
                // An action that runs only at the end (EXIT), or that ignores or resets, changes
                // nothing the caller reads.
                let plain = |w: &&str| !w.contains(['$', '`', '\\']);
                let at_exit = args.len() >= 2
                    && args.iter().all(plain)
                    && args[1..].iter().all(|s| matches!(s.to_ascii_uppercase().as_str(), "EXIT" | "0" | "SIGEXIT"));
                let inert = args.len() >= 2 && matches!(args[0], "-" | "''" | "\"\"") && args.iter().all(plain);
                if !at_exit && !inert {
                    self.traps = true;
                    self.dynamic = true;
                }
                // Whenever it runs (at the end too), its output goes where this code's goes.
                match args.first().map(|a| super::commands::unquote(a)) {
                    Some(Some(text)) => self.code_text(&text),
                    Some(None) => self.fetches = true,
                    None => {}
                }
            }
            "eval" => {
                self.dynamic = true;
                // Its text, where written plainly enough to read, for what it may fetch.
                match args.iter().map(|a| super::commands::unquote(a)).collect::<Option<Vec<String>>>() {
                    Some(words) => self.code_text(&words.join(" ")),
                    None => self.fetches = true,
                }
            }
            "exec" => {
                self.dynamic = true;
                self.any_fetcher(args);
            }
            "source" | "." | "alias" | "enable" | "hash" | "fc" => {
                self.dynamic = true;
            }
            "read" | "mapfile" | "readarray" | "getopts" | "printf" | "declare" | "typeset" | "local" | "export"
            | "readonly" | "unset" | "let" | "wait" => {
                for n in ["REPLY", "MAPFILE", "OPTARG", "OPTIND"] {
                    self.assign(n, None);
                }
                for a in args {
                    // A name the walk would have to unquote, or a reference (`declare -n`),
                    // assigns a variable this summary cannot name.
                    if a.contains(['$', '`', '\'', '"', '\\'])
                        || (matches!(name, "declare" | "typeset" | "local") && a.starts_with('-') && a.contains('n'))
                    {
                        self.dynamic = true;
                    }
                    if name == "let" {
                        self.arithmetic(a);
                        continue;
                    }
                    let candidate = a.split(['=', '[', '+']).next().unwrap_or("");
                    if super::word::is_name(candidate) {
                        self.assign(candidate, None);
                    }
                }
            }
            other => {
                self.calls.insert(other.to_string());
                let fetch = super::commands::may_fetch(other, args);
                if self.piped_fetch && other == "tee" {
                    // `… | tee FILE` saves what came down the pipe.
                    for a in args.iter().filter(|a| !a.starts_with('-')) {
                        if plain_word(a) {
                            self.downloaded.insert(a.to_string());
                        } else {
                            self.downloads = true;
                        }
                    }
                }
                if fetch.fetches || self.piped_fetch {
                    match stdout_to {
                        Some(Some(file)) => {
                            self.downloaded.insert(file);
                        }
                        Some(None) => self.downloads = true,
                        None => {}
                    }
                }
                self.merge(fetch);
            }
        }
    }
}

/// Where a redirection sends standard output: `Some(Some(file))` to a file named plainly,
/// `Some(None)` to a file it cannot name, `None` elsewhere (`<>` is standard input unless
/// given descriptor 1).
pub fn stdout_file(r: &ast::IoRedirect) -> Option<Option<String>> {
    let word = match r {
        ast::IoRedirect::File(fd, kind, ast::IoFileRedirectTarget::Filename(w))
            if match kind {
                ast::IoFileRedirectKind::Write | ast::IoFileRedirectKind::Append | ast::IoFileRedirectKind::Clobber => {
                    fd.is_none_or(|f| f == 1)
                }
                ast::IoFileRedirectKind::ReadAndWrite => *fd == Some(1),
                _ => false,
            } =>
        {
            w
        }
        ast::IoRedirect::OutputAndError(w, _) => w,
        _ => return None,
    };
    Some(plain_word(&word.value).then(|| word.value.clone()))
}

/// A word with nothing to expand or unquote.
pub fn plain_word(w: &str) -> bool {
    !w.is_empty() && !w.contains(['$', '`', '\\', '\'', '"', '*', '?', '[', '~', '{'])
}

/// The names an arithmetic expression may assign (`x=1`, `x+=2`, `x++`, `--x`, `a[i]=…`).
pub fn arithmetic_targets(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() || b[i] == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let rest = text[i..].trim_start();
            let before = text[..start].trim_end();
            if (rest.starts_with('=') && !rest.starts_with("=="))
                || ["+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", "++", "--", "["]
                    .iter()
                    .any(|op| rest.starts_with(op))
                || before.ends_with("++")
                || before.ends_with("--")
            {
                out.push(&text[start..i]);
            }
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(text: &str) -> Effects {
        let program = super::super::parse::program(&format!("f() {{ {text}\n}}")).unwrap();
        let item = &program.complete_commands[0].0[0].0.first.seq[0];
        match item {
            ast::Command::Function(f) => Effects::of_compound(&f.body.0),
            _ => panic!(),
        }
    }

    #[test]
    fn reads_what_code_may_change() {
        let e = body("x=1; for i in a; do read -r y; done; (( z++ )); echo ${w:=3}; cd /; g");
        for n in ["x", "i", "y", "z", "w"] {
            assert!(e.names.contains_key(n), "{n} in {e:?}");
        }
        assert_eq!(e.names["x"], (["1".to_string()].into_iter().collect(), false));
        assert!(e.cwd && !e.dynamic && e.calls.contains("g") && e.calls.contains("echo"));
        assert!(body("eval \"$x\"").dynamic);
        assert!(body("$cmd").dynamic);
        assert!(!body("( x=1 ); y=2 | cat").names.contains_key("x"));
        assert!(body("set -- a").positional && body("set -e a").positional && body("set --").positional);
        assert!(!body("set +e").positional && !body("set -o pipefail").positional);
        // `command` runs what it names; `command -v` runs nothing.
        assert!(!body("command tr a b").dynamic && body("command tr a b").calls.contains("tr"));
        assert!(body("command eval \"$x\"").dynamic);
        assert!(!body("command -v eval").dynamic);
        assert!(body("builtin cd /x").cwd);
        // Names it would have to unquote, references, and functions defined inside are
        // effects it cannot name.
        assert!(body("printf -v 'd' %s x").dynamic && body("read -r \"d\"").dynamic);
        assert!(body("declare -n r=d; r=x").dynamic && body("g() { d=x; }").dynamic);
        assert!(!body("read -r -n 1 d").dynamic);
        assert!(body("command -$v cd /x").dynamic && body("command true").calls.contains("command"));
        assert!(body("set -$x").positional && body("set -o $x").positional);
        assert!(body("trap 'set -- x' USR1").traps && !body("trap 'rm -f x' EXIT").traps);
    }

    #[test]
    fn reads_what_code_may_fetch_and_download() {
        // (fetches, saves a file it cannot name, the files it saves).
        let flags = |text: &str| {
            let e = body(text);
            (e.fetches, e.downloads, e.downloaded.into_iter().collect::<Vec<_>>())
        };
        let fetches = (true, false, Vec::<String>::new());
        let saves = |f: &str| (true, false, vec![f.to_string()]);
        // Fetchers, also behind a wrapper, in a substitution, a pipeline, a subshell, in the
        // background, in `sh -c`, `eval` or a trap, or behind a name it cannot read.
        for text in [
            "curl -s https://x",
            "echo \"$(curl -s https://x)\"",
            "echo `curl -s https://x`",
            "cat <(curl -s https://x)",
            "( curl -s https://x ) &",
            "sh -c 'curl -s https://x'",
            "git fetch origin",
            "read -r line </dev/tcp/x/80",
            "cat </dev/$proto/x/80",
            "eval 'curl -s https://x'",
            "trap 'curl -s https://x' EXIT",
            "\\curl -s https://x",
            "command \"-p\" curl -s https://x",
            "[[ $(curl -s https://x) ]]",
            "for l in \"$(curl -s https://x)\"; do :; done",
            "g() { curl -s https://x; }",
            "bash get.sh",
        ] {
            assert_eq!(flags(text), fetches, "{text}");
        }
        assert_eq!(flags("curl -so f https://x"), saves("f"));
        assert_eq!(flags("curl -s https://x > f"), saves("f"));
        assert_eq!(flags("nice -n 5 wget -q https://x/i.sh"), saves("i.sh"));
        assert_eq!(flags("curl -s https://x | tee f"), saves("f"));
        assert_eq!(flags("curl -s https://x | cat > f"), saves("f"));
        assert_eq!(flags("{ curl -s https://x; } > f"), saves("f"));
        assert_eq!(flags("exec curl -so f https://x"), saves("f"));
        assert_eq!(flags("curl -s https://x > \"$f\""), (true, true, vec![]));
        // A shell given text it cannot read may do anything.
        assert_eq!(flags("sh -o pipefail -c 'echo'"), (true, true, vec![]));
        // Nothing that talks to the network.
        let none = (false, false, Vec::<String>::new());
        assert_eq!(flags("echo \"$(date)\"; tar xf a.tar; git status; sh -c 'echo hi'"), none);
        assert_eq!(flags("x=$(pwd) y=`basename a` cat <(ls) > f; eval 'echo hi'; trap 'rm -f t' EXIT"), none);
    }
}
