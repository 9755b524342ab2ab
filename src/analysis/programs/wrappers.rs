//! Programs that run another command given as their arguments: `nice`, `timeout`, `env`,
//! `xargs`, `flock`, `watch`, `chroot`, `time`, `script`, and those that run it as another
//! user (`sudo`, `su`). Each row of the table names the handler for its grammar; the command
//! they run is walked as if it were in the program.

use super::{Call, Effects, Nest, literal, sub_arg};
use crate::analysis::word::{Arg, Field, Part, is_name};
use crate::mode::{Perm, Scope};

/// Tracers and profilers that write their report to the file of `-o` or `--log-file`.
const REPORTS_TO_FILE: &[&str] = &["strace", "ltrace", "valgrind", "perf", "numactl"];

/// Wrappers that change namespaces or privileges before they run the command.
const CHANGES_PRIVILEGES: &[&str] = &["nsenter", "unshare", "setpriv"];

/// `nice [OPTION]… COMMAND…`: options from the row, then the command.
pub fn options(call: &Call) -> Effects {
    let mut out = Effects::default();
    let parsed = call.options_first();
    let mut inner = parsed.operands;
    if REPORTS_TO_FILE.contains(&call.program) {
        for v in parsed.opts.iter().filter(|o| matches!(o.name.as_str(), "o" | "output" | "log-file")) {
            if let Some(v) = &v.value {
                out.path(v, &[Perm::Write], "writes its report to a file");
            }
        }
    }
    if CHANGES_PRIVILEGES.contains(&call.program) {
        out.need(Scope::System, Perm::Execute, call.program, "changes namespaces or privileges", call.pos);
    }
    // `perf record|stat|trace COMMAND…`.
    if call.program == "perf" && !inner.is_empty() {
        inner.remove(0);
    }
    out.run_with(inner, Vec::new(), true);
    out
}

/// Version managers (`pyenv exec python3 -c CODE`, `asdf exec`, `mise exec python@3 --
/// python …`): the command after `exec` (after `--` when there is one) is walked as if named
/// directly, so that an interpreter's inline program is code, not a path. Their other
/// subcommands are the manager's own code, whose words may be paths it reads.
pub fn version_manager(call: &Call) -> Effects {
    let Some(sub) = call.args.first().and_then(Arg::known) else { return super::generic::unknown(call) };
    if !matches!(sub.as_str(), "exec" | "x") {
        let mut out = super::generic::unknown(call);
        out.need(Scope::Workspace, Perm::Execute, call.program, "runs a version manager's own code", call.pos);
        return out;
    }
    let rest = &call.args[1..];
    let inner = match rest.iter().position(|a| a.known().as_deref() == Some("--")) {
        Some(i) => rest[i + 1..].to_vec(),
        None => rest.to_vec(),
    };
    let mut out = Effects::default();
    out.run_with(inner, Vec::new(), true);
    out
}

/// `timeout [OPTION]… DURATION COMMAND…`: one operand (a duration, priority, mask, user)
/// before the command.
pub fn one_operand(call: &Call) -> Effects {
    let mut out = Effects::default();
    let inner = call.options_first().operands;
    out.run_with(inner.into_iter().skip(1).collect(), Vec::new(), true);
    out
}

/// `chroot [OPTION]… DIR COMMAND…`: system execute, the directory read, then the command.
pub fn chroot(call: &Call) -> Effects {
    let mut out = Effects::default();
    let mut inner = call.options_first().operands.into_iter();
    if let Some(dir) = inner.next() {
        out.need(Scope::System, Perm::Execute, call.program, "changes the root directory (needs root)", call.pos);
        out.path(&dir, &[Perm::Read], "uses a directory as the new root");
    }
    out.run_with(inner.collect(), Vec::new(), true);
    out
}

/// `/usr/bin/time [-o FILE] COMMAND…`.
pub fn time(call: &Call) -> Effects {
    let mut out = Effects::default();
    let parsed = call.options_first();
    for v in parsed.values(&["o", "output"]) {
        out.path(&v, &[Perm::Write], "writes its report to a file");
    }
    out.run_with(parsed.operands, Vec::new(), true);
    out
}

/// `env [-i] [-u NAME] [-C DIR] [NAME=VALUE]… [-S STRING | COMMAND…]`.
pub fn env(call: &Call) -> Effects {
    let mut out = Effects::default();
    let rest = call.args;
    let mut i = 0;
    let mut env: Vec<(String, String)> = Vec::new();
    while i < rest.len() {
        let Some(t) = rest[i].known() else {
            // `NAME="$v"`: an assignment whose value is not known, by its written form.
            if let Some((k, _)) = rest[i].raw.split_once('=')
                && is_name(k)
            {
                i += 1;
                continue;
            }
            break;
        };
        if t == "--" {
            i += 1;
            break;
        }
        if t.starts_with('-') && t != "-" {
            if t == "-S" || t == "--split-string" || t.starts_with("-S") || t.starts_with("--split-string=") {
                // The rest is one string, split into words and run.
                let split = if t == "-S" || t == "--split-string" {
                    rest.get(i + 1).cloned()
                } else {
                    Some(sub_arg(&rest[i], t.trim_start_matches("--split-string=").trim_start_matches("-S")))
                };
                if let Some(s) = split {
                    let after: Vec<String> = rest[(i + 2).min(rest.len())..]
                        .iter()
                        .map(|a| super::shell_quote(&a.known().unwrap_or_default()))
                        .collect();
                    match s.known() {
                        Some(code) => {
                            let joined = if after.is_empty() { code } else { format!("{code} {}", after.join(" ")) };
                            out.code(vec![literal(&joined, s.pos)], Nest::NewShell);
                        }
                        None => out.unknown_code_from(&s.raw, s.pos, s.field.tainted),
                    }
                }
                return out;
            }
            if (t == "-C" || t == "--chdir")
                && let Some(d) = rest.get(i + 1)
            {
                out.path(d, &[Perm::Read], "changes into a directory");
            }
            let takes_value = matches!(t.as_str(), "-u" | "--unset" | "-C" | "--chdir");
            i += if takes_value { 2 } else { 1 };
            continue;
        }
        if let Some((k, v)) = t.split_once('=')
            && is_name(k)
        {
            env.push((k.to_string(), v.to_string()));
            i += 1;
            continue;
        }
        break;
    }
    out.run_with(rest.get(i..).unwrap_or(&[]).to_vec(), env, true);
    out
}

/// `xargs [OPTION]… [COMMAND…]`: the command (echo by default) gets more arguments from
/// standard input; with `-I R`, each `R` in its words is a line of input.
pub fn xargs(call: &Call) -> Effects {
    let mut out = Effects::default();
    let pos = call.pos;
    let parsed = call.options_first();
    let arg_files = parsed.values(&["a", "arg-file"]);
    for f in &arg_files {
        out.path(f, &[Perm::Read], "reads arguments from a file");
    }
    // Arguments read from fetched text are fetched text (`curl … | xargs sh -c`).
    let saved = |a: &Arg| a.known().and_then(|t| call.absolute(&t).or(Some(t))).is_some_and(|p| (call.downloaded)(&p));
    let fetched = match &arg_files[..] {
        [] => call.input_fetched(),
        files => files.iter().any(saved),
    };
    let replace = parsed.values(&["I", "i", "replace"]).first().and_then(Arg::known);
    let mut inner: Vec<Arg> = parsed.operands;
    if inner.is_empty() {
        inner.push(literal("echo", pos));
    }
    match replace {
        Some(r) if !r.is_empty() => {
            for a in inner.iter_mut().skip(1) {
                if let Some(t) = a.known().filter(|t| t.contains(&r)) {
                    let mut parts = Vec::new();
                    for (i, piece) in t.split(r.as_str()).enumerate() {
                        if i > 0 {
                            parts.push(Part::Unknown { numeric: false });
                        }
                        parts.push(Part::Lit { text: piece.to_string(), quoted: true, split: false });
                    }
                    a.field = Field { parts, tainted: fetched, ..Field::default() };
                }
            }
        }
        _ => {
            let mut field = Field::unknown();
            field.tainted = fetched;
            inner.push(Arg { field, pos, raw: "(arguments read from standard input)".into() })
        }
    }
    out.run(inner);
    out
}

/// `flock [OPTION]… FILE|FD (-c STRING | COMMAND…)`.
pub fn flock(call: &Call) -> Effects {
    let mut out = Effects::default();
    let rest = call.args;
    let mut i = 0;
    while i < rest.len() {
        match rest[i].known() {
            Some(t) if t == "-w" || t == "--timeout" || t == "-E" || t == "--conflict-exit-code" => i += 2,
            Some(t) if t.starts_with('-') && t != "-c" && t != "--command" => i += 1,
            _ => break,
        }
    }
    let Some(lock) = rest.get(i) else { return out };
    if lock.known().is_some_and(|t| !t.bytes().all(|b| b.is_ascii_digit())) {
        out.path(lock, &[Perm::Write], "creates or opens a lock file");
    }
    let after = &rest[i + 1..];
    match after.first().and_then(Arg::known).as_deref() {
        Some("-c" | "--command") => {
            if let Some(c) = after.get(1) {
                out.code(vec![c.clone()], Nest::NewShell);
            }
        }
        _ => out.run_with(after.to_vec(), Vec::new(), true),
    }
    out
}

/// `watch [OPTION]… COMMAND…`: the words are joined and run by `sh -c`.
pub fn watch(call: &Call) -> Effects {
    let mut out = Effects::default();
    out.code(call.options_first().operands, Nest::NewShell);
    out
}

/// `script [-c COMMAND] [FILE]`: the typescript is written to FILE or `./typescript`.
pub fn script(call: &Call) -> Effects {
    let mut out = Effects::default();
    let parsed = call.options();
    let commands = parsed.values(&["c", "command"]);
    for c in &commands {
        out.code(vec![c.clone()], Nest::NewShell);
    }
    match parsed.operands.first() {
        Some(f) => out.path(f, &[Perm::Write], "writes a typescript file"),
        None => out.cwd(&[Perm::Write], "writes ./typescript", call.pos),
    }
    if commands.is_empty() {
        out.unknown_code("an interactive shell", call.pos);
    }
    out
}

/// `sudo [OPTION]… COMMAND…`, `sudo -s|-i [COMMAND]`: system execute, then the command.
pub fn privilege(call: &Call) -> Effects {
    let mut out = Effects::default();
    let pos = call.pos;
    out.need(Scope::System, Perm::Execute, call.program, "runs a command with another user's privileges", pos);
    let parsed = call.options_first();
    let shell = parsed.has(&["s", "shell"]);
    if (shell || parsed.has(&["i", "login"])) && parsed.operands.is_empty() {
        out.unknown_code("an interactive root shell", pos);
    } else if shell {
        out.code(parsed.operands, Nest::NewShell);
    } else {
        out.run_with(parsed.operands, Vec::new(), true);
    }
    out
}

/// `su [OPTION]… [-c STRING] [USER]`: system execute, then its `-c` string, or a shell.
pub fn switch_user(call: &Call) -> Effects {
    let mut out = Effects::default();
    let pos = call.pos;
    out.need(Scope::System, Perm::Execute, call.program, "switches to another user", pos);
    let commands = call.options().values(&["c", "command"]);
    if commands.is_empty() {
        out.unknown_code("an interactive shell as another user", pos);
    }
    for c in commands {
        out.code(vec![c], Nest::NewShell);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{Effect, Nest, effects_of};
    use crate::mode::{Perm, Scope};

    /// The words of the command a wrapper runs, its environment, and whether it passes its
    /// input on.
    type Runs = (Vec<String>, Vec<(String, String)>, bool);

    fn runs(line: &str) -> Option<Runs> {
        effects_of(line).into_iter().find_map(|e| match e {
            Effect::Run { args, env, own_stdin } => Some((args.into_iter().map(|a| a.raw).collect(), env, own_stdin)),
            _ => None,
        })
    }

    fn words(line: &str) -> Vec<String> {
        runs(line).map(|r| r.0).unwrap_or_default()
    }

    #[test]
    fn options_and_one_operand_find_the_command() {
        assert_eq!(words("nice -n 10 cat /etc/x"), ["cat", "/etc/x"]);
        assert_eq!(words("timeout -s KILL 5s ls -l"), ["ls", "-l"]);
        assert_eq!(words("perf record make"), ["make"]);
        assert_eq!(words("gosu bob id"), ["id"]);
        assert!(runs("nohup ls").is_some_and(|r| r.2), "a wrapper passes its input on");
    }

    #[test]
    fn reports_and_roots_are_paths() {
        let e = effects_of("strace -o trace.txt ls");
        assert!(matches!(&e[0], Effect::Path { arg, perms: [Perm::Write], .. } if arg.raw == "trace.txt"), "{e:?}");
        let e = effects_of("chroot /srv/root ls");
        assert!(matches!(&e[0], Effect::Need { scope: Scope::System, perm: Perm::Execute, .. }));
        assert!(matches!(&e[1], Effect::Path { arg, perms: [Perm::Read], .. } if arg.raw == "/srv/root"));
        assert_eq!(words("chroot /srv/root ls"), ["ls"]);
    }

    #[test]
    fn env_sets_variables_and_splits_strings() {
        let (w, env, _) = runs("env -i FOO=1 -u BAR cat /etc/x").unwrap();
        assert_eq!(w, ["cat", "/etc/x"]);
        assert_eq!(env, [("FOO".to_string(), "1".to_string())]);
        let e = effects_of("env -S sh\u{a0}-c\u{a0}id");
        assert!(matches!(&e[0], Effect::Code { words, nest: Nest::NewShell } if words[0].raw == "sh -c id"), "{e:?}");
        assert!(runs("env").is_none());
    }

    #[test]
    fn xargs_appends_input_or_replaces() {
        assert_eq!(words("xargs rm"), ["rm", "(arguments read from standard input)"]);
        assert_eq!(words("xargs"), ["echo", "(arguments read from standard input)"]);
        let (w, _, own) = runs("xargs -I{} cp {} /backup").unwrap();
        assert_eq!(w, ["cp", "{}", "/backup"]);
        assert!(!own, "the command's input is not xargs's");
    }

    #[test]
    fn code_strings_run_in_a_new_shell() {
        for line in ["flock /tmp/l -c ls", "watch -n 1 ls", "su -c ls bob", "sudo -s ls", "script -c ls log"] {
            assert!(effects_of(line).iter().any(|e| matches!(e, Effect::Code { nest: Nest::NewShell, .. })), "{line}");
        }
        assert!(effects_of("su").iter().any(|e| matches!(e, Effect::UnknownCode { .. })));
        assert!(effects_of("sudo -i").iter().any(|e| matches!(e, Effect::UnknownCode { .. })));
        assert_eq!(words("sudo -u bob ls"), ["ls"]);
        assert!(matches!(effects_of("script").first(), Some(Effect::Cwd { perms: [Perm::Write], .. })));
    }
}
