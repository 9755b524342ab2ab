//! Nested code: text bash runs that the walk parses and walks in turn (`eval`, `bash -c`,
//! substitutions, alias text, sourced files), the bounds on how much of it there may be, text
//! the parser refuses, and the program's own long text parsed ahead on a second thread.

use brush_parser::ast;

use super::state::State;
use super::{Origin, SHALLOW_NESTING, SHALLOW_TEXTS, Walker};
use crate::analysis::programs::Nest;
use crate::analysis::{Failure, Pos, parse};

/// Deepest chain of nested texts (`eval` inside `bash -c` inside `$(…)` …).
const MAX_NESTED_TEXTS: usize = 64;

/// Most texts parsed for one program, and most bytes parsed in all.
const MAX_PARSES: usize = 20_000;
const MAX_PARSED_BYTES: usize = 64 * 1024 * 1024;

/// Largest nested text kept parsed for a second walk.
pub(super) const MAX_CACHED_TEXT: usize = 64 * 1024;

/// Programs at least this long are parsed on a second thread while the walk goes through
/// what is parsed already: on a long script the parser takes a third of the time.
pub(super) const PARSE_AHEAD_FROM: usize = 64 * 1024;
/// The length of one piece parsed ahead: short enough that the walk starts soon.
const PIECE_BYTES: usize = 8 * 1024;

/// Tests make the parsing thread prepare every piece, whether the walk waits or not, and count
/// what the walk took of it.
#[cfg(test)]
pub(super) static PREPARE_EVERY_PIECE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
#[cfg(test)]
pub(super) static PREPARED_TAKEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn prepare_every_piece() -> bool {
    #[cfg(test)]
    return PREPARE_EVERY_PIECE.load(std::sync::atomic::Ordering::Relaxed);
    #[cfg(not(test))]
    false
}

/// What the parsing thread hands the walk.
enum Ahead {
    /// The next piece, the line it starts on, its text, and what was made ahead for its walk.
    Piece(ast::Program, usize, std::sync::Arc<str>, super::ahead::Prepared),
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
    pub(super) fn run_parsing_ahead(&mut self, text: &str, origin: Origin, st: &mut State) -> bool {
        let Some(key) = self.admit_text(text, origin.base) else { return true };
        // Pieces sent and not yet taken by the walk. The parsing thread does the walk's work
        // ahead (see `ahead`) only while the walk has a piece to go on with: when the walk waits
        // for the parser, the next piece goes as soon as it is parsed.
        let waiting = std::sync::atomic::AtomicUsize::new(0);
        let waiting = &waiting;
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::channel();
            // The pieces walked go back to the parsing thread, which made them, to be freed
            // there: off the walk's way, and by the thread whose memory they are.
            let (walked_tx, walked_rx) = std::sync::mpsc::channel::<ast::Program>();
            let parser = std::thread::Builder::new().name("parser".into()).stack_size(parse::STACK_BYTES).spawn_scoped(
                scope,
                move || {
                    let mut line = 1;
                    let checked = parse::cut(text, PIECE_BYTES, &mut |from, to, passes| {
                        while let Ok(walked) = walked_rx.try_recv() {
                            drop(walked);
                        }
                        let piece = &text[from..to];
                        let ahead = match parse::piece(piece, passes) {
                            Ok(program) => {
                                let prepared = if waiting.load(std::sync::atomic::Ordering::Relaxed) > 0
                                    || prepare_every_piece()
                                {
                                    super::ahead::prepare(&program, 2 * piece.len())
                                } else {
                                    super::ahead::Prepared::default()
                                };
                                Ahead::Piece(program, line, std::sync::Arc::from(piece), prepared)
                            }
                            Err(_) => Ahead::Stop,
                        };
                        line += piece.bytes().filter(|&b| b == b'\n').count();
                        let parsed = matches!(ahead, Ahead::Piece(..));
                        if parsed {
                            waiting.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        tx.send(ahead).is_ok() && parsed
                    });
                    let _ = tx.send(if checked.is_ok() { Ahead::Done } else { Ahead::Stop });
                    drop(tx);
                    // Until the walk is over (it drops its end).
                    for walked in walked_rx {
                        drop(walked);
                    }
                },
            );
            if parser.is_err() {
                return false;
            }
            // The receiver goes with the walk: when the walk stops early, dropping it stops the
            // parser at its next piece.
            self.inside_text(key, origin, move |w| {
                for ahead in rx {
                    match ahead {
                        Ahead::Piece(program, line, source, prepared) => {
                            waiting.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
                            w.take_prepared(prepared);
                            w.origin = Origin { base: Pos { line, column: 1 }, ..origin };
                            w.source = Some(source);
                            w.program(&program, st);
                            // (Freed here when the parsing thread is gone.)
                            let _ = walked_tx.send(program);
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

    /// Puts what the parsing thread made ahead into the caches where the walk looks first.
    /// What is there already stays: it is the same, made from the same text.
    fn take_prepared(&mut self, prepared: super::ahead::Prepared) {
        #[cfg(test)]
        PREPARED_TAKEN.fetch_add(
            prepared.words.len() + prepared.heredocs.len() + prepared.programs.len(),
            std::sync::atomic::Ordering::Relaxed,
        );
        for (text, pieces) in prepared.words {
            self.word_cache.entry(text).or_insert_with(|| std::rc::Rc::new(pieces));
        }
        for (text, pieces) in prepared.heredocs {
            self.heredoc_cache.entry(text).or_insert_with(|| std::rc::Rc::new(pieces));
        }
        for (text, program) in prepared.programs {
            if !self.parse_cache.contains_key(&text) {
                self.prepared_programs.entry(text).or_insert(program);
            }
        }
    }

    /// Parses and walks a piece of text that bash will run.
    pub(super) fn run_text(&mut self, text: &str, origin: Origin, st: &mut State, nest: Nest) {
        // A request for more access where a client put the command it was given (`eval '…'`,
        // `bash -c '…'`, `{ …; }`): the first line's comment of any text bash runs.
        if let Some(first) = crate::request::first_comment(text)
            && crate::request::is_request_line(first)
            && !self.requests.iter().any(|r| r == first)
            && self.requests.len() < 4
        {
            self.requests.push(first.to_string());
        }
        let Some(key) = self.admit_text(text, origin.base) else { return };
        let program = match self.parse_cached(text) {
            Ok(p) => p,
            Err(mut f) => {
                f.pos = f.pos.map(|p| origin.map(p)).or(Some(origin.base));
                self.unparsed(text, key, origin, f, st, nest);
                return;
            }
        };
        self.inside_text(key, origin, |w| {
            w.source = Some(std::sync::Arc::from(text));
            match nest {
                Nest::Same => w.program(&program, st),
                Nest::Subshell | Nest::NewShell => {
                    let mut inner = st.clone();
                    w.program(&program, &mut inner);
                }
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
        let valid = asked.is_some_and(|bash| {
            // An answer not asked again cheaply: this walk is not kept for another run.
            crate::analysis::asked::spoil();
            crate::analysis::oracle::bash_accepts(bash, &crate::analysis::bytes::encode(text), self.ctx.posix)
        });
        if !valid {
            let mut f = f;
            if asked.is_some() {
                f.message.push_str("; bash -n rejects it too");
            }
            self.fail(f);
            return;
        }
        let mut pieces: Vec<(usize, usize)> = Vec::new();
        if parse::cut(text, 1, &mut |from, to, _| {
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
                        w.source = Some(std::sync::Arc::from(piece));
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
        let saved_source = self.source.take();
        let saved_here = self.here;
        self.nested_texts += 1;
        self.text_stack.push(key);
        let result = walk(self);
        self.nested_texts -= 1;
        self.text_stack.pop();
        self.origin = saved_origin;
        self.source = saved_source;
        self.here = saved_here;
        result
    }

    /// The parse of `text`: loop bodies are walked more than once and a command substitution
    /// is read for its output too, but each text is parsed once.
    pub fn parse_cached(&mut self, text: &str) -> Result<std::rc::Rc<ast::Program>, Failure> {
        if let Some(p) = self.parse_cache.get(text) {
            return Ok(std::rc::Rc::clone(p));
        }
        let p = std::rc::Rc::new(match self.prepared_programs.remove(text) {
            Some(program) => program,
            None => parse::program(text)?,
        });
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
}

fn hash_text(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}
