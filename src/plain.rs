//! Plain programs: simple commands of literal words joined by `&&`, `||`, `|`, `;` or newlines, read
//! here without the parser. The kernel layer keeps a repository's configuration and a nested
//! repository's hooks read-only because code the analysis cannot see could change them. A plain
//! program of inert commands (`cd`, `rm`, `git config user.name …`) runs no such code, and the
//! analysis and this reader cannot disagree about what it runs: there is nothing in it to
//! expand, substitute or redirect. For such a program, and only for it, sandbox-bash lifts those
//! pins in the run (see [`relax`]):
//!
//! - `.git/config` of a repository the program configures with keys that run no program
//!   (`git config user.email`, `git remote add`, `git branch -u`, `git push -u`), when the
//!   whole program is plain and inert and the repository runs nothing of its own (no hooks, no
//!   hooks path, no configured program): a write the layers would otherwise refuse is then
//!   possible, and refused before anything runs when it is not;
//! - the repositories inside a tree the program deletes (`rm -rf clone`), when the deletion
//!   comes first: only inert commands before it, each joined to the next by `&&`, and nothing
//!   after it but what runs once it succeeded (`&&`, or the end), so the tree is gone before any
//!   other code runs.

use crate::scope;

/// How a command is joined to the next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Then {
    /// `&&`: the next runs only if this one succeeded.
    And,
    /// `||`.
    Or,
    /// `;` or a newline: the next runs whatever this one did.
    Always,
    /// `|`: the next runs beside this one and reads its output.
    Pipe,
    /// The end of the program.
    End,
}

/// One simple command: its words, quotes removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    pub words: Vec<String>,
    pub then: Then,
}

/// Characters a word may hold outside quotes.
fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-_./:@%+=,^{}".contains(&b)
}

/// The commands of `text` when it is plain, else `None`. Anything beyond literal words (an
/// expansion, a glob, a tilde, braces that expand, a redirection, `|&`, a background job, a
/// compound command, an assignment, a reserved word, a byte that is not printable ASCII) makes
/// it not plain.
pub fn read(text: &str) -> Option<Vec<Command>> {
    let b = text.as_bytes();
    let mut commands = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut i = 0;
    let end_command = |words: &mut Vec<String>, commands: &mut Vec<Command>, then: Then| -> Option<()> {
        if words.is_empty() {
            // `&&` or `;` with nothing before it; an empty line is fine.
            return if then == Then::Always { Some(()) } else { None };
        }
        let first = words[0].as_str();
        let reserved = [
            "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "select",
            "function", "time", "coproc", "in", "!", "[[", "]]", "{", "}",
        ];
        if reserved.contains(&first) || first.contains('=') {
            return None;
        }
        commands.push(Command { words: std::mem::take(words), then });
        Some(())
    };
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' => i += 1,
            b'\n' | b';' => {
                end_command(&mut words, &mut commands, Then::Always)?;
                i += 1;
            }
            b'&' if b.get(i + 1) == Some(&b'&') => {
                end_command(&mut words, &mut commands, Then::And)?;
                i += 2;
            }
            b'|' if b.get(i + 1) == Some(&b'|') => {
                end_command(&mut words, &mut commands, Then::Or)?;
                i += 2;
            }
            // `|&` also sends the standard error: not plain.
            b'|' if b.get(i + 1) != Some(&b'&') => {
                end_command(&mut words, &mut commands, Then::Pipe)?;
                i += 1;
            }
            b'#' => {
                // A comment, to the end of the line.
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            _ => {
                let mut word = String::new();
                let start = i;
                while i < b.len() {
                    let c = b[i];
                    if word_byte(c) {
                        word.push(c as char);
                        i += 1;
                    } else if c == b'\'' {
                        let close = b[i + 1..].iter().position(|&x| x == b'\'')? + i + 1;
                        let inner = &text[i + 1..close];
                        if inner.bytes().any(|x| !(0x20..0x7f).contains(&x)) {
                            return None;
                        }
                        word.push_str(inner);
                        i = close + 1;
                    } else if c == b'"' {
                        let close = b[i + 1..].iter().position(|&x| x == b'"')? + i + 1;
                        let inner = &text[i + 1..close];
                        if inner.bytes().any(|x| !(0x20..0x7f).contains(&x) || b"$`\\!".contains(&x)) {
                            return None;
                        }
                        word.push_str(inner);
                        i = close + 1;
                    } else if matches!(c, b' ' | b'\t' | b'\n' | b';' | b'|')
                        || (c == b'&' && b.get(i + 1) == Some(&b'&'))
                    {
                        break;
                    } else {
                        return None;
                    }
                }
                // Nothing read (`|&`, a lone `&`): not plain.
                if i == start {
                    return None;
                }
                // `~` and `=` are only literal where bash does not expand them; `-` alone
                // is `cd -`'s.
                if word.starts_with('~') {
                    return None;
                }
                // Braces are literal (`@{u}`, `HEAD@{1}`) unless they could expand: a comma or
                // a sequence between them.
                if word.contains('{') && (word.contains(',') || word.contains("..")) {
                    return None;
                }
                words.push(word);
            }
        }
    }
    if !words.is_empty() {
        end_command(&mut words, &mut commands, Then::End)?;
    } else if let Some(last) = commands.last_mut() {
        if last.then != Then::Always {
            // A program ending in `&&` or `||` is not valid bash.
            return None;
        }
        last.then = Then::End;
    }
    Some(commands)
}

/// Programs that run no code but their own, with nothing to configure them from the project;
/// the filters among them (`wc` to `grep`) write no file either.
const INERT: &[&str] = &[
    "cd", "echo", "true", ":", "pwd", "ls", "mkdir", "rm", "rmdir", "git", "wc", "head", "tail", "cut", "cat", "grep",
];

/// git's subcommands a relaxed program may use: none runs a program of the repository's when
/// the repository has no hooks and no configured programs, and none takes a program to run
/// from its options but those of [`GIT_RUNS`].
const GIT_INERT: &[&str] = &[
    "config",
    "remote",
    "branch",
    "switch",
    "checkout",
    "push",
    "status",
    "log",
    "diff",
    "show",
    "rev-parse",
    "tag",
    "update-ref",
    "symbolic-ref",
];

/// Options by which git runs a program of the caller's choosing, or reads options from a file.
const GIT_RUNS: &[&str] =
    &["--upload-pack", "--receive-pack", "--exec", "--config", "--template", "--ext-diff", "-e", "--edit"];

/// What the environment must not hold for a relaxation: code bash runs before the program
/// (`BASH_ENV`, exported functions), a `cd` that goes elsewhere (`CDPATH`), and git settings
/// that name other configuration, directories or programs.
fn environment_inert(env: &dyn Fn(&str) -> Option<String>, names: &[String]) -> bool {
    let set = |n: &str| env(n).is_some_and(|v| !v.is_empty());
    let moves =
        |n: &String| n.starts_with("BASH_FUNC_") || n.starts_with("GIT_CONFIG") || GIT_MOVES.contains(&n.as_str());
    !(set("BASH_ENV") || set("ENV") || set("CDPATH") || names.iter().any(moves))
}

/// git's variables that name another configuration, repository, directory or program.
const GIT_MOVES: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_EXEC_PATH",
    "GIT_TEMPLATE_DIR",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_PAGER",
    "GIT_EXTERNAL_DIFF",
    "GIT_PROXY_COMMAND",
];

/// Whether `command` is inert: a builtin or a program of the system's program directories
/// (found on `path`), and for git one of [`GIT_INERT`] with no global option but `-C DIR`.
fn inert(command: &Command, path: &str) -> bool {
    let name = command.words[0].as_str();
    if !INERT.contains(&name) {
        return false;
    }
    if !matches!(name, "cd" | "echo" | "true" | ":" | "pwd") {
        // The program that runs is the first one PATH names, and must be the system's.
        let found = scope::path_dirs(Some(path.as_bytes()))
            .map(|d| format!("{d}/{name}"))
            .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()));
        let Some(found) = found else { return false };
        let Ok(real) = crate::exec::canonicalize(&found) else { return false };
        if !crate::baseline::in_program_roots(&real) {
            return false;
        }
    }
    if name == "cd" {
        return command.words.len() == 2 && command.words[1] != "-";
    }
    if name == "git" {
        let mut i = 1;
        while i < command.words.len() && command.words[i].starts_with('-') {
            match command.words[i].as_str() {
                "-C" if i + 1 < command.words.len() => i += 2,
                "--no-pager" => i += 1,
                _ => return false,
            }
        }
        let runs = command.words[i..].iter().any(|w| GIT_RUNS.contains(&w.split('=').next().unwrap_or("")));
        return !runs && command.words.get(i).is_some_and(|s| GIT_INERT.contains(&s.as_str()));
    }
    if name == "rm" {
        // `rm --help` and `--version` delete nothing; `-i` asks.
        return !command.words.iter().any(|w| {
            matches!(w.as_str(), "--help" | "--version" | "--interactive" | "-I")
                || w.starts_with("--interactive=")
                || (w.starts_with('-') && !w.starts_with("--") && w.contains('i'))
        });
    }
    true
}

/// The directory each git command of `commands` works in (`-C` after the cwd the `cd`s before it
/// lead to), starting in `cwd`; `None` when a `cd` or `-C` goes through a link (the lexical path
/// and the real one may differ).
fn git_dirs(commands: &[Command], cwd: &str) -> Option<Vec<String>> {
    let mut dir = cwd.to_string();
    let mut out = Vec::new();
    for c in commands {
        match c.words[0].as_str() {
            "cd" => {
                dir = scope::normalize(&dir, &c.words[1]);
                real_as_written(&dir)?;
            }
            "git" => {
                let mut here = dir.clone();
                let mut i = 1;
                while i + 1 < c.words.len() && c.words[i] == "-C" {
                    here = scope::normalize(&here, &c.words[i + 1]);
                    i += 2;
                }
                real_as_written(&here)?;
                out.push(here);
            }
            _ => {}
        }
    }
    Some(out)
}

/// `Some` when `path` is where it really is (no link on the way), or is not there.
fn real_as_written(path: &str) -> Option<()> {
    match crate::exec::canonicalize(path) {
        Ok(real) if real == path => Some(()),
        Ok(_) => None,
        Err(_) => (!std::path::Path::new(path).exists()).then_some(()),
    }
}

/// The git directory of the repository that holds `dir` (`…/.git`, a directory), when there is
/// one below `/`.
fn git_dir_of(dir: &str) -> Option<String> {
    let mut d = dir.to_string();
    loop {
        let git = format!("{d}/.git");
        if let Ok(m) = std::fs::symlink_metadata(&git) {
            return m.is_dir().then_some(git);
        }
        let (up, _) = d.rsplit_once('/')?;
        if up.is_empty() {
            return None;
        }
        d = up.to_string();
    }
}

/// The git configuration files every repository of this user reads: the system's and the
/// user's.
fn shared_configs(home: Option<&str>) -> Vec<String> {
    let mut files = vec!["/etc/gitconfig".to_string()];
    if let Some(h) = home {
        files.push(format!("{h}/.gitconfig"));
        files.push(format!("{h}/.config/git/config"));
    }
    files
}

/// Whether the repository whose git directory is `git_dir` runs nothing of its own: its hooks
/// directory holds only git's samples, and neither its configuration nor the user's or the
/// system's sets a hooks path, nor its own a key that runs a program.
pub fn repository_inert(git_dir: &str, home: Option<&str>) -> bool {
    if std::fs::symlink_metadata(git_dir).map(|m| !m.is_dir()).unwrap_or(true) {
        return false;
    }
    match std::fs::read_dir(format!("{git_dir}/hooks")) {
        Ok(entries) => {
            for e in entries {
                let Ok(e) = e else { return false };
                if !e.file_name().to_string_lossy().ends_with(".sample") {
                    return false;
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => return false,
    }
    let read = |p: &str| crate::analysis::files::read_regular(std::path::Path::new(p), 1 << 20).ok();
    let Some(own) = read(&format!("{git_dir}/config")) else { return false };
    let own = String::from_utf8_lossy(&own).into_owned();
    if config_keys(&own).iter().any(|k| crate::analysis::programs::git::runs_programs(k) || k == "core.worktree") {
        return false;
    }
    !shared_configs(home).iter().filter_map(|p| read(p)).any(|t| {
        config_keys(&String::from_utf8_lossy(&t)).iter().any(|k| k == "core.hookspath" || k.starts_with("include"))
    })
}

/// What a git configuration text points at that a later git follows: the files it includes
/// (`include.path`, `includeIf.*.path`, as written) and `core.hooksPath` (the last one set).
pub fn git_pointers(text: &str) -> (Vec<String>, Option<String>) {
    let mut includes = Vec::new();
    let mut hooks = None;
    for (key, value) in config_entries(text) {
        if value.is_empty() {
            continue;
        }
        if key == "include.path" || (key.starts_with("includeif.") && key.ends_with(".path")) {
            includes.push(value);
        } else if key == "core.hookspath" {
            hooks = Some(value);
        }
    }
    (includes, hooks)
}

/// Where a git configuration's `include.path` value leads: `~/` from the home, a relative
/// path from the directory of the file that includes it.
pub fn include_target(value: &str, config_dir: &str, home: Option<&str>) -> Option<String> {
    match value.strip_prefix("~/") {
        Some(rest) => home.map(|h| crate::scope::normalize(h, rest)),
        None => Some(crate::scope::normalize(config_dir, value)),
    }
}

/// The directories a `core.hooksPath` value makes git run hooks from, `value` taken from
/// `work_tree` unless it starts with `~/` (none without a home): the directory, and for husky's
/// `.husky/_` the `.husky` above it, whose scripts its hooks run.
pub fn hooks_dirs(value: &str, work_tree: &str, home: Option<&str>) -> Vec<String> {
    let dir = match value.strip_prefix("~/") {
        Some(rest) => match home {
            Some(h) => crate::scope::normalize(h, rest),
            None => return Vec::new(),
        },
        None => crate::scope::normalize(work_tree, value),
    };
    let mut out = Vec::with_capacity(2);
    if let Some((above, "_")) = dir.rsplit_once('/')
        && above.ends_with("/.husky")
    {
        out.push(above.to_string());
    }
    out.push(dir);
    out
}

/// Every file a git configuration file includes, followed through the files it includes (at
/// most three levels), and the `core.hooksPath` values met on the way.
pub fn git_config_closure(
    config: &str,
    home: Option<&str>,
    read: &dyn Fn(&str) -> Option<String>,
) -> (Vec<String>, Vec<String>) {
    let mut files: Vec<String> = Vec::new();
    let mut hooks: Vec<String> = Vec::new();
    let mut next = vec![(config.to_string(), 0usize)];
    while let Some((file, depth)) = next.pop() {
        let Some(text) = read(&file) else { continue };
        let (includes, hook) = git_pointers(&text);
        hooks.extend(hook);
        let dir = file.rsplit_once('/').map_or("/", |(d, _)| if d.is_empty() { "/" } else { d });
        for value in includes {
            if let Some(target) = include_target(&value, dir, home)
                && !files.contains(&target)
                && target != config
            {
                files.push(target.clone());
                if depth < 3 {
                    next.push((target, depth + 1));
                }
            }
        }
    }
    (files, hooks)
}

/// The keys a git configuration text sets (`section.sub.key`, lowercased but for the
/// subsection), and `include.path`/`includeif` sections as keys of their own.
fn config_keys(text: &str) -> Vec<String> {
    config_entries(text).into_iter().map(|(k, _)| k).collect()
}

/// The entries of a git configuration text: each key as [`config_keys`] has it, with its value
/// (what follows `=`, trimmed, quotes removed; empty for a key with none).
fn config_entries(text: &str) -> Vec<(String, String)> {
    let mut section = String::new();
    let mut keys = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let rest = if let Some(inner) = line.strip_prefix('[') {
            let Some((head, after)) = inner.split_once(']') else {
                keys.push(("unreadable".to_string(), String::new()));
                continue;
            };
            section = match head.split_once(char::is_whitespace) {
                Some((name, sub)) => format!("{}.{}", name.to_ascii_lowercase(), sub.trim().trim_matches('"')),
                None => head.to_ascii_lowercase(),
            };
            after.trim()
        } else {
            line
        };
        if rest.is_empty() || rest.starts_with('#') || rest.starts_with(';') {
            continue;
        }
        let key = rest.split(['=', ' ', '\t']).next().unwrap_or("").to_ascii_lowercase();
        let value = rest.split_once('=').map(|(_, v)| v.trim().trim_matches('"').to_string()).unwrap_or_default();
        let lower_section = section.to_ascii_lowercase();
        keys.push((format!("{lower_section}.{key}"), value));
    }
    keys
}

/// Whether git reaches `url` over the network: a URL of http, https, ssh or git, or ssh's
/// `host:path`. A local path or `file://` makes git run the target repository's own programs
/// here (a push runs its hooks), and any other transport may run a helper.
fn network_url(url: &str) -> bool {
    // `helper::address` runs a remote helper.
    if url.contains("::") {
        return false;
    }
    if let Some((scheme, _)) = url.split_once("://") {
        return matches!(
            scheme.to_ascii_lowercase().as_str(),
            "http" | "https" | "ssh" | "git" | "git+ssh" | "ssh+git"
        );
    }
    // `host:path` is ssh's when the colon comes before any slash.
    match (url.find(':'), url.find('/')) {
        (Some(colon), slash) => colon > 0 && slash.is_none_or(|s| colon < s),
        (None, _) => false,
    }
}

/// Whether every `git push` of `commands` (each working in the matching directory of `dirs`)
/// names its target and reaches it over the network: a remote the program adds or sets
/// before, or one the repository's configuration names, with no URL rewriting configured
/// anywhere (`url.*.insteadOf` could turn a network URL into a local one).
fn pushes_reach_the_network(commands: &[Command], dirs: &[String], home: Option<&str>) -> bool {
    let read = |p: &str| {
        crate::analysis::files::read_regular(std::path::Path::new(p), 1 << 20)
            .map(|t| String::from_utf8_lossy(&t).into_owned())
            .unwrap_or_default()
    };
    let rewrites = |text: &str| {
        config_keys(text)
            .iter()
            .any(|k| k.starts_with("url.") && (k.ends_with(".insteadof") || k.ends_with(".pushinsteadof")))
    };
    // Read at the first push: most programs push nothing.
    let shared_rewrites = std::cell::OnceCell::new();
    let shared = || *shared_rewrites.get_or_init(|| shared_configs(home).iter().any(|p| rewrites(&read(p))));
    let mut set: Vec<(String, String)> = Vec::new();
    let mut dir_of = dirs.iter();
    for c in commands.iter().filter(|c| c.words[0] == "git") {
        let Some(dir) = dir_of.next() else { return false };
        let mut i = 1;
        while i < c.words.len() && c.words[i].starts_with('-') {
            i += if c.words[i] == "-C" { 2 } else { 1 };
        }
        let rest = &c.words[i.min(c.words.len())..];
        match rest.first().map(String::as_str) {
            Some("remote") if rest.len() >= 4 && matches!(rest[1].as_str(), "add" | "set-url") => {
                let operands: Vec<&String> = rest[2..].iter().filter(|w| !w.starts_with('-')).collect();
                if let [name, url, ..] = operands.as_slice() {
                    set.push((name.to_string(), url.to_string()));
                }
            }
            Some("push") => {
                let Some(target) = rest[1..].iter().find(|w| !w.starts_with('-')) else { return false };
                let Some(git_dir) = git_dir_of(dir) else { return false };
                let own = read(&format!("{git_dir}/config"));
                if shared() || rewrites(&own) {
                    return false;
                }
                let mut urls: Vec<String> = set.iter().filter(|(n, _)| n == target).map(|(_, u)| u.clone()).collect();
                let name = target.to_ascii_lowercase();
                urls.extend(config_entries(&own).into_iter().filter_map(|(k, v)| {
                    (k == format!("remote.{name}.url") || k == format!("remote.{name}.pushurl")).then_some(v)
                }));
                if urls.is_empty() {
                    urls.push(target.clone());
                }
                if !urls.iter().all(|u| network_url(u)) {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

/// What a plain program lets the kernel layer lift for its run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Relaxed {
    /// Repository configurations (`…/.git/config`) the program may write.
    pub config: Vec<String>,
    /// Trees whose repositories are not pinned: the program deletes them before anything else
    /// runs.
    pub deleted: Vec<String>,
}

/// Why a configuration write cannot be had in this run, for the denial.
pub const CONFIG_NEEDS: &str = "the kernel keeps a repository's configuration read-only unless the whole program \
    is plain (literal words, commands joined by &&, ||, | or ;), runs only cd, echo, true, pwd, ls, mkdir, \
    rm, rmdir, wc, head, tail, cut, cat, grep and the system's git, every git push reaches its remote over \
    the network (a push to a repository on this machine runs that repository's hooks), and the repository has \
    no hooks and no configured programs; run the git commands that configure it on their own";

/// Why deleting a tree with a repository in it cannot be had in this run, for the denial.
pub const DELETE_NEEDS: &str = "whose hooks and configuration the kernel keeps read-only unless the deletion comes \
    first in a plain program (only cd before it, each joined to the next by &&) and nothing runs after it but on \
    its success (&&); run it as rm -rf DIR on its own, or join what follows with &&";

/// A repository (`…/.git`) in the directory `dir` or below it (three levels, 64 directories
/// at most), when there is one: deleting `dir` deletes its hooks and configuration.
pub fn repository_below(dir: &str) -> Option<String> {
    let mut queue = std::collections::VecDeque::from([(dir.to_string(), 0usize)]);
    let mut seen = 0;
    while let Some((d, depth)) = queue.pop_front() {
        seen += 1;
        if seen > 64 {
            return None;
        }
        let git = format!("{d}/.git");
        if std::fs::symlink_metadata(&git).is_ok() {
            return Some(git);
        }
        if depth == 3 {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten().take(256) {
            if e.file_type().is_ok_and(|t| t.is_dir())
                && let Some(name) = e.file_name().to_str()
            {
                queue.push_back((format!("{d}/{name}"), depth + 1));
            }
        }
    }
    None
}

/// The relaxations `text` (a `-c` program that starts in `cwd`) earns: the configuration
/// files of `configured` (`…/.git/config`, which the analysis found written with keys that
/// run no program) and the trees it deletes first. `names` are the environment's variable
/// names, `env` their values.
pub fn relax(
    text: &str,
    cwd: &str,
    configured: &[String],
    home: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
    names: &[String],
) -> Relaxed {
    let mut out = Relaxed::default();
    let Some(commands) = read(text) else { return out };
    if !environment_inert(env, names) {
        return out;
    }
    let path = env("PATH").unwrap_or_default();
    // Every git command works in a repository that runs nothing of its own (a hook of another
    // repository could write this one's configuration while it is writable).
    // A push to a repository on this machine runs that repository's hooks.
    let repositories_inert = git_dirs(&commands, cwd).is_some_and(|dirs| {
        dirs.iter().all(|d| git_dir_of(d).is_some_and(|g| repository_inert(&g, home)))
            && pushes_reach_the_network(&commands, &dirs, home)
    });
    let all_inert = commands.iter().all(|c| inert(c, &path)) && repositories_inert;
    if all_inert {
        for file in configured {
            let Some(git_dir) = file.strip_suffix("/config") else { continue };
            if git_dir.ends_with("/.git") && repository_inert(git_dir, home) && !out.config.contains(file) {
                out.config.push(file.clone());
            }
        }
    }
    // The deletions that come first, in the cwd the commands before them lead to.
    let mut dir = cwd.to_string();
    for (i, c) in commands.iter().enumerate() {
        if !inert(c, &path) || c.words[0] == "git" {
            break;
        }
        let joined_before = i == 0 || commands[i - 1].then == Then::And;
        if !joined_before {
            break;
        }
        match c.words[0].as_str() {
            "cd" => {
                dir = scope::normalize(&dir, &c.words[1]);
                if real_as_written(&dir).is_none() {
                    break;
                }
            }
            "rm" if matches!(c.then, Then::And | Then::End) => {
                let (options, operands): (Vec<&String>, Vec<&String>) =
                    c.words[1..].iter().partition(|w| w.starts_with('-') && w.len() > 1);
                let recursive = options
                    .iter()
                    .any(|o| o.as_str() == "--recursive" || (!o.starts_with("--") && o.contains(['r', 'R'])));
                // Each tree where it really is (a link on the way would make rm delete elsewhere),
                // and never one inside a git directory (a submodule's, whose work tree would
                // find whatever is put in its place).
                let targets: Vec<String> = operands.iter().map(|o| scope::normalize(&dir, o)).collect();
                let sound = targets.iter().all(|t| {
                    real_as_written(t).is_some() && !t.split('/').any(|part| part == ".git") && !t.ends_with("/.")
                });
                if recursive && sound {
                    for target in targets {
                        if !out.deleted.contains(&target) {
                            out.deleted.push(target);
                        }
                    }
                }
            }
            _ => {}
        }
        if c.then != Then::And {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Option<Vec<Vec<String>>> {
        read(text).map(|cs| cs.into_iter().map(|c| c.words).collect())
    }

    #[test]
    fn plain_programs_are_literal_simple_commands() {
        assert_eq!(
            words("git config user.name 'A B' && git config user.email \"a@b.c\""),
            Some(vec![
                vec!["git".into(), "config".into(), "user.name".into(), "A B".into()],
                vec!["git".into(), "config".into(), "user.email".into(), "a@b.c".into()],
            ])
        );
        assert_eq!(words("cd sub; rm -rf x # gone\n\n").map(|c| c.len()), Some(2));
        let cs = read("a && b || c; d").unwrap();
        assert_eq!(cs.iter().map(|c| c.then).collect::<Vec<_>>(), [Then::And, Then::Or, Then::Always, Then::End]);
        let cs = read("git remote -v | wc -l && git rev-parse --abbrev-ref @{u}").unwrap();
        assert_eq!(cs.iter().map(|c| c.then).collect::<Vec<_>>(), [Then::Pipe, Then::And, Then::End]);
        assert_eq!(cs[2].words[3], "@{u}");
        for not_plain in [
            "echo $HOME",
            "echo \"$x\"",
            "echo `id`",
            "echo $(id)",
            "cat < f",
            "echo x > f",
            "a |& b",
            "a |",
            "| a",
            "echo {a,b}",
            "echo x{1..3}",
            "a & b",
            "rm -rf *",
            "rm -rf ~/x",
            "X=1 git status",
            "if true; then :; fi",
            "{ echo; }",
            "(cd x)",
            "echo 'unterminated",
            "echo \"a\\\"b\"",
            "echo a\\ b",
            "a &&",
            "&& a",
            "echo \u{e9}",
            "f() { :; }",
            "echo [a]",
            "echo a?b",
        ] {
            assert!(read(not_plain).is_none(), "{not_plain:?}");
        }
    }

    #[test]
    fn only_network_urls_keep_a_push_from_running_hooks_here() {
        for url in ["https://example.com/r.git", "ssh://git@host/r", "git@github.com:o/r.git", "host:r", "git://h/r"] {
            assert!(network_url(url), "{url}");
        }
        for url in ["./x.git", "x.git", "/srv/r.git", "file:///srv/r.git", "ext::sh -c x", "../r", "dir/a:b", ":x"] {
            assert!(!network_url(url), "{url}");
        }
    }

    #[test]
    fn configuration_keys_are_read_with_their_sections() {
        let keys = config_keys("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = x\n[Core] HooksPath=.h\n");
        assert_eq!(keys, ["core.bare", "remote.origin.url", "core.hookspath"]);
    }

    #[test]
    fn only_deletions_that_come_first_are_relaxed() {
        let env = |n: &str| (n == "PATH").then(|| "/usr/bin:/bin".to_string());
        let deleted = |t: &str| relax(t, "/w", &[], None, &env, &[]).deleted;
        assert_eq!(deleted("rm -rf clone"), ["/w/clone"]);
        assert_eq!(deleted("cd sub && rm -r -f a b && echo done"), ["/w/sub/a", "/w/sub/b"]);
        assert_eq!(deleted("rm -rf a && python3 x.py"), ["/w/a"], "what follows runs only once it is gone");
        assert!(deleted("rm -rf a; python3 x.py").is_empty(), "what follows runs whatever rm did");
        assert!(deleted("rm -rf a || echo failed").is_empty());
        assert!(deleted("cd sub; rm -rf a").is_empty(), "a failed cd would delete elsewhere");
        assert!(deleted("python3 x.py && rm -rf a").is_empty(), "code runs before");
        assert!(deleted("rm a").is_empty(), "not recursive");
        assert!(deleted("rm -rf a | cat").is_empty(), "what reads its output runs beside it");
        assert!(deleted("ls | wc -l && rm -rf a").is_empty(), "a pipeline is not joined by &&");
        // Not in an environment that runs code first or moves cd.
        let with_bash_env = |n: &str| match n {
            "PATH" => Some("/usr/bin:/bin".to_string()),
            "BASH_ENV" => Some("/w/env.sh".to_string()),
            _ => None,
        };
        assert!(relax("rm -rf clone", "/w", &[], None, &with_bash_env, &[]).deleted.is_empty());
        assert!(relax("rm -rf clone", "/w", &[], None, &env, &["BASH_FUNC_rm%%".to_string()]).deleted.is_empty());
        // A program PATH finds first that is not the system's is not inert.
        let elsewhere = |n: &str| (n == "PATH").then(|| "/nonexistent:/w/bin".to_string());
        assert!(relax("rm -rf clone", "/w", &[], None, &elsewhere, &[]).deleted.is_empty());
    }
}
