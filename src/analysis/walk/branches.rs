//! Which branch of an `if` or a `case` runs, as far as the values the walk holds say.
//!
//! A branch the values say cannot run (`case "$1" in deploy) …` called as `./dev.sh test`) is
//! still walked, but with every access only possible: a value the walk holds as known stands
//! for the run's value, and is not always the run's value itself (a glob stands for the names
//! it matches, `$(command -v x)` for a path on `PATH`). A possible access the rules in force
//! hold needs no bit, and one they cannot hold (fetched code run, a mode handed to a nested
//! level) is still refused, as in a branch decided by a value the walk cannot know. What the
//! branch leaves is joined as before. A branch the values say runs, and one they cannot
//! decide, is walked as before.
//!
//! Decided here: `case` patterns made of known text, `*` and `?` (not brackets or extended
//! globs); `[`/`test` with one to four arguments (`-n`, `-z`, `=`, `==`, `!=`, the integer
//! comparisons, `!`); `[[ … ]]` with `-n`, `-z`, `==`, `=`, `!=`, integer comparisons of plain
//! numbers, `!`, `&&`, `||` and parentheses; each alone or negated with `!`. A pattern is
//! decided not to match only when it matches neither as written nor with case ignored (bash's
//! `nocasematch`, which the walk does not follow). Left undecided: a `test` or `[` that a
//! function or alias of the program may replace, `[[ ]]` numbers with a leading zero (octal
//! there), and matches whose cost (the product of the lengths) is over a bound.

use brush_parser::ast;

use super::Walker;
use super::state::State;
use crate::analysis::glob::fnmatch;
use crate::analysis::word::{Field, Part};

/// The longest word, and the most work (pattern length times word length), a pattern is
/// matched against.
const MAX_MATCHED: usize = 4096;
const MAX_MATCH_WORK: usize = 1 << 16;

/// Whether a branch runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Runs {
    Yes,
    No,
    Maybe,
}

impl Runs {
    pub(super) fn not(self) -> Runs {
        match self {
            Runs::Yes => Runs::No,
            Runs::No => Runs::Yes,
            Runs::Maybe => Runs::Maybe,
        }
    }

    pub(super) fn and(self, other: Runs) -> Runs {
        match (self, other) {
            (Runs::No, _) | (_, Runs::No) => Runs::No,
            (Runs::Yes, Runs::Yes) => Runs::Yes,
            _ => Runs::Maybe,
        }
    }

    pub(super) fn or(self, other: Runs) -> Runs {
        self.not().and(other.not()).not()
    }

    fn of(b: bool) -> Runs {
        if b { Runs::Yes } else { Runs::No }
    }
}

/// Whether the pattern `pattern` (a `case` pattern or the right side of `[[ == ]]`, expanded)
/// matches `subject`.
pub(super) fn pattern_runs(pattern: &Field, subject: &str) -> Runs {
    let mut glob = String::new();
    // Matching costs up to the product of the lengths: long ones are left undecided.
    if subject.len() > MAX_MATCHED {
        return Runs::Maybe;
    }
    for part in &pattern.parts {
        let Part::Lit { text, quoted, .. } = part else { return Runs::Maybe };
        for c in text.chars() {
            if *quoted {
                if matches!(c, '*' | '?' | '[' | ']' | '\\') {
                    glob.push('\\');
                }
            } else if matches!(c, '[' | ']' | '(' | ')' | '|' | '\\') {
                // Brackets (classes, ranges that follow the locale), extended globs and
                // escapes: left undecided.
                return Runs::Maybe;
            }
            glob.push(c);
        }
    }
    if glob.len().saturating_mul(subject.len().max(1)) > MAX_MATCH_WORK {
        return Runs::Maybe;
    }
    if fnmatch(&glob, subject) {
        Runs::Yes
    } else if fnmatch(&glob.to_lowercase(), &subject.to_lowercase()) {
        Runs::Maybe
    } else {
        Runs::No
    }
}

/// The text of a field when every part is known and it is one field (no `"$@"` break).
fn whole(field: &Field) -> Option<String> {
    if field.parts.iter().any(|p| matches!(p, Part::Break)) {
        return None;
    }
    field.known()
}

/// A plain decimal integer, as `test` reads one (blanks around it allowed).
fn integer(text: &str) -> Option<i64> {
    let t = text.trim_matches([' ', '\t']);
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// An integer as `[[ ]]` reads one, as arithmetic: only plain decimal numbers without a
/// leading zero (`010` is octal there, `08` an error).
fn arithmetic_integer(text: &str) -> Option<i64> {
    let t = text.trim_matches([' ', '\t']);
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    if digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    integer(t)
}

fn compare(op: &str, a: &str, b: &str, number: fn(&str) -> Option<i64>) -> Runs {
    let ints = || Some((number(a)?, number(b)?));
    match op {
        "=" | "==" => Runs::of(a == b),
        "!=" => Runs::of(a != b),
        "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" => match ints() {
            Some((x, y)) => Runs::of(match op {
                "-eq" => x == y,
                "-ne" => x != y,
                "-lt" => x < y,
                "-le" => x <= y,
                "-gt" => x > y,
                _ => x >= y,
            }),
            None => Runs::Maybe,
        },
        _ => Runs::Maybe,
    }
}

const BINARY: &[&str] =
    &["=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-a", "-o", "-ef", "-nt", "-ot", "=~"];

/// `test ARGS…` (or `[ ARGS… ]` without the `]`), by the number of arguments as `test` reads
/// them.
fn test_args(args: &[String]) -> Runs {
    match args {
        [] => Runs::No,
        [one] => Runs::of(!one.is_empty()),
        [op, a] => match op.as_str() {
            "!" => test_args(&args[1..]).not(),
            "-n" => Runs::of(!a.is_empty()),
            "-z" => Runs::of(a.is_empty()),
            _ => Runs::Maybe,
        },
        [a, op, b] if BINARY.contains(&op.as_str()) => compare(op, a, b, integer),
        [not, ..] if not == "!" && args.len() <= 4 => test_args(&args[1..]).not(),
        _ => Runs::Maybe,
    }
}

impl Walker<'_> {
    /// Whether `condition` succeeds, where it is one test (`[`, `test`, `[[ ]]`, perhaps
    /// negated) of known words; and whether a word of such a test is not known (then which
    /// branch runs is not known, and each is walked with its accesses only possible). Computed
    /// without recording anything; the condition is walked after.
    pub(super) fn condition_runs(&mut self, condition: &ast::CompoundList, st: &State) -> (Runs, bool) {
        let [ast::CompoundListItem(and_or, _)] = condition.0.as_slice() else { return (Runs::Maybe, false) };
        let [command] = and_or.first.seq.as_slice() else { return (Runs::Maybe, false) };
        if !and_or.additional.is_empty() {
            return (Runs::Maybe, false);
        }
        let negated = and_or.first.bang;
        let mut scratch = st.clone();
        let (runs, undecided) = match command {
            ast::Command::Simple(s) => {
                let name = s.word_or_name.as_ref().map(|w| w.value.as_str());
                if !matches!(name, Some("[" | "test")) {
                    return (Runs::Maybe, false);
                }
                // A function or an alias of that name runs instead of the builtin.
                let replaced = |n: &str| {
                    self.function_by_name.contains_key(n) || self.aliases_unknown || self.aliases.contains_key(n)
                };
                let replaced = name.is_some_and(replaced);
                let mut words: Vec<&ast::Word> = Vec::new();
                let mut redirected = s.prefix.is_some();
                for item in s.suffix.iter().flat_map(|x| &x.0) {
                    match item {
                        ast::CommandPrefixOrSuffixItem::Word(w) => words.push(w),
                        _ => redirected = true,
                    }
                }
                self.quiet_eval(|w| {
                    let undecided = words.iter().any(|word| {
                        let pos = w.word_pos(word);
                        w.expand_single(&word.value, pos, &mut scratch).known().is_none()
                    });
                    if undecided || redirected || replaced {
                        return (Runs::Maybe, undecided);
                    }
                    // The arguments as `test` gets them: split and globbed.
                    let mut args: Vec<String> = Vec::new();
                    for word in &words {
                        let pos = w.word_pos(word);
                        for arg in w.expand_word(&word.value, pos, &mut scratch) {
                            match whole(&arg.field) {
                                Some(text) if !arg.field.has_glob() => args.push(text),
                                _ => return (Runs::Maybe, false),
                            }
                        }
                    }
                    if name == Some("[") && args.pop().as_deref() != Some("]") {
                        return (Runs::Maybe, false);
                    }
                    (test_args(&args), false)
                })
            }
            ast::Command::ExtendedTest(t, _) => {
                let mut words = Vec::new();
                super::compound::test_words(&t.expr, &mut words);
                self.quiet_eval(|w| {
                    let undecided = words.iter().any(|word| {
                        let pos = w.word_pos(word);
                        w.expand_single(&word.value, pos, &mut scratch).known().is_none()
                    });
                    if undecided {
                        return (Runs::Maybe, true);
                    }
                    (w.extended_runs(&t.expr, &mut scratch), false)
                })
            }
            _ => return (Runs::Maybe, false),
        };
        (if negated { runs.not() } else { runs }, undecided)
    }

    /// Whether a `[[ ]]` expression holds, its words expanded as `[[ ]]` expands them (not split
    /// or globbed).
    fn extended_runs(&mut self, e: &ast::ExtendedTestExpr, st: &mut State) -> Runs {
        let mut text = |w: &mut Self, word: &ast::Word| {
            let pos = w.word_pos(word);
            w.expand_single(&word.value, pos, st)
        };
        match e {
            ast::ExtendedTestExpr::And(a, b) => {
                let a = self.extended_runs(a, st);
                a.and(self.extended_runs(b, st))
            }
            ast::ExtendedTestExpr::Or(a, b) => {
                let a = self.extended_runs(a, st);
                a.or(self.extended_runs(b, st))
            }
            ast::ExtendedTestExpr::Not(a) => self.extended_runs(a, st).not(),
            ast::ExtendedTestExpr::Parenthesized(a) => self.extended_runs(a, st),
            ast::ExtendedTestExpr::UnaryTest(pred, word) => {
                let Some(value) = whole(&text(self, word)) else { return Runs::Maybe };
                match pred {
                    ast::UnaryPredicate::StringHasZeroLength => Runs::of(value.is_empty()),
                    ast::UnaryPredicate::StringHasNonZeroLength => Runs::of(!value.is_empty()),
                    _ => Runs::Maybe,
                }
            }
            ast::ExtendedTestExpr::BinaryTest(pred, a, b) => {
                let Some(left) = whole(&text(self, a)) else { return Runs::Maybe };
                let right = text(self, b);
                use ast::BinaryPredicate as P;
                match pred {
                    P::StringExactlyMatchesPattern | P::StringExactlyMatchesString => pattern_runs(&right, &left),
                    P::StringDoesNotExactlyMatchPattern | P::StringDoesNotExactlyMatchString => {
                        pattern_runs(&right, &left).not()
                    }
                    P::ArithmeticEqualTo
                    | P::ArithmeticNotEqualTo
                    | P::ArithmeticLessThan
                    | P::ArithmeticLessThanOrEqualTo
                    | P::ArithmeticGreaterThan
                    | P::ArithmeticGreaterThanOrEqualTo => {
                        let Some(right) = whole(&right) else { return Runs::Maybe };
                        let op = match pred {
                            P::ArithmeticEqualTo => "-eq",
                            P::ArithmeticNotEqualTo => "-ne",
                            P::ArithmeticLessThan => "-lt",
                            P::ArithmeticLessThanOrEqualTo => "-le",
                            P::ArithmeticGreaterThan => "-gt",
                            _ => "-ge",
                        };
                        compare(op, &left, &right, arithmetic_integer)
                    }
                    _ => Runs::Maybe,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn test_reads_its_arguments_by_their_number() {
        assert_eq!(test_args(&args(&[])), Runs::No);
        assert_eq!(test_args(&args(&[""])), Runs::No);
        assert_eq!(test_args(&args(&["-n"])), Runs::Yes);
        assert_eq!(test_args(&args(&["-z", ""])), Runs::Yes);
        assert_eq!(test_args(&args(&["-n", ""])), Runs::No);
        assert_eq!(test_args(&args(&["!", "x"])), Runs::No);
        assert_eq!(test_args(&args(&["-f", "x"])), Runs::Maybe);
        assert_eq!(test_args(&args(&["a", "=", "a"])), Runs::Yes);
        assert_eq!(test_args(&args(&["a", "==", "b"])), Runs::No);
        assert_eq!(test_args(&args(&["a*", "=", "ab"])), Runs::No);
        assert_eq!(test_args(&args(&["a", "!=", "b"])), Runs::Yes);
        assert_eq!(test_args(&args(&["10", "-gt", " 9"])), Runs::Yes);
        // `test` reads `010` as ten; `[[ ]]` as arithmetic, where it is eight.
        assert_eq!(test_args(&args(&["010", "-eq", "10"])), Runs::Yes);
        assert_eq!(compare("-eq", "010", "8", arithmetic_integer), Runs::Maybe);
        assert_eq!(compare("-eq", "08", "8", arithmetic_integer), Runs::Maybe);
        assert_eq!(compare("-eq", "0", "-0", arithmetic_integer), Runs::Yes);
        assert_eq!(test_args(&args(&["0x1", "-eq", "1"])), Runs::Maybe);
        assert_eq!(test_args(&args(&["!", "a", "=", "a"])), Runs::No);
        assert_eq!(test_args(&args(&["a", "-a", "b"])), Runs::Maybe);
        assert_eq!(test_args(&args(&["a", "<", "b"])), Runs::Maybe);
        assert_eq!(test_args(&args(&["a", "=", "a", "-o", "x"])), Runs::Maybe);
        // Three arguments whose middle one is no operator: `!` then two.
        assert_eq!(test_args(&args(&["!", "-z", ""])), Runs::No);
    }

    fn lit(text: &str, quoted: bool) -> Part {
        Part::Lit { text: text.into(), quoted, split: false }
    }

    #[test]
    fn patterns_decide_only_what_they_surely_say() {
        let p = |parts: Vec<Part>| Field { parts, tainted: false, content: None };
        assert_eq!(pattern_runs(&p(vec![lit("use", false)]), "use"), Runs::Yes);
        assert_eq!(pattern_runs(&p(vec![lit("use", false)]), "install"), Runs::No);
        assert_eq!(pattern_runs(&p(vec![lit("*", false)]), "anything"), Runs::Yes);
        assert_eq!(pattern_runs(&p(vec![lit("--*=*", false)]), "--a=b"), Runs::Yes);
        assert_eq!(pattern_runs(&p(vec![lit("v?", false)]), "v12"), Runs::No);
        // Quoted glob characters are themselves.
        assert_eq!(pattern_runs(&p(vec![lit("*", true)]), "x"), Runs::No);
        assert_eq!(pattern_runs(&p(vec![lit("*", true)]), "*"), Runs::Yes);
        // Case ignored (nocasematch) could match: undecided.
        assert_eq!(pattern_runs(&p(vec![lit("USE", false)]), "use"), Runs::Maybe);
        // Brackets, extended globs, escapes and unknown parts: undecided.
        assert_eq!(pattern_runs(&p(vec![lit("[0-9]*", false)]), "x"), Runs::Maybe);
        assert_eq!(pattern_runs(&p(vec![lit("@(a", false)]), "x"), Runs::Maybe);
        assert_eq!(pattern_runs(&p(vec![lit("a", false), Part::Unknown { numeric: false }]), "b"), Runs::Maybe);
        // Long words and patterns are not matched (the cost is their product).
        let long = "a".repeat(70_000);
        assert_eq!(pattern_runs(&p(vec![lit(&format!("*{}b", &long[..1000]), false)]), &long[..4000]), Runs::Maybe);
        assert_eq!(pattern_runs(&p(vec![lit("*", false)]), &long), Runs::Maybe);
    }

    #[test]
    fn three_valued_logic() {
        assert_eq!(Runs::Yes.and(Runs::Maybe), Runs::Maybe);
        assert_eq!(Runs::No.and(Runs::Maybe), Runs::No);
        assert_eq!(Runs::Yes.or(Runs::Maybe), Runs::Yes);
        assert_eq!(Runs::No.or(Runs::Maybe), Runs::Maybe);
        assert_eq!(Runs::Maybe.not(), Runs::Maybe);
    }
}
