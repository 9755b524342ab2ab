//! Files bash runs as code: start-up files (`$BASH_ENV`, `--rcfile`), sourced files and
//! scripts, read only when they can be trusted to be what will run, and whether a file or a
//! program is absent (so running it runs nothing).

use super::state::State;
use super::{Origin, Walker};
use crate::analysis::asked;
use crate::analysis::programs::Nest;
use crate::analysis::word::{Arg, Field};
use crate::analysis::{Pos, commands, parse};
use crate::scope::{self, Class};

/// Largest file read for `source`/script analysis (the same limit as the program text).
const MAX_FILE_BYTES: u64 = parse::MAX_TEXT_BYTES as u64;

/// Most files kept with their digest (see [`crate::analysis::Analysis::texts`]).
const MAX_TEXTS_KEPT: usize = 256;

impl Walker<'_> {
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
        let (bytes, digest) = asked::read_digested(path, MAX_FILE_BYTES)?;
        // The work budgets grow with the code there is to read, files included (once each).
        if !self.file_names.iter().any(|f| f == path) {
            self.input_len += bytes.len();
        }
        if self.texts_read.len() < MAX_TEXTS_KEPT && !self.texts_read.iter().any(|(p, _)| p == path) {
            self.texts_read.push((path.to_string(), digest));
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
        match asked::status(path, false) {
            Ok(_) => false,
            Err(missing) => missing != asked::Missing::Other,
        }
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
        match asked::status(path, true) {
            Ok(kind) => kind != asked::Kind::File,
            Err(missing) => missing != asked::Missing::Other,
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

    /// The text of a file bash would run as a shell script when executed by path: one with a
    /// `#!` line naming a POSIX shell, or a text file without one (bash runs those itself).
    pub fn read_code_file_if_shell(&mut self, path: &str) -> Option<String> {
        let head = asked::head(path, 256)?;
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

/// The value for [`Context::bash_env`](crate::analysis::Context::bash_env) that names the file `path` as it is (`--rcfile FILE`,
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
pub(super) fn strip_shebang(text: &str) -> String {
    if text.starts_with("#!") {
        match text.find('\n') {
            Some(nl) => text[nl..].to_string(),
            None => String::new(),
        }
    } else {
        text.to_string()
    }
}
