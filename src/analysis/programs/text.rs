//! Text programs with a language of their own that can name files and run commands: `sed`,
//! `awk` (and its kin), and `split`/`csplit`, whose `--filter` is shell code.

use super::{Args, Call, Effects, Nest, dirname, sub_arg};
use crate::analysis::word::{Arg, is_name};
use crate::mode::{Perm, Scope};

/// The family's entry.
pub fn handle(call: &Call) -> Effects {
    match call.program {
        "sed" | "gsed" => sed(call),
        "split" | "csplit" => split(call),
        _ => awk(call),
    }
}

fn sed(call: &Call) -> Effects {
    let mut out = Effects::default();
    let parsed = call.options();
    // `-i`, `-i.bak`, and `-i` clustered with other flags (`-ni`; not `-ie`, whose `e` takes
    // the script).
    let in_place = parsed.opts.iter().any(|o| o.name == "i" || o.name.starts_with("in-place"))
        || call.args.iter().filter_map(Arg::known).any(|t| {
            t.starts_with("-i")
                || (t.starts_with('-')
                    && !t.starts_with("--")
                    && t.contains('i')
                    && !t.contains('e')
                    && !t.contains('f'))
        });
    let given = ["e", "expression", "f", "file"];
    let (scripts, operands) = programs(call, &mut out, &parsed, &["f", "file"], &given, "reads a sed script");
    for s in &scripts {
        match s.known() {
            Some(text) => sed_script(&mut out, s, &text),
            None => out.unresolved(s),
        }
    }
    let (perms, reason): (&'static [Perm], _) =
        if in_place { (&[Perm::Read, Perm::Write], "edits a file in place") } else { (&[Perm::Read], "reads a file") };
    for f in operands {
        if f.known().as_deref() != Some("-") {
            out.path(&f, perms, reason);
        }
    }
    out
}

/// The program texts of a command whose program is given by options (inline, or in files it
/// reads, whose text the walk may give), or else is its first operand; and the operands left.
fn programs(
    call: &Call,
    out: &mut Effects,
    parsed: &Args,
    files: &[&str],
    given: &[&str],
    reason: &'static str,
) -> (Vec<Arg>, Vec<Arg>) {
    let inline: Vec<&str> = given.iter().copied().filter(|o| !files.contains(o)).collect();
    let mut texts = parsed.values(&inline);
    for f in parsed.values(files) {
        out.path(&f, &[Perm::Read], reason);
        // A program file downloaded earlier is fetched code (`awk -f f`, `sed -f f`).
        if let Some(p) = f.known().map(|t| call.absolute(&t).unwrap_or(t))
            && (call.downloaded)(&p)
        {
            out.need(Scope::Network, Perm::Execute, &p, "runs a program file downloaded earlier", f.pos);
        }
        if let Some(text) = f.known().and_then(|t| (call.read)(&t)) {
            texts.push(sub_arg(&f, &text));
        }
    }
    let mut operands = parsed.operands.clone();
    if !parsed.has(given) && !operands.is_empty() {
        texts.push(operands.remove(0));
    }
    (texts, operands)
}

/// The sed commands that touch files or run programs: `w FILE`, `r FILE`, `s///w FILE`, `e`.
fn sed_script(out: &mut Effects, arg: &Arg, text: &str) {
    let runs = |out: &mut Effects, reason| {
        out.need(Scope::Workspace, Perm::Execute, text, reason, arg.pos);
        out.unresolved_text(text, arg.pos);
    };
    for line in text.split(['\n', ';']) {
        let l = line.trim_start();
        let body = l.trim_start_matches(|c: char| c.is_ascii_digit() || c == ',' || c == '$' || c == '!' || c == ' ');
        let body = match body.strip_prefix('/') {
            Some(rest) => rest.find('/').map_or(body, |i| rest[i + 1..].trim_start()),
            None => body,
        };
        let mut chars = body.chars();
        let cmd = chars.next();
        let arg_text = chars.as_str().trim();
        match cmd {
            Some('w' | 'W') if !arg_text.is_empty() => {
                out.path(&sub_arg(arg, arg_text), &[Perm::Write], "writes a file from its script")
            }
            Some('r' | 'R') if !arg_text.is_empty() => {
                out.path(&sub_arg(arg, arg_text), &[Perm::Read], "reads a file from its script")
            }
            Some('e') => runs(out, "runs a command from its script (e)"),
            Some('s') => {
                let Some(delim) = body.chars().nth(1) else { continue };
                let parts: Vec<&str> = body[1 + delim.len_utf8()..].splitn(3, delim).collect();
                let Some(flags) = parts.get(2) else { continue };
                if let Some(i) = flags.find('w') {
                    let file = flags[i + 1..].trim();
                    if !file.is_empty() {
                        out.path(&sub_arg(arg, file), &[Perm::Write], "writes a file from its script");
                    }
                }
                if flags.split('w').next().is_some_and(|f| f.contains('e')) {
                    runs(out, "runs a command from its script (s///e)");
                }
            }
            _ => {}
        }
    }
}

fn awk(call: &Call) -> Effects {
    let mut out = Effects::default();
    let parsed = call.options();
    let files = ["f", "file", "i", "include", "E", "exec"];
    // An included file adds to the program on the command line; the others replace it.
    let given = ["f", "file", "E", "exec"];
    let (texts, operands) = programs(call, &mut out, &parsed, &files, &given, "reads an awk program");
    for l in parsed.values(&["l", "load"]) {
        out.need(Scope::Workspace, Perm::Execute, &l.raw, "loads an extension", l.pos);
    }
    for p in &texts {
        match p.known() {
            Some(text) => {
                if text.contains("system") || text.contains('|') {
                    out.need(
                        Scope::Workspace,
                        Perm::Execute,
                        &p.raw,
                        "its program runs commands (system() or a pipe)",
                        p.pos,
                    );
                    out.unresolved(p);
                }
                if text.contains("print") && text.contains('>') {
                    out.unresolved(p);
                    out.unknown_write();
                }
            }
            None => {
                out.need(Scope::Workspace, Perm::Execute, &p.raw, "runs an awk program the analysis cannot see", p.pos);
                out.unresolved(p);
            }
        }
    }
    for f in operands {
        let t = f.known().unwrap_or_default();
        // `-` is standard input; `name=value` sets a variable.
        if t == "-" || (t.contains('=') && is_name(t.split('=').next().unwrap_or(""))) {
            continue;
        }
        out.path(&f, &[Perm::Read], "reads a file");
    }
    out
}

/// `split [OPTION]… [INPUT [PREFIX]]`: the pieces are written where the prefix says.
fn split(call: &Call) -> Effects {
    let mut out = Effects::default();
    let parsed = call.options();
    for f in parsed.values(&["filter"]) {
        out.code(vec![f], Nest::NewShell);
    }
    let mut ops = parsed.operands.iter();
    if let Some(input) = ops.next()
        && input.known().as_deref() != Some("-")
    {
        out.path(input, &[Perm::Read], "reads its input");
    }
    match ops.next() {
        Some(prefix) => {
            let text = prefix.known().unwrap_or_default();
            let dir = if text.contains('/') { dirname(&text) } else { ".".into() };
            out.path(&sub_arg(prefix, &dir), &[Perm::Write], "writes the pieces");
        }
        None => out.cwd(&[Perm::Write], "writes the pieces into the current directory", call.pos),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{Effect, Nest, effects_of, paths_of as paths};
    use crate::mode::{Perm, Scope};

    fn runs(line: &str) -> bool {
        effects_of(line).iter().any(|e| matches!(e, Effect::Need { scope: Scope::Workspace, perm: Perm::Execute, .. }))
    }

    #[test]
    fn sed_reads_edits_and_writes_from_its_script() {
        assert_eq!(paths("sed -n 1p a.txt"), vec![("a.txt".into(), &[Perm::Read][..])]);
        assert_eq!(paths("sed -i s/a/b/ a.txt"), vec![("a.txt".into(), &[Perm::Read, Perm::Write][..])]);
        assert_eq!(paths("sed -ni p a.txt"), vec![("a.txt".into(), &[Perm::Read, Perm::Write][..])]);
        assert_eq!(paths("sed -e w\u{a0}out.txt a.txt")[0], ("out.txt".into(), &[Perm::Write][..]));
        assert_eq!(paths("sed s/a/b/w\u{a0}log a.txt")[0], ("log".into(), &[Perm::Write][..]));
        assert_eq!(paths("sed 1r\u{a0}/etc/x a.txt")[0], ("/etc/x".into(), &[Perm::Read][..]));
        assert!(runs("sed 1e\u{a0}id a.txt"));
        assert!(runs("sed s/x/id/e a.txt"));
        assert!(!runs("sed s/x/y/g a.txt"));
    }

    #[test]
    fn awk_runs_commands_and_skips_assignments() {
        assert_eq!(paths("awk {print} a.txt n=1 -"), vec![("a.txt".into(), &[Perm::Read][..])]);
        assert!(runs("awk {system(\"id\")}"));
        assert!(runs("awk {print|\"sh\"}"));
        assert!(!runs("awk {print}"));
        assert!(effects_of("awk {print>\"f\"}").contains(&Effect::UnknownWrite));
        assert!(runs("awk -l ext {print}"));
    }

    #[test]
    fn split_writes_where_the_prefix_is_and_runs_its_filter() {
        assert_eq!(
            paths("split big.txt /etc/part"),
            vec![("big.txt".into(), &[Perm::Read][..]), ("/etc".into(), &[Perm::Write][..])]
        );
        assert!(matches!(effects_of("split big.txt").last(), Some(Effect::Cwd { perms: [Perm::Write], .. })));
        let e = effects_of("split --filter=gzip\u{a0}>x.gz big.txt");
        assert!(matches!(&e[0], Effect::Code { nest: Nest::NewShell, .. }), "{e:?}");
    }
}
