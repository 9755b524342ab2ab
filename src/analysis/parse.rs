//! The adapter around `brush-parser`: input limits, a nesting bound checked before parsing,
//! and parser errors turned into [`Failure`]s with a position.

use brush_parser::ast;
use brush_parser::word::{Parameter, ParameterExpr, SpecialParameter, WordPiece, WordPieceWithSource};

use super::{Failure, Pos};

/// The largest program text analysed; bigger ones are denied.
pub const MAX_TEXT_BYTES: usize = 8 * 1024 * 1024;

/// The deepest nesting of compound commands, substitutions and quotes accepted.
pub const MAX_DEPTH: usize = 200;

/// Unclosed parentheses accepted before parsing (bash itself rejects any).
const MAX_OPEN_PARENS: usize = 8;

/// Stack for the analysis thread. The nesting bound keeps real use far below it.
pub const STACK_BYTES: usize = 256 * 1024 * 1024;

/// Rejects text that is too large or contains NUL bytes; returns it as text for the parser
/// (bytes that are not UTF-8 carried as in [`super::bytes`]).
pub fn check_text(text: &[u8]) -> Result<std::borrow::Cow<'_, str>, Failure> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(Failure {
            message: format!(
                "the program is {} bytes long; the analysis accepts at most {} bytes",
                text.len(),
                MAX_TEXT_BYTES
            ),
            pos: None,
        });
    }
    // (`contains` finds a byte a word at a time; most programs have no NUL to place.)
    if text.contains(&0)
        && let Some(at) = text.iter().position(|&b| b == 0)
    {
        return Err(Failure { message: "the program contains a NUL byte".into(), pos: Some(position_of(text, at)) });
    }
    Ok(super::bytes::decode(text))
}

fn position_of(text: &[u8], at: usize) -> Pos {
    let before = &text[..at.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = at - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
    Pos { line, column }
}

/// Parser options matching bash's defaults for scripts (extglob is accepted so that text
/// using it parses; bash would reject it only later, at run time).
pub fn options() -> brush_parser::ParserOptions {
    brush_parser::ParserOptions { enable_extended_globbing: true, ..Default::default() }
}

/// Inputs the parser is known to panic on (it unwraps integer parses): a run of ten or more
/// digits right before `<` or `>` (a file descriptor number), and `~` followed by twenty or
/// more digits (a directory stack index). bash cannot use such numbers either.
fn overflowing_number(text: &str) -> Option<&'static str> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let run = i - start;
            if run >= 10 && matches!(b.get(i), Some(b'<' | b'>')) {
                return Some("a file descriptor number too large for bash");
            }
            let tilde = start > 0
                && (b[start - 1] == b'~' || (start > 1 && matches!(b[start - 1], b'+' | b'-') && b[start - 2] == b'~'));
            if run >= 20 && tilde {
                return Some("a directory stack index too large for bash");
            }
            continue;
        }
        i += 1;
    }
    None
}

fn check_numbers(text: &str) -> Result<(), Failure> {
    match overflowing_number(text) {
        Some(what) => Err(Failure { message: format!("the program holds {what}"), pos: None }),
        None => Ok(()),
    }
}

/// How deep a text nests (compound commands, substitutions, quotes), by a cheap scan.
pub fn nesting(text: &str) -> usize {
    scan(text, None).0
}

/// Parses a whole program, after bounding its nesting.
pub fn program(text: &str) -> Result<ast::Program, Failure> {
    program_after(text, false)
}

/// Parses a piece [`cut`] handed over; `checked`, as it said: the piece passes [`program`]'s
/// checks, which are then not made again.
pub fn piece(text: &str, checked: bool) -> Result<ast::Program, Failure> {
    program_after(text, checked)
}

fn program_after(text: &str, checked: bool) -> Result<ast::Program, Failure> {
    // A text the parser would read otherwise than bash is read rewritten (see `rescue`).
    if let Some(rewritten) = super::rescue::needed(text)
        && check_program(&rewritten, None).is_ok()
        && let Ok(program) = parse_checked(&rewritten)
    {
        return Ok(program);
    }
    let checks = if checked { Ok(()) } else { check_program(text, None) };
    checks.and_then(|()| parse_checked(text)).or_else(|failure| {
        // Shapes bash reads and the parser (or the checks before it) do not, rewritten (see
        // `rescue`): the rewritten text passes the same checks before the parser sees it.
        match super::rescue::rewrite(text) {
            Some(rewritten) if check_program(&rewritten, None).is_ok() => {
                parse_checked(&rewritten).map_err(|_| failure)
            }
            _ => Err(failure),
        }
    })
}

/// The checks [`program`] makes before the parser may see `text`; with `cuts`, also finds
/// where the text can be cut into pieces that parse on their own (see [`cut`]).
fn check_program(text: &str, cuts: Option<&mut Cutter<'_>>) -> Result<(), Failure> {
    check_numbers(text)?;
    let (depth, open_parens, empty_heredoc, continued_end) = scan(text, cuts);
    // The parser loops forever on some here-documents with an empty quoted delimiter (`<<''`).
    if empty_heredoc {
        return Err(Failure {
            message: "the program has a here-document with an empty delimiter or no body, which the parser cannot read"
                .into(),
            pos: None,
        });
    }
    // In a here-document whose delimiter is not quoted, a line ending in a backslash goes on
    // into the next one: bash does not end the body at a delimiter line right after it, the
    // parser does, and would read the rest of the body as commands.
    if continued_end {
        return Err(Failure {
            message: "the program has a here-document whose end line follows a line ending in a backslash, which bash reads on past and the parser does not"
                .into(),
            pos: None,
        });
    }
    if depth > MAX_DEPTH {
        return Err(Failure {
            message: format!("the program nests {depth} levels deep; the analysis accepts at most {MAX_DEPTH}"),
            pos: None,
        });
    }
    // bash rejects unclosed parentheses anyway; the parser's backtracking over many of them
    // grows exponentially, so they are refused before it starts.
    if open_parens > MAX_OPEN_PARENS {
        return Err(Failure {
            message: format!("the parser rejected the program: {open_parens} parentheses are never closed"),
            pos: None,
        });
    }
    Ok(())
}

/// Whether `text` is within the fixed bounds of the analysis (numbers bash can use, nesting
/// depth). A text within them that [`program`] refuses was refused by the parser, which
/// may be wrong where bash is not (see [`crate::analysis::files::bash_accepts`]).
pub fn within_bounds(text: &str) -> bool {
    check_numbers(text).is_ok() && scan(text, None).0 <= MAX_DEPTH
}

/// The parser on text that passed [`check_program`] (whole, or as a piece of a text that did).
fn parse_checked(text: &str) -> Result<ast::Program, Failure> {
    let text = heredoc_delimiters_as_bash_reads_them(text);
    let mut parser = brush_parser::Parser::new(std::io::Cursor::new(text.as_bytes()), &options());
    parser.parse_program().map_err(|e| parse_failure(&e))
}

/// bash ends a here-document whose delimiter is written `$'EOF'` or `$"EOF"` at the line `EOF`
/// (quote removal only); the parser would wait for `$EOF`. The `$` is read as a space, which
/// keeps every position, so the parser ends it where bash does.
fn heredoc_delimiters_as_bash_reads_them(text: &str) -> std::borrow::Cow<'_, str> {
    let b = text.as_bytes();
    let mut at: Vec<usize> = Vec::new();
    let mut i = 0;
    while let Some(found) = text[i..].find("<<") {
        let mut j = i + found + 2;
        if b.get(j) == Some(&b'<') {
            // A here-string.
            i = j + 1;
            continue;
        }
        if b.get(j) == Some(&b'-') {
            j += 1;
        }
        while matches!(b.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        if b.get(j) == Some(&b'$') && matches!(b.get(j + 1), Some(b'\'' | b'"')) {
            at.push(j);
        }
        i = j.max(i + found + 2);
    }
    if at.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = b.to_vec();
    for j in at {
        out[j] = b' ';
    }
    // Only an ASCII byte was replaced by another: still UTF-8.
    std::borrow::Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| text.to_string()))
}

/// Cuts a long program into pieces of about `piece` bytes that parse on their own, and hands
/// each piece, as the byte range it takes in `text`, to `each` as soon as the scan has passed
/// its end; `each` returns whether to go on. With each piece goes whether it is known to pass
/// [`program`]'s checks (see [`Cutter::clean`]). Returns the verdict of [`program`]'s checks on
/// the whole text, which is known only at its end; the last piece is handed over only when
/// the checks pass.
///
/// A cut is made only after a newline where nothing is open: no quote, substitution,
/// here-document, bracket or compound command, no line continuation, and neither the line
/// before nor the line after looks like it continues the other. That is judged by a cheap
/// scan, which can be fooled (`echo fi` inside an `if`); a wrong cut leaves a piece that
/// does not parse, and the caller then parses the whole text instead. Where the scan loses
/// track of what is open, it cuts no more. The caller parses each piece with [`piece`], which
/// makes the checks again unless the cut vouched for them, so the parser never sees text the
/// checks did not pass.
pub fn cut(text: &str, piece: usize, each: &mut dyn FnMut(usize, usize, bool) -> bool) -> Result<(), Failure> {
    let mut cutter = Cutter { piece, each: Some(each), command: true, clean: true, ..Cutter::default() };
    check_program(text, Some(&mut cutter))?;
    // The whole text passed: so does the rest of it, scanned from a fresh start.
    let (last, checked) = (cutter.last, cutter.clean);
    if let Some(each) = cutter.each {
        each(last, text.len(), checked);
    }
    Ok(())
}

/// What is open at a point of the text, for [`cut`].
#[derive(Clone, Copy, PartialEq, Debug)]
enum Open {
    Paren,
    Brace,
    If,
    Case,
    Loop,
}

/// The state of [`cut`]'s search, carried through [`scan`].
#[derive(Default)]
struct Cutter<'a> {
    /// Wanted length of a piece.
    piece: usize,
    /// Where the current piece starts.
    last: usize,
    /// What is open, innermost last.
    open: Vec<Open>,
    /// The next word is in command position (where `if` or `done` are keywords).
    command: bool,
    /// The scan lost track of what is open: no more cuts.
    lost: bool,
    /// Where each piece goes; `None` once it wants no more.
    each: Option<&'a mut dyn FnMut(usize, usize, bool) -> bool>,
    /// The scan was where a scan of the current piece alone starts (nothing open, no
    /// parenthesis or bracket counted, no check failed) when the piece began. The scan of the
    /// piece alone then goes as the scan of the whole goes over it, so what the whole scan
    /// found over the piece is what the piece's own checks would find.
    clean: bool,
    /// The deepest nesting the scan met since the current piece began.
    piece_depth: usize,
}

impl Cutter<'_> {
    fn push(&mut self, open: Open) {
        self.open.push(open);
    }

    fn close(&mut self, open: Open) {
        if self.open.last() == Some(&open) {
            self.open.pop();
        } else {
            self.lost = true;
        }
    }

    /// A word (empty for one that cannot be a keyword, such as `for=1`).
    fn keyword(&mut self, word: &[u8]) {
        // `case WORD in`: a pattern follows (or `esac`).
        if word == b"in" && self.open.last() == Some(&Open::Case) {
            self.command = true;
            return;
        }
        if !self.command {
            return;
        }
        match word {
            b"if" => self.push(Open::If),
            b"case" => self.push(Open::Case),
            b"while" | b"until" | b"for" | b"select" => self.push(Open::Loop),
            b"fi" => self.close(Open::If),
            b"esac" => self.close(Open::Case),
            b"done" => self.close(Open::Loop),
            _ => {}
        }
        // After these, a command follows.
        self.command = matches!(word, b"then" | b"do" | b"else" | b"elif" | b"if" | b"while" | b"until" | b"time");
    }

    /// A closing parenthesis: the end of a subshell or substitution, or of a `case` pattern.
    fn paren(&mut self) {
        if self.open.last() != Some(&Open::Case) {
            self.close(Open::Paren);
        }
        self.command = true;
    }

    /// A newline at the top level of `text` (at byte `at`): cut there if the piece is long
    /// enough and nothing is open. `fresh`: the scan is where a scan starting after this
    /// newline starts; `failed`: one of the checks has failed so far.
    fn newline(&mut self, text: &[u8], at: usize, fresh: bool, failed: bool) {
        self.command = true;
        let start = at + 1;
        if self.lost || !self.open.is_empty() || start - self.last < self.piece || start >= text.len() {
            return;
        }
        let line_start = text[..at].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let line = text[line_start..at].trim_ascii_end();
        // A line ending in an operator, or in a word after which a command or body follows.
        if matches!(line.last(), None | Some(b'|' | b'&' | b'!' | b'\\' | b'(' | b'{')) {
            return;
        }
        let last_word = line.rsplit(|b| b.is_ascii_whitespace()).next().unwrap_or_default();
        if matches!(
            last_word,
            b"time" | b"-p" | b"then" | b"do" | b"else" | b"elif" | b"if" | b"while" | b"until" | b"in" | b"function"
        ) {
            return;
        }
        // A line that starts with an operator, a keyword that continues a compound command,
        // or a body (`f()` on the line before).
        let next_end = text[start..].iter().position(|&b| b == b'\n').map_or(text.len(), |p| p + start);
        let next = text[start..next_end].trim_ascii_start();
        if matches!(next.first(), Some(b'|' | b'&' | b';' | b')' | b'}' | b'{' | b'(')) {
            return;
        }
        let first_word = next.split(|b| b.is_ascii_whitespace() || *b == b';').next().unwrap_or_default();
        if matches!(first_word, b"then" | b"do" | b"done" | b"fi" | b"elif" | b"else" | b"esac" | b"in") {
            return;
        }
        let checked = self.clean && !failed && self.piece_depth <= MAX_DEPTH;
        if let Some(each) = self.each.as_mut()
            && !each(self.last, start, checked)
        {
            self.each = None;
            self.lost = true;
        }
        self.last = start;
        self.clean = fresh && !failed;
        self.piece_depth = 0;
    }
}

fn parse_failure(e: &brush_parser::ParseError) -> Failure {
    use brush_parser::ParseError;
    let pos = match e {
        ParseError::ParsingNear(p) => Some(Pos { line: p.line, column: p.column }),
        ParseError::Tokenizing { position, .. } => position.as_ref().map(|p| Pos { line: p.line, column: p.column }),
        ParseError::ParsingAtEndOfInput => None,
    };
    let message = match e {
        ParseError::Tokenizing { inner, .. } => format!("the parser rejected the program: {inner}"),
        ParseError::ParsingAtEndOfInput => "the parser rejected the program: syntax error at end of input".into(),
        ParseError::ParsingNear(_) => "the parser rejected the program: syntax error".into(),
    };
    Failure { message, pos }
}

/// Whether a `$(`, `$((`, `${` or `$[` is never closed. bash rejects such text when it expands
/// it, and the word parser backtracks exponentially over several of them. In a here-document
/// body (`heredoc`), quotes at the top level are plain text.
/// Also returns how deeply array subscripts (`${a[ … ]}`) nest.
fn unterminated_expansion(text: &str, heredoc: bool) -> (bool, usize) {
    #[derive(Clone, Copy, PartialEq)]
    enum Frame {
        /// `$( … )` and the brackets nested in it: code.
        Code(u8),
        /// `${ … }` and `$[ … ]`, with where the name starts.
        Param(u8, usize),
        /// The subscript of `${name[ … ]}`.
        Index,
        Double,
    }
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut param_depth = 0;
    let skip_to = |from: usize, quote: u8| -> usize {
        let mut j = from;
        while j < b.len() && b[j] != quote {
            if quote == b'`' && b[j] == b'\\' {
                j += 1;
            }
            j += 1;
        }
        j
    };
    let mut i = 0;
    while i < b.len() {
        let top = stack.last().copied();
        let quotes_work = match top {
            None => !heredoc,
            Some(Frame::Code(_)) => true,
            Some(Frame::Param(..) | Frame::Index) => {
                let in_code = stack.iter().any(|f| matches!(f, Frame::Code(_)));
                (in_code || !heredoc) && !stack.contains(&Frame::Double)
            }
            Some(Frame::Double) => false,
        };
        match b[i] {
            b'\\' => i += 1,
            b'$' if matches!(b.get(i + 1), Some(b'(' | b'{' | b'[')) => {
                stack.push(match b[i + 1] {
                    b'(' => Frame::Code(b')'),
                    b'{' => Frame::Param(b'}', i + 2),
                    _ => Frame::Param(b']', i + 2),
                });
                i += 1;
            }
            // `${name[`: a subscript (not a `[` in a pattern, `${x/[/y}`).
            b'[' if matches!(top, Some(Frame::Param(b'}', start))
                if { let name = text[start..i].trim_start_matches(['!', '#']); !name.is_empty() && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') }) =>
            {
                stack.push(Frame::Index);
                param_depth = param_depth.max(stack.iter().filter(|f| **f == Frame::Index).count());
            }
            b']' if top == Some(Frame::Index) => {
                stack.pop();
            }
            b'`' => i = skip_to(i + 1, b'`'),
            b'\'' if quotes_work => i = skip_to(i + 1, b'\''),
            b'"' if top == Some(Frame::Double) => {
                stack.pop();
            }
            b'"' if quotes_work => stack.push(Frame::Double),
            c @ (b'(' | b'{' | b'[') if matches!(top, Some(Frame::Code(_))) => stack.push(Frame::Code(match c {
                b'(' => b')',
                b'{' => b'}',
                _ => b']',
            })),
            c @ (b')' | b'}' | b']') => {
                if matches!(top, Some(Frame::Code(x) | Frame::Param(x, _)) if x == c) {
                    stack.pop();
                }
            }
            _ => {}
        }
        i += 1;
    }
    (!stack.is_empty(), param_depth)
}

/// How deeply array subscripts may nest (`${a[${b[…]}]}` is two): the word parser's cost grows
/// about twentyfold with each level.
const MAX_SUBSCRIPTED_NESTING: usize = 2;

fn check_word(text: &str, heredoc: bool) -> Result<(), Failure> {
    check_numbers(text)?;
    let (unterminated, param_depth) = unterminated_expansion(text, heredoc);
    if unterminated {
        return Err(Failure { message: "the program has an expansion that is never closed".into(), pos: None });
    }
    if param_depth > MAX_SUBSCRIPTED_NESTING {
        return Err(Failure {
            message: format!(
                "the program nests array subscripts {param_depth} deep; the analysis accepts {MAX_SUBSCRIPTED_NESTING}"
            ),
            pos: None,
        });
    }
    Ok(())
}

/// Whether a word (or a here-document body) is within the fixed bounds of the analysis:
/// numbers bash can use, array subscripts and nesting not too deep. A word within them that
/// [`word`] refuses is one the parser cannot read.
pub fn word_within_bounds(text: &str, heredoc: bool) -> bool {
    check_numbers(text).is_ok()
        && unterminated_expansion(text, heredoc).1 <= MAX_SUBSCRIPTED_NESTING
        && nesting_bound(text) <= MAX_DEPTH
}

/// Splits one word into its pieces.
pub fn word(text: &str) -> Result<Vec<WordPieceWithSource>, Failure> {
    check_word(text, false)?;
    if nesting_bound(text) > MAX_DEPTH {
        return Err(Failure { message: format!("a word nests more than {MAX_DEPTH} levels deep"), pos: None });
    }
    if let Some(pieces) = simple_word(text) {
        return Ok(pieces);
    }
    brush_parser::word::parse(text, &options())
        .map_err(|e| Failure { message: format!("the parser rejected a word: {e}"), pos: None })
}

/// The pieces of a word made only of plain text, single-quoted text, `$name`, `${name}`,
/// `$1`…`$9`, the special parameters (`$@`, `$?`, …) and double quotes around text and those
/// parameters, exactly as the parser returns them; `None` for any other word, which the
/// parser then splits. Most words of real scripts are of this kind, and the parser (a
/// backtracking grammar behind a locked cache) costs far more per word than this scan. Where
/// the two could differ in the least (a backslash, a backquote, a tilde, `$(`, `$'`, a `$`
/// before anything but a name, a digit or a special parameter, `${` with more than a name), the
/// word goes to the parser; a test compares both on the machine's scripts and on generated
/// words.
pub fn simple_word(text: &str) -> Option<Vec<WordPieceWithSource>> {
    let b = text.as_bytes();
    if b.iter().any(|c| matches!(c, b'\\' | b'`' | b'~')) {
        return None;
    }
    let piece = |piece, start_index, end_index| WordPieceWithSource { piece, start_index, end_index };
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\'' => {
                let end = i + 1 + b[i + 1..].iter().position(|&c| c == b'\'')?;
                pieces.push(piece(WordPiece::SingleQuotedText(text[i + 1..end].to_string()), i, end + 1));
                i = end + 1;
            }
            b'"' => {
                let start = i;
                let mut inner = Vec::new();
                i += 1;
                loop {
                    match *b.get(i)? {
                        b'"' => break,
                        b'$' => {
                            let (p, end) = simple_parameter(text, i)?;
                            inner.push(piece(p, i, end));
                            i = end;
                        }
                        _ => {
                            let end = i + b[i..].iter().position(|&c| matches!(c, b'"' | b'$')).unwrap_or(b.len() - i);
                            inner.push(piece(WordPiece::Text(text[i..end].to_string()), i, end));
                            i = end;
                        }
                    }
                }
                pieces.push(piece(WordPiece::DoubleQuotedSequence(inner), start, i + 1));
                i += 1;
            }
            b'$' => {
                let (p, end) = simple_parameter(text, i)?;
                pieces.push(piece(p, i, end));
                i = end;
            }
            _ => {
                let end = i + b[i..].iter().position(|&c| matches!(c, b'\'' | b'"' | b'$')).unwrap_or(b.len() - i);
                pieces.push(piece(WordPiece::Text(text[i..end].to_string()), i, end));
                i = end;
            }
        }
    }
    Some(pieces)
}

/// `$name`, `${name}`, `$1`…`$9` or a special parameter at `at` (a `$`), and where it ends.
fn simple_parameter(text: &str, at: usize) -> Option<(WordPiece, usize)> {
    let b = text.as_bytes();
    let name_end = |from: usize| {
        if !b.get(from).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
            return None;
        }
        Some(from + b[from..].iter().position(|c| !c.is_ascii_alphanumeric() && *c != b'_').unwrap_or(b.len() - from))
    };
    let plain = |parameter| WordPiece::ParameterExpansion(ParameterExpr::Parameter { parameter, indirect: false });
    let special = |p| Some(plain(Parameter::Special(p)));
    let next = *b.get(at + 1)?;
    let (piece, end) = match next {
        b'{' => {
            let end = name_end(at + 2)?;
            if b.get(end) != Some(&b'}') {
                return None;
            }
            (plain(Parameter::Named(text[at + 2..end].to_string())), end + 1)
        }
        b'1'..=b'9' => (plain(Parameter::Positional(u32::from(next - b'0'))), at + 2),
        _ => match name_end(at + 1) {
            Some(end) => (plain(Parameter::Named(text[at + 1..end].to_string())), end),
            None => {
                let p = match next {
                    b'@' => special(SpecialParameter::AllPositionalParameters { concatenate: false }),
                    b'*' => special(SpecialParameter::AllPositionalParameters { concatenate: true }),
                    b'#' => special(SpecialParameter::PositionalParameterCount),
                    b'?' => special(SpecialParameter::LastExitStatus),
                    b'-' => special(SpecialParameter::CurrentOptionFlags),
                    b'$' => special(SpecialParameter::ProcessId),
                    b'!' => special(SpecialParameter::LastBackgroundProcessId),
                    b'0' => special(SpecialParameter::ShellName),
                    _ => None,
                }?;
                (p, at + 2)
            }
        },
    };
    Some((piece, end))
}

/// Splits a here-document body into its pieces.
pub fn heredoc(text: &str) -> Result<Vec<WordPieceWithSource>, Failure> {
    check_word(text, true)?;
    if nesting_bound(text) > MAX_DEPTH {
        return Err(Failure { message: format!("a here-document nests more than {MAX_DEPTH} levels deep"), pos: None });
    }
    brush_parser::word::parse_heredoc(text, &options())
        .map_err(|e| Failure { message: format!("the parser rejected a here-document: {e}"), pos: None })
}

/// An upper bound, in practice, on how deeply `text` nests: a quote-aware scan that counts
/// every opening construct (parentheses, braces, brackets, `$(`, `${`, backquotes, and the
/// keywords that open compound commands). Closers inside quotes or here-documents never lower
/// the count. It errs towards counting too much; it only has to keep the parser far from the
/// stack limit, and the limit it is compared with is far below what the stack can hold.
pub fn nesting_bound(text: &str) -> usize {
    scan(text, None).0
}

/// The nesting bound, how many parentheses stay open at the end of the text, and whether a
/// here-document has an empty quoted delimiter. With `cuts`, also where [`cut`] may cut.
fn scan(text: &str, mut cuts: Option<&mut Cutter<'_>>) -> (usize, usize, bool, bool) {
    #[derive(Clone, Copy, PartialEq)]
    enum Kind {
        Code,
        Double,
        Backquote,
        /// `$(` or `${` inside double quotes: code until the bracket that closes it.
        Sub,
    }
    let b = text.as_bytes();
    let mut frames: Vec<(Kind, usize)> = vec![(Kind::Code, 0)];
    let mut depth: usize = 0;
    let mut max: usize = 0;
    let mut i = 0;
    let mut word_start = true;
    let mut heredocs: Vec<(Vec<u8>, bool, bool)> = Vec::new();
    let mut continued_end = false;
    let mut open_parens: usize = 0;
    let mut empty_heredoc = false;
    let mut arithmetic: Vec<usize> = Vec::new();
    while i < b.len() {
        let (kind, base) = *frames.last().unwrap_or(&(Kind::Code, 0));
        let level = depth + frames.len() - 1;
        max = max.max(level);
        if let Some(k) = cuts.as_deref_mut() {
            k.piece_depth = k.piece_depth.max(level);
        }
        let c = b[i];
        if kind == Kind::Double {
            match c {
                b'\\' => i += 1,
                b'"' => {
                    frames.pop();
                }
                b'`' => {
                    frames.push((Kind::Backquote, depth));
                    // Code starts inside.
                    word_start = true;
                    if let Some(k) = cuts.as_deref_mut() {
                        k.command = true;
                    }
                }
                b'$' if matches!(b.get(i + 1), Some(b'(' | b'{')) => {
                    if b.get(i + 1) == Some(&b'(') && b.get(i + 2) == Some(&b'(') {
                        arithmetic.push(depth);
                    }
                    frames.push((Kind::Sub, depth));
                    depth += 1;
                    i += 1;
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        // A line continuation is gone before bash reads words: what was at a word's start or
        // in command position before it still is after it (`fi; \<newline> if`). One that
        // joins the parts of an operator (`<\<newline><EOF`, `$\<newline>{`, `(\<newline>(`)
        // is not followed: the scan cuts no more.
        if c == b'\\' && b.get(i + 1) == Some(&b'\n') {
            let mut next = i;
            while b.get(next) == Some(&b'\\') && b.get(next + 1) == Some(&b'\n') {
                next += 2;
            }
            let joins = matches!(
                (i.checked_sub(1).map(|p| b[p]), b.get(next)),
                (Some(b'<'), Some(b'<' | b'('))
                    | (Some(b'('), Some(b'('))
                    | (Some(b'$'), Some(b'{' | b'(' | b'[' | b'\'' | b'"'))
            );
            if joins && let Some(k) = cuts.as_deref_mut() {
                k.lost = true;
            }
            i = next;
            continue;
        }
        let at_word_start = word_start;
        // `${` opens a parameter expansion, where `#` is the length (`${#name}`) and no word
        // is a keyword.
        let parameter = c == b'{' && i > 0 && b[i - 1] == b'$';
        // (`{` and `}` are words, not operators: what follows one directly is in the same word,
        // `a{#x}` or `${x}#y`.)
        word_start = matches!(c, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>')
            || (c == b'`' && kind != Kind::Backquote);
        if let Some(k) = cuts.as_deref_mut() {
            match c {
                b';' | b'&' | b'|' => k.command = true,
                b'`' => k.command = kind != Kind::Backquote,
                b'(' => {
                    k.push(Open::Paren);
                    k.command = true;
                }
                b'{' => {
                    k.push(Open::Brace);
                    k.command = !parameter;
                }
                // `)` and `}` that close a substitution opened inside double quotes were not
                // seen opening here.
                b')' if !(kind == Kind::Sub && depth == base + 1) => k.paren(),
                b'}' if !(kind == Kind::Sub && depth == base + 1) => {
                    k.close(Open::Brace);
                    k.command = false;
                }
                b'\n' => {
                    if heredocs.is_empty() && frames.len() == 1 && arithmetic.is_empty() {
                        let fresh = depth == 0 && open_parens == 0;
                        k.newline(b, i, fresh, empty_heredoc || continued_end || max > MAX_DEPTH);
                    }
                    k.command = true;
                }
                _ if at_word_start && !c.is_ascii_alphabetic() && !matches!(c, b' ' | b'\t' | b'<' | b'>' | b'#') => {
                    k.command = false
                }
                _ => {}
            }
        }
        match c {
            b'\\' => i += 1,
            b'\'' => {
                let ansi = i > 0 && b[i - 1] == b'$';
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    if ansi && b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'"' => frames.push((Kind::Double, depth)),
            b'`' if kind == Kind::Backquote => {
                frames.pop();
            }
            b'`' => frames.push((Kind::Backquote, depth)),
            b'#' if at_word_start => {
                while i + 1 < b.len() && b[i + 1] != b'\n' {
                    i += 1;
                }
            }
            b'(' | b'{' | b'[' => {
                // `((` and `$[` open arithmetic, where `<<` is a shift.
                if (c == b'(' && b.get(i + 1) == Some(&b'(')) || (c == b'[' && i > 0 && b[i - 1] == b'$') {
                    arithmetic.push(depth);
                }
                depth += 1;
                if c == b'(' {
                    open_parens += 1;
                }
            }
            b')' | b'}' | b']' => {
                if kind == Kind::Sub && depth == base + 1 {
                    frames.pop();
                }
                depth = depth.saturating_sub(1);
                if c == b')' {
                    open_parens = open_parens.saturating_sub(1);
                }
                while arithmetic.last().is_some_and(|&d| depth <= d) {
                    arithmetic.pop();
                }
            }
            b'<' if b.get(i + 1) == Some(&b'<') && b.get(i + 2) == Some(&b'<') => {
                // A here-string.
                i += 2;
            }
            b'<' if b.get(i + 1) == Some(&b'<') && !arithmetic.is_empty() => i += 1,
            b'<' if b.get(i + 1) == Some(&b'<') => {
                i += 2;
                let strip = b.get(i) == Some(&b'-');
                if strip {
                    i += 1;
                }
                while i < b.len() && b[i] != b'\n' && b[i].is_ascii_whitespace() {
                    i += 1;
                }
                let mut delim = Vec::new();
                let mut quoted = false;
                while i < b.len()
                    && !b[i].is_ascii_whitespace()
                    && !matches!(b[i], b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>')
                {
                    // A delimiter continued on the next line (`<<E\<newline>OF`) is not followed:
                    // the scan cuts no more.
                    if b[i] == b'\\'
                        && b.get(i + 1) == Some(&b'\n')
                        && let Some(k) = cuts.as_deref_mut()
                    {
                        k.lost = true;
                    }
                    if matches!(b[i], b'\'' | b'"' | b'\\') {
                        quoted = true;
                    } else {
                        delim.push(b[i]);
                    }
                    i += 1;
                }
                // bash rejects an empty delimiter unless it is quoted; the parser crate loops
                // forever on some of either kind. (`((a << (b)))` is a shift, not one.)
                let rest_of_line_blank = b[i..].iter().take_while(|&&c| c != b'\n').all(|c| c.is_ascii_whitespace());
                empty_heredoc |= delim.is_empty() && (quoted || rest_of_line_blank);
                heredocs.push((delim, strip, quoted));
                word_start = true;
                continue;
            }
            b'\n' if !heredocs.is_empty() => {
                // Skip the bodies of the here-documents started on this line.
                for (delim, strip, quoted) in std::mem::take(&mut heredocs) {
                    let mut continued = false;
                    loop {
                        let start = i + 1;
                        if start >= b.len() {
                            i = b.len();
                            break;
                        }
                        let end = b[start..].iter().position(|&x| x == b'\n').map_or(b.len(), |p| p + start);
                        let mut line = &b[start..end];
                        if strip {
                            while line.first() == Some(&b'\t') {
                                line = &line[1..];
                            }
                        }
                        i = end;
                        if line == delim.as_slice() {
                            continued_end |= continued;
                            break;
                        }
                        let trailing = b[start..end].iter().rev().take_while(|&&c| c == b'\\').count();
                        continued = !quoted && trailing % 2 == 1;
                    }
                }
            }
            _ if at_word_start && c.is_ascii_alphabetic() => {
                let end =
                    b[i..].iter().position(|x| !x.is_ascii_alphanumeric() && *x != b'_').map_or(b.len(), |p| p + i);
                if let Some(k) = cuts.as_deref_mut() {
                    // A keyword is a whole word (`for=1` is an assignment).
                    let whole = b.get(end).is_none_or(|c| c.is_ascii_whitespace() || b";&|()<>`".contains(c));
                    k.keyword(if whole { &b[i..end] } else { b"" });
                }
                match &b[i..end] {
                    b"if" | b"case" | b"while" | b"until" | b"for" | b"select" | b"function" => depth += 1,
                    b"fi" | b"esac" | b"done" => depth = depth.saturating_sub(1),
                    _ => {}
                }
                i = end;
                word_start = false;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    // A here-document whose line never ends has no body; the parser crate loops forever on
    // some of those, and bash has nothing to read either.
    empty_heredoc |= !heredocs.is_empty();
    (max.max(depth + frames.len() - 1), open_parens, empty_heredoc, continued_end)
}

/// The start of a word in its text, when the parser recorded it.
pub fn word_pos(w: &ast::Word) -> Option<Pos> {
    w.loc.as_ref().map(|l| Pos { line: l.start.line, column: l.start.column })
}

/// The machine's shell scripts, shared with the integration tests and the benchmark.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../../tests/it/common/scripts.rs"]
mod test_scripts;

#[cfg(test)]
mod tests {
    use super::*;
    use test_scripts as scripts;

    /// Whether the fast split gives what the parser gives: `None` when it leaves the word to
    /// the parser, else whether they agree (compared through their debug form, the crate's
    /// pieces have no equality).
    fn fast_agrees(word: &str) -> Option<bool> {
        let fast = simple_word(word)?;
        let parser = brush_parser::word::parse(word, &options());
        Some(matches!(parser, Ok(p) if format!("{p:?}") == format!("{fast:?}")))
    }

    #[test]
    fn simple_words_split_as_the_parser_splits_them() {
        // Every word of the real scripts (the corpus; the machine's too when asked), as the
        // tokenizer finds them.
        let mut real = 0;
        let mut real_fast = 0;
        let mut differ = Vec::new();
        for path in scripts::scanned_scripts() {
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let Ok(tokens) = brush_parser::tokenize_str(&text) else { continue };
            for token in tokens {
                let brush_parser::Token::Word(word, _) = token else { continue };
                real += 1;
                match fast_agrees(&word) {
                    Some(true) => real_fast += 1,
                    Some(false) => differ.push(word),
                    None => {}
                }
            }
        }
        assert!(
            differ.is_empty(),
            "the fast split differs from the parser on {} words: {:?}",
            differ.len(),
            &differ[..differ.len().min(20)]
        );
        assert!(real > 10_000, "too few words to compare: {real}");
        // The fast way must be the common one, or it saves nothing.
        assert!(real_fast * 2 > real, "only {real_fast} of {real} words took the fast way");

        // Generated words: fragments that sit on every edge of the fast split, in every order.
        let fragments = [
            "a", "Z", "_", "9", "0", "1", "$", "{", "}", "'", "\"", "$x", "${x}", "${", "$1", "$12", "$@", "$*", "$#",
            "$?", "$-", "$$", "$!", "$0", "$'", "$\"", " ", "-", "/", ".", ":", "=", "[", "]", "*", "?", "(", ")", "%",
            "+", ",", "!", "@", "#", "${x:-y}", "${#x}", "${x[1]}", "${!x}", "${1}", "$_", "${_a}", "$a_1b", "é",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut generated, mut generated_fast) = (0, 0);
        for _ in 0..100_000 {
            let len = 1 + (next() % 7) as usize;
            let word: String = (0..len).map(|_| fragments[(next() % fragments.len() as u64) as usize]).collect();
            generated += 1;
            match fast_agrees(&word) {
                Some(true) => generated_fast += 1,
                Some(false) => panic!("the fast split differs from the parser on {word:?}"),
                None => {}
            }
        }
        assert!(
            generated_fast * 10 > generated,
            "only {generated_fast} of {generated} generated words took the fast way"
        );
    }

    #[test]
    fn bound_counts_nesting_not_length() {
        assert!(nesting_bound("echo hi; ls -la | grep x && cat y") <= 1);
        assert!(nesting_bound(&"( ".repeat(300)) >= 300);
        assert!(nesting_bound(&"$(".repeat(300)) >= 300);
        assert!(nesting_bound(&"if true; then ".repeat(300)) >= 300);
        // Closers hidden in quotes do not lower the count.
        let tricky = "( \")\" ".repeat(300);
        assert!(nesting_bound(&tricky) >= 300);
        assert_eq!(scan("((z|(((((((((((((((((((((((((+", None).1, 27);
        assert!(program("echo 333333333333333333333>|x").is_err());
        assert!(program("''<<''\t").is_err());
        assert!(program("cat <<\"\" \nx\n\n").is_err());
        assert!(program("cat <<'E'\nx\nE\n").is_ok());
        assert!(program("<<\t\r\t\t").is_err());
        assert!(program("x << \r\t").is_err());
        assert!(program("cat <<-EOF\n\tx\n\tEOF\n").is_ok());
        assert!(program("echo $(( 1 << (2) ))").is_ok());
        assert!(program("$s<<-\r yy ").is_err());
        for shift in ["echo \"$((1<<2))\"", "echo $[1<<2]", "a=$(( (1<<3) | 2 ))", "(( x <<= 1 ))"] {
            assert!(program(shift).is_ok(), "{shift}");
        }
        assert!(program("cat <<EOF").is_err());
        assert!(program("cat <<EOF\nx\nEOF").is_ok());
        assert!(program("echo 2>&1 3<x 10>y").is_ok());
        assert!(word("~99999999999999999999999").is_err());
        assert!(word("${x:-~+99999999999999999999999}").is_err());
        assert!(word("~12").is_ok());
        assert!(heredoc("$($(($((+((${i[$[${a[$(\n\n").is_err());
        assert!(heredoc("(note) :) $(date) ${x:-(y} $((1+(2)))\n").is_ok());
        assert!(word("\"$(echo ')')\"").is_ok());
        assert!(word("${x/(/[}").is_ok());
        // From the machine's scripts.
        assert!(word("'${GREP-'\\''grep'\\''}'").is_ok());
        assert!(word("${1?\"Missing pattern; try \\`${0##*/} --help' for help\"}").is_ok());
        assert!(
            word("\"$(dpkg-query -W -f='${Conffiles}' $pkg | sed -n -e \"\\' ${conffile} ' { s/ obsolete$//; p }\")\"")
                .is_ok()
        );
        assert!(word("\"$(echo \"$(date)\")\"").is_ok());
        assert!(word("$(echo").is_err());
        assert!(word("\"${x\"").is_err());
        assert!(word("${a[${b[1]}]}").is_ok());
        assert!(word("${a[${b[${c[1]}]}]}").is_err());
        assert!(word("${ba[${b[${ba[${ba[$},}},~,,Z${ba[$@[$@{}}").is_err());
        assert!(word("${a:-${b:-${c:-${d:-${e}}}}}").is_ok());
        assert_eq!(scan("case x in a) echo;; esac; (x)", None).1, 0);
        assert!(program(&format!("((z|{}+", "(".repeat(40))).is_err());
        let long_flat = "echo $(date) \"$(pwd)\" \"${x}\" 'it''s'\n".repeat(10_000);
        assert!(nesting_bound(&long_flat) <= 3, "{}", nesting_bound(&long_flat));
        // A here-document body is skipped, quotes and all.
        let heredoc = format!("cat <<'E'\ndon't )))\nE\n{}", "( ".repeat(300));
        assert!(nesting_bound(&heredoc) >= 300);
    }

    #[test]
    fn limits_are_clean_failures() {
        assert!(check_text(&vec![b'a'; MAX_TEXT_BYTES + 1]).is_err());
        assert_eq!(&*super::super::bytes::encode(&check_text(b"echo \xff").unwrap()), b"echo \xff");
        let bad = check_text(b"echo \xff\0").unwrap_err();
        assert_eq!(bad.pos, Some(Pos { line: 1, column: 7 }));
        assert!(check_text(b"echo\0").is_err());
        assert!(program(&format!("{}true{}", "( ".repeat(100_000), " )".repeat(100_000))).is_err());
    }

    /// The pieces `cut` makes with the smallest piece size (a cut wherever one is allowed).
    fn pieces(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        cut(text, 1, &mut |from, to, _| {
            out.push(&text[from..to]);
            true
        })
        .unwrap();
        out
    }

    #[test]
    fn cuts_fall_between_complete_commands() {
        // A blank line is not a line to judge: no cut after it (`a |` may come before it).
        assert_eq!(pieces("a\nb; c\n\nd"), ["a\n", "b; c\n", "\nd"]);
        assert_eq!(pieces("a |\n\nb\n"), ["a |\n\nb\n"]);
        assert_eq!(pieces("if a; then\n  b\nfi\nc\n"), ["if a; then\n  b\nfi\n", "c\n"]);
        assert_eq!(pieces("for x in 1 2\ndo\n  y\ndone\nz\n"), ["for x in 1 2\ndo\n  y\ndone\n", "z\n"]);
        assert_eq!(pieces("f() {\n  a\n}\ng\n"), ["f() {\n  a\n}\n", "g\n"]);
        assert_eq!(pieces("(\n a\n)\nb\n"), ["(\n a\n)\n", "b\n"]);
        assert_eq!(pieces("x=$(\n a\n)\nb\n"), ["x=$(\n a\n)\n", "b\n"]);
        assert_eq!(pieces("a=(\n 1\n 2\n)\nb\n"), ["a=(\n 1\n 2\n)\n", "b\n"]);
        // `case` patterns close no parenthesis.
        assert_eq!(
            pieces("case $x in\n a) b;;\n (c) d;;\nesac\ne\n"),
            ["case $x in\n a) b;;\n (c) d;;\nesac\n", "e\n"]
        );
        // Keywords count only in command position.
        assert_eq!(pieces("echo done\nfor=1\nb\n"), ["echo done\n", "for=1\n", "b\n"]);
        assert_eq!(pieces("case $x in esac\nb\n"), ["case $x in esac\n", "b\n"]);
        // Code inside backquotes and `$(…)` in double quotes.
        assert_eq!(
            pieces("x=`if a; then b; fi`\nif c; then\n d\nfi\ne\n"),
            ["x=`if a; then b; fi`\n", "if c; then\n d\nfi\n", "e\n"]
        );
        assert_eq!(pieces("x=\"$(case y in z) w;; esac)\"\na\n"), ["x=\"$(case y in z) w;; esac)\"\n", "a\n"]);
        // A line continuation leaves a keyword in command position (`fi; \<newline> if`).
        assert_eq!(
            pieces("x=$(if a; then \\\n b; \\\n fi; \\\n if c; then d; \\\n fi)\ne\nf\n"),
            ["x=$(if a; then \\\n b; \\\n fi; \\\n if c; then d; \\\n fi)\n", "e\n", "f\n"]
        );
        assert_eq!(
            pieces("v=`(cd d && \\\n for f in *; do echo $f; done)`\ne\nf\n"),
            ["v=`(cd d && \\\n for f in *; do echo $f; done)`\n", "e\n", "f\n"]
        );
        // `${#name}` is a length, not a comment, and no word in `${…}` is a keyword.
        assert_eq!(
            pieces("if [ ${#h} -gt 64 ]; then\n h=x\nfi\na\nb\n"),
            ["if [ ${#h} -gt 64 ]; then\n h=x\nfi\n", "a\n", "b\n"]
        );
        assert_eq!(pieces("echo ${done:-x}\na\nb\n"), ["echo ${done:-x}\n", "a\n", "b\n"]);
        // `{` and `}` are words: a `#` right after one is in the same word, not a comment.
        assert_eq!(pieces("echo a{#x}; cat <<EOF\n}\nEOF\nb\nc\n"), ["echo a{#x}; cat <<EOF\n}\nEOF\nb\n", "c\n"]);
        assert_eq!(pieces("echo ${x}#y; cat <<EOF\n(\nEOF\nb\nc\n"), ["echo ${x}#y; cat <<EOF\n(\nEOF\nb\n", "c\n"]);
        // A continued line that starts a comment still does (`a \<newline> # b`), and one that
        // joins `#` to a word does not.
        assert_eq!(pieces("echo a \\\n# ( b\nc\n"), ["echo a \\\n# ( b\n", "c\n"]);
    }

    #[test]
    fn no_cut_inside_what_spans_lines() {
        let whole = |text: &str| assert_eq!(pieces(text), [text], "{text:?}");
        // Quotes, here-documents, continuations.
        whole("echo 'a\nb'\n");
        whole("echo \"a\nb\"\n");
        whole("echo $'a\nb'\n");
        whole("cat <<E\nrm x\nE\n");
        whole("cat <<-'E' && cat <<F\n\trm x\n\tE\nrm y\nF\n");
        whole("echo a \\\nrm x\n");
        whole("echo `a\nb`\n");
        whole("echo \"$(a\nb)\"\n");
        whole("(( 1 +\n 2 ))\n");
        whole("[[ a &&\n b ]]\n");
        // Lines that continue into the next or are continued by it.
        whole("a |\nb\n");
        whole("a &&\nb\n");
        whole("a ||\nb\n");
        whole("a &\n& b\n");
        whole("time\necho x\n");
        whole("time -p\necho x\n");
        whole("!\necho x\n");
        whole("f()\n{\n a\n}\n");
        whole("function f\n{\n a\n}\n");
        whole("if a\nthen b\nfi\n");
        whole("while a\ndo b\ndone\n");
        whole("a\n| b\n");
        whole("a\n&& b\n");
    }

    #[test]
    fn a_body_line_continued_into_the_end_line_is_refused() {
        // bash reads `foo\<newline>EOF` as one body line and runs what follows the next `EOF`.
        // (The text then goes to the rewriting of `rescue`, which reads it as bash does.)
        let text = "cat <<EOF\nfoo\\\nEOF\necho '\nEOF\necho x > /etc/x #'\n";
        assert!(check_program(text, None).is_err());
        // Quoted, the backslash is plain text and the body ends there, as it does in bash.
        assert!(check_program("cat <<'EOF'\nfoo\\\nEOF\necho x\n", None).is_ok());
        // An escaped backslash continues nothing.
        assert!(check_program("cat <<EOF\nfoo\\\\\nEOF\necho x\n", None).is_ok());
    }

    #[test]
    fn a_continuation_inside_an_operator_stops_the_cuts() {
        // bash joins the parts: a here-document's operator or delimiter, `${`, `((`.
        let rest = |text: &str, first: &str| assert_eq!(pieces(text), [first, &text[first.len()..]], "{text:?}");
        rest("a\ncat <\\\n<EOF\nb\nEOF\necho x\nEOF\nc\n", "a\n");
        rest("a\ncat <<E\\\nOF\nEOF\necho x\nEOF\nc\n", "a\n");
        rest("a\ncat <<EOF\\\nX\nEOF\necho x\nEOFX\nc\n", "a\n");
        rest("a\necho $\\\n{#x}\nb\nc\n", "a\n");
        rest("a\ny=1; (\\\n( x << 2 ))\nb\nc\n", "a\n");
        rest("a\ncat <\\\n\\\n<EOF\nb\nEOF\necho x\nEOF\nc\n", "a\n");
        // Elsewhere it joins nothing: an array's values on the next lines, a file to read.
        assert_eq!(pieces("a=(\\\n 1 2)\nb\nc\n"), ["a=(\\\n 1 2)\n", "b\n", "c\n"]);
        assert_eq!(pieces("cat <\\\n f\nb\nc\n"), ["cat <\\\n f\n", "b\n", "c\n"]);
    }

    #[test]
    fn a_scan_that_loses_track_cuts_no_more() {
        // `}` as an argument closes nothing the scan saw open: no cuts after it.
        assert_eq!(pieces("a\necho }\nb\nc\n"), ["a\n", "echo }\nb\nc\n"]);
        // A wrong cut is possible (`}` as an argument inside a group), but the piece before
        // it then does not parse.
        let p = pieces("{ a\n echo }\n b\n}\nc\n");
        assert!(p.len() > 1 && program(p[0]).is_err(), "{p:?}");
    }

    /// The pieces `cut` makes of `text` (pieces of at least `size` bytes), each with whether
    /// it was said to pass the checks; every piece said to pass them does.
    fn pieces_said_to_pass(text: &str, size: usize) -> Vec<(&str, bool)> {
        let mut out = Vec::new();
        let _ = cut(text, size, &mut |from, to, checked| {
            out.push((&text[from..to], checked));
            true
        });
        for &(piece, checked) in &out {
            assert!(!checked || check_program(piece, None).is_ok(), "said to pass the checks, fails them: {piece:?}");
        }
        out
    }

    #[test]
    fn pieces_said_to_pass_the_checks_pass_them() {
        // Plain code: every piece, the last too.
        assert_eq!(pieces_said_to_pass("a\nb\nc\n", 1), [("a\n", true), ("b\n", true), ("c\n", true)]);
        // A check that fails in a piece: that piece and those after it are checked on their own.
        let deep = format!("a\necho {}x{}\nb\nc\n", "{".repeat(MAX_DEPTH + 5), "}".repeat(MAX_DEPTH + 5));
        assert_eq!(pieces_said_to_pass(&deep, 1), [("a\n", true), (&deep[2..deep.len() - 4], false), ("b\n", false)]);
        let flags: Vec<bool> = pieces_said_to_pass("a\ncat <<''\n\nb\nc\n", 1).iter().map(|p| p.1).collect();
        assert_eq!(flags.first(), Some(&true));
        assert!(!flags[1..].contains(&true), "{flags:?}");
        // Where the scan's counts do not come back to nothing (`function` counts a level its
        // body does not close), the pieces after are checked on their own.
        let flags: Vec<bool> = pieces_said_to_pass("a\nfunction f {\n b\n}\nc\nd\n", 1).iter().map(|p| p.1).collect();
        assert_eq!(flags, [true, true, false, false]);
        let flags: Vec<bool> = pieces_said_to_pass("a\necho [\nc\nd\n", 1).iter().map(|p| p.1).collect();
        assert_eq!(flags, [true, true, false, false]);
        // Every real script, cut as small as it can be and as the walk cuts it.
        let mut said = 0;
        for path in scripts::scanned_scripts() {
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            for size in [1, 8 * 1024] {
                said += pieces_said_to_pass(&text, size).iter().filter(|p| p.1).count();
            }
        }
        assert!(said > 1000, "only {said} pieces were said to pass the checks");
    }

    #[test]
    fn the_last_piece_waits_for_the_checks_of_the_whole_text() {
        let mut seen = Vec::new();
        let verdict = cut("a\nb\ncat <<''\n", 1, &mut |from, to, _| {
            seen.push((from, to));
            true
        });
        assert!(verdict.is_err());
        assert_eq!(seen, [(0, 2), (2, 4)]);
        // Asked to stop, it hands over nothing more.
        let mut count = 0;
        let verdict = cut("a\nb\nc\nd\n", 1, &mut |_, _, _| {
            count += 1;
            false
        });
        assert!(verdict.is_ok());
        assert_eq!(count, 1);
    }
}
