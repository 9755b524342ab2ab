//! Where the run stands: the workspace, the home and what in them is held like a credential or
//! protected (the layout the analysis and the kernel layer share).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use crate::environ::Environ;
use crate::error::Error;
use crate::mode::{self, Perm};
use crate::scope::{self, Layout};
use crate::settings::Settings;
use crate::{caches, exec, later, plain, project, sandbox};

/// The variable that overrides the workspace root.
pub const WORKSPACE_VAR: &str = "SANDBOX_BASH_WORKSPACE";

/// Directories whose programs are part of the runtime baseline: running them by path is
/// the same as running them by name.
pub(crate) const SYSTEM_PROGRAM_DIRS: &[&str] = &[
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
    "/usr/libexec",
    "/usr/lib/git-core",
];

/// The directories where agent sessions' proxies listen (see [`proxy::registry`]): this
/// environment's, made when missing, and the home's default when it is another.
#[cfg(target_os = "linux")]
pub(crate) fn sessions_dirs(env: &Environ, layout: &Layout) -> Vec<String> {
    let var = |name: &str| env.get(name).map(|v| v.to_string_lossy().into_owned());
    let none = |_: &str| None;
    let mut out: Vec<String> = Vec::new();
    for state in [caches::state_dir(layout.home.as_deref(), &var), caches::state_dir(layout.home.as_deref(), &none)]
        .into_iter()
        .flatten()
    {
        let dir = format!("{state}/sessions");
        // The home's default is most often the environment's own, looked at already.
        if out.contains(&dir) {
            continue;
        }
        let is_dir = |d: &str| std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir());
        // Looked at before it is made: it is there at almost every start.
        let mut there = is_dir(&dir);
        if out.is_empty() && !there {
            let mut b = std::fs::DirBuilder::new();
            std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
            let _ = b.recursive(true).create(&dir);
            there = is_dir(&dir);
        }
        if there {
            out.push(dir);
        }
    }
    out
}

/// The workspace root: `explicit` (`SANDBOX_BASH_WORKSPACE`, the configuration's, or an
/// enclosing level's), else the top of the git work tree that holds `cwd` (a `.git` entry,
/// looked for upwards without running git) below any of `homes`, else `cwd`.
pub fn find_workspace(cwd: &str, explicit: Option<&OsStr>, homes: &[String]) -> Result<String, Error> {
    let chosen = match explicit {
        Some(value) => {
            let text = value.to_string_lossy().into_owned();
            let abs = scope::normalize(cwd, &text);
            let canonical =
                exec::canonicalize(&abs).map_err(|e| Error::Workspace { path: text.clone(), why: e.to_string() })?;
            if !std::path::Path::new(&canonical).is_dir() {
                return Err(Error::Workspace { path: text, why: "not a directory".into() });
            }
            canonical
        }
        None => {
            let mut dir = cwd.to_string();
            let mut found = None;
            loop {
                // A repository at the home or above it (a home kept in git) is not the
                // workspace of the directories below: the home is never one by default.
                if dir == "/" || homes.iter().any(|h| scope::is_within(h, &dir)) {
                    break;
                }
                if std::fs::symlink_metadata(format!("{dir}/.git")).is_ok() {
                    found = Some(dir.clone());
                    break;
                }
                dir = match dir.rfind('/') {
                    Some(0) | None => "/".into(),
                    Some(i) => dir[..i].to_string(),
                };
            }
            found.unwrap_or_else(|| cwd.to_string())
        }
    };
    if !scope::acceptable_workspace(&chosen) {
        return Err(Error::Workspace {
            path: chosen,
            why: "it is the filesystem root or a system directory, which would make the whole system the workspace"
                .into(),
        });
    }
    Ok(chosen)
}

pub(crate) fn canonical_or_normal(path: &str) -> String {
    match exec::canonicalize(path) {
        Ok(p) => p,
        Err(_) => scope::normalize("/", path),
    }
}

/// The places that decide scopes for a run under `allowed`; with `run`, the directories the
/// caches' layers need are made (explaining and describing change nothing).
pub(crate) fn layout(settings: &Settings, env: &Environ, layers_for: &str, run: bool) -> Result<Layout, Error> {
    let Settings { config, cwd, argv0, .. } = settings;
    let (cwd, argv0, allowed) = (cwd.as_str(), argv0.as_os_str(), settings.modes.allowed);
    // An explicit setting, else the configuration's, else the workspace an enclosing
    // sandbox-bash worked in (nested invocations keep it), else the git work tree or the cwd.
    let explicit = env
        .get(WORKSPACE_VAR)
        .map(OsStr::to_os_string)
        .or_else(|| config.workspace.as_ref().map(OsString::from))
        .or_else(|| settings.marker.as_ref().and_then(|m| m.workspace.clone()));
    let home = env.get("HOME").filter(|h| !h.is_empty()).map(|h| canonical_or_normal(&h.to_string_lossy()));
    let homes: Vec<String> = [home.clone(), account_home(exec::uid())].into_iter().flatten().collect();
    let mut workspace = find_workspace(cwd, explicit.as_deref(), &homes)?;
    let mut no_workspace = false;
    // The home is never the workspace unless a setting says so (a start in the home, or in a
    // directory of it with no repository of its own below a home that is one): the workspace is
    // then an empty directory of sandbox-bash's own, which commands may not write, and the home
    // keeps the external bits.
    let state =
        caches::state_dir(home.as_deref(), &|name: &str| env.get(name).map(|v| v.to_string_lossy().into_owned()));
    let none = state.as_ref().map(|s| format!("{s}/{}", caches::NO_WORKSPACE));
    // A nested level is given the stand-in as its workspace.
    if none.as_deref().is_some_and(|n| canonical_or_normal(n) == workspace) {
        no_workspace = true;
    }
    if explicit.is_none()
        && homes.iter().any(|h| scope::is_within(h, &workspace))
        && let Some(none) = none
    {
        if run {
            let mut b = std::fs::DirBuilder::new();
            std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
            // Made when missing; where it cannot be (an enclosing view), nothing is there to search.
            let _ = b.recursive(true).create(&none);
        }
        workspace = canonical_or_normal(&none);
        no_workspace = true;
    }
    let path_dirs: Vec<String> = scope::path_dirs(env.get("PATH").map(OsStr::as_bytes)).collect();
    let tmpdir = env
        .get("TMPDIR")
        .filter(|raw| raw.as_bytes().starts_with(b"/"))
        .map(|raw| scope::normalize("/", &raw.to_string_lossy()))
        .filter(|t| scope::acceptable_tmpdir(t, home.as_deref(), &workspace))
        // Inside a PATH directory, which programs run from, it would not be scratch.
        .filter(|t| !path_dirs.iter().any(|d| d != "/" && scope::is_within(t, d)));
    // The kept directory listings, unless they lie where a run may write.
    #[cfg(target_os = "linux")]
    {
        let mut writable = vec![workspace.as_str(), "/tmp", "/var/tmp", "/dev/shm"];
        writable.extend(tmpdir.as_deref());
        sandbox::facts::admit(&writable);
    }
    let mut extra_protected = config.protected.clone();
    let xdg = env.get("XDG_CONFIG_HOME").map(|x| x.to_string_lossy().into_owned());
    extra_protected.extend(scope::protected_for(&path_dirs, xdg.as_deref(), &workspace, home.as_deref()));
    extra_protected.extend(later::git_indirections(&workspace, home.as_deref(), xdg.as_deref()));
    extra_protected.extend(later::named_by_settings(&workspace, home.as_deref()));
    // The configuration files read: changing one widens every later run.
    extra_protected.extend(config.files.iter().filter(|f| !scope::is_system_path(f)).cloned());
    // sandbox-bash itself: a command that replaced it would run unsandboxed at the next start.
    // So would one that pointed the link it was started through (`~/bin/bash`, a `SHELL`
    // setting) somewhere else.
    if let Some(me) = exec::self_exe() {
        extra_protected.push(me.to_string_lossy().into_owned());
        let started = argv0.to_string_lossy();
        let started = started.strip_prefix('-').unwrap_or(&started);
        let shell = env.get("SHELL").map(|s| s.to_string_lossy().into_owned());
        for entry in [Some(started), shell.as_deref()].into_iter().flatten() {
            if !entry.contains('/') {
                continue;
            }
            let path = scope::normalize(cwd, entry);
            let link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
            if link && exec::canonicalize(&path).is_ok_and(|real| std::path::Path::new(&real) == me) {
                extra_protected.push(path);
            }
        }
    }
    let mut extra_credentials = config.credentials.clone();
    if let Some(h) = home.as_deref() {
        link_targets(h, &workspace, &mut extra_credentials, &mut extra_protected);
    }
    // The account's own home when HOME names another: the next unsandboxed login reads its
    // start-up files and keys, whatever HOME the command was given.
    if let Some(own) = account_home(exec::uid())
        && home.as_deref().is_none_or(|h| h != own && canonical_or_normal(h) != own)
    {
        for entry in scope::HOME_CREDENTIALS {
            extra_credentials.push(format!("{own}/{entry}"));
        }
        for entry in scope::STARTUP_FILES.iter().chain(scope::home_protected()) {
            extra_protected.push(format!("{own}/{entry}"));
        }
        link_targets(&own, &workspace, &mut extra_credentials, &mut extra_protected);
    }
    let var = |name: &str| env.get(name).map(|v| v.to_string_lossy().into_owned());
    // sandbox-bash's own state (the caches' layers) wherever XDG_STATE_HOME puts it, and the
    // one below the account's own home (the kept listings), whatever home the run was given.
    extra_protected.extend(caches::state_dir(home.as_deref(), &var));
    #[cfg(target_os = "linux")]
    if let Some(state) = sandbox::facts::state_dir() {
        // Made when missing, so that the view holds it read-only even inside a tree the run may
        // write (a workspace that holds the account's home, another home given): a command must
        // never make the store the next start reads.
        if run {
            let there = matches!(sandbox::facts::entry(&state), Some(Some(k)) if k.dir);
            let _ = crate::approval::make_dir(std::path::Path::new(&state));
            // What it made is looked at anew (the toolchain homes below are asked next).
            if !there {
                sandbox::facts::forget();
            }
        }
        if !extra_protected.contains(&state) {
            extra_protected.push(state);
        }
    }
    // Each home where it really is: a link on the way (`GOPATH=/x/link/.ssh`) must not lead the
    // checks one way and the rule another. A home that is not there grants nothing.
    let toolchains: Vec<scope::Toolchain> = scope::toolchain_groups(home.as_deref(), &var)
        .into_iter()
        .map(|g| scope::Toolchain {
            homes: g.homes.iter().filter_map(|h| exec::canonical_if_there(h)).collect(),
            credentials: g.credentials,
            named: g.named.iter().filter_map(|h| exec::canonical_if_there(h)).collect(),
        })
        .filter(|g| !g.homes.is_empty())
        .collect();
    let committed = Some(project::Committed::new(&workspace));
    let mut layout = Layout {
        workspace,
        no_workspace,
        home,
        tmpdir,
        extra_credentials: extra_credentials.into(),
        audit_logs: Vec::new(),
        credential_names: config.credential_names.clone(),
        credential_exempt: config.credential_exempt.clone(),
        committed,
        extra_protected: extra_protected.into(),
        toolchains: Some(toolchains),
        client_state: Vec::new(),
        client_files: Vec::new(),
        caches: Vec::new(),
        sessions: Vec::new(),
        private: Vec::new(),
        relaxed: plain::Relaxed::default(),
    };
    // A temporary directory among credentials is not scratch: it keeps being a credential.
    if layout.tmpdir.as_deref().is_some_and(|t| layout.is_credential(t)) {
        layout.tmpdir = None;
    }
    // An agent's shell-state directory counts only where it is a real directory of the caller's
    // own, reached by no link (a link there would lead the snapshot's rule anywhere), and not
    // where it meets the workspace, whose bits govern it.
    let client_state: Vec<(String, (u64, u64))> = scope::client_state_dirs(layout.home.as_deref(), &var)
        .into_iter()
        .filter(|d| !scope::is_system_path(d) && !layout.is_credential(d) && !layout.is_protected(d))
        .filter(|d| !scope::is_within(d, &layout.workspace) && !scope::is_within(&layout.workspace, d))
        .filter_map(|d| own_real_dir(&d).map(|node| (d, node)))
        .collect();
    layout.client_state = client_state;
    // The package caches get a layer of their own when the run may write its workspace and
    // the mode does not write the system (which would write the caches themselves).
    if allowed.has(mode::Scope::Workspace, Perm::Write) && !allowed.has(mode::Scope::System, Perm::Write) {
        layout.caches = caches::layers(&layout, &var, layers_for, run);
    }
    Ok(layout)
}

/// The device and inode of `dir` when it is a directory the caller owns, reached by no
/// symbolic link on the way.
pub(crate) fn own_real_dir(dir: &str) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = exec::open_dir_no_links(std::path::Path::new(dir)).and_then(|d| d.metadata()).ok()?;
    (m.is_dir() && m.uid() == exec::uid()).then_some((m.dev(), m.ino()))
}

/// The home directory of `uid` in `/etc/passwd`, when it is there and absolute (accounts
/// from other sources are not looked up: that would start the C library's name services).
pub(crate) fn account_home(uid: u32) -> Option<String> {
    // A start asks for its own account's home several times (the homes, the kept listings,
    // the sessions): read once.
    static OWN: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    if uid == exec::uid() {
        return OWN.get_or_init(|| read_account_home(uid)).clone();
    }
    read_account_home(uid)
}

fn read_account_home(uid: u32) -> Option<String> {
    let text = std::fs::read("/etc/passwd").ok()?;
    let uid = uid.to_string();
    for line in text.split(|&b| b == b'\n') {
        let mut fields = line.split(|&b| b == b':');
        let (_name, _pw, id) = (fields.next()?, fields.next(), fields.next());
        if id != Some(uid.as_bytes()) {
            continue;
        }
        let home = fields.nth(2)?;
        let home = std::str::from_utf8(home).ok()?;
        return (home.starts_with('/') && home != "/").then(|| scope::normalize("/", home));
    }
    None
}

/// Where the home's credential and protected entries lead when they are symbolic links (a
/// dotfile manager's `~/.bashrc -> dotfiles/bash/.bashrc`), themselves or one level inside
/// them (`~/.ssh/config -> …`): the targets are credentials and protected paths too, or a
/// command would read or write them under their other name. A target that holds the home or
/// the workspace is left out: it would make them whole a credential. The home is listed once
/// (and the few directories the entries lie in), rather than every entry looked up: this runs
/// at every start.
pub(crate) fn link_targets(home: &str, workspace: &str, credentials: &mut Vec<String>, protected: &mut Vec<String>) {
    use sandbox::policy::{Entry, World};
    // (entry relative to the home, whether it is a credential)
    let entries = scope::HOME_CREDENTIALS
        .iter()
        .map(|e| (*e, true))
        .chain(std::iter::once((".cargo/credentials.toml", true)))
        .chain(scope::STARTUP_FILES.iter().chain(scope::home_protected()).map(|e| (*e, false)));
    use sandbox::policy::join;
    // The directories listed so far, by their path relative to the home.
    let mut listed: Vec<(&str, String, Option<Vec<Entry>>)> = Vec::with_capacity(8);
    let add = |link: &str, into: &mut Vec<String>| {
        if let Ok(target) = exec::canonicalize(link)
            && !scope::is_within(home, &target)
            && !scope::is_within(workspace, &target)
            && !into.contains(&target)
        {
            into.push(target);
        }
    };
    for (entry, credential) in entries {
        let (rel, name) = entry.rsplit_once('/').unwrap_or(("", entry));
        let at = match listed.iter().position(|(r, _, _)| *r == rel) {
            Some(at) => at,
            None => {
                let dir = if rel.is_empty() { home.to_string() } else { join(home, rel) };
                let entries = sandbox::RealWorld.list(&dir);
                listed.push((rel, dir, entries));
                listed.len() - 1
            }
        };
        let (_, dir, entries) = &listed[at];
        let Some(found) = entries.as_ref().and_then(|l| l.iter().find(|e| e.name == name)) else { continue };
        let into = if credential { &mut *credentials } else { &mut *protected };
        let path = join(dir, name);
        if found.link {
            add(&path, into);
        } else if found.dir {
            for inner in sandbox::RealWorld.list(&path).unwrap_or_default() {
                if inner.link {
                    add(&join(&path, &inner.name), into);
                }
            }
        }
    }
}

/// The agents' sessions' sockets are held like credentials: no command reaches another
/// session's proxy (connecting to a socket by path is beyond Landlock). The directory is made
/// now, so that it is masked even when the first proxy comes after this run started. The
/// approvals directory is masked in every mode.
pub(crate) fn hold_sessions(layout: &mut Layout, env: &Environ) {
    #[cfg(target_os = "linux")]
    {
        layout.sessions = sessions_dirs(env, layout);
        layout.extra_credentials.extend(layout.sessions.iter().cloned());
        // The approvals directory is made now, so that it is masked even when the first
        // listener comes after this run started; the home's default one is masked too, where a
        // listener started with another environment listens.
        let var = |name: &str| env.get(name).map(|v| v.to_string_lossy().into_owned());
        let none = |_: &str| None;
        for (i, state) in
            [caches::state_dir(layout.home.as_deref(), &var), caches::state_dir(layout.home.as_deref(), &none)]
                .into_iter()
                .flatten()
                .enumerate()
        {
            let dir = std::path::Path::new(&state).join("approvals");
            // The home's default is most often the environment's own, looked at already.
            if i > 0 && layout.private.iter().any(|p| std::path::Path::new(p) == dir) {
                continue;
            }
            if (i == 0 && crate::approval::make_dir(&dir)) || dir.is_dir() {
                let dir = dir.to_string_lossy().into_owned();
                if !layout.private.contains(&dir) {
                    layout.extra_credentials.push(dir.clone());
                    layout.private.push(dir);
                }
            }
        }
    }
    // The kept directory listings name entries of directories the run may not list, and a run
    // that could write them could mislead the next start: masked in every run, whatever home
    // it was given.
    #[cfg(target_os = "linux")]
    if let Some(state) = crate::sandbox::facts::state_dir() {
        let facts = format!("{state}/{}", crate::sandbox::facts::DIR);
        if std::path::Path::new(&facts).is_dir() && !layout.private.contains(&facts) {
            layout.extra_credentials.push(facts.clone());
            layout.private.push(facts);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (layout, env);
}
