//! Where a path lands: lexical resolution against a cwd, then the first matching row of the
//! scope table (network, credentials, protected, workspace, scratch, system, external).

use crate::mode::Scope;

/// The places that decide a path's scope. All paths are absolute and lexically normal.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// The workspace root W.
    pub workspace: String,
    /// The run starts in the home, which is never the workspace unless a setting says so: W is
    /// an empty directory of sandbox-bash's own that commands may not write.
    pub no_workspace: bool,
    /// `$HOME`, when known.
    pub home: Option<String>,
    /// `$TMPDIR`, only when it is a sane scratch directory (see [`acceptable_tmpdir`]).
    pub tmpdir: Option<String>,
    /// Credential paths the configuration adds to the built-in ones, and the audit log's.
    pub extra_credentials: Paths,
    /// The audit log's paths among them: a nested level knows none (its records go through the
    /// enclosing level's relay), so they are no input of its boundary (see
    /// [`crate::sandbox::boundary`]).
    pub audit_logs: Vec<String>,
    /// Name patterns (`fnmatch`, one component) the configuration adds to the credential
    /// names, and those it exempts from the built-in ones (the system file only).
    pub credential_names: Vec<String>,
    pub credential_exempt: Vec<String>,
    /// Which credential-named files of the workspace are project content (their repository
    /// stores them as they are); `None`: none is (a layout not read from this machine).
    pub committed: Option<crate::project::Committed>,
    /// Protected paths (writes need system write) the configuration adds.
    pub extra_protected: Paths,
    /// Where toolchains are installed, each home where it really is (see
    /// [`toolchain_groups`]); `None`: the homes' defaults, as written.
    pub toolchains: Option<Vec<Toolchain>>,
    /// The agents' shell-state directories that exist here (see [`CLIENT_STATE`]), each with
    /// its device and inode when it was examined.
    pub client_state: Vec<(String, (u64, u64))>,
    /// The new files in them that this run writes (its snapshot), created for this run alone,
    /// each with its device and inode: the rules that grant it must land on that very file.
    pub client_files: Vec<(String, (u64, u64))>,
    /// The package caches a layer of sandbox-bash's own takes this run's writes to (see
    /// [`crate::caches`]): a write there needs the workspace bits.
    pub caches: Vec<crate::caches::Layer>,
    /// The directories where agent sessions' proxies listen (see [`crate::outside::proxy::registry`]):
    /// credentials to every rule, and masked in every view that masks credentials, since
    /// connecting to a socket by its path is beyond Landlock.
    pub sessions: Vec<String>,
    /// sandbox-bash's own state that no command reaches in any mode below `7777` (the
    /// approvals listeners and what they remember, see [`crate::approval`]): masked in every
    /// view, whatever the mode lets read.
    pub private: Vec<String>,
    /// What the kernel layer does not pin for this plain program (see [`crate::plain`]): the
    /// repository configurations it writes with keys that run no program, and the trees it
    /// deletes first.
    pub relaxed: crate::plain::Relaxed,
}

/// A list of paths (absolute, as [`is_within`] takes them) that answers the two questions
/// the layout asks of it for every path it classifies, without comparing the path with each
/// entry: whether the path is an entry or lies below one ([`Paths::holds_ancestor_of`]), and
/// whether an entry lies strictly below it ([`Paths::any_below`]). Planning asks them of every
/// entry of every directory it lists, and a run whose home is not the account's carries some
/// 140 protected paths: comparing each was a fifth of the planner's time. Each question's lookup
/// is made the first time that question is asked (at a start, most lists are asked only the
/// first), shared by the clones made after it (the layout is cloned for each plan), and dropped
/// by every change (the list changes only through `&mut`).
#[derive(Clone, Default)]
pub struct Paths {
    list: Vec<String>,
    /// The entries themselves, and whether `/` is one (every path lies below it).
    entries: std::sync::OnceLock<std::sync::Arc<(rustc_hash::FxHashSet<String>, bool)>>,
    /// Each entry's parts before one of its slashes (`/a/b`: `""` and `/a`): the paths an entry
    /// lies strictly below; and whether an entry other than `/` is there (each lies below `/`).
    above: std::sync::OnceLock<std::sync::Arc<(rustc_hash::FxHashSet<String>, bool)>>,
}

/// The parts of `path` before each of its slashes, shortest first (`/a/b`: `""`, `/a`): with
/// `/` and the path itself, the directories [`is_within`] finds it in.
pub(crate) fn before_slashes(path: &str) -> impl Iterator<Item = &str> {
    path.bytes().enumerate().filter(|&(_, b)| b == b'/').map(move |(i, _)| &path[..i])
}

impl Paths {
    /// Whether `path` is one of the entries or lies below one: `is_within(path, entry)` for
    /// some entry. (`is_within` holds exactly for `/`, the path itself, and the path's parts
    /// before each of its slashes.)
    pub fn holds_ancestor_of(&self, path: &str) -> bool {
        if self.list.is_empty() {
            return false;
        }
        let (entries, root) = &**self.entries.get_or_init(|| {
            std::sync::Arc::new((self.list.iter().cloned().collect(), self.list.iter().any(|c| c == "/")))
        });
        *root || entries.contains(path) || before_slashes(path).any(|a| entries.contains(a))
    }

    /// Whether an entry lies strictly below `path`: `c != path && is_within(c, path)` for some
    /// entry `c`.
    pub fn any_below(&self, path: &str) -> bool {
        if self.list.is_empty() {
            return false;
        }
        let (above, below_root) = &**self.above.get_or_init(|| {
            std::sync::Arc::new((
                self.list.iter().flat_map(|c| before_slashes(c).map(str::to_string)).collect(),
                self.list.iter().any(|c| c != "/"),
            ))
        });
        if path == "/" { *below_root } else { above.contains(path) }
    }

    fn forget_lookups(&mut self) {
        self.entries = std::sync::OnceLock::new();
        self.above = std::sync::OnceLock::new();
    }

    pub fn push(&mut self, path: String) {
        self.forget_lookups();
        self.list.push(path);
    }

    pub fn extend(&mut self, paths: impl IntoIterator<Item = String>) {
        self.forget_lookups();
        self.list.extend(paths);
    }
}

impl std::ops::Deref for Paths {
    type Target = [String];
    fn deref(&self) -> &[String] {
        &self.list
    }
}

impl<'a> IntoIterator for &'a Paths {
    type Item = &'a String;
    type IntoIter = std::slice::Iter<'a, String>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

impl From<Vec<String>> for Paths {
    fn from(list: Vec<String>) -> Paths {
        Paths { list, ..Paths::default() }
    }
}

impl FromIterator<String> for Paths {
    fn from_iter<I: IntoIterator<Item = String>>(iter: I) -> Paths {
        Paths::from(iter.into_iter().collect::<Vec<String>>())
    }
}

impl PartialEq for Paths {
    fn eq(&self, other: &Paths) -> bool {
        self.list == other.list
    }
}

impl Eq for Paths {}

/// As the list itself (the run's word to nested levels shows it so).
impl std::fmt::Debug for Paths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.list.fmt(f)
    }
}

/// The directories where agents keep the state their own shell writes and later sources (the
/// variable that moves the agent's directory, the directory's place below `$HOME` otherwise,
/// and the entry in it): Claude Code's snapshot shell writes `shell-snapshots/`, Codex keeps
/// `shell_snapshots/`. A program that names a new file there (the snapshot being taken) may
/// write that one file; the snapshots that exist are other sessions' code, which no command
/// may change.
pub const CLIENT_STATE: &[(&str, &str, &str)] =
    &[("CLAUDE_CONFIG_DIR", ".claude", "shell-snapshots"), ("CODEX_HOME", ".codex", "shell_snapshots")];

/// The agents' shell-state directories of this environment, as written (see [`CLIENT_STATE`]):
/// below the variable's value when it is an absolute path, else below `home`.
pub fn client_state_dirs(home: Option<&str>, var: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let mut dirs = Vec::new();
    for (name, below_home, entry) in CLIENT_STATE {
        let base = match var(name).filter(|v| v.starts_with('/')) {
            Some(v) => normalize("/", &v),
            None => match home.filter(|h| *h != "/") {
                Some(h) => format!("{h}/{below_home}"),
                None => continue,
            },
        };
        dirs.push(normalize("/", &format!("{base}/{entry}")));
    }
    dirs
}

/// Homes of one toolchain, granted together when a `PATH` entry lies in one of them (cargo
/// and rustup; a version manager's shims and versions are below one home).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Toolchain {
    /// Absolute, normal paths.
    pub homes: Vec<String>,
    /// It is known to keep credentials in its home (Cargo's `credentials.toml`).
    pub credentials: bool,
    /// The homes a set variable names (`RUSTUP_HOME=/opt/rustup`): granted whatever `PATH`
    /// holds, since the toolchain's programs look there.
    pub named: Vec<String>,
}

/// The variables that move a toolchain's home, with the home's place below `$HOME` when the
/// variable is not set. Each row is one group.
const TOOLCHAIN_HOMES: &[&[(&str, &str)]] = &[
    &[("CARGO_HOME", ".cargo"), ("RUSTUP_HOME", ".rustup")],
    &[("NVM_DIR", ".nvm")],
    &[("PYENV_ROOT", ".pyenv")],
    &[("VOLTA_HOME", ".volta")],
    &[("SDKMAN_DIR", ".sdkman")],
    &[("GOPATH", "go")],
    &[("GOROOT", "")],
    &[("BUN_INSTALL", ".bun")],
    &[("DENO_INSTALL", ".deno")],
    &[("UV_PYTHON_INSTALL_DIR", "")],
    &[("UV_TOOL_DIR", "")],
    &[("MAMBA_ROOT_PREFIX", "")],
    &[("", "miniconda3")],
    &[("", "anaconda3")],
    &[("", "miniforge3")],
    &[("", "mambaforge")],
    &[("", ".local")],
];

/// Where the toolchains of this environment live: each variable's value when it is set to an
/// absolute path, else its place below `home`; conda's root from `CONDA_EXE`
/// (`ROOT/bin/conda`). `GOPATH` may list several.
pub fn toolchain_groups(home: Option<&str>, var: &dyn Fn(&str) -> Option<String>) -> Vec<Toolchain> {
    let mut groups = Vec::new();
    for row in TOOLCHAIN_HOMES {
        let mut homes = Vec::new();
        let mut named = Vec::new();
        for (name, default) in *row {
            let value = if name.is_empty() { None } else { var(name) };
            let set: Vec<String> = match &value {
                Some(v) if *name == "GOPATH" => {
                    v.split(':').filter(|p| p.starts_with('/')).map(|p| normalize("/", p)).collect()
                }
                Some(v) if v.starts_with('/') => vec![normalize("/", v)],
                _ => Vec::new(),
            };
            if !set.is_empty() {
                named.extend(set.iter().cloned());
                homes.extend(set);
            } else if !default.is_empty()
                && let Some(h) = home
            {
                homes.push(normalize(h, default));
            }
        }
        homes.retain(|h| h != "/");
        named.retain(|h| h != "/");
        if !homes.is_empty() {
            groups.push(Toolchain { homes, credentials: row[0].0 == "CARGO_HOME", named });
        }
    }
    if let Some(exe) = var("CONDA_EXE").filter(|e| e.starts_with('/')) {
        let exe = normalize("/", &exe);
        if let Some(root) = exe.strip_suffix("/bin/conda").filter(|r| !r.is_empty()) {
            groups.push(Toolchain { homes: vec![root.to_string()], credentials: false, named: Vec::new() });
        }
    }
    groups
}

impl Layout {
    /// The toolchain groups in force: the layout's, or the homes' defaults.
    pub fn toolchain_groups(&self) -> Vec<Toolchain> {
        match &self.toolchains {
            None => toolchain_groups(self.home.as_deref(), &|_| None),
            Some(groups) => groups.clone(),
        }
    }
}

impl Layout {
    /// Whether the toolchain home `top` may be granted read and execute whole: not one that
    /// holds the workspace or the home directory, lies in the workspace (its bits decide), or
    /// is a system path (the baseline has those).
    pub fn grantable_toolchain_home(&self, top: &str) -> bool {
        // The variables come from the environment: a value naming a credential, a home
        // directory itself or what holds one (`GOPATH=/x:/home/other`) is no toolchain home.
        let components: Vec<&str> = top.split('/').filter(|c| !c.is_empty()).collect();
        let a_home = matches!(components.as_slice(), ["root"] | ["home"] | ["home", _]);
        !(is_within(&self.workspace, top)
            || is_within(top, &self.workspace)
            || self.home.as_deref().is_some_and(|h| is_within(h, top))
            || is_system_path(top)
            || a_home
            || self.is_credential(top)
            || components.iter().any(|c| credential_name(c) || home_credential_name(c)))
    }

    /// The toolchain homes the runtime baseline grants for these `PATH` directories (absolute,
    /// normal; each as written and where it leads): those of every group with a directory in it.
    /// The homes a set variable names are granted too, whatever `PATH` holds.
    pub fn toolchains_on_path(&self, dirs: &[String]) -> Vec<String> {
        let groups = self.toolchain_groups();
        let mut out: Vec<String> = Vec::new();
        let on_path = dirs.iter().filter_map(|dir| toolchain_of(&groups, dir)).flat_map(|g| g.homes.iter());
        for top in on_path.chain(groups.iter().flat_map(|g| g.named.iter())) {
            if self.grantable_toolchain_home(top) && !out.contains(top) {
                out.push(top.clone());
            }
        }
        out
    }
}

/// The group whose home holds `dir`, and that home.
pub fn toolchain_of<'a>(groups: &'a [Toolchain], dir: &str) -> Option<&'a Toolchain> {
    groups.iter().find(|g| g.homes.iter().any(|h| is_within(dir, h) && dir != h))
}

/// The row of the scope table a path falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// `/dev/tcp/HOST/PORT`, `/dev/udp/HOST/PORT`.
    Network,
    /// Secrets, wherever they are.
    Credential,
    /// Places whose change runs code later (`.git/hooks`, `.git/config`, shell start-up files).
    /// Only writes are protected; reads of them fall through to the next row.
    Protected,
    /// A package cache, written through sandbox-bash's own layer (only writes: reads fall
    /// through to the next row).
    Cache,
    Workspace,
    /// `/tmp`, `$TMPDIR` and the harmless devices: no bit needed.
    Scratch,
    System,
    External,
}

impl Class {
    /// The mode scope this class needs bits in; `None` for scratch.
    pub fn scope(self) -> Option<Scope> {
        match self {
            Class::Network => Some(Scope::Network),
            Class::Credential | Class::Protected | Class::System => Some(Scope::System),
            Class::Workspace | Class::Cache => Some(Scope::Workspace),
            Class::External => Some(Scope::External),
            Class::Scratch => None,
        }
    }

    /// A short noun for explanations.
    pub fn noun(self) -> &'static str {
        match self {
            Class::Network => "network pseudo-device",
            Class::Credential => "credential path",
            Class::Protected => "protected path",
            Class::Workspace => "workspace",
            Class::Cache => "a package cache, written to sandbox-bash's own layer of it",
            Class::Scratch => "scratch",
            Class::System => "system path",
            Class::External => "outside the workspace",
        }
    }
}

/// Top-level directories that belong to the system scope (plus `/` itself and `/lib*`).
#[cfg(not(target_os = "macos"))]
pub const SYSTEM_ROOTS: &[&str] =
    &["/etc", "/usr", "/bin", "/sbin", "/boot", "/dev", "/proc", "/sys", "/var", "/run", "/snap", "/nix"];
#[cfg(target_os = "macos")]
pub const SYSTEM_ROOTS: &[&str] = &[
    "/etc", "/usr", "/bin", "/sbin", "/boot", "/dev", "/proc", "/sys", "/var", "/run", "/snap", "/nix", "/System",
    "/Library", "/private",
];

const SCRATCH_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/stdin",
    "/dev/stdout",
    "/dev/stderr",
];

/// Credential locations relative to `$HOME` (a prefix match on whole components).
pub const HOME_CREDENTIALS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".vault-token",
    ".password-store",
    ".local/share/keyrings",
    ".config/gh",
    ".config/hub",
    ".config/op",
    ".terraform.d/credentials.tfrc.json",
    ".gem/credentials",
    ".cache/huggingface/token",
    ".huggingface/token",
    ".m2/settings-security.xml",
];

/// Shell start-up files: writing one runs code in every later shell.
pub const STARTUP_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".profile",
    ".bash_aliases",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".bash_login",
    ".bash_logout",
];

/// Protected locations relative to `$HOME` (a prefix match on whole components), besides the
/// start-up files: git's own configuration (`core.fsmonitor`, `!` aliases and credential
/// helpers run in the next plain `git status`), sandbox-bash's configuration (it widens every
/// later run), agents' settings that define hooks, commands or servers to start, and the other
/// files a later program takes commands from (other shells, the session, editors, build
/// tools, Python's user site with its `usercustomize` and `.pth` files, shell completions).
pub const HOME_PROTECTED: &[&str] = &[
    ".gitconfig",
    ".config/git",
    ".config/sandbox-bash",
    ".config/fish",
    ".config/systemd/user",
    ".config/autostart",
    ".config/environment.d",
    ".pam_environment",
    ".xinitrc",
    ".xsession",
    ".xprofile",
    ".cargo/config.toml",
    ".cargo/config",
    ".yarnrc",
    ".yarnrc.yml",
    ".cargo/env",
    ".nvm/nvm.sh",
    ".local/lib",
    ".local/share/bash-completion",
    ".bash_completion",
    ".config/direnv",
    ".ipython",
    // sandbox-bash's own state: the layers that hold what sandboxed runs write into caches.
    ".local/state/sandbox-bash",
];

/// Directories of the home that hold protected files among ordinary ones: a kernel rule must
/// enter them rather than grant them whole.
pub const HOME_PROTECTED_HOLDERS: &[&str] = &[".config", ".claude", ".codex", ".gemini", ".cursor", ".pi", ".local"];

/// A program that later runs what a file tells it to: an agent (hooks, commands, servers to
/// start, instructions it trusts), an editor (plugins, tasks), a tool. `project` names its
/// files at the top of the workspace, `home` in the home directory (a whole directory where
/// every entry of it runs or instructs). Writing any of them needs system write; the view
/// keeps the ones that exist read-only.
pub struct Client {
    pub name: &'static str,
    pub project: &'static [&'static str],
    pub home: &'static [&'static str],
    /// Its directory at the top of the workspace, when only some of what it holds runs: the
    /// directory itself is kept read-only (nothing new is made right in it, such as a second
    /// settings file), its other entries (a team's prompts and commands) stay writable.
    pub holder: Option<&'static str>,
}

/// One row per client or tool; the manual's table under FILES THAT RUN LATER says the same.
pub const CLIENTS: &[Client] = &[
    Client {
        name: "Claude Code",
        project: &[".claude/settings.json", ".claude/settings.local.json", ".claude/hooks", ".mcp.json"],
        home: &[
            ".claude.json",
            ".claude/settings.json",
            ".claude/settings.local.json",
            ".claude/hooks",
            ".claude/commands",
            ".claude/agents",
            ".claude/skills",
            ".claude/plugins",
            ".claude/CLAUDE.md",
        ],
        holder: Some(".claude"),
    },
    Client {
        name: "Codex",
        project: &[".codex/config.toml"],
        home: &[".codex/config.toml", ".codex/AGENTS.md", ".codex/prompts"],
        holder: Some(".codex"),
    },
    Client {
        name: "Gemini CLI",
        project: &[".gemini/settings.json", ".gemini/extensions"],
        home: &[".gemini/settings.json", ".gemini/extensions", ".gemini/commands", ".gemini/GEMINI.md"],
        holder: Some(".gemini"),
    },
    Client {
        name: "Cursor",
        project: &[".cursor/mcp.json", ".cursor/hooks.json", ".cursor/hooks", ".cursor/environment.json"],
        home: &[".cursor/mcp.json", ".cursor/hooks.json", ".cursor/hooks", ".cursor/extensions"],
        holder: Some(".cursor"),
    },
    Client {
        name: "opencode",
        project: &[".opencode", "opencode.json", "opencode.jsonc"],
        home: &[".config/opencode"],
        holder: None,
    },
    Client { name: "pi", project: &[".pi"], home: &[".pi/agent"], holder: None },
    Client { name: "aider", project: &[".aider.conf.yml"], home: &[".aider.conf.yml"], holder: None },
    Client { name: "VS Code", project: &[".vscode"], home: &[".vscode", ".config/Code/User"], holder: None },
    Client { name: "JetBrains IDEs", project: &[".idea"], home: &[], holder: None },
    Client { name: "Zed", project: &[".zed"], home: &[".config/zed"], holder: None },
    Client {
        name: "Vim and Neovim",
        project: &[],
        home: &[".vimrc", ".vim", ".config/nvim", ".local/share/nvim/site"],
        holder: None,
    },
    Client { name: "Emacs", project: &[], home: &[".emacs", ".emacs.d", ".config/emacs"], holder: None },
    Client { name: "the login shell's PATH", project: &[], home: &[".local/bin", "bin"], holder: None },
];

/// The clients' directories at the top of the workspace that are kept read-only themselves.
pub fn project_holders() -> impl Iterator<Item = &'static str> + Clone {
    CLIENTS.iter().filter_map(|c| c.holder)
}

/// [`HOME_PROTECTED`] and the clients' files in the home.
pub fn home_protected() -> impl Iterator<Item = &'static &'static str> + Clone {
    HOME_PROTECTED.iter().chain(CLIENTS.iter().flat_map(|c| c.home.iter()))
}

/// The clients' files at the top of the workspace.
pub fn project_settings() -> impl Iterator<Item = &'static &'static str> + Clone {
    CLIENTS.iter().flat_map(|c| c.project.iter())
}

/// Joins `path` onto `cwd` (when relative) and removes `.`, `..` and repeated slashes
/// lexically, the way bash's own `cd` treats them. `..` at the root stays at the root.
pub fn normalize(cwd: &str, path: &str) -> String {
    // Most paths are absolute and normal already (PATH entries, listings, the layout).
    if is_normal_absolute(path) {
        return path.to_string();
    }
    join_and_clean(cwd, path)
}

/// [`normalize`] the long way.
fn join_and_clean(cwd: &str, path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let joined_cwd = if path.starts_with('/') { "" } else { cwd };
    for part in joined_cwd.split('/').chain(path.split('/')) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    let mut out = String::with_capacity(path.len() + cwd.len() + 1);
    for part in &parts {
        out.push('/');
        out.push_str(part);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// Whether `path` is what [`normalize`] makes of it: absolute, no empty, `.` or `..`
/// component, no slash at the end (but the root itself).
fn is_normal_absolute(path: &str) -> bool {
    match path.as_bytes() {
        [b'/'] => true,
        [b'/', rest @ ..] => rest.split(|&b| b == b'/').all(|c| !c.is_empty() && c != b"." && c != b".."),
        _ => false,
    }
}

/// The part of `path` below `/proc/self/` or `/proc/thread-self/`, if it is there.
fn own_proc_entry(path: &str) -> Option<&str> {
    path.strip_prefix("/proc/self/").or_else(|| path.strip_prefix("/proc/thread-self/")).filter(|r| !r.is_empty())
}

/// Whether `path` is `dir` or lies below it (both normal and absolute).
pub fn is_within(path: &str, dir: &str) -> bool {
    if dir == "/" {
        return true;
    }
    path == dir || (path.starts_with(dir) && path.as_bytes().get(dir.len()) == Some(&b'/'))
}

/// The files of `/proc/PID/` that say what a process is, as `ps` and `findmnt` show to
/// everyone: reading them needs no bit. (`environ`, `mem`, `maps` and the rest keep their
/// scope; other users' processes are out of reach of the kernel layer anyway.)
const PROCESS_INFO: &[&str] =
    &["cmdline", "stat", "status", "comm", "statm", "mountinfo", "mounts", "cgroup", "limits"];

/// The files of `/proc` that say what the machine is, as `free`, `uptime`, `nproc`, `df` and
/// `uname` show to everyone.
const MACHINE_INFO: &[&str] = &[
    "cpuinfo",
    "meminfo",
    "version",
    "loadavg",
    "uptime",
    "stat",
    "filesystems",
    "mounts",
    "partitions",
    "swaps",
    "vmstat",
    "cgroups",
    "sys/kernel/osrelease",
    "sys/kernel/ostype",
    "sys/kernel/hostname",
];

/// The trees of `/sys` that say what the machine's processors and memory are and what the
/// run's control groups allow (`nproc`, runtimes sizing their thread pools and heaps).
const MACHINE_SYS: &[&str] = &["/sys/fs/cgroup", "/sys/devices/system/cpu", "/sys/devices/system/node"];

/// Whether `path` (absolute, normal) is one of [`PROCESS_INFO`] of some process or thread
/// (`/proc/PID/NAME`, `/proc/self/NAME`, `/proc/thread-self/NAME`, `/proc/PID/task/TID/NAME`),
/// one of [`MACHINE_INFO`], or in [`MACHINE_SYS`]. (Not `/proc` itself: a path below it not
/// known whole, `/proc/$PPID/environ`, is scoped to it.)
pub fn is_process_info(path: &str) -> bool {
    if MACHINE_SYS.iter().any(|t| is_within(path, t)) {
        return true;
    }
    let Some(rest) = path.strip_prefix("/proc/") else { return false };
    if MACHINE_INFO.contains(&rest) {
        return true;
    }
    let parts: Vec<&str> = rest.split('/').collect();
    let pid = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    let process = |p: &str| pid(p) || p == "self" || p == "thread-self";
    match parts.as_slice() {
        [p, name] => process(p) && PROCESS_INFO.contains(name),
        [p, "task", t, name] => process(p) && pid(t) && PROCESS_INFO.contains(name),
        _ => false,
    }
}

/// Whether `path` is one of the system roots, `/lib*`, or below one.
pub fn is_system_path(path: &str) -> bool {
    if path == "/" {
        return true;
    }
    let first = components(path).nth(1).unwrap_or_default();
    first.starts_with(b"lib") || SYSTEM_ROOTS.iter().any(|root| is_within(path, root))
}

/// Whether a directory may be the workspace root: not `/`, not a system root, and not a
/// directory that contains one. It may live inside a system root (`/var/lib/ci/checkout`).
pub fn acceptable_workspace(dir: &str) -> bool {
    if dir == "/" {
        return false;
    }
    let components = dir.split('/').filter(|c| !c.is_empty()).count();
    if components == 1 && is_system_path(dir) {
        return false;
    }
    true
}

/// Whether `$TMPDIR` may count as scratch: a system location only if it is one of the usual
/// temporary trees, never `/`, never `$HOME` or the workspace or one of their ancestors.
pub fn acceptable_tmpdir(dir: &str, home: Option<&str>, workspace: &str) -> bool {
    const TEMP_TREES: &[&str] =
        &["/tmp", "/var/tmp", "/dev/shm", "/run/user", "/var/folders", "/private/var/folders", "/private/tmp"];
    if !dir.starts_with('/') || dir == "/" {
        return false;
    }
    if is_system_path(dir) && !TEMP_TREES.iter().any(|t| is_within(dir, t) && dir != "/run/user") {
        return false;
    }
    if home.is_some_and(|h| is_within(h, dir)) || is_within(workspace, dir) {
        return false;
    }
    true
}

impl Layout {
    /// The class of an absolute, normal path. `write` decides whether the protected row applies.
    pub fn classify(&self, path: &str, write: bool) -> Class {
        if path.starts_with("/dev/tcp/") || path.starts_with("/dev/udp/") {
            return Class::Network;
        }
        if let Some(own) = own_proc_entry(path) {
            // The shell's own /proc entries: `root/…` is the filesystem again, `cwd/…` lands
            // where the walk cannot know; the rest (status, fd, maps, …) is its own business
            // to read, never to write.
            if let Some(rest) = own.strip_prefix("root")
                && (rest.is_empty() || rest.starts_with('/'))
            {
                return self.classify(&normalize("/", rest), write);
            }
            if write || own == "cwd" || own.starts_with("cwd/") {
                return Class::System;
            }
            return Class::Scratch;
        }
        if self.is_credential(path) {
            return Class::Credential;
        }
        if write && self.is_protected(path) {
            return Class::Protected;
        }
        if is_within(path, &self.workspace) {
            // The empty stand-in is sandbox-bash's own state (protected above for writes).
            return if self.no_workspace && write { Class::Protected } else { Class::Workspace };
        }
        if write && self.caches.iter().any(|c| is_within(path, &c.path)) {
            return Class::Cache;
        }
        if self.is_scratch(path) {
            return Class::Scratch;
        }
        if is_system_path(path) {
            return Class::System;
        }
        Class::External
    }

    fn is_scratch(&self, path: &str) -> bool {
        is_within(path, "/tmp")
            || self.tmpdir.as_deref().is_some_and(|t| is_within(path, t))
            || SCRATCH_DEVICES.contains(&path)
            || path.strip_prefix("/dev/fd/").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    }

    /// Whether `dir` is a client's directory at the top of the workspace that the kernel
    /// layer keeps read-only itself (see [`Client::holder`]).
    pub fn is_workspace_holder(&self, dir: &str) -> bool {
        self.workspace != "/"
            && dir
                .strip_prefix(self.workspace.as_str())
                .and_then(|r| r.strip_prefix('/'))
                .is_some_and(|rest| project_holders().any(|h| h == rest))
    }

    /// Whether `path` names an entry right inside one of the agents' shell-state directories.
    pub fn is_client_state_entry(&self, path: &str) -> bool {
        path.rsplit_once('/').is_some_and(|(dir, name)| {
            !name.is_empty() && name != "." && name != ".." && self.client_state.iter().any(|(d, _)| d == dir)
        })
    }

    /// The part of `path` below the innermost anchor (workspace or home), so that a workspace
    /// called `tokenizer` does not make every file in it look like a credential.
    fn relative_part<'a>(&self, path: &'a str) -> &'a str {
        let mut best: &str = path;
        for anchor in [Some(self.workspace.as_str()), self.home.as_deref()].into_iter().flatten() {
            if anchor != "/" && is_within(path, anchor) {
                let rest = &path[anchor.len()..];
                if rest.len() < best.len() {
                    best = rest;
                }
            }
        }
        best
    }

    /// Whether `path` is named like a credential (by the rule of [`credential_name`] and the
    /// configuration's patterns) though it is project content, so no credential.
    pub fn named_credential(&self, path: &str) -> bool {
        !self.is_credential(path) && components(self.relative_part(path)).any(|c| self.credential_component(c))
    }

    /// The device and inode of the file at `path` whose content was judged (project content or
    /// not).
    pub fn committed_node(&self, path: &str) -> Option<(u64, u64)> {
        self.committed.as_ref()?.node(path)
    }

    /// Credentials: the configured paths, the home-relative locations, and names of key
    /// material and secret stores anywhere, unless the file is project content (see
    /// [`crate::project`]).
    pub fn is_credential(&self, path: &str) -> bool {
        if self.extra_credentials.holds_ancestor_of(path) {
            return true;
        }
        if let Some(home) = self.home.as_deref().filter(|h| *h != "/")
            && let Some(rest) = path.strip_prefix(home).and_then(|r| r.strip_prefix('/'))
        {
            if HOME_CREDENTIALS
                .iter()
                .any(|entry| rest.strip_prefix(entry).is_some_and(|after| after.is_empty() || after.starts_with('/')))
            {
                return true;
            }
            if rest.strip_prefix(".cargo/").is_some_and(|r| r.starts_with("credentials")) {
                return true;
            }
        }
        if !components(self.relative_part(path)).any(|c| self.credential_component(c)) {
            return false;
        }
        !self.committed.as_ref().is_some_and(|c| c.holds(path))
    }

    /// Whether one component names a credential here: by the built-in rule unless the
    /// configuration exempts it, or by a pattern the configuration adds.
    pub fn credential_component(&self, c: &[u8]) -> bool {
        // A name that is not UTF-8 is none (the built-in rule says so too); it is decoded only
        // where the configuration has patterns to match it with.
        let matches = |patterns: &[String]| {
            !patterns.is_empty()
                && std::str::from_utf8(c)
                    .is_ok_and(|name| patterns.iter().any(|p| crate::analysis::glob::fnmatch(p, name)))
        };
        (credential_bytes(c) && !matches(&self.credential_exempt)) || matches(&self.credential_names)
    }

    /// Whether a credential location lies below `p`, or, when `writes`, a protected one
    /// (`~/.config` holds `~/.config/gcloud` and `~/.config/git`, `~/.cargo` may hold
    /// `credentials.toml`, `~/.claude` its settings, the home directory and every directory
    /// above it hold them all; the configuration and the `PATH` directories add more): such a
    /// directory is entered, never granted whole. Protected locations only matter to a grant
    /// that writes, so a read-only grant does not enter directories for them. No entry can be
    /// made or removed right inside such a directory unless the mode grants the whole system.
    pub fn holds(&self, p: &str, writes: bool) -> bool {
        if self.extra_credentials.any_below(p) || (writes && self.extra_protected.any_below(p)) {
            return true;
        }
        let Some(home) = self.home.as_deref() else { return false };
        if home == "/" {
            return false;
        }
        if is_within(home, p) {
            return true;
        }
        let Some(rest) = p.strip_prefix(home).and_then(|r| r.strip_prefix('/')) else { return false };
        let below =
            |list: &[&str]| list.iter().any(|c| c.strip_prefix(rest).is_some_and(|after| after.starts_with('/')));
        rest == ".cargo"
            || below(HOME_CREDENTIALS)
            || (writes
                && (HOME_PROTECTED_HOLDERS.contains(&rest)
                    || home_protected().any(|c| c.strip_prefix(rest).is_some_and(|after| after.starts_with('/')))))
    }

    /// Writes here run code later: `.git/hooks/…`, `.git/config`, a `.git` directory as a
    /// whole, shell start-up files, git's and sandbox-bash's configuration in the home, agents'
    /// settings (`.claude/settings*.json`, `.codex/config.toml`, `.vscode/`, `.idea/`), and
    /// what the configuration adds (the `PATH` directories outside the workspace among them).
    pub fn is_protected(&self, path: &str) -> bool {
        if self.extra_protected.holds_ancestor_of(path) {
            return true;
        }
        let under = |rest: &str, entry: &str| {
            rest.strip_prefix(entry).is_some_and(|after| after.is_empty() || after.starts_with('/'))
        };
        if let Some(home) = self.home.as_deref().filter(|h| *h != "/")
            && let Some(rest) = path.strip_prefix(home).and_then(|r| r.strip_prefix('/'))
            && home_protected().any(|entry| under(rest, entry))
        {
            return true;
        }
        // Agents' and editors' project files count at the top of the workspace, where those
        // programs look for them.
        if self.workspace != "/"
            && let Some(rest) = path.strip_prefix(self.workspace.as_str()).and_then(|r| r.strip_prefix('/'))
            && project_settings().any(|entry| under(rest, entry))
        {
            return true;
        }
        let mut previous: Option<&[u8]> = None;
        let mut in_git = false;
        for part in components(path).filter(|c| !c.is_empty()) {
            if previous == Some(b".git") && (part == b"hooks" || part == b"config") {
                return true;
            }
            // A worktree's `commondir` names the repository whose hooks git runs.
            if in_git && part == b"commondir" {
                return true;
            }
            in_git |= part == b".git";
            previous = Some(part);
        }
        previous.is_some_and(|last| STARTUP_FILES.iter().any(|f| f.as_bytes() == last) || last == b".git")
    }
}

/// The protected paths a layout adds for `PATH` and `XDG_CONFIG_HOME`: the `PATH` directories
/// outside the workspace, or anywhere when the workspace holds the home (a program planted
/// there runs unsandboxed next time), and git's and
/// sandbox-bash's configuration under `XDG_CONFIG_HOME`. System directories on `PATH` need
/// system write anyway; a directory that holds the workspace or the home is left out (it
/// would protect them whole).
pub fn protected_for(
    path_dirs: &[String],
    xdg_config: Option<&str>,
    workspace: &str,
    home: Option<&str>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for dir in path_dirs.iter().cloned() {
        // Scratch is the command's own to write (a build's `/tmp/xfs-…/bin`).
        if is_system_path(&dir)
            || is_within(&dir, "/tmp")
            // A project's own (a virtual environment's `bin`), unless the workspace holds the
            // home: then the home's are the user's, whatever the workspace says.
            || (is_within(&dir, workspace) && !home.is_some_and(|h| is_within(h, workspace)))
            || is_within(workspace, &dir)
            || home.is_some_and(|h| is_within(h, &dir))
            || out.contains(&dir)
        {
            continue;
        }
        out.push(dir);
    }
    if let Some(x) = xdg_config.filter(|x| x.starts_with('/')) {
        let x = normalize("/", x);
        for name in ["git", "sandbox-bash"] {
            out.push(format!("{x}/{name}"));
        }
    }
    out
}

/// The absolute directories of a `PATH` value, normalised (relative and non-UTF-8 entries
/// are left out).
pub fn path_dirs(path_var: Option<&[u8]>) -> impl Iterator<Item = String> + '_ {
    path_var
        .unwrap_or_default()
        .split(|&b| b == b':')
        .filter_map(|e| std::str::from_utf8(e).ok())
        .filter(|e| e.starts_with('/'))
        .map(|e| normalize("/", e))
}

/// Whether one path component is the name of a home credential directory or file (`.ssh`,
/// `.aws`, `.netrc`, …), for paths only partly known.
pub fn home_credential_name(component: &str) -> bool {
    HOME_CREDENTIALS.iter().any(|entry| !entry.contains('/') && *entry == component)
}

/// The components of `path` between its slashes, as bytes (a slash is one byte in UTF-8, so
/// splitting bytes needs no decoding; std's split by a `char` pattern is several times slower
/// on the short paths the scopes are asked about).
fn components(path: &str) -> impl Iterator<Item = &[u8]> {
    path.as_bytes().split(|&b| b == b'/')
}

/// Whether one path component names a secret by its name: key material and the files and
/// directories that are secret stores by convention, never a word inside the name of source
/// code, documentation or data (`tokenizer.py`, `csrf_token.py`, `special_tokens_map.json`,
/// `secret_santa.md` and `credentials.example.json` are ordinary files). The rule:
///
/// - `.env` and `.env.*`;
/// - keys and keystores by extension ([`KEY_EXTENSIONS`]);
/// - SSH private keys (`id_rsa`, `id_ed25519_sk`, … but not their `.pub`);
/// - the stores whose names are fixed by the program that reads them ([`STORE_NAMES`]);
/// - a name whose stem is a secret store's ([`STORE_STEMS`], or one of them after `_` or `-`:
///   `aws_credentials`, `client_secret`, `github_token`) with no extension or a data file's
///   ([`DATA_EXTENSIONS`]);
/// - a `.token` file.
pub fn credential_name(component: &str) -> bool {
    credential_bytes(component.as_bytes())
}

/// Extensions of key material and keystores.
pub const KEY_EXTENSIONS: &[&str] = &[
    "pem",
    "key",
    "p12",
    "pfx",
    "p8",
    "jks",
    "keystore",
    "ppk",
    "kdbx",
    "token",
    "keytab",
    "env",
    "tfstate",
    "kubeconfig",
];

/// Secret stores whose whole name is fixed by convention, wherever they are.
pub const STORE_NAMES: &[&str] = &[
    ".netrc",
    "_netrc",
    ".pgpass",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".dockercfg",
    ".htpasswd",
    ".vault-token",
    ".my.cnf",
    ".s3cfg",
    ".boto",
    "kubeconfig",
    "terraform.tfstate.backup",
];

/// Stems of secret stores: a file or directory so named (with a data extension or none), or
/// named with one of them at its end after `_` or `-`.
pub const STORE_STEMS: &[&str] = &[
    "credentials",
    "credential",
    "secrets",
    "secret",
    "token",
    "passwords",
    "password",
    "service-account",
    "service_account",
    "serviceaccount",
    "serviceaccountkey",
    "key",
    "apikey",
    "privatekey",
];

/// Extensions of data files: with a store's stem, the file is the store.
pub const DATA_EXTENSIONS: &[&str] =
    &["", "json", "yaml", "yml", "toml", "ini", "xml", "env", "txt", "cfg", "conf", "properties", "csv", "db", "gpg"];

/// How many answers of [`credential_bytes`] a thread keeps before it starts again.
const KEPT_NAME_ANSWERS: usize = 1024;

thread_local! {
    /// [`credential_bytes`]'s answers, by component: planning asks it of every component of
    /// every path it looks at (some 800 paths at a start), and the same few dozen names (the
    /// directories on the way to the workspace and the home) come back again and again.
    static NAME_ANSWERS: std::cell::RefCell<rustc_hash::FxHashMap<Box<[u8]>, bool>> =
        std::cell::RefCell::new(rustc_hash::FxHashMap::default());
}

fn credential_bytes(c: &[u8]) -> bool {
    if c.is_empty() || c.len() > 255 {
        return false;
    }
    // (A thread being torn down has no table left: the rule answers.)
    NAME_ANSWERS
        .try_with(|answers| {
            if let Some(&known) = answers.borrow().get(c) {
                return known;
            }
            let answer = credential_rule(c);
            let mut answers = answers.borrow_mut();
            if answers.len() >= KEPT_NAME_ANSWERS {
                answers.clear();
            }
            answers.insert(c.into(), answer);
            answer
        })
        .unwrap_or_else(|_| credential_rule(c))
}

/// The built-in rule for one component (1 to 255 bytes).
fn credential_rule(c: &[u8]) -> bool {
    // Lowered on the stack: this is asked of every component of every path planning and the
    // analysis look at. (Lowering ASCII letters keeps the text UTF-8.)
    let mut buf = [0u8; 255];
    let buf = &mut buf[..c.len()];
    buf.copy_from_slice(c);
    buf.make_ascii_lowercase();
    let Ok(lower) = std::str::from_utf8(buf) else { return false };
    if lower == ".env" || lower.starts_with(".env.") {
        return true;
    }
    if ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"].iter().any(|k| lower.starts_with(k)) {
        return !lower.ends_with(".pub");
    }
    if STORE_NAMES.contains(&lower) {
        return true;
    }
    let (stem, extension) = match lower.rsplit_once('.') {
        // A leading dot is part of the name (`.secrets`), not an extension.
        Some((stem, ext)) if !stem.is_empty() => (stem, ext),
        _ => (lower.trim_start_matches('.'), ""),
    };
    if KEY_EXTENSIONS.contains(&extension) {
        return true;
    }
    if !DATA_EXTENSIONS.contains(&extension) {
        return false;
    }
    let stem = stem.trim_start_matches('.');
    // Google's OAuth client files: `client_secret_….apps.googleusercontent.com.json`.
    if stem.starts_with("client_secret") && extension == "json" {
        return true;
    }
    STORE_STEMS.iter().any(|s| {
        stem == *s
            || stem
                .strip_suffix(s)
                .is_some_and(|before| before.len() > 1 && (before.ends_with('_') || before.ends_with('-')))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Layout {
        Layout { workspace: "/home/u/proj".into(), home: Some("/home/u".into()), tmpdir: None, ..Default::default() }
    }

    /// The answers kept by component are the rule's, asked first or again, for names whose
    /// case differs, and after the table was filled and started again.
    #[test]
    fn kept_name_answers_are_the_rules() {
        let names = ["id_ed25519", "ID_ED25519", "id_ed25519.pub", ".env", ".env.local", "notes", "tokenizer.py"];
        let fresh: Vec<bool> = names.iter().map(|n| credential_rule(n.as_bytes())).collect();
        assert_eq!(fresh, [true, true, false, true, true, false, false]);
        for round in 0..3 {
            // Asked twice: the second answer is the one kept.
            for (n, want) in names.iter().zip(&fresh) {
                assert_eq!(credential_name(n), *want, "{n} in round {round}");
                assert_eq!(credential_name(n), *want, "{n} again in round {round}");
            }
            // More distinct names than are kept: the table starts again on the way.
            for i in 0..KEPT_NAME_ANSWERS + 7 {
                assert!(!credential_name(&format!("dir{i}")));
            }
        }
    }

    /// The lookup answers exactly what comparing the path with every entry answers, for lists
    /// and paths of every shape `is_within` is given (the root, the empty string, doubled and
    /// trailing slashes, entries that are prefixes of one another's names), and stays right
    /// through changes of the list.
    #[test]
    fn paths_look_up_what_comparing_with_each_entry_finds() {
        let parts = ["", "/", "a", "ab", "b", ".ssh", "a/b", "a/bc", "a//b", "a/", "x/y/z"];
        let mut candidates: Vec<String> = vec![String::new(), "/".into(), "//".into()];
        for p in parts {
            for q in parts {
                candidates.push(format!("/{p}"));
                candidates.push(format!("/{p}/{q}"));
                candidates.push(format!("{p}/{q}"));
            }
        }
        candidates.sort();
        candidates.dedup();
        let lists: Vec<Vec<String>> = vec![
            vec![],
            vec!["/".into()],
            vec![String::new()],
            vec!["/a".into()],
            vec!["/a/b".into(), "/ab".into()],
            vec!["/a/".into(), "//".into()],
            vec!["/a//b".into(), "/x/y/z".into(), "/.ssh".into()],
            candidates.iter().step_by(7).cloned().collect(),
        ];
        let check = |paths: &Paths, list: &[String]| {
            for path in &candidates {
                let ancestor = list.iter().any(|c| is_within(path, c));
                let below = list.iter().any(|c| c != path && is_within(c, path));
                assert_eq!(paths.holds_ancestor_of(path), ancestor, "{path:?} in {list:?}");
                assert_eq!(paths.any_below(path), below, "below {path:?} in {list:?}");
            }
        };
        for list in &lists {
            let mut paths = Paths::from(list.clone());
            check(&paths, list);
            // Asked once (the lookup made), then changed: the answers follow the change.
            let mut grown = list.clone();
            grown.push("/a/b/c".into());
            paths.push("/a/b/c".into());
            check(&paths, &grown);
            grown.extend(["/".to_string(), "/q".to_string()]);
            paths.extend(["/".to_string(), "/q".to_string()]);
            check(&paths, &grown);
            // A clone made after the lookup shares it; a change to the clone is the clone's.
            let mut copy = paths.clone();
            check(&copy, &grown);
            copy.push("/z".into());
            let mut more = grown.clone();
            more.push("/z".into());
            check(&copy, &more);
            check(&paths, &grown);
        }
    }

    #[test]
    fn normalizes_lexically() {
        assert_eq!(normalize("/home/u/proj", "a/../b"), "/home/u/proj/b");
        assert_eq!(normalize("/home/u/proj", "../../../../etc//passwd"), "/etc/passwd");
        assert_eq!(normalize("/x", "/tmp/../etc/./shadow"), "/etc/shadow");
        assert_eq!(normalize("/x", "//"), "/");
        assert_eq!(normalize("/x", "."), "/x");
        assert_eq!(normalize("/", ".."), "/");
    }

    #[test]
    fn the_shortcut_for_normal_paths_agrees_with_the_long_way() {
        // Every path of up to four components from an alphabet of the tricky ones, with and
        // without a leading and a trailing slash.
        let parts = ["", ".", "..", "a", "b.c", "...", ".d"];
        let mut paths = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> =
                paths.iter().flat_map(|p| parts.iter().map(move |q| format!("{p}/{q}"))).collect();
            paths.extend(longer);
        }
        let mut shortcut = 0;
        for p in paths.iter().flat_map(|p| [p.clone(), p.trim_start_matches('/').to_string(), format!("{p}/")]) {
            assert_eq!(normalize("/x/y", &p), join_and_clean("/x/y", &p), "{p:?}");
            shortcut += usize::from(is_normal_absolute(&p));
        }
        assert!(shortcut > 100, "the shortcut is taken for normal paths ({shortcut})");
    }

    #[test]
    fn classifies_by_the_first_matching_row() {
        let l = layout();
        let c = |p: &str| l.classify(p, false);
        let w = |p: &str| l.classify(p, true);
        assert_eq!(c("/dev/tcp/example.com/80"), Class::Network);
        assert_eq!(c("/home/u/.ssh/id_rsa"), Class::Credential);
        assert_eq!(c("/home/u/.ssh"), Class::Credential);
        assert_eq!(c("/home/u/proj/.env"), Class::Credential);
        assert_eq!(c("/home/u/proj/.env.local"), Class::Credential);
        assert_eq!(c("/home/u/proj/server.pem"), Class::Credential);
        assert_eq!(c("/home/u/proj/api_token.txt"), Class::Credential);
        assert_eq!(c("/home/u/proj/src/tokenizer.py"), Class::Workspace);
        assert_eq!(c("/home/u/.cargo/credentials.toml"), Class::Credential);
        assert_eq!(c("/home/u/.config/gcloud/x"), Class::Credential);
        assert_eq!(c("/home/u/.envrc"), Class::External);
        assert_eq!(c("/proc/self/status"), Class::Scratch);
        assert_eq!(c("/proc/thread-self/fd/3"), Class::Scratch);
        assert_eq!(w("/proc/self/oom_score_adj"), Class::System);
        assert_eq!(c("/proc/self/root/etc/shadow"), Class::System);
        assert_eq!(c("/proc/self/root/home/u/.ssh/id_rsa"), Class::Credential);
        assert_eq!(c("/proc/self/root"), Class::System);
        assert_eq!(c("/proc/self/cwd/x"), Class::System);
        assert_eq!(c("/proc/1/environ"), Class::System);
        assert_eq!(c("/home/u/proj/src/main.rs"), Class::Workspace);
        assert_eq!(c("/home/u/proj/.git/hooks/pre-commit"), Class::Workspace);
        assert_eq!(w("/home/u/proj/.git/hooks/pre-commit"), Class::Protected);
        assert_eq!(w("/home/u/proj/.git/config"), Class::Protected);
        assert_eq!(w("/home/u/.bashrc"), Class::Protected);
        assert_eq!(c("/home/u/.bashrc"), Class::External);
        assert_eq!(c("/tmp/x"), Class::Scratch);
        assert_eq!(c("/tmp"), Class::Scratch);
        assert_eq!(c("/dev/null"), Class::Scratch);
        assert_eq!(c("/dev/fd/3"), Class::Scratch);
        assert_eq!(c("/dev/sda"), Class::System);
        assert_eq!(c("/etc/hosts"), Class::System);
        assert_eq!(c("/lib64/ld-linux-x86-64.so.2"), Class::System);
        assert_eq!(c("/"), Class::System);
        assert_eq!(c("/home/u/notes.txt"), Class::External);
        assert_eq!(c("/opt/thing"), Class::External);
        assert_eq!(c("/etcetera"), Class::External);
    }

    #[test]
    fn credential_names_are_key_material_and_secret_stores_not_words() {
        for name in [
            ".env",
            ".env.production",
            ".env.example",
            "deploy.key",
            "server.pem",
            "store.p12",
            "release.jks",
            "id_ed25519",
            "id_ecdsa_sk",
            "token",
            ".token",
            "ci.token",
            "github_token.txt",
            "token.json",
            "client_secret.json",
            "aws_credentials.json",
            "gcp-service-account.json",
            "secrets.yaml",
            "Secrets.YML",
            "credentials",
            "secrets",
            ".credentials",
            ".secrets",
            "passwords.txt",
            "api_key.txt",
            "private_key.json",
            "sa-key.json",
            "serviceAccountKey.json",
            "client_secret_12-ab.apps.googleusercontent.com.json",
            "prod.env",
            "krb5.keytab",
            "terraform.tfstate",
            "kubeconfig",
            ".netrc",
            ".pgpass",
            ".npmrc",
            ".vault-token",
        ] {
            assert!(credential_name(name), "{name}");
        }
        for name in [
            "tokenizer.py",
            "tokenizer.json",
            "csrf_token.py",
            "token.rs",
            "auth_token_test.go",
            "special_tokens_map.json",
            "credentials.example.json",
            "js-tokens",
            "tokens",
            "tokens.json",
            "tokenizers",
            "secret_santa.md",
            "SECRETS.md",
            "secrets.py",
            "credential_helper.go",
            ".secrets.baseline",
            "id_ed25519.pub",
            ".envrc",
            "environment.yml",
            "keyboard.c",
            "monkey.txt",
            "hotkey.json",
            "keys.json",
            "key.rs",
            "environment.py",
            "-token",
        ] {
            assert!(!credential_name(name), "{name}");
        }
    }

    #[test]
    fn the_configuration_adds_and_exempts_names() {
        let l =
            Layout { credential_names: vec!["*.vault".into()], credential_exempt: vec!["*.pem".into()], ..layout() };
        assert_eq!(l.classify("/home/u/proj/db.vault", false), Class::Credential);
        assert_eq!(l.classify("/home/u/proj/certs/ca.pem", false), Class::Workspace);
        assert_eq!(l.classify("/home/u/proj/.env", false), Class::Credential);
        // Never a home credential store.
        assert_eq!(l.classify("/home/u/.ssh/x.pem", false), Class::Credential);
    }

    #[test]
    fn a_workspace_under_tmp_or_var_is_still_the_workspace() {
        let l = Layout { workspace: "/var/lib/ci/build".into(), home: None, tmpdir: None, ..Default::default() };
        assert_eq!(l.classify("/var/lib/ci/build/x", true), Class::Workspace);
        assert_eq!(l.classify("/var/lib/ci/other", false), Class::System);
        let t = Layout { workspace: "/tmp/ws".into(), home: None, tmpdir: None, ..Default::default() };
        assert_eq!(t.classify("/tmp/ws/a", false), Class::Workspace);
        assert_eq!(t.classify("/tmp/other", false), Class::Scratch);
    }

    #[test]
    fn anchors_are_not_credentials_themselves() {
        let l = Layout {
            workspace: "/home/u/tokenizer".into(),
            home: Some("/home/u".into()),
            tmpdir: None,
            ..Default::default()
        };
        assert_eq!(l.classify("/home/u/tokenizer/src/lib.rs", false), Class::Workspace);
        assert_eq!(l.classify("/home/u/tokenizer/secrets/a", false), Class::Credential);
    }

    #[test]
    fn what_a_process_and_the_machine_are_needs_no_bit() {
        for p in [
            "/proc/cpuinfo",
            "/proc/mounts",
            "/proc/sys/kernel/osrelease",
            "/proc/1/mountinfo",
            "/proc/self/cgroup",
            "/sys/fs/cgroup/cpu.max",
            "/sys/devices/system/cpu/online",
        ] {
            assert!(is_process_info(p), "{p}");
        }
        for p in [
            "/proc",
            "/proc/kallsyms",
            "/proc/net/tcp",
            "/proc/1/environ",
            "/proc/self/maps",
            "/proc/sys/kernel/random/boot_id",
            "/sys/class/net",
            "/sys/fs/cgroupx",
            "/sys/firmware/acpi/tables/DSDT",
        ] {
            assert!(!is_process_info(p), "{p}");
        }
    }

    #[test]
    fn workspace_and_tmpdir_sanity() {
        assert!(!acceptable_workspace("/"));
        assert!(!acceptable_workspace("/usr"));
        assert!(!acceptable_workspace("/lib64"));
        assert!(acceptable_workspace("/var/lib/ci/x"));
        assert!(acceptable_workspace("/home/u/p"));
        assert!(acceptable_workspace("/tmp"));
        assert!(acceptable_tmpdir("/tmp/user", Some("/home/u"), "/home/u/p"));
        assert!(acceptable_tmpdir("/var/folders/ab/T", Some("/home/u"), "/home/u/p"));
        assert!(!acceptable_tmpdir("/etc", Some("/home/u"), "/home/u/p"));
        assert!(!acceptable_tmpdir("/", Some("/home/u"), "/home/u/p"));
        assert!(!acceptable_tmpdir("/home", Some("/home/u"), "/home/u/p"));
        assert!(!acceptable_tmpdir("/home/u", Some("/home/u"), "/home/u/p"));
        assert!(acceptable_tmpdir("/home/u/tmp", Some("/home/u"), "/home/u/p"));
        assert!(!acceptable_tmpdir("relative", None, "/w"));
    }

    #[test]
    fn toolchain_homes_follow_their_variables_and_never_name_a_credential_or_a_home() {
        let vars = |name: &str| match name {
            "CARGO_HOME" => Some("/opt/rust/cargo".to_string()),
            "RUSTUP_HOME" => Some("/opt/rust/rustup".to_string()),
            "GOPATH" => Some("/srv/go:/home/other".to_string()),
            "PYENV_ROOT" => Some("relative/ignored".to_string()),
            "CONDA_EXE" => Some("/opt/conda/bin/conda".to_string()),
            _ => None,
        };
        let groups = toolchain_groups(Some("/home/u"), &vars);
        assert_eq!(groups[0].homes, ["/opt/rust/cargo", "/opt/rust/rustup"]);
        assert!(groups.iter().any(|g| g.homes == ["/srv/go", "/home/other"]));
        assert!(groups.iter().any(|g| g.homes == ["/home/u/.pyenv"]), "a relative value falls back to the default");
        assert!(groups.iter().any(|g| g.homes == ["/opt/conda"]));
        let l = Layout { toolchains: Some(groups), ..layout() };
        let granted = l.toolchains_on_path(&["/srv/go/bin".to_string(), "/opt/rust/cargo/bin".to_string()]);
        assert_eq!(granted, ["/srv/go", "/opt/rust/cargo", "/opt/rust/rustup"], "not another user's home");
        // A home a set variable names is granted whatever PATH holds (rustup's proxies in
        // another cargo home still find RUSTUP_HOME); a default home is not.
        let named = l.toolchains_on_path(&["/root/.cargo/bin".to_string()]);
        assert_eq!(named, ["/opt/rust/cargo", "/opt/rust/rustup", "/srv/go"]);
        assert!(!named.iter().any(|h| h.starts_with("/home/u")), "{named:?}");
        for bad in ["/home/other", "/root", "/home", "/home/u/.ssh", "/opt/x/.aws", "/home/u/proj/tools", "/usr/local"]
        {
            assert!(!l.grantable_toolchain_home(bad), "{bad}");
        }
        assert!(l.grantable_toolchain_home("/home/other/.cargo"));
    }
}
