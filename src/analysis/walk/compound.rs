//! Compound commands: groups, subshells, `for`, `while`/`until`, `if`, `case`, arithmetic,
//! coprocesses and `[[ … ]]`; branches joined, and loop bodies walked from a state that covers
//! every round.

use std::collections::BTreeSet;
use std::rc::Rc;

use brush_parser::ast;

use super::Walker;
use super::branches::{self, Runs};
use super::state::{MAX_CHOICES, Name, State, Val, field_val, val_field};
use crate::analysis::programs::Stdin;
use crate::analysis::word::{Field, Part};

/// Loops nested deeper than this are not pre-run; their bodies start from a fully unknown state.
const MAX_PRERUN_LOOP_DEPTH: usize = 4;
/// How many more times a loop body is walked for the variables its last walk found fetched.
const MAX_TAINT_ROUNDS: usize = 3;

impl Walker<'_> {
    pub(super) fn compound(&mut self, c: &ast::CompoundCommand, st: &mut State, stdin: Stdin) {
        self.step();
        if self.failed() {
            return;
        }
        // What the compound command reads, its commands read (`while read …; done < file`).
        let saved_stdin =
            if stdin == Stdin::Unknown { None } else { Some(std::mem::replace(&mut self.stdin_ctx, stdin)) };
        self.compound_inner(c, st);
        if let Some(saved) = saved_stdin {
            self.stdin_ctx = saved;
        }
    }

    fn compound_inner(&mut self, c: &ast::CompoundCommand, st: &mut State) {
        match c {
            ast::CompoundCommand::Arithmetic(a) => {
                let pos = self.here;
                self.arithmetic(&a.expr.value, pos, st);
                self.arith_assignments(&a.expr.value, st);
            }
            ast::CompoundCommand::ArithmeticForClause(f) => {
                let pos = self.here;
                for e in [&f.initializer, &f.condition, &f.updater].into_iter().flatten() {
                    self.arithmetic(&e.value, pos, st);
                    self.arith_assignments(&e.value, st);
                }
                self.looped(st, |w, st| w.compound_list(&f.body.list, st));
            }
            ast::CompoundCommand::BraceGroup(b) => self.compound_list(&b.list, st),
            ast::CompoundCommand::Subshell(_) if self.quiet > 0 => {}
            ast::CompoundCommand::Subshell(s) => {
                let mut inner = st.clone();
                self.compound_list(&s.list, &mut inner);
                st.keep_saved_files(&inner);
            }
            ast::CompoundCommand::ForClause(f) => {
                // The loop variable takes each value of the list in turn.
                let mut values: Vec<Field> = Vec::new();
                match &f.values {
                    Some(words) => {
                        for word in words {
                            let pos = self.word_pos(word);
                            for arg in self.expand_word(&word.value, pos, st) {
                                values.push(arg.field);
                            }
                        }
                    }
                    None => match st.all_positional() {
                        Some(vals) => values.extend(vals.iter().map(val_field)),
                        None => values.push(Field::unknown()),
                    },
                }
                let mut var_val = Val::Choice { values: BTreeSet::new(), open: false };
                for v in &values {
                    // A glob stands for the names it matches when the loop runs: among them
                    // files the program saves fetched text to first.
                    let value = match field_val(v) {
                        Val::Known(pattern) if v.has_glob() => {
                            let (mut saved, by_name) = self.downloads_globbed(v, st);
                            // In the pattern's own form: relative where it is.
                            if !pattern.starts_with('/')
                                && let Some(cwd) = st.cwd.as_deref()
                            {
                                let base = format!("{}/", cwd.trim_end_matches('/'));
                                let dot = if pattern.starts_with("./") { "./" } else { "" };
                                for s in &mut saved {
                                    if let Some(rest) = s.strip_prefix(&base) {
                                        *s = format!("{dot}{rest}");
                                    }
                                }
                            }
                            if saved.is_empty() && !by_name {
                                Val::Known(pattern)
                            } else {
                                let mut values: BTreeSet<String> = saved.into_iter().collect();
                                values.insert(pattern);
                                Val::Choice { values, open: by_name }
                            }
                        }
                        value => value,
                    };
                    var_val = match (&var_val, value) {
                        (Val::Choice { values, open: false }, first) if values.is_empty() => first,
                        (acc, next) => acc.join(&next),
                    };
                }
                let var = f.variable_name.clone();
                self.assigned.insert(var.clone());
                self.looped(st, |w, st| {
                    st.set_val(&var, var_val.clone());
                    w.compound_list(&f.body.list, st)
                });
            }
            ast::CompoundCommand::CaseClause(c) => self.case(c, st),
            ast::CompoundCommand::IfClause(i) => {
                // As for `case`: a test of a word the analysis cannot know decides which branch
                // runs, so what each branch after it does is only possible; and a branch the
                // known values say cannot run is walked with its accesses only possible (see
                // `branches`).
                let (runs, mut undecided) = self.condition_runs(&i.condition, st);
                self.compound_list(&i.condition, st);
                let before = st.clone();
                let mut then = before.clone();
                self.branch(undecided || runs == Runs::No, &i.then, &mut then);
                let mut merged = then;
                let mut has_else = false;
                let mut cond_state = before.clone();
                // Whether the tests so far all fail: the next test, or the `else`, runs.
                let mut reached = runs.not();
                for e in i.elses.iter().flatten() {
                    let body_runs = if let Some(cond) = &e.condition {
                        let (runs, unknown) = self.condition_runs(cond, &cond_state);
                        undecided |= unknown;
                        if reached == Runs::No {
                            self.possibly(|w| w.compound_list(cond, &mut cond_state));
                        } else {
                            self.compound_list(cond, &mut cond_state);
                        }
                        let body_runs = reached.and(runs);
                        reached = reached.and(runs.not());
                        body_runs
                    } else {
                        has_else = true;
                        reached
                    };
                    let mut branch = cond_state.clone();
                    self.branch(undecided || body_runs == Runs::No, &e.body, &mut branch);
                    self.join(&mut merged, &branch);
                }
                if !has_else {
                    self.join(&mut merged, &cond_state);
                }
                *st = merged;
            }
            ast::CompoundCommand::WhileClause(w) | ast::CompoundCommand::UntilClause(w) => {
                // The condition runs at least once; condition and body may then repeat.
                self.compound_list(&w.0, st);
                self.looped(st, |walker, st| {
                    walker.compound_list(&w.1.list, st);
                    walker.compound_list(&w.0, st);
                });
            }
            ast::CompoundCommand::Coprocess(c) => {
                self.record_command(Some("coproc"), "coproc", self.here);
                let mut inner = st.clone();
                self.command(&c.body, &mut inner, Stdin::Unknown);
            }
        }
    }

    /// `case WORD in …`: every body, each from the states that reach it.
    ///
    /// Every body is walked, whatever the word: a value the walk holds as known stands for the
    /// run's value and is not always that value itself (see `branches`). A body is reached by
    /// testing its patterns, from the state before the `case` or the state a body ending in
    /// `;;&` left, and by falling into it from the body before when that one ends in `;&`. A
    /// body the known word and patterns say cannot run is walked with its accesses only
    /// possible, as every body is when the word is not known. What the `case` leaves is the
    /// join of the bodies ending in `;;`, the body that falls through the end, and the state
    /// where no pattern matched.
    fn case(&mut self, c: &ast::CaseClauseCommand, st: &mut State) {
        let pos = self.word_pos(&c.value);
        let subject = self.expand_single(&c.value.value, pos, st);
        // A word the analysis cannot know (`uname`'s output, an argument) decides which
        // branch runs: what each branch does is only possible, held by the kernel where
        // the kernel holds it (config.guess's branches for other systems).
        let word = subject.known().filter(|_| !subject.parts.iter().any(|p| matches!(p, Part::Break)));
        let undecided = word.is_none();
        let before = st.clone();
        let mut left: Option<State> = None;
        let mut testing = before.clone();
        let mut falling: Option<State> = None;
        // Whether the tests reach this item (no body before it ran and ended the `case`), and
        // whether the body before falls into it.
        let mut tested = Runs::Yes;
        let mut fallen = Runs::No;
        for item in &c.cases {
            let mut matched = Runs::No;
            for pattern in &item.patterns {
                let pos = self.word_pos(pattern);
                let field = self.expand_single(&pattern.value, pos, st);
                matched = matched.or(match &word {
                    Some(word) => branches::pattern_runs(&field, word),
                    None => Runs::Maybe,
                });
            }
            let runs = tested.and(matched).or(fallen);
            let mut inner = match falling.take() {
                Some(fallen) => self.joined(Some(fallen), testing.clone()),
                None => testing.clone(),
            };
            if let Some(body) = &item.cmd {
                if undecided || runs == Runs::No {
                    self.possibly(|w| w.compound_list(body, &mut inner));
                } else {
                    self.compound_list(body, &mut inner);
                }
            }
            match item.post_action {
                ast::CaseItemPostAction::ExitCase => {
                    left = Some(self.joined(left, inner));
                    tested = tested.and(matched.not());
                    fallen = Runs::No;
                }
                ast::CaseItemPostAction::UnconditionallyExecuteNextCaseItem => {
                    falling = Some(inner);
                    tested = tested.and(matched.not());
                    fallen = runs;
                }
                ast::CaseItemPostAction::ContinueEvaluatingCases => {
                    self.join(&mut testing, &inner);
                    fallen = Runs::No;
                }
            }
        }
        // No pattern matched, or the last body fell through the end.
        left = Some(self.joined(left, testing));
        if let Some(fallen) = falling {
            left = Some(self.joined(left, fallen));
        }
        *st = left.unwrap_or(before);
    }

    /// `a` (when there is one) joined with `b`.
    fn joined(&self, a: Option<State>, b: State) -> State {
        match a {
            None => b,
            Some(mut a) => {
                self.join(&mut a, &b);
                a
            }
        }
    }

    /// Walks a loop body from a state that covers every iteration: a quiet run of the body
    /// learns what it changes, then the body is walked for real from the state that covers
    /// both. That walk is the last when the state it starts from covers what it leaves too;
    /// otherwise what changed may change again (widened) and the body is walked for real once
    /// more. The result is joined with the state before the loop (the body may run zero times).
    ///
    /// Which variables hold fetched text is learnt by the walks for real only (a quiet run
    /// does not walk substitutions), and passes it on one assignment a pass
    /// (`eval "$c"; c=$b; b=$(curl …)`): the last walk is walked again, with the variables it
    /// found fetched, until it finds no more (three times at most; then every variable the
    /// loop changes is taken as fetched).
    fn looped(&mut self, st: &mut State, body: impl Fn(&mut Self, &mut State)) {
        self.loop_depth += 1;
        let before = st.clone();
        let mut entry = st.clone();
        if self.quiet > 0 || self.loop_depth > MAX_PRERUN_LOOP_DEPTH {
            // Inside a quiet run of an outer loop (or nested too deep): one pass, and whatever
            // it changes may change again.
            self.loop_pass(&mut entry, &body);
            Self::widen(&mut entry, &before);
        } else {
            let saved_fetched = self.fetched;
            self.quiet += 1;
            let mut probe = entry.clone();
            self.loop_pass(&mut probe, &body);
            self.quiet -= 1;
            self.fetched = saved_fetched;
            let mut next = entry.clone();
            self.join(&mut next, &probe);
            // The start of the last walk for real.
            let mut start = entry.clone();
            if Self::same_state(&next, &entry) {
                self.loop_pass(&mut entry, &body);
            } else {
                // The walk for real checks its own start: a quiet run follows less (one call
                // deep, no pipelines), so it is not trusted to have found everything. What
                // the first walk recorded holds for the first iterations, and stays.
                let mut walked = next.clone();
                self.loop_pass(&mut walked, &body);
                let mut covered = next.clone();
                self.join(&mut covered, &walked);
                if Self::same_state(&covered, &next) {
                    start = next;
                    entry = walked;
                } else {
                    entry = covered;
                    Self::widen(&mut entry, &before);
                    start = entry.clone();
                    self.loop_pass(&mut entry, &body);
                }
            }
            let mut rounds = 0;
            while !entry.tainted.is_subset(&start.tainted) {
                if rounds == MAX_TAINT_ROUNDS {
                    let changed = Self::changed_names(&before, &entry);
                    entry.tainted.extend(changed.iter().map(|k| k.to_string()));
                    break;
                }
                rounds += 1;
                super::state::union_into(&mut start.tainted, &entry.tainted);
                entry = start.clone();
                self.loop_pass(&mut entry, &body);
            }
        }
        self.join(&mut entry, &before);
        *st = entry;
        self.loop_depth -= 1;
    }

    /// The variables assigned or changed from `before` to `after` (not those unset).
    fn changed_names(before: &State, after: &State) -> Vec<Name> {
        before
            .vars
            .diff(&after.vars)
            .filter_map(|item| match item {
                imbl::ordmap::DiffItem::Update { new: (k, _), .. } | imbl::ordmap::DiffItem::Add(k, _) => {
                    Some(k.clone())
                }
                imbl::ordmap::DiffItem::Remove(..) => None,
            })
            .collect()
    }

    /// What changed since `before` may take other values too: its values stay listed, and it
    /// becomes open.
    fn widen(entry: &mut State, before: &State) {
        for name in Self::changed_names(before, entry) {
            let widened = match entry.vars.get(&name) {
                Some(v) => {
                    let (values, _) = v.scalars();
                    if matches!(**v, Val::Array(_)) || values.len() > MAX_CHOICES {
                        Val::unknown()
                    } else {
                        Val::Choice { values, open: true }
                    }
                }
                None => Val::unknown(),
            };
            entry.vars.insert(name, Rc::new(widened));
        }
        if entry.cwd != before.cwd || entry.cwd_alts != before.cwd_alts {
            entry.set_cwds(None);
        }
        if entry.positional != before.positional || entry.positional_open != before.positional_open {
            entry.set_positional_vals(None);
        }
    }

    /// Whether two states are the same (cheap when they share their maps).
    fn same_state(a: &State, b: &State) -> bool {
        a.vars.diff(&b.vars).next().is_none()
            && a.exported == b.exported
            && a.namerefs == b.namerefs
            && a.cwd == b.cwd
            && a.cwd_alts == b.cwd_alts
            && a.dirs == b.dirs
            && a.positional == b.positional
            && a.positional_open == b.positional_open
            && a.all_unknown == b.all_unknown
            && a.downloaded == b.downloaded
            && a.saved_words == b.saved_words
    }

    /// Walks one branch of an `if`, every access only possible when `undecided`.
    fn branch(&mut self, undecided: bool, body: &ast::CompoundList, st: &mut State) {
        if undecided {
            self.possibly(|w| w.compound_list(body, st));
        } else {
            self.compound_list(body, st);
        }
    }

    pub(super) fn extended_test(&mut self, e: &ast::ExtendedTestExpr, st: &mut State) {
        match e {
            ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
                self.extended_test(a, st);
                self.extended_test(b, st);
            }
            ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => self.extended_test(a, st),
            ast::ExtendedTestExpr::UnaryTest(pred, w) => {
                let pos = self.word_pos(w);
                let value = self.expand_single(&w.value, pos, st);
                if matches!(pred, ast::UnaryPredicate::ShellVariableIsSetAndAssigned)
                    && let Some(name) = value.known()
                {
                    self.subscript_text(&name, pos, st);
                }
            }
            ast::ExtendedTestExpr::BinaryTest(pred, a, b) => {
                let pa = self.word_pos(a);
                self.expand_single(&a.value, pa, st);
                let pb = self.word_pos(b);
                self.expand_single(&b.value, pb, st);
                let arithmetic = matches!(
                    pred,
                    ast::BinaryPredicate::ArithmeticEqualTo
                        | ast::BinaryPredicate::ArithmeticNotEqualTo
                        | ast::BinaryPredicate::ArithmeticLessThan
                        | ast::BinaryPredicate::ArithmeticLessThanOrEqualTo
                        | ast::BinaryPredicate::ArithmeticGreaterThan
                        | ast::BinaryPredicate::ArithmeticGreaterThanOrEqualTo
                );
                if arithmetic {
                    self.arithmetic(&a.value, pa, st);
                    self.arithmetic(&b.value, pb, st);
                }
            }
        }
    }

    /// Variables an arithmetic expression assigns (`x=1`, `x+=2`, `x++`) become unknown.
    fn arith_assignments(&mut self, text: &str, st: &mut State) {
        for name in crate::analysis::effects::arithmetic_targets(text) {
            self.assign(name, None, st);
        }
    }
}

/// The words of a `[[ ]]` test.
pub(super) fn test_words<'a>(e: &'a ast::ExtendedTestExpr, out: &mut Vec<&'a ast::Word>) {
    match e {
        ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
            test_words(a, out);
            test_words(b, out);
        }
        ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => test_words(a, out),
        ast::ExtendedTestExpr::UnaryTest(_, w) => out.push(w),
        ast::ExtendedTestExpr::BinaryTest(_, a, b) => out.extend([a, b]),
    }
}
