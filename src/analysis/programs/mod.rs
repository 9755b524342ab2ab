//! Command knowledge behind a seam: a handler sees a [`Call`] (the program, where it is, its
//! arguments, the option grammar of its table row, whether its input is a file, the values of
//! variables) and returns [`Effects`] (the bits it needs, the paths it touches, what it runs and
//! leaves behind) for the walk to apply. A handler reads only what the call gives it and cannot
//! change the walk's state, so it can be tested on its own, with arguments written by hand.
//! The words both sides of the seam use are here too: where a command's input comes from
//! ([`Stdin`]), how nested code runs ([`Nest`]), and quoting a word back into code
//! ([`shell_quote`]).
//!
//! The programs are grouped by family, one file each: `network.rs` (curl, wget, aria2c, scp,
//! rsync, ssh, nc, socat), `archives.rs` (tar, unzip, zip, 7z), `files.rs` (dd, patch, sort,
//! uniq, mktemp), `find.rs`, `git.rs`, `text.rs` (sed, awk, split), `admin.rs` (sysctl, ip,
//! systemctl), `packages.rs` (apt and its kin, dpkg, rpm), `services.rs` (gh, kubectl and their
//! kin), `build.rs` (build tools and language package managers), `interpreters.rs`, `wrappers.rs` (nice, env,
//! xargs, sudo, … : programs that run a command they are given).

pub mod admin;
pub mod archives;
pub mod build;
pub mod files;
pub mod find;
pub mod generic;
pub mod git;
pub mod interpreters;
pub mod network;
pub mod packages;
pub mod services;
pub mod text;
pub mod wrappers;

use super::Pos;
use super::word::{Arg, Field, Part};
use crate::mode::{Perm, Scope};

/// What the table row of a program behind the seam names.
pub type Handler = fn(&Call) -> Effects;

/// One command as a handler sees it.
#[derive(Clone, Copy)]
pub struct Call<'a> {
    pub program: &'a str,
    /// Where the command's name is.
    pub pos: Pos,
    /// The arguments after the name, expanded.
    pub args: &'a [Arg],
    /// The table row's grammar: one-letter options that take a value, and long ones.
    pub short_args: &'a str,
    pub long_args: &'a [&'a str],
    /// Where its standard input comes from.
    pub stdin: &'a Stdin,
    /// Whether the program downloaded this file (an absolute path) earlier.
    pub downloaded: &'a dyn Fn(&str) -> bool,
    /// A file saved with fetched text that the file this word names may be, where the name is
    /// not known whole (see `Walker::download_named_by`).
    pub download_named_by: &'a dyn Fn(&Arg) -> Option<crate::analysis::walk::Download>,
    /// The value a variable has where the command runs, when the walk knows it (`TMPDIR`).
    pub var: &'a dyn Fn(&str) -> Option<String>,
    /// The text of a file it reads as its own program (`sed -f FILE`), when the walk may read
    /// it.
    pub read: &'a dyn Fn(&str) -> Option<String>,
    /// The directory it runs in, when the walk knows it.
    pub cwd: Option<&'a str>,
}

impl Call<'_> {
    /// The arguments read with the row's grammar, GNU-style (options may follow operands).
    pub fn options(&self) -> Args {
        getopt(self.args, self.short_args, self.long_args, true)
    }

    /// Whether its standard input is fetched text: a pipe from a fetch, or a file the program
    /// downloaded earlier.
    pub fn input_fetched(&self) -> bool {
        match self.stdin {
            Stdin::Fetched => true,
            Stdin::File(p) => (self.downloaded)(p),
            _ => false,
        }
    }

    /// The arguments read with the row's grammar, options only before the first operand (what
    /// follows it is the program's own: `ssh host ls -l`).
    pub fn options_first(&self) -> Args {
        getopt(self.args, self.short_args, self.long_args, false)
    }

    /// The absolute, normal form of `path` where the command runs, when it can be known.
    pub fn absolute(&self, path: &str) -> Option<String> {
        let base = if path.starts_with('/') { "/" } else { self.cwd? };
        Some(crate::scope::normalize(base, path))
    }
}

/// Where a command's standard input comes from, as far as it matters for running code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stdin {
    /// Inherited or unknown.
    Unknown,
    /// A pipe whose writer fetched from the network.
    Fetched,
    /// A here-document or here-string with this text, when known.
    Text(Option<String>),
    /// A file redirection.
    File(String),
    /// `/dev/null` or closed.
    Empty,
}

/// What a nested text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nest {
    /// Runs in this shell (`eval`, `source`, alias text).
    Same,
    /// Runs in a subshell (`$(…)`, `( … )`): changes do not leak.
    Subshell,
    /// Runs in a new bash process (`bash -c`): it sees only exported variables.
    NewShell,
}

/// What a command does, for the walk to apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// A bit of the mode, for a target that is not a path of the program's (a host, a URL).
    Need { scope: Scope, perm: Perm, target: String, reason: &'static str, pos: Pos },
    /// The path an argument names, used with these permissions.
    Path { arg: Arg, perms: &'static [Perm], reason: &'static str },
    /// The directory the command runs in, used with these permissions.
    Cwd { perms: &'static [Perm], reason: &'static str, pos: Pos },
    /// A word the analysis cannot know.
    Unresolved { text: String, pos: Pos },
    /// Code the analysis cannot see runs here (a program named only at run time): workspace
    /// execute, and afterwards the walk knows nothing of variables or the cwd.
    /// `fetched`: the code came from the network.
    UnknownCode { what: String, pos: Pos, fetched: bool },
    /// A command it runs (`find -exec`, `nice CMD`), walked as if it were in the program, with
    /// these variables set, and with the wrapper's own standard input or another.
    Run { args: Vec<Arg>, env: Vec<(String, String)>, own_stdin: bool },
    /// Shell code it runs (`split --filter=CODE`, `watch WORDS…`: the words joined by spaces),
    /// analysed as nested in this way.
    Code { words: Vec<Arg>, nest: Nest },
    /// It writes files the analysis cannot name (`awk` printing to a computed file).
    UnknownWrite,
    /// Links it creates (`ln [-s] SOURCE… DEST`): later accesses through them land at the
    /// sources.
    Links { dest: Arg, sources: Vec<Arg>, symbolic: bool },
    /// Effects that may or may not happen (the arguments of a script, which it may open):
    /// their accesses are only possible.
    Possibly(Vec<Effect>),
    /// A file the command downloads (relative to where it runs): running it later runs fetched
    /// code.
    Downloaded { path: String },
    /// It saves what it fetched to the file a word names that the walk cannot read whole
    /// (`curl -o "$tmp"`).
    DownloadedTo { arg: Arg },
}

/// The effects of one call, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effects(pub Vec<Effect>);

impl Effects {
    pub fn need(&mut self, scope: Scope, perm: Perm, target: &str, reason: &'static str, pos: Pos) {
        self.0.push(Effect::Need { scope, perm, target: target.to_string(), reason, pos });
    }

    pub fn path(&mut self, arg: &Arg, perms: &'static [Perm], reason: &'static str) {
        self.0.push(Effect::Path { arg: arg.clone(), perms, reason });
    }

    pub fn cwd(&mut self, perms: &'static [Perm], reason: &'static str, pos: Pos) {
        self.0.push(Effect::Cwd { perms, reason, pos });
    }

    pub fn unresolved(&mut self, arg: &Arg) {
        self.unresolved_text(&arg.raw, arg.pos);
    }

    /// Something the analysis cannot know, said in words (`the repository directory`).
    pub fn unresolved_text(&mut self, text: &str, pos: Pos) {
        self.0.push(Effect::Unresolved { text: text.to_string(), pos });
    }

    pub fn unknown_code(&mut self, what: &str, pos: Pos) {
        self.unknown_code_from(what, pos, false);
    }

    pub fn unknown_code_from(&mut self, what: &str, pos: Pos, fetched: bool) {
        self.0.push(Effect::UnknownCode { what: what.to_string(), pos, fetched });
    }

    /// A command that gets other input than the program's (`find -exec`, `xargs CMD`).
    pub fn run(&mut self, args: Vec<Arg>) {
        if !args.is_empty() {
            self.0.push(Effect::Run { args, env: Vec::new(), own_stdin: false });
        }
    }

    /// A command run with `env` set, reading the wrapper's own input when `own_stdin`.
    pub fn run_with(&mut self, args: Vec<Arg>, env: Vec<(String, String)>, own_stdin: bool) {
        if !args.is_empty() {
            self.0.push(Effect::Run { args, env, own_stdin });
        }
    }

    pub fn code(&mut self, words: Vec<Arg>, nest: Nest) {
        if !words.is_empty() {
            self.0.push(Effect::Code { words, nest });
        }
    }

    pub fn links(&mut self, dest: Arg, sources: Vec<Arg>, symbolic: bool) {
        self.0.push(Effect::Links { dest, sources, symbolic });
    }

    pub fn possibly(&mut self, effects: Effects) {
        if !effects.0.is_empty() {
            self.0.push(Effect::Possibly(effects.0));
        }
    }

    pub fn unknown_write(&mut self) {
        self.0.push(Effect::UnknownWrite);
    }

    pub fn downloaded_to(&mut self, arg: &Arg) {
        self.0.push(Effect::DownloadedTo { arg: arg.clone() });
    }

    pub fn downloaded(&mut self, path: &str) {
        self.0.push(Effect::Downloaded { path: path.to_string() });
    }
}

/// An option and its value, if it takes one.
#[derive(Clone, Debug)]
pub struct Opt {
    /// `x` for `-x`, `long` for `--long`.
    pub name: String,
    pub value: Option<Arg>,
}

/// Options and operands of a command, read GNU-style.
#[derive(Clone, Debug)]
pub struct Args {
    pub opts: Vec<Opt>,
    pub operands: Vec<Arg>,
}

impl Args {
    pub fn has(&self, names: &[&str]) -> bool {
        self.opts.iter().any(|o| names.contains(&o.name.as_str()))
    }

    pub fn values(&self, names: &[&str]) -> Vec<Arg> {
        self.opts.iter().filter(|o| names.contains(&o.name.as_str())).filter_map(|o| o.value.clone()).collect()
    }
}

/// A word the handler makes itself (a path inside a directory it was given), at `pos`.
pub fn literal(text: &str, pos: Pos) -> Arg {
    Arg { field: Field::literal(text), pos, raw: text.to_string() }
}

pub fn sub_arg(orig: &Arg, text: &str) -> Arg {
    let field = if orig.field.known().is_some() {
        Field {
            parts: vec![Part::Lit { text: text.to_string(), quoted: !orig.field.has_glob(), split: false }],
            tainted: orig.field.tainted,
            content: None,
        }
    } else {
        Field { parts: vec![Part::Unknown { numeric: false }], tainted: orig.field.tainted, content: None }
    };
    Arg { field, pos: orig.pos, raw: text.to_string() }
}

/// Splits arguments into options and operands. `short_args` are the one-letter options that
/// take a value; `long_args` the long ones. With `permute`, options may follow operands
/// (GNU); otherwise the first operand ends the options.
pub fn getopt(args: &[Arg], short_args: &str, long_args: &[&str], permute: bool) -> Args {
    let mut out = Args { opts: Vec::new(), operands: Vec::new() };
    let mut i = 0;
    let mut only_operands = false;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let Some(text) = arg.known() else {
            out.operands.push(arg.clone());
            continue;
        };
        if only_operands || text == "-" || !text.starts_with('-') {
            out.operands.push(arg.clone());
            if !permute {
                only_operands = true;
            }
            continue;
        }
        if text == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            match long.split_once('=') {
                Some((name, value)) => out.opts.push(Opt { name: name.to_string(), value: Some(sub_arg(arg, value)) }),
                None => {
                    let value = if long_args.contains(&long) && i < args.len() {
                        i += 1;
                        Some(args[i - 1].clone())
                    } else {
                        None
                    };
                    out.opts.push(Opt { name: long.to_string(), value });
                }
            }
            continue;
        }
        let chars: Vec<char> = text[1..].chars().collect();
        let mut j = 0;
        while j < chars.len() {
            let c = chars[j];
            j += 1;
            if short_args.contains(c) {
                let rest: String = chars[j..].iter().collect();
                let value = if !rest.is_empty() {
                    Some(sub_arg(arg, &rest))
                } else if i < args.len() {
                    i += 1;
                    Some(args[i - 1].clone())
                } else {
                    None
                };
                out.opts.push(Opt { name: c.to_string(), value });
                break;
            }
            out.opts.push(Opt { name: c.to_string(), value: None });
        }
    }
    out
}

/// The directory part of a path, as dirname(1) gives it.
pub fn dirname(p: &str) -> String {
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        return if p.starts_with('/') { "/".into() } else { ".".into() };
    }
    match t.rfind('/') {
        None => ".".into(),
        Some(0) => "/".into(),
        Some(i) => t[..i].trim_end_matches('/').to_string(),
    }
}

pub fn is_url(s: &str) -> bool {
    s.contains("://")
}

/// Quotes a word so that re-parsing yields exactly it.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The effects of `line` (words one space apart; a no-break space is a space inside a word;
/// from a `$` on, a word is unknown) through its table row: the row's handler, read with the
/// row's grammar, run in `/w`.
#[cfg(test)]
pub fn effects_of(line: &str) -> Vec<Effect> {
    effects_with(line, &|_| None)
}

/// [`effects_of`] with the variables `var` knows.
#[cfg(test)]
pub fn effects_with(line: &str, var: &dyn Fn(&str) -> Option<String>) -> Vec<Effect> {
    let mut words = Vec::new();
    let mut column = 1;
    for w in line.split(' ') {
        let text = w.replace('\u{a0}', " ");
        let pos = Pos { line: 1, column };
        words.push(match text.split_once('$') {
            None => literal(&text, pos),
            Some((start, _)) => {
                let parts = vec![
                    Part::Lit { text: start.to_string(), quoted: true, split: false },
                    Part::Unknown { numeric: false },
                ];
                Arg { field: Field { parts, tainted: false, content: None }, pos, raw: text.clone() }
            }
        });
        column += w.chars().count() + 1;
    }
    let entry = super::table::lookup(&words[0].raw).expect("a program of the table");

    let no_vars = |_: &str| None;
    let call = Call {
        program: &words[0].raw,
        pos: words[0].pos,
        args: &words[1..],
        short_args: entry.short_args,
        long_args: entry.long_args,
        stdin: &Stdin::Unknown,
        downloaded: &|_| false,
        download_named_by: &|_| None,
        var,
        read: &no_vars,
        cwd: Some("/w"),
    };
    match entry.kind {
        super::table::Kind::Program(handle) => handle(&call).0,
        super::table::Kind::Shell | super::table::Kind::Builtin(_) => panic!("{} is the shell's own", words[0].raw),
        kind => generic::handle(kind, &call).0,
    }
}

/// The paths among `effects` (their known text, or as written), with their permissions.
#[cfg(test)]
pub fn paths_in(effects: &[Effect]) -> Vec<(String, &'static [Perm])> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Path { arg, perms, .. } => Some((arg.known().unwrap_or_else(|| arg.raw.clone()), *perms)),
            _ => None,
        })
        .collect()
}

/// The paths `line` touches (see [`effects_of`]).
#[cfg(test)]
pub fn paths_of(line: &str) -> Vec<(String, &'static [Perm])> {
    paths_in(&effects_of(line))
}

/// Asserts that no name is in two lines of a table of `what`.
#[cfg(test)]
pub fn assert_once<'a>(what: &str, lines: impl IntoIterator<Item = &'a [&'a str]>) {
    let mut seen = std::collections::BTreeSet::new();
    for names in lines {
        for n in names {
            assert!(seen.insert(*n), "{n} is in two lines of the {what} table");
        }
    }
}

/// The bits a list of effects needs, with their targets, in order.
#[cfg(test)]
pub fn needs_in(effects: &[Effect]) -> Vec<(Scope, Perm, String)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Need { scope, perm, target, .. } => Some((*scope, *perm, target.clone())),
            _ => None,
        })
        .collect()
}

/// The bits `line` needs (see [`effects_of`]), with their targets.
#[cfg(test)]
pub fn needs_of(line: &str) -> Vec<(Scope, Perm, String)> {
    needs_in(&effects_of(line))
}

/// The bits `line` needs, without their targets.
#[cfg(test)]
pub fn bits_of(line: &str) -> Vec<(Scope, Perm)> {
    needs_of(line).into_iter().map(|(s, p, _)| (s, p)).collect()
}
