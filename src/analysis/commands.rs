//! What commands do: the handlers that turn an entry of the knowledge table (`table.rs`) and
//! a command's arguments into accesses.

use super::effects::{Effects, plain_word};
use super::programs::{self, Call, Nest, Stdin, dirname};
use super::table::{Kind, TableEntry, lookup};
use super::walk::{State, Val, Walker, field_val};
use super::word::{Arg, Field, Part};
use crate::invocation;
use crate::mode::{Perm, Scope};

// ----- dispatch ----------------------------------------------------------------------------

/// Analyses running `program` (a name, or the base name of a program in a system directory).
pub fn dispatch(w: &mut Walker, program: &str, args: &[Arg], env: &[(String, Field)], stdin: Stdin, st: &mut State) {
    let entry = lookup(program);
    // A program that may create files the table does not name (a decompressor's output, a
    // decoder's, a build's): a file absent now may be there for a later `source`.
    if !entry.is_some_and(|e| {
        matches!(e.kind, Kind::Pure | Kind::Reads | Kind::Lists | Kind::PatternReads | Kind::Builtin(_))
    }) {
        w.note_unmodelled_program();
    }
    if program == "chmod" {
        w.note_chmod(args, st);
    }
    match entry.map(|e| e.kind) {
        Some(Kind::Pure) => {}
        Some(Kind::Shell) => shell(w, program, args, env, &stdin, st),
        Some(Kind::Builtin(kind)) => super::walk::builtin(w, program, kind, args, env, stdin, st),
        _ => program_effects(w, program, entry, args, env, &stdin, st),
    }
}

/// A program's command knowledge, behind the seam: its handler (or its row's kind, or the rule
/// for programs the table does not know) sees the call, and the walk applies what it returns.
fn program_effects(
    w: &mut Walker,
    program: &str,
    entry: Option<&TableEntry>,
    args: &[Arg],
    env: &[(String, Field)],
    stdin: &Stdin,
    st: &mut State,
) {
    // An assignment before the command (`PATH=… pip install`) is what the program sees.
    let var = |name: &str| match env.iter().rev().find(|(n, _)| n == name) {
        Some((_, value)) => value.known(),
        None => w.var_value(name, st),
    };
    let read = |path: &str| script_text(w, path, st);
    let downloaded = |p: &str| w.downloaded_here(p, false, st);
    let download_named_by = |a: &Arg| w.download_named_by(a, st);
    let call = Call {
        program,
        pos: args[0].pos,
        args: &args[1..],
        short_args: entry.map_or("", |e| e.short_args),
        long_args: entry.map_or(&[], |e| e.long_args),
        stdin,
        downloaded: &downloaded,
        download_named_by: &download_named_by,
        var: &var,
        read: &read,
        cwd: st.cwd.as_deref(),
    };
    let effects = match entry.map(|e| e.kind) {
        Some(Kind::Program(handle)) => handle(&call),
        Some(kind) => programs::generic::handle(kind, &call),
        None => programs::generic::unknown(&call),
    };
    let kind = entry.map(|e| e.kind);
    apply(w, program, kind, effects, stdin, st);
    if matches!(kind, Some(Kind::Copy | Kind::Move)) {
        copies_saved_files(w, entry.map_or("", |e| e.short_args), entry.map_or(&[], |e| e.long_args), args, st);
    }
}

/// `cp`, `install` and `mv` of a file saved with fetched text save it again where they put
/// it: the destination, or the source's name in the destination directory (both, where the
/// destination is not a directory yet: the program may make it first).
fn copies_saved_files(w: &mut Walker, short: &str, long: &[&str], args: &[Arg], st: &mut State) {
    let parsed = programs::getopt(&args[1..], short, long, true);
    let mut operands = parsed.operands.clone();
    let target_dir = parsed.values(&["t", "target-directory"]).into_iter().next();
    let (dest, into_dir) = match target_dir {
        Some(t) => (t, true),
        None if operands.len() >= 2 => {
            let Some(dest) = operands.pop() else { return };
            let is_dir = operands.len() > 1
                || dest
                    .known()
                    .is_some_and(|t| t.ends_with('/') || w.absolute(&t, st).is_some_and(|a| super::asked::is_dir(&a)));
            (dest, is_dir)
        }
        None => return,
    };
    for src in &operands {
        if !w.names_saved_file(src, st) {
            continue;
        }
        let name = src.raw.trim_end_matches('/').rsplit('/').next().unwrap_or("").to_string();
        let mut inside = dest.clone();
        inside.field = match (dest.known(), src.known()) {
            (Some(d), Some(s)) => Field::literal(&format!(
                "{}/{}",
                d.trim_end_matches('/'),
                s.trim_end_matches('/').rsplit('/').next().unwrap_or("")
            )),
            _ => Field::unknown(),
        };
        inside.raw = format!("{}/{name}", dest.raw.trim_end_matches('/'));
        w.note_download_to(&inside, st);
        if !into_dir {
            w.note_download_to(&dest, st);
        }
    }
}

/// Running a file the analysis cannot name whole (`bash "$f"`, `. ./*.sh`) where the program
/// saves fetched text to a file that name may be: network execute. (Fetched text as the name
/// is code fetched from the network already.)
pub(super) fn may_run_unnamed_download(w: &mut Walker, arg: &Arg, command: &str, st: &State) {
    if (arg.known().is_some() && !arg.field.has_glob()) || arg.field.tainted {
        return;
    }
    if let Some(d) = w.download_named_by(arg, st) {
        let (target, reason) = d.need();
        w.need(Scope::Network, Perm::Execute, &target, command, reason, arg.pos);
    }
}

/// `-n`, alone or among other one-letter options (`-xn`): the shell reads without running.
fn is_no_exec_option(word: &str) -> bool {
    word.len() > 1
        && word.starts_with('-')
        && !word.starts_with("--")
        && word[1..].chars().all(|c| c.is_ascii_alphabetic())
        && word.contains('n')
}

/// Why running a file needs network execute after a call the analysis read only from its
/// syntax, which may have downloaded files it cannot name.
const UNNAMED_DOWNLOAD: &str = "runs a file that may have been downloaded by a function the analysis did not follow into (it fetches and writes files)";

/// Whether the file at `path` may be one a call read only from its syntax downloaded. A
/// system file is not: writing it needs system write, which that call's own walk reports.
fn unnamed_download(w: &Walker, st: &State, path: &str) -> bool {
    w.ctx.layout.classify(path, true) != crate::scope::Class::System && w.downloaded_here(path, false, st)
}

/// Whether `program` run with these words as written (no expansion done) may read from the
/// network, and whether it may write what it fetched to a file: its handler is asked, with
/// every word that expands taken as unknown, and a command it runs in turn is asked the same.
/// A shell given a script file counts as fetching; one given text that cannot be read here, as
/// both. For code read only from its syntax (a call not followed), where the walk would learn
/// it from the handler.
pub fn may_fetch(program: &str, words: &[&str]) -> Effects {
    may_fetch_in(program, words, 0)
}

fn may_fetch_in(program: &str, words: &[&str], depth: usize) -> Effects {
    let mut found = Effects::default();
    let Some(entry) = lookup(program) else { return found };
    if depth > 8 {
        found.fetches = true;
        found.downloads = true;
        return found;
    }
    if matches!(entry.kind, Kind::Shell) {
        // `sh -c TEXT` with options of no value: the text, when it is written plainly enough to
        // read. A script file may fetch (what it saves is not followed); anything else (an
        // option's value before the text, text it cannot read) may do both.
        let options: Vec<&&str> = words.iter().take_while(|w| w.starts_with('-') || w.starts_with('+')).collect();
        let valued = options.iter().any(|w| w.starts_with("--") || w[1..].contains(['o', 'O']));
        let with_text = options.iter().any(|w| w[1..].contains('c'));
        let operand = words.get(options.len());
        match (with_text, valued, operand.and_then(|w| unquote(w))) {
            (true, false, Some(text)) => match super::parse::program(&text) {
                Ok(p) => return Effects::of_program(&p).fetch_only(),
                Err(_) => found.downloads = true,
            },
            (false, false, Some(_)) => {}
            _ => found.downloads = true,
        }
        found.fetches = true;
        return found;
    }
    let args: Vec<Arg> = words
        .iter()
        .map(|w| Arg {
            field: if plain_word(w) { Field::literal(w) } else { Field::unknown() },
            pos: super::Pos::default(),
            raw: (*w).to_string(),
        })
        .collect();
    let call = Call {
        program,
        pos: super::Pos::default(),
        args: &args,
        short_args: entry.short_args,
        long_args: entry.long_args,
        stdin: &Stdin::Unknown,
        downloaded: &|_| false,
        download_named_by: &|_| None,
        var: &|_| None,
        read: &|_| None,
        cwd: None,
    };
    let effects = match entry.kind {
        Kind::Program(handle) => handle(&call),
        kind => programs::generic::handle(kind, &call),
    };
    let mut queue: Vec<programs::Effect> = effects.0;
    let mut written_params = Vec::new();
    while let Some(effect) = queue.pop() {
        match effect {
            programs::Effect::Need { scope: Scope::Network, perm: Perm::Read, .. } => found.fetches = true,
            programs::Effect::Path { arg, .. } if arg.raw.contains("/dev/tcp/") || arg.raw.contains("/dev/udp/") => {
                found.fetches = true
            }
            programs::Effect::UnknownCode { fetched: true, .. } => found.fetches = true,
            programs::Effect::Downloaded { path } => {
                found.fetches = true;
                if plain_word(&path) {
                    found.downloaded.insert(path);
                } else {
                    found.downloads = true;
                }
            }
            // A file named by a positional parameter that it writes, where it fetches: the
            // caller's word names it (`curl -so "$1" URL`).
            programs::Effect::Path { arg, perms, .. } if perms.contains(&Perm::Write) => {
                if let Some(n) = positional_word(&arg.raw) {
                    written_params.push(n);
                }
            }
            programs::Effect::Possibly(inner) => queue.extend(inner),
            programs::Effect::Run { args, .. } => {
                let raws: Vec<&str> = args.iter().map(|a| a.raw.as_str()).collect();
                if let Some((name, rest)) = raws.split_first() {
                    let inner = may_fetch_in(name, rest, depth + 1);
                    found.merge(inner);
                }
            }
            programs::Effect::Code { .. } => {
                found.fetches = true;
                found.downloads = true;
            }
            _ => {}
        }
    }
    if found.fetches {
        found.downloaded_params.extend(written_params);
    }
    found
}

/// The positional parameter a word is, alone (`$1`, `"$1"`, `"${2}"`).
fn positional_word(word: &str) -> Option<usize> {
    let w = word.strip_prefix('"').and_then(|w| w.strip_suffix('"')).unwrap_or(word);
    let w = w.strip_prefix('$')?;
    let w = w.strip_prefix('{').and_then(|w| w.strip_suffix('}')).unwrap_or(w);
    w.parse().ok().filter(|n| (1..10).contains(n))
}

/// The text of a word in single or double quotes with nothing to expand, or a plain word.
pub fn unquote(word: &str) -> Option<String> {
    let inner = if word.len() >= 2 && word.starts_with('\'') && word.ends_with('\'') {
        let inner = &word[1..word.len() - 1];
        return (!inner.contains('\'')).then(|| inner.to_string());
    } else if word.len() >= 2 && word.starts_with('"') && word.ends_with('"') {
        &word[1..word.len() - 1]
    } else {
        word
    };
    (!inner.contains(['$', '`', '\\', '"', '\''])).then(|| inner.to_string())
}

/// Whether the table models `program` (what it reads, writes and runs).
pub fn is_modelled(program: &str) -> bool {
    lookup(program).is_some()
}

/// A program the table does not know (or one whose name is not known): the words it is given
/// may be paths it reads.
pub fn generic(w: &mut Walker, program: &str, args: &[Arg], st: &mut State) {
    program_effects(w, program, None, args, &[], &Stdin::Unknown, st);
}

/// Applies what a handler behind the seam (`programs/`) says the command does (`kind`: the
/// program's row, when the table has it).
fn apply(w: &mut Walker, program: &str, kind: Option<Kind>, effects: programs::Effects, stdin: &Stdin, st: &mut State) {
    let lists = matches!(kind, Some(Kind::Lists));
    // Files it may write what it reads into (not those it makes, removes or changes the mode
    // of: `rm`, `touch`, `mkdir`, `chmod`).
    let carries = !matches!(kind, Some(Kind::Writes | Kind::ModeWrites | Kind::Lists));
    for effect in effects.0 {
        match effect {
            programs::Effect::Need { scope, perm, target, reason, pos } => {
                w.need(scope, perm, &target, program, reason, pos)
            }
            programs::Effect::Path { arg, perms, reason } if lists => w.path_listed(&arg, perms, program, reason, st),
            programs::Effect::Path { arg, perms, reason } => {
                if carries && perms.contains(&Perm::Write) {
                    w.note_written(&arg);
                }
                if perms.contains(&Perm::Write) && reason == programs::archives::EXTRACTS_INTO_DIR {
                    w.extracts_now = true;
                }
                w.path(&arg, perms, program, reason, st)
            }
            programs::Effect::Cwd { perms, reason, pos } => {
                if perms.contains(&Perm::Write) && reason == programs::archives::EXTRACTS_HERE {
                    w.extracts_now = true;
                }
                cwd_access(w, program, perms, reason, pos, st)
            }
            programs::Effect::Unresolved { text, pos } => w.unresolved(&text, pos),
            programs::Effect::Run { args, env, own_stdin } => {
                let env: Vec<(String, Field)> = env.iter().map(|(k, v)| (k.clone(), Field::literal(v))).collect();
                let input = if own_stdin { stdin.clone() } else { Stdin::Unknown };
                w.run_command(&args, &env, input, st, false)
            }
            programs::Effect::UnknownCode { what, pos, fetched } => w.unknown_code(&what, program, pos, fetched, st),
            programs::Effect::Code { words, nest } => run_string(w, program, &words, st, nest),
            programs::Effect::UnknownWrite => w.note_unknown_write(),
            programs::Effect::Links { dest, sources, symbolic } => record_links(w, &dest, &sources, symbolic, st),
            programs::Effect::Possibly(effects) => {
                w.possibly(|w| apply(w, program, kind, programs::Effects(effects), stdin, st))
            }
            programs::Effect::DownloadedTo { arg } => w.note_download_to(&arg, st),
            programs::Effect::Downloaded { path } => {
                // Where the walk cannot tell the directory, any file of its name may be it.
                match w.absolutes(&path, st) {
                    Some(paths) => {
                        for p in paths {
                            w.note_download(&p, st);
                        }
                    }
                    None if plain_word(&path) => {
                        let arg = Arg { field: Field::literal(&path), pos: super::Pos::default(), raw: path.clone() };
                        w.note_download_to(&arg, st)
                    }
                    None => {}
                }
            }
        }
    }
}

/// The text of a script a program reads (`sed -f`, `awk -f`), when the walk may read it.
fn script_text(w: &Walker, path: &str, st: &State) -> Option<String> {
    let abs = w.absolute(path, st)?;
    let bytes = super::asked::read(&abs, 1 << 20)?;
    String::from_utf8(bytes).ok()
}

fn cwd_access(w: &mut Walker, program: &str, perms: &[Perm], reason: &str, pos: super::Pos, st: &State) {
    match st.cwds() {
        Some(all) => {
            for cwd in all {
                w.classified(&cwd, perms, program, reason, pos);
            }
        }
        None => {
            w.unresolved("the current directory", pos);
            w.anywhere(".", perms, program, reason, pos);
        }
    }
}

/// `ln [-s] SOURCE… DEST`: later accesses through DEST land at the source.
fn record_links(w: &mut Walker, dest: &Arg, sources: &[Arg], symbolic: bool, st: &mut State) {
    let Some(dest_abs) = dest.known().and_then(|t| w.absolute(&t, st)) else { return };
    let into_dir = sources.len() > 1 || super::asked::is_dir(&dest_abs);
    for src in sources {
        let Some(text) = src.known() else { continue };
        let link = if into_dir {
            format!(
                "{}/{}",
                dest_abs.trim_end_matches('/'),
                text.trim_end_matches('/').rsplit('/').next().unwrap_or("")
            )
        } else {
            dest_abs.clone()
        };
        // A relative symbolic link is relative to the directory that holds it.
        let target = if symbolic && !text.starts_with('/') {
            let dir = dirname(&link);
            Some(crate::scope::normalize(&dir, &text))
        } else {
            w.absolute(&text, st)
        };
        if let Some(t) = target {
            w.record_link(&link, &t);
        }
        // A link to a file saved with fetched text runs that text (also where the destination
        // is a directory the program makes first).
        if w.names_saved_file(src, st) {
            w.note_download(&link, st);
            if !into_dir {
                let inside = format!(
                    "{}/{}",
                    dest_abs.trim_end_matches('/'),
                    text.trim_end_matches('/').rsplit('/').next().unwrap_or("")
                );
                w.note_download(&inside, st);
            }
        }
    }
}

/// `bash …` inside the program: its arguments are read exactly as the top level reads them.
fn shell(w: &mut Walker, program: &str, args: &[Arg], env: &[(String, Field)], stdin: &Stdin, st: &mut State) {
    let pos = args[0].pos;
    if args[1..].iter().any(|a| a.known().is_none())
        && !matches!(args.get(1).and_then(Arg::known).as_deref(), Some("-c") | Some("-lc") | Some("-ec"))
    {
        // An argument whose value is not known might be an option that changes everything.
        if args[1..]
            .iter()
            .take_while(|a| a.known().is_some())
            .all(|a| a.known().is_some_and(|t| t.starts_with('-') && !t.contains('c')))
        {
            // It may be a script file (`xargs bash`), unless `-n` reads it without running it.
            let reads_only =
                args[1..].iter().map_while(|a| a.known().filter(|t| t.starts_with('-'))).any(|t| is_no_exec_option(&t));
            for script in args[1..].iter().filter(|a| a.known().is_none()) {
                if !reads_only {
                    may_run_unnamed_download(w, script, program, st);
                }
            }
            w.unknown_code(
                &args[1..].iter().map(|a| a.raw.as_str()).collect::<Vec<_>>().join(" "),
                program,
                pos,
                args.iter().any(|a| a.field.tainted),
                st,
            );
            return;
        }
    }
    let texts: Vec<std::ffi::OsString> = args[1..].iter().map(|a| a.known().unwrap_or_default().into()).collect();
    let parsed = invocation::parse(std::ffi::OsStr::new(program), &texts, invocation::Tty::default());
    let inv = match parsed {
        invocation::Parsed::Run(inv) => inv,
        _ => return,
    };
    if inv.noexec {
        return;
    }
    // Where in `args` the pieces are: find the argument holding the command string.
    let lossy = |s: &std::ffi::OsString| s.to_string_lossy().into_owned();
    // The positional parameters are the last arguments, with their values as far as known.
    let tail_vals = |n: usize| -> Vec<Val> { args[args.len() - n..].iter().map(|a| field_val(&a.field)).collect() };
    match &inv.source {
        invocation::Source::Command { text, name, args: rest } => {
            let idx = texts.iter().position(|t| t == text).map(|i| i + 1).unwrap_or(1);
            let arg = &args[idx.min(args.len() - 1)];
            let arg0 = name.as_ref().map(lossy).unwrap_or_else(|| program.to_string());
            let positional = tail_vals(rest.len());
            match arg.known() {
                Some(code) if !arg.field.tainted => {
                    let mut inner = w.new_shell_state(st, arg0, positional, env);
                    run_startup(w, &inv, &mut inner);
                    let verbatim = !arg.raw.contains(['\\', '$'])
                        && arg.raw.len() == code.len() + 2
                        && (arg.raw.starts_with('\'') || arg.raw.starts_with('"'));
                    if verbatim {
                        let p = super::Pos { line: arg.pos.line, column: arg.pos.column + 1 };
                        w.run_verbatim(&code, p, &mut inner, Nest::NewShell);
                    } else {
                        w.run_decoded(&code, arg.pos, &mut inner, Nest::NewShell);
                    }
                }
                _ if arg.field.tainted => w.unknown_code(&arg.raw, program, arg.pos, true, st),
                _ => {
                    let (texts, open, placeholder) = code_variants(std::slice::from_ref(arg));
                    for code in texts {
                        let mut inner = w.new_shell_state(st, arg0.clone(), positional.clone(), env);
                        run_startup(w, &inv, &mut inner);
                        inner.set_var(PLACEHOLDER, None);
                        w.run_code_variant(&code, arg.pos, &mut inner, Nest::NewShell, placeholder);
                    }
                    if open {
                        w.unknown_code(&arg.raw, program, arg.pos, false, st);
                    }
                }
            }
        }
        invocation::Source::Script { path, args: rest } => {
            let idx = texts.iter().position(|t| t == path).map(|i| i + 1).unwrap_or(1);
            let mut arg = args[idx.min(args.len() - 1)].clone();
            // The script is the shell's own input (`bash /dev/stdin < f`).
            if reads_own_input(&arg) && w.stdin_fetched(stdin, st) {
                arg.field.tainted = true;
            }
            let positional = tail_vals(rest.len());
            run_script_file(w, program, &arg, positional, env, &inv, st);
        }
        invocation::Source::Stdin { .. } | invocation::Source::Interactive { .. } => match stdin {
            Stdin::Text(Some(code)) => {
                let mut inner = w.new_shell_state(st, program.to_string(), Vec::new(), env);
                run_startup(w, &inv, &mut inner);
                w.run_decoded(code, pos, &mut inner, Nest::NewShell);
            }
            Stdin::Fetched => w.unknown_code("code piped from the network", program, pos, true, st),
            Stdin::Empty => {}
            Stdin::File(p) => {
                let arg = Arg { field: Field::literal(p), pos, raw: p.clone() };
                run_script_file(w, program, &arg, Vec::new(), env, &inv, st);
            }
            _ => w.unknown_code("commands read from standard input", program, pos, false, st),
        },
    }
}

/// The start-up file a new shell started as `inv` reads before its program, walked in its
/// state `inner` (see [`invocation::Invocation::startup_file`]).
fn run_startup(w: &mut Walker, inv: &invocation::Invocation, inner: &mut State) {
    let value = {
        let lookup = |name: &str| match w.var_val(name, inner) {
            Val::Unset => None,
            // A value the walk cannot know expands to something it cannot know.
            v => Some(v.exact().unwrap_or_else(|| format!("${{{PLACEHOLDER}}}"))),
        };
        inv.startup_file(&lookup)
    };
    let Some(startup) = value else { return };
    let text = match startup {
        invocation::Startup::Expanded(v) => v,
        invocation::Startup::Literal(p) => super::walk::literal_startup(&p),
    };
    let had_placeholder = w.var_val(PLACEHOLDER, inner);
    inner.set_var(PLACEHOLDER, None);
    w.startup_file(&text, "bash", inner);
    inner.set_val(PLACEHOLDER, had_placeholder);
}

/// A shell running a script file: execute in the file's scope, and its text analysed.
fn run_script_file(
    w: &mut Walker,
    program: &str,
    arg: &Arg,
    positional: Vec<Val>,
    env: &[(String, Field)],
    inv: &invocation::Invocation,
    st: &mut State,
) {
    w.path(arg, &[Perm::Read, Perm::Execute], program, "runs a script", st);
    let tainted = arg.field.tainted;
    if let Some(text) = &arg.field.content {
        let mut inner = w.new_shell_state(st, arg.raw.clone(), positional, env);
        run_startup(w, inv, &mut inner);
        w.run_decoded(text, arg.pos, &mut inner, Nest::NewShell);
        return;
    }
    may_run_unnamed_download(w, arg, program, st);
    let Some(text) = arg.known() else {
        w.unknown_code(&arg.raw, program, arg.pos, tainted, st);
        return;
    };
    let Some(path) = find_script(w, &text, st) else {
        let downloaded = w.may_run_download(&text, st);
        w.unknown_code(&arg.raw, program, arg.pos, tainted || downloaded, st);
        return;
    };
    if tainted || w.downloaded_here(&path, true, st) {
        w.need(Scope::Network, Perm::Execute, &path, program, "runs a script downloaded from the network", arg.pos);
    } else if unnamed_download(w, st, &path) {
        w.need(Scope::Network, Perm::Execute, &path, program, UNNAMED_DOWNLOAD, arg.pos);
    }
    match w.read_code_file(&path) {
        Some(code) => {
            let mut inner = w.new_shell_state(st, text.clone(), positional, env);
            run_startup(w, inv, &mut inner);
            w.run_file(&path, &code, arg.pos, &mut inner, Nest::NewShell);
        }
        None => {
            let downloaded = w.downloaded_here(&path, false, st);
            w.unknown_code(&arg.raw, program, arg.pos, tainted || downloaded, st)
        }
    }
}

/// bash looks a script name without a slash up in the cwd, then on PATH.
fn find_script(w: &Walker, name: &str, st: &State) -> Option<String> {
    let local = w.absolute(name, st)?;
    if name.contains('/') || super::asked::is_file(&local) || w.downloaded_here(&local, true, st) {
        return Some(local);
    }
    let on_path = w.var_value("PATH", st).and_then(|path| {
        path.split(':')
            .filter(|d| !d.is_empty())
            .map(|d| format!("{}/{name}", d.trim_end_matches('/')))
            .find(|p| super::asked::is_file(p))
    });
    Some(on_path.unwrap_or(local))
}

/// Runs the words of a command as one string of shell code (`su -c`, `watch`, `sudo -s`).
pub(super) fn run_string(w: &mut Walker, program: &str, words: &[Arg], st: &mut State, nest: Nest) {
    if words.is_empty() {
        return;
    }
    let tainted = words.iter().any(|a| a.field.tainted);
    let (texts, open, placeholder) = code_variants(words);
    if tainted {
        w.unknown_code(&words[0].raw, program, words[0].pos, true, st);
        return;
    }
    for code in &texts {
        let mut inner = st.clone();
        inner.set_var(PLACEHOLDER, None);
        w.run_code_variant(code, words[0].pos, &mut inner, nest, placeholder);
        if nest == Nest::Same {
            *st = inner;
        }
    }
    if open {
        let raw: Vec<&str> = words.iter().map(|a| a.raw.as_str()).collect();
        w.unknown_code(&raw.join(" "), program, words[0].pos, false, st);
    }
}

/// A variable the analysis puts where a code string has text it cannot know.
pub const PLACEHOLDER: &str = "__sandbox_bash_unknown__";

/// The texts a code string made of `words` may have, whether it may also be something else,
/// and whether the texts stand in for unknown parts with a placeholder. Unknown parts become
/// an unknown variable, so the known commands around them are still seen (`sh -c 'rm {}'`
/// from xargs runs rm on something).
pub fn code_variants(words: &[Arg]) -> (Vec<String>, bool, bool) {
    let mut variants = vec![String::new()];
    let mut open = false;
    let mut placeholder = false;
    for (i, word) in words.iter().enumerate() {
        let sep = if i > 0 { " " } else { "" };
        let options: Vec<String> = match word.field.known() {
            Some(t) => vec![t],
            None => match word.field.alternatives() {
                Some((values, o)) if variants.len() * values.len() <= super::walk::MAX_CHOICES => {
                    open |= o;
                    values
                }
                _ => {
                    open = true;
                    placeholder = true;
                    let mut text = String::new();
                    for part in &word.field.parts {
                        match part {
                            Part::Lit { text: t, .. } => text.push_str(t),
                            Part::Break => text.push(' '),
                            _ => text.push_str(&format!("${{{PLACEHOLDER}}}")),
                        }
                    }
                    vec![text]
                }
            },
        };
        variants = variants.iter().flat_map(|v| options.iter().map(move |o| format!("{v}{sep}{o}"))).collect();
    }
    (variants, open, placeholder)
}

pub(super) fn code_string(w: &mut Walker, program: &str, arg: &Arg, st: &mut State, nest: Nest) {
    run_string(w, program, std::slice::from_ref(arg), st, nest);
}

/// `$(…)` forms whose output is fixed, so a word using them stays known.
pub fn static_output(text: &str, w: &mut Walker, st: &State) -> Option<String> {
    let code = text.trim();
    if code.len() > 64 * 1024 {
        return None;
    }
    if code == "pwd" || code == "pwd -P" || code == "pwd -L" || code == "builtin pwd" {
        return st.cwd.clone();
    }
    // Only a few commands have a fixed output; look no further for the others.
    let first = code.split(|c: char| c.is_whitespace() || c == ';' || c == '|').next().unwrap_or("");
    if !matches!(first, "echo" | "printf" | "dirname" | "basename" | "base64" | "command" | "which" | "type") {
        return None;
    }
    // The substitution's text as the walk parsed it (or will): one parse for both.
    let program = w.parse_cached(text).ok()?;
    let [list] = program.complete_commands.as_slice() else { return None };
    let [brush_parser::ast::CompoundListItem(and_or, _)] = list.0.as_slice() else { return None };
    if !and_or.additional.is_empty() {
        return None;
    }
    let simple_words = |cmd: &brush_parser::ast::Command, w: &mut Walker| -> Option<(Vec<String>, Option<String>)> {
        let brush_parser::ast::Command::Simple(s) = cmd else { return None };
        if s.prefix.is_some() {
            return None;
        }
        let mut words = vec![s.word_or_name.as_ref()?.value.clone()];
        let mut here_string = None;
        for item in s.suffix.iter().flat_map(|x| x.0.iter()) {
            match item {
                brush_parser::ast::CommandPrefixOrSuffixItem::Word(word) => words.push(word.value.clone()),
                brush_parser::ast::CommandPrefixOrSuffixItem::IoRedirect(
                    brush_parser::ast::IoRedirect::HereString(None, word),
                ) => {
                    here_string = Some(word.value.clone());
                }
                _ => return None,
            }
        }
        let mut scratch = st.clone();
        w.quiet_eval(|w| {
            let mut out = Vec::new();
            for word in &words {
                for a in w.expand_word(word, super::Pos::default(), &mut scratch) {
                    out.push(a.known()?);
                }
            }
            let hs = match &here_string {
                Some(h) => Some(w.expand_single(h, super::Pos::default(), &mut scratch).known()?),
                None => None,
            };
            Some((out, hs))
        })
    };
    let seq = &and_or.first.seq;
    match seq.as_slice() {
        [one] => {
            let (words, here) = simple_words(one, w)?;
            let args: Vec<&str> = words.iter().map(String::as_str).collect();
            match args.as_slice() {
                ["echo", rest @ ..] if rest.first().is_none_or(|f| !f.starts_with('-')) => Some(rest.join(" ")),
                ["printf", fmt, rest @ ..] => simple_printf(fmt, rest),
                ["dirname", p] => Some(dirname(p)),
                ["basename", p] => Some(p.trim_end_matches('/').rsplit('/').next().unwrap_or("").to_string()),
                ["base64", "-d" | "--decode"] => decode_base64(here.as_deref()?.trim_end()),
                // The program bash would run for a plain name (its path on `PATH`, or the name
                // of a builtin or function): run by that name, it is the same program.
                ["command", "-v", name] | ["which", name] | ["type", "-P", name] if is_program_name(name) => {
                    Some((*name).to_string())
                }
                _ => None,
            }
        }
        [first, second] => {
            let (producer, _) = simple_words(first, w)?;
            let (consumer, _) = simple_words(second, w)?;
            let data = match producer.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
                ["echo", rest @ ..] if rest.first().is_none_or(|f| !f.starts_with('-')) => rest.join(" "),
                ["printf", fmt, rest @ ..] => simple_printf(fmt, rest)?,
                _ => return None,
            };
            match consumer.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
                ["base64", "-d" | "--decode"] => decode_base64(&data),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A name `PATH` is searched for: no slash, no expansion, not an option.
fn is_program_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('-')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-'))
}

/// `printf FORMAT ARGS…` for formats made of text, `%s`, `%%` and backslash escapes; the format is
/// reused while arguments remain, as printf does. `None` for anything else.
fn simple_printf(fmt: &str, args: &[&str]) -> Option<String> {
    let mut out = String::new();
    let mut next = 0;
    loop {
        let mut used = false;
        let mut chars = fmt.chars();
        while let Some(c) = chars.next() {
            match c {
                '%' => match chars.next()? {
                    's' => {
                        out.push_str(args.get(next).copied().unwrap_or(""));
                        next += 1;
                        used = true;
                    }
                    '%' => out.push('%'),
                    _ => return None,
                },
                '\\' => match chars.next()? {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    '\\' => out.push('\\'),
                    _ => return None,
                },
                other => out.push(other),
            }
        }
        if !used || next >= args.len() {
            break;
        }
    }
    // A command substitution drops the trailing newlines.
    Some(out.trim_end_matches('\n').to_string())
}

fn decode_base64(s: &str) -> Option<String> {
    let mut out = Vec::new();
    let mut buf = 0u32;
    let mut bits = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' | b'\n' | b'\r' | b' ' => continue,
            _ => return None,
        };
        buf = (buf << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buf >> bits) as u8);
            buf &= (1 << bits) - 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A program run by a path that is not a system program directory.
pub fn run_path(w: &mut Walker, abs: &str, name: &str, args: &[Arg], st: &mut State) {
    let first = &args[0];
    if w.absent_program(abs) {
        // Probing for a program that is not there (`/usr/ucb/echo`): bash reports it and goes
        // on. Should it appear meanwhile, it runs under the same kernel rules.
        w.possibly_exec(|w| {
            w.classified(abs, &[Perm::Execute], name, "runs a program by its path, not there now", first.pos)
        });
    } else {
        w.classified(abs, &[Perm::Execute], name, "runs a program by its path", first.pos);
    }
    if first.field.tainted || w.downloaded_here(abs, true, st) {
        w.need(Scope::Network, Perm::Execute, abs, name, "runs a program downloaded from the network", first.pos);
    } else if unnamed_download(w, st, abs) {
        w.need(Scope::Network, Perm::Execute, abs, name, UNNAMED_DOWNLOAD, first.pos);
    }
    // A shell script run by path is read like `bash FILE`.
    if let Some(text) = w.read_code_file_if_shell(abs) {
        let positional: Vec<Val> = args[1..].iter().map(|a| field_val(&a.field)).collect();
        let mut inner = w.new_shell_state(st, name.to_string(), positional, &[]);
        w.run_file(abs, &text, first.pos, &mut inner, Nest::NewShell);
    }
    generic(w, name, args, st);
}

/// Whether `arg` names the reader's own standard input.
pub fn reads_own_input(arg: &Arg) -> bool {
    matches!(arg.known().as_deref(), Some("/dev/stdin" | "/proc/self/fd/0" | "/dev/fd/0"))
}

/// `source FILE`: the file is read, and its text runs in this shell.
pub fn source_file(w: &mut Walker, arg: &Arg, command: &str, st: &mut State, nest: Nest) {
    if let Some(text) = &arg.field.content {
        w.returning(st, |w, st| w.run_decoded(text, arg.pos, st, nest));
        return;
    }
    may_run_unnamed_download(w, arg, command, st);
    let Some(name) = arg.known() else {
        w.unknown_code(&arg.raw, command, arg.pos, arg.field.tainted, st);
        return;
    };
    if arg.field.tainted {
        w.unknown_code(&arg.raw, command, arg.pos, true, st);
        return;
    }
    if name.starts_with("/dev/fd/") || name.starts_with("/proc/self/fd/") || name == "/dev/stdin" {
        // (A descriptor opened on a file saved with fetched text runs that text.)
        let fetched = w.downloaded_here(&name, true, st);
        w.unknown_code(&arg.raw, command, arg.pos, fetched, st);
        return;
    }
    // Without a slash, bash looks on PATH first, then in the cwd.
    let path_dirs = w.var_value("PATH", st);
    let on_path_candidates: Vec<String> = match (&path_dirs, name.contains('/')) {
        (Some(p), false) => {
            p.split(':').filter(|d| !d.is_empty()).map(|d| format!("{}/{name}", d.trim_end_matches('/'))).collect()
        }
        _ => Vec::new(),
    };
    let path = if name.contains('/') {
        w.absolute(&name, st)
    } else {
        let on_path = on_path_candidates.iter().find(|c| super::asked::is_file(c)).cloned();
        on_path.or_else(|| w.absolute(&name, st))
    };
    let Some(path) = path else {
        let downloaded = w.may_run_download(&name, st);
        w.unknown_code(&arg.raw, command, arg.pos, downloaded, st);
        return;
    };
    w.classified(&path, &[Perm::Read], command, "reads a file to run it in this shell", arg.pos);
    if st.downloaded.contains(&path) {
        w.need(Scope::Network, Perm::Execute, &path, command, "runs a file downloaded from the network", arg.pos);
    } else if unnamed_download(w, st, &path) {
        w.need(Scope::Network, Perm::Execute, &path, command, UNNAMED_DOWNLOAD, arg.pos);
    }
    // A file that is not there runs nothing (bash reports it and goes on), when every place
    // bash would look is empty now and the program puts nothing there before.
    let searched_all = name.contains('/') || path_dirs.is_some();
    if searched_all && w.absent_code_file(&path) && on_path_candidates.iter().all(|c| w.absent_code_file(c)) {
        return;
    }
    match w.read_code_file(&path) {
        Some(text) => w.returning(st, |w, st| w.run_file(&path, &text, arg.pos, st, nest)),
        None => w.unknown_code(&arg.raw, command, arg.pos, false, st),
    }
}

/// `scp`/`rsync`: an operand `host:path` is remote.
#[cfg(test)]
mod tests {
    use super::programs::getopt;
    use super::*;

    #[test]
    fn getopt_reads_gnu_style() {
        let arg = |t: &str| Arg { field: Field::literal(t), pos: super::super::Pos::default(), raw: t.into() };
        let args: Vec<Arg> =
            ["-n", "5", "file", "-o", "out", "--output=x", "--", "-z"].iter().map(|t| arg(t)).collect();
        let p = getopt(&args, "no", &[], true);
        assert_eq!(p.operands.iter().map(|a| a.known().unwrap()).collect::<Vec<_>>(), ["file", "-z"]);
        assert_eq!(p.values(&["o", "output"]).iter().map(|a| a.known().unwrap()).collect::<Vec<_>>(), ["out", "x"]);
        let p = getopt(&[arg("-ofile")], "o", &[], true);
        assert_eq!(p.values(&["o"])[0].known().unwrap(), "file");
        let p = getopt(&[arg("a"), arg("-x")], "", &[], false);
        assert_eq!(p.operands.len(), 2);
    }

    #[test]
    fn lookup_handles_versions() {
        assert!(lookup("python3.11").is_some_and(|e| e.names.contains(&"python3")));
        assert!(lookup("mkfs.ext4").is_some_and(|e| matches!(e.kind, Kind::Admin)));
        assert!(lookup("pip3.12").is_some_and(|e| e.names.contains(&"pip3")));
        assert!(lookup("surely-not-a-command").is_none());
    }

    #[test]
    fn printf_formats() {
        assert_eq!(simple_printf("%s\\n", &["a", "b"]), Some("a\nb".into()));
        assert_eq!(simple_printf("%s", &["a", "b"]), Some("ab".into()));
        assert_eq!(simple_printf("x", &[]), Some("x".into()));
        assert_eq!(simple_printf("%d", &["1"]), None);
        assert_eq!(simple_printf("c%st", &["a"]), Some("cat".into()));
    }

    #[test]
    fn static_outputs() {
        assert_eq!(dirname("/a/b/c"), "/a/b");
        assert_eq!(dirname("c"), ".");
        assert_eq!(dirname("/c"), "/");
        assert_eq!(decode_base64("Y2F0IC9ldGMvaG9zdHM="), Some("cat /etc/hosts".into()));
    }
}
