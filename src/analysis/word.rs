//! Word expansion, as far as it can be known statically: quotes, `$'…'`, tilde, variables
//! that hold simple literal values, `"$@"`, brace expansion and field splitting. Every piece
//! of code a word carries (`$(…)`, backquotes, `${x:-$(…)}` operands, arithmetic and array
//! subscripts) is handed back to the walker to analyse; its output is unknown unless it is one
//! of a few forms whose output is fixed (`pwd`, `echo LITERAL`, `echo B64 | base64 -d`, …).

use brush_parser::word::{Parameter, ParameterExpr, SpecialParameter, TildeExpr, WordPiece, WordPieceWithSource};

use super::Pos;
use super::parse;
use super::walk::{State, Val, Walker};

/// One part of an expanded field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Known text. `quoted` text is not split or globbed; `split` marks the unquoted result of
    /// an expansion, which bash splits on IFS.
    Lit { text: String, quoted: bool, split: bool },
    /// Text the analysis cannot know. `numeric` when it can only be a number (`$$`, `$?`,
    /// arithmetic), so it cannot contain `/` or `..`.
    Unknown { numeric: bool },
    /// One of several known texts (a variable assigned on different paths), or, when `open`,
    /// possibly something else too.
    Choice { values: Vec<String>, open: bool, quoted: bool, split: bool },
    /// A break between fields (`"$@"`).
    Break,
}

/// The value of one field after expansion.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Field {
    pub parts: Vec<Part>,
    /// Some of it came from the network (`$(curl …)`).
    pub tainted: bool,
    /// The contents of the file it names, when known (`<(echo …)`).
    pub content: Option<String>,
}

impl Field {
    /// A field of known, quoted text.
    pub fn literal(text: &str) -> Field {
        Field {
            parts: vec![Part::Lit { text: text.into(), quoted: true, split: false }],
            tainted: false,
            content: None,
        }
    }

    /// A field whose value is not known at all.
    pub fn unknown() -> Field {
        Field { parts: vec![Part::Unknown { numeric: false }], tainted: false, content: None }
    }

    /// The text, when every part is known.
    pub fn known(&self) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Lit { text, .. } => out.push_str(text),
                Part::Unknown { .. } | Part::Choice { .. } => return None,
                Part::Break => {}
            }
        }
        Some(out)
    }

    /// Every text the field may have, when there are few and no part is wholly unknown; and
    /// whether it may also have others.
    pub fn alternatives(&self) -> Option<(Vec<String>, bool)> {
        let mut acc = vec![String::new()];
        let mut open = false;
        for part in &self.parts {
            match part {
                Part::Lit { text, .. } => acc.iter_mut().for_each(|a| a.push_str(text)),
                Part::Unknown { .. } => return None,
                Part::Break => {}
                Part::Choice { values, open: o, .. } => {
                    open |= *o;
                    if values.is_empty() {
                        return None;
                    }
                    if acc.len() * values.len() > super::walk::MAX_CHOICES * 4 {
                        return None;
                    }
                    acc = acc.iter().flat_map(|a| values.iter().map(move |v| format!("{a}{v}"))).collect();
                }
            }
        }
        Some((acc, open))
    }

    /// The name of the file the field names, after its last `/`, when that much is known
    /// (`"$dir/data.json"`).
    pub fn last_component(&self) -> Option<String> {
        match self.parts.last()? {
            Part::Lit { text, .. } => text.rsplit_once('/').map(|(_, n)| n.to_string()).filter(|n| !n.is_empty()),
            _ => None,
        }
    }

    /// Whether some part is a choice that bash would split on IFS.
    pub fn splits_choices(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Choice { split: true, .. }))
    }

    /// The known text before the first unknown part.
    pub fn prefix(&self) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Lit { text, .. } => out.push_str(text),
                _ => break,
            }
        }
        out
    }

    /// The text with `number` in place of each unknown part (for a field whose unknown parts
    /// are only numbers).
    pub fn with_numbers(&self, number: &str) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Lit { text, .. } => out.push_str(text),
                Part::Unknown { .. } => out.push_str(number),
                Part::Choice { .. } | Part::Break => {}
            }
        }
        out
    }

    /// Whether every unknown part is a number (so the directory part is certain).
    pub fn only_numbers_unknown(&self) -> bool {
        self.parts.iter().all(|p| !matches!(p, Part::Unknown { numeric: false } | Part::Choice { .. }))
    }

    /// Known literal runs, for name checks on partly known paths.
    pub fn fragments(&self) -> Vec<&str> {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Lit { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Whether unquoted known text holds glob characters.
    pub fn has_glob(&self) -> bool {
        self.parts.iter().any(|p| match p {
            Part::Lit { text, quoted: false, .. } => text.contains(['*', '?', '[']),
            _ => false,
        })
    }

    /// The pattern for glob matching: quoted glob characters are escaped.
    pub fn glob_pattern(&self) -> String {
        let mut out = String::new();
        for part in &self.parts {
            if let Part::Lit { text, quoted, .. } = part {
                for c in text.chars() {
                    if *quoted && matches!(c, '*' | '?' | '[' | ']' | '\\') {
                        out.push('\\');
                    }
                    out.push(c);
                }
            }
        }
        out
    }

    fn is_empty_unquoted(&self) -> bool {
        self.parts.iter().all(|p| matches!(p, Part::Lit { text, quoted: false, .. } if text.is_empty()))
    }
}

/// An expanded argument with where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    pub field: Field,
    pub pos: Pos,
    /// The word as written, for messages.
    pub raw: String,
}

impl Arg {
    /// The known text of the argument.
    pub fn known(&self) -> Option<String> {
        self.field.known()
    }
}

/// Variables bash sets itself that only ever hold numbers.
pub const NUMERIC_BASH_VARS: &[&str] =
    &["RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID", "EUID", "SHLVL", "OPTIND", "EPOCHSECONDS"];

/// Most fields a single word may expand to through braces before the analysis stops
/// enumerating them and keeps only what is common to all.
const MAX_BRACE_FIELDS: usize = 256;

/// The code of a word that is a whole process substitution, `<(…)` or `>(…)`.
fn process_substitution_word(raw: &str) -> Option<&str> {
    let inner = raw.strip_prefix("<(").or_else(|| raw.strip_prefix(">("))?.strip_suffix(')')?;
    // The first parenthesis closes at the end (counted roughly: quotes are not followed).
    let mut depth = 1usize;
    for c in inner.bytes() {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return None;
                }
            }
            _ => {}
        }
    }
    Some(inner)
}

/// Most variables arithmetic follows into each other's values at once (`a='b+1' b='c+1' …`).
const MAX_ARITHMETIC_VALUES: usize = 32;

/// Decodes the body of a `$'…'` string.
pub fn decode_ansi_c(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'e' | 'E' => out.push('\x1b'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            '?' => out.push('?'),
            'c' => {
                if let Some(x) = chars.next() {
                    out.push(char::from((x as u32 & 0x1f) as u8));
                }
            }
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                push_byte_char(&mut out, v);
            }
            'x' | 'u' | 'U' => {
                let max = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut v = 0u32;
                let mut n = 0;
                while n < max {
                    match chars.peek().and_then(|d| d.to_digit(16)) {
                        Some(d) => {
                            v = v.wrapping_mul(16).wrapping_add(d);
                            chars.next();
                            n += 1;
                        }
                        None => break,
                    }
                }
                if n == 0 {
                    out.push('\\');
                    out.push(e);
                } else if e == 'x' {
                    push_byte_char(&mut out, v);
                } else if let Some(ch) = char::from_u32(v) {
                    out.push(ch);
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

fn push_byte_char(out: &mut String, v: u32) {
    // bash emits the raw byte; only ASCII bytes matter for paths and command names here.
    if let Some(ch) = char::from_u32(v & 0xff) {
        out.push(ch);
    }
}

/// Splits text on the default IFS (space, tab, newline), or on the given IFS characters.
fn split_ifs(text: &str, ifs: &str) -> Vec<String> {
    text.split(|c: char| ifs.contains(c)).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

/// The bytes that make a command word more than its plain text: quoting, expansions, tilde,
/// braces and glob characters. A table, because every word of the program is tested.
static SPECIAL_IN_WORD: [bool; 256] = {
    let mut table = [false; 256];
    let special = b"$`\\'\"~{*?[";
    let mut i = 0;
    while i < special.len() {
        table[special[i] as usize] = true;
        i += 1;
    }
    table
};

/// Whether a word with byte `b` in it has more to it than its text: quoting, an expansion or
/// a tilde (a word without any is taken as written, unsplit).
pub fn needs_split(b: u8) -> bool {
    matches!(b, b'$' | b'`' | b'\\' | b'\'' | b'"' | b'~')
}

/// The words brace expansion makes of `raw`; `None` when there are too many to list.
pub fn brace_variants(raw: &str) -> Option<Vec<String>> {
    if !raw.contains('{') {
        return Some(vec![raw.to_string()]);
    }
    brace_expand(raw, MAX_BRACE_FIELDS)
}

/// The position of byte `index` of a word that starts at `start`.
pub fn offset_pos(start: Pos, text: &str, index: usize) -> Pos {
    let before = &text[..index.min(text.len())];
    match before.rfind('\n') {
        None => Pos { line: start.line, column: start.column + before.chars().count() },
        Some(nl) => {
            Pos { line: start.line + before.matches('\n').count(), column: before[nl + 1..].chars().count() + 1 }
        }
    }
}

impl Walker<'_> {
    /// Expands a word as a command argument: braces, expansions, splitting; one [`Arg`] per field.
    pub fn expand_word(&mut self, raw: &str, pos: Pos, st: &mut State) -> Vec<Arg> {
        let mut out = Vec::new();
        self.expand_word_into(raw, pos, st, &mut out);
        out
    }

    /// [`Self::expand_word`], its fields added to `all` (a command's words, each added in turn).
    pub fn expand_word_into(&mut self, raw: &str, pos: Pos, st: &mut State, all: &mut Vec<Arg>) {
        // Most words are plain text: one field, as written.
        if !raw.is_empty() && !raw.bytes().any(|b| SPECIAL_IN_WORD[usize::from(b)]) {
            let field = Field {
                parts: vec![Part::Lit { text: raw.to_string(), quoted: false, split: false }],
                ..Field::default()
            };
            all.push(Arg { field, pos, raw: raw.to_string() });
            return;
        }
        let first = all.len();
        // (A word with no brace is its only variant, taken as it is.)
        let braced = raw.contains('{');
        let variants = if braced { brace_expand(raw, MAX_BRACE_FIELDS) } else { Some(Vec::new()) };
        let Some(variants) = variants else {
            // Too many words to list: the code in it is still walked, but what it expands to is
            // known only up to its first brace, quote or expansion.
            self.eval_text(raw, pos, st, false);
            let literal = &raw[..raw.find(['{', '$', '`', '\'', '"', '\\']).unwrap_or(raw.len())];
            let parts = vec![
                Part::Lit { text: literal.to_string(), quoted: false, split: false },
                Part::Unknown { numeric: false },
            ];
            let field = Field { parts, tainted: self.take_taint(), content: None };
            all.push(Arg { field, pos, raw: raw.to_string() });
            return;
        };
        let whole = [raw];
        let each: &mut dyn Iterator<Item = &str> =
            if braced { &mut variants.iter().map(String::as_str) } else { &mut whole.into_iter() };
        for variant in each {
            let parts = self.eval_text(variant, pos, st, false);
            let ifs = if parts.iter().any(|p| matches!(p, Part::Lit { split: true, .. })) {
                self.ifs(st)
            } else {
                String::new()
            };
            for field in split_fields(parts, &ifs) {
                all.push(Arg { field, pos, raw: raw.to_string() });
            }
        }
        let out = &mut all[first..];
        if self.take_taint() {
            // `"$@"` alone makes one field of each parameter, fetched or not.
            let each = matches!(raw, "\"$@\"" | "\"${@}\"")
                && !self.volatile_positional
                && st.all_positional().is_some_and(|params| params.len() == out.len());
            for (i, a) in out.iter_mut().enumerate() {
                a.field.tainted = !each || st.param_tainted(Some(i + 1));
            }
        }
        for a in &all[first..] {
            self.glob_listing(a, st);
        }
    }

    /// Expands a word that is not split (assignment values, redirection targets, `case` words).
    pub fn expand_single(&mut self, raw: &str, pos: Pos, st: &mut State) -> Field {
        // A process substitution the parser left as a word (`2>&<(…)`, `&> >(…)`, `<<< <(…)`):
        // bash runs it and the word is a `/dev/fd` path.
        if let Some(code) = process_substitution_word(raw) {
            // (In a quiet pass the walk records nothing.)
            self.run_verbatim(code, offset_pos(pos, raw, 2), st, crate::analysis::programs::Nest::Subshell);
            return Field::unknown();
        }
        let parts = self.eval_text(raw, pos, st, false);
        let mut field = Field::default();
        for part in parts {
            match part {
                Part::Break => field.parts.push(Part::Lit { text: " ".into(), quoted: true, split: false }),
                Part::Lit { text, split: true, .. } => field.parts.push(Part::Lit { text, quoted: true, split: false }),
                Part::Choice { values, open, .. } => {
                    field.parts.push(Part::Choice { values, open, quoted: true, split: false })
                }
                other => field.parts.push(other),
            }
        }
        field.tainted = self.take_taint();
        field
    }

    /// Parses `text` as a word and evaluates its pieces.
    pub fn eval_text(&mut self, text: &str, pos: Pos, st: &mut State, in_double: bool) -> Vec<Part> {
        if self.failed() {
            return vec![Part::Unknown { numeric: false }];
        }
        // Most words are plain text: no quoting, expansion or tilde to look at.
        if !text.bytes().any(needs_split) {
            return vec![Part::Lit { text: text.to_string(), quoted: in_double, split: false }];
        }
        let Some(pieces) = self.split(text, pos, false, st) else {
            return vec![Part::Unknown { numeric: false }];
        };
        self.eval_pieces(&pieces, text, pos, st, in_double)
    }

    /// The pieces of a word, or of a here-document body (`heredoc`: quotes are plain text
    /// there). Both are evaluated again in loop passes and function calls, so each text is
    /// split once. `None` when the parser rejects it: beyond the fixed bounds the failure is
    /// recorded at `pos`; otherwise its value is unknown and code in it runs unseen.
    fn split(
        &mut self,
        text: &str,
        pos: Pos,
        heredoc: bool,
        st: &mut State,
    ) -> Option<std::rc::Rc<Vec<WordPieceWithSource>>> {
        let cache = if heredoc { &self.heredoc_cache } else { &self.word_cache };
        if let Some(pieces) = cache.get(text) {
            return Some(std::rc::Rc::clone(pieces));
        }
        match if heredoc { parse::heredoc(text) } else { parse::word(text) } {
            Ok(pieces) => {
                let pieces = std::rc::Rc::new(pieces);
                let cache = if heredoc { &mut self.heredoc_cache } else { &mut self.word_cache };
                cache.insert(text.to_string(), std::rc::Rc::clone(&pieces));
                Some(pieces)
            }
            Err(mut f) => {
                if parse::word_within_bounds(text, heredoc) {
                    let what = format!("a word the parser cannot read ({})", f.message);
                    self.unseen_expansion(text, &what, pos, st);
                } else {
                    f.pos = Some(pos);
                    self.fail(f);
                }
                None
            }
        }
    }

    /// Evaluates a here-document body; returns its text when fully known.
    pub fn eval_heredoc(&mut self, text: &str, pos: Pos, st: &mut State) -> Option<String> {
        let pieces = self.split(text, pos, true, st)?;
        let parts = self.eval_pieces(&pieces, text, pos, st, true);
        Field { parts, ..Field::default() }.known()
    }

    fn eval_pieces(
        &mut self,
        pieces: &[WordPieceWithSource],
        raw: &str,
        pos: Pos,
        st: &mut State,
        quoted: bool,
    ) -> Vec<Part> {
        let mut out = Vec::new();
        for p in pieces {
            // Where the piece starts: counted only for the pieces that need it.
            let at = || offset_pos(pos, raw, p.start_index);
            match &p.piece {
                WordPiece::Text(t) => {
                    let next = raw.as_bytes().get(p.end_index).copied();
                    let dangling = t.ends_with('$') && matches!(next, Some(b'{' | b'('));
                    if t.contains("${") || t.contains("$(") || t.contains('`') || dangling {
                        // bash expands it (and may run code in it); the parser could not say
                        // how, so its value is unknown and it is code the analysis cannot see.
                        let what = format!("an expansion the parser cannot follow: {t}");
                        self.unseen_expansion(raw, &what, at(), st);
                        out.push(Part::Unknown { numeric: false });
                        continue;
                    }
                    out.push(Part::Lit { text: t.clone(), quoted, split: false });
                }
                WordPiece::SingleQuotedText(t) => out.push(Part::Lit { text: t.clone(), quoted: true, split: false }),
                WordPiece::AnsiCQuotedText(t) => {
                    out.push(Part::Lit { text: decode_ansi_c(t), quoted: true, split: false })
                }
                WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    // The inner pieces' indices are relative to this word too.
                    let parts = self.eval_pieces(inner, raw, pos, st, true);
                    if parts.is_empty() {
                        out.push(Part::Lit { text: String::new(), quoted: true, split: false });
                    }
                    out.extend(parts);
                }
                WordPiece::EscapeSequence(e) => {
                    let ch = e.strip_prefix('\\').unwrap_or(e);
                    let text = if quoted && !matches!(ch, "$" | "`" | "\"" | "\\" | "\n") {
                        e.clone()
                    } else if ch == "\n" {
                        String::new()
                    } else {
                        ch.to_string()
                    };
                    out.push(Part::Lit { text, quoted: true, split: false });
                }
                WordPiece::TildeExpansion(t) => {
                    let value = match t {
                        TildeExpr::Home => self.var_value("HOME", st),
                        TildeExpr::WorkingDir => st.cwd.clone(),
                        TildeExpr::OldWorkingDir => self.var_value("OLDPWD", st),
                        _ => None,
                    };
                    match value {
                        Some(v) => out.push(Part::Lit { text: v, quoted: true, split: false }),
                        None => out.push(Part::Unknown { numeric: false }),
                    }
                }
                WordPiece::ParameterExpansion(e) => {
                    let parts = self.eval_parameter(e, at(), st, quoted);
                    out.extend(parts);
                }
                WordPiece::CommandSubstitution(code) => {
                    // `$(` is two bytes before the body.
                    let body_pos = offset_pos(pos, raw, p.start_index + 2);
                    self.expanding.push(raw.to_string());
                    out.push(self.command_substitution(code, body_pos, true, st, quoted));
                    self.expanding.pop();
                }
                WordPiece::BackquotedCommandSubstitution(code) => {
                    self.expanding.push(raw.to_string());
                    out.push(self.command_substitution(code, at(), false, st, quoted));
                    self.expanding.pop();
                }
                WordPiece::ArithmeticExpression(expr) => {
                    self.arithmetic(&expr.value, at(), st);
                    out.push(Part::Unknown { numeric: true });
                }
            }
        }
        out
    }

    fn eval_parameter(&mut self, e: &ParameterExpr, pos: Pos, st: &mut State, quoted: bool) -> Vec<Part> {
        // First analyse every operand that carries code, whether or not bash will expand it.
        let operand = |this: &mut Self, text: &Option<String>, st: &mut State| -> Option<Vec<Part>> {
            text.as_ref().map(|t| this.eval_text(t, pos, st, quoted))
        };
        match e {
            ParameterExpr::Parameter { parameter, indirect } => {
                self.parameter_value(parameter, *indirect, pos, st, quoted)
            }
            ParameterExpr::UseDefaultValues { parameter, indirect, test_type, default_value }
            | ParameterExpr::AssignDefaultValues { parameter, indirect, test_type, default_value } => {
                let assign = matches!(e, ParameterExpr::AssignDefaultValues { .. });
                let current = self.parameter_value(parameter, *indirect, pos, st, quoted);
                let fallback = operand(self, default_value, st).unwrap_or_default();
                let current_field = Field { parts: current.clone(), ..Field::default() };
                let null_counts = matches!(test_type, brush_parser::word::ParameterTestType::UnsetOrNull);
                let is_set = if *indirect { None } else { self.param_is_set(parameter, st) };
                match (current_field.known(), is_set) {
                    (Some(v), Some(true)) if !v.is_empty() || !null_counts => current,
                    (Some(_), Some(false)) | (Some(_), Some(true)) => {
                        if assign && let Parameter::Named(n) = parameter {
                            let value = Field { parts: fallback.clone(), ..Field::default() }.known();
                            st.set_var(n, value);
                        }
                        fallback
                    }
                    _ => {
                        if assign && let Parameter::Named(n) = parameter {
                            st.set_var(n, None);
                        }
                        vec![Part::Unknown { numeric: false }]
                    }
                }
            }
            ParameterExpr::IndicateErrorIfNullOrUnset { parameter, indirect, error_message, .. } => {
                operand(self, error_message, st);
                self.parameter_value(parameter, *indirect, pos, st, quoted)
            }
            ParameterExpr::UseAlternativeValue { parameter, indirect, alternative_value, test_type } => {
                let current = self.parameter_value(parameter, *indirect, pos, st, quoted);
                let alternative = operand(self, alternative_value, st).unwrap_or_default();
                let set = if *indirect { None } else { self.param_is_set(parameter, st) };
                let current_known = Field { parts: current, ..Field::default() }.known();
                // `${p+alt}` gives alt when p is set; `${p:+alt}` when it is set and not empty.
                let null_counts = matches!(test_type, brush_parser::word::ParameterTestType::UnsetOrNull);
                let empty = || vec![Part::Lit { text: String::new(), quoted, split: !quoted }];
                match (set, current_known) {
                    (Some(false), _) => empty(),
                    (Some(true), Some(v)) if null_counts && v.is_empty() => empty(),
                    (Some(true), Some(_)) => alternative,
                    (Some(true), None) if !null_counts => alternative,
                    // Either: the alternative or nothing.
                    _ => match (Field { parts: alternative.clone(), ..Field::default() }).known() {
                        Some(text) => {
                            let split =
                                !quoted && alternative.iter().all(|p| !matches!(p, Part::Lit { quoted: true, .. }));
                            vec![Part::Choice { values: vec![text, String::new()], open: false, quoted, split }]
                        }
                        None => vec![Part::Unknown { numeric: false }],
                    },
                }
            }
            ParameterExpr::ParameterLength { parameter, indirect } => {
                self.parameter_value(parameter, *indirect, pos, st, quoted);
                vec![Part::Unknown { numeric: true }]
            }
            ParameterExpr::RemoveSmallestSuffixPattern { parameter, indirect, pattern }
            | ParameterExpr::RemoveLargestSuffixPattern { parameter, indirect, pattern }
            | ParameterExpr::RemoveSmallestPrefixPattern { parameter, indirect, pattern }
            | ParameterExpr::RemoveLargestPrefixPattern { parameter, indirect, pattern }
            | ParameterExpr::UppercaseFirstChar { parameter, indirect, pattern }
            | ParameterExpr::UppercasePattern { parameter, indirect, pattern }
            | ParameterExpr::LowercaseFirstChar { parameter, indirect, pattern }
            | ParameterExpr::LowercasePattern { parameter, indirect, pattern } => {
                self.parameter_value(parameter, *indirect, pos, st, quoted);
                operand(self, pattern, st);
                vec![Part::Unknown { numeric: false }]
            }
            ParameterExpr::Substring { parameter, indirect, offset, length } => {
                self.parameter_value(parameter, *indirect, pos, st, quoted);
                self.arithmetic(&offset.value, pos, st);
                if let Some(l) = length {
                    self.arithmetic(&l.value, pos, st);
                }
                vec![Part::Unknown { numeric: false }]
            }
            ParameterExpr::Transform { parameter, indirect, op } => {
                let value = self.parameter_value(parameter, *indirect, pos, st, quoted);
                if matches!(op, brush_parser::word::ParameterTransformOp::PromptExpand) {
                    // `${x@P}` expands the value as a prompt: its substitutions run.
                    match (Field { parts: value, ..Field::default() }).known() {
                        Some(text) if text.contains('$') || text.contains('`') => {
                            self.eval_text(&text, pos, st, true);
                        }
                        Some(_) => {}
                        None => self.unseen_expansion(
                            &format!("${{{parameter}@P}}"),
                            "a value expanded as a prompt, which the analysis cannot know",
                            pos,
                            st,
                        ),
                    }
                }
                vec![Part::Unknown { numeric: false }]
            }
            ParameterExpr::ReplaceSubstring { parameter, indirect, pattern, replacement, .. } => {
                self.parameter_value(parameter, *indirect, pos, st, quoted);
                self.eval_text(pattern, pos, st, quoted);
                operand(self, replacement, st);
                vec![Part::Unknown { numeric: false }]
            }
            ParameterExpr::VariableNames { .. } | ParameterExpr::MemberKeys { .. } => {
                vec![Part::Unknown { numeric: false }]
            }
        }
    }

    fn parameter_value(&mut self, p: &Parameter, indirect: bool, pos: Pos, st: &mut State, quoted: bool) -> Vec<Part> {
        if indirect {
            // `${!x}`: the value of the variable named by x's value. A known name is followed;
            // a subscript in it is code bash evaluates.
            let target = self.parameter_value(p, false, pos, st, quoted);
            if let Some(name) = (Field { parts: target, ..Field::default() }).known() {
                if name.contains('[') {
                    self.subscript_text(&name, pos, st);
                }
                if is_name(&name) {
                    return self.named_value(&name, st, quoted);
                }
            }
            return vec![Part::Unknown { numeric: false }];
        }
        // A parameter that may hold fetched text makes the word fetched.
        let tainted = match p {
            Parameter::Named(name)
            | Parameter::NamedWithIndex { name, .. }
            | Parameter::NamedWithAllIndices { name, .. } => self.var_fetched(name, st),
            Parameter::Positional(n) => self.param_fetched(Some(*n as usize), st),
            Parameter::Special(SpecialParameter::AllPositionalParameters { .. }) => self.param_fetched(None, st),
            Parameter::Special(_) => false,
        };
        if tainted {
            self.pending_taint = true;
        }
        match p {
            Parameter::Named(name) => self.named_value(name, st, quoted),
            Parameter::Positional(_) if self.volatile_positional => vec![Part::Unknown { numeric: false }],
            Parameter::Positional(n) => val_parts(&st.positional_val(*n as usize), quoted),
            Parameter::NamedWithIndex { name, index } => {
                self.arithmetic(index, pos, st);
                match self.var_val(name, st) {
                    Val::Array(items) => match index.trim().parse::<usize>() {
                        Ok(i) => {
                            vec![Part::Lit { text: items.get(i).cloned().unwrap_or_default(), quoted, split: !quoted }]
                        }
                        Err(_) => {
                            let mut values: Vec<String> = items;
                            values.push(String::new());
                            values.sort();
                            values.dedup();
                            vec![Part::Choice { values, open: false, quoted, split: !quoted }]
                        }
                    },
                    Val::Unset => vec![Part::Lit { text: String::new(), quoted, split: !quoted }],
                    Val::Known(v) if index.trim() == "0" => vec![Part::Lit { text: v, quoted, split: !quoted }],
                    _ => vec![Part::Unknown { numeric: false }],
                }
            }
            Parameter::NamedWithAllIndices { name, concatenate } => match self.var_val(name, st) {
                Val::Array(items) => {
                    list_parts(items.into_iter().map(Val::Known).collect(), quoted, *concatenate, || self.joiner(st))
                }
                Val::Unset => list_parts(Vec::new(), quoted, *concatenate, || self.joiner(st)),
                Val::Known(v) => list_parts(vec![Val::Known(v)], quoted, *concatenate, || self.joiner(st)),
                _ => vec![Part::Unknown { numeric: false }],
            },
            Parameter::Special(s) => match s {
                SpecialParameter::AllPositionalParameters { concatenate } => match st.all_positional() {
                    Some(values) if !self.volatile_positional => {
                        list_parts(values, quoted, *concatenate, || self.joiner(st))
                    }
                    _ => vec![Part::Unknown { numeric: false }],
                },
                SpecialParameter::ShellName => vec![Part::Lit { text: st.arg0.clone(), quoted, split: !quoted }],
                SpecialParameter::CurrentOptionFlags => vec![Part::Unknown { numeric: false }],
                SpecialParameter::PositionalParameterCount
                | SpecialParameter::LastExitStatus
                | SpecialParameter::ProcessId
                | SpecialParameter::LastBackgroundProcessId => vec![Part::Unknown { numeric: true }],
            },
        }
    }

    /// Whether `parameter` is set, when that is known: a variable. (Not a positional parameter:
    /// after a branch that set them, one may be set on one path only. `${!name-…}` tests the
    /// variable `name` names, not `name`: the caller does not ask then.)
    fn param_is_set(&self, parameter: &Parameter, st: &State) -> Option<bool> {
        match parameter {
            Parameter::Named(n) => self.var_is_set(n, st),
            Parameter::Positional(0) => Some(true),
            Parameter::Positional(n) => st.positional_is_set(*n as usize),
            _ => None,
        }
    }

    /// What `"$*"` and `"${a[*]}"` join their elements with: the first character of `IFS`,
    /// when `IFS` is known.
    fn joiner(&self, st: &State) -> Option<String> {
        self.exact_ifs(st).map(|ifs| ifs.chars().next().map(String::from).unwrap_or_default())
    }

    fn named_value(&mut self, name: &str, st: &mut State, quoted: bool) -> Vec<Part> {
        if NUMERIC_BASH_VARS.contains(&name) && self.var_is_set(name, st).is_none() {
            return vec![Part::Unknown { numeric: true }];
        }
        val_parts(&self.var_val(name, st), quoted)
    }

    /// Analyses an arithmetic expression for the code it can run: substitutions, and the
    /// subscripts of array references (which bash expands and evaluates).
    pub fn arithmetic(&mut self, text: &str, pos: Pos, st: &mut State) {
        if text.contains('$') || text.contains('`') {
            self.eval_text(text, pos, st, true);
            // Single quotes around the whole of it do not keep bash from expanding what they
            // hold (`${a['$(cmd)']}` runs cmd).
            if let Some(inner) = single_quoted(text) {
                self.eval_text(inner, pos, st, true);
            }
        }
        if text.contains('[') {
            self.subscript_text(text, pos, st);
        }
        // A variable whose known value holds code runs that code when evaluated here. A value
        // that refers to itself again (`c='$((c))'`) is walked once: bash stops it with an
        // error, and walking it again shows nothing new.
        for ident in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|s| is_name(s)) {
            if self.arithmetic_values.iter().any(|v| v == ident) {
                continue;
            }
            if self.arithmetic_values.len() >= MAX_ARITHMETIC_VALUES {
                self.unseen_expansion(ident, "a variable whose value arithmetic evaluates too deeply", pos, st);
                continue;
            }
            if let Some(v) = self.var_value(ident, st)
                && (v.contains("$(") || v.contains('`') || v.contains('['))
            {
                self.arithmetic_values.push(ident.to_string());
                if v.contains('$') || v.contains('`') {
                    self.eval_text(&v, pos, st, true);
                }
                if v.contains('[') {
                    self.subscript_text(&v, pos, st);
                }
                self.arithmetic_values.pop();
            }
        }
    }

    /// Analyses the text inside every `[...]` of a variable reference as a word.
    pub fn subscript_text(&mut self, text: &str, pos: Pos, st: &mut State) {
        // Each subscript once: a value made of one repeated many times walks it once.
        let mut seen: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
        let mut rest = text;
        while let Some(open) = rest.find('[') {
            let inner = &rest[open + 1..];
            let mut depth = 1;
            let mut end = None;
            for (i, c) in inner.char_indices() {
                match c {
                    '[' => depth += 1,
                    ']' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(i);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let Some(end) = end else { break };
            let sub = &inner[..end];
            if (sub.contains('$') || sub.contains('`')) && seen.insert(sub) {
                self.eval_text(sub, pos, st, true);
                // Bash expands a subscript as it evaluates it, and single quotes around it do
                // not keep that from running what they hold (`a['$(cmd)']=1`).
                if let Some(inner) = single_quoted(sub) {
                    self.eval_text(inner, pos, st, true);
                }
            }
            rest = &inner[end + 1..];
        }
    }
}

/// What `text` holds inside single quotes, when it is one single-quoted string (blanks around
/// it aside).
fn single_quoted(text: &str) -> Option<&str> {
    let inner = text.trim().strip_prefix('\'')?.strip_suffix('\'')?;
    (!inner.contains('\'')).then_some(inner)
}

/// The parts a variable's value expands to.
fn val_parts(v: &Val, quoted: bool) -> Vec<Part> {
    match v {
        Val::Unset => vec![Part::Lit { text: String::new(), quoted, split: !quoted }],
        Val::Known(text) => vec![Part::Lit { text: text.clone(), quoted, split: !quoted }],
        Val::Array(items) => {
            vec![Part::Lit { text: items.first().cloned().unwrap_or_default(), quoted, split: !quoted }]
        }
        Val::Choice { values, open } if values.is_empty() => {
            let _ = open;
            vec![Part::Unknown { numeric: false }]
        }
        Val::Choice { values, open } => {
            vec![Part::Choice { values: values.iter().cloned().collect(), open: *open, quoted, split: !quoted }]
        }
    }
}

/// The parts of a list's elements: `"$@"` one field each; `"$*"` one field, joined with the
/// first character of `IFS` (`joiner`, asked only there: `None` when `IFS` is not known);
/// unquoted, words split.
fn list_parts(values: Vec<Val>, quoted: bool, concatenate: bool, joiner: impl FnOnce() -> Option<String>) -> Vec<Part> {
    let mut out = Vec::new();
    if quoted && concatenate {
        let Some(joiner) = joiner() else { return vec![Part::Unknown { numeric: false }] };
        for (i, v) in values.iter().enumerate() {
            if i > 0 && !joiner.is_empty() {
                out.push(Part::Lit { text: joiner.clone(), quoted: true, split: false });
            }
            out.extend(val_parts(v, true));
        }
        if out.is_empty() {
            out.push(Part::Lit { text: String::new(), quoted: true, split: false });
        }
    } else if quoted {
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                out.push(Part::Break);
            }
            out.extend(val_parts(v, true));
        }
        if out.is_empty() {
            // "$@" with no parameters expands to no field at all.
            out.push(Part::Break);
        }
    } else {
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                out.push(Part::Lit { text: " ".into(), quoted, split: !quoted });
            }
            out.extend(val_parts(v, quoted));
        }
        if out.is_empty() {
            out.push(Part::Lit { text: String::new(), quoted, split: !quoted });
        }
    }
    out
}

/// Whether `s` is a valid shell variable name.
pub fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Turns evaluated parts into fields: breaks from `"$@"` and IFS splitting of unquoted
/// expansion results. An unquoted expansion that is empty produces no field.
pub fn split_fields(parts: Vec<Part>, ifs: &str) -> Vec<Field> {
    let mut fields: Vec<Field> = Vec::new();
    let mut cur = Field::default();
    let mut started = false;
    let mut any_quoted = false;
    let flush = |cur: &mut Field, fields: &mut Vec<Field>, started: &mut bool, any_quoted: &mut bool| {
        if *started && (*any_quoted || !cur.is_empty_unquoted()) {
            fields.push(std::mem::take(cur));
        } else {
            *cur = Field::default();
        }
        *started = false;
        *any_quoted = false;
    };
    for part in parts {
        match part {
            Part::Break => flush(&mut cur, &mut fields, &mut started, &mut any_quoted),
            Part::Lit { text, split: true, .. } => {
                let starts_with_sep = text.starts_with(|c: char| ifs.contains(c));
                let ends_with_sep = text.ends_with(|c: char| ifs.contains(c));
                let pieces = split_ifs(&text, ifs);
                if pieces.is_empty() {
                    if !text.is_empty() {
                        flush(&mut cur, &mut fields, &mut started, &mut any_quoted);
                    }
                    continue;
                }
                if starts_with_sep {
                    flush(&mut cur, &mut fields, &mut started, &mut any_quoted);
                }
                let n = pieces.len();
                for (i, piece) in pieces.into_iter().enumerate() {
                    cur.parts.push(Part::Lit { text: piece, quoted: false, split: false });
                    started = true;
                    if i + 1 < n || ends_with_sep {
                        flush(&mut cur, &mut fields, &mut started, &mut any_quoted);
                    }
                }
            }
            Part::Lit { text, quoted, split: false } => {
                if quoted {
                    any_quoted = true;
                }
                cur.parts.push(Part::Lit { text, quoted, split: false });
                started = true;
            }
            Part::Unknown { numeric } => {
                cur.parts.push(Part::Unknown { numeric });
                started = true;
                any_quoted = true;
            }
            choice @ Part::Choice { .. } => {
                cur.parts.push(choice);
                started = true;
                any_quoted = true;
            }
        }
    }
    flush(&mut cur, &mut fields, &mut started, &mut any_quoted);
    fields
}

/// bash's brace expansion of a raw word (quotes and expansions left as they are), in time
/// linear in the word plus the output. `None` when it would give more than `limit` words.
pub fn brace_expand(word: &str, limit: usize) -> Option<Vec<String>> {
    let mut left = MAX_BRACE_EXPRESSIONS;
    expand_braces(word, limit, &mut left)
}

/// Most brace expressions one word is expanded through: each level of the expansion scans the
/// rest of the word again, so a word of thousands of `{a,b}` would cost time and memory in the
/// square of its length. More than `limit` fields come of far fewer expressions that have a
/// comma anyway.
const MAX_BRACE_EXPRESSIONS: usize = 64;

/// [`brace_expand`], with `left` expressions still to be expanded.
fn expand_braces(word: &str, limit: usize, left: &mut usize) -> Option<Vec<String>> {
    let b = word.as_bytes();
    // One quote-aware pass: the brace that closes each open brace, and whether a comma sits
    // directly inside it.
    let mut closing: Vec<Option<usize>> = vec![None; b.len()];
    let mut comma: Vec<bool> = vec![false; b.len()];
    let mut stack: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match skip_quoted(b, i) {
            Some(end) => i = end,
            None => match b[i] {
                b'{' => stack.push(i),
                b'}' => {
                    if let Some(open) = stack.pop() {
                        closing[open] = Some(i);
                    }
                }
                b',' => {
                    if let Some(&open) = stack.last() {
                        comma[open] = true;
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    // The first brace that forms an expression.
    for start in 0..b.len() {
        let Some(end) = closing[start] else { continue };
        let inner = &word[start + 1..end];
        let alternatives: Vec<String> = if comma[start] {
            split_top_level_commas(inner, &closing[start + 1..end], start + 1)
        } else if let Some(seq) = sequence(inner, limit) {
            seq?
        } else {
            continue;
        };
        *left = left.checked_sub(1)?;
        let pre = &word[..start];
        let post = expand_braces(&word[end + 1..], limit, left)?;
        let mut out = Vec::new();
        for alt in alternatives {
            for a in expand_braces(&alt, limit, left)? {
                for p in &post {
                    out.push(format!("{pre}{a}{p}"));
                    if out.len() > limit {
                        return None;
                    }
                }
            }
        }
        return Some(out);
    }
    Some(vec![word.to_string()])
}

/// When `b[i]` starts something whose braces and commas are not brace expansion (a backslash
/// escape, a quoted string, a backquoted command, `${…}`, `$(…)`, `$[…]`), the index of its last
/// byte.
fn skip_quoted(b: &[u8], i: usize) -> Option<usize> {
    let end_of = |mut j: usize, close: u8, escapes: bool| {
        while j < b.len() && b[j] != close {
            if escapes && b[j] == b'\\' {
                j += 1;
            }
            j += 1;
        }
        j.min(b.len().saturating_sub(1))
    };
    match b[i] {
        b'\\' => Some((i + 1).min(b.len() - 1)),
        b'\'' => Some(end_of(i + 1, b'\'', i > 0 && b[i - 1] == b'$')),
        b'"' => Some(end_of(i + 1, b'"', true)),
        b'`' => Some(end_of(i + 1, b'`', true)),
        b'$' if matches!(b.get(i + 1), Some(b'{' | b'(' | b'[')) => {
            let (open, close) = match b[i + 1] {
                b'{' => (b'{', b'}'),
                b'(' => (b'(', b')'),
                _ => (b'[', b']'),
            };
            let mut depth = 0usize;
            let mut j = i + 1;
            while j < b.len() {
                if b[j] == b'\\' {
                    j += 2;
                    continue;
                }
                if b[j] == open {
                    depth += 1;
                } else if b[j] == close {
                    depth -= 1;
                    if depth == 0 {
                        return Some(j);
                    }
                }
                j += 1;
            }
            Some(b.len() - 1)
        }
        _ => None,
    }
}

/// Splits the inside of a brace expression at the commas that are not nested in a brace.
fn split_top_level_commas(inner: &str, closing: &[Option<usize>], offset: usize) -> Vec<String> {
    let b = inner.as_bytes();
    let mut parts = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match skip_quoted(b, i) {
            Some(end) => i = end,
            None => match b[i] {
                b'{' => {
                    if let Some(end) = closing[i] {
                        i = end - offset;
                    }
                }
                b',' => {
                    parts.push(inner[start..i].to_string());
                    start = i + 1;
                }
                _ => {}
            },
        }
        i += 1;
    }
    parts.push(inner[start..].to_string());
    parts
}

/// `{1..5}`, `{a..e}`, `{10..1..2}`: `None` when `inner` is not a sequence, `Some(None)` when
/// it has more than `limit` elements.
fn sequence(inner: &str, limit: usize) -> Option<Option<Vec<String>>> {
    let parts: Vec<&str> = inner.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let step: i64 = match parts.get(2) {
        Some(s) => s.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    if let (Ok(a), Ok(z)) = (parts[0].parse::<i64>(), parts[1].parse::<i64>()) {
        let count = (a.abs_diff(z) / step as u64).saturating_add(1);
        if count > limit as u64 {
            return Some(None);
        }
        let width =
            if (parts[0].starts_with('0') && parts[0].len() > 1) || (parts[1].starts_with('0') && parts[1].len() > 1) {
                parts[0].len().max(parts[1].len())
            } else {
                0
            };
        let mut out = Vec::new();
        let mut v = a;
        loop {
            out.push(format!("{v:0width$}"));
            let next = if a < z { v.checked_add(step) } else { v.checked_sub(step) };
            match next {
                Some(n) if v != z && ((a < z && n <= z) || (a > z && n >= z)) => v = n,
                _ => break,
            }
        }
        return Some(Some(out));
    }
    let (ca, cz) = (parts[0].chars().collect::<Vec<_>>(), parts[1].chars().collect::<Vec<_>>());
    if ca.len() == 1 && cz.len() == 1 && ca[0].is_ascii_alphabetic() && cz[0].is_ascii_alphabetic() {
        let (a, z) = (ca[0] as u8, cz[0] as u8);
        let mut out = Vec::new();
        let mut v = a as i64;
        let (zi, stepi) = (z as i64, step);
        loop {
            out.push((v as u8 as char).to_string());
            let next = if a < z { v.checked_add(stepi) } else { v.checked_sub(stepi) };
            match next {
                Some(n) if v != zi && ((a < z && n <= zi) || (a > z && n >= zi)) => v = n,
                _ => break,
            }
        }
        return Some(Some(out));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_c_decoding() {
        assert_eq!(decode_ansi_c(r"\x2fetc\x2fshadow"), "/etc/shadow");
        assert_eq!(decode_ansi_c(r"\057etc"), "/etc");
        assert_eq!(decode_ansi_c(r"a\nb\tc"), "a\nb\tc");
        assert_eq!(decode_ansi_c(r"\u0063at"), "cat");
        assert_eq!(decode_ansi_c(r"it\'s"), "it's");
        assert_eq!(decode_ansi_c(r"\q"), "\\q");
    }

    #[test]
    fn brace_expansion() {
        let e = |w: &str| brace_expand(w, 256).unwrap();
        assert_eq!(e("/etc/{passwd,shadow}"), ["/etc/passwd", "/etc/shadow"]);
        assert_eq!(e("a{b,c{d,e}}f"), ["abf", "acdf", "acef"]);
        assert_eq!(e("{1..3}"), ["1", "2", "3"]);
        assert_eq!(e("{3..1}"), ["3", "2", "1"]);
        assert_eq!(e("{01..03}"), ["01", "02", "03"]);
        assert_eq!(e("{a..c}"), ["a", "b", "c"]);
        assert_eq!(e("{1..10..4}"), ["1", "5", "9"]);
        assert_eq!(e("{a}"), ["{a}"]);
        assert_eq!(e("{}"), ["{}"]);
        assert_eq!(e("${x}{a,b}"), ["${x}a", "${x}b"]);
        assert_eq!(e("'{a,b}'"), ["'{a,b}'"]);
        assert_eq!(e("\\{a,b}"), ["\\{a,b}"]);
        assert_eq!(e("{a,'b,c'}"), ["a", "'b,c'"]);
        assert_eq!(e("{,x}y"), ["y", "xy"]);
        assert!(brace_expand("{1..100000}", 256).is_none());
        assert!(brace_expand(&"{a,b}".repeat(20), 256).is_none());
        // Steps past the end of the numbers: the sequence ends there.
        assert_eq!(e("{9223372036854775800..9223372036854775807..5}"), ["9223372036854775800", "9223372036854775805"]);
        assert_eq!(e("{-9223372036854775800..-9223372036854775808..5}").len(), 2);
        assert_eq!(e("{a..z..9223372036854775807}"), ["a"]);
        assert_eq!(e("{z..a..9223372036854775807}"), ["z"]);
        // A word of thousands of expressions is kept as written, not expanded level by level.
        let many = format!("x{}", "{a,b}".repeat(6000));
        assert!(brace_expand(&many, 256).is_none());
        let ones = "{1..1}".repeat(65);
        assert!(brace_expand(&ones, 256).is_none());
        assert_eq!(e(&"{1..1}".repeat(64)), ["1".repeat(64)]);
        // Linear, not exponential, in unclosed braces.
        let nasty = "{a,".repeat(5_000) + "$(())";
        assert_eq!(brace_expand(&nasty, 256).unwrap(), std::slice::from_ref(&nasty));
    }

    #[test]
    fn field_splitting() {
        let lit = |t: &str, split| Part::Lit { text: t.into(), quoted: false, split };
        let fields = split_fields(vec![lit("a b  c", true)], " \t\n");
        assert_eq!(fields.len(), 3);
        let fields = split_fields(vec![lit("x", false), lit("1 2", true), lit("y", false)], " \t\n");
        let texts: Vec<_> = fields.iter().map(|f| f.known().unwrap()).collect();
        assert_eq!(texts, ["x1", "2y"]);
        assert!(split_fields(vec![lit("", true)], " ").is_empty());
        let quoted_empty = split_fields(vec![Part::Lit { text: String::new(), quoted: true, split: false }], " ");
        assert_eq!(quoted_empty.len(), 1);
    }

    #[test]
    fn offsets_follow_lines() {
        let p = Pos { line: 3, column: 5 };
        assert_eq!(offset_pos(p, "ab\ncd", 4), Pos { line: 4, column: 2 });
        assert_eq!(offset_pos(p, "abcd", 2), Pos { line: 3, column: 7 });
    }
}
