//! Simple commands: their words expanded left to right, assignments and the environment a
//! command gets, variables bash runs as code, process and command substitutions, and the text
//! of a command shown beside what it needs.

use std::sync::Arc;

use brush_parser::ast;

use super::Walker;
use super::state::{State, Val, field_val};
use crate::analysis::programs::{Nest, Stdin};
use crate::analysis::word::{Arg, Field};
use crate::analysis::{Pos, commands};
use crate::mode::{Perm, Scope};

/// The value of one assignment word.
enum Assigned {
    Scalar {
        value: Field,
        append: bool,
    },
    /// An array; its elements when all are known.
    Array(Option<Vec<String>>),
}

/// Programs that print what they read on standard input, changed or not: given fetched input,
/// what they print is fetched text.
const PASSES_INPUT: &[&str] = &[
    "cat", "tac", "rev", "tr", "sed", "awk", "gawk", "mawk", "nawk", "grep", "egrep", "fgrep", "rg", "head", "tail",
    "sort", "uniq", "cut", "paste", "fold", "fmt", "nl", "expand", "unexpand", "column", "tee", "base64", "base32",
    "basenc", "xxd", "od", "hexdump", "iconv", "dd", "gzip", "gunzip", "zcat", "bzip2", "bunzip2", "bzcat", "xz",
    "unxz", "xzcat", "zstd", "unzstd", "zstdcat", "jq", "yq", "envsubst", "perl", "python", "python3", "ruby", "node",
    "m4", "strings", "sponge", "pv", "xargs", "openssl", "gpg", "busybox", "stdbuf", "timeout", "env", "nice", "sh",
    "bash", "dash", "zsh",
];

impl Walker<'_> {
    pub(super) fn simple(&mut self, c: &ast::SimpleCommand, st: &mut State, stdin: Stdin) {
        let stdin = match stdin {
            // (After `exec < FILE` of a file saved with fetched text, the shell's own input.)
            Stdin::Unknown if self.stdin_ctx == Stdin::Unknown && self.fetched_fds.contains(&0) => Stdin::Fetched,
            Stdin::Unknown => self.stdin_ctx.clone(),
            given => given,
        };
        // The substitutions in its words read what this command would (`… | eval "$(cat)"`).
        let saved_ctx = std::mem::replace(&mut self.stdin_ctx, stdin.clone());
        self.simple_with(c, st, stdin);
        self.stdin_ctx = saved_ctx;
    }

    fn simple_with(&mut self, c: &ast::SimpleCommand, st: &mut State, stdin: Stdin) {
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
        let mut args: Vec<Arg> = Vec::with_capacity(items.len() + 1);
        let mut redirects: Vec<&ast::IoRedirect> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let in_prefix = i < prefix_len;
            if !in_prefix
                && i == prefix_len
                && let Some(w) = &c.word_or_name
            {
                let pos = self.word_pos(w);
                self.expand_word_into(&w.value, pos, st, &mut args);
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
                    self.expand_word_into(&w.value, pos, st, &mut args);
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
            self.expand_word_into(&w.value, pos, st, &mut args);
        }
        if self.failed() {
            return;
        }

        let name_for_messages = args.first().and_then(|a| a.known()).unwrap_or_else(|| "the shell".to_string());
        let mark = self.sinks[self.sink].accesses.len();
        let required_mark = self.required_recorded;
        self.stdout_to.clear();
        // A saved file read through a redirection: a command given it as its input prints it
        // only if it prints its input (`fetched_input` below); `$(< FILE)` prints the file.
        let read_saved_before = std::mem::replace(&mut self.read_saved, false);
        let stdin = self.redirects_of(&redirects, &name_for_messages, st, stdin);
        let redirect_read_saved = std::mem::replace(&mut self.read_saved, false);
        let stdout_to = std::mem::take(&mut self.stdout_to);

        if args.is_empty() {
            self.fetched |= redirect_read_saved;
            self.read_saved = read_saved_before;
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
        // A filter given fetched input prints it (a program that does not read its input, such
        // as `pwd` or `git rev-parse`, does not; a function's own commands say for themselves).
        let input_fetched = self.stdin_fetched(&stdin, st);
        let fetched_input = input_fetched
            && args.first().and_then(|a| a.known()).is_some_and(|name| {
                let base = name.rsplit('/').next().unwrap_or(&name).to_string();
                !self.function_by_name.contains_key(&name)
                    && (PASSES_INPUT.contains(&base.as_str()) || !commands::is_modelled(&base))
            });
        let fetched_before = std::mem::replace(&mut self.fetched, false);
        let written_before = std::mem::take(&mut self.written_now);
        let extracts_before = std::mem::replace(&mut self.extracts_now, false);
        self.run_command(&args, &env, stdin, st, true);
        // A command given fetched text, as words or as input, may print it; so may one that
        // read a file saved with fetched text (to a pipe, a substitution or a file).
        self.fetched |= args.iter().any(|a| a.field.tainted) || fetched_input;
        let read_saved = std::mem::replace(&mut self.read_saved, read_saved_before);
        self.fetched |= read_saved;
        // Each file a command given fetched input, or one that read a file saved with fetched
        // text, writes what it reads into may hold that text (`dd of=`, `sponge`, a wrapped
        // `tee`, `rsync`): a later run of one runs fetched code. (Words of fetched text name
        // files; they are not what the files hold.)
        let written = std::mem::replace(&mut self.written_now, written_before);
        let extracts = std::mem::replace(&mut self.extracts_now, extracts_before);
        if input_fetched || read_saved {
            for target in &written {
                self.note_download_to(target, st);
            }
            // An archive of fetched text extracts files the walk cannot name: any file run
            // after it may be one (`curl … | tar xz; ./install.sh`).
            if extracts && self.quiet == 0 {
                st.downloads_unknown = true;
            }
        }
        self.name_accesses(mark, c);
        // A fetch whose output is redirected to a file downloads that file (`cat i.sh > j.sh`
        // copies one); so does `tee` given fetched input, to each file it names.
        if self.fetched {
            for target in stdout_to {
                self.note_download_to(&target, st);
            }
            if fetched_input && args[0].known().is_some_and(|n| n.rsplit('/').next() == Some("tee")) {
                for target in args[1..].iter().filter(|a| !a.known().is_some_and(|t| t.starts_with('-'))) {
                    self.note_download_to(target, st);
                }
            }
        }
        self.fetched |= fetched_before;
        if self.failed() || self.quiet > 0 {
            return;
        }
        if self.required_recorded == required_mark {
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
        let text = command_text(c, self.source.as_deref());
        for a in accesses[mark..].iter_mut().filter(|a| a.text.is_none()) {
            a.text = Some(text.clone());
        }
    }

    fn combine_append(&mut self, name: &str, value: Field, append: bool, st: &State) -> Field {
        if !append {
            return value;
        }
        let mut joined = match (self.var_value(name, st), value.known()) {
            (Some(old), Some(new)) => Field::literal(&format!("{old}{new}")),
            _ => Field::unknown(),
        };
        // What was fetched stays in the value it is appended to.
        joined.tainted = value.tainted || self.var_fetched(name, st);
        joined
    }

    fn assign_field(&mut self, name: &str, value: &Field, st: &mut State) {
        // Text fetched from the network stays so in the variable.
        let target = st.resolve_name(name).into_owned();
        self.set_fetched(&target, value.tainted, st);
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
    pub(super) fn static_stdout(&mut self, code: &str, st: &State) -> Option<String> {
        commands::static_output(code, self, st).map(|t| t + "\n")
    }

    pub(super) fn process_substitution(&mut self, sub: &ast::SubshellCommand, st: &mut State) -> bool {
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
    ) -> crate::analysis::word::Part {
        if self.quiet > 0 {
            // A subshell: in a quiet pass only its fixed output matters.
            return match commands::static_output(code, self, st) {
                Some(text) => crate::analysis::word::Part::Lit { text, quoted, split: !quoted },
                None => crate::analysis::word::Part::Unknown { numeric: false },
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
            Some(text) => crate::analysis::word::Part::Lit { text, quoted, split: !quoted },
            None => crate::analysis::word::Part::Unknown { numeric: false },
        }
    }
}

/// A simple command's text as written, on one line and at most [`COMMAND_TEXT_MAX`] characters.
fn command_text(c: &ast::SimpleCommand, source: Option<&str>) -> Arc<str> {
    let text = source.and_then(|s| written(c, s)).unwrap_or_else(|| c.to_string());
    if text.len() <= COMMAND_TEXT_MAX && !text.contains('\n') {
        return text.into();
    }
    let one_line = text.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(COMMAND_TEXT_MAX) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]).into(),
        None => one_line.into(),
    }
}

/// A simple command as written in `source`, the text it was parsed from: from its first item
/// to its last, with the operators of redirections that begin or end it, and only the first
/// line of a here-document (its delimiter, not its body). `None` where the parser recorded no
/// positions, or where they do not point at the command's words in `source` (a text the
/// parser read rewritten, or a body walked where it was not written).
fn written(c: &ast::SimpleCommand, source: &str) -> Option<String> {
    use ast::SourceLocation;
    // Character spans of the items, and whether the first item is a redirection.
    let mut spans: Vec<(usize, usize, bool)> = Vec::new();
    let word = |w: &ast::Word| w.loc.as_ref().map(|l| (l.start.index, l.end.index));
    let mut item = |i: &ast::CommandPrefixOrSuffixItem| {
        let span = match i {
            ast::CommandPrefixOrSuffixItem::Word(w) | ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                word(w).map(|(a, b)| (a, b, false))
            }
            // `<(` is just before the subshell's parenthesis.
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                sub.location().map(|l| (l.start.index.saturating_sub(1), l.end.index, false))
            }
            ast::CommandPrefixOrSuffixItem::IoRedirect(r) => match r {
                ast::IoRedirect::File(
                    _,
                    _,
                    ast::IoFileRedirectTarget::Filename(w) | ast::IoFileRedirectTarget::Duplicate(w),
                )
                | ast::IoRedirect::HereString(_, w)
                | ast::IoRedirect::OutputAndError(w, _) => word(w).map(|(a, b)| (a, b, true)),
                ast::IoRedirect::HereDocument(_, doc) => word(&doc.here_end).map(|(a, b)| (a, b, true)),
                ast::IoRedirect::File(_, _, ast::IoFileRedirectTarget::ProcessSubstitution(_, sub)) => {
                    sub.location().map(|l| (l.start.index.saturating_sub(1), l.end.index, true))
                }
                // `>&2`: found by extending the end below.
                ast::IoRedirect::File(_, _, ast::IoFileRedirectTarget::Fd(_)) => None,
            },
        };
        if let Some(span) = span {
            spans.push(span);
        }
    };
    c.prefix.iter().flat_map(|p| p.0.iter()).for_each(&mut item);
    let name = c.word_or_name.as_ref()?;
    c.suffix.iter().flat_map(|p| p.0.iter()).for_each(&mut item);
    let (name_start, name_end) = word(name)?;
    spans.push((name_start, name_end, false));
    // Character indexes to byte offsets (the same in ASCII text; other text is walked for
    // each, so only where it is short: a longer one is quoted as the parser prints it).
    let byte = |index: usize| -> Option<usize> {
        if source.is_ascii() {
            (index <= source.len()).then_some(index)
        } else if source.len() <= 8 * 1024 {
            source.char_indices().map(|(b, _)| b).chain(std::iter::once(source.len())).nth(index)
        } else {
            None
        }
    };
    // The positions must point at the command's name as the parser read it.
    if source.get(byte(name_start)?..byte(name_end)?)? != name.value {
        return None;
    }
    let &(first, _, redirect_first) = spans.iter().min_by_key(|s| s.0)?;
    let last = spans.iter().map(|s| s.1).max()?;
    let b = source.as_bytes();
    let mut start = byte(first)?;
    if redirect_first {
        // Back over the operator and its descriptor number (`2> `, `{fd}<`).
        let mut j = start;
        while j > 0 && matches!(b[j - 1], b' ' | b'\t') {
            j -= 1;
        }
        let op = j;
        while j > 0 && matches!(b[j - 1], b'<' | b'>' | b'&' | b'|') {
            j -= 1;
        }
        if j < op {
            while j > 0 && (b[j - 1].is_ascii_digit()) {
                j -= 1;
            }
            start = j;
        }
    }
    let mut end = byte(last)?;
    // On over redirections to descriptors that follow (`2>&1`, `>&-`).
    loop {
        let mut j = end;
        while matches!(b.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        let op = j;
        while matches!(b.get(j), Some(b'<' | b'>' | b'&')) {
            j += 1;
        }
        if j == op || !b[op..j].contains(&b'&') {
            break;
        }
        let target = j;
        while b.get(j).is_some_and(|c| c.is_ascii_digit() || *c == b'-') {
            j += 1;
        }
        if j == target {
            break;
        }
        end = j;
    }
    source.get(start..end).map(str::to_string)
}

/// How much of a command's text an explanation repeats.
const COMMAND_TEXT_MAX: usize = 160;
