//! `git`: global options (`-C`, `-c`, `--git-dir`, …, read with the table row's grammar), then a
//! subcommand. What each subcommand does to the repository, and its option grammar, is data in
//! [`SUBCOMMANDS`]; the code below adds only what a few of them do besides (the files they
//! name, the hooks they copy, the configuration keys that make git run programs).

use super::{Args, Call, Effects, getopt, literal, sub_arg};
use crate::analysis::Pos;
use crate::analysis::word::Arg;
use crate::mode::{Perm, Scope};

/// What a subcommand does to the repository it works in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Does {
    /// Help and version.
    Nothing,
    /// Reads the repository.
    Reads,
    /// Changes the work tree or the repository.
    Changes,
    /// Changes them, and runs the repository's hooks or configured programs.
    RunsHooks,
    /// Talks to a remote and updates the repository (`remote` only reads it, unless updating).
    Fetches,
    Clone,
    Config,
    /// Writes an archive or a bundle of the repository.
    Archive,
    /// Talks to the network for its own purpose (mail, daemons, credentials).
    Talks,
}

/// One line of the subcommand table.
struct Sub {
    names: &'static [&'static str],
    does: Does,
    /// One-letter options that take a value, and long ones.
    short_args: &'static str,
    long_args: &'static [&'static str],
}

const fn sub(names: &'static [&'static str], does: Does) -> Sub {
    Sub { names, does, short_args: "", long_args: &[] }
}

const fn with_args(
    names: &'static [&'static str],
    does: Does,
    short_args: &'static str,
    long_args: &'static [&'static str],
) -> Sub {
    Sub { names, does, short_args, long_args }
}

/// git's subcommands. A name that is not here is an alias or an external `git-*` program,
/// which may run anything.
const SUBCOMMANDS: &[Sub] = &[
    sub(&["help", "version"], Does::Nothing),
    sub(
        &[
            "status",
            "log",
            "diff",
            "show",
            "blame",
            "grep",
            "ls-files",
            "ls-tree",
            "rev-parse",
            "describe",
            "shortlog",
            "reflog",
            "cat-file",
            "rev-list",
            "whatchanged",
            "show-ref",
            "for-each-ref",
            "name-rev",
            "merge-base",
            "count-objects",
            "fsck",
            "check-ignore",
            "check-attr",
            "var",
            "annotate",
            "show-branch",
            "cherry",
            "range-diff",
            "diff-tree",
            "diff-files",
            "diff-index",
            "verify-commit",
            "verify-tag",
            "request-pull",
            "bugreport",
            "check-ref-format",
        ],
        Does::Reads,
    ),
    with_args(&["format-patch"], Does::Reads, "o", &["output-directory"]),
    sub(
        &[
            "add",
            "rm",
            "mv",
            "restore",
            "reset",
            "clean",
            "gc",
            "repack",
            "prune",
            "update-index",
            "apply",
            "notes",
            "update-ref",
            "symbolic-ref",
            "read-tree",
            "write-tree",
            "commit-tree",
            "hash-object",
            "mktag",
            "mktree",
            "pack-refs",
            "maintenance",
            "sparse-checkout",
            "replace",
            "unpack-objects",
            "index-pack",
            "fast-import",
            "lfs",
            "stash",
            "branch",
            "tag",
            "worktree",
        ],
        Does::Changes,
    ),
    with_args(
        &["init"],
        Does::Changes,
        "b",
        &["template", "separate-git-dir", "object-format", "ref-format", "initial-branch"],
    ),
    sub(
        &[
            "merge",
            "rebase",
            "checkout",
            "switch",
            "am",
            "cherry-pick",
            "revert",
            "bisect",
            "filter-branch",
            "difftool",
            "mergetool",
            "filter-repo",
            "submodule",
            "pull",
            "push",
        ],
        Does::RunsHooks,
    ),
    with_args(&["commit"], Does::RunsHooks, "FCcmt", &["file", "template"]),
    sub(&["fetch", "ls-remote", "remote"], Does::Fetches),
    with_args(
        &["clone"],
        Does::Clone,
        "objuc",
        &[
            "origin",
            "branch",
            "reference",
            "depth",
            "template",
            "config",
            "separate-git-dir",
            "upload-pack",
            "server-option",
            "filter",
            "jobs",
        ],
    ),
    with_args(&["config"], Does::Config, "f", &["file", "blob", "type", "default", "comment"]),
    with_args(&["archive", "bundle"], Does::Archive, "o", &["output", "remote"]),
    sub(
        &[
            "send-email",
            "daemon",
            "instaweb",
            "http-push",
            "svn",
            "p4",
            "credential",
            "credential-store",
            "credential-cache",
        ],
        Does::Talks,
    ),
];

/// The family's entry.
pub fn handle(call: &Call) -> Effects {
    let mut git = Git { call, out: Effects::default(), repo: Repo::Cwd };
    git.run();
    git.out
}

/// Where the repository is.
enum Repo {
    /// Where git runs.
    Cwd,
    /// `-C DIR`, as written (relative to where git runs).
    Dir(Arg),
    /// `-C` with a directory the analysis cannot know.
    Unknown(Pos),
}

struct Git<'a> {
    call: &'a Call<'a>,
    out: Effects,
    repo: Repo,
}

impl Git<'_> {
    fn run(&mut self) {
        let call = self.call;
        let (global, first) = self.global_options();
        let rest = &call.args[first..];
        for o in &global.opts {
            self.global_option(o.name.as_str(), o.value.as_ref());
        }
        let Some(name_arg) = rest.first() else { return };
        let args = &rest[1..];
        let Some(name) = name_arg.known() else {
            // `git $cmd`: any subcommand, an alias among them.
            self.repo_access(&[Perm::Read, Perm::Write], "runs an unknown git subcommand");
            self.out.unknown_code(&format!("git {}", name_arg.raw), name_arg.pos);
            return;
        };
        match SUBCOMMANDS.iter().find(|s| s.names.contains(&name.as_str())) {
            Some(sub) => self.subcommand(&name, sub, args),
            None => {
                self.repo_access(&[Perm::Read, Perm::Write], "runs an unknown git subcommand");
                self.out.unknown_code(&format!("git {name}"), name_arg.pos);
            }
        }
    }

    /// The global options, read with the row's grammar, and where the subcommand is.
    /// An option whose value the analysis cannot know (`--git-dir="$D"/.git`) is still an
    /// option: its known start says which.
    fn global_options(&mut self) -> (Args, usize) {
        let (args, short, long) = (self.call.args, self.call.short_args, self.call.long_args);
        let mut known = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            match a.known() {
                Some(t) if t == "--" || !t.starts_with('-') || t == "-" => break,
                Some(t) => {
                    let takes_value = match t.strip_prefix("--") {
                        Some(name) => long.contains(&name),
                        None => t.len() == 2 && short.contains(&t[1..]),
                    };
                    let n = if takes_value { 2 } else { 1 };
                    known.extend(args[i..(i + n).min(args.len())].iter().cloned());
                    i += n;
                }
                None => {
                    let start = a.field.prefix();
                    if !start.starts_with('-') {
                        break;
                    }
                    match start.split('=').next().unwrap_or_default() {
                        "--exec-path" => self.need(
                            Scope::Workspace,
                            Perm::Execute,
                            &a.raw,
                            "runs git programs from another directory",
                            a.pos,
                        ),
                        "--config-env" => self.config_value(a),
                        _ => {}
                    }
                    self.out.unresolved(a);
                    i += 1;
                }
            }
        }
        (getopt(&known, short, long, false), i)
    }

    fn global_option(&mut self, name: &str, value: Option<&Arg>) {
        let Some(v) = value else { return };
        match name {
            "C" => {
                self.repo = match (&self.repo, v.known()) {
                    (Repo::Unknown(_), _) | (_, None) => Repo::Unknown(v.pos),
                    (Repo::Dir(base), Some(t)) if !t.starts_with('/') => {
                        let base = base.known().unwrap_or_default();
                        Repo::Dir(sub_arg(v, &format!("{}/{t}", base.trim_end_matches('/'))))
                    }
                    _ => Repo::Dir(v.clone()),
                };
            }
            "c" => self.config_value(v),
            "config-env" => self.config_env(v),
            "exec-path" => {
                self.need(Scope::Workspace, Perm::Execute, &v.raw, "runs git programs from another directory", v.pos);
                self.out.path(v, &[Perm::Read], "uses a repository path");
            }
            "git-dir" | "work-tree" | "namespace" | "super-prefix" => {
                self.out.path(v, &[Perm::Read], "uses a repository path")
            }
            _ => {}
        }
    }

    fn need(&mut self, scope: Scope, perm: Perm, target: &str, reason: &'static str, pos: Pos) {
        self.out.need(scope, perm, target, reason, pos);
    }

    /// The repository directory, or `rel` inside it, used with `perms`. Where the walk does not
    /// know the directory git runs in, the repository is unresolved (the kernel layer bounds it).
    fn repo_path(&mut self, rel: &str, perms: &'static [Perm], reason: &'static str) {
        let pos = self.call.pos;
        let dir = match &self.repo {
            Repo::Cwd => self.call.cwd.map(str::to_string),
            Repo::Dir(d) => d.known(),
            Repo::Unknown(_) => None,
        };
        match dir {
            Some(dir) => {
                let path = if rel.is_empty() { dir } else { format!("{}/{rel}", dir.trim_end_matches('/')) };
                self.out.path(&literal(&path, pos), perms, reason)
            }
            None => {
                let at = if let Repo::Unknown(at) = self.repo { at } else { pos };
                let what = if rel.is_empty() {
                    "the repository directory".to_string()
                } else {
                    format!("the repository's {rel}")
                };
                self.out.unresolved_text(&what, at)
            }
        }
    }

    fn repo_access(&mut self, perms: &'static [Perm], reason: &'static str) {
        self.repo_path("", perms, reason);
    }

    /// Where `git push DEST` writes when DEST is a repository on this machine: a remote of
    /// the repository's own configuration whose URL is a path or a `file://` URL, or such a
    /// path or URL itself. `None` for a remote reached over the network, or one not known.
    fn local_push_target(&self, dest: &str) -> Option<String> {
        let url = self
            .repo_dir()
            .and_then(|dir| {
                let git = format!("{}/.git/config", dir.trim_end_matches('/'));
                crate::analysis::asked::text(&git).or_else(|| crate::analysis::asked::text(&format!("{dir}/config")))
            })
            .and_then(|config| remote_url(&config, dest));
        // A bare name that is no remote here is not read as a path (git would say so).
        let url = match url {
            Some(url) => url,
            None if dest.contains('/') => dest.to_string(),
            None => return None,
        };
        let path = local_repository(&url)?;
        self.call.absolute(&path)
    }

    /// The absolute directory of the repository, when it is known.
    fn repo_dir(&self) -> Option<String> {
        match &self.repo {
            Repo::Cwd => self.call.cwd.map(str::to_string),
            Repo::Dir(d) => self.call.absolute(&d.known()?),
            Repo::Unknown(_) => None,
        }
    }

    fn subcommand(&mut self, name: &str, sub: &Sub, args: &[Arg]) {
        let pos = self.call.pos;
        let options = || getopt(args, sub.short_args, sub.long_args, true);
        let words: Vec<String> = args.iter().filter_map(Arg::known).collect();
        let has = |names: &[&str]| words.iter().any(|w| names.contains(&w.as_str()));
        let target = format!("git {name}");
        // Options that name a program git runs (for the transport's other end, or an editor).
        for a in args {
            let Some(w) = a.known() else { continue };
            let option = w.split('=').next().unwrap_or("");
            let runs = matches!(option, "--upload-pack" | "--receive-pack" | "--exec")
                || (name == "ls-remote" && option == "-u");
            if runs {
                self.need(Scope::Workspace, Perm::Execute, &a.raw, "names a program git runs", a.pos);
                self.out.unknown_code(&a.raw, a.pos);
            }
        }
        // A remote named by its URL (not by a remote's name) is the network access's target,
        // which an allowlist can check before anything runs.
        let remote = options().operands.first().and_then(Arg::known).filter(|w| is_url(w)).unwrap_or(target.clone());
        match sub.does {
            Does::Nothing => {}
            Does::Reads => {
                self.repo_access(&[Perm::Read], "reads the repository");
                for o in options().values(&["o", "output-directory"]) {
                    self.out.path(&o, &[Perm::Write], "writes patches");
                }
            }
            Does::Changes if matches!(name, "clean" | "prune") && dry_run(&words) => {
                // A dry run lists what it would remove.
                self.repo_access(&[Perm::Read], "reads the repository (dry run)");
            }
            Does::Changes | Does::RunsHooks if lists_only(name, &words) => {
                self.repo_access(&[Perm::Read], "lists what the repository holds");
            }
            Does::Changes => {
                self.repo_access(&[Perm::Read, Perm::Write], "changes the work tree or the repository");
                if name == "branch" && sets_upstream(name, &words) {
                    self.safe_config_write();
                }
                if name == "worktree"
                    && words.first().is_some_and(|x| x == "add")
                    && let Some(p) = args.iter().skip(1).find(|a| a.known().is_some_and(|t| !t.starts_with('-')))
                {
                    self.out.path(p, &[Perm::Write], "creates a work tree");
                }
                if name == "init" {
                    let parsed = options();
                    let dest = parsed.operands.first();
                    if let Some(p) = dest {
                        self.out.path(p, &[Perm::Write], "creates a repository");
                    }
                    for t in parsed.values(&["template"]) {
                        self.template(&t, dest);
                    }
                }
            }
            Does::RunsHooks => {
                self.repo_access(&[Perm::Read, Perm::Write], "changes the work tree or the repository");
                if sets_upstream(name, &words) {
                    self.safe_config_write();
                }
                self.need(
                    Scope::Workspace,
                    Perm::Execute,
                    &target,
                    "runs the repository's hooks or configured programs",
                    pos,
                );
                if matches!(name, "pull" | "submodule") {
                    self.need(Scope::Network, Perm::Read, &remote, "fetches from a remote", pos);
                }
                if name == "push" {
                    self.need(Scope::Network, Perm::Write, &remote, "sends commits to a remote", pos);
                    // A repository on this machine is written, and runs its own hooks: where the
                    // mode may not write it, the push would fail halfway.
                    let dest = match options().operands.first() {
                        Some(a) => a.known(),
                        None => Some("origin".to_string()),
                    };
                    if let Some(dir) = dest.and_then(|d| self.local_push_target(&d)) {
                        self.out.path(
                            &literal(&dir, pos),
                            &[Perm::Write],
                            "pushes into a repository on this machine (and runs its hooks)",
                        );
                    }
                }
                if name == "bisect" && words.first().is_some_and(|x| x == "run") && args.len() > 1 {
                    self.out.run(args[1..].to_vec());
                }
                for f in options().values(&["F", "file", "t", "template"]) {
                    self.out.path(&f, &[Perm::Read], "reads a commit message file");
                }
            }
            Does::Fetches => {
                if name == "remote" && !has(&["update", "prune", "show"]) {
                    self.repo_access(&[Perm::Read], "reads the repository");
                    if has(&["add", "remove", "rm", "rename", "set-url", "set-head", "set-branches"]) {
                        // A URL that names a remote helper (`ext::sh -c …`) runs a program.
                        let urls_safe = words.iter().filter(|w| !w.starts_with('-')).skip(2).all(|u| safe_url(u))
                            && args.iter().all(|a| a.known().is_some());
                        if urls_safe { self.safe_config_write() } else { self.config_write() }
                    }
                    return;
                }
                self.need(Scope::Network, Perm::Read, &remote, "fetches from a remote", pos);
                if name != "ls-remote" {
                    self.repo_access(&[Perm::Read, Perm::Write], "updates the repository");
                }
            }
            Does::Clone => self.clone(&options()),
            // git config stops reading options at its first operand (`git config KEY -VALUE`).
            Does::Config => self.config(&getopt(args, sub.short_args, sub.long_args, false), &has),
            Does::Archive => {
                self.repo_access(&[Perm::Read], "reads the repository");
                for o in options().values(&["o", "output"]) {
                    self.out.path(&o, &[Perm::Write], "writes an archive");
                }
                if name == "bundle"
                    && let Some(f) = args.iter().filter(|a| a.known().is_some_and(|t| !t.starts_with('-'))).nth(1)
                {
                    self.out.path(f, &[Perm::Read, Perm::Write], "reads or writes a bundle");
                }
            }
            Does::Talks => {
                self.need(Scope::Network, Perm::Read, &target, "talks to the network", pos);
                if matches!(name, "send-email" | "http-push" | "svn" | "p4") {
                    self.need(Scope::Network, Perm::Write, &target, "sends to the network", pos);
                }
                if name.starts_with("credential") {
                    self.need(Scope::System, Perm::Read, "git credentials", "reads stored credentials", pos);
                }
            }
        }
    }

    /// Changing `.git/config` changes which programs git runs: a protected path.
    fn config_write(&mut self) {
        self.repo_path(".git/config", &[Perm::Write], "changes the repository configuration");
    }

    /// Changing `.git/config` with keys that run no program: a workspace write of that file.
    /// The kernel layer keeps it read-only but in a run that earns the relaxation (see
    /// [`crate::plain`]); the decision denies it before anything runs otherwise.
    fn safe_config_write(&mut self) {
        match self.repo_dir() {
            Some(dir) => self.need(
                Scope::Workspace,
                Perm::Write,
                &format!("{}/.git/config", dir.trim_end_matches('/')),
                SAFE_CONFIG,
                self.call.pos,
            ),
            None => self.config_write(),
        }
    }

    fn clone(&mut self, parsed: &Args) {
        let pos = self.call.pos;
        let url = parsed.operands.first().and_then(Arg::known).filter(|w| is_url(w));
        self.need(Scope::Network, Perm::Read, url.as_deref().unwrap_or("git clone"), "fetches a repository", pos);
        for c in parsed.values(&["c", "config"]) {
            self.config_value(&c);
        }
        for t in parsed.values(&["u", "upload-pack"]) {
            self.need(Scope::Workspace, Perm::Execute, &t.raw, "uses a program that runs code", t.pos);
        }
        for t in parsed.values(&["template"]) {
            let dest = parsed.operands.get(1).cloned().or_else(|| {
                // Without a directory, git names the clone after the repository.
                let url = parsed.operands.first()?.known()?;
                let name = url.trim_end_matches('/').rsplit(['/', ':']).next()?.trim_end_matches(".git").to_string();
                Some(sub_arg(&t, &name))
            });
            self.template(&t, dest.as_ref());
        }
        match parsed.operands.get(1) {
            Some(dest) => self.out.path(dest, &[Perm::Write], "creates the clone"),
            None => self.repo_access(&[Perm::Write], "creates the clone in the current directory"),
        }
    }

    fn config(&mut self, parsed: &Args, has: &dyn Fn(&[&str]) -> bool) {
        let pos = self.call.pos;
        let reads_only = has(&[
            "--get",
            "--get-all",
            "--get-regexp",
            "--get-urlmatch",
            "-l",
            "--list",
            "--show-origin",
            "--show-scope",
            "get",
            "list",
            "--name-only",
        ]) || (parsed.operands.len() <= 1
            && !has(&[
                "--unset",
                "--unset-all",
                "--add",
                "--replace-all",
                "--rename-section",
                "--remove-section",
                "-e",
                "--edit",
                "unset",
                "set",
                "edit",
                "rename-section",
                "remove-section",
            ]));
        // `git config set NAME VALUE` (git 2.46) is `git config NAME VALUE`.
        let named = parsed.operands.first().and_then(Arg::known);
        let kv = match named.as_deref() {
            Some("set") => parsed.operands.get(1..3),
            Some("get" | "list" | "unset" | "edit" | "rename-section" | "remove-section") => None,
            _ => parsed.operands.get(0..2),
        };
        if let Some([key, v]) = kv {
            let key = key.known().unwrap_or_default();
            self.config_value(&sub_arg(v, &format!("{key}={}", v.known().unwrap_or_default())));
        }
        if reads_only {
            self.repo_access(&[Perm::Read], "reads the configuration");
            return;
        }
        // The repository's own configuration, with a key that runs no program (`user.email`,
        // `remote.origin.url`), or a section of them removed or renamed.
        let local = parsed.values(&["f", "file"]).is_empty()
            && !has(&["--global", "--system", "--worktree", "-e", "--edit", "edit"]);
        let words: Vec<String> = parsed.operands.iter().filter_map(Arg::known).collect();
        let safe = match (named.as_deref(), kv) {
            (_, Some([key, value])) => match (key.known(), value.known()) {
                (Some(k), Some(v)) => safe_key(&k, Some(&v)),
                _ => false,
            },
            (Some("unset"), _) => words.get(1).is_some_and(|k| safe_key(k, None)),
            (Some("rename-section" | "remove-section"), _) => words.get(1).is_some_and(|k| safe_section(k)),
            _ if has(&["--unset", "--unset-all"]) => words.first().is_some_and(|k| safe_key(k, None)),
            _ if has(&["--remove-section", "--rename-section"]) => words.first().is_some_and(|k| safe_section(k)),
            _ => false,
        };
        if local && safe && parsed.operands.iter().all(|a| a.known().is_some()) {
            self.safe_config_write();
            self.repo_access(&[Perm::Read], "reads the configuration");
            return;
        }
        // A git configuration file other than the repository's own says which programs git
        // runs wherever it is used (`include.path`, `GIT_CONFIG_GLOBAL`): a protected write.
        if let Some(f) = parsed.values(&["f", "file"]).first() {
            self.out.path(f, &[Perm::Write], "changes a configuration file");
            self.need(
                Scope::System,
                Perm::Write,
                &f.raw,
                "changes a git configuration file (a protected path: it can make git run programs)",
                f.pos,
            );
        } else if has(&["--global"]) {
            let home = (self.call.var)("HOME").unwrap_or_default();
            let target = format!("{home}/.gitconfig");
            self.out.path(&literal(&target, pos), &[Perm::Write], "changes the user's git configuration");
            self.need(
                Scope::System,
                Perm::Write,
                &target,
                "changes the user's git configuration (a protected path: it can make git run programs)",
                pos,
            );
        } else if has(&["--system"]) {
            self.out.path(&literal("/etc/gitconfig", pos), &[Perm::Write], "changes the system's git configuration");
        } else {
            self.config_write();
        }
        self.repo_access(&[Perm::Read], "reads the configuration");
    }

    /// `git -c key=value`: some keys make git run programs.
    fn config_value(&mut self, kv: &Arg) {
        let text = kv.known().unwrap_or_default().to_ascii_lowercase();
        let key = text.split('=').next().unwrap_or("");
        if kv.known().is_none() || runs_programs(key) {
            self.need(Scope::Workspace, Perm::Execute, &kv.raw, "sets a git option that runs a program", kv.pos);
            self.out.unresolved(kv);
        }
        // Where git takes hooks from: setting it is writing hooks.
        if matches!(key, "core.hookspath" | "init.templatedir") || kv.known().is_none() {
            self.need(
                Scope::System,
                Perm::Write,
                &kv.raw,
                "sets where git takes hooks from (a protected setting: the hooks run later)",
                kv.pos,
            );
        }
    }

    /// `git --config-env NAME=ENVVAR`: the option `NAME` with the value of `$ENVVAR`.
    fn config_env(&mut self, kv: &Arg) {
        let text = kv.known();
        let value =
            text.as_deref().and_then(|t| t.split_once('=')).map(|(name, var)| (name.to_string(), (self.call.var)(var)));
        let arg = match value {
            Some((name, Some(v))) => sub_arg(kv, &format!("{name}={v}")),
            // The name is known and the value is not: still the name decides.
            Some((name, None)) => {
                let mut a = sub_arg(kv, &format!("{name}="));
                a.raw = kv.raw.clone();
                a
            }
            None => kv.clone(),
        };
        self.config_value(&arg);
    }

    /// `git init|clone --template=DIR`: the hooks of DIR are copied into the new repository.
    fn template(&mut self, template: &Arg, dest: Option<&Arg>) {
        self.out.path(template, &[Perm::Read], "copies a template directory");
        let repo = match dest.and_then(Arg::known) {
            Some(d) => Some(self.call.absolute(&d).unwrap_or(d)),
            None if dest.is_none() => self.repo_dir(),
            None => None,
        };
        let hooks = match &repo {
            Some(r) if r.ends_with(".git") || r.ends_with(".git/") => format!("{}/hooks", r.trim_end_matches('/')),
            Some(r) => format!("{}/.git/hooks", r.trim_end_matches('/')),
            None => ".git/hooks".to_string(),
        };
        self.need(
            Scope::System,
            Perm::Write,
            &hooks,
            "copies hooks from a template directory into the repository (a protected path: changing it runs code later)",
            template.pos,
        );
    }
}

/// Configuration keys whose value is a program git runs, or a file that sets such keys.
pub(crate) fn runs_programs(key: &str) -> bool {
    key.starts_with("alias.")
        || key.ends_with(".textconv")
        || key.starts_with("filter.")
        || key.starts_with("diff.") && key.ends_with(".command")
        || key.starts_with("merge.") && key.ends_with(".driver")
        || key.starts_with("includeif.")
        || matches!(
            key,
            "core.pager"
                | "core.sshcommand"
                | "core.fsmonitor"
                | "core.hookspath"
                | "core.editor"
                | "core.askpass"
                | "credential.helper"
                | "diff.external"
                | "gpg.program"
                | "sequence.editor"
                | "pager.log"
                | "pager.diff"
                | "pager.show"
                | "uploadpack.packobjectshook"
                | "core.gitproxy"
                | "protocol.ext.allow"
                | "include.path"
        )
        || key.starts_with("remote.")
            && (key.ends_with(".uploadpack") || key.ends_with(".receivepack") || key.ends_with(".proxy"))
}

/// The reason a safe configuration write gives (the decision finds those writes by their
/// scope, permission and target).
pub const SAFE_CONFIG: &str = "changes the repository configuration with keys that run no program";

/// Keys of a repository's configuration that make git run no program and name no other
/// configuration, directory or hook: who the user is, where remotes are and which branch
/// tracks which, and how git formats and merges.
const SAFE_KEYS: &[&str] = &[
    "user.name",
    "user.email",
    "user.signingkey",
    "init.defaultbranch",
    "pull.rebase",
    "pull.ff",
    "push.default",
    "push.autosetupremote",
    "push.followtags",
    "fetch.prune",
    "fetch.prunetags",
    "merge.ff",
    "rebase.autostash",
    "rebase.autosquash",
    "core.autocrlf",
    "core.eol",
    "core.filemode",
    "core.ignorecase",
    "core.quotepath",
    "core.safecrlf",
    "color.ui",
    "advice.detachedhead",
    "log.date",
    "commit.verbose",
    "status.showuntrackedfiles",
    "branch.autosetupmerge",
    "branch.autosetuprebase",
];

/// The same for keys of a named remote or branch (`remote.origin.url`).
const SAFE_SUBKEYS: &[(&str, &[&str])] = &[
    ("remote", &["url", "pushurl", "fetch", "push", "tagopt", "prune", "mirror"]),
    ("branch", &["remote", "merge", "rebase", "pushremote", "description"]),
];

/// Whether `key` (with `value`, when one is set) is one of [`SAFE_KEYS`] or [`SAFE_SUBKEYS`];
/// a remote's URL must name no remote helper either.
fn safe_key(key: &str, value: Option<&str>) -> bool {
    let lower = key.to_ascii_lowercase();
    if SAFE_KEYS.contains(&lower.as_str()) {
        return value.is_none_or(|v| !v.contains(['\n', '\r']));
    }
    let Some((section, rest)) = lower.split_once('.') else { return false };
    let Some((_, last)) = rest.rsplit_once('.') else { return false };
    let safe = SAFE_SUBKEYS.iter().any(|(s, keys)| *s == section && keys.contains(&last));
    safe && match (last, value) {
        ("url" | "pushurl", Some(v)) => safe_url(v),
        (_, Some(v)) => !v.contains(['\n', '\r']),
        (_, None) => true,
    }
}

/// A section of a remote or a branch (`remote.origin`), which `--remove-section` and
/// `--rename-section` change whole.
fn safe_section(section: &str) -> bool {
    section
        .split_once('.')
        .is_some_and(|(s, name)| matches!(s.to_ascii_lowercase().as_str(), "remote" | "branch") && !name.is_empty())
}

/// A remote's URL that names no remote helper (`ext::`, `fd::`, `anything::`) and is no option.
fn safe_url(url: &str) -> bool {
    !(url.contains("::") || url.starts_with('-') || url.contains(['\n', '\r']))
}

/// Whether the command sets a branch's upstream in the configuration: `git branch -u`,
/// `--set-upstream-to`, `--unset-upstream`, `git switch`/`checkout` with `-t`/`--track`, and
/// `git push -u`/`--set-upstream`.
fn sets_upstream(name: &str, words: &[String]) -> bool {
    let short =
        |letter: char| words.iter().any(|w| w.starts_with('-') && !w.starts_with("--") && w[1..].contains(letter));
    match name {
        "branch" => short('u') || words.iter().any(|w| w.starts_with("--set-upstream-to") || w == "--unset-upstream"),
        "switch" | "checkout" => short('t') || words.iter().any(|w| w == "--track" || w.starts_with("--track=")),
        "push" => short('u') || words.iter().any(|w| w == "--set-upstream"),
        _ => false,
    }
}

/// Whether a subcommand that can change the repository only lists here: `git branch` with no
/// name and no changing option (`-a`, `-vv`, `--list`), `git tag` without one (`-l`),
/// `git stash list|show`, `git worktree list`, `git notes list|show`, `git submodule
/// status|summary` (and plain `git submodule`).
fn lists_only(name: &str, words: &[String]) -> bool {
    let first = words.iter().find(|w| !w.starts_with('-')).map(String::as_str);
    match name {
        "branch" | "tag" => {
            // Options that change, and those whose value is a commit or pattern (not a name to
            // create).
            let changes: &[&str] = if name == "branch" {
                &[
                    "-d",
                    "-D",
                    "--delete",
                    "-m",
                    "-M",
                    "--move",
                    "-c",
                    "-C",
                    "--copy",
                    "-u",
                    "--set-upstream-to",
                    "--unset-upstream",
                    "--edit-description",
                    "-f",
                    "--force",
                    "-t",
                    "--track",
                    "--no-track",
                    "--create-reflog",
                ]
            } else {
                &[
                    "-d",
                    "--delete",
                    "-a",
                    "--annotate",
                    "-s",
                    "--sign",
                    "-u",
                    "--local-user",
                    "-m",
                    "--message",
                    "-F",
                    "--file",
                    "-f",
                    "--force",
                    "-e",
                    "--edit",
                    "--create-reflog",
                ]
            };
            let takes: &[&str] = &[
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--points-at",
                "--sort",
                "--format",
                "--color",
                "--column",
                "--abbrev",
            ];
            if words.iter().any(|w| {
                changes.contains(&w.as_str())
                    || changes.iter().any(|c| c.starts_with("--") && w.starts_with(&format!("{c}=")))
            }) {
                return false;
            }
            // A short cluster with a changing letter (`-vd`).
            let letters = if name == "branch" { "dDmMcCuft" } else { "dasumFfe" };
            if words
                .iter()
                .any(|w| w.starts_with('-') && !w.starts_with("--") && w[1..].chars().any(|c| letters.contains(c)))
            {
                return false;
            }
            let listing = words.iter().any(|w| {
                matches!(
                    w.as_str(),
                    "-l" | "--list" | "-a" | "--all" | "-r" | "--remotes" | "-v" | "-vv" | "-n" | "--show-current"
                )
            }) || words.iter().any(|w| w.starts_with("-n"));
            // Operands are names to create, unless listing (then they are patterns) or they are
            // the value of an option.
            let mut operands = 0;
            let mut skip = false;
            for w in words {
                if skip {
                    skip = false;
                    continue;
                }
                if takes.contains(&w.as_str()) {
                    skip = true;
                } else if !w.starts_with('-') {
                    operands += 1;
                }
            }
            listing || operands == 0
        }
        "stash" => matches!(first, Some("list" | "show")),
        "worktree" => first == Some("list"),
        "notes" => matches!(first, Some("list" | "show")),
        "submodule" => matches!(first, None | Some("status" | "summary")),
        _ => false,
    }
}

/// `git clean -n`, `-nd`, `--dry-run`: lists what it would remove.
fn dry_run(words: &[String]) -> bool {
    let cluster = |w: &str| {
        w.starts_with('-') && !w.starts_with("--") && w[1..].bytes().all(|b| b.is_ascii_alphabetic()) && w.contains('n')
    };
    words.iter().any(|w| w == "--dry-run" || cluster(w)) && !words.iter().any(|w| w == "--no-dry-run")
}

/// Whether a remote is given as a URL (`https://host/r.git`) or as ssh's `user@host:path`,
/// not as the name of a configured remote.
/// The `url` of `[remote "NAME"]` in a git configuration file's text.
fn remote_url(config: &str, name: &str) -> Option<String> {
    let header = format!("[remote \"{name}\"]");
    let mut inside = false;
    for line in config.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == header;
            continue;
        }
        if inside
            && let Some((key, value)) = line.split_once('=')
            && key.trim().eq_ignore_ascii_case("url")
        {
            return Some(value.trim().trim_matches('"').to_string());
        }
    }
    None
}

/// The path of a repository URL that is on this machine (a path, `file://`); git reads
/// `host:path` as ssh and any other `scheme://` as that transport.
fn local_repository(url: &str) -> Option<String> {
    if let Some(path) = url.strip_prefix("file://") {
        return Some(path.to_string());
    }
    if url.contains("://") {
        return None;
    }
    match (url.find(':'), url.find('/')) {
        (Some(colon), slash) if slash.is_none_or(|s| colon < s) => None,
        _ => Some(url.to_string()),
    }
}

fn is_url(word: &str) -> bool {
    word.contains("://") || word.split_once(':').is_some_and(|(h, _)| h.contains('@') && !h.contains('/'))
}

#[cfg(test)]
mod tests {
    use super::super::{Effect, assert_once, effects_of, needs_of as needs, paths_of as paths};
    use super::SUBCOMMANDS;
    use crate::mode::{Perm, Scope};

    #[test]
    fn each_subcommand_is_in_one_line() {
        assert_once("git subcommand", SUBCOMMANDS.iter().map(|s| s.names));
    }

    #[test]
    fn listings_are_reads_and_changes_are_not() {
        for line in [
            "git branch",
            "git branch -a",
            "git branch -vv",
            "git branch --list feat*",
            "git branch --contains HEAD",
            "git branch --show-current",
            "git tag",
            "git tag -l v1*",
            "git tag -n5",
            "git stash list",
            "git stash show -p",
            "git worktree list",
            "git notes list",
            "git submodule",
            "git submodule status",
        ] {
            assert_eq!(paths(line), vec![("/w".to_string(), &[Perm::Read][..])], "{line}");
        }
        for line in [
            "git branch new",
            "git branch -d old",
            "git branch -vd old",
            "git branch -u origin/main",
            "git branch --set-upstream-to=origin/main",
            "git tag v1",
            "git tag -a v1 -m x",
            "git stash",
            "git stash pop",
            "git worktree add ../x",
            "git notes add -m x",
            "git submodule update",
        ] {
            assert!(paths(line).iter().any(|(_, p)| p.contains(&Perm::Write)), "{line}");
        }
    }

    #[test]
    fn reading_subcommands_read_the_cwd() {
        assert_eq!(effects_of("git status").len(), 1);
        assert_eq!(paths("git log -p"), vec![("/w".to_string(), &[Perm::Read][..])]);
        assert!(needs("git diff HEAD").is_empty());
    }

    #[test]
    fn minus_c_moves_the_repository_and_chains() {
        assert_eq!(paths("git -C /etc status"), vec![("/etc".to_string(), &[Perm::Read][..])]);
        assert_eq!(paths("git -C /srv -C repo status"), vec![("/srv/repo".to_string(), &[Perm::Read][..])]);
        // A remote added with a plain URL is a safe configuration write of that repository;
        // one that names a remote helper is a protected one.
        assert_eq!(paths("git -C /srv remote add o x"), vec![("/srv".to_string(), &[Perm::Read][..])]);
        assert!(needs("git -C /srv remote add o x").contains(&(
            Scope::Workspace,
            Perm::Write,
            "/srv/.git/config".into()
        )));
        assert_eq!(
            paths("git -C /srv remote add o ext::sh"),
            vec![("/srv".to_string(), &[Perm::Read][..]), ("/srv/.git/config".to_string(), &[Perm::Write][..])]
        );
    }

    #[test]
    fn configuration_keys_that_run_no_program_are_safe_writes() {
        let safe = |line: &str| {
            needs(line).iter().any(|(s, p, t)| *s == Scope::Workspace && *p == Perm::Write && t == "/w/.git/config")
        };
        for line in [
            "git config user.name A",
            "git config set user.email a@b",
            "git config --unset remote.origin.url",
            "git config remote.origin.url https://x.test/r.git",
            "git config --remove-section branch.old",
            "git remote add origin https://x.test/r.git",
            "git remote set-url origin git@x.test:r.git",
            "git branch -u origin/main",
            "git branch --set-upstream-to=origin/main",
            "git switch --track origin/feat",
            "git checkout -t origin/feat",
            "git push -u origin main",
        ] {
            assert!(safe(line), "{line}: {:?}", effects_of(line));
        }
        for line in [
            "git config core.hooksPath .h",
            "git config core.fsmonitor x",
            "git config alias.x !sh",
            "git config include.path x",
            "git config remote.origin.url ext::sh",
            "git config --global user.name A",
            "git config -f other user.name A",
            "git config --remove-section core",
            "git remote add o ext::sh",
        ] {
            assert!(!safe(line), "{line}");
        }
    }

    #[test]
    fn hooks_and_network_by_subcommand() {
        let n = needs("git push origin main");
        assert!(n.contains(&(Scope::Workspace, Perm::Execute, "git push".into())));
        assert!(n.contains(&(Scope::Network, Perm::Write, "git push".into())));
        assert_eq!(needs("git fetch"), vec![(Scope::Network, Perm::Read, "git fetch".into())]);
        assert_eq!(
            needs("git ls-remote https://x/r.git"),
            vec![(Scope::Network, Perm::Read, "https://x/r.git".into())]
        );
    }

    #[test]
    fn options_that_run_programs() {
        let n = needs("git -c core.pager=less log");
        assert_eq!(n, vec![(Scope::Workspace, Perm::Execute, "core.pager=less".into())]);
        assert!(needs("git -c user.name=x log").is_empty());
        let hooks = needs("git -c core.hooksPath=h status");
        assert!(hooks.contains(&(Scope::System, Perm::Write, "core.hooksPath=h".into())));
        assert_eq!(needs("git --exec-path=/opt/g status"), vec![(Scope::Workspace, Perm::Execute, "/opt/g".into())]);
        // Without a value it prints where git's programs are: the next word is the subcommand.
        assert!(needs("git --exec-path status").is_empty());
    }

    #[test]
    fn clean_dry_run_only_reads() {
        let read = vec![("/w".to_string(), &[Perm::Read][..])];
        let change = vec![("/w".to_string(), &[Perm::Read, Perm::Write][..])];
        assert_eq!(paths("git clean -nd"), read);
        assert_eq!(paths("git clean --dry-run"), read);
        assert_eq!(paths("git clean -fd"), change);
        assert_eq!(paths("git clean -n --no-dry-run"), change);
    }

    #[test]
    fn templates_copy_hooks() {
        let n = needs("git clone --template=/t https://h/r.git dest");
        assert!(n.contains(&(Scope::System, Perm::Write, "/w/dest/.git/hooks".into())), "{n:?}");
        let n = needs("git clone --template=/t https://h/r.git");
        assert!(n.contains(&(Scope::System, Perm::Write, "/w/r/.git/hooks".into())), "{n:?}");
        let n = needs("git init --template=/t");
        assert!(n.contains(&(Scope::System, Perm::Write, "/w/.git/hooks".into())), "{n:?}");
        assert_eq!(
            paths("git clone --template=/t https://h/r.git dest").last(),
            Some(&("dest".to_string(), &[Perm::Write][..]))
        );
    }

    #[test]
    fn unknown_subcommands_run_unknown_code() {
        assert!(
            effects_of("git frobnicate")
                .iter()
                .any(|e| matches!(e, Effect::UnknownCode { what, .. } if what == "git frobnicate"))
        );
        assert!(
            effects_of("git bisect run make")
                .iter()
                .any(|e| matches!(e, Effect::Run { args, .. } if args[0].raw == "make"))
        );
        assert!(effects_of("git").is_empty());
        assert!(effects_of("git help log").is_empty());
        // An option whose value is not known is still an option: the subcommand follows.
        let e = effects_of("git --git-dir=$D fetch");
        assert!(
            e.iter().any(|e| matches!(e, Effect::Need { scope: Scope::Network, target, .. } if target == "git fetch")),
            "{e:?}"
        );
        assert!(e.iter().any(|e| matches!(e, Effect::Unresolved { text, .. } if text == "--git-dir=$D")), "{e:?}");
    }
}
