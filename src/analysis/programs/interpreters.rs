//! Interpreters (python, node, perl, ruby, … as the table's row names them): they run code
//! (workspace execute), read and run a script operand, and run code given inline with the
//! option each one has for it. Code that came from the network, inline or as a script
//! downloaded earlier, needs network execute.

use super::{Args, Call, Effects, Stdin, is_url};
use crate::analysis::word::Arg;
use crate::mode::{Perm, Scope};

/// The options that give code inline, by interpreter (the name without its version).
const INLINE: &[(&[&str], &[&str])] = &[
    (&["python", "pypy", "ipython", "guile", "expect"], &["c"]),
    (&["node", "nodejs", "bun", "ts-node", "tsx", "qjs"], &["e", "eval", "p", "print"]),
    (&["perl"], &["e", "E"]),
    (
        &["ruby", "irb", "lua", "luajit", "Rscript", "R", "osascript", "groovy", "scala", "elixir", "racket"],
        &["e", "eval"],
    ),
    (&["julia"], &["e", "E", "eval", "print"]),
    (&["php"], &["r", "B", "R", "E"]),
    (&["sbcl", "clisp", "erl"], &["eval"]),
    (&["tclsh", "wish"], &[]),
];

/// The one-letter options that take a value, by interpreter, where the row's grammar (made for
/// all of them) would take a flag for one: `python3 -O x.py`, `perl -W x.pl` and `ruby -c x.rb`
/// run or read the script after the flag.
const VALUE_OPTIONS: &[(&[&str], &str)] = &[
    (&["python", "pypy", "ipython"], "cmWXQ"),
    (&["node", "nodejs", "bun", "ts-node", "tsx"], "eprC"),
    (&["ruby", "irb"], "eIrCEF"),
    (&["perl", "perl5"], "eEIMm"),
    (&["php"], "rBREcdzt"),
    (&["lua", "luajit"], "el"),
    (&["Rscript", "R"], "e"),
    (&["julia"], "eEJptC"),
    (&["osascript"], "els"),
];

/// The inline-code options of an interpreter not in [`INLINE`].
const INLINE_ELSEWHERE: &[&str] = &["c", "e", "E", "eval", "p", "print", "r", "command", "x"];

/// The options that say "the code is inline, not a script operand", for an interpreter not in
/// [`INLINE`]. One in it has its own inline options (and python's `-m`, a module run by name):
/// an option another interpreter reads as code (`node -r MODULE`, `ruby -r LIB`) leaves the
/// script operand a script.
const INLINE_ANY: &[&str] = &["c", "e", "E", "eval", "p", "print", "m", "r", "command", "x"];

/// The family's entry.
pub fn handle(call: &Call) -> Effects {
    let mut out = Effects::default();
    let (program, pos) = (call.program, call.pos);
    let base = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let parsed = match VALUE_OPTIONS.iter().find(|(names, _)| names.contains(&base)) {
        Some((_, spec)) => super::getopt(call.args, spec, call.long_args, false),
        None => call.options_first(),
    };
    out.need(Scope::Workspace, Perm::Execute, program, "runs an interpreter", pos);
    let deno_eval = base == "deno" && parsed.operands.first().and_then(Arg::known).as_deref() == Some("eval");
    let inline = match INLINE.iter().find(|(names, _)| names.contains(&base)) {
        Some((_, options)) => {
            parsed.has(options) || (matches!(base, "python" | "pypy" | "ipython") && parsed.has(&["m"]))
        }
        None => parsed.has(INLINE_ANY) && base != "java",
    } || deno_eval;
    // Code given inline that came from the network (`python3 -c "$(curl …)"`) is fetched code.
    for code in inline_code(base, &parsed).into_iter().filter(|a| a.field.tainted) {
        out.unresolved(code);
        out.need(Scope::Network, Perm::Execute, &code.raw, "runs code fetched from the network", code.pos);
    }
    let mut operands = parsed.operands.iter();
    if !inline {
        match operands.next() {
            Some(script) if script.known().as_deref() != Some("-") => {
                out.path(script, &[Perm::Read, Perm::Execute], "runs a script");
                // (A relative name where the cwd is not known: the save's own name.)
                if let Some(p) = script.known().and_then(|t| call.absolute(&t).or(Some(t)))
                    && (call.downloaded)(&p)
                {
                    out.need(Scope::Network, Perm::Execute, &p, "runs a script downloaded earlier", script.pos);
                }
                if (script.known().is_none() || script.field.has_glob())
                    && !script.field.tainted
                    && script.field.content.is_none()
                    && let Some(d) = (call.download_named_by)(script)
                {
                    let (target, reason) = d.need();
                    out.need(Scope::Network, Perm::Execute, &target, reason, script.pos);
                }
                if script.field.tainted {
                    out.need(
                        Scope::Network,
                        Perm::Execute,
                        &script.raw,
                        "runs code fetched from the network",
                        script.pos,
                    );
                }
                // The script is its standard input (`python3 /dev/stdin < f`).
                if script.known().is_some_and(|t| matches!(t.as_str(), "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"))
                    && call.input_fetched()
                {
                    out.need(Scope::Network, Perm::Execute, program, "runs code fetched from the network", pos);
                }
            }
            _ => match call.stdin {
                Stdin::Fetched => {
                    out.need(Scope::Network, Perm::Execute, program, "runs code fetched from the network", pos)
                }
                Stdin::File(p) if (call.downloaded)(p) => {
                    out.need(Scope::Network, Perm::Execute, p, "runs a script downloaded earlier", pos)
                }
                _ => {}
            },
        }
    }
    let rest: Vec<&Arg> = operands.collect();
    if matches!(base, "perl" | "perl5") && parsed.opts.iter().any(|o| o.name == "i") {
        for f in rest {
            out.path(f, &[Perm::Read, Perm::Write], "edits a file in place");
        }
    } else {
        // The script's arguments may be paths it reads.
        let mut maybe = Effects::default();
        for f in rest {
            if f.known().is_some_and(|t| t.contains('/') && !is_url(&t)) {
                maybe.path(f, &[Perm::Read], "may read a path it is given");
            }
        }
        out.possibly(maybe);
    }
    out
}

/// The words an interpreter runs as code given inline: the value of its inline-code option, or
/// the operand after `deno eval`.
fn inline_code<'a>(base: &str, parsed: &'a Args) -> Vec<&'a Arg> {
    if base == "deno" {
        return match parsed.operands.first().and_then(Arg::known).as_deref() {
            Some("eval") => parsed.operands.get(1).into_iter().collect(),
            _ => Vec::new(),
        };
    }
    let options = INLINE.iter().find(|(names, _)| names.contains(&base)).map_or(INLINE_ELSEWHERE, |(_, o)| *o);
    let mut code: Vec<&Arg> = Vec::new();
    let mut bare = false;
    for opt in parsed.opts.iter().filter(|o| options.contains(&o.name.as_str())) {
        match &opt.value {
            Some(v) => code.push(v),
            // The option letter does not take a value in the row's grammar: its code is the
            // first operand.
            None => bare = true,
        }
    }
    if code.is_empty() && bare {
        code.extend(parsed.operands.first());
    }
    code
}

#[cfg(test)]
mod tests {
    use super::super::{Effect, assert_once, effects_of};
    use super::INLINE;
    use crate::mode::{Perm, Scope};

    #[test]
    fn each_interpreter_is_in_one_line() {
        assert_once("inline-code option", INLINE.iter().map(|(names, _)| *names));
        assert_once("value option", super::VALUE_OPTIONS.iter().map(|(names, _)| *names));
    }

    #[test]
    fn a_script_is_read_and_run_and_its_arguments_maybe_read() {
        let e = effects_of("python3 tool.py ./data/in.csv plain");
        assert!(matches!(&e[0], Effect::Need { scope: Scope::Workspace, perm: Perm::Execute, .. }));
        assert!(matches!(&e[1], Effect::Path { arg, perms: [Perm::Read, Perm::Execute], .. } if arg.raw == "tool.py"));
        let Effect::Possibly(maybe) = &e[2] else { panic!("{e:?}") };
        assert_eq!(maybe.len(), 1, "only the word with a slash: {maybe:?}");
    }

    #[test]
    fn inline_code_is_not_a_script() {
        let e = effects_of("python3 -c print(1) ./x");
        assert!(!e.iter().any(|e| matches!(e, Effect::Path { perms: [Perm::Read, Perm::Execute], .. })), "{e:?}");
        let e = effects_of("deno eval console.log(1)");
        assert!(!e.iter().any(|e| matches!(e, Effect::Path { .. })), "{e:?}");
    }

    #[test]
    fn perl_in_place_edits() {
        let e = effects_of("perl -i -pe s/a/b/ f.txt");
        assert!(
            e.iter()
                .any(|e| matches!(e, Effect::Path { arg, perms: [Perm::Read, Perm::Write], .. } if arg.raw == "f.txt")),
            "{e:?}"
        );
    }
}
