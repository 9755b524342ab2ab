//! The namespace layer's plan: the mount view the command sees. Landlock grants whole trees;
//! the view holds the exceptions inside them. Every mount is read-only except the trees the
//! policy lets write, which are bound back as they were; inside those, persistence points stay
//! read-only; credentials inside readable or writable trees are covered by an empty stand-in
//! that cannot be opened; a tree without execute is mounted `noexec`, so that no loader can map
//! code from it either. Pure data, computed from the policy Landlock gets and a listing of the
//! machine, so that the two layers agree by construction.

use super::policy::{Kind, Policy, Rights, Why, World, join};
use crate::mode::Scope;
use crate::scope::{self, Layout};

/// The script bash will read, frozen: the exact bytes that were analysed, bound read-only over
/// the path bash opens, so that a swap or a script rewriting itself changes nothing.
pub struct Frozen<'a> {
    /// The path as bash will open it (relative to the current directory, or absolute).
    pub path: &'a std::path::Path,
    pub bytes: &'a [u8],
    /// The device and inode the analysis read.
    pub identity: (u64, u64),
    /// The permission bits of the file.
    pub mode: u32,
}

/// How the layer was entered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entered {
    /// The view is in place.
    Held {
        /// A user namespace was needed (the caller may not administer mounts).
        user_namespace: bool,
        /// The script is frozen.
        frozen: bool,
        /// The caches whose layers are mounted.
        layers: Vec<String>,
        /// The caches whose layers the kernel refused, with its answer: they stay as the mode
        /// says.
        unlayered: Vec<String>,
        /// The listings for nested levels are in place of the masked store (see
        /// [`View::listings`]).
        listings: bool,
    },
    /// The kernel gives no namespaces here, for the reason given; nothing was changed.
    Unavailable(String),
}

/// The most directories of the workspace searched for credentials and repositories, breadth
/// first, and how deep below its root. Beyond them the static layer guards what lies deeper (the
/// declaration says so): listing a directory costs a few microseconds, and this runs at every
/// start.
pub const WORKSPACE_DIRS: usize = 64;
pub const WORKSPACE_DEPTH: usize = 3;

/// Directories of the workspace that are not searched: dependency and build trees, large and
/// written by tools, not by people who keep keys.
const UNSEARCHED: &[&str] = &["node_modules", "target", "__pycache__", ".venv", ".tox", ".mypy_cache", ".cache"];

/// The parent directories of every account's home on the machine: each home's credential
/// entries are masked, not only the caller's.
const HOME_ROOTS: &[&str] = &["/home"];

/// A file's device and inode.
pub type Node = (u64, u64);

/// One change to the mount view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Point {
    /// The tree is bound back as it was before the view was made read-only (its own mounts
    /// included), so it is writable where it was.
    Writable { path: String, noexec: bool },
    /// The tree is bound onto itself read-only: a persistence point inside a writable tree, or
    /// a tree that loses execute.
    ReadOnly { path: String, noexec: bool },
    /// The file or directory is covered by an empty stand-in: a file that cannot be opened, a
    /// directory with nothing in it, neither writable. With `node`, the stand-in goes on that
    /// very file (the path must still name it), so that it stays covered wherever it is moved.
    Mask { path: String, dir: bool, node: Option<(u64, u64)> },
    /// A package cache seen through a layer of sandbox-bash's own that takes every write (an
    /// overlay: `lower` is the cache itself when the mode may read it, else an empty
    /// directory). Landlock gets `rights` on it once it is mounted.
    Layer { path: String, lower: String, upper: String, work: String, rights: Rights, noexec: bool },
}

impl Point {
    pub fn path(&self) -> &str {
        match self {
            Point::Writable { path, .. }
            | Point::ReadOnly { path, .. }
            | Point::Mask { path, .. }
            | Point::Layer { path, .. } => path,
        }
    }
}

/// The whole view.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// Every mount is made read-only first (false when the policy writes `/` itself).
    pub read_only_base: bool,
    /// In the order they are applied: a path after every path above it.
    pub points: Vec<Point>,
    /// `/dev/shm` is a tmpfs of the command's own (`noexec` when scratch has no execute).
    pub private_shm: Option<bool>,
    /// `/dev/pts` is a devpts instance of the command's own, `/dev/ptmx` its multiplexer.
    pub private_pts: bool,
    /// `/dev/mqueue` shows the command's own message queues.
    pub private_mqueue: bool,
    /// What the view cannot hold, in plain words.
    pub static_only: Vec<super::StaticOnly>,
    /// The servers' sockets and directories covered (see [`ViewInputs::servers`]).
    pub servers: Vec<String>,
    /// The workspace cannot be listed, so its credentials cannot be found: nothing runs.
    pub unsearchable: Option<String>,
    /// Files made for this run (an agent's snapshot), with the device and inode a writable
    /// bind of them must carry: anything else at the path refuses the run.
    pub exact: Vec<(String, (u64, u64))>,
    /// Files named like credentials left unmasked as project content, with the device and
    /// inode whose content was found in the repository: once the view is built, each path must
    /// still name that file, or the run is refused (something was swapped in meanwhile).
    pub verify: Vec<(String, (u64, u64))>,
    /// The store of kept listings is masked (its path), and nested levels find there instead a
    /// read-only directory holding these listings (see `facts::snapshot`), which Landlock lets
    /// the run read once it is mounted.
    pub listings: Option<(String, Vec<u8>)>,
    /// Beside the listings, the run's word to its nested levels (see `word`): written only
    /// with them.
    pub word: Option<Vec<u8>>,
    /// Persistence points that did not exist at the start (`.git/hooks` in a repository without
    /// one, `.vscode`, `.mcp.json`): no mount can cover a name that is not there, so the
    /// supervisor's watch refuses the calls that would make one (see `outside::watch`). Each
    /// as written, and where it lands when a directory above it is a link.
    pub absent: Vec<String>,
    /// The hooks directory of a repository that did not exist at the start (the workspace's
    /// own `.git/hooks` when it has no `.git`): `git init` may make it, with its samples, but a
    /// hook left in it would run at the next commit outside.
    pub new_hooks: Vec<String>,
}

impl View {
    pub fn masks(&self) -> impl Iterator<Item = &str> {
        self.points.iter().filter(|p| matches!(p, Point::Mask { .. })).map(Point::path)
    }

    pub fn read_only(&self) -> impl Iterator<Item = &str> {
        self.points.iter().filter(|p| matches!(p, Point::ReadOnly { .. })).map(Point::path)
    }

    pub fn writable(&self) -> impl Iterator<Item = &str> {
        self.points.iter().filter(|p| matches!(p, Point::Writable { .. })).map(Point::path)
    }
}

/// What the view is planned from, besides the machine.
pub struct ViewInputs<'a> {
    pub policy: &'a Policy,
    pub layout: &'a Layout,
    /// Agent sockets (`SSH_AUTH_SOCK`, gpg-agent's): credentials whatever Landlock grants,
    /// since connecting to a socket is no file access it checks.
    pub sockets: Vec<String>,
    /// Where servers outside the run listen (every path a unix socket is bound at, found at
    /// the start, less those the run may reach), and the directories that hold nothing else:
    /// see [`super::servers`]. Hidden unless the mode executes on the system.
    pub servers: Vec<Server>,
}

/// A place where a server outside the run listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Server {
    /// One socket.
    Socket(String),
    /// A directory of sockets alone (tmux's, screen's, X11's): hidden whole, so that a socket
    /// its server makes there later is hidden too.
    Directory(String),
}

/// A small file's text, for the `gitdir:` files and git's configuration.
pub trait Reader {
    fn read(&self, path: &str) -> Option<String>;
}

/// Reads through the file system, at most 64 KiB.
pub struct Files;

impl Reader for Files {
    fn read(&self, path: &str) -> Option<String> {
        let bytes = crate::analysis::files::read_regular(std::path::Path::new(path), 64 * 1024).ok()?;
        String::from_utf8(bytes).ok()
    }
}

/// A world whose listings are taken once: the plan asks about the same directories again
/// (a home for each of its credential entries).
struct Listed<'a> {
    world: &'a dyn World,
    seen: std::cell::RefCell<rustc_hash::FxHashMap<String, Option<Vec<super::policy::Entry>>>>,
}

impl World for Listed<'_> {
    fn list(&self, dir: &str) -> Option<Vec<super::policy::Entry>> {
        if let Some(known) = self.seen.borrow().get(dir) {
            return known.clone();
        }
        let listed = self.world.list(dir);
        self.seen.borrow_mut().insert(dir.to_string(), listed.clone());
        listed
    }

    fn canonical(&self, path: &str) -> Option<String> {
        self.world.canonical(path)
    }

    fn is_link(&self, path: &str) -> bool {
        self.world.is_link(path)
    }

    fn exists(&self, path: &str) -> bool {
        self.world.exists(path)
    }

    fn is_dir(&self, path: &str) -> Option<bool> {
        self.world.is_dir(path)
    }
}

/// Plans the view for `inputs` on `world`.
pub fn plan(inputs: &ViewInputs, world: &dyn World, reader: &dyn Reader) -> View {
    let listed = Listed { world, seen: Default::default() };
    let world: &dyn World = &listed;
    let policy = inputs.policy;
    let grants = policy.grants();
    let layout = inputs.layout;
    let system = Rights::of(policy.mode, Scope::System);
    let mut view = View::default();

    // The trees Landlock lets write, outermost only. Devices need no writable mount (a device
    // node is written on a read-only mount too), nor does a standard stream, which is open
    // already; `/dev/pts` and `/dev/shm` get mounts of their own.
    let mut writable: Vec<(&str, bool)> = Vec::new();
    let mut rules: Vec<_> = policy
        .paths
        .iter()
        .filter(|r| r.rights.contains(Rights::WRITE))
        .filter(|r| r.why != Why::StandardStream && !matches!(r.path.as_str(), "/dev/pts" | "/dev/shm"))
        .filter(|r| !(r.kind == Kind::File && r.path.starts_with("/dev/")))
        .collect();
    rules.sort_by(|a, b| order(&a.path, &b.path));
    for r in rules {
        if writable.iter().any(|(w, _)| scope::is_within(&r.path, w)) {
            continue;
        }
        writable.push((&r.path, !grants.of(&r.path).contains(Rights::EXECUTE)));
    }
    view.read_only_base = !writable.iter().any(|(w, _)| *w == "/");
    view.exact = policy.paths.iter().filter_map(|r| r.node.map(|n| (r.path.clone(), n))).collect();
    let in_writable = |p: &str| writable.iter().any(|(w, _)| scope::is_within(p, w));
    if view.read_only_base {
        for &(w, noexec) in &writable {
            if world.exists(w) {
                view.points.push(Point::Writable { path: w.to_string(), noexec });
            }
        }
    }

    // The workspace: read-only when the mode does not let it write though a tree around it
    // does (a checkout under /tmp), and without execute when the mode does not let it run.
    // The mode's own workspace bits decide, not what a tree around it grants.
    let w = layout.workspace.as_str();
    let ws_mode = Rights::of(policy.mode, Scope::Workspace);
    let ws_rights = grants.of(w);
    let ws_noexec = !ws_mode.contains(Rights::EXECUTE);
    match view.points.iter_mut().find(|p| p.path() == w) {
        Some(Point::Writable { noexec, .. }) => *noexec |= ws_noexec,
        Some(_) => {}
        None if ((!ws_mode.contains(Rights::WRITE) && in_writable(w)) || ws_noexec) && world.exists(w) => {
            view.points.push(Point::ReadOnly { path: w.to_string(), noexec: ws_noexec });
        }
        None => {}
    }
    // Whether the view lets `p` be written: the innermost point above it decides.
    let ws_read_only = !ws_mode.contains(Rights::WRITE) && in_writable(w);
    let view_writes = |p: &str| in_writable(p) && !(ws_read_only && scope::is_within(p, w));

    // What the workspace holds: credentials by name, repositories with their hooks and
    // configuration.
    let mut found = Found::default();
    // A workspace that is not there (the stand-in for a start in the home, where it cannot be
    // made) holds nothing to search.
    // The mode's own workspace bits count as well as what the rules grant the workspace itself: a
    // workspace that holds a private directory (a state directory placed in it) is granted entry
    // by entry, and its own rule then only lists it.
    let searched = [ws_rights, ws_mode].iter().any(|r| r.contains(Rights::READ) || r.contains(Rights::WRITE));
    if searched && world.exists(w) {
        search_workspace(layout, world, reader, &mut found);
        if found.unsearchable {
            view.unsearchable = Some(w.to_string());
        }
        if found.blind > 0 {
            view.static_only.push(super::StaticOnly::View(format!(
                "{} directories of the workspace cannot be listed: what they hold is unknown, so they are masked whole",
                found.blind
            )));
        }
        if found.truncated {
            view.static_only.push(super::StaticOnly::View(format!(
                "the namespace layer searches the workspace's first {WORKSPACE_DIRS} directories, at most \
                 {WORKSPACE_DEPTH} levels deep: credential files and repositories beyond them are guarded by the \
                 static layer only"
            )));
        }
    }

    // Persistence points: where a write runs code later. Kept read-only inside writable trees
    // unless the mode writes the system. A plain program's relaxations (see `crate::plain`)
    // leave out the configuration files it writes with keys that run no program, and the
    // repositories inside trees it deletes before anything else runs.
    let relaxed = &layout.relaxed;
    let lifted =
        |p: &str| relaxed.config.iter().any(|c| c == p) || relaxed.deleted.iter().any(|t| scope::is_within(p, t));
    found.protected.retain(|p| !lifted(p));
    found.repositories.retain(|r| !relaxed.deleted.iter().any(|t| scope::is_within(r, t)));
    if !system.contains(Rights::WRITE) {
        let mut protected: Vec<String> = found.protected.clone();
        if let Some(home) = layout.home.as_deref().filter(|h| *h != "/") {
            for name in scope::STARTUP_FILES.iter().chain(scope::home_protected()) {
                protected.push(join(home, name));
            }
        }
        if w != "/" {
            for name in scope::project_settings() {
                protected.push(join(w, name));
            }
            // A client's directory is kept read-only itself, its other entries bound back.
            for holder in scope::project_holders() {
                let dir = join(w, holder);
                if view_writes(&dir) && world.is_dir(&dir) == Some(true) && !world.is_link(&dir) {
                    view.points.push(Point::ReadOnly { path: dir.clone(), noexec: false });
                    for e in world.list(&dir).unwrap_or_default() {
                        let p = join(&dir, &e.name);
                        if e.link || layout.is_protected(&p) || layout.is_credential(&p) {
                            continue;
                        }
                        let noexec = !grants.of(&p).contains(Rights::EXECUTE) || ws_noexec;
                        view.points.push(Point::Writable { path: p, noexec });
                    }
                }
            }
        }
        protected.extend(layout.extra_protected.iter().cloned());
        // A home inside a writable tree (a CI job's HOME under /tmp): its start-up and settings
        // files may not exist yet, and a path that does not exist cannot be mounted over. The
        // home is kept read-only and its other entries bound back writable, as the rules do for
        // a home the external bits let write.
        if let Some(home) = layout.home.as_deref().filter(|h| *h != "/")
            && view_writes(home)
            && !writable.iter().any(|(p, _)| *p == home)
            && !scope::is_within(w, home)
            && !scope::is_within(home, w)
        {
            pin_home(home, home, layout, &grants, world, 0, &mut view.points);
            view.static_only.push(super::StaticOnly::View(format!(
                "the home directory {home} lies in a writable tree: it and the directories holding its settings are \
                 kept read-only, their other entries writable, so nothing new can be created directly in them"
            )));
        }
        let mut linked = false;
        if w != "/" && !world.exists(&join(w, ".git")) {
            view.new_hooks.push(join(w, ".git/hooks"));
        }
        // Where each directory holding points really is, looked up once.
        let mut real_dirs: std::collections::HashMap<String, Option<String>> = std::collections::HashMap::new();
        for p in protected {
            if !world.exists(&p) {
                if let Some((dir, name)) = p.rsplit_once('/') {
                    let real = real_dirs
                        .entry(dir.to_string())
                        .or_insert_with(|| {
                            world.exists(dir).then(|| world.canonical(dir)).flatten().filter(|r| r != dir)
                        })
                        .clone();
                    if let Some(real) = real {
                        view.absent.push(join(&real, name));
                    }
                }
                view.absent.push(p);
                continue;
            }
            // A link at a persistence point (`.git/hooks` → `../githooks`) or on the way to one
            // (`~/.claude` → `dotfiles/claude`): what it leads to is kept read-only, at the
            // place the mount really lands (so that it sorts below a writable bind of that
            // place, not before it); a link itself cannot be mounted over.
            let p = match world.canonical(&p) {
                Some(target) if target == p => p,
                Some(target) if !scope::is_system_path(&target) => {
                    linked = true;
                    target
                }
                _ => continue,
            };
            if view_writes(&p) {
                view.points.push(Point::ReadOnly { path: p, noexec: false });
            }
        }
        if linked {
            view.static_only.push(super::StaticOnly::View(
                "a persistence point that is a symbolic link, or is reached through one, is kept read-only where it \
                 leads; the link itself can be replaced, which the static layer guards"
                    .into(),
            ));
        }
        // A repository's `.git` is pinned where it is: renaming it away and putting another in
        // its place would leave the read-only hooks behind.
        for git in &found.repositories {
            if view_writes(git) {
                let noexec = !grants.of(git).contains(Rights::EXECUTE) || (ws_noexec && scope::is_within(git, w));
                view.points.push(Point::Writable { path: git.clone(), noexec });
            }
        }
    }

    // The package caches, each through a layer of sandbox-bash's own that takes this run's
    // writes (the layout lists them only when the mode writes the workspace but not the
    // system): with the workspace's rights, and the cache itself beneath when the mode may
    // read it.
    for cache in &layout.caches {
        if !world.exists(&cache.path) {
            continue;
        }
        let lower = if grants.of(&cache.path).contains(Rights::READ) { &cache.path } else { &cache.empty };
        view.points.push(Point::Layer {
            path: cache.path.clone(),
            lower: lower.clone(),
            upper: cache.upper.clone(),
            work: cache.work.clone(),
            rights: ws_mode,
            noexec: ws_noexec,
        });
    }

    // Credentials inside trees Landlock lets read or write, unless the mode reads the system.
    if !system.contains(Rights::READ) {
        let mut credentials: Vec<(String, Option<bool>, Option<Node>)> = Vec::new();
        let mut homes: Vec<String> = Vec::new();
        if let Some(home) = layout.home.as_deref().filter(|h| *h != "/") {
            homes.push(home.to_string());
        }
        homes.push("/root".to_string());
        for root in HOME_ROOTS {
            for e in world.list(root).unwrap_or_default() {
                if e.dir && !e.link {
                    homes.push(join(root, &e.name));
                }
            }
        }
        homes.sort();
        homes.dedup();
        for home in &homes {
            for entry in scope::HOME_CREDENTIALS {
                credentials.push((join(home, entry), None, None));
            }
            let cargo = join(home, ".cargo");
            if grants.of(&cargo).contains(Rights::READ) {
                for e in world.list(&cargo).unwrap_or_default() {
                    if !e.link && e.name.starts_with("credentials") {
                        credentials.push((join(&cargo, &e.name), Some(e.dir), None));
                    }
                }
            }
        }
        credentials.extend(layout.extra_credentials.iter().map(|c| (c.clone(), None, None)));
        credentials.extend(found.credentials.iter().map(|(p, dir, node)| (p.clone(), Some(*dir), *node)));
        for (path, dir, node) in credentials {
            // A credential name that is a link (`.env` → a file elsewhere) is masked where it
            // leads: a mount cannot cover the link itself.
            let (path, dir, node) = if world.is_link(&path) {
                match world.canonical(&path) {
                    // Never a system path: a link planted to one would hide what every program
                    // needs (and the system is not readable that way without system read).
                    Some(target) if !scope::is_system_path(&target) => (target, None, None),
                    _ => continue,
                }
            } else {
                (path, dir, node)
            };
            let granted = grants.of(&path);
            if !(granted.contains(Rights::READ) || granted.contains(Rights::WRITE) || in_writable(&path)) {
                continue;
            }
            let Some(dir) = dir.or_else(|| world.is_dir(&path)) else { continue };
            view.points.push(Point::Mask { path, dir, node });
        }
        for socket in &inputs.sockets {
            if world.exists(socket) && !world.is_link(socket) {
                view.points.push(Point::Mask { path: socket.clone(), dir: false, node: None });
            }
        }
        // Whether Landlock lets them be read or not: a socket is reached by its path alone.
        for dir in &layout.sessions {
            if world.is_dir(dir) == Some(true) && !world.is_link(dir) {
                view.points.push(Point::Mask { path: dir.clone(), dir: true, node: None });
            }
        }
        view.verify = found.exempt.clone();
        view.static_only.push(super::StaticOnly::View(
            "a credential file created after the command started (a new .env, a key written by it), or one the \
             workspace search does not reach (moved deeper, past its first directories, or under a name that is \
             not UTF-8), is not masked: the static layer guards it"
                .into(),
        ));
    } else if !system.contains(Rights::WRITE) {
        // Credentials may be read but not written: inside a writable tree they stay read-only.
        for (path, _, _) in &found.credentials {
            if view_writes(path) {
                view.points.push(Point::ReadOnly { path: path.clone(), noexec: false });
            }
        }
    }
    // Servers outside: connecting to a socket is no file access Landlock checks, and what a
    // server does for a client (tmux's run-shell, an engine's container, the session bus's
    // units) happens outside every rule here. Below system execute, every socket bound when
    // the run starts is covered, so that connecting gives ECONNREFUSED.
    if !system.contains(Rights::EXECUTE) {
        for server in &inputs.servers {
            let (path, dir) = match server {
                Server::Socket(p) => (p, false),
                Server::Directory(p) => (p, true),
            };
            if world.exists(path) && !world.is_link(path) {
                view.points.push(Point::Mask { path: path.clone(), dir, node: None });
                view.servers.push(path.clone());
            }
        }
        view.static_only.push(super::StaticOnly::Server(
            "a server's unix socket bound after the command started (a server started or restarted later, in a \
             directory that holds other files), bound in another network namespace, bound by a relative path, \
             renamed or linked outside the scratch trees or deeper in them, or at a path that is not UTF-8 or \
             holds a newline, is not hidden: the static layer guards it"
                .into(),
        ));
    }
    if !found.repositories.is_empty() || !system.contains(Rights::WRITE) {
        view.static_only.push(super::StaticOnly::View(
            "a repository, hook or settings file created after the command started (a new .git/commondir, a \
             .git/hooks where there was none) is refused by the supervisor where it watches the run (a program \
             the analysis cannot see whole, an archive, a copy, git), and by the static layer otherwise"
                .into(),
        ));
    }

    // A point inside a writable tree holds only while the directories above it keep their
    // names: renamed away with the point inside, a new directory in its place takes what the
    // command writes (a new include file, a new hooks directory). Each directory between the
    // writable tree's root and a read-only point or a pinned `.git` is bound onto itself, so it
    // cannot be renamed (EBUSY) and stays writable. Trees a plain program deletes first are left
    // alone.
    let mut pins: Vec<String> = Vec::new();
    for point in &view.points {
        let path = match point {
            Point::ReadOnly { path, .. } => path,
            Point::Writable { path, .. } if found.repositories.contains(path) => path,
            _ => continue,
        };
        let Some(root) = writable.iter().map(|(w, _)| *w).filter(|w| scope::is_within(path, w)).max_by_key(|w| w.len())
        else {
            continue;
        };
        let mut dir = path.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        while dir.len() > root.len() && scope::is_within(&dir, root) {
            if !pins.contains(&dir) && !relaxed.deleted.iter().any(|t| scope::is_within(&dir, t)) {
                pins.push(dir.clone());
            }
            dir = dir.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        }
    }
    for dir in pins {
        if view.points.iter().any(|p| p.path() == dir) || world.is_dir(&dir) != Some(true) || world.is_link(&dir) {
            continue;
        }
        let noexec = !grants.of(&dir).contains(Rights::EXECUTE) || (ws_noexec && scope::is_within(&dir, w));
        view.points.push(Point::Writable { path: dir, noexec });
    }

    // One point per path, in order: parents first, the first reason kept (a writable bind
    // before what is read-only or masked below it).
    view.points.sort_by(|a, b| order(a.path(), b.path()).then(rank(a).cmp(&rank(b))));
    view.points.dedup_by(|b, a| a.path() == b.path());
    // A path below a mask is hidden by it already.
    let mut kept: Vec<Point> = Vec::with_capacity(view.points.len());
    for p in std::mem::take(&mut view.points) {
        if kept.iter().any(|k| matches!(k, Point::Mask { .. }) && scope::is_within(p.path(), k.path())) {
            continue;
        }
        kept.push(p);
    }
    view.points = kept;
    // sandbox-bash's own private state (the approvals listeners' sockets and what they
    // remember) in every mode, and the agent sessions' sockets wherever credentials are masked:
    // masked whatever the mode lets read or write there, a writable bind of the same tree
    // included (a mode with system write grants write on credential paths).
    let sessions = layout.sessions.iter().filter(|_| !system.contains(Rights::READ));
    for dir in layout.private.iter().chain(sessions) {
        if world.is_dir(dir) == Some(true) && !world.is_link(dir) {
            view.points.retain(|p| !scope::is_within(p.path(), dir));
            view.points.push(Point::Mask { path: dir.clone(), dir: true, node: None });
        }
    }
    view.points.sort_by(|a, b| order(a.path(), b.path()).then(rank(a).cmp(&rank(b))));

    let scratch_noexec = !policy.new_code;
    // A directory of its own only where there is one: a link (`/dev/shm` → `/run/shm` on some
    // systems) cannot be mounted over, and what it leads to is the rules' business.
    let own_dir = |p: &str| world.is_dir(p) == Some(true);
    if own_dir("/dev/shm") {
        view.private_shm = Some(scratch_noexec);
    }
    view.private_pts = own_dir("/dev/pts");
    view.private_mqueue = own_dir("/dev/mqueue");
    view
}

/// Keeps `dir` (the home, or a directory in it holding protected files) read-only and binds
/// back writable each entry that is neither protected nor a credential, entering those that
/// hold protected files.
fn pin_home(
    dir: &str,
    home: &str,
    layout: &Layout,
    grants: &super::policy::Grants,
    world: &dyn World,
    depth: usize,
    points: &mut Vec<Point>,
) {
    points.push(Point::ReadOnly { path: dir.to_string(), noexec: false });
    let Some(entries) = world.list(dir) else { return };
    let rest_of = |p: &str| p.strip_prefix(home).and_then(|r| r.strip_prefix('/')).unwrap_or("").to_string();
    for e in entries {
        let p = join(dir, &e.name);
        if e.link || layout.is_protected(&p) || layout.is_credential(&p) {
            continue;
        }
        let rest = rest_of(&p);
        let holds = e.dir
            && (scope::HOME_PROTECTED_HOLDERS.contains(&rest.as_str())
                || scope::STARTUP_FILES
                    .iter()
                    .chain(scope::home_protected())
                    .chain(scope::HOME_CREDENTIALS)
                    .any(|c| c.strip_prefix(rest.as_str()).is_some_and(|after| after.starts_with('/'))));
        if holds && depth < 3 {
            pin_home(&p, home, layout, grants, world, depth + 1, points);
        } else {
            let noexec = !grants.of(&p).contains(Rights::EXECUTE);
            points.push(Point::Writable { path: p, noexec });
        }
    }
}

/// Which point of one path is kept: a cache's layer over anything else there (a home's entry
/// bound back writable must not make the cache itself writable), then a writable bind over
/// what is read-only or masked.
fn rank(p: &Point) -> u8 {
    match p {
        Point::Layer { .. } => 0,
        Point::Writable { .. } => 1,
        Point::ReadOnly { .. } => 2,
        Point::Mask { .. } => 3,
    }
}

/// Paths in tree order: a directory before everything in it. That is the order of their
/// components, one by one, which is the order of their bytes with `/` taken as the least of
/// them (no path holds a NUL): compared so, with no component split out (planning sorts some
/// two hundred paths three times).
fn order(a: &str, b: &str) -> std::cmp::Ordering {
    let key = |c: u8| if c == b'/' { 0 } else { c };
    a.bytes().map(key).cmp(b.bytes().map(key))
}

#[derive(Default)]
struct Found {
    /// Credentials: the path, whether it is a directory, and its device and inode when known.
    credentials: Vec<(String, bool, Option<Node>)>,
    /// Files named like credentials that are project content, with the node that was hashed.
    exempt: Vec<(String, (u64, u64))>,
    /// The `.git` directories of the repositories found.
    repositories: Vec<String>,
    /// Their hooks and configuration, and the hooks directories their configuration names.
    protected: Vec<String>,
    truncated: bool,
    /// The workspace itself cannot be listed (its owner took away read).
    unsearchable: bool,
    /// Directories of it that cannot be listed: masked whole, since what they hold is unknown.
    blind: usize,
}

/// Searches the workspace breadth first for credential names and repositories.
fn search_workspace(layout: &Layout, world: &dyn World, reader: &dyn Reader, found: &mut Found) {
    let home = layout.home.as_deref();
    let mut queue = std::collections::VecDeque::from([(layout.workspace.clone(), 0usize)]);
    let mut searched = 0usize;
    while let Some((dir, depth)) = queue.pop_front() {
        if searched == WORKSPACE_DIRS {
            found.truncated = true;
            return;
        }
        searched += 1;
        let Some(entries) = world.list(&dir) else {
            // Its files can still be reached by name when it keeps execute: what it holds is
            // unknown, so it is masked whole (the workspace itself cannot be, and is refused).
            if dir == layout.workspace {
                found.unsearchable = true;
            } else if world.exists(&dir) {
                let node = world.node(&dir);
                found.credentials.push((dir, true, node));
                found.blind += 1;
            }
            continue;
        };
        for e in entries {
            let p = join(&dir, &e.name);
            if e.link {
                // Not followed; a credential name is masked where it leads.
                if layout.is_credential(&p) {
                    found.credentials.push((p.clone(), false, None));
                }
                // A `.git` that is a link: the repository is where it leads (the link itself
                // can be replaced, which the static layer guards).
                if e.name == ".git"
                    && let Some(target) = world.canonical(&p)
                    && world.is_dir(&target) == Some(true)
                    && !scope::is_system_path(&target)
                {
                    repository(&target, &dir, home, world, reader, found);
                }
                continue;
            }
            if e.name == ".git" {
                if e.dir {
                    repository(&p, &dir, home, world, reader, found);
                    continue;
                }
                // The file itself is a persistence point too: rewritten or renamed away, it
                // would name a directory with hooks of the command's choosing.
                found.protected.push(p.clone());
                if let Some(gitdir) = gitdir_file(&p, &dir, reader) {
                    // A worktree's or submodule's `.git` file names its directory.
                    if world.exists(&gitdir) && !found.repositories.contains(&gitdir) {
                        repository(&gitdir, &dir, home, world, reader, found);
                    }
                }
                continue;
            }
            // The one rule both layers use: a credential by name, unless it is project content.
            if layout.is_credential(&p) {
                // Bound to the file whose content was judged, when it was.
                let node = layout.committed_node(&p).or_else(|| world.node(&p));
                found.credentials.push((p, e.dir, node));
                continue;
            }
            if layout.named_credential(&p) {
                // Project content: a committed file is checked again once the view is built; a
                // directory holding committed files is walked whole, apart from the search's
                // bounds, and masked whole when it cannot be.
                if !e.dir {
                    match layout.committed_node(&p) {
                        Some(node) => found.exempt.push((p, node)),
                        None => found.credentials.push((p.clone(), false, world.node(&p))),
                    }
                } else if !credential_dir(&p, layout, world, found) {
                    let node = world.node(&p);
                    found.credentials.push((p, true, node));
                }
                continue;
            }
            if e.dir && !UNSEARCHED.contains(&e.name.as_str()) {
                if depth == WORKSPACE_DEPTH {
                    found.truncated = true;
                } else {
                    queue.push_back((p, depth + 1));
                }
            }
        }
    }
}

/// How many entries of a credential-named directory that holds committed files are looked at
/// (all its levels together): one that holds more is masked whole.
const CREDENTIAL_DIR_ENTRIES: usize = 512;

/// Walks the credential-named directory `dir` (it holds project content) whole: each committed
/// file to be checked again, every other entry masked. `false` when it cannot be walked whole
/// (too many entries, too deep, or a directory that cannot be listed): then it is masked whole,
/// and nothing found in it is kept.
fn credential_dir(dir: &str, layout: &Layout, world: &dyn World, found: &mut Found) -> bool {
    let mut credentials = Vec::new();
    let mut exempt = Vec::new();
    let mut budget = CREDENTIAL_DIR_ENTRIES;
    let mut stack = vec![(dir.to_string(), 0usize)];
    while let Some((d, depth)) = stack.pop() {
        let Some(entries) = world.list(&d) else { return false };
        for e in entries {
            if budget == 0 || depth > 8 {
                return false;
            }
            budget -= 1;
            let p = join(&d, &e.name);
            if e.link {
                credentials.push((p, false, None));
            } else if !layout.is_credential(&p) && !e.dir {
                match layout.committed_node(&p) {
                    Some(node) => exempt.push((p, node)),
                    None => credentials.push((p.clone(), false, world.node(&p))),
                }
            } else if !layout.is_credential(&p) {
                stack.push((p, depth + 1));
            } else {
                let node = layout.committed_node(&p).or_else(|| world.node(&p));
                credentials.push((p, e.dir, node));
            }
        }
    }
    found.credentials.extend(credentials);
    found.exempt.extend(exempt);
    true
}

/// The directory a `.git` file names (`gitdir: …`), relative to the directory it lies in.
fn gitdir_file(path: &str, dir: &str, reader: &dyn Reader) -> Option<String> {
    let text = reader.read(path)?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    (!target.is_empty()).then(|| scope::normalize(dir, target))
}

/// Records a repository's git directory, its hooks and configuration (a worktree's own
/// configuration and the common directory it shares included), its submodules' repositories,
/// and the hooks directory its configuration names.
fn repository(
    git: &str,
    work_tree: &str,
    home: Option<&str>,
    world: &dyn World,
    reader: &dyn Reader,
    found: &mut Found,
) {
    if found.repositories.iter().any(|r| r == git) || found.repositories.len() > 256 {
        return;
    }
    found.repositories.push(git.to_string());
    // `commondir` too: a worktree's names the directory whose hooks and configuration git
    // uses, and rewritten it would name one of the command's making.
    for name in ["hooks", "config", "config.worktree", "commondir"] {
        found.protected.push(join(git, name));
    }
    if let Some(common) = reader.read(&join(git, "commondir")) {
        let common = scope::normalize(git, common.trim());
        if world.exists(&common) {
            repository(&common, work_tree, home, world, reader, found);
        }
    }
    // The files its configuration includes, and the hooks directory it names (husky's
    // `.husky/_` runs the scripts in `.husky`, so the directory above it counts too).
    let read = |p: &str| reader.read(p);
    for config in ["config", "config.worktree"] {
        let (includes, hooks) = crate::plain::git_config_closure(&join(git, config), home, &read);
        found.protected.extend(includes);
        for value in hooks {
            found.protected.extend(crate::plain::hooks_dirs(&value, work_tree, home));
        }
    }
    // A linked worktree's own directory (`.git/worktrees/NAME`): its `commondir` and `gitdir`
    // say which repository and work tree git uses there.
    for e in world.list(&join(git, "worktrees")).unwrap_or_default() {
        if e.dir && !e.link {
            let own = join(&join(git, "worktrees"), &e.name);
            for name in ["commondir", "gitdir", "config.worktree", "hooks"] {
                found.protected.push(join(&own, name));
            }
        }
    }
    let modules = join(git, "modules");
    let mut stack = vec![modules];
    while let Some(dir) = stack.pop() {
        for e in world.list(&dir).unwrap_or_default() {
            if !e.dir || e.link {
                continue;
            }
            let p = join(&dir, &e.name);
            if world.exists(&join(&p, "HEAD")) {
                repository(&p, work_tree, home, world, reader, found);
            } else if stack.len() < 64 {
                stack.push(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mode::Mode;
    use crate::sandbox::policy::{Entry, Inputs, plan as plan_policy};
    use std::collections::BTreeMap;

    /// Comparing bytes with `/` as the least orders paths as comparing their components does,
    /// for names with bytes below and above `/` (`-`, `.`, a space, `0`), empty components and
    /// names that are prefixes of one another.
    #[test]
    fn tree_order_is_the_order_of_components() {
        let names = ["", "a", "a-b", "a.b", "a b", "a0", "ab", "b", "é"];
        let mut paths: Vec<String> = vec!["/".into(), "//".into()];
        for x in names {
            for y in names {
                paths.push(format!("/{x}"));
                paths.push(format!("/{x}/{y}"));
                paths.push(format!("/{x}//{y}"));
                paths.push(format!("/{x}/{y}/"));
            }
        }
        for a in &paths {
            for b in &paths {
                assert_eq!(order(a, b), a.split('/').cmp(b.split('/')), "{a:?} {b:?}");
            }
        }
    }

    /// A machine of listings: a name ending in `/` is a directory, in `@` a link.
    struct Fake {
        dirs: BTreeMap<&'static str, Vec<&'static str>>,
        files: BTreeMap<&'static str, &'static str>,
    }

    impl World for Fake {
        fn list(&self, dir: &str) -> Option<Vec<Entry>> {
            let names = self.dirs.get(dir)?;
            Some(
                names
                    .iter()
                    .map(|n| {
                        let (name, link, is_dir) = if let Some(n) = n.strip_suffix('@') {
                            (n, true, false)
                        } else if let Some(n) = n.strip_suffix('/') {
                            (n, false, true)
                        } else {
                            (*n, false, false)
                        };
                        Entry { name: name.to_string(), link, dir: is_dir, special: false }
                    })
                    .collect(),
            )
        }
        fn canonical(&self, path: &str) -> Option<String> {
            Some(path.to_string())
        }
        fn is_link(&self, _path: &str) -> bool {
            false
        }
    }

    impl Reader for Fake {
        fn read(&self, path: &str) -> Option<String> {
            self.files.get(path).map(|t| t.to_string())
        }
    }

    fn machine() -> Fake {
        let mut dirs = BTreeMap::new();
        dirs.insert("/", vec!["usr/", "etc/", "home/", "root/", "tmp/", "srv/", "dev/"]);
        dirs.insert("/home", vec!["u/", "bob/"]);
        dirs.insert("/home/u", vec![".ssh/", ".bashrc", ".gitconfig", "proj/"]);
        dirs.insert("/home/bob", vec![".ssh/", ".aws/", "notes"]);
        dirs.insert("/root", vec![".ssh/", ".bashrc"]);
        dirs.insert("/home/u/proj", vec![".git/", ".env", "src/", "deploy/", "node_modules/", "vendored/", "notes@"]);
        dirs.insert("/home/u/proj/.git", vec!["hooks/", "config", "HEAD", "modules/"]);
        dirs.insert("/home/u/proj/.git/modules", vec!["lib/"]);
        dirs.insert("/home/u/proj/.git/modules/lib", vec!["hooks/", "config", "HEAD"]);
        dirs.insert("/home/u/proj/src", vec!["main.rs", "secrets/"]);
        dirs.insert("/home/u/proj/deploy", vec!["deploy.key", "run.sh"]);
        dirs.insert("/home/u/proj/node_modules", vec!["x/"]);
        dirs.insert("/home/u/proj/node_modules/x", vec!["token.json"]);
        dirs.insert("/home/u/proj/vendored", vec!["lib/", ".githooks/"]);
        dirs.insert("/home/u/proj/vendored/lib", vec![".git", "README"]);
        dirs.insert("/home/u/proj/vendored/.githooks", vec!["pre-commit"]);
        dirs.insert("/tmp", vec!["ci/"]);
        dirs.insert("/tmp/ci", vec![".git/", ".env"]);
        dirs.insert("/tmp/ci/.git", vec!["hooks/", "config", "HEAD"]);
        dirs.insert("/dev", vec!["shm/", "pts/"]);
        dirs.insert("/dev/shm", vec![]);
        dirs.insert("/dev/pts", vec!["ptmx"]);
        let mut files = BTreeMap::new();
        files.insert("/home/u/proj/vendored/lib/.git", "gitdir: ../../.git/modules/lib\n");
        files.insert("/home/u/proj/.git/config", "[core]\n\tbare = false\n[Core]\n\thooksPath = vendored/.githooks\n");
        Fake { dirs, files }
    }

    fn view_at(mode: u16, workspace: &str) -> View {
        let m = machine();
        let layout = Layout { workspace: workspace.into(), home: Some("/home/u".into()), ..Default::default() };
        view_for(&m, mode, &layout, vec!["/home/u/.ssh/agent.sock".into()])
    }

    /// The view of `mode` for `layout` on `m`.
    fn view_for(m: &Fake, mode: u16, layout: &Layout, sockets: Vec<String>) -> View {
        view_with(m, mode, layout, sockets, Vec::new())
    }

    /// The view of `mode` for `layout` on `m`, with these servers outside.
    fn view_with(m: &Fake, mode: u16, layout: &Layout, sockets: Vec<String>, servers: Vec<Server>) -> View {
        let inputs = Inputs {
            mode: Mode(mode),
            layout,
            path_var: None,
            real_bash: "/usr/bin/bash",
            self_exe: None,
            standard_files: [None, None, None],
            nested: false,
            extra: Default::default(),
        };
        let policy = plan_policy(&inputs, m);
        plan(&ViewInputs { policy: &policy, layout, sockets, servers }, m, m)
    }

    fn view(mode: u16) -> View {
        view_at(mode, "/home/u/proj")
    }

    fn has(v: &View, p: Point) -> bool {
        v.points.contains(&p)
    }

    fn writable(path: &str, noexec: bool) -> Point {
        Point::Writable { path: path.into(), noexec }
    }

    fn read_only(path: &str, noexec: bool) -> Point {
        Point::ReadOnly { path: path.into(), noexec }
    }

    fn mask(path: &str, dir: bool) -> Point {
        Point::Mask { path: path.into(), dir, node: None }
    }

    /// What a repository's configuration points at is kept read-only: the files it includes
    /// (and what they include), husky's hooks directory and the directory above it, and each
    /// linked worktree's own `commondir` and `gitdir`.
    #[test]
    fn includes_husky_and_worktrees_are_persistence_points() {
        let mut m = machine();
        m.files.insert(
            "/home/u/proj/.git/config",
            "[core]\n\thooksPath = .husky/_\n[include]\n\tpath = ../team.gitconfig\n",
        );
        m.files.insert("/home/u/proj/team.gitconfig", "[includeIf \"gitdir:/\"]\n\tpath = ~/.more.inc\n");
        m.dirs.insert("/home/u/proj/.git", vec!["hooks/", "config", "HEAD", "modules/", "worktrees/"]);
        m.dirs.insert("/home/u/proj/.git/worktrees", vec!["wt/"]);
        m.dirs.insert("/home/u/proj/.git/worktrees/wt", vec!["commondir", "gitdir", "HEAD"]);
        m.dirs.insert("/home/u/proj", vec![".git/", ".env", "src/", ".husky/", "team.gitconfig"]);
        m.dirs.insert("/home/u/proj/.husky", vec!["_/", "pre-commit"]);
        m.dirs.insert("/home/u/proj/.husky/_", vec!["pre-commit"]);
        m.dirs.insert("/home/u", vec![".ssh/", ".bashrc", ".gitconfig", "proj/", ".more.inc"]);
        let layout = Layout { workspace: "/home/u/proj".into(), home: Some("/home/u".into()), ..Default::default() };
        let v = view_for(&m, 0o0467, &layout, vec![]);
        for p in [
            "/home/u/proj/team.gitconfig",
            "/home/u/proj/.husky",
            "/home/u/proj/.git/worktrees/wt/commondir",
            "/home/u/proj/.git/worktrees/wt/gitdir",
        ] {
            assert!(has(&v, read_only(p, false)), "{p}: {:?}", v.points);
        }
        // Outside the trees the mode writes, nothing needs pinning.
        assert!(!v.points.iter().any(|p| p.path() == "/home/u/.more.inc"), "{:?}", v.points);
    }

    /// The directories between a writable tree and a point kept read-only inside it are bound
    /// onto themselves: none can be renamed away with the point inside and replaced.
    #[test]
    fn the_directories_above_a_read_only_point_cannot_be_renamed() {
        let mut m = machine();
        m.files.insert("/home/u/proj/.git/config", "[core]\n\thooksPath = tools/git/hooks\n");
        m.dirs.insert("/home/u/proj", vec![".git/", "src/", "tools/"]);
        m.dirs.insert("/home/u/proj/tools", vec!["git/"]);
        m.dirs.insert("/home/u/proj/tools/git", vec!["hooks/"]);
        m.dirs.insert("/home/u/proj/tools/git/hooks", vec!["pre-commit"]);
        let layout = Layout { workspace: "/home/u/proj".into(), home: Some("/home/u".into()), ..Default::default() };
        let v = view_for(&m, 0o0467, &layout, vec![]);
        assert!(has(&v, read_only("/home/u/proj/tools/git/hooks", false)), "{v:#?}");
        for p in ["/home/u/proj/tools", "/home/u/proj/tools/git"] {
            assert!(has(&v, writable(p, false)), "{p}: {v:#?}");
        }
        assert!(!v.points.iter().any(|p| p.path() == "/home/u/proj/src"), "{v:#?}");
    }

    /// Servers' sockets are covered below system execute, whatever else the mode grants, and
    /// left alone at system execute.
    #[test]
    fn servers_sockets_are_covered_below_system_execute() {
        let m = machine();
        let layout = Layout { workspace: "/home/u/proj".into(), home: Some("/home/u".into()), ..Default::default() };
        let servers = vec![Server::Directory("/tmp/ci".into()), Server::Socket("/home/bob/notes".into())];
        for (mode, covered) in [(0o0467, true), (0o0777, true), (0o6777, true), (0o1467, false), (0o7777, false)] {
            let v = view_with(&m, mode, &layout, vec![], servers.clone());
            assert_eq!(has(&v, mask("/tmp/ci", true)), covered, "{mode:o}: {:?}", v.points);
            assert_eq!(has(&v, mask("/home/bob/notes", false)), covered, "{mode:o}");
        }
    }

    #[test]
    fn the_default_mode_binds_back_what_it_writes_and_keeps_the_exceptions() {
        let v = view(0o0467);
        assert!(v.read_only_base);
        assert!(has(&v, writable("/tmp", false)));
        assert!(has(&v, writable("/home/u/proj", false)));
        // Every repository's hooks and configuration, the hooks directory its configuration
        // names, and the repository pinned in place.
        for p in [
            "/home/u/proj/.git/hooks",
            "/home/u/proj/.git/config",
            "/home/u/proj/.git/modules/lib/hooks",
            "/home/u/proj/.git/modules/lib/config",
            "/home/u/proj/vendored/.githooks",
        ] {
            assert!(has(&v, read_only(p, false)), "{p}: {v:#?}");
        }
        assert!(has(&v, writable("/home/u/proj/.git", false)));
        // Credentials by name anywhere in the workspace (a directory too), and every home's.
        for (p, dir) in [
            ("/home/u/proj/.env", false),
            ("/home/u/proj/deploy/deploy.key", false),
            ("/home/u/proj/src/secrets", true),
            ("/home/bob/.ssh", true),
            ("/home/bob/.aws", true),
            ("/root/.ssh", true),
        ] {
            assert!(has(&v, mask(p, dir)), "{p}: {v:#?}");
        }
        // The caller's own are left out by Landlock already; dependency trees are not searched;
        // a link is not followed.
        assert!(!v.masks().any(|m| m == "/home/u/.ssh"), "{v:#?}");
        assert!(!v.masks().any(|m| m.contains("node_modules") || m.ends_with("/notes")), "{v:#?}");
        // The agent socket is masked whatever Landlock grants (absent here: not planned).
        assert!(!v.masks().any(|m| m.ends_with("agent.sock")));
        assert_eq!(v.private_shm, Some(false));
        assert!(v.private_pts);
        // Parents come first.
        let at = |p: &str| v.points.iter().position(|x| x.path() == p).unwrap();
        assert!(at("/home/u/proj") < at("/home/u/proj/.git"));
        assert!(at("/home/u/proj/.git") < at("/home/u/proj/.git/hooks"));
    }

    #[test]
    fn a_read_only_audit_runs_nothing_from_the_workspace_or_scratch() {
        let v = view(0o0444);
        assert!(has(&v, read_only("/home/u/proj", true)), "{v:#?}");
        assert!(has(&v, writable("/tmp", true)));
        assert_eq!(v.private_shm, Some(true));
        // Nothing in the workspace is writable, so nothing in it needs pinning.
        assert!(!v.points.iter().any(|p| p.path() == "/home/u/proj/.git"));
        assert!(has(&v, mask("/home/u/proj/.env", false)));
    }

    #[test]
    fn a_checkout_in_scratch_stays_read_only_without_workspace_write() {
        let v = view_at(0o0444, "/tmp/ci");
        assert!(has(&v, writable("/tmp", true)));
        assert!(has(&v, read_only("/tmp/ci", true)), "{v:#?}");
        assert!(has(&v, mask("/tmp/ci/.env", false)));
        // Writable, but bound onto itself: renamed away with its pinned `.git` inside, a new
        // checkout in its place would take hooks of the command's making.
        let v = view_at(0o0467, "/tmp/ci");
        assert!(has(&v, writable("/tmp/ci", false)), "{v:#?}");
        assert!(has(&v, read_only("/tmp/ci/.git/hooks", false)));
        assert!(has(&v, writable("/tmp/ci/.git", false)));
    }

    #[test]
    fn a_home_in_scratch_keeps_its_settings_read_only_even_before_they_exist() {
        let mut m = machine();
        m.dirs.insert("/tmp", vec!["ci/", "h/"]);
        m.dirs.insert("/tmp/h", vec![".ssh/", ".bashrc", ".config/", "work/", "notes"]);
        m.dirs.insert("/tmp/h/.config", vec!["git/", "app/"]);
        let layout = Layout { workspace: "/home/u/proj".into(), home: Some("/tmp/h".into()), ..Default::default() };
        let v = view_for(&m, 0o0467, &layout, vec![]);
        for p in ["/tmp/h", "/tmp/h/.config", "/tmp/h/.bashrc", "/tmp/h/.config/git"] {
            assert!(has(&v, read_only(p, false)), "{p}: {v:#?}");
        }
        for p in ["/tmp/h/work", "/tmp/h/notes", "/tmp/h/.config/app"] {
            assert!(has(&v, writable(p, false)), "{p}: {v:#?}");
        }
        assert!(has(&v, mask("/tmp/h/.ssh", true)), "{v:#?}");
        // The home's read-only point comes after /tmp is bound back, its entries after it.
        let at = |p: &str| v.points.iter().position(|x| x.path() == p).unwrap();
        assert!(at("/tmp") < at("/tmp/h") && at("/tmp/h") < at("/tmp/h/notes"));
    }

    #[test]
    fn the_sessions_directory_is_masked_though_no_rule_lets_it_be_read() {
        let mut m = machine();
        m.dirs.insert("/home/u/.local", vec!["state/"]);
        m.dirs.insert("/home/u/.local/state", vec!["sandbox-bash/"]);
        m.dirs.insert("/home/u/.local/state/sandbox-bash", vec!["sessions/"]);
        m.dirs.insert("/home/u/.local/state/sandbox-bash/sessions", vec!["0123abcd"]);
        let sessions = "/home/u/.local/state/sandbox-bash/sessions".to_string();
        let layout = Layout {
            workspace: "/home/u/proj".into(),
            home: Some("/home/u".into()),
            extra_credentials: vec![sessions.clone()].into(),
            sessions: vec![sessions.clone()],
            ..Default::default()
        };
        for mode in [0o0000, 0o0467, 0o0447, 0o2467, 0o3767] {
            let v = view_for(&m, mode, &layout, vec![]);
            assert!(has(&v, mask(&sessions, true)), "{mode:o}: {v:#?}");
            assert!(!v.points.iter().any(|p| p.path() == sessions && !matches!(p, Point::Mask { .. })), "{v:#?}");
        }
        // The approvals directory, in every mode that has a view, system read and write included.
        let approvals = "/home/u/.local/state/sandbox-bash/sessions".to_string();
        let private = Layout { private: vec![approvals.clone()], sessions: vec![], ..layout.clone() };
        for mode in [0o0467, 0o2467, 0o4467, 0o6467, 0o7767, 0o7677] {
            let v = view_for(&m, mode, &private, vec![]);
            assert!(has(&v, mask(&approvals, true)), "{mode:o}: {v:#?}");
        }
        // Without it, a credential no rule lets be read needs no mask: the socket would stay.
        let v = view_for(&m, 0o0467, &Layout { sessions: vec![], ..layout.clone() }, vec![]);
        assert!(!has(&v, mask(&sessions, true)), "{v:#?}");
    }

    #[test]
    fn a_shared_memory_directory_that_is_a_link_gets_no_mount_of_its_own() {
        let mut m = machine();
        m.dirs.insert("/dev", vec!["shm@", "pts/"]);
        let layout = Layout { workspace: "/home/u/proj".into(), home: Some("/home/u".into()), ..Default::default() };
        let v = view_for(&m, 0o0467, &layout, vec![]);
        assert_eq!(v.private_shm, None);
        assert!(v.private_pts);
        assert!(!v.private_mqueue);
    }

    #[test]
    fn system_bits_lift_the_exceptions() {
        let v = view(0o4467);
        assert_eq!(v.masks().count(), 0, "{v:#?}");
        assert!(has(&v, read_only("/home/u/proj/.git/hooks", false)));
        let v = view(0o6467);
        assert_eq!(v.masks().count(), 0);
        assert_eq!(v.read_only().count(), 0, "{v:#?}");
        let v = view(0o7777);
        assert!(!v.read_only_base);
        assert!(v.points.is_empty(), "{v:#?}");
    }

    #[test]
    fn a_large_workspace_is_searched_only_so_far_and_says_so() {
        let mut m = machine();
        let names: Vec<&'static str> =
            (0..WORKSPACE_DIRS + 10).map(|i| &*Box::leak(format!("d{i}/").into_boxed_str())).collect();
        m.dirs.insert("/home/u/proj", names);
        let layout = Layout { workspace: "/home/u/proj".into(), home: Some("/home/u".into()), ..Default::default() };
        let mut found = Found::default();
        search_workspace(&layout, &m, &m, &mut found);
        assert!(found.truncated);
        // Too deep is the same.
        m.dirs.insert("/home/u/proj", vec!["a/"]);
        m.dirs.insert("/home/u/proj/a", vec!["b/"]);
        m.dirs.insert("/home/u/proj/a/b", vec!["c/", ".env"]);
        m.dirs.insert("/home/u/proj/a/b/c", vec!["d/"]);
        m.dirs.insert("/home/u/proj/a/b/c/d", vec![".env"]);
        let layout = Layout { workspace: "/home/u/proj".into(), home: Some("/home/u".into()), ..Default::default() };
        let mut found = Found::default();
        search_workspace(&layout, &m, &m, &mut found);
        assert!(found.truncated);
        assert_eq!(found.credentials, vec![("/home/u/proj/a/b/.env".to_string(), false, None)]);
        m.dirs.insert("/home/u/proj/a/b/c", vec![]);
        let mut found = Found::default();
        search_workspace(&layout, &m, &m, &mut found);
        assert!(!found.truncated);
    }

    #[test]
    fn hooks_path_and_includes_are_read_from_their_sections_only() {
        let hooks = |t: &str| crate::plain::git_pointers(t).1;
        assert_eq!(hooks("[core]\n\thooksPath = .githooks\n"), Some(".githooks".into()));
        assert_eq!(hooks("[alias]\n\thooksPath = x\n"), None);
        assert_eq!(hooks("[core]\nhookspath=\"/srv/h\"\n[user]\n"), Some("/srv/h".into()));
        assert_eq!(hooks("[core]\n\thooksPath =\n"), None);
        let includes = |t: &str| crate::plain::git_pointers(t).0;
        assert_eq!(
            includes(
                "[include]\n\tpath = ../shared.inc\n[includeIf \"gitdir:~/work/\"]\n\tpath = ~/.work.inc\n[user]\n\tpath = no\n"
            ),
            ["../shared.inc", "~/.work.inc"]
        );
    }
}
