//! Configuration files: the administrator's `/etc/sandbox-bash/config.toml`, then the user's
//! `$XDG_CONFIG_HOME/sandbox-bash/config.toml` (default `~/.config/…`) or the one file
//! `SANDBOX_BASH_CONFIG` names instead. Only files that exist are read; with none, nothing is
//! parsed. Unknown keys, wrong types and unreadable files are errors that name the file, line
//! and column: a typo must never silently weaken the policy.
//!
//! Precedence: the environment over the user file over the system file, except that
//! `max_mode`, `allow_degraded` and `require_namespaces` come from the system file alone, and the ceiling cuts
//! whatever mode is asked for (allowed = requested & ceiling).
//!
//! A file is read only when nobody but root and the caller could have written it: the file and
//! its directory belong to root or to the caller's real uid and are not writable by group or
//! others, and it lies in no scratch tree (`/tmp`, `/var/tmp`, `/dev/shm`, `$TMPDIR`), which
//! other users and every sandboxed command may write. What is judged is the file actually
//! opened: its directory is opened first, the file is opened inside that directory without
//! following a link, and both descriptors are examined, so nothing can change in between.

use std::ffi::OsStr;
use std::fs::File as OpenFile;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::mode::Mode;
use crate::scope;

/// The administrator's file.
pub const SYSTEM_FILE: &str = "/etc/sandbox-bash/config.toml";
/// The variable naming one file to read instead of the user's.
pub const CONFIG_VAR: &str = "SANDBOX_BASH_CONFIG";

/// Trees every user may write (and every sandboxed command): no configuration is read from
/// them. `$TMPDIR` is one too, given in [`Sources::tmpdir`].
const SCRATCH_TREES: &[&str] = &["/tmp", "/var/tmp", "/dev/shm", "/private/tmp", "/private/var/tmp"];

/// One file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    default_mode: Option<String>,
    max_mode: Option<String>,
    workspace: Option<String>,
    real_bash: Option<String>,
    allow_degraded: Option<bool>,
    require_namespaces: Option<bool>,
    audit_log: Option<String>,
    #[serde(default)]
    paths: Paths,
    #[serde(default)]
    environment: Environment,
    network: Option<Network>,
    approval: Option<ApprovalFile>,
    limits: Option<LimitsFile>,
}

/// `[limits]`: the run's resource limits (see [`crate::limits`]); each value a number (seconds,
/// bytes, processes) or a text with its unit (`"60s"`, `"2G"`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitsFile {
    cpu: Option<Amount>,
    memory: Option<Amount>,
    pids: Option<Amount>,
    disk: Option<Amount>,
    wall: Option<Amount>,
    file: Option<Amount>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Amount {
    Number(u64),
    Text(String),
}

/// `[approval]`: who answers a request for more access (see [`crate::approval`]).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ApprovalFile {
    program: Option<String>,
    timeout: Option<u64>,
    rejected_for: Option<u64>,
}

/// Who answers a request for more access, and for how long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approval {
    /// The approver program (absolute), given the request as JSON on standard input.
    pub program: Option<String>,
    /// Seconds a request waits for its answer.
    pub timeout: u64,
    /// Seconds a rejected request is refused without asking again.
    pub rejected_for: u64,
}

impl Default for Approval {
    fn default() -> Approval {
        Approval { program: None, timeout: 120, rejected_for: 600 }
    }
}

/// `[network]`: the allowlist (see [`crate::allowlist`]).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Network {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
    #[serde(default)]
    resolve: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    loopback: Vec<u16>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Paths {
    #[serde(default)]
    credentials: Vec<String>,
    #[serde(default)]
    credential_names: Vec<String>,
    #[serde(default)]
    credential_exempt: Vec<String>,
    #[serde(default)]
    protected: Vec<String>,
    #[serde(default)]
    runtime_read: Vec<String>,
    #[serde(default)]
    runtime_execute: Vec<String>,
    #[serde(default)]
    sockets: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Environment {
    #[serde(default)]
    keep: Vec<String>,
}

/// The merged configuration.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Config {
    /// The files that were read, in order.
    pub files: Vec<String>,
    pub default_mode: Option<Mode>,
    /// The administrator's ceiling.
    pub max_mode: Option<Mode>,
    pub workspace: Option<String>,
    pub real_bash: Option<String>,
    pub allow_degraded: bool,
    /// The namespace layer must hold: without it the command is refused (system file only).
    pub require_namespaces: bool,
    pub audit_log: Option<AuditLog>,
    /// Extra credential and protected paths (absolute, `~` expanded), added to the built-in ones.
    pub credentials: Vec<String>,
    pub protected: Vec<String>,
    /// Name patterns that make a file or directory a credential wherever it is, added to the
    /// built-in names; and built-in names exempted (the system file only).
    pub credential_names: Vec<String>,
    pub credential_exempt: Vec<String>,
    /// Extra runtime paths to read, or to read and execute (bounded by the ceiling).
    pub runtime_read: Vec<String>,
    pub runtime_execute: Vec<String>,
    /// Sockets of servers outside that commands may connect to below system execute (a
    /// directory names every socket in it).
    pub sockets: Vec<String>,
    /// Environment variables kept even though their names look secret.
    pub keep_env: Vec<String>,
    /// The network allowlist, one layer per file with a `[network]` section (the system file's
    /// first); `None` when no file has one: every host, as the mode allows.
    pub network: Option<crate::allowlist::Allowlist>,
    /// Who answers a request for more access (the system file only).
    pub approval: Approval,
    /// The run's resource limits: the system file's, lowered by the user file's.
    pub limits: crate::limits::Limits,
}

/// The audit log a file names, and which file named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditLog {
    pub path: String,
    /// The file that named it.
    pub named_by: String,
    /// Named by the system file, which may name any path; a user file's log must be the
    /// caller's own (see [`crate::audit::Log::open_owned`]).
    pub by_system: bool,
}

/// Where the files are, given the environment.
pub struct Sources {
    pub system: PathBuf,
    /// The user's file, or the explicitly named one.
    pub user: Option<PathBuf>,
    /// The user file was named explicitly (it must then exist).
    pub explicit: bool,
    /// `$TMPDIR`, a scratch tree no file is read from (when it is one, see
    /// [`scope::acceptable_tmpdir`]).
    pub tmpdir: Option<String>,
}

impl Sources {
    /// The usual places, from `SANDBOX_BASH_CONFIG`, `XDG_CONFIG_HOME` and `HOME`; `TMPDIR` is
    /// where no file is read from.
    pub fn from_env(
        explicit: Option<&OsStr>,
        xdg: Option<&OsStr>,
        home: Option<&OsStr>,
        tmpdir: Option<&OsStr>,
    ) -> Sources {
        #[allow(unused_mut)]
        let mut system = PathBuf::from(SYSTEM_FILE);
        // Debug builds only: tests put "the system file" in a directory of their own. Release
        // builds read /etc/sandbox-bash/config.toml and nothing else.
        #[cfg(debug_assertions)]
        if let Some(p) = std::env::var_os("SANDBOX_BASH_TEST_SYSTEM_CONFIG") {
            system = PathBuf::from(p);
        }
        let home_text = home.filter(|h| !h.is_empty()).map(|h| scope::normalize("/", &h.to_string_lossy()));
        let tmpdir = tmpdir
            .filter(|t| t.as_bytes().starts_with(b"/"))
            .map(|t| scope::normalize("/", &t.to_string_lossy()))
            .filter(|t| scope::acceptable_tmpdir(t, home_text.as_deref(), ""));
        if let Some(e) = explicit.filter(|e| !e.is_empty()) {
            return Sources { system, user: Some(PathBuf::from(e)), explicit: true, tmpdir };
        }
        let base = xdg
            .filter(|x| Path::new(x).is_absolute())
            .map(PathBuf::from)
            .or_else(|| home.filter(|h| !h.is_empty()).map(|h| Path::new(h).join(".config")));
        Sources { system, user: base.map(|b| b.join("sandbox-bash/config.toml")), explicit: false, tmpdir }
    }
}

/// Reads and merges the files that exist.
pub fn load(sources: &Sources, home: Option<&str>) -> Result<Config, String> {
    let mut config = Config::default();
    // A relative name would mean whatever file the cwd of each start holds.
    if let Some(user) = sources.user.as_ref().filter(|u| sources.explicit && !u.is_absolute()) {
        return Err(format!("{CONFIG_VAR}={} is not an absolute path", user.display()));
    }
    let tmpdir = sources.tmpdir.as_deref();
    if let Some(system) = read(&sources.system, false, tmpdir)? {
        apply(&mut config, system, &sources.system, home, true)?;
    }
    if let Some(user) = &sources.user
        && let Some(file) = read(user, sources.explicit, tmpdir)?
    {
        apply(&mut config, file, user, home, false)?;
    }
    Ok(config)
}

/// Parses one file; `None` when it does not exist (and need not).
fn read(path: &Path, must_exist: bool, tmpdir: Option<&str>) -> Result<Option<File>, String> {
    let shown = path.display();
    // Most starts find no file: one status says so (inside a watched run, an open costs a
    // round trip to the supervisor; a status does not). One that exists is judged before it
    // is read.
    if !must_exist && std::fs::metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        return Ok(None);
    }
    if let Err(e) = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY).open(path) {
        if e.kind() == std::io::ErrorKind::NotFound && !must_exist {
            return Ok(None);
        }
        return Err(format!("cannot read the configuration file {shown}: {e}"));
    }
    let real = canonical(path).map_err(|e| format!("cannot read the configuration file {shown}: {e}"))?;
    let mut file = open_trusted(path, &real, tmpdir)?;
    let mut text = String::new();
    file.read_to_string(&mut text).map_err(|e| format!("cannot read the configuration file {shown}: {e}"))?;
    parse(&text, path).map(Some)
}

/// `path` with every link resolved.
fn canonical(path: &Path) -> std::io::Result<String> {
    match path.to_str() {
        Some(text) => crate::exec::canonicalize(text),
        None => std::fs::canonicalize(path)
            .and_then(|p| p.into_os_string().into_string().map_err(|_| std::io::ErrorKind::InvalidData.into())),
    }
}

/// Who may own a configuration file or its directory: root, or the caller's real uid.
fn trusted_owner(uid: u32) -> bool {
    uid == 0 || uid == crate::exec::uid()
}

/// Why a file or directory is not trusted, if it is not: its owner, or write permission for
/// group or others.
fn distrust(meta: &std::fs::Metadata) -> Option<String> {
    if !trusted_owner(meta.uid()) {
        return Some(format!("is owned by uid {}, neither root nor you (uid {})", meta.uid(), crate::exec::uid()));
    }
    // Group write is harmless when the group is the owner's own private group (the umask 002
    // of systems that give every user a group of their own): nobody else is in it.
    let group_only = meta.mode() & 0o022 == 0o020;
    if meta.mode() & 0o022 != 0 && !(group_only && private_group(meta.uid(), meta.gid())) {
        return Some(format!("is writable by {} (mode {:04o})", writers(meta.mode()), meta.mode() & 0o7777));
    }
    None
}

/// Whether `gid` is the private group of `uid`: the owner's primary group in /etc/passwd, with
/// no members listed in /etc/group, and nobody else's primary group. Read only when a file is
/// group-writable, which is rare at start-up.
fn private_group(uid: u32, gid: u32) -> bool {
    let (Ok(passwd), Ok(group)) = (std::fs::read_to_string("/etc/passwd"), std::fs::read_to_string("/etc/group"))
    else {
        return false;
    };
    let (uid, gid) = (uid.to_string(), gid.to_string());
    let mut owner_primary = false;
    for line in passwd.lines() {
        let f: Vec<&str> = line.split(':').collect();
        if f.len() < 4 || f[3] != gid {
            continue;
        }
        if f[2] != uid {
            return false;
        }
        owner_primary = true;
    }
    owner_primary
        && group.lines().any(|line| {
            let f: Vec<&str> = line.split(':').collect();
            f.len() >= 4 && f[2] == gid && f[3].trim().is_empty()
        })
}

fn writers(mode: u32) -> &'static str {
    match (mode & 0o020 != 0, mode & 0o002 != 0) {
        (true, true) => "group and others",
        (true, false) => "its group",
        _ => "others",
    }
}

/// The scratch tree `path` lies in, if any.
fn scratch_tree<'a>(path: &str, tmpdir: Option<&'a str>) -> Option<&'a str> {
    SCRATCH_TREES.iter().copied().chain(tmpdir).find(|t| scope::is_within(path, t))
}

/// Opens the configuration file `given` (whose links lead to `real`) after judging it and its
/// directory; the reason, and what to do, when it is not to be trusted.
fn open_trusted(given: &Path, real: &str, tmpdir: Option<&str>) -> Result<OpenFile, String> {
    let shown = given.display();
    let named = given
        .to_str()
        .map(|g| if g.starts_with('/') { scope::normalize("/", g) } else { scope::normalize(&cwd_text(), g) });
    let tmp_real = tmpdir.and_then(|t| crate::exec::canonicalize(t).ok());
    for place in named.iter().map(String::as_str).chain([real]) {
        if let Some(tree) = scratch_tree(place, tmpdir).or_else(|| scratch_tree(place, tmp_real.as_deref())) {
            return Err(format!(
                "the configuration file {shown} lies in {tree}, a scratch tree that other users and sandboxed \
                 commands can write, so it is not read; move it to ~/.config/sandbox-bash/config.toml or another \
                 directory only you can write"
            ));
        }
    }
    let (dir_path, name) = match real.rfind('/') {
        Some(i) if i + 1 < real.len() => (if i == 0 { "/" } else { &real[..i] }, &real[i + 1..]),
        _ => return Err(format!("the configuration file {shown} is not a regular file")),
    };
    let dir = crate::exec::open_dir(Path::new(dir_path))
        .map_err(|e| format!("cannot open the directory {dir_path} of the configuration file {shown}: {e}"))?;
    let dir_meta = dir
        .metadata()
        .map_err(|e| format!("cannot examine the directory {dir_path} of the configuration file {shown}: {e}"))?;
    if let Some(why) = distrust(&dir_meta) {
        return Err(format!(
            "the directory {dir_path} of the configuration file {shown} {why}, so another user could have put the \
             file there and it is not read; move the file to a directory only you (or root) can write, or run \
             chmod go-w {dir_path} if that is yours"
        ));
    }
    let file = crate::exec::open_in(
        &dir,
        OsStr::new(name),
        libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY,
        0,
    )
    .map_err(|e| format!("cannot read the configuration file {shown}: {e}"))?;
    let meta = file.metadata().map_err(|e| format!("cannot examine the configuration file {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("the configuration file {shown} is not a regular file"));
    }
    if let Some(why) = distrust(&meta) {
        let fix = if trusted_owner(meta.uid()) {
            format!("run chmod go-w {real}")
        } else {
            "replace it with a file of your own".to_string()
        };
        let linked = if named.as_deref() == Some(real) { String::new() } else { format!(" (which leads to {real})") };
        return Err(format!("the configuration file {shown}{linked} {why}, so it is not read; {fix}"));
    }
    // A link: the directory that holds the link decides where it leads, so it is judged too.
    if named.as_deref() != Some(real) {
        let link_dir = given.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let link_meta = std::fs::metadata(link_dir).map_err(|e| {
            format!("cannot examine the directory {} of the configuration file {shown}: {e}", link_dir.display())
        })?;
        if (link_meta.dev(), link_meta.ino()) != (dir_meta.dev(), dir_meta.ino())
            && let Some(why) = distrust(&link_meta)
        {
            return Err(format!(
                "the directory {} that holds the configuration file {shown} (a link to {real}) {why}, so another \
                 user could change where it leads and it is not read; move the link to a directory only you (or \
                 root) can write",
                link_dir.display()
            ));
        }
    }
    Ok(file)
}

fn cwd_text() -> String {
    std::env::current_dir().map(|d| d.to_string_lossy().into_owned()).unwrap_or_else(|_| "/".into())
}

/// The parser, kept out of `read`: most starts find no file, and this code is large.
#[cold]
#[inline(never)]
fn parse(text: &str, path: &Path) -> Result<File, String> {
    toml::from_str::<File>(text).map_err(|e| {
        let (line, column) = e.span().map(|s| line_column(text, s.start)).unwrap_or((1, 1));
        let message = e.message().trim_end().replace('\n', " ");
        format!("invalid configuration in {} at line {line}:{column}: {message}", path.display())
    })
}

/// One file's `[network]` section as a layer of the allowlist.
fn network_layer(net: Network, shown: &str) -> Result<crate::allowlist::Layer, String> {
    use crate::allowlist::{Entry, Layer};
    let entries = |key: &str, list: Vec<String>| -> Result<Vec<Entry>, String> {
        list.iter().map(|e| Entry::parse(e).map_err(|why| format!("invalid network.{key} in {shown}: {why}"))).collect()
    };
    let mut resolve = Vec::new();
    for (name, addr) in net.resolve {
        let pinned = Entry::parse(&name).ok().filter(|e| e.port.is_none()).map(|e| e.host);
        match (pinned, addr.parse::<std::net::IpAddr>()) {
            (Some(crate::allowlist::Host::Name(n)), Ok(addr)) => resolve.push((n, addr)),
            _ => {
                return Err(format!(
                    "invalid network.resolve {name:?} = {addr:?} in {shown}: expected a host name and an IP address"
                ));
            }
        }
    }
    if net.loopback.contains(&0) {
        return Err(format!("invalid network.loopback in {shown}: ports are 1 to 65535"));
    }
    Ok(Layer {
        source: shown.to_string(),
        allow: entries("allow", net.allow)?,
        deny: entries("deny", net.deny)?,
        resolve,
        loopback: Some(net.loopback),
    })
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn apply(config: &mut Config, file: File, path: &Path, home: Option<&str>, system: bool) -> Result<(), String> {
    let shown = path.display().to_string();
    let mode = |key: &str, value: &Option<String>| -> Result<Option<Mode>, String> {
        value
            .as_deref()
            .map(|v| {
                Mode::parse(v)
                    .map_err(|_| format!("invalid {key} = {v:?} in {shown}: expected four octal digits or a preset"))
            })
            .transpose()
    };
    if !system
        && (file.max_mode.is_some()
            || file.allow_degraded.is_some()
            || file.require_namespaces.is_some()
            || file.approval.is_some()
            || !file.paths.credential_exempt.is_empty())
    {
        let key = if !file.paths.credential_exempt.is_empty() {
            "paths.credential_exempt"
        } else if file.approval.is_some() {
            "[approval]"
        } else if file.max_mode.is_some() {
            "max_mode"
        } else if file.allow_degraded.is_some() {
            "allow_degraded"
        } else {
            "require_namespaces"
        };
        return Err(format!("{key} in {shown}: only the system file {SYSTEM_FILE} may set it"));
    }
    if let Some(m) = mode("default_mode", &file.default_mode)? {
        config.default_mode = Some(m);
    }
    if let Some(m) = mode("max_mode", &file.max_mode)? {
        config.max_mode = Some(m);
    }
    if let Some(d) = file.allow_degraded {
        config.allow_degraded = d;
    }
    if let Some(r) = file.require_namespaces {
        config.require_namespaces = r;
    }
    if let Some(a) = file.approval {
        if let Some(p) = a.program {
            if !p.starts_with('/') {
                return Err(format!("invalid approval.program = {p:?} in {shown}: expected an absolute path"));
            }
            config.approval.program = Some(p);
        }
        for (key, value, into) in [
            ("approval.timeout", a.timeout, &mut config.approval.timeout),
            ("approval.rejected_for", a.rejected_for, &mut config.approval.rejected_for),
        ] {
            match value {
                Some(0) | Some(86_401..) => {
                    return Err(format!("invalid {key} in {shown}: expected seconds from 1 to 86400"));
                }
                Some(v) => *into = v,
                None => {}
            }
        }
    }
    if let Some(l) = file.limits {
        use crate::limits::{Kind, Limits, amount};
        let mut limits = Limits::NONE;
        for (kind, value) in [
            (Kind::Cpu, l.cpu),
            (Kind::Memory, l.memory),
            (Kind::Pids, l.pids),
            (Kind::Disk, l.disk),
            (Kind::Wall, l.wall),
            (Kind::File, l.file),
        ] {
            let text = match value {
                None => continue,
                Some(Amount::Number(n)) => n.to_string(),
                Some(Amount::Text(t)) => t,
            };
            let v = amount(kind, text.trim()).map_err(|e| format!("invalid limits.{e} in {shown}"))?;
            limits.set(kind, Some(v));
        }
        // The user file can only lower what the system file sets.
        config.limits = config.limits.lower(&limits);
    }
    let path_value = |key: &str, v: String| -> Result<String, String> {
        let expanded = expand(&v, home);
        if expanded.starts_with('/') {
            Ok(expanded)
        } else {
            Err(format!("invalid {key} = {v:?} in {shown}: expected an absolute path (or one starting with ~/)"))
        }
    };
    if let Some(w) = file.workspace {
        config.workspace = Some(path_value("workspace", w)?);
    }
    if let Some(b) = file.real_bash {
        config.real_bash = Some(path_value("real_bash", b)?);
    }
    if let Some(a) = file.audit_log {
        config.audit_log =
            Some(AuditLog { path: path_value("audit_log", a)?, named_by: shown.clone(), by_system: system });
    }
    for (key, from, to) in [
        ("paths.credentials", file.paths.credentials, &mut config.credentials),
        ("paths.protected", file.paths.protected, &mut config.protected),
    ] {
        for v in from {
            let p = path_value(key, v)?;
            if !to.contains(&p) {
                to.push(p);
            }
        }
    }
    for (key, from, to) in [
        ("paths.credential_names", file.paths.credential_names, &mut config.credential_names),
        ("paths.credential_exempt", file.paths.credential_exempt, &mut config.credential_exempt),
    ] {
        for v in from {
            // One component: a pattern with a slash could never match a name.
            if v.is_empty() || v.contains('/') {
                return Err(format!(
                    "invalid {key} = {v:?} in {shown}: expected a pattern for one name (like \"*.vault\"), without a slash"
                ));
            }
            if !to.contains(&v) {
                to.push(v);
            }
        }
    }
    for v in file.paths.sockets {
        let p = scope::normalize("/", &path_value("paths.sockets", v)?);
        if !config.sockets.contains(&p) {
            config.sockets.push(p);
        }
    }
    if let Some(net) = file.network {
        let layer = network_layer(net, &shown)?;
        config.network.get_or_insert_with(Default::default).layers.push(layer);
    }
    // Runtime paths are granted whole: one that is or holds a credential would open it.
    let credentials = Credentials::new(home, &config.credentials);
    for (key, from, to) in [
        ("paths.runtime_read", file.paths.runtime_read, &mut config.runtime_read),
        ("paths.runtime_execute", file.paths.runtime_execute, &mut config.runtime_execute),
    ] {
        for v in from {
            let p = scope::normalize("/", &path_value(key, v.clone())?);
            if let Some(credential) = credentials.within(&p) {
                let what = if credential == p {
                    "is a credential path".to_string()
                } else {
                    format!("holds the credential path {credential}")
                };
                return Err(format!(
                    "invalid {key} = {v:?} in {shown}: {p} {what}, which a runtime path would open to every \
                     command; name only the directories programs need (for example {}/bin), never a home or \
                     a directory around one",
                    p.trim_end_matches('/')
                ));
            }
            if !to.contains(&p) {
                to.push(p);
            }
        }
    }
    for k in file.environment.keep {
        if !config.keep_env.contains(&k) {
            config.keep_env.push(k);
        }
    }
    config.files.push(shown);
    Ok(())
}

/// The credential paths a runtime path must neither be nor hold: the built-in ones of the
/// home directory (as given and with its links resolved), the configured ones, and any path
/// whose own name marks it as one.
struct Credentials {
    layouts: Vec<scope::Layout>,
}

impl Credentials {
    fn new(home: Option<&str>, extra: &[String]) -> Credentials {
        let homes = home.filter(|h| h.starts_with('/')).map(|h| scope::normalize("/", h));
        let real =
            homes.as_deref().and_then(|h| crate::exec::canonicalize(h).ok()).filter(|r| Some(r) != homes.as_ref());
        let layout = |home: Option<String>| scope::Layout {
            workspace: String::new(),
            home,
            extra_credentials: extra.to_vec().into(),
            ..Default::default()
        };
        let mut layouts = vec![layout(homes)];
        if real.is_some() {
            layouts.push(layout(real));
        }
        Credentials { layouts }
    }

    /// The credential path `path` is or holds, if any (checked as written and with its links
    /// resolved).
    fn within(&self, path: &str) -> Option<String> {
        let real = crate::exec::canonicalize(path).ok().filter(|r| r != path);
        [Some(path), real.as_deref()].into_iter().flatten().find_map(|p| self.layouts.iter().find_map(|l| held(l, p)))
    }
}

/// The credential path `path` is or holds under `layout`.
fn held(layout: &scope::Layout, path: &str) -> Option<String> {
    if layout.is_credential(path) {
        return Some(path.to_string());
    }
    if let Some(c) = layout.extra_credentials.iter().find(|c| scope::is_within(c, path)) {
        return Some(c.clone());
    }
    let home = layout.home.as_deref().filter(|h| *h != "/")?;
    scope::HOME_CREDENTIALS
        .iter()
        .map(|entry| format!("{home}/{entry}"))
        .chain([format!("{home}/.cargo/credentials.toml")])
        .find(|c| scope::is_within(c, path))
}

/// `~` and `~/…` against the home directory.
fn expand(v: &str, home: Option<&str>) -> String {
    match (v.strip_prefix('~'), home) {
        (Some(""), Some(h)) => h.to_string(),
        (Some(rest), Some(h)) if rest.starts_with('/') => format!("{h}{rest}"),
        _ => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files' texts through the parser and the merge, as `load` takes them (the files
    /// themselves, and the checks on them, are tested through the binary in tests/config.rs).
    fn merge(system: Option<&str>, user: Option<&str>, home: Option<&str>) -> Result<Config, String> {
        let mut config = Config::default();
        for (text, path, is_system) in
            [(system, "/etc/sandbox-bash/config.toml", true), (user, "/home/u/.config/sandbox-bash/config.toml", false)]
        {
            if let Some(text) = text {
                let path = Path::new(path);
                apply(&mut config, parse(text, path)?, path, home, is_system)?;
            }
        }
        Ok(config)
    }

    #[test]
    fn limits_of_the_user_file_only_lower_the_system_file() {
        use crate::limits::{Kind, Limits};
        let system = "[limits]\nmemory = \"2G\"\nwall = 600\n";
        let user = "[limits]\nmemory = \"8G\"\npids = 256\nwall = \"1m\"\n";
        let c = merge(Some(system), Some(user), None).unwrap();
        assert_eq!(c.limits, Limits::parse("memory=2G,pids=256,wall=60s").unwrap());
        assert_eq!(c.limits.get(Kind::Memory), Some(2 << 30));
        let e = merge(Some("[limits]\nmemory = \"lots\"\n"), None, None).unwrap_err();
        assert!(e.starts_with("invalid limits.memory = \"lots\": expected a number in /etc/sandbox-bash"), "{e}");
        let e = merge(Some("[limits]\nswap = 1\n"), None, None).unwrap_err();
        assert!(e.contains("unknown field `swap`"), "{e}");
    }

    #[test]
    fn no_files_no_configuration() {
        assert_eq!(merge(None, None, None).unwrap(), Config::default());
    }

    #[test]
    fn files_merge_with_the_user_over_the_system() {
        let c = merge(
            Some(
                "default_mode = \"0444\"\nmax_mode = \"0467\"\nallow_degraded = true\naudit_log = \"/var/log/sb.jsonl\"\n\
                 [paths]\ncredentials = [\"/srv/secrets\"]\n",
            ),
            Some(
                "default_mode = \"0407\"\nworkspace = \"~/proj\"\n[paths]\ncredentials = [\"~/.config/op\"]\n\
                 runtime_execute = [\"/opt/tool/bin\"]\n[environment]\nkeep = [\"GITHUB_TOKEN\"]\n",
            ),
            Some("/home/u"),
        )
        .unwrap();
        assert_eq!(c.default_mode, Some(Mode(0o0407)));
        assert_eq!(c.max_mode, Some(Mode(0o0467)));
        assert!(c.allow_degraded);
        assert_eq!(c.workspace.as_deref(), Some("/home/u/proj"));
        assert_eq!(c.credentials, ["/srv/secrets", "/home/u/.config/op"]);
        assert_eq!(c.runtime_execute, ["/opt/tool/bin"]);
        assert_eq!(c.keep_env, ["GITHUB_TOKEN"]);
        assert_eq!(c.files, ["/etc/sandbox-bash/config.toml", "/home/u/.config/sandbox-bash/config.toml"]);
        let log = c.audit_log.unwrap();
        assert_eq!((log.path.as_str(), log.by_system), ("/var/log/sb.jsonl", true));
        // The user's log is marked as the user's: it must then be the caller's own file.
        let c = merge(None, Some("audit_log = \"~/sb.jsonl\"\n"), Some("/home/u")).unwrap();
        let log = c.audit_log.unwrap();
        assert_eq!((log.path.as_str(), log.by_system), ("/home/u/sb.jsonl", false));
        assert_eq!(log.named_by, "/home/u/.config/sandbox-bash/config.toml");
    }

    #[test]
    fn mistakes_name_the_file_line_and_column() {
        let cases = [
            ("default_mode = \"0467\"\nmax_mod = \"0444\"\n", "line 2:1"),
            ("default_mode = 467\n", "line 1:16"),
            ("[paths]\ncredentials = \"/x\"\n", "line 2:15"),
            ("default_mode = \"0468\"\n", "0468"),
            ("workspace = \"relative\"\n", "absolute path"),
            ("[environment]\nkeep = [1]\n", "line 2:9"),
        ];
        for (text, want) in cases {
            let e = merge(Some(text), None, None).unwrap_err();
            assert!(e.contains("/etc/sandbox-bash/config.toml") && e.contains(want), "{text:?}: {e}");
        }
        // The ceiling and the degraded opt-in belong to the system file.
        let e = merge(None, Some("max_mode = \"7777\"\n"), None).unwrap_err();
        assert!(e.contains("only the system file"), "{e}");
        let e = merge(None, Some("allow_degraded = true\n"), None).unwrap_err();
        assert!(e.contains("only the system file"), "{e}");
    }

    #[test]
    fn network_sections_are_layers_the_user_file_can_only_narrow() {
        use crate::allowlist::Destination;
        let system = "[network]\nallow = [\"pypi.org\", \"*.pythonhosted.org\", \"github.com:443\", \"10.1.0.0/16\"]\n\
                      deny = [\"*.internal.example\"]\nresolve = { \"mirror.test\" = \"127.0.0.2\" }\nloopback = [5432]\n";
        let user = "[network]\nallow = [\"pypi.org\", \"evil.test\"]\n";
        let c = merge(Some(system), Some(user), None).unwrap();
        let net = c.network.unwrap();
        assert_eq!(net.layers.len(), 2);
        assert!(net.check(&Destination::new("pypi.org", 443)).is_ok());
        assert!(net.check(&Destination::new("evil.test", 443)).is_err(), "the user file cannot widen");
        assert!(net.check(&Destination::new("github.com", 443)).is_err(), "the user file narrows");
        assert_eq!(net.pinned("mirror.test", 80), Some("127.0.0.2".parse().unwrap()));
        assert!(net.loopback().is_empty(), "the user file names no loopback port, so none is forwarded");
        assert_eq!(merge(Some(system), None, None).unwrap().network.unwrap().loopback(), vec![5432]);
        assert_eq!(merge(None, None, None).unwrap().network, None, "no section: every host, as today");
        for (text, want) in [
            ("[network]\nallow = [\"a b\"]\n", "network.allow"),
            ("[network]\ndeny = [\"*\"]\n", "network.deny"),
            ("[network]\nresolve = { \"x.test\" = \"nowhere\" }\n", "network.resolve"),
            ("[network]\nresolve = { \"10.0.0.1\" = \"10.0.0.2\" }\n", "network.resolve"),
            ("[network]\nloopback = [0]\n", "network.loopback"),
            ("[network]\nallowed = []\n", "line 2:1"),
        ] {
            let e = merge(Some(text), None, None).unwrap_err();
            assert!(e.contains("/etc/sandbox-bash/config.toml") && e.contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn runtime_paths_that_are_or_hold_credentials_are_refused() {
        let home = Some("/home/u");
        for (entry, held) in [
            ("~", "/home/u/.ssh"),
            ("~/", "/home/u/.ssh"),
            ("~/.ssh", "/home/u/.ssh"),
            ("~/.ssh/keys", "/home/u/.ssh/keys"),
            ("~/.config", "/home/u/.config/gcloud"),
            ("~/.cargo", "/home/u/.cargo/credentials.toml"),
            ("/home", "/home/u/.ssh"),
            ("/", "/srv/secrets"),
            ("/srv", "/srv/secrets"),
            ("/srv/secrets/db", "/srv/secrets/db"),
            ("/opt/app/.env", "/opt/app/.env"),
            ("/opt/secrets", "/opt/secrets"),
        ] {
            for key in ["runtime_read", "runtime_execute"] {
                let user = format!("[paths]\ncredentials = [\"/srv/secrets\"]\n{key} = [\"{entry}\"]\n");
                let e = merge(None, Some(&user), home).unwrap_err();
                assert!(
                    e.contains(&format!("paths.{key}")) && e.contains(held) && e.contains("config.toml"),
                    "{key} = {entry:?}: {e}"
                );
            }
            // The system file is held to the same rule.
            let e = merge(Some(&format!("[paths]\nruntime_read = [\"{entry}\"]\n")), None, home);
            if !entry.starts_with("/srv") {
                assert!(e.is_err(), "{entry:?} from the system file");
            }
        }
        // Positive control: toolchain paths outside the home's credentials go through.
        let c = merge(
            None,
            Some("[paths]\nruntime_read = [\"/opt/sdk/share\", \"~/.cargo/bin\"]\nruntime_execute = [\"~/.local/bin/\"]\n"),
            home,
        )
        .unwrap();
        assert_eq!(c.runtime_read, ["/opt/sdk/share", "/home/u/.cargo/bin"]);
        assert_eq!(c.runtime_execute, ["/home/u/.local/bin"]);
    }
}
