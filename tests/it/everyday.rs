//! Everyday agent work at the default mode, as a new user meets it: each workflow runs step by
//! step (one shell call per step, as agents make them) with bash and with sandbox-bash started
//! as `bash` first on `PATH`, each on a fresh copy of its fixture outside `/tmp`, and what every
//! step printed and its status are compared. pip, npm and cargo install from registries the test
//! serves on loopback, so nothing leaves the machine. Each relaxation the workflows rely on has
//! its kernel test beside them: what must stay forbidden (an untracked `.env`, `~/.ssh`, a hook,
//! the user's own caches) still is, through paths the static layer does not see.
#![cfg(target_os = "linux")]

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use crate::lab::{self, SB, text};
use sandbox_bash::outside::session::NAME_VAR;

/// The registries of `net/registries.py` on a port of their own, stopped when dropped.
struct Registries {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Registries {
    fn start() -> Registries {
        let dir = tempfile::Builder::new().prefix("sbx-registries-").tempdir_in(base()).unwrap();
        let script = dir.path().join("registries.py");
        std::fs::write(&script, include_str!("net/registries.py")).unwrap();
        let mut child = Command::new("python3").arg(&script).stdout(Stdio::piped()).spawn().unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.trim().parse().unwrap_or_else(|_| panic!("the registries did not start: {line:?}"));
        Registries { child, port, _dir: dir }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }
}

impl Drop for Registries {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where fixtures live: the build's own temporary directory, never `/tmp`.
fn base() -> PathBuf {
    let t = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    assert!(!t.starts_with("/tmp"), "the fixtures must live outside /tmp: {}", t.display());
    t
}

/// The toolchain the machine has (rustup's proxies and their home), for the cargo steps.
fn cargo_dir() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find(|d| d.join("cargo").is_file())
}

fn rustup_home() -> Option<String> {
    std::env::var("RUSTUP_HOME").ok().or_else(|| std::env::var("HOME").ok().map(|h| format!("{h}/.rustup")))
}

/// One fresh fixture: a workspace and a home of its own, and a directory whose `bash` is a
/// link to sandbox-bash.
struct Fixture {
    root: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
    bin: PathBuf,
    /// Directories put first on `PATH` by the caller (a version manager's shims).
    path_first: Vec<PathBuf>,
    /// The steps run as the unprivileged user nobody (the fixture is theirs).
    as_nobody: bool,
}

impl Fixture {
    fn new(build: &dyn Fn(&Path, &Path)) -> Fixture {
        lab::require_landlock();
        let root = tempfile::Builder::new().prefix("sbx-everyday-").tempdir_in(base()).unwrap();
        let (ws, home, bin) = (root.path().join("ws"), root.path().join("home"), root.path().join("bin"));
        for d in [&ws, &home.join(".ssh"), &bin] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::os::unix::fs::symlink(SB, bin.join("bash")).unwrap();
        std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE KEY CANARY\n").unwrap();
        std::fs::write(
            home.join(".gitconfig"),
            "[user]\n\tname = Agent\n\temail = agent@example.test\n[init]\n\tdefaultBranch = main\n",
        )
        .unwrap();
        build(&ws, &home);
        Fixture { root, ws, home, bin, path_first: Vec::new(), as_nobody: false }
    }

    /// `script` fed on standard input (`bash -s`) sandboxed at `mode`: the static layer does not
    /// read it, so only the kernel stands in the way.
    fn feed(&self, mode: &'static str, script: &str) -> Output {
        use std::io::Write;
        let mut c = self.command(Shell::Sandboxed(mode));
        c.arg("-s").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    }

    /// `program` run as one step, with bash or sandboxed at `mode` (sandbox-bash started as
    /// `bash`, first on PATH, so every nested `bash` is sandbox-bash too).
    fn step(&self, shell: Shell, program: &str) -> Output {
        let mut c = self.command(shell);
        c.arg("-c").arg(program).stdin(Stdio::null());
        c.output().unwrap()
    }

    /// The shell, its environment and working directory, without arguments.
    fn command(&self, shell: Shell) -> Command {
        let mut path: String = self.path_first.iter().map(|d| format!("{}:", d.display())).collect();
        let mut c = match shell {
            Shell::Bash => Command::new("/bin/bash"),
            Shell::Sandboxed(_) => {
                path.push_str(&format!("{}:", self.bin.display()));
                Command::new(self.bin.join("bash"))
            }
        };
        if let Some(d) = cargo_dir() {
            path.push_str(&format!("{}:", d.display()));
        }
        path.push_str("/usr/local/bin:/usr/bin:/bin");
        c.current_dir(&self.ws).env_clear();
        if let Shell::Sandboxed(mode) = shell {
            c.env("BASH_AGENT_BASH_MODE", mode);
        }
        c.env("HOME", &self.home).env("PATH", path).env("LANG", "C.UTF-8").env("USER", "agent");
        c.env("CARGO_HOME", self.home.join(".cargo")).env("CARGO_TERM_COLOR", "never");
        if let Some(r) = rustup_home() {
            c.env("RUSTUP_HOME", r);
        }
        // The same commits in both copies.
        for v in ["GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"] {
            c.env(v, "2026-01-01T00:00:00Z");
        }
        c.env("npm_config_update_notifier", "false").env("npm_config_fund", "false").env("npm_config_audit", "false");
        c.env("PIP_DISABLE_PIP_VERSION_CHECK", "1");
        if self.as_nobody {
            std::os::unix::process::CommandExt::uid(&mut c, 65534);
            std::os::unix::process::CommandExt::gid(&mut c, 65534);
        }
        c
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.ws.join(rel)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shell {
    Bash,
    Sandboxed(&'static str),
}

/// What a step said, comparable between two fixtures: the status and the output, with the
/// fixture's own paths replaced, and without what sandbox-bash told of refusals while it ran
/// (bash has no boundary to tell of).
fn seen(f: &Fixture, out: &Output) -> (Option<i32>, String, String) {
    let root = f.root.path().display().to_string();
    let clean = |b: &[u8]| text(b).replace(&root, "<root>");
    (out.status.code(), clean(&out.stdout), crate::common::untold(&clean(&out.stderr)))
}

/// Runs `steps` one by one with bash in one copy of the fixture and sandboxed at `mode` in
/// another, and asserts that each printed the same and ended the same.
fn same_as_bash(build: &dyn Fn(&Path, &Path), mode: &'static str, steps: &[String]) -> (Fixture, Fixture) {
    let (bash, sandboxed) = (Fixture::new(build), Fixture::new(build));
    for program in steps {
        let want = seen(&bash, &bash.step(Shell::Bash, program));
        let got = seen(&sandboxed, &sandboxed.step(Shell::Sandboxed(mode), program));
        assert_eq!(got, want, "at {mode}, `{program}` differs from bash (left: sandbox-bash, right: bash)");
    }
    (bash, sandboxed)
}

/// The step was denied by the static layer before anything ran: status 126 and the marker.
#[track_caller]
fn denied(out: &Output, says: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "expected a denial\n{err}");
    assert!(err.starts_with("sandbox-bash: denied:"), "{err}");
    assert!(err.contains(says), "the denial should say {says:?}:\n{err}");
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .args::<[&str; 0], &str>([])
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
}

fn write(p: &Path, content: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, content).unwrap();
}

// ----- 1 and 2: a repository that tracks keys and files named like secrets --------------------

/// A Vite-style project: a committed `.env`, a test certificate, a tokenizer, source and
/// documentation named with words of secrets, and an untracked `.env.local` with a secret.
fn project(ws: &Path, _home: &Path) {
    write(&ws.join(".env"), "VITE_API=http://localhost:5173\n");
    write(&ws.join("certs/server.pem"), "-----BEGIN CERTIFICATE-----\nTEST CERT\n-----END CERTIFICATE-----\n");
    write(&ws.join("tokenizer.json"), "{\"model\": \"bpe\"}\n");
    write(&ws.join("special_tokens_map.json"), "{\"pad\": \"<pad>\"}\n");
    write(&ws.join("credentials.example.json"), "{\"key\": \"REPLACE_ME\"}\n");
    write(&ws.join("docs/secret_santa.md"), "# Secret Santa\n");
    write(&ws.join("src/tokenizer.py"), "def tokenize(s):\n    return s.split()\n");
    write(&ws.join("src/csrf_token.py"), "TOKEN_LENGTH = 32\n");
    write(&ws.join("src/token.rs"), "pub struct Token;\n");
    write(&ws.join("src/auth_token_test.go"), "package auth\n");
    write(&ws.join("node_modules/js-tokens/index.js"), "module.exports = /x/;\n");
    write(&ws.join(".gitignore"), "node_modules/\n*.local\n");
    git(ws, &["init", "-q", "-b", "main"]);
    git(ws, &["-c", "user.name=U", "-c", "user.email=u@x", "add", "-A"]);
    git(ws, &["-c", "user.name=U", "-c", "user.email=u@x", "commit", "-qm", "init"]);
    write(&ws.join(".env.local"), "API_SECRET=LOCAL SECRET CANARY\n");
}

fn project_steps() -> Vec<String> {
    [
        "git status --short",
        "git diff --stat && echo clean",
        "cat .env certs/server.pem tokenizer.json src/tokenizer.py",
        "cat special_tokens_map.json credentials.example.json docs/secret_santa.md node_modules/js-tokens/index.js",
        "cat src/token.rs src/auth_token_test.go",
        "sed -i s/32/64/ src/csrf_token.py && git diff --stat",
        "git stash -q && git stash list | wc -l && git stash pop -q && git status --short",
        "git add -A && git commit -qm work && git log --oneline | wc -l",
        "echo VITE_API=elsewhere > .env && git diff --stat && git checkout -- .env && cat .env",
        "git show HEAD:certs/server.pem | head -1",
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn a_repository_that_tracks_keys_works_as_under_bash() {
    let (_, sandboxed) = same_as_bash(&project, "0467", &project_steps());
    // The secrets stay secret: the untracked .env.local and the home's keys, refused by the
    // static layer when named and by the kernel when read from Python.
    denied(&sandboxed.step(Shell::Sandboxed("0467"), "cat .env.local"), "missing system read (4000)");
    for target in [sandboxed.path(".env.local"), sandboxed.home.join(".ssh/id_ed25519")] {
        let out =
            sandboxed.step(Shell::Sandboxed("0467"), &lab::py(&format!("print(open({:?}).read())", target.display())));
        lab::kernel_refused(&out, &[]);
        assert!(!text(&out.stdout).contains("CANARY"));
    }
    // Positive control: with system read both are readable.
    let out = sandboxed.step(Shell::Sandboxed("4467"), "cat .env.local");
    assert_eq!(text(&out.stdout), "API_SECRET=LOCAL SECRET CANARY\n", "{}", text(&out.stderr));
}

#[test]
fn reads_of_a_repository_that_tracks_keys_work_read_only() {
    let reads: Vec<String> = project_steps()
        .into_iter()
        .filter(|s| !s.contains("sed") && !s.contains("git add") && !s.contains(">"))
        .collect();
    let reads: Vec<String> = reads.into_iter().filter(|s| !s.contains("stash")).collect();
    let (_, sandboxed) = same_as_bash(&project, "0444", &reads);
    denied(&sandboxed.step(Shell::Sandboxed("0444"), "git stash"), "missing workspace write (0002)");
}

/// Being tracked is not enough: a working copy changed from what the repository stores (a
/// committed template filled with a real secret), and a file marked tracked without its content
/// ever being stored, stay masked.
#[test]
fn a_tracked_name_with_content_the_repository_does_not_hold_stays_masked() {
    let f = Fixture::new(&project);
    write(&f.path(".env"), "VITE_API=http://localhost:5173\nREAL_SECRET=FILLED IN CANARY\n");
    write(&f.path("forged.key"), "UNREAD KEY CANARY\n");
    // Marked tracked with a blob id the command could name without reading the file.
    git(&f.ws, &["update-index", "--add", "--cacheinfo", "100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,forged.key"]);
    for name in [".env", "forged.key"] {
        let out =
            f.step(Shell::Sandboxed("0467"), &lab::py(&format!("print(open({:?}).read())", f.path(name).display())));
        lab::kernel_refused(&out, &[]);
        assert!(!text(&out.stdout).contains("CANARY"), "{name}");
        denied(&f.step(Shell::Sandboxed("0467"), &format!("cat {name}")), "credential path");
    }
    // The committed content is readable again once the working copy is what was committed.
    git(&f.ws, &["checkout", "--", ".env"]);
    let out =
        f.step(Shell::Sandboxed("0467"), &lab::py(&format!("print(open({:?}).read())", f.path(".env").display())));
    assert_eq!(text(&out.stdout), "VITE_API=http://localhost:5173\n\n");
}

// ----- 3: package managers --------------------------------------------------------------------

fn registry_steps(r: &Registries) -> Vec<String> {
    let mut steps = vec![
        "npm init -y >/dev/null && echo ok".to_string(),
        format!(
            "npm install --silent --registry {} tinynpm && node -e \"console.log(require('tinynpm'))\"",
            r.url("npm/")
        ),
        format!("npx --yes --registry {} tinynpm", r.url("npm/")),
        "npm ls --depth=0 | tail -1".to_string(),
        format!(
            "python3 -m venv .venv && . .venv/bin/activate && pip install -q --index-url {} tinypkg && python -c \
             'import tinypkg; print(tinypkg.VALUE)'",
            r.url("simple/")
        ),
        format!("PATH=$PWD/.venv/bin:$PATH pip install -q --index-url {} tinypkg && echo again", r.url("simple/")),
    ];
    if cargo_dir().is_some() {
        steps.push(format!(
            "cargo new -q app && mkdir app/.cargo && printf '[source.crates-io]\\nreplace-with = \"local\"\\n\
             [source.local]\\nregistry = \"sparse+{}\"\\n' > app/.cargo/config.toml && echo ok",
            r.url("cargo/index/")
        ));
        steps.push("cd app && cargo add -q tinycrate && cargo build -q && echo built".into());
    }
    steps
}

/// A home where cargo lives (its cache is made below it), as a user of cargo has.
fn tool_home(_ws: &Path, home: &Path) {
    std::fs::create_dir_all(home.join(".cargo")).unwrap();
}

#[test]
fn package_managers_install_and_fill_only_sandbox_bashs_layer_of_their_caches() {
    let r = Registries::start();
    let (bash, sandboxed) = same_as_bash(&tool_home, "0467", &registry_steps(&r));
    // Under bash the user's caches were filled; under sandbox-bash they stayed empty, and what
    // was fetched is in sandbox-bash's layers.
    assert!(bash.home.join(".npm/_cacache").is_dir());
    let real = |p: &str| sandboxed.home.join(p);
    for cache in [".npm", ".cache"] {
        let names: Vec<_> = std::fs::read_dir(real(cache)).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(names.is_empty(), "the real {cache} got {names:?}");
    }
    if cargo_dir().is_some() {
        assert!(!real(".cargo/registry/cache").exists(), "the real cargo registry was written");
    }
    let layers = real(".local/state/sandbox-bash/caches");
    let found =
        Command::new("find").arg(&layers).args(["-path", "*/upper/_cacache/index-v5", "-type", "d"]).output().unwrap();
    assert!(!text(&found.stdout).is_empty(), "npm's index is in sandbox-bash's layer of ~/.npm");
    let found = Command::new("find").arg(&layers).args(["-name", "tinycrate-0.1.0.crate"]).output().unwrap();
    assert_eq!(cargo_dir().is_some(), !text(&found.stdout).is_empty(), "cargo's download is in its layer");
}

/// What a sandboxed run writes into a cache is never seen outside: a poisoned entry written
/// from Python lands in sandbox-bash's layer, later sandboxed runs see it, and the cache that
/// programs outside the sandbox use never does.
#[test]
fn a_poisoned_cache_is_never_read_outside() {
    let f = Fixture::new(&tool_home);
    let poison = |p: &Path| {
        lab::py(&format!(
            "import os; os.makedirs(os.path.dirname({0:?}), exist_ok=True); open({0:?}, 'w').write('POISON')",
            p.display()
        ))
    };
    let targets = [
        f.home.join(".npm/_cacache/poison"),
        f.home.join(".cache/pip/poison"),
        f.home.join(".cargo/registry/cache/x/poison-1.0.crate"),
    ];
    for t in &targets {
        let out = f.step(Shell::Sandboxed("0467"), &poison(t));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        // Seen by the next sandboxed run, never by a program outside.
        let again = f.step(Shell::Sandboxed("0467"), &format!("cat {}", t.display()));
        assert_eq!(text(&again.stdout), "POISON");
        assert!(!t.exists(), "{} reached the real cache", t.display());
    }
    // The layers themselves cannot be written but through the caches.
    let upper = f.home.join(".local/state/sandbox-bash/caches");
    let out = f.step(Shell::Sandboxed("0467"), &lab::py(&format!("open({:?}, 'w')", upper.join("x").display())));
    lab::kernel_refused(&out, &[]);
    denied(&f.step(Shell::Sandboxed("0467"), &format!("echo x > {}", upper.join("x").display())), "protected path");
    // A read-only audit writes no cache, not even where the static layer does not look.
    let out = f.feed("0444", &format!("echo x > {}\n", f.home.join(".npm/y").display()));
    lab::kernel_refused(&out, &[]);
    assert!(!f.home.join(".npm/y").exists());
}

// ----- 5: removable repositories --------------------------------------------------------------

fn with_clones(ws: &Path, _home: &Path) {
    write(&ws.join("README"), "project\n");
    git(ws, &["init", "-q", "-b", "main"]);
    git(ws, &["-c", "user.name=U", "-c", "user.email=u@x", "add", "-A"]);
    git(ws, &["-c", "user.name=U", "-c", "user.email=u@x", "commit", "-qm", "init"]);
    for dest in ["sub-clone", "tests/fixtures/repo", "dist/pkg-1.0"] {
        git(ws, &["clone", "-q", ".", dest]);
    }
}

#[test]
fn a_repository_deleted_first_is_removed_as_under_bash() {
    let steps = [
        "rm -rf sub-clone && echo gone",
        "cd tests/fixtures && rm -rf repo && ls",
        "rm -rf dist/pkg-1.0 && ls dist",
        "ls",
    ]
    .map(String::from);
    same_as_bash(&with_clones, "0467", &steps);
}

#[test]
fn a_repository_is_still_held_where_code_runs_before_or_beside_its_deletion() {
    let f = Fixture::new(&with_clones);
    let hook = f.path("sub-clone/.git/hooks/post-checkout");
    // Code the analysis cannot see: the hook and the configuration stay out of reach, and a
    // deletion from there fails on them.
    let out =
        f.step(Shell::Sandboxed("0467"), &lab::py(&format!("open({:?}, 'w').write('touch PWNED')", hook.display())));
    lab::kernel_refused(&out, &[]);
    assert!(!hook.exists());
    let out = f.feed("0467", "rm -rf sub-clone\n");
    lab::kernel_refused(&out, &["Device or resource busy"]);
    assert!(f.path("sub-clone/.git/config").exists());
    // A deletion whatever follows it runs (`;`) is said before anything runs.
    denied(&f.step(Shell::Sandboxed("0467"), "rm -rf sub-clone; echo next"), "deletes the repository");
    assert!(f.path("sub-clone/.git").is_dir());
}

// ----- 6: git as agents use it ----------------------------------------------------------------

fn with_history(ws: &Path, _home: &Path) {
    write(&ws.join("README"), "project\n");
    git(ws, &["init", "-q", "-b", "main"]);
    git(ws, &["-c", "user.name=U", "-c", "user.email=u@x", "add", "-A"]);
    git(ws, &["-c", "user.name=U", "-c", "user.email=u@x", "commit", "-qm", "init"]);
    git(ws, &["tag", "v1"]);
    git(ws, &["branch", "feature"]);
    git(ws, &["init", "-q", "--bare", "-b", "main", "remote.git"]);
}

#[test]
fn listings_are_reads_at_0444() {
    let steps = [
        "git branch",
        "git branch -a",
        "git branch -vv",
        "git tag -l",
        "git stash list",
        "git worktree list",
        "git notes list",
        "git submodule status",
        "dpkg -l dpkg | tail -1 | cut -c1-20",
    ]
    .map(String::from);
    same_as_bash(&with_history, "0444", &steps);
}

#[test]
fn configuration_that_runs_no_program_is_a_workspace_write() {
    let steps = [
        "git config user.name Someone && git config user.email someone@example.test && git config user.name",
        "git remote add origin ./remote.git && git remote -v",
        "git update-ref refs/remotes/origin/feature feature && git branch -u origin/feature feature && git branch -vv",
        "git remote set-url origin ./remote.git && git config --get remote.origin.url",
        // Literal filters on a pipe, and braces that cannot expand, are still plain.
        "git remote add mirror ./remote.git && git remote -v | grep mirror | wc -l",
        "git update-ref refs/remotes/origin/side main && git branch -q -u origin/side && git rev-parse --abbrev-ref @{u}",
        "git update-ref refs/remotes/origin/topic main && git switch -q --track origin/topic && git branch -vv",
    ]
    .map(String::from);
    let (_, f) = same_as_bash(&with_history, "0467", &steps);
    // Keys that run programs stay protected, in words and at the kernel.
    let config = std::fs::read_to_string(f.path(".git/config")).unwrap();
    denied(&f.step(Shell::Sandboxed("0467"), "git config core.fsmonitor 'touch PWNED'"), "protected path");
    let out = f.step(
        Shell::Sandboxed("0467"),
        &lab::py(&format!(
            "open({:?}, 'a').write('[core]\\n\\tfsmonitor = touch PWNED\\n')",
            f.path(".git/config").display()
        )),
    );
    lab::kernel_refused(&out, &[]);
    // A safe key beside code the analysis cannot see is refused before anything runs, not
    // left to fail silently in the kernel.
    let on_their_own = "run the git commands that configure it on their own";
    for (program, says) in [
        ("git config user.name X && python3 -c pass", on_their_own),
        ("git branch -u origin/main main; npm test", on_their_own),
        // A push to a repository on this machine runs that repository's hooks (one planted by
        // an earlier call could write this configuration while it is writable): not plain.
        ("git push -q -u origin main", "a push to a repository on this machine runs that repository's hooks"),
        // A pipe into a program that runs code is not plain either.
        ("git config user.name X | xargs -0 true", on_their_own),
    ] {
        denied(&f.step(Shell::Sandboxed("0467"), program), says);
    }
    assert_eq!(std::fs::read_to_string(f.path(".git/config")).unwrap(), config);
}

/// A push to a repository on this machine runs that repository's hooks: one there (an earlier
/// call cannot plant it: a hook in a repository made in the run is refused) would write this
/// repository's configuration while a plain program had it writable. Such a push earns nothing:
/// the configuration write is refused before anything runs, and the hook that still runs (the
/// program read from standard input) cannot write it.
#[test]
fn a_push_to_a_repository_here_earns_no_writable_configuration() {
    let f = Fixture::new(&with_history);
    let canary = f.root.path().join("FSMONITOR_RAN");
    let config = f.path(".git/config");
    let hook =
        format!("#!/bin/sh\ngit config -f {} core.fsmonitor 'touch {}; false'\n", config.display(), canary.display());
    let plant = format!(
        "git init -q --bare x.git && cat > x.git/hooks/pre-receive <<'EOF'\n{hook}EOF\nchmod +x x.git/hooks/pre-receive"
    );
    // A hook written into a repository made in the run is refused: the watch holds hooks of
    // repositories the view does not.
    let out = f.step(Shell::Sandboxed("0467"), &plant);
    let err = text(&out.stderr);
    assert!(err.contains("held by the watch (a hook in a repository made during the run)"), "{err}");
    assert!(!f.path("x.git/hooks/pre-receive").exists(), "{err}");
    // The rest needs one: a local remote of the user's own that has a hook, made outside.
    std::fs::write(f.path("x.git/hooks/pre-receive"), &hook).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(f.path("x.git/hooks/pre-receive"), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let before = std::fs::read_to_string(&config).unwrap();
    denied(
        &f.step(Shell::Sandboxed("0467"), "git remote add o ./x.git && git push -q o HEAD:refs/heads/main"),
        "a push to a repository on this machine runs that repository's hooks",
    );
    let out = f.feed("0467", "git push -q ./x.git HEAD:refs/heads/main; echo pushed=$?\n");
    assert!(text(&out.stdout).contains("pushed="), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before, "the hook wrote the configuration");
    // Positive control: the same hook outside the sandbox writes it.
    let out = Command::new("git")
        .args(["push", "-q", "./x.git", "HEAD:refs/heads/side"])
        .current_dir(&f.ws)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&config).unwrap().contains("fsmonitor"));
    assert!(!canary.exists());
}

/// A repository with a hook installed runs code of its own at every git command: its
/// configuration stays read-only, and a write is refused before anything runs.
#[test]
fn a_repository_with_hooks_keeps_its_configuration_read_only() {
    let f = Fixture::new(&with_history);
    write(&f.path(".git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n");
    denied(&f.step(Shell::Sandboxed("0467"), "git config user.name X"), "no hooks");
}

// ----- 7: toolchains and virtual environments ------------------------------------------------

/// A version manager's shim (pyenv's: a bash script that hands its arguments to `pyenv exec`),
/// first on PATH.
fn with_shim(ws: &Path, home: &Path) {
    let root = home.join(".pyenv");
    write(
        &root.join("libexec/pyenv"),
        "#!/usr/bin/env bash\n[ \"$1\" = exec ] || exit 2\nshift\nprogram=$1\nshift\nexec \"/usr/bin/$program\" \"$@\"\n",
    );
    write(
        &root.join("shims/python3"),
        "#!/usr/bin/env bash\nset -e\nexport PYENV_ROOT=\"$HOME/.pyenv\"\nprogram=\"${0##*/}\"\nexec \"$PYENV_ROOT/libexec/pyenv\" exec \"$program\" \"$@\"\n",
    );
    for p in ["libexec/pyenv", "shims/python3"] {
        std::fs::set_permissions(root.join(p), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    write(&ws.join("app.py"), "print('app')\n");
}

#[test]
fn an_inline_program_through_a_shim_is_code_not_a_path() {
    let mut f = Fixture::new(&with_shim);
    // The shims are on the caller's PATH, as pyenv's installer puts them.
    f.path_first.push(f.home.join(".pyenv/shims"));
    let program = "python3 -c \"import secrets, os; print(len(secrets.token_hex(4)), os.path.exists('keys/id_rsa'))\"";
    let out = f.step(Shell::Sandboxed("0467"), program);
    assert_eq!((out.status.code(), text(&out.stdout)), (Some(0), "8 False\n".to_string()), "{}", text(&out.stderr));
}

#[test]
fn a_virtual_environment_the_program_makes_takes_its_installs() {
    let r = Registries::start();
    let steps = [format!(
        "python3 -m venv .venv && . .venv/bin/activate && pip install -q --index-url {} tinypkg && pip list | grep -c tinypkg",
        r.url("simple/")
    )];
    same_as_bash(&|_, _| {}, "0467", &steps);
}

// ----- 8: the small ones ----------------------------------------------------------------------

#[test]
fn a_start_in_the_home_with_the_user_configuration_runs_and_writes_nothing_there() {
    let f = Fixture::new(&|_, home| {
        write(&home.join(".config/sandbox-bash/config.toml"), "default_mode = \"0467\"\n");
    });
    let mut c = Command::new(SB);
    c.args(["-c", "pwd; ls ~/.config; echo x > notes.txt"]).current_dir(&f.home).env("HOME", &f.home);
    c.env("PATH", "/usr/bin:/bin").env_remove("SANDBOX_BASH_WORKSPACE").env_remove("BASH_AGENT_BASH_MODE");
    let out = c.output().unwrap();
    // The write to the home is refused in words (the home keeps the external bits).
    denied(&out, "missing external write (0200)");
    let mut c = Command::new(SB);
    c.args(["-c", "pwd; ls ~/.config"]).current_dir(&f.home).env("HOME", &f.home).env("PATH", "/usr/bin:/bin");
    c.env_remove("SANDBOX_BASH_WORKSPACE").env_remove("BASH_AGENT_BASH_MODE");
    let out = c.output().unwrap();
    assert_eq!(text(&out.stdout), format!("{}\nsandbox-bash\n", f.home.display()), "{}", text(&out.stderr));
    // Hidden writes to the home are the kernel's.
    let mut c = Command::new(SB);
    c.args(["-c", &lab::py(&format!("open({:?}, 'w')", f.home.join("notes.txt").display()))]).current_dir(&f.home);
    c.env("HOME", &f.home).env("PATH", "/usr/bin:/bin").env_remove("SANDBOX_BASH_WORKSPACE");
    lab::kernel_refused(&c.output().unwrap(), &[]);
    assert!(!f.home.join("notes.txt").exists());
}

#[test]
fn everything_allowed_runs_with_an_audit_log_whose_records_say_it_is_writable() {
    let f = Fixture::new(&|_, _| {});
    let log = f.root.path().join("audit.jsonl");
    let mut c = Command::new(SB);
    c.args(["-c", "echo ran"]).current_dir(&f.ws).env("HOME", &f.home).env("BASH_AGENT_BASH_MODE", "7777");
    c.env("SANDBOX_BASH_AUDIT_LOG", &log).env("SANDBOX_BASH_WORKSPACE", &f.ws);
    let out = c.output().unwrap();
    assert_eq!(text(&out.stdout), "ran\n", "{}", text(&out.stderr));
    assert!(
        std::fs::read_to_string(&log).unwrap().contains("these records can be changed by the commands they record")
    );
    // Below system write the same log is refused, saying where commands may not write.
    c.env("BASH_AGENT_BASH_MODE", "0667");
    let out = c.output().unwrap();
    assert_eq!(out.status.code(), Some(125));
    assert!(
        text(&out.stderr).contains("it lies in the external scope, which mode 0667 lets commands write"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_removed_secret_is_named_once() {
    let f = Fixture::new(&|_, _| {});
    let mut c = Command::new(SB);
    c.args(["-c", "echo \"${GITHUB_TOKEN:-unset}\"; bash -c true"]).current_dir(&f.ws).env("HOME", &f.home);
    c.env("GITHUB_TOKEN", "ghp_CANARY")
        .env("SANDBOX_BASH_WORKSPACE", &f.ws)
        .env("PATH", format!("{}:/usr/bin:/bin", f.bin.display()));
    let out = c.output().unwrap();
    assert_eq!(text(&out.stdout), "unset\n");
    let err = text(&out.stderr);
    assert_eq!(err.matches("GITHUB_TOKEN").count(), 1, "{err}");
    assert!(err.starts_with("sandbox-bash: note: removed from the command's environment"), "{err}");
    assert!(!err.contains("ghp_CANARY"));
}

/// At a mode that writes outside the workspace but does not grant the whole system, the home
/// itself stays read-only (start-up files that do not exist yet must not be made): a new entry
/// right in it is refused before anything runs, saying why, instead of failing with EROFS; its
/// directories take new files, an existing file is written in place, and with the whole system
/// the same entry is made.
#[test]
fn a_new_entry_right_in_the_home_is_refused_before_it_runs() {
    let f = Fixture::new(&|_, home| {
        std::fs::create_dir_all(home.join("notes")).unwrap();
        write(&home.join("todo.txt"), "one\n");
    });
    for program in ["echo x > ~/new.txt", "mkdir ~/newdir"] {
        let out = f.step(Shell::Sandboxed("0667"), program);
        denied(&out, "missing system write");
        denied(&out, "keeps read-only unless the mode grants the whole system");
    }
    denied(&f.step(Shell::Sandboxed("0667"), "touch ~/.bash_login"), "a protected path");
    // Removing an entry, or replacing one by a rename (`sed -i`), makes a new entry there too.
    for program in ["rm ~/todo.txt", "sed -i s/one/ONE/ ~/todo.txt", "mv ~/todo.txt ~/notes/"] {
        denied(&f.step(Shell::Sandboxed("0667"), program), "keeps read-only unless the mode grants the whole system");
    }
    // What the analysis cannot see meets the kernel: the same entry is not made.
    let out =
        f.step(Shell::Sandboxed("0667"), &lab::py("open(__import__('os').path.expanduser('~/.bash_login'), 'w')"));
    assert!(text(&out.stderr).contains("Read-only file system"), "{}", text(&out.stderr));
    assert!(!f.home.join(".bash_login").exists());
    // Positive controls.
    let out = f.step(Shell::Sandboxed("0667"), "echo x > ~/notes/new.txt && echo two >> ~/todo.txt && echo done");
    assert_eq!(text(&out.stdout), "done\n", "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(f.home.join("todo.txt")).unwrap(), "one\ntwo\n");
    let out = f.step(Shell::Sandboxed("7667"), "echo x > ~/new.txt && echo made");
    assert_eq!(text(&out.stdout), "made\n", "{}", text(&out.stderr));
    assert!(f.home.join("new.txt").exists());
}

// ----- what attacks on the relaxations found ------------------------------------------------

/// A plain program that earns a writable configuration still runs nothing that could write it:
/// git options that name a program, another repository's hooks, a value read as an option, and
/// a deletion that deletes nothing or deletes elsewhere earn nothing.
#[test]
fn the_relaxations_earn_nothing_for_programs_that_run_more_than_they_say() {
    let f = Fixture::new(&with_history);
    let config = std::fs::read_to_string(f.path(".git/config")).unwrap();
    // A transport that runs a program of the command's choosing.
    let fetch = "git config user.email a@b.c && git fetch '--upload-pack=sh -c \"git config core.fsmonitor x\" #' .";
    let out = f.step(Shell::Sandboxed("0467"), fetch);
    denied(&out, "missing system write (2000)");
    // A hook of another repository, in a git command of the same program.
    write(&f.path("other/.git/hooks/pre-commit"), "#!/bin/sh\necho hook\n");
    git(&f.path("other"), &["init", "-q"]);
    let out = f.step(Shell::Sandboxed("0467"), "git config user.name m && git -C other status --short");
    denied(&out, "run the git commands that configure it on their own");
    // `git config KEY -VALUE`: git reads the value as a value, and so does the analysis.
    let out = f.step(Shell::Sandboxed("0467"), "git config user.name x && git config core.hooksPath -hooks");
    denied(&out, "protected");
    assert_eq!(std::fs::read_to_string(f.path(".git/config")).unwrap(), config);
    // Deletions that delete nothing, or delete through a link, release nothing.
    git(&f.ws, &["clone", "-q", ".", "a/b/sub"]);
    std::os::unix::fs::symlink(f.path("a/b"), f.path("link")).unwrap();
    git(&f.ws, &["clone", "-q", ".", "sub"]);
    for program in
        ["rm -rf --version sub && echo next", "cd link && rm -rf ../sub && echo next", "rm -rfi sub && echo next"]
    {
        denied(&f.step(Shell::Sandboxed("0467"), program), "deletes the repository");
        assert!(f.path("sub/.git/config").exists(), "{program}");
    }
}

/// A credential swapped with a committed file of the same name while the view is being built
/// (a process left from an earlier run exchanging two directories in a loop) is never shown:
/// each run reads the committed file, or is refused, or sees the stand-in.
#[test]
fn a_secret_swapped_with_project_content_is_never_shown() {
    let f = Fixture::new(&|ws, _| {
        write(&ws.join("decoy/.env"), "DECOY=1\n");
        git(ws, &["init", "-q", "-b", "main"]);
        git(ws, &["-c", "user.name=U", "-c", "user.email=u@x", "add", "-A"]);
        git(ws, &["-c", "user.name=U", "-c", "user.email=u@x", "commit", "-qm", "decoy"]);
        write(&ws.join("config/.env"), "REAL SECRET CANARY\n");
    });
    let swapper = format!(
        "import ctypes, os, time\n\
         libc = ctypes.CDLL(None, use_errno=True)\n\
         a, b = {:?}, {:?}\n\
         end = time.time() + 8\n\
         while time.time() < end:\n    libc.renameat2(-100, a.encode(), -100, b.encode(), 2)\n",
        f.path("config").display().to_string(),
        f.path("decoy").display().to_string()
    );
    let mut child =
        Command::new("python3").args(["-c", &swapper]).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let reader = lab::py(&format!(
        "import sys\nfor d in ('config', 'decoy'):\n    try: print(open({:?} + '/' + d + '/.env').read().strip())\n    except OSError as e: print(e.strerror)",
        f.ws.display().to_string()
    ));
    let mut outcomes = std::collections::BTreeSet::new();
    for _ in 0..30 {
        let out = f.step(Shell::Sandboxed("0467"), &reader);
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(!all.contains("REAL SECRET"), "the secret was shown:\n{all}");
        outcomes.insert(if all.contains("changed while the view was being built") { "refused" } else { "ran" });
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(outcomes.contains("ran"), "{outcomes:?}");
}

/// A credential-named directory that holds a committed file is walked whole, whatever the
/// search's bounds: what in it is not committed stays masked, however deep or far it lies.
#[test]
fn a_credential_directory_with_committed_files_masks_the_rest() {
    let f = Fixture::new(&|ws, _| {
        write(&ws.join("deploy/k8s/prod/secrets/README.md"), "how the secrets are made\n");
        write(&ws.join("secrets/README.md"), "here\n");
        git(ws, &["init", "-q", "-b", "main"]);
        git(ws, &["-c", "user.name=U", "-c", "user.email=u@x", "add", "-A"]);
        git(ws, &["-c", "user.name=U", "-c", "user.email=u@x", "commit", "-qm", "docs"]);
        write(&ws.join("deploy/k8s/prod/secrets/tls.key"), "DEEP KEY CANARY\n");
        write(&ws.join("secrets/prod.key"), "NEAR KEY CANARY\n");
    });
    for (shown, hidden) in [
        ("deploy/k8s/prod/secrets/README.md", "deploy/k8s/prod/secrets/tls.key"),
        ("secrets/README.md", "secrets/prod.key"),
    ] {
        let out =
            f.step(Shell::Sandboxed("0467"), &lab::py(&format!("print(open({:?}).read())", f.path(shown).display())));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let out =
            f.step(Shell::Sandboxed("0467"), &lab::py(&format!("print(open({:?}).read())", f.path(hidden).display())));
        assert!(!text(&out.stdout).contains("CANARY"), "{hidden}");
        lab::kernel_refused(&out, &["No such file or directory"]);
    }
    // Many directories beside the near one: it is walked where it is found, not queued behind
    // them past the search's bounds.
    for i in 0..200 {
        std::fs::create_dir_all(f.path(&format!("d{i:03}"))).unwrap();
    }
    let out = f.step(
        Shell::Sandboxed("0467"),
        &lab::py(&format!("print(open({:?}).read())", f.path("secrets/prod.key").display())),
    );
    assert!(!text(&out.stdout).contains("CANARY"));
    lab::kernel_refused(&out, &[]);
}

/// What a run writes into a cache is seen only by runs that may do no more: a layer written at
/// `0467` is not the layer of a run that may read the system.
#[test]
fn a_cache_written_by_a_narrower_run_is_not_a_wider_runs() {
    let f = Fixture::new(&tool_home);
    let hook = f.home.join(".cache/pre-commit/hook.sh");
    let out = f.step(
        Shell::Sandboxed("0467"),
        &lab::py(&format!(
            "import os; os.makedirs({0:?}, exist_ok=True); open({1:?}, 'w').write('echo poisoned')",
            hook.parent().unwrap().display(),
            hook.display()
        )),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&f.step(Shell::Sandboxed("0467"), &format!("cat {}", hook.display())).stdout), "echo poisoned");
    let wider = f.step(Shell::Sandboxed("4467"), &format!("cat {} 2>&1 || echo absent", hook.display()));
    assert!(text(&wider.stdout).contains("absent"), "{}", text(&wider.stdout));
}

// ----- 4: one agent session, one set of processes --------------------------------------------

/// Whether the process `pid` is still there (a zombie counts as gone).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| s.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z')))
}

fn wait_gone(pid: u32) -> bool {
    for _ in 0..100 {
        if !running(pid) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    false
}

/// A server started in one call is stopped by a later call of the same session (`kill`,
/// `kill -0`, `pkill -f`); a process outside the session (the user's own, another session's)
/// stays out of reach. As root and as nobody.
#[test]
fn a_later_call_of_the_session_stops_what_an_earlier_one_started() {
    for nobody in [false, true] {
        let mut f = Fixture::new(&|_, _| {});
        if nobody {
            let status = Command::new("chown").arg("-R").arg("65534:65534").arg(f.root.path()).status().unwrap();
            assert!(status.success());
            f.as_nobody = true;
        }
        let start = |seconds: u32| {
            let out = f.step(Shell::Sandboxed("0467"), &format!("nohup sleep {seconds} >/dev/null 2>&1 & echo $!"));
            text(&out.stdout).trim().parse::<u32>().unwrap_or_else(|_| panic!("{}", text(&out.stderr)))
        };
        // Each sleep's command line is its own, for pkill.
        let first = start(3001);
        assert!(running(first));
        let out = f.step(Shell::Sandboxed("0467"), &format!("kill -0 {first} && kill {first} && echo stopped"));
        assert_eq!(text(&out.stdout), "stopped\n", "nobody={nobody}: {}", text(&out.stderr));
        assert!(wait_gone(first), "nobody={nobody}");
        let second = start(3002);
        let out = f.step(Shell::Sandboxed("0467"), "pkill -f 'sleep 300[2]' && echo stopped");
        assert_eq!(text(&out.stdout), "stopped\n", "nobody={nobody}: {}", text(&out.stderr));
        assert!(wait_gone(second), "nobody={nobody}");
        // Outside the session: the test's own process, and another session's.
        let mut own = Command::new("sleep");
        own.arg("300");
        if nobody {
            std::os::unix::process::CommandExt::uid(&mut own, 65534);
        }
        let mut own = own.spawn().unwrap();
        let mut other = f.command(Shell::Sandboxed("0467"));
        other.args(["-c", "nohup sleep 3003 >/dev/null 2>&1 & echo $!"]).env(NAME_VAR, "another agent");
        let other = text(&other.output().unwrap().stdout).trim().parse::<u32>().unwrap();
        for pid in [own.id(), other] {
            let out = f.step(Shell::Sandboxed("0467"), &format!("kill {pid}"));
            assert!(
                text(&out.stderr).contains("Operation not permitted"),
                "nobody={nobody} {pid}: {}",
                text(&out.stderr)
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(running(pid), "nobody={nobody}: {pid} was stopped from another session");
        }
        let _ = own.kill();
        let _ = own.wait();
        // SAFETY: a signal to a process this test started through sandbox-bash.
        unsafe { libc::kill(other as i32, libc::SIGKILL) };
    }
}

/// A server one call starts is reached by the next: a page served on loopback.
/// The port the fixture's server (`python3 -m http.server 0`, logging to `server.log`) said it
/// listens on, waited for up to five seconds.
fn server_port(f: &Fixture) -> Option<u16> {
    for _ in 0..100 {
        let log = std::fs::read_to_string(f.path("server.log")).unwrap_or_default();
        let port = log.split("port ").nth(1).and_then(|r| r.split_whitespace().next()).and_then(|p| p.parse().ok());
        if port.is_some() {
            return port;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    None
}

#[test]
fn a_server_started_in_one_call_is_reached_and_stopped_by_the_next() {
    let f = Fixture::new(&|ws, _| write(&ws.join("index.html"), "served\n"));
    let out = f.step(
        Shell::Sandboxed("0467"),
        "nohup python3 -u -m http.server 0 --bind 127.0.0.1 > server.log 2>&1 & echo $! > server.pid",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let port = server_port(&f).expect("the server said its port");
    let out = f.step(Shell::Sandboxed("0467"), &format!("curl -s http://127.0.0.1:{port}/index.html"));
    assert_eq!(text(&out.stdout), "served\n", "{}", text(&out.stderr));
    let pid: u32 = std::fs::read_to_string(f.path("server.pid")).unwrap().trim().parse().unwrap();
    let out = f.step(Shell::Sandboxed("0467"), "kill $(cat server.pid) && echo stopped");
    assert_eq!(text(&out.stdout), "stopped\n", "{}", text(&out.stderr));
    assert!(wait_gone(pid));
}

/// With a network allowlist, each call runs in a network namespace with only loopback: the
/// calls of one session share one, so a server one starts is reached by the next, through the
/// same proxy; the namespace and the proxy end with the last process in it. As root and nobody.
#[test]
fn with_an_allowlist_the_calls_of_a_session_share_one_network_namespace() {
    for nobody in [false, true] {
        let mut f = Fixture::new(&|ws, _| write(&ws.join("index.html"), "served\n"));
        if nobody {
            let status = Command::new("chown").arg("-R").arg("65534:65534").arg(f.root.path()).status().unwrap();
            assert!(status.success());
            f.as_nobody = true;
        }
        let step = |program: &str| {
            let mut c = f.command(Shell::Sandboxed("0467"));
            c.args(["-c", program]).env("SANDBOX_BASH_NETWORK_ALLOW", "example.test").stdin(Stdio::null());
            c.output().unwrap()
        };
        let out = step("nohup python3 -u -m http.server 0 --bind 127.0.0.1 > server.log 2>&1 & echo $! > server.pid");
        assert_eq!(out.status.code(), Some(0), "nobody={nobody}: {}", text(&out.stderr));
        let port = server_port(&f).unwrap_or_else(|| panic!("nobody={nobody}: the server said no port"));
        let out = step(&format!("curl -s --max-time 5 http://127.0.0.1:{port}/index.html"));
        assert_eq!(text(&out.stdout), "served\n", "nobody={nobody}: {}", text(&out.stderr));
        // What the session's proxy refuses a later call is told on that call's own stderr,
        // and summed up when it ends.
        assert_eq!(step("echo refused.test > host").status.code(), Some(0));
        let out = step("curl -s -o /dev/null --max-time 5 http://$(cat host)/; echo $?");
        let err = text(&out.stderr);
        assert_eq!(text(&out.stdout), "0\n", "nobody={nobody}: {err}");
        assert!(
            err.lines().any(|l| l.starts_with("sandbox-bash: denied: refused.test:80: ")
                && l.ends_with("(held by the network proxy)")),
            "nobody={nobody}: {err}"
        );
        assert!(
            err.lines()
                .any(|l| l
                    .starts_with("sandbox-bash: the network proxy refused 1 destination in this run: refused.test:80")),
            "nobody={nobody}: {err}"
        );
        // The user's own loopback is still not theirs: outside the namespace nothing listens.
        assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err() || port == 0);
        // The session's socket is out of every other sandbox's reach (connecting to a socket by
        // path is beyond Landlock): another agent's call neither lists nor reaches it, whether
        // it has an allowlist or not.
        let sessions = f.home.join(".local/state/sandbox-bash/sessions");
        let sockets: Vec<PathBuf> = std::fs::read_dir(&sessions).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(sockets.len(), 1, "nobody={nobody}: one session socket");
        let probe = lab::py(&format!(
            "import os, socket\n\
             try:\n    print(os.listdir({0:?}))\n\
             except OSError as e:\n    print('list', e.errno)\n\
             s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)\n\
             try:\n    os.chdir({0:?}); s.connect({1:?}); print('connected')\n\
             except OSError as e:\n    print('connect', e.errno)",
            sessions.display(),
            // By its name in its directory: the whole path may be longer than an address holds.
            sockets[0].file_name().unwrap().to_string_lossy()
        ));
        for allow in [None, Some("example.test")] {
            let mut c = f.command(Shell::Sandboxed("0467"));
            c.args(["-c", &probe]).env(NAME_VAR, "another agent").stdin(Stdio::null());
            if let Some(a) = allow {
                c.env("SANDBOX_BASH_NETWORK_ALLOW", a);
            }
            let out = c.output().unwrap();
            let said = text(&out.stdout);
            assert!(!said.contains("connected"), "nobody={nobody} allow={allow:?}: {said}{}", text(&out.stderr));
            let want = if nobody { ["list 13", "connect 13"] } else { ["[]", "connect 2"] };
            assert_eq!(said, format!("{}\n{}\n", want[0], want[1]), "nobody={nobody} allow={allow:?}");
        }
        let pid: u32 = std::fs::read_to_string(f.path("server.pid")).unwrap().trim().parse().unwrap();
        let out = step("kill $(cat server.pid) && echo stopped");
        assert_eq!(text(&out.stdout), "stopped\n", "nobody={nobody}: {}", text(&out.stderr));
        assert!(wait_gone(pid));
        // The session's socket goes with its proxy.
        let mut gone = false;
        for _ in 0..60 {
            if std::fs::read_dir(&sessions).map(|d| d.count() == 0).unwrap_or(true) {
                gone = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(gone, "nobody={nobody}: the session's socket outlived its proxy");
    }
}

/// Where every process runs under a seccomp filter of its own (a container's default profile),
/// the calls of a session still share one network namespace: a peer is judged by the filters it
/// has beyond the proxy's. Each call installs an allow-everything filter and then becomes
/// sandbox-bash, keeping its pid, so this test process stays the client of every call.
#[test]
fn under_a_filter_every_process_has_the_calls_of_a_session_share_the_network() {
    let f = Fixture::new(&|ws, _| write(&ws.join("index.html"), "served\n"));
    // A filter of one instruction: SECCOMP_RET_ALLOW. Root may install it without no_new_privs.
    let wrap = "import ctypes, os, struct, sys\n\
                insn = ctypes.create_string_buffer(struct.pack('HBBI', 0x06, 0, 0, 0x7fff0000))\n\
                class Prog(ctypes.Structure):\n    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]\n\
                prog = Prog(1, ctypes.cast(insn, ctypes.c_void_p))\n\
                libc = ctypes.CDLL(None, use_errno=True)\n\
                assert libc.prctl(22, 2, ctypes.byref(prog), 0, 0) == 0, ctypes.get_errno()\n\
                os.execv(sys.argv[1], sys.argv[1:])";
    let step = |program: &str| {
        let inner = f.command(Shell::Sandboxed("0467"));
        let mut c = Command::new("python3");
        c.args(["-c", wrap]).arg(inner.get_program()).args(["-c", program]);
        c.env_clear().envs(inner.get_envs().filter_map(|(n, v)| v.map(|v| (n, v))));
        c.current_dir(&f.ws).env("SANDBOX_BASH_NETWORK_ALLOW", "example.test").stdin(Stdio::null());
        c.output().unwrap()
    };
    let out = step(
        "grep Seccomp: /proc/self/status | head -1; nohup python3 -u -m http.server 0 --bind 127.0.0.1 > server.log 2>&1 & echo $! > server.pid",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Seccomp:\t2\n", "the filter is in place");
    let port = server_port(&f).expect("the server said its port");
    let out = step(&format!("curl -s --max-time 5 http://127.0.0.1:{port}/index.html"));
    assert_eq!(text(&out.stdout), "served\n", "{}", text(&out.stderr));
    let pid: u32 = std::fs::read_to_string(f.path("server.pid")).unwrap().trim().parse().unwrap();
    let out = step("kill $(cat server.pid) && echo stopped");
    assert_eq!(text(&out.stdout), "stopped\n", "{}", text(&out.stderr));
    assert!(wait_gone(pid));
}

/// A state directory whose sockets' paths are longer than a socket address holds (107 bytes:
/// a deep home, a long `XDG_STATE_HOME`) still serves the session: its sockets are reached
/// through a descriptor of their directory.
#[test]
fn a_deep_state_directory_still_shares_the_sessions_network() {
    let f = Fixture::new(&|ws, _| write(&ws.join("index.html"), "served\n"));
    let state = f.root.path().join("x".repeat(100));
    std::fs::create_dir_all(&state).unwrap();
    let step = |program: &str| {
        let mut c = f.command(Shell::Sandboxed("0467"));
        c.args(["-c", program]).env("SANDBOX_BASH_NETWORK_ALLOW", "example.test").env("XDG_STATE_HOME", &state);
        c.stdin(Stdio::null()).output().unwrap()
    };
    let out = step("nohup python3 -u -m http.server 0 --bind 127.0.0.1 > server.log 2>&1 & echo $! > server.pid");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let port = server_port(&f).expect("the server said its port");
    let sockets: Vec<PathBuf> =
        std::fs::read_dir(state.join("sandbox-bash/sessions")).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(sockets.len() == 1 && sockets[0].as_os_str().len() > 107, "{sockets:?}");
    let out = step(&format!("curl -s --max-time 5 http://127.0.0.1:{port}/index.html"));
    assert_eq!(text(&out.stdout), "served\n", "{}", text(&out.stderr));
    let pid: u32 = std::fs::read_to_string(f.path("server.pid")).unwrap().trim().parse().unwrap();
    let out = step("kill $(cat server.pid) && echo stopped");
    assert_eq!(text(&out.stdout), "stopped\n", "{}", text(&out.stderr));
    assert!(wait_gone(pid));
}

// ----- known effects the layers would refuse halfway ----------------------------------------

/// What the table knows a program does, and the layers would refuse while it runs, is denied
/// before anything runs, with what would allow it: a push into a repository on this machine
/// outside the workspace (by path, by `file://` URL, by a remote's name), and `pre-commit
/// install` writing a hook. The push goes through where the mode allows it.
#[test]
fn known_effects_the_layers_would_refuse_are_denied_before_anything_runs() {
    let lab = lab::Lab::new();
    let bare = lab.outside.join("shared.git");
    git(&lab.outside, &["init", "-q", "--bare", bare.to_str().unwrap()]);
    git(&lab.ws, &["init", "-q", "-b", "main"]);
    git(&lab.ws, &["-c", "user.name=t", "-c", "user.email=t@invalid", "commit", "-q", "--allow-empty", "-m", "one"]);
    git(&lab.ws, &["remote", "add", "shared", bare.to_str().unwrap()]);
    let before = std::fs::read_dir(bare.join("refs/heads")).unwrap().count();
    let b = bare.display();
    for push in [format!("git push {b} main"), format!("git push file://{b} main"), "git push shared main".into()] {
        let out = lab.run("0467", &push);
        denied(&out, &format!("missing external write (0200): git needs it for {b} "));
        assert!(text(&out.stderr).contains("pushes into a repository on this machine"), "{}", text(&out.stderr));
        assert_eq!(std::fs::read_dir(bare.join("refs/heads")).unwrap().count(), before, "{push} pushed");
    }
    // Positive control: with external write the same push goes through.
    let out = lab.run("0667", "git push -q shared main");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(bare.join("refs/heads/main").exists());
    // A push over the network is not a write here.
    let explain = Command::new(SB)
        .args(["--sandbox-explain", "-c", "git push https://example.invalid/x.git main"])
        .current_dir(&lab.ws)
        .env("BASH_AGENT_BASH_MODE", "0467")
        .env("SANDBOX_BASH_WORKSPACE", &lab.ws)
        .output()
        .unwrap();
    assert_eq!(explain.status.code(), Some(0), "{}", text(&explain.stdout));
    // pre-commit writes the repository's hooks, which the view keeps read-only.
    for (program, hook) in [("pre-commit install", "pre-commit"), ("pre-commit install -t pre-push", "pre-push")] {
        let out = lab.run("0467", program);
        let hook = lab.ws.join(".git/hooks").join(hook);
        denied(&out, &format!("missing system write (2000): pre-commit needs it for {}", hook.display()));
        assert!(!hook.exists());
    }
}
