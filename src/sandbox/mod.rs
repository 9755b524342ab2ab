//! The kernel layer: the allowed mode as rules (pure data, [`policy`] and [`seccomp`]), the
//! facts about this machine they are computed from, and one small interface over the
//! platform backend that applies them to this process before `execve`.

mod error;
#[cfg(target_os = "linux")]
pub mod facts;
pub mod info;
#[cfg(target_os = "linux")]
pub mod inherited;
#[cfg(target_os = "linux")]
pub mod linux;
#[cfg(target_os = "macos")]
pub mod macos;
pub mod marker;
#[cfg(target_os = "linux")]
pub mod namespace;
#[cfg(target_os = "linux")]
pub mod netns;
pub mod policy;
pub mod seatbelt;
pub mod seccomp;
pub mod view;
#[cfg(target_os = "linux")]
pub mod word;

use std::ffi::OsStr;
use std::path::Path;

pub use error::{Error, Held};

use crate::mode::Mode;
use crate::scope::Layout;
use policy::{Entry, Inputs, Policy, World};

/// The variable that opts in to running with less than the mode needs, said on every run.
pub const DEGRADED_VAR: &str = "SANDBOX_BASH_ALLOW_DEGRADED";

/// The variable sandbox-bash sets for the command: the mode its kernel layer enforces. A
/// nested invocation reads it to narrow its own mode (never to widen it) and to decide what
/// to do when Landlock cannot add another layer.
pub const ENFORCED_VAR: &str = "SANDBOX_BASH_ENFORCED";

/// Something the kernel cannot enforce here, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shortfall {
    pub what: Feature,
    pub why: String,
}

/// A part of the kernel layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// Landlock itself: the filesystem and TCP rules.
    Landlock,
    /// A Landlock right of a later ABI than the kernel's (what it is, in words).
    LandlockRight(&'static str),
    /// The seccomp filter.
    Seccomp,
}

impl std::fmt::Display for Feature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Feature::Landlock => f.write_str("filesystem and TCP rules (Landlock)"),
            Feature::LandlockRight(what) => f.write_str(what),
            Feature::Seccomp => f.write_str("the seccomp filter"),
        }
    }
}

/// What the static layer alone holds, in words, of the kind that places it in the
/// declaration (`--sandbox-info`); the record carries the words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StaticOnly {
    /// Credentials the Landlock rules cannot keep out (the namespace view, once entered,
    /// covers those there at the start).
    Credentials(String),
    /// Something of the file system the Landlock rules cannot hold and an entered view does.
    HeldByView(String),
    /// Something of the file system that neither holds.
    Filesystem(String),
    /// A server's unix socket reached by its path.
    Server(String),
    /// An exception of the namespace view.
    View(String),
    /// What this run goes without, by its circumstances (a layer the kernel refused, the
    /// secrets removed from its environment, the signals of its session).
    Run(String),
}

impl StaticOnly {
    /// The words.
    pub fn text(&self) -> &str {
        match self {
            StaticOnly::Credentials(t)
            | StaticOnly::HeldByView(t)
            | StaticOnly::Filesystem(t)
            | StaticOnly::Server(t)
            | StaticOnly::View(t)
            | StaticOnly::Run(t) => t,
        }
    }
}

impl std::fmt::Display for StaticOnly {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

/// What holds after applying.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Enforcement {
    pub landlock_abi: Option<i32>,
    pub landlock: bool,
    pub seccomp: bool,
    pub no_new_privs: bool,
    pub capabilities_dropped: usize,
    /// The namespace layer: `None` when none was planned.
    pub namespaces: Option<view::Entered>,
    /// How many seccomp filters the process carries once locked (when the kernel counts them).
    pub filters: Option<u32>,
}

/// The machine as the planner sees it: directory listings and canonical paths.
pub struct RealWorld;

impl World for RealWorld {
    fn node(&self, path: &str) -> Option<(u64, u64)> {
        use std::os::unix::fs::MetadataExt;
        std::fs::symlink_metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }

    #[cfg(target_os = "linux")]
    fn list(&self, dir: &str) -> Option<Vec<Entry>> {
        facts::list(dir).unwrap_or_else(|| linux::list_dir(dir))
    }

    #[cfg(not(target_os = "linux"))]
    fn list(&self, dir: &str) -> Option<Vec<Entry>> {
        let entries = std::fs::read_dir(dir).ok()?;
        let mut out: Vec<Entry> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let t = e.file_type().ok();
                let link = t.is_none_or(|t| t.is_symlink());
                let dir = t.is_some_and(|t| t.is_dir());
                let special = t.is_some_and(|t| {
                    std::os::unix::fs::FileTypeExt::is_socket(&t) || std::os::unix::fs::FileTypeExt::is_fifo(&t)
                });
                Some(Entry { name, link, dir, special })
            })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Some(out)
    }

    fn canonical(&self, path: &str) -> Option<String> {
        crate::exec::canonicalize(path).ok()
    }

    fn is_link(&self, path: &str) -> bool {
        #[cfg(target_os = "linux")]
        if let Some(found) = facts::entry(path) {
            return found.is_some_and(|e| e.link);
        }
        std::fs::symlink_metadata(path).map(|m| m.file_type().is_symlink()).unwrap_or(false)
    }

    fn exists(&self, path: &str) -> bool {
        #[cfg(target_os = "linux")]
        if let Some(found) = facts::entry(path) {
            return found.is_some();
        }
        std::fs::symlink_metadata(path).is_ok()
    }

    fn is_dir(&self, path: &str) -> Option<bool> {
        #[cfg(target_os = "linux")]
        if let Some(found) = facts::entry(path) {
            return found.filter(|e| !e.link).map(|e| e.dir);
        }
        let t = std::fs::symlink_metadata(path).ok()?.file_type();
        (!t.is_symlink()).then_some(t.is_dir())
    }
}

/// The files behind descriptors 0, 1 and 2, each when it is a file or device with a path that
/// the runtime rules do not already cover (not a pipe or socket, which no path rule is needed
/// for, nor /dev/null, a terminal or another scratch device, which every mode may read and
/// write).
#[cfg(target_os = "linux")]
fn standard_files() -> [Option<String>; 3] {
    use linux::FdKind;
    // The descriptors' own types first: cheap calls that answer for pipes and scratch devices.
    let kinds = linux::fd_kinds([0, 1, 2]);
    std::array::from_fn(|fd| {
        match kinds[fd]? {
            FdKind::File | FdKind::OtherDevice => {}
            FdKind::ScratchDevice | FdKind::Other => return None,
        }
        let target = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?.into_os_string().into_string().ok()?;
        if !target.starts_with('/') || target.ends_with(" (deleted)") {
            return None;
        }
        let meta = std::fs::metadata(&target).ok()?;
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        (t.is_file() || t.is_char_device()).then_some(target)
    })
}

#[cfg(not(target_os = "linux"))]
fn standard_files() -> [Option<String>; 3] {
    [None, None, None]
}

/// `layout` with sandbox-bash and the real bash among its protected paths. The two programs
/// every later shell runs are never written: a command that may write the tree they lie in
/// would otherwise replace them, and the next start would run its code outside any sandbox.
/// sandbox-bash's own path comes from /proc/self/exe, links resolved; the real bash's is
/// resolved here unless it lies in a system program directory, which only system write
/// changes anyway.
pub fn with_programs(layout: &Layout, real_bash: &std::path::Path) -> Layout {
    let mut layout = layout.clone();
    let bash = real_bash.to_string_lossy().into_owned();
    let me = crate::exec::self_exe().map(|p| p.to_string_lossy().into_owned());
    for (program, resolved) in [(Some(bash), false), (me, true)] {
        let Some(program) = program else { continue };
        let real = if resolved || crate::baseline::in_program_roots(&program) {
            program.clone()
        } else {
            crate::exec::canonicalize(&program).unwrap_or_else(|_| program.clone())
        };
        for p in [program, real] {
            if !layout.extra_protected.contains(&p) {
                layout.extra_protected.push(p);
            }
        }
    }
    layout
}

/// Computes the policy for this invocation on this machine.
pub fn plan_here(
    mode: Mode,
    layout: &Layout,
    real_bash: &std::path::Path,
    path_var: Option<&OsStr>,
    nested: bool,
    extra: policy::Extra,
) -> Policy {
    // The rule follows a link to the real file itself: no need to resolve the path first.
    let bash = real_bash.to_string_lossy().into_owned();
    let me = crate::exec::self_exe().map(|p| p.to_string_lossy().into_owned());
    let path_var = path_var.map(|p| p.to_string_lossy().into_owned());
    let layout = &with_programs(layout, real_bash);
    let inputs = Inputs {
        mode,
        layout,
        path_var: path_var.as_deref(),
        real_bash: &bash,
        self_exe: me.as_deref(),
        standard_files: standard_files(),
        nested,
        extra,
    };
    policy::plan(&inputs, &RealWorld)
}

/// The agent sockets a command could sign or decrypt with: `SSH_AUTH_SOCK` (unless the
/// configuration keeps that variable for the command, to let git use the agent), gpg-agent's
/// and the desktop keyrings' sockets.
pub fn agent_sockets(env: &crate::environ::Environ, home: Option<&str>, keep_env: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if !keep_env.iter().any(|k| k == "SSH_AUTH_SOCK")
        && let Some(s) =
            env.get("SSH_AUTH_SOCK").map(|s| s.to_string_lossy().into_owned()).filter(|s| s.starts_with('/'))
    {
        out.push(crate::scope::normalize("/", &s));
    }
    let runtime = env
        .get("XDG_RUNTIME_DIR")
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| s.starts_with('/'))
        .unwrap_or_else(|| format!("/run/user/{}", crate::exec::uid()));
    let gnupg = env
        .get("GNUPGHOME")
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| s.starts_with('/'))
        .or_else(|| home.map(|h| policy::join(h, ".gnupg")));
    let world = RealWorld;
    for dir in gnupg.into_iter().chain([policy::join(&runtime, "gnupg")]) {
        for e in world.list(&dir).unwrap_or_default() {
            let p = policy::join(&dir, &e.name);
            if e.name.starts_with("S.") {
                out.push(p);
            } else if e.dir && e.name.starts_with("d.") {
                for inner in world.list(&p).unwrap_or_default() {
                    if inner.name.starts_with("S.") {
                        out.push(policy::join(&p, &inner.name));
                    }
                }
            }
        }
    }
    for name in ["keyring/ssh", "gcr/ssh", "ssh-agent.socket", "openssh_agent"] {
        out.push(policy::join(&runtime, name));
    }
    out.sort();
    out.dedup();
    out
}

/// The paths bound to unix sockets in this network namespace, from the text of
/// `/proc/net/unix` (`Num RefCount Protocol Flags Type St Inode Path`, the path the rest of
/// the line): absolute ones only (an abstract socket is Landlock's to scope; a relative one
/// names no place we can know), each where it really is and a socket there, less those in
/// `reachable` (the configuration's, the run's own relay). A directory outside the workspace
/// that holds sockets alone (`/tmp/tmux-0`, `/tmp/.X11-unix`, screen's) is given whole, so
/// that a server started there later is hidden too; never a directory programs share (`/`,
/// `/tmp`, `/run`, the runtime directory, a home).
pub fn servers(
    proc_net_unix: &[u8],
    reachable: &[String],
    workspace: &str,
    runtime: Option<&str>,
    world: &dyn World,
) -> Vec<view::Server> {
    use std::os::unix::fs::FileTypeExt;
    let mut sockets: Vec<String> = Vec::new();
    for line in proc_net_unix.split(|&b| b == b'\n').skip(1) {
        let mut rest = line;
        for _ in 0..7 {
            let start = rest.iter().position(|b| *b != b' ').unwrap_or(rest.len());
            rest = &rest[start..];
            let end = rest.iter().position(|b| *b == b' ').unwrap_or(rest.len());
            rest = &rest[end..];
        }
        let Some(path) = rest.strip_prefix(b" ") else { continue };
        let Ok(path) = std::str::from_utf8(path) else { continue };
        if !path.starts_with('/') {
            continue;
        }
        let Some(real) = world.canonical(path) else { continue };
        // A named pipe that a process outside reads runs what is written to it just the same
        // (`while :; do sh < fifo; done`).
        let is_socket =
            std::fs::symlink_metadata(&real).is_ok_and(|m| m.file_type().is_socket() || m.file_type().is_fifo());
        if !is_socket || sockets.contains(&real) {
            continue;
        }
        let named = |list: &[String]| {
            list.iter().any(|r| {
                crate::scope::is_within(&real, r)
                    || world.canonical(r).is_some_and(|c| crate::scope::is_within(&real, &c))
            })
        };
        if named(reachable) {
            continue;
        }
        sockets.push(real);
    }
    sockets.sort();
    let mut out: Vec<view::Server> = Vec::new();
    let mut whole: Vec<String> = Vec::new();
    for socket in &sockets {
        let Some((dir, _)) = socket.rsplit_once('/') else { continue };
        if whole.iter().any(|w| w == dir) {
            continue;
        }
        let shared = dir.is_empty()
            || ["/tmp", "/var/tmp", "/run", "/var/run", "/dev", "/dev/shm", "/run/user"].contains(&dir)
            || runtime.is_some_and(|r| r == dir)
            || crate::scope::is_within(dir, workspace)
            || dir.split('/').filter(|c| !c.is_empty()).count() < 2
            || dir.strip_prefix("/home/").is_some_and(|user| !user.contains('/'));
        let alone = !shared
            && world.list(dir).is_some_and(|entries| {
                !entries.is_empty()
                    && entries.iter().all(|e| {
                        let p = policy::join(dir, &e.name);
                        !e.dir
                            && !e.link
                            && std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_socket())
                            && !reachable.iter().any(|r| crate::scope::is_within(&p, r))
                    })
            });
        if alone {
            whole.push(dir.to_string());
            out.push(view::Server::Directory(dir.to_string()));
        } else {
            out.push(view::Server::Socket(socket.clone()));
        }
    }
    out
}

/// The socket files and named pipes in `trees` and the directories right inside them (two
/// levels, at most 256 directories listed), by the type the directory listing gives (no file
/// is opened).
fn socket_files(trees: impl Iterator<Item = String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut listed = 0;
    let mut queue: std::collections::VecDeque<(String, u8)> = trees.map(|t| (t, 0)).collect();
    while let Some((dir, depth)) = queue.pop_front() {
        if listed == 256 {
            break;
        }
        listed += 1;
        let Some(entries) = RealWorld.list(&dir) else { continue };
        for e in entries {
            let path = policy::join(&dir, &e.name);
            if e.special {
                out.push(path);
            } else if e.dir && depth < 1 {
                queue.push_back((path, depth + 1));
            }
        }
    }
    out
}

/// The mount view for `policy` on this machine.
pub fn view_here(policy: &Policy, layout: &Layout, env: &crate::environ::Environ, keep_env: &[String]) -> view::View {
    let sockets = agent_sockets(env, layout.home.as_deref(), keep_env);
    let servers = if policy.mode.has(crate::mode::Scope::System, crate::mode::Perm::Execute) {
        Vec::new()
    } else {
        let runtime = env.get("XDG_RUNTIME_DIR").map(|s| s.to_string_lossy().into_owned());
        let mut text = std::fs::read("/proc/net/unix").unwrap_or_default();
        // Sockets the listing names by a relative path, or that were renamed or linked since
        // they were bound, are found where servers keep them: as lines of the same shape.
        let own_runtime = format!("/run/user/{}", crate::exec::uid());
        let trees = ["/tmp", "/var/tmp", "/dev/shm"]
            .into_iter()
            .map(str::to_string)
            .chain(Some(runtime.clone().unwrap_or(own_runtime)));
        for path in socket_files(trees) {
            text.extend_from_slice(format!("\n0: 0 0 0 0 0 0 {path}").as_bytes());
        }
        // An agent that signs or decrypts with the keys gives no more than the keys, which
        // system read reads.
        let mut reachable = policy.reachable.clone();
        // make's jobserver, when it is a named pipe (`--jobserver-auth=fifo:PATH`), is the
        // caller's handing to its recipes.
        if let Some(flags) = env.get("MAKEFLAGS").map(|v| v.to_string_lossy().into_owned()) {
            reachable.extend(
                flags.split_whitespace().filter_map(|w| w.strip_prefix("--jobserver-auth=fifo:")).map(str::to_string),
            );
        }
        if policy.mode.has(crate::mode::Scope::System, crate::mode::Perm::Read) {
            reachable.extend(sockets.iter().cloned());
        }
        servers(&text, &reachable, &layout.workspace, runtime.as_deref(), &RealWorld)
    };
    let inputs = view::ViewInputs { policy, layout, sockets, servers };
    view::plan(&inputs, &RealWorld, &view::Files)
}

/// Whether the user opted in to degraded operation: `1` yes; unset, empty or `0` no;
/// anything else is an error, so that a typo never changes what is enforced.
pub fn degraded_allowed(value: Option<&OsStr>) -> Result<bool, crate::error::Error> {
    match value.map(|v| v.as_encoded_bytes()) {
        None | Some(b"") | Some(b"0") => Ok(false),
        Some(b"1") => Ok(true),
        Some(_) => Err(crate::error::Error::Config(format!(
            "invalid {DEGRADED_VAR}={:?}: expected 1 (run with what the kernel can enforce) or 0",
            value.map(|v| v.to_string_lossy().into_owned()).unwrap_or_default()
        ))),
    }
}

/// What happened when the rules were applied.
pub struct Outcome {
    pub enforcement: Enforcement,
    /// What could not be enforced (only with the degraded opt-in).
    pub shortfalls: Vec<Shortfall>,
    /// Landlock's layer limit was reached; the outer layers bind.
    pub layer_limit: bool,
    /// The enclosing run's layers hold this level, which adds none: its inputs are those the
    /// run locked with (see [`word`]).
    pub run_layers: bool,
}

/// Whether a network namespace for the allowlist's proxy can be had here (tried in a child
/// that is thrown away), for `--sandbox-info` and `--sandbox-explain`.
pub fn network_namespace_probe(nested: bool) -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        if nested {
            return Err("an enclosing sandbox-bash's rules refuse new namespaces".into());
        }
        namespace::probe(true)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = nested;
        Err("this platform has no network namespaces".into())
    }
}

/// What [`lock`] locks this process to, and what decides what happens when the kernel cannot
/// do all of it.
pub struct Lock<'a> {
    /// The mode to enforce: the one asked for, narrowed by an enclosing sandbox-bash and the
    /// administrator's ceiling.
    pub allowed: Mode,
    /// The mode the caller asked for.
    pub requested: Mode,
    /// What an enclosing sandbox-bash enforces.
    pub outer: Option<&'a marker::Marker>,
    /// The user opted in to running with less than the mode needs.
    pub degraded_ok: bool,
    pub layout: &'a Layout,
    pub real_bash: &'a Path,
    /// The environment sandbox-bash was started with (`PATH`, the agent sockets, the marker of
    /// an enclosing sandbox-bash).
    pub env: &'a crate::environ::Environ,
    /// What the configuration adds to the rules.
    pub extra: policy::Extra,
    /// The variables the configuration keeps for the command.
    pub keep_env: &'a [String],
    /// The system file requires the namespace layer.
    pub require_namespaces: bool,
    /// The script bash reads, for the namespace layer's frozen copy.
    pub frozen: Option<view::Frozen<'a>>,
    /// A network namespace of the command's own for the allowlist's proxy, with these ports of
    /// the host's loopback forwarded into it.
    pub network: Option<&'a [u16]>,
    /// With [`Lock::network`]: the agent session's network namespace to join instead of making
    /// one (see [`crate::outside::proxy::registry`]).
    pub join: Option<&'a std::os::fd::OwnedFd>,
    /// Done in the run's own view before the capabilities go (the disk limit's marks); a run
    /// without a view of its own is refused.
    pub in_view: Option<&'a dyn Fn() -> Result<(), String>>,
    /// Nested levels may start in the run (it runs a shell, or code the analysis cannot see):
    /// the view gives them the listings in the store's place (see `facts::snapshot`).
    pub nested_may_start: bool,
    /// What decides the rules besides the mode (see [`boundary`]): the outermost level gives
    /// it to its nested levels, which lock nothing more when theirs is the same.
    pub boundary: Option<String>,
}

/// The rules in force at a nested level whose inputs in `mode` are its run's (`boundary`),
/// which then adds none of its own (see [`word`]); `None` anywhere else.
pub fn run_rules(mode: Mode, boundary: &str) -> Option<Policy> {
    #[cfg(target_os = "linux")]
    return linux::run_rules(mode, boundary).map(|(_, policy)| policy);
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (mode, boundary);
        None
    }
}

/// What decides a level's rules besides its mode, as text: the places of its layout, the
/// configuration's additions and ceiling, and the real bash. Left out is what the run's own
/// rules bound for every process in it, a nested level's or not: `PATH`, the standard streams,
/// the sockets left reachable, the caches' layers (the run's view holds them), the files the
/// repository stores (read anew at each start), and, for the outermost level (`outermost`), its
/// audit log, which its rules hold and no nested level knows (a nested level's own log is one
/// of its inputs). The network list too: a nested level's own rules never hold one (it cannot
/// make a network namespace); the run's namespace and proxy hold it, and a nested level with a
/// list the run does not hold gets no network at all, a mode without the network bits.
pub fn boundary(layout: &Layout, real_bash: &Path, extra: &policy::Extra, outermost: bool) -> String {
    let Layout {
        workspace,
        no_workspace,
        home,
        tmpdir,
        extra_credentials,
        audit_logs,
        credential_names,
        credential_exempt,
        committed: _,
        extra_protected,
        toolchains,
        client_state,
        client_files,
        caches: _,
        sessions,
        private,
        relaxed,
    } = layout;
    let policy::Extra { config_files, runtime_read, runtime_execute, ceiling, sockets: _ } = extra;
    let extra_credentials: Vec<&String> =
        extra_credentials.iter().filter(|c| !(outermost && audit_logs.contains(c))).collect();
    // This very program (a build put in its place since the run started has another file).
    let build = crate::exec::self_exe().and_then(|me| std::fs::metadata(me).ok()).map(|m| {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino(), m.len(), m.mtime(), m.mtime_nsec())
    });
    format!(
        "{:?}",
        (
            build,
            (workspace, no_workspace, home, tmpdir),
            (extra_credentials, credential_names, credential_exempt, extra_protected),
            (toolchains, client_state, client_files, sessions, private, relaxed),
            (real_bash, config_files, runtime_read, runtime_execute, ceiling),
        )
    )
}

/// What became of the network namespace [`Lock::network`] asked for.
pub enum NetworkLayer {
    /// None was asked for.
    NotAsked,
    /// The namespace holds; the proxy is to be handed these listeners.
    #[cfg(target_os = "linux")]
    Held(crate::outside::proxy::Handover),
    /// The agent session's namespace was joined: its proxy serves it already.
    #[cfg(target_os = "linux")]
    Joined,
    /// None can be had here, for the reason given: the rules were planned without network.
    Unavailable(String),
}

/// What holds once [`lock`] has locked this process.
pub struct Locked {
    /// The mode the rules enforce: the allowed mode, without its network bits where the network
    /// could only be held by a namespace that cannot be had.
    pub mode: Mode,
    pub outcome: Outcome,
    /// What is left to the static layer, in plain words (the namespace layer's exceptions).
    pub static_only: Vec<StaticOnly>,
    /// This level or an enclosing one holds a namespace view (what nested levels are told).
    pub namespaces: bool,
    /// The view this level entered, when it did.
    pub view: Option<view::View>,
    /// The Landlock rules in force (Linux).
    pub policy: Option<Policy>,
    pub network: NetworkLayer,
}

/// What the supervisor outside watches through a seccomp listener: every signal the run sends,
/// with `paths` every call that changes or runs a path, and with `reads` every open (but one
/// with `O_PATH`, which no rule can refuse).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watch {
    pub paths: bool,
    pub reads: bool,
}

/// Whether the kernel hands a seccomp filter's calls to a listener (user notification), which
/// the supervisor's watch needs.
pub fn seccomp_listener() -> bool {
    std::fs::read_to_string("/proc/sys/kernel/seccomp/actions_avail")
        .is_ok_and(|a| a.split_whitespace().any(|w| w == "user_notif"))
}

/// What the supervisor's watch asks of the rules `locked` holds (see [`crate::outside::watch`]):
/// the Landlock path rules with the package caches' layers the view mounted, and whether a
/// read-only view and signal scoping hold beside them.
#[cfg(target_os = "linux")]
pub fn watch_rules(locked: &Locked) -> Option<crate::outside::watch::Rules> {
    let policy = locked.policy.as_ref()?;
    let mut grants: Vec<(String, u8, bool)> =
        policy.paths.iter().map(|r| (r.path.clone(), r.rights.0, r.kind == policy::Kind::File)).collect();
    if let (Some(view), Some(view::Entered::Held { layers, listings, .. })) =
        (&locked.view, &locked.outcome.enforcement.namespaces)
    {
        for point in &view.points {
            if let view::Point::Layer { path, rights, .. } = point
                && layers.contains(path)
            {
                grants.push((path.clone(), rights.0, false));
            }
        }
        if let (true, Some((path, _))) = (listings, &view.listings) {
            grants.push((path.clone(), policy::Rights::READ.0, false));
        }
    }
    let (mut masks, mut points) = (Vec::new(), Vec::new());
    for point in locked.view.iter().flat_map(|v| &v.points) {
        match point {
            view::Point::Mask { path, dir: false, .. } => masks.push(path.clone()),
            view::Point::Writable { path, noexec } => points.push((path.clone(), true, *noexec)),
            view::Point::ReadOnly { path, noexec } => points.push((path.clone(), false, *noexec)),
            view::Point::Layer { path, noexec, .. } => points.push((path.clone(), true, *noexec)),
            view::Point::Mask { .. } => {}
        }
    }
    if let Some(v) = &locked.view {
        // Trees of the command's own, writable whatever the base is.
        points.extend(v.private_shm.map(|noexec| ("/dev/shm".to_string(), true, noexec)));
        points.extend(v.private_mqueue.then(|| ("/dev/mqueue".to_string(), true, true)));
    }
    Some(crate::outside::watch::Rules {
        mode: locked.mode.0,
        grants,
        view: locked.view.is_some(),
        masks,
        points,
        read_only_base: locked.view.as_ref().is_some_and(|v| v.read_only_base),
        scoped: policy.scoped && locked.outcome.enforcement.landlock,
        filters: locked.outcome.enforcement.filters,
        absent: locked.view.as_ref().map(|v| v.absent.clone()).unwrap_or_default(),
        new_hooks: locked.view.as_ref().map(|v| v.new_hooks.clone()).unwrap_or_default(),
    })
}

/// What holds the possible accesses a mode does not allow: the rules in force after
/// [`lock`], or those the same invocation would get, for `--sandbox-explain`.
pub struct Holding<'a> {
    /// Landlock and seccomp enforce the whole policy (nothing degraded).
    pub enforced: bool,
    /// The Landlock rules.
    pub policy: Option<&'a Policy>,
    /// The namespace view of this level, when it has one.
    pub view: Option<&'a view::View>,
    /// Why there is no view, when there is none.
    pub no_view: Option<String>,
    /// The rules are those in force, not a nested level's own laid over its run's: a path
    /// they grant is not held (the outermost level's, a nested level held by its run's).
    pub exact: bool,
}

impl Holding<'_> {
    /// Whether these rules hold a possible access (see [`crate::analysis::Bound`]); the
    /// reason when they do not.
    pub fn holds(&self, access: &crate::analysis::Access) -> Result<(), String> {
        use crate::analysis::Bound;
        let right = match access.perm {
            crate::mode::Perm::Read => policy::Rights::READ,
            crate::mode::Perm::Write => policy::Rights::WRITE,
            crate::mode::Perm::Execute => policy::Rights::EXECUTE,
        };
        // No rule grants it, where it lies and where it leads. (A directory a rule above it lets
        // be listed shows its names all the same: `--sandbox-info` says so of credential
        // directories.)
        let left_out = |policy: &Policy| {
            let out = |p: &str| !policy.granted(p).contains(right);
            let real = crate::exec::canonicalize(&access.target).ok();
            out(&access.target) && real.as_deref().is_none_or(out)
        };
        // Entering a directory reads nothing in it, whatever the rules grant there.
        let entering = access.reason.starts_with(crate::analysis::ENTERS_DIRECTORY);
        match access.bound() {
            // Landlock refuses what no rule grants; a path the rules grant all the same (the
            // baseline every program needs: `/proc`, `/sys`, most of `/etc`) is not held. Asked
            // where this level made the view: a nested level's rules cover more than the
            // enclosing level's, which refuse what they do not grant.
            Some(Bound::Kernel) if self.enforced => match self.policy {
                Some(policy) if self.exact && !entering && !left_out(policy) => {
                    Err("the rules in force grant it (the baseline every program needs reads it)".into())
                }
                _ => Ok(()),
            },
            Some(Bound::Kernel) => Err("the kernel layer runs degraded here".into()),
            Some(Bound::View) => {
                // Landlock leaves it out (a home's credential entries get only the system
                // bits), where it lies and where it leads.
                if let Some(policy) = self.policy
                    && self.enforced
                    && (entering || left_out(policy))
                {
                    return Ok(());
                }
                let Some(view) = self.view else {
                    let why = self.no_view.as_deref().unwrap_or("this platform has none");
                    return Err(format!(
                        "no namespace layer holds credential and protected paths at this level ({why})"
                    ));
                };
                let target = access.target.as_str();
                let masked = view.masks().any(|m| crate::scope::is_within(target, m));
                let read_only = access.perm == crate::mode::Perm::Write
                    && view.read_only().any(|p| crate::scope::is_within(target, p));
                if masked || read_only {
                    Ok(())
                } else {
                    Err("the namespace view does not cover this path (it did not exist or was out of reach when the \
                         view was made)"
                        .into())
                }
            }
            _ => Err("only the static layer holds this access".into()),
        }
    }
}

impl Locked {
    /// What the rules now in force hold.
    pub fn holding(&self) -> Holding<'_> {
        let no_view = match &self.outcome.enforcement.namespaces {
            Some(view::Entered::Unavailable(why)) => Some(why.clone()),
            _ => None,
        };
        Holding {
            enforced: self.outcome.shortfalls.is_empty(),
            policy: self.policy.as_ref(),
            view: self.view.as_ref(),
            no_view,
            exact: self.view.is_some() || self.outcome.run_layers,
        }
    }
}

/// The kernel backend of this platform: Landlock and seccomp on Linux, Seatbelt on macOS.
pub const BACKEND: &str = if cfg!(target_os = "linux") { "landlock+seccomp" } else { "seatbelt" };

#[cfg(target_os = "linux")]
use linux as platform;
#[cfg(target_os = "macos")]
use macos as platform;
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
compile_error!("sandbox-bash has kernel backends for Linux (Landlock, seccomp) and macOS (Seatbelt) only");

/// Plans the rules of `lock` for this machine and applies them to this process, with this
/// platform's backend. Fails closed: anything the kernel cannot enforce is an error unless
/// the user opted in to degraded operation.
pub fn lock(lock: Lock<'_>) -> Result<Locked, crate::error::Error> {
    platform::lock(lock)
}

/// The namespace layer's view for `policy`, and whether the layer can be had here (the reason
/// when not), for `--sandbox-info`; `None` where there is no such layer.
pub fn namespace_facts(
    policy: &Policy,
    layout: &Layout,
    env: &crate::environ::Environ,
    keep_env: &[String],
    nested: bool,
) -> Option<(view::View, Result<(), String>)> {
    platform::namespace_facts(policy, layout, env, keep_env, nested)
}

/// What the kernel offers here against what `policy` needs, for `--sandbox-info`: the Landlock
/// ABI (Linux), and everything that cannot be enforced.
pub fn kernel_facts(policy: &Policy) -> (Option<i32>, Vec<Shortfall>) {
    platform::kernel_facts(policy)
}

/// What the namespace layer holds here, once it was tried.
pub struct Layer {
    /// This level built its view.
    pub held: bool,
    /// This level, or an enclosing one, holds a view (what nested levels are told).
    pub marked: bool,
    /// What is left to the static layer, in plain words.
    pub static_only: Vec<StaticOnly>,
}

/// The exceptions only the namespace layer holds: without it they are the static layer's.
pub const NAMESPACE_EXCEPTIONS: &[&str] = &[
    "credential files inside readable or writable trees (the workspace's .env and keys, every home's credential \
     entries, agent sockets)",
    "persistence points inside writable trees (.git/hooks, .git/config, settings and start-up files)",
    "metadata changes (chmod, chown, touch, extended attributes) outside writable trees",
    "no execute from the workspace and scratch through a loader or interpreter without workspace execute",
    "other terminals under /dev/pts, other processes' /dev/shm and SysV IPC",
    "the frozen copy of the script bash reads",
];

/// Judges the namespace layer after `outcome`: what it holds and what is left to the static
/// layer. With `require` (the system file's `require_namespaces`), a level without a view of
/// its own or of an enclosing level is refused.
pub fn layer(
    outcome: &Outcome,
    view: &view::View,
    outer_marked: bool,
    require: bool,
) -> Result<Layer, crate::error::Error> {
    match &outcome.enforcement.namespaces {
        Some(view::Entered::Held { unlayered, .. }) => {
            let mut static_only = view.static_only.clone();
            static_only.extend(unlayered.iter().map(|why| {
                StaticOnly::Run(format!(
                    "a package cache stays as the mode says, without a layer of its own (the kernel refused it): {why}"
                ))
            }));
            Ok(Layer { held: true, marked: true, static_only })
        }
        Some(view::Entered::Unavailable(why)) if outer_marked => Ok(Layer {
            held: false,
            marked: true,
            static_only: vec![StaticOnly::Run(format!(
                "this level adds no namespace layer ({why}): the enclosing sandbox-bash's view holds its exceptions \
                 as far as its own mode makes them; where this level's mode is narrower, the difference is held by \
                 Landlock, seccomp and the static layer"
            ))],
        }),
        other => {
            let why = match other {
                Some(view::Entered::Unavailable(why)) => why.clone(),
                _ => "this platform has no namespace layer".to_string(),
            };
            if require {
                return Err(crate::error::Error::NamespacesRequired(why));
            }
            let mut static_only = vec![StaticOnly::Run(format!("no namespace layer: {why}"))];
            static_only.extend(NAMESPACE_EXCEPTIONS.iter().map(|e| StaticOnly::Run(format!("static only: {e}"))));
            Ok(Layer { held: false, marked: false, static_only })
        }
    }
}

#[cfg(test)]
mod tests {
    /// The listing's paths, read as the kernel writes them: abstract and relative ones left
    /// out, a path with spaces whole, a directory of sockets alone given whole, a socket
    /// beside files alone, what the configuration names left reachable.
    #[test]
    fn servers_are_found_in_the_kernels_listing() {
        let root = tempfile::tempdir_in(concat!(env!("CARGO_MANIFEST_DIR"), "/target")).unwrap();
        let base = crate::exec::canonicalize(&root.path().to_string_lossy()).unwrap();
        let (alone, mixed, named) = (format!("{base}/tmux-0"), format!("{base}/run"), format!("{base}/kept"));
        for d in [&alone, &mixed, &named] {
            std::fs::create_dir(d).unwrap();
        }
        std::fs::write(format!("{mixed}/pid"), "1\n").unwrap();
        let bind = |p: &str| std::os::unix::net::UnixListener::bind(p).unwrap();
        let _held = [
            bind(&format!("{alone}/default")),
            bind(&format!("{alone}/other")),
            bind(&format!("{mixed}/a server.sock")),
            bind(&format!("{named}/agent")),
        ];
        let line = |path: &str| format!("0000000000000000: 00000002 00000000 00010000 0001 01 12345 {path}\n");
        let mut text = String::from("Num       RefCount Protocol Flags    Type St Inode Path\n");
        for p in [
            format!("{alone}/default"),
            format!("{alone}/other"),
            format!("{mixed}/a server.sock"),
            format!("{named}/agent"),
            "@abstract".to_string(),
            "relative.sock".to_string(),
            format!("{mixed}/pid"),
        ] {
            text.push_str(&line(&p));
        }
        text.push_str("0000000000000000: 00000003 00000000 00000000 0001 03 99\n");
        let found = servers(text.as_bytes(), std::slice::from_ref(&named), "/nowhere", None, &RealWorld);
        assert_eq!(
            found,
            [view::Server::Socket(format!("{mixed}/a server.sock")), view::Server::Directory(alone.clone())]
        );
        // In the workspace, a directory of sockets is never covered whole.
        let found = servers(text.as_bytes(), &[], &base, None, &RealWorld);
        assert!(found.contains(&view::Server::Socket(format!("{alone}/default"))), "{found:?}");
        assert!(found.contains(&view::Server::Socket(format!("{named}/agent"))), "{found:?}");
    }

    use super::*;
}
