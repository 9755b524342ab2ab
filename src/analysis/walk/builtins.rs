//! The builtins that change the shell's own state or run code in it (`cd`, `eval`, `source`,
//! `declare`, `read`, `set`, `trap`, `alias`, …), with the walk at hand.

use super::{Jump, LOADER_VARS, State, Val, Walker};
use crate::analysis::Pos;
use crate::analysis::commands;
use crate::analysis::programs::{Args, Nest, Stdin, getopt};
use crate::analysis::table::{Builtin, lookup};
use crate::analysis::word::{Arg, Field, is_name};
use crate::mode::Perm;

/// Analyses a builtin of the shell's: each has a function of its own below.
pub(in crate::analysis) fn builtin(
    w: &mut Walker,
    program: &str,
    kind: Builtin,
    args: &[Arg],
    env: &[(String, Field)],
    stdin: Stdin,
    st: &mut State,
) {
    let rest = &args[1..];
    let pos = args[0].pos;
    match kind {
        Builtin::Cd | Builtin::Pushd => cd_or_pushd(w, program, kind, rest, st),
        Builtin::Popd => w.pop_dir(st),
        Builtin::Eval => eval(w, program, rest, st),
        Builtin::Source => source(w, program, rest, &stdin, st),
        Builtin::Exec => exec(w, rest, env, stdin, st),
        Builtin::Command => command(w, rest, env, stdin, st),
        Builtin::Bypass => bypass(w, rest, env, stdin, st),
        Builtin::Declare => declare(w, program, rest, st),
        Builtin::Unset => unset(w, rest, st),
        Builtin::Read | Builtin::Mapfile | Builtin::Getopts | Builtin::Printf | Builtin::Wait => {
            assigning(w, program, kind, rest, env, &stdin, st)
        }
        Builtin::Set => set(w, rest, st),
        Builtin::Shift => shift(w, rest, st),
        Builtin::Trap => trap(w, program, rest, st),
        Builtin::Alias => alias(w, program, rest, st),
        Builtin::Unalias => {}
        Builtin::Let => let_(w, rest, st),
        Builtin::Hash => hash(w, program, rest, pos, st),
        Builtin::Enable => enable(w, program, rest, st),
        Builtin::Fc => fc(w, program, rest, pos, st),
        Builtin::Compgen => compgen(w, program, rest, st),
        Builtin::Test => test(w, rest, st),
        Builtin::Return => w.jump(Jump::Return, rest, st),
        Builtin::Break => w.jump(Jump::Break, rest, st),
        Builtin::Continue => w.jump(Jump::Continue, rest, st),
    }
}

/// `cd DIR` and `pushd DIR` (`pushd +N` or `-N`, which rotates the stack, is taken as a `popd`).
fn cd_or_pushd(w: &mut Walker, program: &str, kind: Builtin, rest: &[Arg], st: &mut State) {
    let operands: Vec<&Arg> = rest
        .iter()
        .filter(|a| !a.known().is_some_and(|t| t.starts_with('-') && t.len() > 1 && t != "--"))
        .filter(|a| a.known().as_deref() != Some("--"))
        .collect();
    if kind == Builtin::Cd {
        w.change_dir(operands.first().copied(), program, st);
    } else if operands.first().is_some_and(|a| a.known().is_some_and(|t| t.starts_with('+') || t.starts_with('-'))) {
        w.pop_dir(st);
    } else {
        w.push_dir(operands.first().copied(), program, st);
    }
}

/// `eval WORDS…`: the words joined are code run in this shell.
fn eval(w: &mut Walker, program: &str, rest: &[Arg], st: &mut State) {
    let tainted = rest.iter().any(|a| a.field.tainted);
    match rest {
        [] => {}
        [single] if !tainted && single.known().is_some() => {
            let code = single.known().unwrap_or_default();
            let raw = &single.raw;
            let verbatim =
                (raw.starts_with('\'') && raw.ends_with('\'') && raw.len() == code.len() + 2) || *raw == code;
            if verbatim {
                let offset = usize::from(raw.starts_with('\''));
                let p = Pos { line: single.pos.line, column: single.pos.column + offset };
                w.run_verbatim(&code, p, st, Nest::Same);
            } else {
                w.run_decoded(&code, single.pos, st, Nest::Same);
            }
        }
        _ => commands::run_string(w, program, rest, st, Nest::Same),
    }
}

/// `source FILE ARGS…` (and `.`): the file runs in this shell, with ARGS as its positional
/// parameters; `/dev/stdin` is what the command reads.
fn source(w: &mut Walker, program: &str, rest: &[Arg], stdin: &Stdin, st: &mut State) {
    let mut operands = rest.iter().skip_while(|a| a.known().as_deref() == Some("--"));
    if let Some(file) = operands.next() {
        let mut file = file.clone();
        if commands::reads_own_input(&file) {
            match stdin {
                Stdin::Text(Some(t)) => file.field.content = Some(t.clone()),
                // A pipe from a fetch, or a file saved with fetched text.
                s if w.stdin_fetched(s, st) => file.field.tainted = true,
                _ => {}
            }
        }
        let extra: Vec<Arg> = operands.cloned().collect();
        if extra.is_empty() {
            commands::source_file(w, &file, program, st, Nest::Same);
            return;
        }
        // The arguments are the file's positional parameters while it runs. After it, bash
        // gives the caller's back or keeps what the file set, depending on where it runs and
        // what the file did: each parameter is either.
        let saved = (st.positional.clone(), st.positional_open);
        let ifs = w.exact_ifs(st);
        w.params_fetched |= extra.iter().any(|a| a.field.tainted);
        st.set_positional_args(&extra, ifs.as_deref(), w.list_references);
        commands::source_file(w, &file, program, st, Nest::Same);
        let after = (std::mem::take(&mut st.positional), st.positional_open);
        let nth = |(values, open): &(Vec<Val>, bool), i: usize| match values.get(i) {
            Some(v) => v.clone(),
            None if *open => Val::unknown(),
            None => Val::Unset,
        };
        st.positional = (0..saved.0.len().max(after.0.len())).map(|i| nth(&saved, i).join(&nth(&after, i))).collect();
        st.positional_open = saved.1 || after.1;
    }
}

/// `exec COMMAND…`: the command replaces the shell.
fn exec(w: &mut Walker, rest: &[Arg], env: &[(String, Field)], stdin: Stdin, st: &mut State) {
    let parsed = getopt(rest, "a", &[], false);
    if !parsed.operands.is_empty() {
        w.run_command(&parsed.operands, env, stdin, st, false);
    } else if w.stdin_fetched(&stdin, st) && !w.fetched_fds.contains(&0) {
        // `exec < FILE`: the shell's own input from here on.
        w.fetched_fds.push(0);
    }
}

/// `command COMMAND…`: runs the command, bypassing functions; `-v`/`-V` only say what it is.
fn command(w: &mut Walker, rest: &[Arg], env: &[(String, Field)], stdin: Stdin, st: &mut State) {
    let parsed = getopt(rest, "", &[], false);
    if parsed.has(&["v", "V"]) {
        return;
    }
    if !parsed.operands.is_empty() {
        w.run_command(&parsed.operands, env, stdin, st, false);
    }
}

/// `builtin NAME…`: runs the builtin, bypassing functions.
fn bypass(w: &mut Walker, rest: &[Arg], env: &[(String, Field)], stdin: Stdin, st: &mut State) {
    if !rest.is_empty() {
        w.run_command(rest, env, stdin, st, false);
    }
}

/// `declare`, `typeset`, `local`, `export` and `readonly`: the variables they assign, export
/// or make references, and those `local` makes the running function's own.
fn declare(w: &mut Walker, program: &str, rest: &[Arg], st: &mut State) {
    let mut functions = false;
    let mut array_or_ref = false;
    let mut nameref = false;
    let mut export = program == "export";
    // Inside a function, `local`, and `declare`/`typeset` without -g, make the names the
    // function's own: their values before the call come back when it returns.
    let mut global = false;
    for a in rest {
        let Some(t) = a.known() else {
            w.unresolved(&a.raw, a.pos);
            // `export LD_PRELOAD="$x"`: the name is known, the libraries are not; and an
            // exported name that is not known may be the loader's too.
            match a.raw.split_once('=') {
                Some((name, _)) if LOADER_VARS.contains(&name) => {
                    w.loader_assignment(name, &Val::unknown(), st);
                }
                Some((name, _)) if is_name(name) => {}
                _ if export => w.loader_assignment("LD_PRELOAD", &Val::unknown(), st),
                _ => {}
            }
            w.assign_dynamic(st);
            // `local -n r=$1`: a reference to a name not known.
            if nameref && let Some((name, _)) = a.raw.split_once('=') {
                w.list_references = true;
                w.reference_names.insert(name.trim_start_matches(['"', '\'']).to_string());
            }
            // `local x=$(curl …)`: the name is known, and what it holds was fetched.
            if let Some((name, _)) = a.raw.split_once('=')
                && a.field.tainted
            {
                let name = name.trim_start_matches(['"', '\'']).trim_end_matches('+');
                if is_name(name) {
                    if program == "local" || (matches!(program, "declare" | "typeset") && !global) {
                        w.declare_local(name);
                    }
                    let target = st.resolve_name(name).into_owned();
                    w.set_fetched(&target, true, st);
                } else {
                    w.fetched_anywhere();
                }
            }
            continue;
        };
        if (t.starts_with('-') || t.starts_with('+')) && !t.contains('=') {
            functions |= t.contains('f') || t.contains('F');
            array_or_ref |= t.contains('a') || t.contains('A');
            nameref |= t.starts_with('-') && t.contains('n');
            export |= t.starts_with('-') && t.contains('x');
            global |= t.starts_with('-') && t.contains('g');
            // `-p` prints, with any other letter (`declare -xp NAME`, Codex's snapshot):
            // nothing is set.
            if t.starts_with('-') && t.contains('p') {
                return;
            }
            continue;
        }
        if functions {
            continue;
        }
        let (name, value) = match t.split_once('=') {
            Some((n, v)) => (n.trim_end_matches('+').to_string(), Some(v.to_string())),
            None => (t.clone(), None),
        };
        let base = name.split('[').next().unwrap_or("").to_string();
        if name.contains('[') {
            w.subscript_text(&name, a.pos, st);
        }
        if !is_name(&base) {
            continue;
        }
        if program == "local" || (matches!(program, "declare" | "typeset") && !global) {
            w.declare_local(&base);
        }
        if export {
            w.export(&base, st);
        }
        if nameref {
            match &value {
                Some(target) if is_name(target) => w.nameref(&base, target, st),
                _ => {
                    // A reference to an array's elements, or to a name not known. A subscript
                    // in it is code bash evaluates wherever the reference is used.
                    if let Some(target) = &value {
                        w.subscript_text(target, a.pos, st);
                    }
                    w.list_references = true;
                    w.reference_names.insert(base.clone());
                    w.assign(&base, None, st)
                }
            }
            continue;
        }
        if array_or_ref || name.contains('[') || t.contains("+=") {
            w.assign(&base, None, st);
            if a.field.tainted {
                let target = st.resolve_name(&base).into_owned();
                w.set_fetched(&target, true, st);
            }
        } else if let Some(v) = value {
            let value = if a.field.tainted { None } else { Some(v) };
            w.assign(&base, value, st);
            let target = st.resolve_name(&base).into_owned();
            w.set_fetched(&target, a.field.tainted, st);
        } else if (program == "local" || program == "declare" || program == "typeset")
            && (w.var_is_set(&base, st) != Some(true) || program == "local")
        {
            w.unset(&base, st);
        }
    }
}

/// `unset NAME…` (`-f`: functions).
fn unset(w: &mut Walker, rest: &[Arg], st: &mut State) {
    let mut functions = false;
    for a in rest {
        match a.known() {
            Some(t) if t.starts_with('-') => functions = t.contains('f'),
            Some(t) => {
                if t.contains('[') {
                    w.subscript_text(&t, a.pos, st);
                    w.assign(t.split('[').next().unwrap_or(""), None, st);
                } else if !functions && is_name(&t) {
                    w.unset(&t, st);
                } else if functions {
                    st.defined.remove(&t);
                }
            }
            None => w.assign_dynamic(st),
        }
    }
}

/// `read`, `mapfile`, `getopts`, `printf -v` and `wait -p`: each assigns the variables it is
/// given, with what it reads from a here-document or here-string when that is known.
fn assigning(
    w: &mut Walker,
    program: &str,
    kind: Builtin,
    rest: &[Arg],
    env: &[(String, Field)],
    stdin: &Stdin,
    st: &mut State,
) {
    let entry = lookup(program);
    let short = entry.map_or("", |e| e.short_args);
    let parsed = getopt(rest, short, &[], false);
    let input = match stdin {
        Stdin::Text(Some(t)) => Some(t.clone()),
        _ => None,
    };
    let names = match kind {
        Builtin::Read => read(w, &parsed, &input, env, st),
        Builtin::Mapfile => mapfile(w, program, &parsed, &input, st),
        Builtin::Getopts => getopts(w, &parsed, st),
        Builtin::Printf => printf(&parsed),
        _ => wait(&parsed),
    };
    // What `read` and `mapfile` take from fetched input, and what `printf -v` formats from
    // fetched words, is fetched text.
    let fetched = match kind {
        Builtin::Read | Builtin::Mapfile => {
            w.stdin_fetched(stdin, st)
                || parsed
                    .values(&["u"])
                    .iter()
                    .any(|u| u.known().and_then(|t| t.parse::<i32>().ok()).is_some_and(|n| w.fetched_fds.contains(&n)))
        }
        Builtin::Printf => rest.iter().any(|a| a.field.tainted),
        _ => false,
    };
    for (n, value) in names {
        match n.known() {
            Some(t) => {
                let base = t.split('[').next().unwrap_or("").to_string();
                if t.contains('[') {
                    w.subscript_text(&t, n.pos, st);
                    w.assign(&base, None, st);
                } else {
                    w.assign_val(&t, value, st);
                }
                if fetched {
                    let target = st.resolve_name(&base).into_owned();
                    w.set_fetched(&target, true, st);
                }
            }
            None => {
                w.assign_dynamic(st);
                if fetched {
                    w.fetched_anywhere();
                }
            }
        }
    }
}

/// `read NAME…` (`-a NAME`; `REPLY` when none is named).
fn read(
    w: &mut Walker,
    parsed: &Args,
    input: &Option<String>,
    env: &[(String, Field)],
    st: &mut State,
) -> Vec<(Arg, Val)> {
    let mut names = Vec::new();
    // Each line the input has is a value `read` may get; its words are split
    // on IFS (the command's own `IFS=…` first).
    let ifs = env
        .iter()
        .find(|(k, _)| k == "IFS")
        .and_then(|(_, v)| v.known())
        .or_else(|| w.var_value("IFS", st))
        .unwrap_or_else(|| " \t\n".into());
    let split = |l: &str| -> Vec<String> {
        l.split(|c: char| ifs.contains(c)).filter(|x| !x.is_empty()).map(str::to_string).collect()
    };
    let lines: Option<Vec<String>> = input.as_ref().map(|t| {
        let body = t.strip_suffix('\n').unwrap_or(t);
        body.split('\n').map(str::to_string).collect()
    });
    let choose = |per_line: &dyn Fn(&str) -> String| -> Val {
        match &lines {
            None => Val::unknown(),
            Some(ls) => {
                let mut v: Option<Val> = None;
                for l in ls {
                    let one = Val::Known(per_line(l));
                    v = Some(match v {
                        None => one,
                        Some(acc) => acc.join(&one),
                    });
                }
                v.unwrap_or(Val::Unset)
            }
        }
    };
    for a in parsed.values(&["a"]) {
        let v = match &lines {
            Some(ls) if ls.len() == 1 => Val::Array(split(&ls[0])),
            _ => Val::unknown(),
        };
        names.push((a, v));
    }
    let ops = &parsed.operands;
    for (i, n) in ops.iter().enumerate() {
        let last = i + 1 == ops.len();
        let v = choose(&|l: &str| {
            let words = split(l);
            if last {
                words.get(i..).map(|w| w.join(" ")).unwrap_or_default()
            } else {
                words.get(i).cloned().unwrap_or_default()
            }
        });
        names.push((n.clone(), v));
    }
    if ops.is_empty() && parsed.values(&["a"]).is_empty() {
        let v = choose(&|l: &str| l.to_string());
        w.assign_val("REPLY", v, st);
    }
    names
}

/// `mapfile NAME` and `readarray` (`MAPFILE` when none is named): the lines of the input; `-C`
/// runs code.
fn mapfile(w: &mut Walker, program: &str, parsed: &Args, input: &Option<String>, st: &mut State) -> Vec<(Arg, Val)> {
    let mut names = Vec::new();
    let strip = parsed.has(&["t"]);
    let v = input.as_ref().map_or_else(Val::unknown, |t| {
        let body = t.strip_suffix('\n').unwrap_or(t);
        Val::Array(body.split('\n').map(|l| if strip { l.to_string() } else { format!("{l}\n") }).collect())
    });
    match parsed.operands.first() {
        Some(n) => names.push((n.clone(), v)),
        None => w.assign_val("MAPFILE", v, st),
    }
    for c in parsed.values(&["C"]) {
        // Bash gives the callback the index and the line.
        match c.known() {
            // A name: the command it names, with those two words.
            Some(name) if is_name(&name) && !c.field.tainted => {
                let given = Arg { field: Field::unknown(), pos: c.pos, raw: c.raw.clone() };
                w.run_command(&[c, given.clone(), given], &[], Stdin::Unknown, st, true);
            }
            // Code: run with the two words after it, each one word not known.
            Some(code) if !c.field.tainted => {
                let unknown = commands::PLACEHOLDER;
                st.set_val(unknown, Val::unknown());
                w.run_decoded(&format!("{code} \"${{{unknown}}}\" \"${{{unknown}}}\""), c.pos, st, Nest::Same);
                st.set_val(unknown, Val::Unset);
            }
            _ => commands::code_string(w, program, &c, st, Nest::Same),
        }
    }
    names
}

/// `getopts OPTSTRING NAME`: NAME, `OPTARG` and `OPTIND` become unknown.
fn getopts(w: &mut Walker, parsed: &Args, st: &mut State) -> Vec<(Arg, Val)> {
    let mut names = Vec::new();
    if let Some(n) = parsed.operands.get(1) {
        names.push((n.clone(), Val::unknown()));
    }
    w.assign("OPTARG", None, st);
    w.assign("OPTIND", None, st);
    names
}

/// `printf -v NAME FORMAT ARGS…`: the text, for the few formats that are known.
fn printf(parsed: &Args) -> Vec<(Arg, Val)> {
    let mut names = Vec::new();
    let value = match (
        parsed.operands.first().and_then(Arg::known),
        parsed.operands[1.min(parsed.operands.len())..].iter().map(Arg::known).collect::<Option<Vec<String>>>(),
    ) {
        (Some(f), Some(args)) if f == "%s" => Val::Known(args.concat()),
        (Some(f), Some(args)) if args.is_empty() && !f.contains(['%', '\\']) => Val::Known(f),
        _ => Val::unknown(),
    };
    for n in parsed.values(&["v"]) {
        names.push((n, value.clone()));
    }
    names
}

/// `wait -p NAME`: the id of the job that ended, unknown.
fn wait(parsed: &Args) -> Vec<(Arg, Val)> {
    let mut names = Vec::new();
    for n in parsed.values(&["p"]) {
        names.push((n, Val::unknown()));
    }
    names
}

/// How many words not known `set` reads every way before it takes the parameters as not
/// known (each is read two or three ways).
const MAX_SET_WORDS_NOT_KNOWN: usize = 3;

/// `set [OPTIONS] [--] ARGS…`: ARGS become the positional parameters.
fn set(w: &mut Walker, rest: &[Arg], st: &mut State) {
    let mut i = 0;
    let mut positional: Option<Vec<Arg>> = None;
    while i < rest.len() {
        match rest[i].known() {
            // `set -` with nothing after it keeps the parameters; `set --` unsets them.
            Some(t) if t == "-" && i + 1 == rest.len() => break,
            Some(t) if t == "--" || t == "-" => {
                positional = Some(rest[i + 1..].to_vec());
                break;
            }
            Some(t) if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 => {
                if t[1..].contains('o') {
                    // `-o keyword`, or an option name not known here.
                    if rest.get(i + 1).is_none_or(|o| o.known().is_none_or(|o| o == "keyword")) {
                        w.keyword_args = true;
                    }
                    i += 1;
                }
                if t.starts_with('-') && t[1..].contains('k') {
                    w.keyword_args = true;
                }
                i += 1;
            }
            None => {
                // A word not known here (`set -$x`, `set "$o"`) may be the first parameter, or
                // options: then the words after it are read as `set` reads them (options, `--`,
                // parameters; none: the parameters stay), and `-o` takes the next one as its
                // name. The walk goes on from the join of every reading; past a few such words,
                // the parameters are not known.
                w.keyword_args = true;
                let ifs = w.exact_ifs(st);
                w.params_fetched |= rest[i..].iter().any(|a| a.field.tainted);
                let unknown_words = rest[i..].iter().filter(|a| a.known().is_none()).count();
                let mut first = st.clone();
                first.set_positional_args(&rest[i..], ifs.as_deref(), w.list_references);
                // (A word that may make any number of fields leaves no parameter known: that
                // reading covers the others but for the parameters holding fetched text, which
                // one of them keeps where they were.)
                let open = first.positional.is_empty() && first.positional_open;
                if open {
                    first.join_tainted_params(st);
                }
                let mut readings = Vec::new();
                if unknown_words <= MAX_SET_WORDS_NOT_KNOWN && !open {
                    for skip in [1, 2] {
                        if skip == 1 || i + 1 < rest.len() {
                            let mut as_options = st.clone();
                            set(w, &rest[(i + skip).min(rest.len())..], &mut as_options);
                            readings.push(as_options);
                        }
                    }
                }
                *st = first;
                if unknown_words > MAX_SET_WORDS_NOT_KNOWN {
                    st.positional_open = true;
                    st.positional = st.positional.iter().map(|_| Val::unknown()).collect();
                }
                for reading in &readings {
                    w.join(st, reading);
                }
                return;
            }
            Some(_) => {
                positional = Some(rest[i..].to_vec());
                break;
            }
        }
    }
    if let Some(p) = positional {
        let ifs = w.exact_ifs(st);
        w.params_fetched |= p.iter().any(|a| a.field.tainted);
        st.set_positional_args(&p, ifs.as_deref(), w.list_references);
    }
}

/// `shift [N]`.
fn shift(w: &mut Walker, rest: &[Arg], st: &mut State) {
    let n = match rest.first() {
        None => Some(1),
        Some(a) => a.known().and_then(|t| t.parse().ok()),
    };
    w.shift_positional(n, st);
}

/// `trap ACTION SIGNAL…`: the action is code that runs later, analysed at the end.
fn trap(w: &mut Walker, program: &str, rest: &[Arg], st: &mut State) {
    let mut ops =
        rest.iter().filter(|a| !matches!(a.known().as_deref(), Some("--") | Some("-p") | Some("-l") | Some("-P")));
    let Some(action) = ops.next() else { return };
    if ops.clone().next().is_none() {
        // `trap SIG` alone resets it.
        return;
    }
    // Only an EXIT trap runs after every command; any other may run between two of them.
    let anywhere =
        ops.any(|s| !matches!(s.known().map(|t| t.to_ascii_uppercase()).as_deref(), Some("EXIT" | "0" | "SIGEXIT")));
    match action.known() {
        Some(t) if t == "-" || t.is_empty() => {}
        Some(t) if !action.field.tainted => {
            if anywhere {
                w.trap_runs_anywhere(Some(&t), st);
            }
            w.set_trap(&t, action.pos)
        }
        _ => {
            if anywhere {
                w.trap_runs_anywhere(None, st);
            }
            w.unknown_code(&action.raw, program, action.pos, action.field.tainted, st)
        }
    }
}

/// `alias NAME=VALUE…`.
fn alias(w: &mut Walker, program: &str, rest: &[Arg], st: &mut State) {
    for a in rest {
        match a.known() {
            Some(t) if t.starts_with('-') => {}
            Some(t) => {
                if let Some((name, value)) = t.split_once('=') {
                    w.define_alias(name, if a.field.tainted { None } else { Some(value.to_string()) });
                }
            }
            None => w.unknown_code(&a.raw, program, a.pos, a.field.tainted, st),
        }
    }
}

/// `let EXPRESSION…`: arithmetic, and the variables it assigns become unknown.
fn let_(w: &mut Walker, rest: &[Arg], st: &mut State) {
    for a in rest {
        if let Some(t) = a.known() {
            w.arithmetic(&t, a.pos, st);
            if let Some((lhs, _)) = t.split_once('=') {
                let name = lhs
                    .trim()
                    .trim_end_matches(['+', '-', '*', '/', '%', '<', '>', '&', '|', '^'])
                    .split('[')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string();
                w.assign(&name, None, st);
            }
        }
    }
}

/// `hash -p PATH NAME`: the name runs the program at PATH from then on.
fn hash(w: &mut Walker, program: &str, rest: &[Arg], pos: Pos, st: &mut State) {
    let parsed = getopt(rest, "p", &[], false);
    if let Some(p) = parsed.values(&["p"]).first() {
        // Binding runs nothing; the name runs the program later, as a path would.
        w.possibly(|w| w.path(p, &[Perm::Execute], program, "binds a command name to a program path", st));
        if !parsed.operands.is_empty() {
            w.unknown_code("a command rebound by hash -p", program, pos, false, st);
        }
    }
}

/// `enable -f FILE NAME`: loads a builtin from a shared object, code the analysis cannot see.
fn enable(w: &mut Walker, program: &str, rest: &[Arg], st: &mut State) {
    let parsed = getopt(rest, "f", &[], false);
    for f in parsed.values(&["f"]) {
        w.path(&f, &[Perm::Read, Perm::Execute], program, "loads a shared object into the shell", st);
        w.unknown_code(&f.raw, program, f.pos, false, st);
    }
}

/// `fc`: runs commands from the history, which the analysis cannot see (`-l` only lists them).
fn fc(w: &mut Walker, program: &str, rest: &[Arg], pos: Pos, st: &mut State) {
    let parsed = getopt(rest, "e", &[], false);
    if !parsed.has(&["l"]) {
        w.unknown_code("commands from the history", program, pos, false, st);
    }
}

/// `compgen` and `complete`: `compgen -C` runs a command and `compgen -W` expands its word list;
/// `complete` changes nothing the walk follows.
fn compgen(w: &mut Walker, program: &str, rest: &[Arg], st: &mut State) {
    let parsed = getopt(rest, "AGWFPSXoC", &[], false);
    if program == "compgen" {
        // `-F NAME` calls the function in this shell, with three words.
        for f in parsed.values(&["F"]) {
            let given = Arg { field: Field::unknown(), pos: f.pos, raw: f.raw.clone() };
            w.run_command(&[f, given.clone(), given.clone(), given], &[], Stdin::Unknown, st, true);
        }
        for c in parsed.values(&["C"]) {
            commands::code_string(w, program, &c, st, Nest::Subshell);
        }
        for c in parsed.values(&["W"]) {
            let mut inner = st.clone();
            if let Some(t) = c.known() {
                w.eval_text(&t, c.pos, &mut inner, false);
            }
        }
    }
}

/// `test` and `[`: with `-v NAME`, bash evaluates the subscript NAME may have (`a[$(…)]`).
fn test(w: &mut Walker, rest: &[Arg], st: &mut State) {
    for (i, a) in rest.iter().enumerate() {
        if a.known().as_deref() == Some("-v")
            && let Some(name) = rest.get(i + 1).and_then(Arg::known)
        {
            w.subscript_text(&name, a.pos, st);
        }
    }
}
