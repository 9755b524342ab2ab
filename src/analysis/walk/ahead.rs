//! Work the parsing thread does ahead for the walk of a long program's piece (see
//! `Walker::run_parsing_ahead`): it splits the piece's words into their pieces and parses the
//! command substitutions in them, with the same functions the walk calls, so that the walk finds
//! them in its caches instead of doing it on its own thread. Nothing here decides anything: a
//! text is kept only under its own text as key, with what the walk would have made of it, and a
//! text that does not parse is left for the walk, which reports it where it meets it.

use brush_parser::ast;
use brush_parser::word::{ParameterExpr, WordPiece, WordPieceWithSource};

use crate::analysis::{parse, rescue, word};

/// Deepest command substitution inside a word that is parsed ahead (`$(a $(b))` is two).
const MAX_DEPTH: usize = 4;

/// What was made ahead for one piece.
#[derive(Default)]
pub(super) struct Prepared {
    /// Words (as `split` takes them) and their pieces.
    pub words: Vec<(String, Vec<WordPieceWithSource>)>,
    /// Unquoted here-document bodies (restored, as the walk evaluates them) and their pieces.
    pub heredocs: Vec<(String, Vec<WordPieceWithSource>)>,
    /// The code of command substitutions, parsed.
    pub programs: Vec<(String, ast::Program)>,
}

/// Splits and parses ahead what the walk of `program` will: at most about `budget` bytes of
/// text in all, so a piece full of substitutions costs the parsing thread no more than its
/// own size a few times over.
pub(super) fn prepare(program: &ast::Program, budget: usize) -> Prepared {
    let mut c = Collector {
        out: Prepared::default(),
        seen: Default::default(),
        seen_code: Default::default(),
        budget,
        depth: 0,
    };
    c.program(program);
    c.out
}

struct Collector {
    out: Prepared,
    seen: std::collections::HashSet<String, rustc_hash::FxBuildHasher>,
    seen_code: std::collections::HashSet<String, rustc_hash::FxBuildHasher>,
    budget: usize,
    depth: usize,
}

impl Collector {
    fn program(&mut self, p: &ast::Program) {
        for list in &p.complete_commands {
            self.list(list);
        }
    }

    fn list(&mut self, list: &ast::CompoundList) {
        for ast::CompoundListItem(and_or, _) in &list.0 {
            self.pipeline(&and_or.first);
            for next in &and_or.additional {
                match next {
                    ast::AndOr::And(p) | ast::AndOr::Or(p) => self.pipeline(p),
                }
            }
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline) {
        for c in &p.seq {
            self.command(c);
        }
    }

    fn command(&mut self, c: &ast::Command) {
        match c {
            ast::Command::Simple(s) => {
                for item in s.prefix.iter().flat_map(|p| &p.0) {
                    self.item(item, true);
                }
                for item in s.suffix.iter().flat_map(|p| &p.0) {
                    self.item(item, false);
                }
                if let Some(w) = &s.word_or_name {
                    self.word(&w.value);
                }
            }
            ast::Command::Compound(cc, redirects) => {
                self.compound(cc);
                self.redirects(redirects.as_ref());
            }
            ast::Command::Function(f) => {
                self.compound(&f.body.0);
                self.redirects(f.body.1.as_ref());
            }
            ast::Command::ExtendedTest(t, redirects) => {
                self.test(&t.expr);
                self.redirects(redirects.as_ref());
            }
        }
    }

    fn compound(&mut self, cc: &ast::CompoundCommand) {
        match cc {
            ast::CompoundCommand::Arithmetic(_) | ast::CompoundCommand::ArithmeticForClause(_) => {}
            ast::CompoundCommand::BraceGroup(b) => self.list(&b.list),
            ast::CompoundCommand::Subshell(s) => self.list(&s.list),
            ast::CompoundCommand::ForClause(f) => {
                for w in f.values.iter().flatten() {
                    self.word(&w.value);
                }
                self.list(&f.body.list);
            }
            ast::CompoundCommand::CaseClause(c) => {
                self.text(&c.value.value);
                for item in &c.cases {
                    for p in &item.patterns {
                        self.text(&p.value);
                    }
                    if let Some(list) = &item.cmd {
                        self.list(list);
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
            ast::CompoundCommand::Coprocess(c) => self.command(&c.body),
        }
    }

    fn test(&mut self, t: &ast::ExtendedTestExpr) {
        match t {
            ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
                self.test(a);
                self.test(b);
            }
            ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => self.test(a),
            ast::ExtendedTestExpr::UnaryTest(_, w) => self.text(&w.value),
            ast::ExtendedTestExpr::BinaryTest(_, a, b) => {
                self.text(&a.value);
                self.text(&b.value);
            }
        }
    }

    /// An item of a simple command. Only arguments (and the values of arrays assigned before
    /// the command) go through brace expansion; an assignment after the command's name is an
    /// argument (`export A=…`), one before it an assignment.
    fn item(&mut self, item: &ast::CommandPrefixOrSuffixItem, in_prefix: bool) {
        match item {
            ast::CommandPrefixOrSuffixItem::IoRedirect(r) => self.redirect(r),
            ast::CommandPrefixOrSuffixItem::Word(w) => self.word(&w.value),
            ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) if !in_prefix => self.word(&w.value),
            ast::CommandPrefixOrSuffixItem::AssignmentWord(a, _) => match &a.value {
                ast::AssignmentValue::Scalar(w) => self.text(&w.value),
                ast::AssignmentValue::Array(values) => {
                    for (_, value) in values {
                        self.word(&value.value);
                    }
                }
            },
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, s) => self.list(&s.list),
        }
    }

    fn redirects(&mut self, list: Option<&ast::RedirectList>) {
        for r in list.iter().flat_map(|l| &l.0) {
            self.redirect(r);
        }
    }

    fn redirect(&mut self, r: &ast::IoRedirect) {
        match r {
            ast::IoRedirect::File(_, _, target) => match target {
                ast::IoFileRedirectTarget::Filename(w) | ast::IoFileRedirectTarget::Duplicate(w) => self.text(&w.value),
                ast::IoFileRedirectTarget::Fd(_) => {}
                ast::IoFileRedirectTarget::ProcessSubstitution(_, s) => self.list(&s.list),
            },
            ast::IoRedirect::HereDocument(_, doc) => {
                if doc.requires_expansion {
                    let body = rescue::restore(&doc.doc.value);
                    self.heredoc(&body);
                }
            }
            ast::IoRedirect::HereString(_, w) | ast::IoRedirect::OutputAndError(w, _) => self.text(&w.value),
        }
    }

    /// Takes `len` bytes of the budget; `false` once it is spent.
    fn spend(&mut self, len: usize) -> bool {
        if len > self.budget {
            self.budget = 0;
            return false;
        }
        self.budget -= len;
        true
    }

    /// A word as the walk expands an argument: each of its brace variants (see
    /// `Walker::expand_word`).
    fn word(&mut self, raw: &str) {
        if raw.len() <= self.budget && raw.bytes().any(word::needs_split) {
            match word::brace_variants(raw) {
                Some(variants) => {
                    for variant in variants {
                        self.text(&variant);
                    }
                }
                // (The walk evaluates the word as written, for the code in it.)
                None => self.text(raw),
            }
        }
    }

    /// Text the walk splits into pieces if it has anything to split (see `Walker::eval_text`).
    fn text(&mut self, text: &str) {
        if !text.bytes().any(word::needs_split) || self.seen.contains(text) || !self.spend(text.len()) {
            return;
        }
        self.seen.insert(text.to_string());
        if let Ok(pieces) = parse::word(text) {
            self.pieces(&pieces);
            self.out.words.push((text.to_string(), pieces));
        }
    }

    fn heredoc(&mut self, body: &str) {
        if !self.spend(body.len()) {
            return;
        }
        if let Ok(pieces) = parse::heredoc(body) {
            self.pieces(&pieces);
            self.out.heredocs.push((body.to_string(), pieces));
        }
    }

    /// The command substitutions among a word's pieces, parsed as the walk parses them, and
    /// the words in them.
    fn pieces(&mut self, pieces: &[WordPieceWithSource]) {
        for p in pieces {
            match &p.piece {
                WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.pieces(inner)
                }
                // The walk parses the code of both as it stands here.
                WordPiece::CommandSubstitution(code) | WordPiece::BackquotedCommandSubstitution(code) => {
                    self.code(code)
                }
                WordPiece::ParameterExpansion(e) => self.operands(e),
                _ => {}
            }
        }
    }

    /// The operands of a parameter expansion that the walk evaluates as text.
    fn operands(&mut self, e: &ParameterExpr) {
        match e {
            ParameterExpr::UseDefaultValues { default_value: Some(t), .. }
            | ParameterExpr::AssignDefaultValues { default_value: Some(t), .. }
            | ParameterExpr::IndicateErrorIfNullOrUnset { error_message: Some(t), .. }
            | ParameterExpr::UseAlternativeValue { alternative_value: Some(t), .. }
            | ParameterExpr::RemoveSmallestSuffixPattern { pattern: Some(t), .. }
            | ParameterExpr::RemoveLargestSuffixPattern { pattern: Some(t), .. }
            | ParameterExpr::RemoveSmallestPrefixPattern { pattern: Some(t), .. }
            | ParameterExpr::RemoveLargestPrefixPattern { pattern: Some(t), .. } => self.text(t),
            ParameterExpr::ReplaceSubstring { pattern, replacement, .. } => {
                self.text(pattern);
                if let Some(r) = replacement {
                    self.text(r);
                }
            }
            _ => {}
        }
    }

    fn code(&mut self, code: &str) {
        if self.depth >= MAX_DEPTH
            || code.len() > super::texts::MAX_CACHED_TEXT
            || self.seen_code.contains(code)
            || !self.spend(code.len())
        {
            return;
        }
        self.seen_code.insert(code.to_string());
        if let Ok(program) = parse::program(code) {
            self.depth += 1;
            self.program(&program);
            self.depth -= 1;
            self.out.programs.push((code.to_string(), program));
        }
    }
}
