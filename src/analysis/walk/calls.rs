//! Running a command: its name resolved (names with a few values, aliases, functions, programs
//! by path), the loader and mode variables it is given, and the hand-over to the command
//! knowledge (`commands.rs`).

use super::Walker;
use super::state::{State, Val, field_val};
use super::variables::LOADER_VARS;
use crate::analysis::asked;
use crate::analysis::commands;
use crate::analysis::programs::{Nest, Stdin};
use crate::analysis::word::{Arg, Field};
use crate::mode::{MODE_VAR, Perm, Scope};
use crate::scope;

/// Whether `word` is `NAME=VALUE`.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| crate::analysis::word::is_name(name))
}

/// The builtins POSIX calls special: in POSIX mode bash runs them before a function of the same
/// name.
const POSIX_SPECIAL_BUILTINS: &[&str] = &[
    "break", ":", ".", "continue", "eval", "exec", "exit", "export", "readonly", "return", "set", "shift", "times",
    "trap", "unset",
];

impl Walker<'_> {
    /// Analyses running `args` (name first) with extra environment `env`.
    pub fn run_command(&mut self, args: &[Arg], env: &[(String, Field)], stdin: Stdin, st: &mut State, direct: bool) {
        self.fetched_args |= args.iter().skip(1).any(|a| a.field.tainted);
        let Some(first) = args.first() else { return };
        // With `set -k` bash takes every `NAME=VALUE` word as an assignment for the command, not
        // an argument. Where that option may be on, both readings are walked.
        if self.keyword_args && direct {
            let (words, assigned): (Vec<&Arg>, Vec<&Arg>) =
                args[1..].iter().partition(|a| a.known().is_none_or(|t| !is_assignment(&t)));
            if !assigned.is_empty() {
                let moved_args: Vec<Arg> = std::iter::once(first).chain(words).cloned().collect();
                let mut moved_env = env.to_vec();
                for a in assigned {
                    let text = a.known().unwrap_or_default();
                    let (name, value) = text.split_once('=').unwrap_or((&text, ""));
                    moved_env.push((name.to_string(), Field::literal(value)));
                }
                let mut other = st.clone();
                self.keyword_args = false;
                self.run_command(&moved_args, &moved_env, stdin.clone(), &mut other, direct);
                self.run_command(args, env, stdin, st, direct);
                self.keyword_args = true;
                self.join(st, &other);
                return;
            }
        }
        let pos = first.pos;
        self.step();
        let name = match first.field.known() {
            Some(n) => n,
            None => {
                // A name with a few possible values: each of them may run.
                if let Some((values, open)) = first.field.alternatives() {
                    let before = st.clone();
                    let mut merged: Option<State> = None;
                    for value in values {
                        let mut words = value.split_whitespace();
                        let name = if first.field.splits_choices() {
                            words.next().unwrap_or("").to_string()
                        } else {
                            value.clone()
                        };
                        let mut alt: Vec<Arg> = vec![Arg {
                            field: Field { tainted: first.field.tainted, ..Field::literal(&name) },
                            pos,
                            raw: first.raw.clone(),
                        }];
                        if first.field.splits_choices() {
                            alt.extend(words.map(|w| Arg { field: Field::literal(w), pos, raw: first.raw.clone() }));
                        }
                        alt.extend(args[1..].iter().cloned());
                        let mut branch = before.clone();
                        self.run_command(&alt, env, stdin.clone(), &mut branch, direct);
                        match &mut merged {
                            None => merged = Some(branch),
                            Some(m) => self.join(m, &branch),
                        }
                    }
                    if let Some(m) = merged {
                        *st = m;
                    }
                    if !open {
                        return;
                    }
                }
                self.record_command(None, &first.raw, pos);
                // Whatever runs, the paths it is given are still paths.
                commands::generic(self, &first.raw, args, st);
                // A file saved with fetched text runs by its name once made executable; and a
                // program named only at run time may be an interpreter, given one whose name
                // says it is code.
                if self.downloads_executable {
                    commands::may_run_unnamed_download(self, first, &first.raw, st);
                }
                // (A word that names it: its known path, or the word that named the save; not
                // any word not known.)
                if let Some(saved) = args[1..]
                    .iter()
                    .filter_map(|a| {
                        self.saved_file_named_by(a, st)
                            .filter(|d| a.known().is_some() || matches!(d, crate::analysis::walk::Download::Word(_)))
                    })
                    .map(|d| d.need().0)
                    .find(|s| names_code(s))
                {
                    let reason = "runs a program named only at run time, which may be an interpreter, on this file the program saves fetched text to";
                    self.need(Scope::Network, Perm::Execute, &saved, &first.raw, reason, pos);
                }
                // Given fetched input and no word that may be a script or inline code (options
                // only, or `-`), it may be a shell or an interpreter that runs that input
                // (`curl … | $sh`, `curl … | $sh -s`). (`$py -c CODE`, `$jq .` read it as data.)
                if self.stdin_fetched(&stdin, st)
                    && args[1..].iter().all(|a| a.known().is_some_and(|t| t.starts_with('-')))
                {
                    let reason = "runs a program named only at run time, which may be a shell or an interpreter, on fetched input";
                    self.need(Scope::Network, Perm::Execute, &first.raw, &first.raw, reason, pos);
                }
                self.unknown_code(&first.raw, &first.raw, pos, first.field.tainted, st);
                return;
            }
        };
        self.record_command(Some(&name), &name, pos);
        if name.is_empty() {
            return;
        }
        if first.field.tainted {
            self.need(
                Scope::Network,
                Perm::Execute,
                &name,
                &name,
                "runs a command named by text fetched from the network",
                pos,
            );
        }
        if direct {
            self.expand_alias(&name, args, st);
        }
        for (var, value) in env {
            if var == MODE_VAR {
                self.mode_assignment(&field_val(value));
            }
            if LOADER_VARS.contains(&var.as_str()) {
                self.loader_assignment(var, &field_val(value), st);
            }
            if let Some(v) = value.known()
                && (var == "BASH_ENV" || var == "ENV")
            {
                // A new shell started by this command sources it first.
                let arg = Arg { field: Field::literal(&v), pos, raw: v.clone() };
                commands::source_file(self, &arg, &name, st, Nest::Subshell);
            }
        }
        let program = if name.contains('/') {
            match self.absolute(&name, st) {
                Some(abs) if self.in_program_dirs(&abs) => abs.rsplit('/').next().unwrap_or(&name).to_string(),
                Some(abs) => {
                    commands::run_path(self, &abs, &name, args, st);
                    return;
                }
                None => {
                    let downloaded = self.may_run_download(&name, st);
                    self.unknown_code(&first.raw, &name, pos, downloaded, st);
                    return;
                }
            }
        } else {
            name.clone()
        };
        // A function runs instead of any program of its name: its body, walked with these
        // arguments, is what the call does. (A program the table knows is analysed too: the
        // definition may not have run.)
        let defined = st.defined.contains(&name);
        // Assignments before a function's name are its variables while it runs; after it, bash
        // keeps or drops them depending on its mode: each is either.
        let function = direct && !name.contains('/') && self.function_by_name.contains_key(&name);
        // In POSIX mode bash finds a special builtin before a function of its name. The walk does
        // not follow the mode, so either may run: the builtin here, the function below.
        let builtin = (function && POSIX_SPECIAL_BUILTINS.contains(&name.as_str())).then(|| {
            let mut other = st.clone();
            commands::dispatch(self, &program, args, env, stdin.clone(), &mut other);
            other
        });
        // The arguments were split with the caller's `IFS`, before these assignments.
        let ifs = if function { self.exact_ifs(st) } else { None };
        let before: Vec<(String, Val)> = if function {
            env.iter()
                .map(|(var, value)| {
                    let old = self.var_val(var, st);
                    self.assign_val(var, field_val(value), st);
                    (var.clone(), old)
                })
                .collect()
        } else {
            Vec::new()
        };
        self.prefix_frames.push(before.clone());
        // The body's commands read what the call was given: where that is fetched text (`g <
        // FILE` of a file saved with some, `curl … | g`), they read fetched text. (Other input
        // is left to them as before. Asked without making a body walked on its own walk again
        // when a later one saves a file: nearly every call is given some input.)
        let caller_stdin = if function && self.without_asking(|w| w.stdin_fetched(&stdin, st)) {
            Some(std::mem::replace(&mut self.stdin_ctx, Stdin::Fetched))
        } else {
            None
        };
        let called = function && self.call_function(&name, args, ifs.as_deref(), st);
        if let Some(saved) = caller_stdin {
            self.stdin_ctx = saved;
        }
        self.prefix_frames.pop();
        for (var, old) in before {
            let now = self.var_val(&var, st);
            self.assign_val(&var, old.join(&now), st);
        }
        if called {
            // The program of that name runs only where the definition may not have run: what
            // it would do is possible there, and held where the kernel holds it.
            if !defined && commands::is_modelled(&program) && builtin.is_none() {
                self.possibly(|w| commands::dispatch(w, &program, args, env, stdin, st));
            }
            if let Some(other) = builtin {
                self.join(st, &other);
            }
            return;
        }
        commands::dispatch(self, &program, args, env, stdin, st);
    }

    fn in_program_dirs(&self, abs: &str) -> bool {
        // Anything under the program roots (the dynamic loader in /lib64, /usr/lib/git-core/…)
        // runs as if named: the baseline lets every mode run it, and its name says what it does.
        if self.ctx.self_exe.as_deref() == Some(abs) || crate::baseline::in_program_roots(abs) {
            return true;
        }
        // sandbox-bash through a link (one named `bash` put first on PATH) is sandbox-bash.
        if let Some(me) = self.ctx.self_exe.as_deref()
            && asked::status(abs, false) == Ok(asked::Kind::Link)
            && asked::canonical(abs).is_some_and(|real| real == me)
        {
            return true;
        }
        let dir = match abs.rfind('/') {
            Some(0) => "/",
            Some(i) => &abs[..i],
            None => return false,
        };
        let layout = &self.ctx.layout;
        if scope::is_within(dir, &layout.workspace) || layout.is_credential(abs) {
            return false;
        }
        self.ctx.program_dirs.iter().any(|d| d == dir)
    }
}

/// Whether a file's name says it is code an interpreter runs: a script's suffix, or none.
fn names_code(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.') {
        None => true,
        Some((_, ext)) => matches!(
            ext,
            "sh" | "bash"
                | "zsh"
                | "ksh"
                | "dash"
                | "py"
                | "pl"
                | "pm"
                | "rb"
                | "js"
                | "mjs"
                | "cjs"
                | "ts"
                | "php"
                | "lua"
                | "tcl"
                | "r"
                | "R"
                | "jl"
                | "ps1"
                | "awk"
                | "sed"
                | "exp"
        ),
    }
}
