//! Text bash reads that the parser rejects, or reads otherwise than bash, rewritten into text
//! the parser reads as bash does.
//!
//! The parser trips on a few lexical shapes bash accepts: a line continuation inside a token
//! (`$\` newline `(whoami)`, `<\` newline `<<`), a process substitution that is itself the
//! command (`$(<(whoami))`) or the target of `>&`, `&>` or `<<<`, a here-document whose
//! delimiter holds a substitution (`cat <<$(x)`, plain text to bash) or that runs to the end of
//! the text, a here-document inside `$( … )` whose body holds a parenthesis or a quote (the
//! parser looks for the closing `)` without knowing here-documents), a `case` pattern without
//! its `(` inside a substitution, `select`, and subshells it takes for arithmetic (`( (a) )`,
//! `$(( a ) | b)`). Code in any of them would otherwise be hidden or unreadable.
//!
//! [`rewrite`] is used after the parser rejected a text, and [`needed`] before parsing a text
//! the parser would accept and read wrongly. Neither changes what bash would run:
//! - continuations are removed first wherever bash removes them (not in single quotes, `$'…'`,
//!   comments or the body of a here-document with a quoted delimiter), and each newline taken
//!   is given back after the next line of code, so that later lines keep their numbers;
//! - a process substitution in command position gets `: ` before it (bash would run the pipe
//!   it names, which is never executable); as a redirection's target, a plain `<` or `>`;
//! - a delimiter with `$` or a backquote, and the line that ends its body, become `X`s (bash
//!   reads the delimiter as text, so only the match matters); a body that runs to the end gets
//!   its closing line;
//! - in a here-document inside a substitution, the parentheses and quotes of its text (not
//!   those of code in it) become private-use characters that [`restore`] turns back when
//!   the body is read;
//! - a `case` pattern gets its `(`, `esac` a `;` before a closing parenthesis, `select` the
//!   spelling of `for`, and a subshell first in a subshell or substitution a `:;` or a space.

use std::borrow::Cow;

/// What parentheses and quotes in a here-document body stand in for, in this order.
const HIDDEN: [(char, char); 5] =
    [('(', '\u{10FE28}'), (')', '\u{10FE29}'), ('\'', '\u{10FE27}'), ('"', '\u{10FE22}'), ('`', '\u{10FE60}')];

/// A here-document body as bash reads it: the characters [`rewrite`] hid turned back.
pub fn restore(body: &str) -> Cow<'_, str> {
    if !body.chars().any(|c| HIDDEN.iter().any(|&(_, h)| h == c)) {
        return Cow::Borrowed(body);
    }
    Cow::Owned(body.chars().map(|c| HIDDEN.iter().find(|&&(_, h)| h == c).map_or(c, |&(p, _)| p)).collect())
}

/// What the lexer is inside.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Frame {
    /// Code, ended by `close` (`)` for `$(`, a backquote, `}` for `${`; 0 at the top), with
    /// the parentheses (or braces) opened in it; `arith` where `<<` is a shift.
    Code {
        close: u8,
        depth: usize,
        arith: bool,
    },
    Double,
}

/// Where the lexer is in a `case` command.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Stage {
    /// After `case`: the word it tests.
    Subject,
    /// After that word: `in`.
    In,
    /// Before a pattern (or `esac`).
    Pattern,
    /// Inside a pattern, up to its `)`.
    InPattern,
    /// The commands of an item, up to `;;`, `;&` or `;;&`.
    Body,
}

/// A `case` command being read, in the code frame it was opened in.
#[derive(Clone, Copy, Debug)]
struct Case {
    frame: usize,
    stage: Stage,
}

struct Heredoc {
    /// The delimiter after quote removal, as the closing line must spell it.
    delim: Vec<u8>,
    /// What the closing line is written as instead (a delimiter with a substitution).
    replaced: Option<Vec<u8>>,
    quoted: bool,
    strip_tabs: bool,
    /// Started inside a substitution (its body's parentheses and quotes are hidden).
    nested: bool,
}

/// The text rewritten as described in the module's documentation, or `None` when none of the
/// shapes is found (or the text already holds the characters used to hide others).
pub fn rewrite(text: &str) -> Option<String> {
    lex(text).map(|(out, _)| out)
}

/// The rewrite of a text the parser accepts but would read otherwise than bash (see
/// [`Lexer::vital`]); `None` for almost every text, cheaply for one without the shapes.
pub fn needed(text: &str) -> Option<String> {
    if !["<<", "((", "( (", "(\t(", "case"].iter().any(|shape| text.contains(shape)) {
        return None;
    }
    lex(text).and_then(|(out, vital)| vital.then_some(out))
}

fn lex(text: &str) -> Option<(String, bool)> {
    if text.chars().any(|c| HIDDEN.iter().any(|&(_, h)| h == c)) {
        return None;
    }
    // Continuations first, wherever they split a token (an operator, a delimiter).
    let joined = join_continuations(text.as_bytes());
    let b = joined.as_ref().map_or(text.as_bytes(), |(j, _)| j.as_slice());
    let mut l = Lexer { b, i: 0, out: Vec::with_capacity(b.len() + 16), ..Lexer::default() };
    l.run();
    if let Some((_, vital)) = &joined {
        l.changed = true;
        l.vital |= vital;
    }
    if !l.changed {
        return None;
    }
    l.out.extend(std::iter::repeat_n(b'\n', l.owed_newlines));
    String::from_utf8(l.out).ok().map(|out| (out, l.vital))
}

/// The text with its line continuations removed where bash removes them: everywhere but in
/// single quotes, `$'…'`, comments and the bodies of here-documents with a quoted delimiter,
/// also inside an operator (`<\` newline `<<`) or a delimiter. Each newline taken is given
/// back at the next newline of code, so later lines keep their numbers. With whether one was
/// in a here-document's operator, delimiter or closing line, which the parser would read
/// otherwise without complaint. `None` when there is none.
fn join_continuations(b: &[u8]) -> Option<(Vec<u8>, bool)> {
    if !b.windows(2).any(|w| w == b"\\\n") {
        return None;
    }
    #[derive(Clone, Copy, PartialEq)]
    enum Ctx {
        /// Code, with the parentheses opened in it (`)` at 0 closes a `$(`), or ended by a
        /// backquote.
        Code(usize, bool),
        Double,
    }
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut stack = vec![Ctx::Code(0, false)];
    // Pending here-documents of the line: (delimiter, quoted, strip tabs).
    let mut docs: Vec<(Vec<u8>, bool, bool)> = Vec::new();
    let mut owed = 0usize;
    let mut vital = false;
    let mut joined = false;
    let mut i = 0;
    let at_word_start = |out: &[u8]| out.last().is_none_or(|c| b" \t\n;&|(){}<>`".contains(c));
    // Skips continuations at `i`.
    let skip = |i: &mut usize, owed: &mut usize, joined: &mut bool| {
        while b.get(*i) == Some(&b'\\') && b.get(*i + 1) == Some(&b'\n') {
            *i += 2;
            *owed += 1;
            *joined = true;
        }
    };
    while i < b.len() {
        let ctx = *stack.last().unwrap_or(&Ctx::Code(0, false));
        let c = b[i];
        if c == b'\\' && b.get(i + 1) == Some(&b'\n') {
            // In an operator or word alike: bash reads on as if it were not there.
            i += 2;
            owed += 1;
            joined = true;
            continue;
        }
        match ctx {
            Ctx::Double => match c {
                b'\\' => {
                    out.extend_from_slice(&b[i..(i + 2).min(b.len())]);
                    i += 2;
                    continue;
                }
                b'"' => {
                    stack.pop();
                }
                b'`' => stack.push(Ctx::Code(0, true)),
                b'$' if b.get(i + 1) == Some(&b'(') => {
                    out.extend_from_slice(b"$(");
                    i += 2;
                    stack.push(Ctx::Code(0, false));
                    continue;
                }
                _ => {}
            },
            Ctx::Code(depth, backquote) => match c {
                b'\\' => {
                    out.extend_from_slice(&b[i..(i + 2).min(b.len())]);
                    i += 2;
                    continue;
                }
                b'\'' => {
                    let ansi = out.last() == Some(&b'$');
                    let mut j = i + 1;
                    while j < b.len() && b[j] != b'\'' {
                        j += if ansi && b[j] == b'\\' { 2 } else { 1 };
                    }
                    let end = (j + 1).min(b.len());
                    out.extend_from_slice(&b[i..end]);
                    i = end;
                    continue;
                }
                b'#' if at_word_start(&out) => {
                    let end = b[i..].iter().position(|&x| x == b'\n').map_or(b.len(), |p| p + i);
                    out.extend_from_slice(&b[i..end]);
                    i = end;
                    continue;
                }
                b'"' => stack.push(Ctx::Double),
                b'`' if backquote => {
                    stack.pop();
                }
                b'`' => stack.push(Ctx::Code(0, true)),
                b'(' => {
                    if out.last() == Some(&b'$') || out.last().is_some_and(|x| matches!(x, b'<' | b'>')) {
                        stack.push(Ctx::Code(0, false));
                    } else if let Some(Ctx::Code(d, _)) = stack.last_mut() {
                        *d += 1;
                    }
                }
                b')' if depth == 0 && stack.len() > 1 => {
                    stack.pop();
                }
                b')' => {
                    if let Some(Ctx::Code(d, _)) = stack.last_mut() {
                        *d = d.saturating_sub(1);
                    }
                }
                b'<' if out.last() == Some(&b'<') && !out.ends_with(b"<<") => {
                    // `<<` (also split by continuations), not `<<<`: a here-document.
                    out.push(c);
                    i += 1;
                    let before = owed;
                    skip(&mut i, &mut owed, &mut joined);
                    if b.get(i) == Some(&b'<') {
                        vital |= owed > before;
                        continue;
                    }
                    if b.get(i) == Some(&b'-') {
                        out.push(b'-');
                        i += 1;
                    }
                    let strip = out.ends_with(b"-");
                    loop {
                        skip(&mut i, &mut owed, &mut joined);
                        match b.get(i) {
                            Some(&x @ (b' ' | b'\t')) => {
                                out.push(x);
                                i += 1;
                            }
                            _ => break,
                        }
                    }
                    // The delimiter, continuations removed but in single quotes.
                    let mut delim = Vec::new();
                    let mut quoted = false;
                    while let Some(&x) = b.get(i) {
                        if x == b'\\' && b.get(i + 1) == Some(&b'\n') {
                            skip(&mut i, &mut owed, &mut joined);
                            continue;
                        }
                        if matches!(x, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')') {
                            break;
                        }
                        match x {
                            b'\'' => {
                                quoted = true;
                                let end = b[i + 1..].iter().position(|&y| y == b'\'').map_or(b.len(), |p| p + i + 1);
                                delim.extend_from_slice(&b[i + 1..end]);
                                out.extend_from_slice(&b[i..(end + 1).min(b.len())]);
                                i = end + 1;
                            }
                            b'"' => {
                                quoted = true;
                                out.push(x);
                                i += 1;
                                while let Some(&y) = b.get(i) {
                                    if y == b'\\' && b.get(i + 1) == Some(&b'\n') {
                                        skip(&mut i, &mut owed, &mut joined);
                                        continue;
                                    }
                                    out.push(y);
                                    i += 1;
                                    if y == b'"' {
                                        break;
                                    }
                                    delim.push(y);
                                }
                            }
                            b'\\' => {
                                quoted = true;
                                out.extend_from_slice(&b[i..(i + 2).min(b.len())]);
                                if let Some(&y) = b.get(i + 1) {
                                    delim.push(y);
                                }
                                i += 2;
                            }
                            _ => {
                                out.push(x);
                                delim.push(x);
                                i += 1;
                            }
                        }
                    }
                    vital |= owed > before;
                    docs.push((delim, quoted, strip));
                    continue;
                }
                b'\n' => {
                    out.push(c);
                    i += 1;
                    // The bodies of the line's here-documents.
                    for (delim, quoted, strip) in std::mem::take(&mut docs) {
                        while i < b.len() {
                            let mut line = Vec::new();
                            let mut taken = 0;
                            loop {
                                let end = b[i..].iter().position(|&x| x == b'\n').map_or(b.len(), |p| p + i);
                                let part = &b[i..end];
                                let odd = part.iter().rev().take_while(|&&x| x == b'\\').count() % 2 == 1;
                                i = end;
                                if !quoted && odd && end < b.len() {
                                    line.extend_from_slice(&part[..part.len() - 1]);
                                    i += 1;
                                    taken += 1;
                                    continue;
                                }
                                line.extend_from_slice(part);
                                break;
                            }
                            owed += taken;
                            joined |= taken > 0;
                            let tabs = if strip { line.iter().take_while(|&&x| x == b'\t').count() } else { 0 };
                            out.extend_from_slice(&line);
                            if i < b.len() {
                                out.push(b'\n');
                                i += 1;
                            }
                            if line[tabs..] == delim[..] {
                                vital |= taken > 0;
                                break;
                            }
                        }
                    }
                    if stack.len() == 1 && owed > 0 {
                        out.extend(std::iter::repeat_n(b'\n', owed));
                        owed = 0;
                    }
                    continue;
                }
                _ => {}
            },
        }
        out.push(c);
        i += 1;
    }
    out.extend(std::iter::repeat_n(b'\n', owed));
    joined.then_some((out, vital))
}

#[derive(Default)]
struct Lexer<'a> {
    b: &'a [u8],
    i: usize,
    out: Vec<u8>,
    frames: Vec<Frame>,
    heredocs: Vec<Heredoc>,
    /// Continuations removed since the last line of code ended.
    owed_newlines: usize,
    /// The next word is a command word (or a process substitution there is the command).
    command: bool,
    /// The next word is the target of a redirection (it leaves `command` as it was).
    target: bool,
    /// Where the current word started in `out`, while inside one.
    word: Option<usize>,
    /// The word and `command` of the code around each substitution opened, innermost last.
    saved: Vec<(Option<usize>, bool)>,
    /// The `case` commands being read, innermost last.
    cases: Vec<Case>,
    /// A rewrite the parser needs even where it does not reject the text: it would read it
    /// otherwise than bash (a here-document's `)` closing the substitution around it, a
    /// continuation before a delimiter).
    vital: bool,
    changed: bool,
}

impl Lexer<'_> {
    fn top(&self) -> Frame {
        self.frames.last().copied().unwrap_or(Frame::Code { close: 0, depth: 0, arith: false })
    }

    fn peek(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }

    /// Opens code ended by `close`, after copying `n` bytes (its opening).
    fn push_code(&mut self, close: u8, n: usize, arith: bool) {
        self.saved.push((self.word.take(), self.command));
        self.frames.push(Frame::Code { close, depth: usize::from(arith), arith });
        self.copy(n);
        self.command = !arith && close != b'}';
        self.target = false;
    }

    /// Closes the innermost code, copying its closing byte.
    fn pop_code(&mut self) {
        self.end_word();
        self.frames.pop();
        self.copy(1);
        let (word, command) = self.saved.pop().unwrap_or((None, false));
        self.word = word;
        self.command = command;
    }

    fn copy(&mut self, n: usize) {
        let end = (self.i + n).min(self.b.len());
        self.out.extend_from_slice(&self.b[self.i..end]);
        self.i = end;
    }

    /// Removes a continuation (`\` newline) at the cursor.
    fn join(&mut self) {
        self.i += 2;
        self.owed_newlines += 1;
        self.changed = true;
    }

    fn run(&mut self) {
        self.command = true;
        while self.i < self.b.len() {
            match self.top() {
                Frame::Double => self.double(),
                Frame::Code { .. } => self.code(),
            }
        }
        self.end_word();
    }

    fn double(&mut self) {
        match self.b[self.i] {
            b'\\' if self.peek(1) == Some(b'\n') => self.join(),
            b'\\' => self.copy(2),
            b'"' => {
                self.frames.pop();
                self.copy(1);
            }
            b'`' => self.push_code(b'`', 1, false),
            b'$' if self.peek(1) == Some(b'(') => self.open_dollar_paren(),
            b'$' if self.peek(1) == Some(b'{') => self.push_code(b'}', 2, false),
            _ => self.copy(1),
        }
    }

    fn open_dollar_paren(&mut self) {
        let arith = self.peek(2) == Some(b'(') && self.arithmetic_closes(self.i + 3);
        if self.peek(2) == Some(b'(') && !arith {
            // `$( (…) …)`: a subshell first in a command substitution, which bash tells from
            // arithmetic by where the parentheses close; the parser wants them apart.
            self.copy(2);
            self.out.push(b' ');
            self.changed = true;
            self.vital = true;
            self.push_code(b')', 0, false);
            return;
        }
        self.push_code(b')', if arith { 3 } else { 2 }, arith);
    }

    /// Whether the parentheses opened by `$((` (the text after them starts at `from`) close
    /// together, `))`, as arithmetic does (counted roughly: quotes are not followed).
    fn arithmetic_closes(&self, from: usize) -> bool {
        let mut depth = 2usize;
        for (k, &c) in self.b[from.min(self.b.len())..].iter().enumerate() {
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 1 {
                        return self.b.get(from + k + 1) == Some(&b')');
                    }
                }
                _ => {}
            }
        }
        true
    }

    /// Ends the word being read: a keyword or an assignment leaves a command word to come.
    fn end_word(&mut self) {
        let Some(start) = self.word.take() else { return };
        // Only the start of a word can make it a keyword or an assignment (a long word may hold
        // the whole of a deep substitution).
        let word = self.out[start..(start + 256).min(self.out.len())].to_vec();
        let word = word.as_slice();
        // A descriptor number before a redirection (`2>`) is not a word.
        if word.iter().all(u8::is_ascii_digit) && matches!(self.b.get(self.i), Some(b'<' | b'>')) {
            return;
        }
        let keyword = matches!(
            word,
            b"then" | b"do" | b"else" | b"elif" | b"if" | b"while" | b"until" | b"!" | b"{" | b"time" | b"exec"
        );
        let frame = self.frames.len();
        let case = self.cases.last().copied().filter(|c| c.frame == frame);
        match (case.map(|c| c.stage), word) {
            (Some(Stage::Subject), _) => self.set_stage(Stage::In),
            (Some(Stage::In), b"in") => self.set_stage(Stage::Pattern),
            (Some(Stage::Pattern | Stage::Body), b"esac")
                if self.command || case.is_some_and(|c| c.stage == Stage::Pattern) =>
            {
                self.cases.pop();
                // The parser wants `;` between `esac` and the `)` of a subshell around it.
                let blanks = self.b[self.i..].iter().take_while(|&&c| matches!(c, b' ' | b'\t')).count();
                if matches!(self.b.get(self.i + blanks), Some(b')' | b'`')) {
                    self.out.push(b';');
                    self.changed = true;
                }
            }
            (_, b"case") if self.command => self.cases.push(Case { frame, stage: Stage::Subject }),
            // `select` reads a choice and runs its body as `for` would: the same commands.
            (_, b"select") if self.command => {
                self.out.truncate(start);
                self.out.extend_from_slice(b"for   ");
                self.changed = true;
            }
            _ => {}
        }
        let assignment = word.iter().position(|&c| c == b'=').is_some_and(|eq| {
            let name = word[..eq].strip_suffix(b"+").unwrap_or(&word[..eq]);
            let name = name.split(|&c| c == b'[').next().unwrap_or_default();
            !name.is_empty()
                && !name[0].is_ascii_digit()
                && name.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
        });
        if self.target {
            self.target = false;
        } else if !(keyword || (assignment && self.command)) {
            self.command = false;
        }
    }

    fn set_stage(&mut self, stage: Stage) {
        if let Some(c) = self.cases.last_mut() {
            c.stage = stage;
        }
    }

    /// The stage of the `case` opened in the current frame, if any.
    fn stage(&self) -> Option<Stage> {
        self.cases.last().filter(|c| c.frame == self.frames.len()).map(|c| c.stage)
    }

    fn start_word(&mut self) {
        if self.word.is_none() {
            self.word = Some(self.out.len());
        }
    }

    fn code(&mut self) {
        let Frame::Code { close, depth, arith } = self.top() else { return };
        let c = self.b[self.i];
        match self.stage() {
            // A pattern starts: the parser wants its `(` inside a substitution.
            Some(Stage::Pattern)
                if self.word.is_none()
                    && !matches!(c, b' ' | b'\t' | b'\n' | b';')
                    && !(c == b'\\' && self.peek(1) == Some(b'\n')) =>
            {
                // (A continuation may split the word.)
                let ahead = &self.b[self.i..(self.i + 16).min(self.b.len())];
                let rest = String::from_utf8_lossy(ahead).replace("\\\n", "").into_bytes();
                let esac = rest.starts_with(b"esac")
                    && rest.get(4).is_none_or(|x| matches!(x, b' ' | b'\t' | b'\n' | b';' | b')' | b'&' | b'|' | b'`'));
                if !esac {
                    self.set_stage(Stage::InPattern);
                    if c == b'(' {
                        self.copy(1);
                        return;
                    }
                    self.out.push(b'(');
                    self.changed = true;
                    // Inside a substitution the parser reads such a pattern otherwise.
                    self.vital |= !self.frames.is_empty();
                }
            }
            Some(Stage::InPattern) if c == b')' && depth == 0 => {
                self.end_word();
                self.copy(1);
                self.set_stage(Stage::Body);
                self.command = true;
                return;
            }
            Some(Stage::Body) if c == b';' && matches!(self.peek(1), Some(b';' | b'&')) => {
                self.end_word();
                let n = if self.peek(1) == Some(b';') && self.peek(2) == Some(b'&') { 3 } else { 2 };
                self.copy(n);
                self.set_stage(Stage::Pattern);
                return;
            }
            _ => {}
        }
        let separator = matches!(c, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>');
        if separator || (c == close && depth == 0) {
            self.end_word();
        }
        match c {
            b'\\' if self.peek(1) == Some(b'\n') => self.join(),
            b'\\' => {
                self.start_word();
                self.copy(2);
            }
            b'\'' => {
                self.start_word();
                let ansi = self.out.last() == Some(&b'$');
                let mut j = self.i + 1;
                while j < self.b.len() && self.b[j] != b'\'' {
                    j += if ansi && self.b[j] == b'\\' { 2 } else { 1 };
                }
                self.copy(j + 1 - self.i);
            }
            b'"' => {
                self.start_word();
                self.frames.push(Frame::Double);
                self.copy(1);
            }
            b'`' if close == b'`' => self.pop_code(),
            b'`' => {
                self.start_word();
                self.push_code(b'`', 1, false);
            }
            b'#' if self.word.is_none() && !arith => {
                let end = self.b[self.i..].iter().position(|&x| x == b'\n').map_or(self.b.len(), |p| p + self.i);
                self.copy(end - self.i);
            }
            b'$' if self.peek(1) == Some(b'(') => {
                self.start_word();
                self.open_dollar_paren();
            }
            b'$' if self.peek(1) == Some(b'{') => {
                self.start_word();
                self.push_code(b'}', 2, false);
            }
            b'<' | b'>' if self.peek(1) == Some(b'(') && !arith => {
                if self.command && !self.target && self.word.is_none() {
                    self.out.extend_from_slice(b": ");
                    self.changed = true;
                    self.command = false;
                }
                self.target = false;
                self.start_word();
                self.push_code(b')', 2, false);
                // `<((…))`: a subshell in the substitution, which the parser takes for more.
                if self.peek(0) == Some(b'(') {
                    self.out.push(b' ');
                    self.changed = true;
                    self.vital = true;
                }
            }
            b'<' if self.peek(1) == Some(b'<') && self.peek(2) != Some(b'<') && !arith => self.heredoc(),
            b'<' | b'>' => self.redirection(),
            b'&' if self.peek(1) == Some(b'>') => self.redirection(),
            // An arithmetic command, where `<<` is a shift.
            b'(' if self.peek(1) == Some(b'(')
                && self.command
                && self.word.is_none()
                && self.arithmetic_closes(self.i + 2) =>
            {
                self.push_code(b')', 2, true);
            }
            // A subshell first in a subshell (`( (a) )`, or `((a) )`, which is not arithmetic):
            // the parser reads it as arithmetic, so a `:;` goes between.
            b'(' if self.command
                && self.word.is_none()
                && self.b[self.i + 1..].iter().find(|c| !matches!(c, b' ' | b'\t')) == Some(&b'(') =>
            {
                if let Some(Frame::Code { depth, .. }) = self.frames.last_mut() {
                    *depth += 1;
                }
                self.copy(1);
                self.out.extend_from_slice(b":;");
                self.changed = true;
                self.vital = true;
            }
            b'(' => {
                if let Some(Frame::Code { depth, .. }) = self.frames.last_mut() {
                    *depth += 1;
                }
                self.copy(1);
                self.command = true;
            }
            b')' if close == b')' && depth == 0 => self.pop_code(),
            b')' => {
                if let Some(Frame::Code { depth, .. }) = self.frames.last_mut() {
                    *depth = depth.saturating_sub(1);
                }
                self.copy(1);
            }
            b'{' if close == b'}' => {
                if let Some(Frame::Code { depth, .. }) = self.frames.last_mut() {
                    *depth += 1;
                }
                self.start_word();
                self.copy(1);
            }
            b'}' if close == b'}' && depth == 0 => self.pop_code(),
            b'}' if close == b'}' => {
                if let Some(Frame::Code { depth, .. }) = self.frames.last_mut() {
                    *depth -= 1;
                }
                self.copy(1);
            }
            b';' | b'&' | b'|' => {
                self.copy(1);
                self.command = true;
                self.target = false;
            }
            b'\n' => {
                self.copy(1);
                self.command = true;
                self.target = false;
                if !self.heredocs.is_empty() {
                    self.bodies();
                } else if self.frames.is_empty() && self.owed_newlines > 0 {
                    self.out.extend(std::iter::repeat_n(b'\n', self.owed_newlines));
                    self.owed_newlines = 0;
                }
            }
            b' ' | b'\t' => self.copy(1),
            _ => {
                self.start_word();
                self.copy(1);
            }
        }
    }

    /// A redirection operator at the cursor. A process substitution as its target where the
    /// parser wants a word (`2>&<(…)`, `&> >(…)`, `<<< <(…)`) gets the plain operator, `<` or
    /// `>`, padded to the same length: bash runs the substitution either way.
    fn redirection(&mut self) {
        let mut n = 1;
        while let Some(&x) = self.b.get(self.i + n)
            && matches!(x, b'<' | b'>' | b'&' | b'|')
            && !(matches!(x, b'<' | b'>') && self.b.get(self.i + n + 1) == Some(&b'('))
        {
            n += 1;
        }
        let op = &self.b[self.i..self.i + n];
        let mut blanks = 0;
        loop {
            match self.b.get(self.i + n + blanks) {
                Some(b' ' | b'\t') => blanks += 1,
                Some(b'\\') if self.b.get(self.i + n + blanks + 1) == Some(&b'\n') => blanks += 2,
                _ => break,
            }
        }
        let next = &self.b[(self.i + n + blanks).min(self.b.len())..];
        let substitution = next.len() > 1 && matches!(next[0], b'<' | b'>') && next[1] == b'(';
        if substitution && !matches!(op, b"<" | b">" | b">>") {
            let plain = if op.starts_with(b"<") { b'<' } else { b'>' };
            self.out.push(plain);
            self.out.extend(std::iter::repeat_n(b' ', n - 1));
            self.i += n;
            self.changed = true;
            // A space before the substitution, so that `<` and `<(` stay apart.
            self.out.push(b' ');
            while self.i < self.b.len() && !matches!(self.b[self.i], b'<' | b'>') {
                if self.b[self.i] == b'\\' {
                    self.join();
                } else {
                    self.i += 1;
                }
            }
        } else {
            self.copy(n);
        }
        self.target = true;
    }

    /// A here-document operator at the cursor: its delimiter is read, and the body follows
    /// the end of the line.
    fn heredoc(&mut self) {
        self.copy(2);
        self.skip_joins();
        let strip_tabs = self.peek(0) == Some(b'-');
        if strip_tabs {
            self.copy(1);
        }
        loop {
            self.skip_joins();
            if !matches!(self.peek(0), Some(b' ' | b'\t')) {
                break;
            }
            self.copy(1);
        }
        // The delimiter as written (less continuations), and after quote removal.
        let mut raw = Vec::new();
        let mut delim = Vec::new();
        let mut quoted = false;
        while let Some(c) = self.peek(0) {
            match c {
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')' => break,
                b'\\' if self.peek(1) == Some(b'\n') => {
                    self.join();
                    self.vital = true;
                }
                b'\\' => {
                    quoted = true;
                    raw.push(c);
                    self.i += 1;
                    if let Some(next) = self.peek(0) {
                        raw.push(next);
                        delim.push(next);
                        self.i += 1;
                    }
                }
                b'\'' | b'"' => {
                    quoted = true;
                    raw.push(c);
                    self.i += 1;
                    while let Some(x) = self.peek(0) {
                        self.i += 1;
                        raw.push(x);
                        if x == c {
                            break;
                        }
                        delim.push(x);
                    }
                }
                b'$' if self.peek(1) == Some(b'(') => {
                    // A substitution in the delimiter is text, up to its closing parenthesis.
                    let mut depth = 0;
                    while let Some(x) = self.peek(0) {
                        self.i += 1;
                        raw.push(x);
                        delim.push(x);
                        if x == b'(' {
                            depth += 1;
                        } else if x == b')' {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                    }
                }
                _ => {
                    raw.push(c);
                    delim.push(c);
                    self.i += 1;
                }
            }
        }
        // A delimiter with a newline in it (quoted) never matches a line: the body runs to
        // the end of the text. It is written on one line, and the line it took given back.
        if delim.contains(&b'\n') {
            let newlines = raw.iter().filter(|&&c| c == b'\n').count();
            for c in &mut raw {
                if !matches!(c, b'\'' | b'"') {
                    *c = b'X';
                }
            }
            delim = raw.iter().copied().filter(|c| !matches!(c, b'\'' | b'"' | b'\\')).collect();
            self.owed_newlines += newlines;
            self.changed = true;
            self.vital = true;
            let bare = delim.clone();
            self.out.extend_from_slice(&raw);
            let nested = !self.frames.is_empty();
            // `replaced` spells the closing line the parser gets at the end of the text.
            self.heredocs.push(Heredoc { delim: b"\n".to_vec(), replaced: Some(bare), quoted, strip_tabs, nested });
            return;
        }
        let replaced = if raw.iter().any(|&c| matches!(c, b'$' | b'`')) {
            // Quotes stay (they make the body literal); a backslash keeps the byte after it
            // from being one.
            let mut written: Vec<u8> = Vec::with_capacity(raw.len());
            let mut k = 0;
            while k < raw.len() {
                match raw[k] {
                    b'\\' => {
                        written.push(b'\\');
                        if k + 1 < raw.len() {
                            written.push(b'X');
                        }
                        k += 2;
                    }
                    q @ (b'\'' | b'"') => {
                        written.push(q);
                        k += 1;
                    }
                    _ => {
                        written.push(b'X');
                        k += 1;
                    }
                }
            }
            self.out.extend_from_slice(&written);
            self.changed = true;
            Some(written.iter().copied().filter(|c| !matches!(c, b'\'' | b'"' | b'\\')).collect())
        } else {
            self.out.extend_from_slice(&raw);
            None
        };
        let nested = !self.frames.is_empty();
        self.heredocs.push(Heredoc { delim, replaced, quoted, strip_tabs, nested });
    }

    /// Continuations at the cursor, removed.
    fn skip_joins(&mut self) {
        while self.peek(0) == Some(b'\\') && self.peek(1) == Some(b'\n') {
            self.join();
            self.vital = true;
        }
    }

    /// The bodies of the here-documents of the line that just ended (the cursor is after its
    /// newline). In a body that is expanded, a line ending in a backslash goes on on the next
    /// one, also for the closing line (`EO\` newline `F`).
    fn bodies(&mut self) {
        for doc in std::mem::take(&mut self.heredocs) {
            let mut ended = false;
            while self.i < self.b.len() {
                let line_start = self.i;
                let mut joined = false;
                let mut line = Vec::new();
                loop {
                    let end = self.b[self.i..].iter().position(|&x| x == b'\n').map_or(self.b.len(), |p| p + self.i);
                    let part = &self.b[self.i..end];
                    let backslashes = part.iter().rev().take_while(|&&c| c == b'\\').count();
                    self.i = end;
                    if !doc.quoted && backslashes % 2 == 1 && end < self.b.len() {
                        line.extend_from_slice(&part[..part.len() - 1]);
                        self.i += 1;
                        self.owed_newlines += 1;
                        self.changed = true;
                        joined = true;
                        continue;
                    }
                    line.extend_from_slice(part);
                    break;
                }
                let tabs = if doc.strip_tabs { line.iter().take_while(|&&c| c == b'\t').count() } else { 0 };
                if line[tabs..] == doc.delim[..] {
                    self.out.extend_from_slice(&line[..tabs]);
                    self.out.extend_from_slice(doc.replaced.as_deref().unwrap_or(&line[tabs..]));
                    self.copy(1);
                    ended = true;
                    break;
                }
                // Inside `$( … )`, bash also ends the body at the delimiter followed by the `)`
                // that closes the substitution; the parser wants the delimiter alone on its line.
                let rest = line.get(tabs + doc.delim.len()..).unwrap_or_default();
                if doc.nested && !joined && line[tabs..].starts_with(&doc.delim) && rest.first() == Some(&b')') {
                    self.out.extend_from_slice(&line[..tabs]);
                    self.out.extend_from_slice(doc.replaced.as_deref().unwrap_or(&doc.delim));
                    self.out.push(b'\n');
                    self.i = line_start + tabs + doc.delim.len();
                    self.changed = true;
                    self.vital = true;
                    ended = true;
                    break;
                }
                if !doc.quoted {
                    let (rewritten, inner) = rewrite_substitutions(&line);
                    if inner {
                        self.changed = true;
                        self.vital = true;
                        line = rewritten;
                    }
                }
                if doc.nested {
                    let hidden = hide_text(&line, doc.quoted);
                    if hidden != line {
                        self.changed = true;
                        self.vital = true;
                    }
                    self.out.extend_from_slice(&hidden);
                } else {
                    self.out.extend_from_slice(&line);
                }
                self.copy(1);
            }
            // bash ends a body at the end of the text (with a warning); the parser wants the
            // closing line.
            if !ended {
                if self.out.last() != Some(&b'\n') {
                    self.out.push(b'\n');
                }
                self.out.extend_from_slice(doc.replaced.as_deref().unwrap_or(&doc.delim));
                self.changed = true;
            }
        }
        // Lines joined so far are given back after the bodies, where an empty line is code.
        self.out.extend(std::iter::repeat_n(b'\n', std::mem::take(&mut self.owed_newlines)));
    }
}

/// A body line whose command substitutions (each on this line) are rewritten as code is,
/// and whether one was.
fn rewrite_substitutions(line: &[u8]) -> (Vec<u8>, bool) {
    let mut out = Vec::with_capacity(line.len());
    let mut changed = false;
    let mut i = 0;
    while i < line.len() {
        if line[i] == b'\\' && i + 1 < line.len() {
            out.extend_from_slice(&line[i..i + 2]);
            i += 2;
            continue;
        }
        if line[i] == b'$' && line.get(i + 1) == Some(&b'(') && line.get(i + 2) != Some(&b'(') {
            let mut depth = 0usize;
            let mut end = None;
            for (k, &c) in line[i + 1..].iter().enumerate() {
                match c {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(i + 1 + k);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            if let Some(end) = end
                && let Ok(inner) = std::str::from_utf8(&line[i + 2..end])
                && let Some((rewritten, _)) = lex(inner)
            {
                out.extend_from_slice(b"$(");
                out.extend_from_slice(rewritten.trim_end_matches('\n').as_bytes());
                out.push(b')');
                changed = true;
                i = end + 1;
                continue;
            }
        }
        out.push(line[i]);
        i += 1;
    }
    (out, changed)
}

/// A body line with the parentheses and quotes of its text hidden: all of them in a quoted
/// body, those outside `$( … )` and backquotes in one that is expanded.
fn hide_text(line: &[u8], quoted: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(line.len() + 8);
    let mut i = 0;
    while i < line.len() {
        let c = line[i];
        if !quoted && c == b'\\' && i + 1 < line.len() {
            out.extend_from_slice(&line[i..i + 2]);
            i += 2;
            continue;
        }
        if !quoted && c == b'$' && line.get(i + 1) == Some(&b'(') {
            let mut depth = 0;
            let start = i;
            while i < line.len() {
                match line[i] {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            out.extend_from_slice(&line[start..i]);
            continue;
        }
        if !quoted && c == b'`' {
            let end = line[i + 1..].iter().position(|&x| x == b'`').map_or(line.len(), |p| p + i + 2);
            out.extend_from_slice(&line[i..end]);
            i = end;
            continue;
        }
        match HIDDEN.iter().find(|&&(p, _)| p as u8 == c) {
            Some(&(_, h)) => {
                let mut buf = [0; 4];
                out.extend_from_slice(h.encode_utf8(&mut buf).as_bytes());
            }
            None => out.push(c),
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(text: &str) -> String {
        rewrite(text).unwrap_or_else(|| panic!("nothing rewritten in {text:?}"))
    }

    #[test]
    fn continuations_are_joined_where_bash_joins_them_and_lines_keep_their_numbers() {
        assert_eq!(r("echo $\\\n(whoami)\nnext"), "echo $(whoami)\n\nnext");
        assert_eq!(r("echo hi 2>\\\n&1"), "echo hi 2>&1\n");
        assert_eq!(r("echo \"$\\\n(id)\""), "echo \"$(id)\"\n");
        // Not in single quotes, `$'…'` or comments.
        assert_eq!(r("echo 'a\\\nb' $'c\\\nd' # e\\\nx=$\\\n(id)"), "echo 'a\\\nb' $'c\\\nd' # e\\\nx=$(id)\n");
        assert_eq!(rewrite("echo 'a\\\nb'"), None);
    }

    #[test]
    fn a_process_substitution_that_is_the_command_gets_a_command_before_it() {
        assert_eq!(r("echo $(<(whoami))"), "echo $(: <(whoami))");
        assert_eq!(r("x=1 <(id) arg"), "x=1 : <(id) arg");
        assert_eq!(r("if <(id); then :; fi"), "if : <(id); then :; fi");
        assert_eq!(rewrite("cat <(id) >(wc)"), None);
        assert_eq!(rewrite("x=$(< <(id))"), None);
        assert_eq!(rewrite("echo $(( 1 <(2) ))"), None);
    }

    #[test]
    fn a_delimiter_with_a_substitution_and_its_closing_line_become_the_same_text() {
        assert_eq!(r("cat <<$(id)\n$(whoami)\n$(id)\necho"), "cat <<XXXXX\n$(whoami)\nXXXXX\necho");
        assert_eq!(r("cat <<\"$(id)\"\nx\n$(id)\n"), "cat <<\"XXXXX\"\nx\nXXXXX\n");
    }

    #[test]
    fn case_patterns_get_their_parenthesis_and_select_reads_as_for() {
        assert_eq!(r("x=$(case k in k) id;; j|l) id;& esac)"), "x=$(case k in (k) id;; (j|l) id;& esac;)");
        assert_eq!(
            r("case $x in\n  a) echo $(case y in y) id;; esac);;\n  (b) :;;\nesac"),
            "case $x in\n  (a) echo $(case y in (y) id;; esac;);;\n  (b) :;;\nesac"
        );
        assert_eq!(r("select x in a b; do id; done"), "for    x in a b; do id; done");
        assert_eq!(rewrite("echo select case"), None);
        assert_eq!(r("cat <( case k in (k) id;; esac )"), "cat <( case k in (k) id;; esac; )");
    }

    #[test]
    fn a_process_substitution_where_a_word_is_wanted_gets_a_plain_operator() {
        assert_eq!(r(": 2>&<(id)"), ": 2>  <(id)");
        assert_eq!(r(": &> >(id)"), ": >  >(id)");
        assert_eq!(r("cat <<< <(id)"), "cat <   <(id)");
        assert_eq!(r("cat <<<\\\n<(id)"), "cat <   <(id)\n");
        assert_eq!(rewrite(": > >(id) < <(id) 2>&1"), None);
        assert_eq!(r("echo $(( id ) | wc)"), "echo $( ( id ) | wc)");
        assert_eq!(rewrite("echo $(( (1) + 2 ))"), None);
    }

    #[test]
    fn here_documents_bash_ends_otherwise_than_the_parser() {
        // A quoted delimiter holding a newline never matches: the body runs to the end.
        assert_eq!(r("bash <<'E\\\nOF'\nid\nEOF"), "bash <<'XXXXX'\nid\nEOF\nXXXXX\n");
        // Inside `$( … )`, the delimiter right before the closing parenthesis.
        assert_eq!(r("x=$(cat <<E\nid\nE)"), "x=$(cat <<E\nid\nE\n)");
        // A substitution in an expanded body is rewritten as code is.
        assert_eq!(r("cat <<E\n$(case k in k) id;; esac)\nE"), "cat <<E\n$(case k in (k) id;; esac)\nE");
        assert_eq!(r("echo `case k in k) id;; e\\\nsac`"), "echo `case k in (k) id;; esac;`\n");
        assert_eq!(r("x=$(case k in k) id;;\\\n esac)"), "x=$(case k in (k) id;; esac;)\n");
    }

    #[test]
    fn continuations_inside_operators_and_delimiters_are_joined_first() {
        assert_eq!(r("cat <\\\n<< $(id)"), "cat <<< $(id)\n");
        assert_eq!(r(": &> <\\\n(id)"), ": >  <(id)\n");
        assert_eq!(needed("sh <<E\\\nOF\nid\nEOF\nls").as_deref(), Some("sh <<EOF\nid\nEOF\n\nls"));
        assert_eq!(
            r("cat <<\"$(stu\\\nb)\" >/dev/null\nx\n$(stub)\nls"),
            "cat <<\"XXXXXXX\" >/dev/null\nx\nXXXXXXX\n\nls"
        );
        // Not in single quotes, nor in a quoted body.
        assert_eq!(r("echo 'a\\\nb' $\\\n(id)"), "echo 'a\\\nb' $(id)\n");
        assert_eq!(r("cat <<'E'\na\\\nE\nE\necho $\\\n(id)"), "cat <<'E'\na\\\nE\nE\necho $(id)\n");
    }

    #[test]
    fn a_body_that_runs_to_the_end_of_the_text_gets_its_closing_line() {
        assert_eq!(r("bash <<'EOF'\nid\nEO\\\nF"), "bash <<'EOF'\nid\nEO\\\nF\nEOF");
        // In an expanded body the closing line may be continued.
        assert_eq!(r("sh <<EOF\nid\nEO\\\nF\nls"), "sh <<EOF\nid\nEOF\n\nls");
        assert_eq!(needed("sh <<\\\nEOF\nid\nEOF\n"), Some("sh <<EOF\nid\nEOF\n\n".to_string()));
    }

    #[test]
    fn a_here_document_inside_a_substitution_hides_its_parentheses_and_quotes() {
        let text = "x=$(cat <<EOF\n) don't $(id) `id`\nEOF\n)";
        let out = r(text);
        assert_eq!(needed(text).as_deref(), Some(out.as_str()));
        assert!(out.starts_with("x=$(cat <<EOF\n\u{10FE29} don\u{10FE27}t $(id) `id`\nEOF\n)"), "{out:?}");
        assert_eq!(restore(&out), text);
        let quoted = r("x=$(cat <<'EOF'\n$(id)\nEOF\n)");
        assert!(quoted.contains("$\u{10FE28}id\u{10FE29}"), "{quoted:?}");
        // At the top level, bodies are left alone.
        assert_eq!(rewrite("cat <<EOF\n)\nEOF\n"), None);
    }
}
