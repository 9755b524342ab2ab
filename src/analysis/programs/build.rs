//! Build tools and package managers (the rows of the table name them): they run the project's
//! code (workspace execute); which subcommands download, publish or install, and where each
//! installs, is data below.

use super::{Call, Effects, literal};
use crate::analysis::word::Arg;
use crate::mode::{Perm, Scope};

/// Subcommands that may download packages, by tool. `*`: every subcommand may.
const FETCHES: &[(&[&str], &[&str])] = &[
    (
        &["cargo"],
        &[
            "build",
            "b",
            "run",
            "r",
            "test",
            "t",
            "check",
            "c",
            "bench",
            "install",
            "fetch",
            "update",
            "add",
            "doc",
            "clippy",
            "search",
            "vendor",
            "generate-lockfile",
            "tree",
            "package",
            "nextest",
        ],
    ),
    (
        &["npm", "pnpm", "yarn", "yarnpkg", "bun"],
        &[
            "install", "i", "ci", "add", "update", "up", "upgrade", "outdated", "audit", "view", "info", "search",
            "exec", "dlx", "create", "init", "x",
        ],
    ),
    (&["pip", "pipx"], &["install", "download", "search", "index", "wheel", "run"]),
    (&["uv"], &["pip", "sync", "add", "lock", "run", "tool", "venv", "python"]),
    (&["poetry", "pipenv", "pdm", "hatch"], &["install", "add", "update", "lock", "sync", "run"]),
    (&["go"], &["get", "install", "mod", "build", "run", "test", "list"]),
    (&["gem", "bundle", "bundler", "composer"], &["install", "update", "add", "require", "fetch", "exec"]),
    (&["conda", "mamba", "micromamba"], &["install", "create", "update", "env"]),
    (
        &[
            "mvn", "mvnw", "gradle", "gradlew", "sbt", "lein", "mix", "rebar3", "stack", "cabal", "opam", "npx",
            "pnpx", "bunx", "uvx", "corepack", "rustup",
        ],
        &["*"],
    ),
];

/// Subcommands that publish to a registry.
const PUBLISHES: &[&str] = &["publish", "push", "upload", "release", "deploy"];

/// Subcommands that install or remove packages.
const INSTALLS: &[&str] = &["install", "i", "add", "ci", "sync", "update", "upgrade", "remove", "uninstall", "rm"];

/// Tools that install into the project (the cwd) unless told otherwise.
const INTO_PROJECT: &[&str] = &[
    "npm", "pnpm", "yarn", "yarnpkg", "bun", "composer", "bundle", "bundler", "poetry", "pipenv", "pdm", "uv", "cargo",
];

/// Tools that install into the interpreter's environment (a target, the user's, a venv's, or
/// the system's).
const INTO_ENVIRONMENT: &[&str] = &["pip", "pipx", "gem", "conda", "mamba", "micromamba"];

/// Subcommands that only report what is installed or published, running no project code.
const REPORTS: &[(&[&str], &[&str])] = &[
    (
        &["npm", "pnpm", "yarn", "yarnpkg"],
        &[
            "ls", "list", "ll", "la", "view", "info", "show", "v", "explain", "why", "outdated", "root", "prefix",
            "help",
        ],
    ),
    (&["pip", "pip3"], &["list", "show", "freeze", "check", "help", "debug"]),
    (&["gem"], &["list", "info", "help"]),
];

/// The family's entry.
pub fn handle(call: &Call) -> Effects {
    let mut out = Effects::default();
    let (program, pos) = (call.program, call.pos);
    let parsed = call.options_first();
    let first = parsed.operands.first().and_then(Arg::known).unwrap_or_default();
    let base = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let reports = REPORTS.iter().any(|(tools, subs)| tools.contains(&base) && subs.contains(&first.as_str()))
        || (parsed.operands.is_empty() && call.args.iter().any(|a| a.known().is_some_and(|t| t == "--version")));
    if !reports {
        out.need(
            Scope::Workspace,
            Perm::Execute,
            program,
            "runs a build tool or package manager, which runs project code",
            pos,
        );
    }
    for d in parsed.values(&["C", "directory"]) {
        out.path(&d, &[Perm::Read], "works in a directory");
    }
    for f in parsed.values(&["f", "file", "makefile", "manifest-path"]) {
        out.path(&f, &[Perm::Read], "reads a build file");
    }
    let words: Vec<String> = call.args.iter().filter_map(Arg::known).collect();
    let sub = parsed.operands.first().and_then(Arg::known).unwrap_or_default();
    if base == "pre-commit" && matches!(sub.as_str(), "install" | "uninstall") {
        git_hooks(call, &mut out);
    }
    let sub2 = parsed.operands.get(1).and_then(Arg::known).unwrap_or_default();
    let fetch_subs = FETCHES.iter().find(|(tools, _)| tools.contains(&base)).map_or(&[][..], |(_, subs)| *subs);
    let fetches = fetch_subs.contains(&"*")
        || fetch_subs.contains(&sub.as_str())
        || (base == "go" && sub == "mod" && sub2 == "download");
    // URLs on the command line (an index, a registry, a git source, an archive) are where it
    // goes: named, so that an allowlist can check them before anything runs.
    let urls: Vec<&str> = words.iter().filter_map(|w| w.find("://").map(|i| url_start(w, i))).collect();
    let publishes = PUBLISHES.contains(&sub.as_str());
    if fetches {
        out.need(Scope::Network, Perm::Read, program, "may download packages", pos);
    }
    if publishes {
        out.need(Scope::Network, Perm::Read, program, "talks to a package registry", pos);
        out.need(Scope::Network, Perm::Write, program, "publishes to a package registry", pos);
    }
    if fetches || publishes {
        for url in &urls {
            out.need(Scope::Network, Perm::Read, url, "fetches from a URL on its command line", pos);
        }
    }
    if !INSTALLS.contains(&sub.as_str()) {
        return out;
    }
    let var = |name: &str| (call.var)(name).filter(|v| !v.is_empty());
    let global = words.iter().any(|w| w == "-g" || w == "--global" || w == "--location=global");
    if matches!(base, "npm" | "pnpm" | "yarn" | "yarnpkg" | "bun") && global {
        out.need(Scope::System, Perm::Write, program, "installs packages globally", pos);
    } else if base == "cargo" && sub == "install" {
        match var("CARGO_HOME").or_else(|| var("HOME").map(|h| format!("{h}/.cargo"))) {
            Some(h) => out.path(
                &literal(&crate::scope::normalize("/", &h), pos),
                &[Perm::Write],
                "installs into the cargo home",
            ),
            None => out.unresolved_text("$CARGO_HOME", pos),
        }
    } else if INTO_PROJECT.contains(&base) {
        out.cwd(&[Perm::Write], "installs packages into the project", pos);
    } else if INTO_ENVIRONMENT.contains(&base) {
        // The target comes after the subcommand: `pip install --target DIR …`.
        if let Some(t) = call.options().values(&["t", "target", "prefix", "root"]).first() {
            out.path(t, &[Perm::Write], "installs packages");
        } else if words.iter().any(|x| x == "--user") {
            if let Some(h) = var("HOME") {
                out.path(&literal(&format!("{h}/.local"), pos), &[Perm::Write], "installs packages for the user");
            }
        } else {
            match environment(call, &var) {
                Environment::Prefix(prefix) => out.path(
                    &literal(&prefix, pos),
                    &[Perm::Write],
                    "installs packages into the environment its program belongs to",
                ),
                Environment::System => out.need(
                    Scope::System,
                    Perm::Write,
                    program,
                    "installs packages into the interpreter's site-packages",
                    pos,
                ),
                Environment::Unknown => out.unresolved_text("the environment it installs into", pos),
            }
        }
    }
    out
}

/// `pre-commit install` writes the hooks of the repository around the working directory
/// (`pre-commit` by default, each `-t TYPE` otherwise): a protected path, which the namespace
/// view keeps read-only, so it is named before anything runs.
fn git_hooks(call: &Call, out: &mut Effects) {
    let Some(cwd) = call.cwd else {
        out.unresolved_text("the repository's hooks", call.pos);
        return;
    };
    let mut dir = std::path::Path::new(cwd);
    let root = loop {
        if crate::analysis::asked::exists(&crate::analysis::bytes::from_os(&dir.join(".git"))) {
            break Some(dir);
        }
        match dir.parent() {
            Some(up) => dir = up,
            None => break None,
        }
    };
    let Some(root) = root else { return };
    // (`-t TYPE`, `-tTYPE`, `--hook-type TYPE`, `--hook-type=TYPE`.)
    let words: Vec<String> = call.args.iter().map(|a| a.known().unwrap_or_default()).collect();
    let mut types = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let value = match w.as_str() {
            "-t" | "--hook-type" => words.get(i + 1).cloned(),
            _ => w.strip_prefix("--hook-type=").or_else(|| w.strip_prefix("-t")).map(str::to_string),
        };
        types.extend(value.filter(|v| !v.is_empty() && !v.contains('/')));
    }
    if types.is_empty() {
        types.push("pre-commit".into());
    }
    for t in types {
        let hook = format!("{}/.git/hooks/{t}", root.display());
        out.path(&literal(&hook, call.pos), &[Perm::Write], "installs a git hook");
    }
}

/// Where an installer that serves one interpreter (`pip`) puts packages.
enum Environment {
    /// The environment at this prefix (a virtual environment, a version manager's interpreter).
    Prefix(String),
    /// The system's interpreter.
    System,
    /// Not known here (`PATH` changed by code the analysis could not read).
    Unknown,
}

/// The environment of the program `call` runs: the activated virtual environment
/// (`VIRTUAL_ENV`) for a program found on `PATH`, else the directory the program is found in
/// (named by path, or the first `PATH` entry that holds it; an entry that does not exist yet is
/// taken to be a virtual environment the program is making), one level up from its `bin`.
fn environment(call: &Call, var: &dyn Fn(&str) -> Option<String>) -> Environment {
    let program = call.program;
    let dir = if program.contains('/') {
        match call.absolute(program) {
            Some(p) => p.rsplit_once('/').map(|(d, _)| d.to_string()).unwrap_or_default(),
            None => return Environment::Unknown,
        }
    } else {
        if let Some(venv) = var("VIRTUAL_ENV") {
            return Environment::Prefix(crate::scope::normalize("/", &venv));
        }
        let Some(path) = var("PATH") else { return Environment::Unknown };
        let found = crate::scope::path_dirs(Some(path.as_bytes())).find(|d| {
            let candidate = crate::analysis::bytes::from_os(&std::path::Path::new(d).join(program));
            crate::analysis::asked::is_file(&candidate) || !crate::analysis::asked::exists(d)
        });
        match found {
            Some(d) => d,
            None => return Environment::Unknown,
        }
    };
    let prefix = dir.strip_suffix("/bin").filter(|p| !p.is_empty()).unwrap_or(&dir).to_string();
    if crate::scope::is_system_path(&prefix) || crate::scope::is_system_path(&dir) {
        Environment::System
    } else {
        Environment::Prefix(prefix)
    }
}

/// The URL in `word` whose `://` is at `i`: the whole word, or what follows `--option=`.
fn url_start(word: &str, i: usize) -> &str {
    let start = word[..i].rfind('=').map_or(0, |e| e + 1);
    &word[start..]
}

#[cfg(test)]
mod tests {
    use super::super::{Effect, assert_once, bits_of as needs, effects_of, effects_with};
    use super::FETCHES;
    use crate::mode::{Perm, Scope};

    const RUNS: (Scope, Perm) = (Scope::Workspace, Perm::Execute);
    const FETCH: (Scope, Perm) = (Scope::Network, Perm::Read);

    #[test]
    fn each_tool_is_in_one_line() {
        assert_once("download", FETCHES.iter().map(|(names, _)| *names));
    }

    #[test]
    fn builds_run_code_and_fetch_by_subcommand() {
        assert_eq!(needs("make"), vec![RUNS]);
        assert_eq!(needs("cargo build"), vec![RUNS, FETCH]);
        assert_eq!(needs("cargo fmt"), vec![RUNS]);
        assert_eq!(needs("go mod download"), vec![RUNS, FETCH]);
        assert_eq!(needs("go mod tidy"), vec![RUNS, FETCH]);
        assert_eq!(needs("go vet"), vec![RUNS]);
        assert_eq!(needs("gradle test"), vec![RUNS, FETCH]);
        assert_eq!(needs("npm publish"), vec![RUNS, FETCH, (Scope::Network, Perm::Write)]);
    }

    #[test]
    fn urls_on_the_command_line_are_named_as_targets() {
        let targets = |p: &str| -> Vec<String> {
            effects_of(p)
                .into_iter()
                .filter_map(|e| match e {
                    Effect::Need { scope: Scope::Network, target, .. } => Some(target),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(
            targets("pip install --index-url=https://mirror.test/simple -i http://b.test/s x"),
            ["pip", "https://mirror.test/simple", "http://b.test/s"]
        );
        assert_eq!(targets("cargo install --git https://git.test/r"), ["cargo", "https://git.test/r"]);
        assert_eq!(targets("npm publish --registry https://r.test/"), ["npm", "npm", "https://r.test/"]);
        assert!(targets("make URL=https://x.test/").is_empty(), "a build that fetches nothing names nothing");
    }

    #[test]
    fn installs_land_where_the_tool_puts_them() {
        assert_eq!(needs("npm install -g x"), vec![RUNS, FETCH, (Scope::System, Perm::Write)]);
        assert!(matches!(effects_of("npm install").last(), Some(Effect::Cwd { perms: [Perm::Write], .. })));
        // No venv, no --user, no target: the interpreter's own site-packages.
        // The system's pip: its site-packages.
        let system_path = |n: &str| (n == "PATH").then(|| "/usr/local/bin:/usr/bin:/bin".to_string());
        let needs_with = |line: &str, var: &dyn Fn(&str) -> Option<String>| -> Vec<(Scope, Perm)> {
            effects_with(line, var)
                .into_iter()
                .filter_map(|e| match e {
                    Effect::Need { scope, perm, .. } => Some((scope, perm)),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(needs_with("pip install requests", &system_path), vec![RUNS, FETCH, (Scope::System, Perm::Write)]);
        // A virtual environment's pip, by path or first on PATH (about to be made or there):
        // that environment.
        let venv_path = |n: &str| (n == "PATH").then(|| "/w/.venv-not-made-yet/bin:/usr/bin".to_string());
        let activated = |n: &str| (n == "VIRTUAL_ENV").then(|| "/w/.venv".to_string());
        for (line, var) in [
            ("pip install -e . pytest", &venv_path as &dyn Fn(&str) -> Option<String>),
            ("pip install requests", &activated),
        ] {
            let e = effects_with(line, var);
            assert!(
                e.iter().any(|e| matches!(e, Effect::Path { arg, perms: [Perm::Write], .. }
                    if arg.known().is_some_and(|p| p.starts_with("/w/.venv")))),
                "{line}: {e:?}"
            );
            assert!(!needs_with(line, var).contains(&(Scope::System, Perm::Write)), "{line}");
        }
        // PATH changed by code the analysis could not read: the kernel decides.
        assert!(
            matches!(effects_of("pip install requests").last(), Some(Effect::Unresolved { .. })),
            "{:?}",
            effects_of("pip install requests")
        );
        let e = effects_of("pip install --target vendor requests");
        assert!(
            matches!(e.last(), Some(Effect::Path { arg, perms: [Perm::Write], .. }) if arg.raw == "vendor"),
            "{e:?}"
        );
        // Without HOME the cargo home is not known.
        assert!(
            matches!(effects_of("cargo install ripgrep").last(), Some(Effect::Unresolved { text, .. }) if text == "$CARGO_HOME")
        );
    }

    #[test]
    fn reports_run_no_project_code() {
        assert_eq!(needs("npm ls"), vec![]);
        assert_eq!(needs("npm view left-pad"), vec![FETCH]);
        assert_eq!(needs("pip list"), vec![]);
        assert_eq!(needs("npm --version"), vec![]);
        assert_eq!(needs("npm test"), vec![RUNS]);
        assert_eq!(needs("npm run ls"), vec![RUNS]);
    }

    #[test]
    fn make_reads_its_directory_and_makefile() {
        let e = effects_of("make -C /etc -f other.mk");
        assert!(
            e.iter().any(|e| matches!(e, Effect::Path { arg, perms: [Perm::Read], .. } if arg.raw == "/etc")),
            "{e:?}"
        );
        assert!(
            e.iter().any(|e| matches!(e, Effect::Path { arg, perms: [Perm::Read], .. } if arg.raw == "other.mk")),
            "{e:?}"
        );
    }
}
