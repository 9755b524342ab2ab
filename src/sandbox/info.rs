//! `--sandbox-info`: what is in force here and now, per area: what the kernel enforces, what
//! only the static layer sees, and what is not enforced at all. Text and JSON are rendered
//! from the same data.

use serde::Serialize;

use super::policy::{Policy, Rights};
use super::view::{Point, View};
use super::{Feature, Shortfall, StaticOnly};
use crate::mode::{Mode, Scope};
use crate::scope::{self, Layout};

/// What the one line that declares the whole sandbox is computed from: the rules in force, not
/// the mode's name.
#[derive(Clone, Copy, Debug)]
pub struct Declared<'a> {
    pub mode: Mode,
    /// Landlock holds the filesystem rules.
    pub landlock: bool,
    /// The seccomp filter holds.
    pub seccomp: bool,
    /// Landlock scopes signals and abstract sockets to the run (ABI 6 and later), or Seatbelt.
    pub scoped: bool,
    /// The namespace view masks credentials.
    pub view: bool,
    /// The network allowlist in force: how many hosts it allows (`Some(None)`: the enclosing
    /// level's list).
    pub hosts: Option<Option<usize>>,
    pub limits: &'a crate::limits::Limits,
}

impl Declared<'_> {
    /// `fs=workspace-write network=allowlist(3 hosts) credentials=masked process=isolated
    /// limits={cpu=60s,memory=2G}`: each word the weakest that holds.
    pub fn line(&self) -> String {
        let has = |scope, perm| self.mode.has(scope, perm);
        use crate::mode::Perm;
        let fs = if !self.landlock {
            "static-only"
        } else if has(Scope::System, Perm::Write) {
            "system-write"
        } else if has(Scope::External, Perm::Write) {
            "external-write"
        } else if has(Scope::Workspace, Perm::Write) {
            "workspace-write"
        } else {
            "read-only"
        };
        let network = match self.hosts {
            _ if !has(Scope::Network, Perm::Read) && !has(Scope::Network, Perm::Write) => {
                if self.seccomp || self.landlock { "none".to_string() } else { "static-only".to_string() }
            }
            Some(None) => "allowlist(the enclosing level's)".to_string(),
            Some(Some(1)) => "allowlist(1 host)".to_string(),
            Some(Some(n)) => format!("allowlist({n} hosts)"),
            None => "open".to_string(),
        };
        let credentials = if self.view {
            "masked"
        } else if self.landlock {
            "denied"
        } else {
            "static-only"
        };
        let process = match (self.seccomp, self.scoped) {
            (true, true) => "isolated",
            (true, false) | (false, true) => "partly-isolated",
            (false, false) => "static-only",
        };
        format!("fs={fs} network={network} credentials={credentials} process={process} limits={}", self.limits.words())
    }
}

/// One area of the declaration.
#[derive(Clone, Debug, Serialize)]
pub struct Area {
    pub area: &'static str,
    pub kernel: Vec<String>,
    #[serde(rename = "static")]
    pub static_only: Vec<String>,
    pub none: Vec<String>,
}

/// A path rule as shown.
#[derive(Clone, Debug, Serialize)]
pub struct RuleView {
    pub path: String,
    pub rights: String,
    pub why: &'static str,
}

#[derive(Clone, Debug, Serialize)]
pub struct ShortfallView {
    pub what: String,
    pub why: String,
}

/// The whole declaration.
#[derive(Clone, Debug, Serialize)]
pub struct Info {
    pub version: u32,
    /// The one line that declares the whole sandbox (see [`Declared`]).
    pub sandbox: String,
    pub sandbox_bash: &'static str,
    pub backend: String,
    pub landlock_abi: Option<i32>,
    /// `enforced`, `degraded` (missing parts, opted in) or `refused` (missing parts: commands
    /// will not run).
    pub status: &'static str,
    pub shortfalls: Vec<ShortfallView>,
    pub workspace: String,
    pub home: Option<String>,
    pub requested: String,
    pub outer: Option<String>,
    pub allowed: String,
    pub areas: Vec<Area>,
    /// Names (never values) of the environment variables the command will not see.
    pub removed_environment: Vec<String>,
    /// Configuration files read, in order (system, then user or explicit).
    pub config_files: Vec<String>,
    /// The administrator's ceiling (`max_mode`), if any.
    pub ceiling: Option<String>,
    /// How refusals while a command runs reach it: each class, and whether it is told.
    pub refusals: Vec<RefusalView>,
    pub rules: Vec<RuleView>,
}

/// One class of refusal while a command runs, and how it reaches the command.
#[derive(Clone, Debug, Serialize)]
pub struct RefusalView {
    pub class: &'static str,
    /// Told to the command (a `sandbox-bash: denied:` line on its stderr), or only seen as the
    /// program's own error.
    pub told: bool,
    pub how: String,
}

/// The classes of refusal while a command runs, with how each reaches it on this kernel:
/// `watched` when the supervisor can watch the run (an outermost level, Landlock with signal
/// scoping, and a seccomp listener), `seatbelt` on macOS.
fn refusals(network_list: bool, watched: bool, nested: bool) -> Vec<RefusalView> {
    let network = if network_list {
        "a destination the proxy refuses is told on the command's stderr as a `sandbox-bash: denied:` line \
         naming it, the entry that would allow it and the proxy, in the 403's reason phrase and body, and in \
         the audit log; the run ends with one line that sums them up (a later call of the same session, which \
         joins the first call's proxy, is told what is refused to its own processes' connections)"
    } else {
        "no allowlist is in force: the mode's network bits alone hold, and a refused socket is the program's own \
         EACCES or EPERM"
    };
    let unwatched = if nested {
        "this level is nested: the outermost level's supervisor tells what its own rules refuse; what only this \
         level's narrower rules refuse reaches the program as its own EACCES, EROFS or EPERM"
    } else {
        "this kernel gives no seccomp listener or no Landlock signal scoping (ABI 6): a refusal reaches the program \
         as its own EACCES, EROFS or EPERM, and what the analysis can know is denied before anything runs"
    };
    let files = "an open, change or run of a path that the kernel refuses (Landlock, the read-only view, a \
                 credential mask) is told on the command's stderr as a `sandbox-bash: denied:` line naming the \
                 program, the path, the bit that would allow it and the rule that held it, and recorded in the \
                 audit log; the run ends with one line that sums them up. The supervisor watches a program whose \
                 accesses the analysis cannot all see (an interpreter, a script, a build tool, standard input, a \
                 word it could not resolve): it reads each call's path as the process names it, asks the rules in \
                 force, and lets the call go on \
                 for the kernel to judge. Not told: what a nested level's narrower rules alone refuse; reads and \
                 writes of descriptors the process already holds";
    let signals = "a signal Landlock's scoping refuses (to a process the run did not start and its agent session \
                   does not hold) is told and recorded the same way; a call the seccomp filter refuses reaches the \
                   program as EPERM, untold";
    vec![
        RefusalView { class: "network", told: network_list, how: network.into() },
        RefusalView { class: "files", told: watched, how: if watched { files } else { unwatched }.into() },
        RefusalView {
            class: "signals and system calls",
            told: watched,
            how: if watched { signals } else { unwatched }.into(),
        },
    ]
}

/// Facts about enforcement that are not in the policy.
pub struct Facts<'a> {
    pub backend: &'a str,
    pub landlock_abi: Option<i32>,
    pub shortfalls: &'a [Shortfall],
    pub degraded_ok: bool,
    pub requested: Mode,
    pub outer: Option<Mode>,
    pub caller_is_root: bool,
    /// The kernel hands a filter's calls to a listener (seccomp's user notification).
    pub seccomp_listener: bool,
    /// Names of variables the command will not see.
    pub removed_environment: Vec<String>,
    /// Configuration files that were read.
    pub config_files: Vec<String>,
    /// The administrator's ceiling, if any.
    pub ceiling: Option<Mode>,
    /// The namespace layer's view, and whether it can be had here (the reason when not).
    pub layer: Option<(&'a View, Result<(), String>)>,
    /// A network allowlist in force: where it comes from, when the proxy holds it; why the
    /// command gets no network at all, when nothing can.
    pub network_list: Option<Result<Vec<String>, String>>,
    /// The agent session (its id, and whose it is), at an outermost level.
    pub session: Option<(String, String)>,
    /// The network allowlist's number of hosts, when one is in force (see [`Declared`]).
    pub hosts: Option<Option<usize>>,
    /// The run's limits in force.
    pub limits: &'a crate::limits::Limits,
    /// Each limit in force: its kind and bound in words, and what enforces it (or why nothing
    /// can here).
    pub limit_lines: Vec<Result<String, String>>,
}

/// What the rules grant on the locations the mode keeps closed.
struct Held<'a> {
    policy: &'a Policy,
    layout: &'a Layout,
    system: Rights,
}

impl Held<'_> {
    /// `paths` split into those where `kept` holds of what the rules grant, shown with `~`
    /// for the home directory, and the others with the rights granted and the rule that
    /// grants them.
    fn split(&self, paths: &[String], kept: impl Fn(Rights) -> bool) -> (Vec<String>, Vec<(String, Rights, String)>) {
        let mut yes = Vec::new();
        let mut no = Vec::new();
        for p in paths {
            let granted = self.policy.granted(p);
            if kept(granted) {
                yes.push(self.show(p));
                continue;
            }
            let through = self
                .policy
                .paths
                .iter()
                .filter(|r| !r.rights.without(self.system).without(Rights::LIST).is_empty())
                .find(|r| scope::is_within(p, &r.path))
                .map_or_else(String::new, |r| format!("through the rule on {} ({})", r.path, r.why.name()));
            no.push((self.show(p), granted, through));
        }
        (yes, no)
    }

    /// The protected locations to check: those of the home, of the workspace, and the ones the
    /// layout adds (the `PATH` directories, the configuration files).
    fn protected(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        if let Some(h) = self.layout.home.as_deref() {
            for name in scope::STARTUP_FILES.iter().chain(scope::home_protected()) {
                out.push(format!("{h}/{name}"));
            }
        }
        let w = &self.layout.workspace;
        for name in [".git/hooks", ".git/config"].iter().chain(scope::project_settings()) {
            out.push(format!("{w}/{name}"));
        }
        for p in &self.layout.extra_protected {
            if !out.contains(p) {
                out.push(p.clone());
            }
        }
        out
    }

    /// The path [`Held::show`] shows as `shown`.
    fn unshow(&self, shown: &str) -> String {
        match (shown.strip_prefix('~'), self.layout.home.as_deref()) {
            (Some(rest), Some(h)) => format!("{h}{rest}"),
            _ => shown.to_string(),
        }
    }

    fn show(&self, p: &str) -> String {
        match self.layout.home.as_deref().and_then(|h| p.strip_prefix(h)).filter(|r| r.starts_with('/')) {
            Some(rest) => format!("~{rest}"),
            None => p.to_string(),
        }
    }
}

/// Locations that the same rule opens, on one line each.
fn group(open: Vec<(String, Rights, String)>) -> Vec<(String, Rights, String)> {
    let mut out: Vec<(String, Rights, String)> = Vec::new();
    for (path, granted, through) in open {
        match out.iter_mut().find(|(_, g, t)| *g == granted && *t == through) {
            Some((paths, _, _)) => {
                paths.push(' ');
                paths.push_str(&path);
            }
            None => out.push((path, granted, through)),
        }
    }
    out
}

fn scope_rights(mode: Mode, scope: Scope) -> String {
    Rights::of(mode, scope).letters()
}

/// Builds the declaration for `policy`.
/// Whether the view hides `p` (a mask on it or above it).
fn masked(view: &View, p: &str) -> bool {
    view.masks().any(|m| scope::is_within(p, m))
}

/// Whether the view keeps `p` read-only: the innermost point above it is read-only or a mask,
/// or no writable tree holds it.
fn kept_read_only(view: &View, p: &str) -> bool {
    let innermost = view.points.iter().rfind(|point| scope::is_within(p, point.path()));
    match innermost {
        Some(Point::Writable { .. }) => false,
        Some(_) => true,
        None => view.read_only_base,
    }
}

pub fn build(policy: &Policy, layout: &Layout, facts: &Facts) -> Info {
    let mode = policy.mode;
    let view = match &facts.layer {
        Some((view, Ok(()))) => Some(*view),
        _ => None,
    };
    let short = |feature: Feature| facts.shortfalls.iter().any(|s| s.what == feature);
    // On macOS, Seatbelt enforces the filesystem, network and credential rows itself.
    let seatbelt = facts.backend == "seatbelt";
    let landlock = seatbelt || (facts.landlock_abi.is_some() && !short(Feature::Landlock));
    let scoped = seatbelt || facts.landlock_abi.is_some_and(|v| v >= 6);
    let seccomp = seatbelt || !short(Feature::Seccomp);

    let mut filesystem = Area { area: "filesystem", kernel: vec![], static_only: vec![], none: vec![] };
    let mut network = Area { area: "network", kernel: vec![], static_only: vec![], none: vec![] };
    let mut credentials = Area { area: "credentials", kernel: vec![], static_only: vec![], none: vec![] };
    let mut process = Area { area: "process and devices", kernel: vec![], static_only: vec![], none: vec![] };
    let mut limits = Area { area: "resource limits", kernel: vec![], static_only: vec![], none: vec![] };

    let fs_lines = vec![
        format!("workspace {}: {}", layout.workspace, scope_rights(mode, Scope::Workspace)),
        format!(
            "external tree (entries of / and of the home directory outside the system, the workspace and \
             credentials): {}",
            scope_rights(mode, Scope::External)
        ),
        format!("system directories: {}", scope_rights(mode, Scope::System)),
        "runtime baseline: read and execute of /usr /bin /sbin /lib*, read of the /etc entries programs need \
         (certificates without the private key directories beside them), /proc and /sys; the PATH directories and their toolchain homes read and execute"
            .to_string(),
        "scratch: /tmp and $TMPDIR, /dev/null and the other harmless devices, /dev/pts, /dev/shm, and the files \
         already open as standard input, output and error"
            .to_string(),
    ];
    let static_fs: Vec<String> = policy
        .static_only
        .iter()
        .filter_map(|s| match s {
            StaticOnly::Filesystem(t) => Some(t.clone()),
            StaticOnly::HeldByView(t) if view.is_none() => Some(t.clone()),
            _ => None,
        })
        .collect();
    if landlock {
        filesystem.kernel = fs_lines;
    } else {
        filesystem.none = fs_lines;
    }
    filesystem.static_only = static_fs;

    match &facts.network_list {
        Some(Ok(sources)) if policy.sockets => {
            network.kernel.push(
                "by host: the command's own network namespace has only loopback, and sandbox-bash's proxy outside \
                 the sandbox is its only way out (a socket that ignores the proxy reaches nothing)"
                    .into(),
            );
            network.kernel.push(format!(
                "the proxy lets through what the allowlist of {} allows; it resolves names itself, checks every \
                 address, and leads no name or wide range to this machine's loopback or own addresses or to a \
                 link-local or metadata address",
                sources.join(", ")
            ));
            network.none.push(
                "what a tunnel (CONNECT, SOCKS) to an allowed host carries, such as TLS, is not seen by the proxy"
                    .into(),
            );
        }
        Some(Err(why)) => network.kernel.push(format!(
            "{why}: the mode's network bits are taken away, and a program that needs network is refused (125)"
        )),
        _ => {}
    }
    let by_host = matches!(facts.network_list, Some(Ok(_)));
    if policy.sockets && by_host {
        // Said above.
    } else if policy.sockets {
        network.none.push(
            "every host: which hosts and ports are reached is not limited (network read or write allows every socket)"
                .into(),
        );
    } else {
        let socket_line = "only unix sockets can be created (seccomp refuses every other family: TCP, UDP, MPTCP, \
                           raw, packet; and io_uring)"
            .to_string();
        let tcp_line = "TCP bind and connect are denied (Landlock)".to_string();
        if seccomp {
            network.kernel.push(socket_line)
        } else {
            network.none.push(socket_line)
        }
        if landlock && facts.landlock_abi.is_some_and(|v| v >= 4) {
            network.kernel.push(tcp_line)
        } else {
            network.none.push(tcp_line)
        }
    }
    network.static_only.push("network execute: running code that was fetched (curl … | bash)".into());
    if mode.has(Scope::System, crate::mode::Perm::Execute) {
        network.none.push(
            "system execute: the unix sockets of servers outside the sandbox (tmux, a container engine, the session \
             bus, an editor's server, an ssh-agent) can be reached, and what they run for a client runs outside"
                .into(),
        );
    } else if let Some(v) = view {
        let covered = v.servers.len();
        network.kernel.push(format!(
            "the unix sockets of servers outside the sandbox, bound when the command starts (tmux's, screen's, a \
             container engine's, the session bus, an editor's server), are covered by a stand-in, a directory of \
             sockets alone whole: connecting gives ECONNREFUSED or EACCES; the configuration's paths.sockets and \
             the run's own audit relay stay reachable (here: {covered})"
        ));
        network
            .static_only
            .extend(v.static_only.iter().filter(|s| matches!(s, StaticOnly::Server(_))).map(|s| s.to_string()));
    } else {
        network.static_only.push(
            "connecting to a server's unix socket by path (tmux's, a container engine's) is seen by the static layer \
             only"
                .into(),
        );
    }

    // What the rules really grant on each credential and protected location, not what the
    // mode would have them grant: a home under scratch, a workspace holding them, a PATH
    // directory inside a writable tree all leave them to the static layer.
    let system = Rights::of(mode, Scope::System);
    let held = Held { policy, layout, system };
    let home_credentials: Vec<String> = layout
        .home
        .iter()
        .flat_map(|h| scope::HOME_CREDENTIALS.iter().map(move |c| format!("{h}/{c}")))
        .chain(layout.extra_credentials.iter().cloned())
        .collect();
    let (kept, open) = held.split(&home_credentials, |g| g.without(system).is_empty());
    // What Landlock grants but the view masks is held by the kernel too.
    let (open, masked_here): (Vec<_>, Vec<_>) =
        open.into_iter().partition(|(shown, _, _)| !view.is_some_and(|v| masked(v, &held.unshow(shown))));
    if !masked_here.is_empty() {
        let shown: Vec<String> = masked_here.into_iter().map(|(p, _, _)| p).collect();
        credentials.kernel.push(format!(
            "these credential locations lie in a tree the rules grant, and the namespace layer covers them with a \
             stand-in that cannot be opened: {}",
            shown.join(" ")
        ));
    }
    if !kept.is_empty() {
        let line =
            format!("these credential locations get only the system bits ({}): {}", system.letters(), kept.join(" "));
        if landlock { credentials.kernel.push(line) } else { credentials.none.push(line) }
    }
    for (paths, granted, through) in group(open) {
        credentials.static_only.push(format!(
            "{paths}: the kernel grants {} here ({through}); only the static layer keeps them to the system bits ({})",
            granted.letters(),
            system.letters()
        ));
    }
    if !kept.is_empty() && Rights::of(mode, Scope::External).contains(Rights::READ) && !system.contains(Rights::READ) {
        credentials.static_only.push(
            "names inside credential directories of the home (ls ~/.ssh) can be listed; their files cannot be read"
                .into(),
        );
    }
    if !system.contains(Rights::WRITE) {
        let (kept, open) = held.split(&held.protected(), |g| !g.contains(Rights::WRITE));
        let (open, read_only_here): (Vec<_>, Vec<_>) =
            open.into_iter().partition(|(shown, _, _)| !view.is_some_and(|v| kept_read_only(v, &held.unshow(shown))));
        if !read_only_here.is_empty() {
            let shown: Vec<String> = read_only_here.into_iter().map(|(p, _, _)| p).collect();
            filesystem.kernel.push(format!(
                "these protected locations lie in a tree the rules let write, and the namespace layer keeps them \
                 read-only (those that exist at start): {}",
                shown.join(" ")
            ));
        }
        if !kept.is_empty() {
            let line = format!(
                "writes to these protected locations (they make a later, unsandboxed program run code) need system \
                 write: {}",
                kept.join(" ")
            );
            if landlock { filesystem.kernel.push(line) } else { filesystem.none.push(line) }
        }
        for (paths, _, through) in group(open) {
            filesystem.static_only.push(format!(
                "{paths} can be written at the kernel level ({through}): only the static layer refuses writes there"
            ));
        }
    }
    if !policy.keyring {
        let line = "the kernel keyring (keyctl, add_key, request_key) is refused".to_string();
        if seccomp { credentials.kernel.push(line) } else { credentials.none.push(line) }
    }
    if seatbelt {
        credentials.kernel.push(
            "credential names anywhere (.env, *.pem, *.key, id_rsa*, secret stores such as credentials.json or \
             secrets.yaml) are denied by Seatbelt unless system bits allow them; so are writes to .git/hooks, \
             .git/config and shell start-up files"
                .into(),
        );
    } else if let Some(v) = view {
        let masks = v.masks().count();
        credentials.kernel.push(format!(
            "credential files and directories that exist at start inside trees the rules grant (the workspace's \
             .env, *.pem, *.key, id_rsa*, secret stores such as credentials.json or secrets.yaml, unless their \
             repository stores them as they are; every home's credential entries; agent sockets) are covered by a \
             stand-in that cannot be opened (EACCES, for root too): {masks} here"
        ));
        credentials
            .static_only
            .extend(v.static_only.iter().filter(|s| !matches!(s, StaticOnly::Server(_))).map(|s| s.to_string()));
    } else {
        credentials.static_only.extend(
            policy.static_only.iter().filter(|s| matches!(s, StaticOnly::Credentials(_))).map(|s| s.to_string()),
        );
    }
    credentials.kernel.push(if facts.removed_environment.is_empty() {
        "secret-looking environment variables (names with a word KEY, AUTH or CREDENTIAL, or one ending in TOKEN, \
         SECRET, PASSWORD, PASSWD, PASSPHRASE or APIKEY, a last word PASS, PWD or PAT, and values holding a URL with a \
         password) are removed before exec; there are none here"
            .to_string()
    } else {
        format!(
            "removed from the command's environment before exec (names only): {}",
            facts.removed_environment.join(" ")
        )
    });

    process.kernel.push("no_new_privs: setuid and file capabilities cannot raise privileges".into());
    if let Some((id, client)) = &facts.session {
        let line = format!(
            "agent session {id} (the calls of {client}, in this workspace under this mode and network list): a \
             signal to a process one of its calls started (a server left running) is sent for the command by the \
             supervisor outside the sandbox; every other process outside this call stays out of reach"
        );
        if facts.landlock_abi.is_some_and(|a| a >= 6) { process.kernel.push(line) } else { process.none.push(line) }
    }
    let keeps_ptrace = facts.caller_is_root && !policy.drop_capabilities.iter().any(|c| c.name == "CAP_SYS_PTRACE");
    if keeps_ptrace {
        process.none.push(
            "system execute is allowed and the caller is root: it keeps CAP_SYS_PTRACE, and can read the environment, \
             open descriptors and memory maps of other processes in /proc"
                .into(),
        );
    } else if landlock {
        process.kernel.push("other processes cannot be traced, nor their memory or environment read".into());
    } else {
        process.none.push("tracing other processes of the same user".into());
    }
    let scope_line = "no signals to, and no abstract unix sockets of, processes outside the sandbox".to_string();
    if scoped {
        process.kernel.push(scope_line)
    } else {
        process.none.push(scope_line)
    }
    if policy.drop_capabilities.is_empty() {
        process.none.push("system execute is allowed: a root caller keeps every capability".into());
    } else {
        let names: Vec<&str> = policy.drop_capabilities.iter().map(|c| c.name).collect();
        process.kernel.push(format!(
            "{} capabilities that administer the machine are dropped from every set{}: {}",
            names.len(),
            if facts.caller_is_root { "" } else { " (the caller is not root and holds none of them)" },
            names.join(" ")
        ));
    }
    if seccomp {
        process.kernel.push("system calls of another architecture (32-bit, x32) end the process".into());
        process.kernel.push(
            "no input can be pushed into a terminal (ioctl TIOCSTI, TIOCLINUX): the caller's shell would run it".into(),
        );
        let setid = "no setuid or setgid bit can be set (chmod, fchmod, fchmodat, fchmodat2, or a file created with one; \
                     setgid directories included), and no file capabilities given (CAP_SETFCAP and CAP_FSETID are \
                     dropped)";
        if Rights::of(mode, Scope::System).contains(Rights::WRITE) {
            process.kernel.push(setid.into());
            process.none.push(
                "with system write a root caller can still change the system itself (its block devices under /dev, \
                 /etc): setuid bits can be had that way"
                    .into(),
            );
        } else {
            process
                .kernel
                .push(format!("{setid}: nothing is left behind that raises the privileges of whoever runs it next"));
        }
        process.kernel.push(
            "limits, priorities, scheduling and memory placement of other processes cannot be changed (prlimit, \
             setpriority, sched_set*, ioprio_set, migrate_pages, move_pages), and no real-time class can be had; \
             the command's own ulimit and nice work (the filter knows the caller only as process 0: a thread or \
             process naming itself by its ID is refused too)"
                .into(),
        );
        process
            .kernel
            .push("io_uring and openat2 answer 'not supported' (the filter cannot read their arguments)".into());
        if !policy.new_code {
            // Only what the rules in force hold: any tree the rules let the command both write
            // and execute is named.
            let mut runnable: Vec<&str> = policy
                .paths
                .iter()
                .filter(|r| r.rights.contains(Rights::WRITE) && r.rights.contains(Rights::EXECUTE))
                .map(|r| r.path.as_str())
                .collect();
            for t in ["/tmp"].into_iter().chain(layout.tmpdir.as_deref()) {
                if policy.granted(t).contains(Rights::EXECUTE) && !runnable.contains(&t) {
                    runnable.push(t);
                }
            }
            let line = "without workspace execute no program runs that the command could have written: not from /tmp or \
                        $TMPDIR, not by descriptor (execveat), not from a memory file (memfd_create without \
                        MFD_NOEXEC_SEAL)";
            if runnable.is_empty() && landlock {
                process.kernel.push(line.into());
            } else {
                let shown: Vec<&str> = runnable.iter().take(5).copied().collect();
                let more = if runnable.len() > 5 { format!(" and {} more", runnable.len() - 5) } else { String::new() };
                process.none.push(format!(
                    "{line}: not held here, the command may write and run programs in {}{more}",
                    shown.join(" ")
                ));
            }
            if view.is_some() {
                process.kernel.push(
                    "without workspace execute the workspace and scratch are mounted noexec: no loader maps code from \
                     them either (LD_PRELOAD, dlopen, ld.so FILE)"
                        .into(),
                );
                process.static_only.push(
                    "a script run through an interpreter (bash file, python3 file) needs only read: the static layer \
                     is what sees those"
                        .into(),
                );
            } else {
                process.static_only.push(
                    "a library loaded from scratch (LD_PRELOAD, dlopen, ld.so FILE) or a file run through an \
                     interpreter is code the kernel layer does not stop without workspace execute: mapping a file as \
                     code is not an execution Landlock checks"
                        .into(),
                );
            }
        }
    }
    process
        .static_only
        .push("privileged commands (sudo, su, mount, …) and talking to a container engine need system execute".into());
    process
        .none
        .push("the command lines and status of other processes in /proc can be read, as anywhere on Linux".into());
    match (&facts.layer, view) {
        (_, Some(v)) => {
            process.kernel.push(
                "the command has mount and IPC namespaces of its own: its own /dev/pts (other terminals cannot be \
                 opened; its own terminal stays usable through its descriptors and /dev/tty), its own /dev/shm, \
                 and no SysV IPC objects or message queues of processes outside (POSIX message queues cannot be \
                 opened at all: no Landlock rule can name them)"
                    .into(),
            );
            process.kernel.push("a script bash runs is a frozen, read-only copy of the text that was analysed".into());
            let layers: Vec<&str> =
                v.points.iter().filter(|p| matches!(p, super::view::Point::Layer { .. })).map(|p| p.path()).collect();
            if !layers.is_empty() {
                filesystem.kernel.push(format!(
                    "package caches are seen through a layer of sandbox-bash's own that takes every write ({}): \
                     installs and builds fill them as usual, and the caches that programs outside the sandbox use \
                     never change",
                    layers.join(" ")
                ));
            }
            if v.read_only_base {
                let writable: Vec<&str> = v.writable().collect();
                filesystem.kernel.push(format!(
                    "every mount is read-only except the trees the mode lets write ({}): metadata changes (chmod, \
                     chown, touch, extended attributes) and writes anywhere else fail with EROFS, for root too",
                    writable.join(" ")
                ));
            }
            filesystem.none.push(
                "metadata inside the writable trees: Landlock has no right for chmod, chown, utime or extended \
                 attributes, so files there can have them changed as the caller's permissions allow"
                    .into(),
            );
        }
        (layer, None) => {
            let why = match layer {
                Some((_, Err(why))) => why.clone(),
                _ => "this platform has no namespace layer".to_string(),
            };
            if !seatbelt {
                filesystem.static_only.push(format!("no namespace layer here: {why}"));
                for e in super::NAMESPACE_EXCEPTIONS {
                    filesystem.static_only.push(format!("held by the static layer only: {e}"));
                }
            }
            process
                .none
                .push("/dev/shm is shared with the machine's other processes (their file permissions apply)".into());
            filesystem.none.push(
                "metadata: Landlock has no right for chmod, chown, utime or extended attributes, so any file the \
                 caller's own permissions allow (for root, every file) can have its mode, owner, times or attributes \
                 changed, in every tree (setuid and setgid bits and file capabilities excepted)"
                    .into(),
            );
        }
    }
    if Rights::of(mode, Scope::System).contains(Rights::WRITE)
        && !Rights::of(mode, Scope::System).contains(Rights::EXECUTE)
    {
        filesystem.kernel.push(
            "/proc and /sys stay read-only without system execute: writing them (sysctl, cgroups, other processes' OOM \
             scores) administers the machine"
                .into(),
        );
    }
    for l in &facts.limit_lines {
        match l {
            Ok(line) => limits.kernel.push(line.clone()),
            Err(why) => limits.none.push(why.clone()),
        }
    }
    if facts.limits.is_empty() {
        limits.none.push("no limits on CPU time, memory, processes or disk use".into());
    }
    let sandbox = Declared {
        mode,
        landlock,
        seccomp,
        scoped,
        view: view.is_some() || seatbelt,
        hosts: facts.hosts,
        limits: facts.limits,
    }
    .line();

    let status = if facts.shortfalls.is_empty() {
        "enforced"
    } else if facts.degraded_ok {
        "degraded"
    } else {
        "refused"
    };
    Info {
        version: 1,
        sandbox,
        sandbox_bash: env!("CARGO_PKG_VERSION"),
        backend: facts.backend.to_string(),
        landlock_abi: facts.landlock_abi,
        status,
        shortfalls: facts
            .shortfalls
            .iter()
            .map(|s| ShortfallView { what: s.what.to_string(), why: s.why.clone() })
            .collect(),
        workspace: layout.workspace.clone(),
        home: layout.home.clone(),
        requested: facts.requested.to_string(),
        outer: facts.outer.map(|m| m.to_string()),
        allowed: mode.to_string(),
        areas: vec![filesystem, network, credentials, process, limits],
        removed_environment: facts.removed_environment.clone(),
        refusals: refusals(
            matches!(facts.network_list, Some(Ok(_))),
            !seatbelt && facts.outer.is_none() && scoped && facts.seccomp_listener,
            facts.outer.is_some(),
        ),
        config_files: facts.config_files.clone(),
        ceiling: facts.ceiling.map(|m| m.to_string()),
        rules: {
            let mut rules: Vec<RuleView> = policy
                .paths
                .iter()
                .map(|r| RuleView { path: r.path.clone(), rights: r.rights.letters(), why: r.why.name() })
                .collect();
            rules.sort_by(|a, b| a.path.cmp(&b.path));
            rules
        },
    }
}

impl Info {
    /// The JSON form: one object.
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The text form.
    pub fn text(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!("sandbox:   {}\n", self.sandbox));
        out.push_str(&format!("sandbox-bash {}\n", self.sandbox_bash));
        let abi = self.landlock_abi.map_or_else(|| "none".to_string(), |v| v.to_string());
        out.push_str(&format!("backend:   {} (Landlock ABI {abi})\n", self.backend));
        out.push_str(&format!("status:    {}\n", self.status));
        for s in &self.shortfalls {
            out.push_str(&format!("  missing: {} ({})\n", s.what, s.why));
        }
        out.push_str(&format!("workspace: {}\n", self.workspace));
        let mode = Mode::parse(&self.allowed).map(|m| m.describe()).unwrap_or_else(|_| self.allowed.clone());
        out.push_str(&format!("allowed:   {mode}  (system/external/network/workspace)\n"));
        if let Some(ceiling) = &self.ceiling {
            out.push_str(&format!("ceiling:   {ceiling} (max_mode of the system configuration)\n"));
        }
        if self.config_files.is_empty() {
            out.push_str("config:    none read\n");
        }
        for f in &self.config_files {
            out.push_str(&format!("config:    {f}\n"));
        }
        if let Some(outer) = &self.outer {
            out.push_str(&format!(
                "           requested {}, narrowed by an enclosing sandbox-bash to {outer}\n",
                self.requested
            ));
        }
        for area in &self.areas {
            out.push_str(&format!("\n{}:\n", area.area));
            for (label, lines) in [("kernel", &area.kernel), ("static", &area.static_only), ("none", &area.none)] {
                for line in lines {
                    out.push_str(&format!("  {label:<6}  {line}\n"));
                }
            }
        }
        out.push_str("\nrefusals while a command runs:\n");
        for r in &self.refusals {
            let label = if r.told { "told" } else { "untold" };
            out.push_str(&format!("  {label:<6}  {}: {}\n", r.class, r.how));
        }
        out.push_str("\nrules:\n");
        for r in &self.rules {
            out.push_str(&format!("  {}  {}  ({})\n", r.rights, r.path, r.why));
        }
        out
    }
}
