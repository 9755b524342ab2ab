//! The allowed mode turned into the complete rule set the kernel layer applies: paths with
//! rights, sockets on or off, capabilities to drop, and what this layout leaves to the static
//! layer. A pure function of its inputs; the only view of the machine it gets is a [`World`]
//! that lists directories, so tests can hand it any machine they like.

use crate::baseline::{ETC_KEY_DIRS, ETC_RUNTIME, ETC_RUNTIME_DIRS, PROGRAM_ROOTS, RUN_RUNTIME};
use crate::mode::{Mode, Perm, Scope};
use crate::scope::{self, Class, Layout};

/// Filesystem rights, as the mode's digits spell them: 4 read, 2 write, 1 execute.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rights(pub u8);

impl Rights {
    pub const NONE: Rights = Rights(0);
    pub const READ: Rights = Rights(4);
    pub const WRITE: Rights = Rights(2);
    pub const EXECUTE: Rights = Rights(1);
    pub const RX: Rights = Rights(5);
    pub const RW: Rights = Rights(6);
    pub const ALL: Rights = Rights(7);
    /// Listing a directory's names, without reading its files. Only for directories that hold
    /// the workspace or the home directory, where the full external rights cannot be given.
    pub const LIST: Rights = Rights(8);

    /// The digit of `scope` in `mode`.
    pub fn of(mode: Mode, scope: Scope) -> Rights {
        let mut r = Rights::NONE;
        for (perm, bit) in [(Perm::Read, Rights::READ), (Perm::Write, Rights::WRITE), (Perm::Execute, Rights::EXECUTE)]
        {
            if mode.has(scope, perm) {
                r = r.union(bit);
            }
        }
        r
    }

    pub fn union(self, other: Rights) -> Rights {
        Rights(self.0 | other.0)
    }

    pub fn intersect(self, other: Rights) -> Rights {
        Rights(self.0 & other.0)
    }

    pub fn without(self, other: Rights) -> Rights {
        Rights(self.0 & !other.0)
    }

    pub fn contains(self, other: Rights) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// `rwx` with dashes, as `ls` shows permissions.
    pub fn letters(self) -> String {
        let mut s = String::with_capacity(3);
        s.push(if self.contains(Rights::READ) {
            'r'
        } else if self.contains(Rights::LIST) {
            'l'
        } else {
            '-'
        });
        s.push(if self.contains(Rights::WRITE) { 'w' } else { '-' });
        s.push(if self.contains(Rights::EXECUTE) { 'x' } else { '-' });
        s
    }
}

/// Why a path is in the rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Why {
    /// Every scope has these rights, so the whole tree may have them.
    Everything,
    /// What programs need to start and run at all.
    Runtime,
    /// `/tmp`, `$TMPDIR`, the harmless devices, ptys, shared memory.
    Scratch,
    /// The file already open as standard input, output or error.
    StandardStream,
    /// A directory on the caller's `PATH`, or the toolchain home it lies in.
    Toolchain,
    /// The real bash, or sandbox-bash itself (nested invocations start it again).
    Program,
    Workspace,
    External,
    System,
    Credential,
    /// A package cache's layer of sandbox-bash's own (opened once the view has mounted it).
    Cache,
    /// The listings the view gives nested levels in place of the masked store (opened once
    /// the view has mounted them).
    Listings,
    /// A rule of the enclosing run's, which holds a nested level that adds none (see
    /// [`super::word`]).
    Run,
}

impl Why {
    pub fn name(self) -> &'static str {
        match self {
            Why::Everything => "every scope",
            Why::Runtime => "runtime baseline",
            Why::Scratch => "scratch",
            Why::StandardStream => "standard stream",
            Why::Toolchain => "toolchain on PATH",
            Why::Program => "program",
            Why::Workspace => "workspace",
            Why::External => "external",
            Why::Cache => "package cache layer",
            Why::Listings => "listings for nested levels",
            Why::System => "system",
            Why::Credential => "credential",
            Why::Run => "the enclosing run's rule",
        }
    }
}

/// One rule: `rights` on `path` and everything beneath it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathRule {
    pub path: String,
    pub rights: Rights,
    pub why: Why,
    /// Whether a symlink at `path` is followed when the rule is applied. Only for fixed
    /// system locations; a link anywhere a command could have planted it is never followed.
    pub follow: bool,
    /// What the path was when planned: a hint that saves asking again. A directory is applied
    /// as one only if it still is one; a file gets file rights only (if it has become a
    /// directory meanwhile, that grants less, never more).
    pub kind: Kind,
    /// The device and inode the path must still name when the rule is applied (a file made
    /// for this run): anything else there refuses the run.
    pub node: Option<(u64, u64)>,
}

/// What a rule's path is known to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Dir,
    File,
    Unknown,
}

/// A Linux capability, by number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capability {
    pub number: u8,
    pub name: &'static str,
}

/// The capabilities that administer the machine, dropped from every set (bounding set
/// included) when system execute is off. What stays (chown, reading and writing files a root
/// caller owns, kill, binding low ports) is ordinary root work that the filesystem rules
/// already bound. Priorities and resource limits (`CAP_SYS_NICE`, `CAP_SYS_RESOURCE`) go too:
/// with them a root command could starve or stop processes outside the sandbox.
pub const ADMIN_CAPABILITIES: &[Capability] = &[
    Capability { number: 2, name: "CAP_DAC_READ_SEARCH" },
    Capability { number: 6, name: "CAP_SETGID" },
    Capability { number: 7, name: "CAP_SETUID" },
    Capability { number: 8, name: "CAP_SETPCAP" },
    Capability { number: 9, name: "CAP_LINUX_IMMUTABLE" },
    Capability { number: 12, name: "CAP_NET_ADMIN" },
    Capability { number: 13, name: "CAP_NET_RAW" },
    Capability { number: 16, name: "CAP_SYS_MODULE" },
    Capability { number: 17, name: "CAP_SYS_RAWIO" },
    Capability { number: 18, name: "CAP_SYS_CHROOT" },
    Capability { number: 19, name: "CAP_SYS_PTRACE" },
    Capability { number: 20, name: "CAP_SYS_PACCT" },
    Capability { number: 21, name: "CAP_SYS_ADMIN" },
    Capability { number: 22, name: "CAP_SYS_BOOT" },
    Capability { number: 23, name: "CAP_SYS_NICE" },
    Capability { number: 24, name: "CAP_SYS_RESOURCE" },
    Capability { number: 25, name: "CAP_SYS_TIME" },
    Capability { number: 26, name: "CAP_SYS_TTY_CONFIG" },
    Capability { number: 27, name: "CAP_MKNOD" },
    Capability { number: 28, name: "CAP_LEASE" },
    Capability { number: 30, name: "CAP_AUDIT_CONTROL" },
    Capability { number: 32, name: "CAP_MAC_OVERRIDE" },
    Capability { number: 33, name: "CAP_MAC_ADMIN" },
    Capability { number: 34, name: "CAP_SYSLOG" },
    Capability { number: 35, name: "CAP_WAKE_ALARM" },
    Capability { number: 36, name: "CAP_BLOCK_SUSPEND" },
    Capability { number: 38, name: "CAP_PERFMON" },
    Capability { number: 39, name: "CAP_BPF" },
    Capability { number: 40, name: "CAP_CHECKPOINT_RESTORE" },
];

/// The capabilities dropped in every mode, system execute included: they would let a root
/// command leave behind a program that raises the privileges of whoever runs it next (file
/// capabilities; keeping a setuid bit through a write). Setuid and setgid bits themselves are
/// refused by the seccomp filter.
pub const PRIVILEGE_CAPABILITIES: &[Capability] =
    &[Capability { number: 4, name: "CAP_FSETID" }, Capability { number: 31, name: "CAP_SETFCAP" }];

/// The complete rule set for one invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    pub mode: Mode,
    /// Filesystem rules, one per path.
    pub paths: Vec<PathRule>,
    /// Sockets of every family (network read or write). Without it only AF_UNIX sockets can
    /// be created and no TCP port can be bound or connected to.
    pub sockets: bool,
    /// The kernel keyring (keyctl, add_key, request_key): it can hold the caller's secrets,
    /// so it is system read.
    pub keyring: bool,
    /// Code that is no file on a path may run: a descriptor given to `execveat`, a memory file
    /// that can be executed (workspace execute). Without it scratch has no execute either.
    pub new_code: bool,
    /// Capabilities dropped from every set before exec.
    pub drop_capabilities: Vec<Capability>,
    /// No signals to, and no abstract unix sockets of, processes outside the sandbox (ABI 6+).
    pub scoped: bool,
    /// The command is in a network namespace of its own (an allowlist's proxy is its way out),
    /// which it may not leave: see [`Policy::enclose_network`].
    pub enclosed_network: bool,
    /// What this mode and layout leave to the static layer, in plain words.
    pub static_only: Vec<super::StaticOnly>,
    /// Sockets of servers outside that stay reachable (from [`Extra::sockets`]).
    pub reachable: Vec<String>,
}

impl Policy {
    /// The rules for a command in a network namespace of its own: the filter refuses the ways
    /// out of it, and `CAP_NET_ADMIN` goes whatever the mode (with it, a root caller could make
    /// a link into the host's namespace).
    pub fn enclose_network(&mut self) {
        self.enclosed_network = true;
        if !self.drop_capabilities.iter().any(|c| c.name == "CAP_NET_ADMIN") {
            self.drop_capabilities.push(Capability { number: 12, name: "CAP_NET_ADMIN" });
        }
    }

    /// The rights the rules grant on `path`, lexically: the union of the rules on it and on
    /// the directories above it, as Landlock unites them. Listing a directory grants nothing
    /// below it; a rule planned for a file grants only that file. A rule that follows a link
    /// is counted where its path lies, so this can miss a grant that reaches `path` through a
    /// link elsewhere, never invent one.
    pub fn granted(&self, path: &str) -> Rights {
        granted_by(self.paths.iter().map(|r| (r.path.as_str(), r.rights, r.kind == Kind::File)), path)
    }

    /// The rules an enclosing run holds, as its word gave them (see [`super::word`]): what
    /// [`Policy::granted`] answers from; nothing else of it is applied by this level.
    pub fn of_run(mode: Mode, paths: Vec<PathRule>) -> Policy {
        Policy {
            mode,
            paths,
            sockets: false,
            keyring: false,
            new_code: false,
            drop_capabilities: Vec::new(),
            scoped: false,
            enclosed_network: false,
            static_only: Vec::new(),
            reachable: Vec::new(),
        }
    }

    /// A policy with no rules and nothing allowed but what `mode` names, for tests.
    #[cfg(test)]
    pub fn bare(mode: Mode) -> Policy {
        Policy { scoped: true, ..Policy::of_run(mode, Vec::new()) }
    }

    /// [`Policy::granted`] for many paths: the rules by their path, so that a path is answered
    /// from itself and the directories above it rather than from every rule (a start asks
    /// about some fifty paths against a few hundred rules). It answers for the rules as they
    /// are now.
    pub fn grants(&self) -> Grants<'_> {
        let mut on: rustc_hash::FxHashMap<&str, (Rights, Rights)> = Default::default();
        on.reserve(self.paths.len());
        for r in &self.paths {
            let (here, beneath) = on.entry(r.path.as_str()).or_insert((Rights::NONE, Rights::NONE));
            *here = here.union(r.rights);
            if r.kind != Kind::File {
                *beneath = beneath.union(r.rights);
            }
        }
        Grants { on }
    }
}

/// See [`Policy::grants`].
pub struct Grants<'p> {
    /// By path: what its rules give on it, and what those of them that are not for a file
    /// alone give beneath it.
    on: rustc_hash::FxHashMap<&'p str, (Rights, Rights)>,
}

impl Grants<'_> {
    /// What the rules on `path` itself give on it, and what those of them that are not for a
    /// file alone give beneath it.
    pub fn on(&self, path: &str) -> (Rights, Rights) {
        self.on.get(path).copied().unwrap_or((Rights::NONE, Rights::NONE))
    }

    /// What [`Policy::granted`] says of `path`. The directories a rule covers `path` from are
    /// the ones [`scope::is_within`] accepts: `/`, and each part of `path` that ends before one
    /// of its slashes.
    pub fn of(&self, path: &str) -> Rights {
        let mut r = self.on(path).0;
        let beneath = |dir: &str| self.on(dir).1;
        if path != "/" {
            r = r.union(beneath("/"));
        }
        for dir in scope::before_slashes(path).filter(|d| *d != "/") {
            r = r.union(beneath(dir));
        }
        r.without(Rights::LIST)
    }
}

/// The rights `rules` (each a path, its rights, and whether it grants that file only) grant on
/// `path`, as [`Policy::granted`] says.
pub fn granted_by<'a>(rules: impl IntoIterator<Item = (&'a str, Rights, bool)>, path: &str) -> Rights {
    let mut r = Rights::NONE;
    for (rule, rights, file) in rules {
        if rule == path {
            r = r.union(rights);
        } else if !file && scope::is_within(path, rule) {
            r = r.union(rights.without(Rights::LIST));
        }
    }
    r.without(Rights::LIST)
}

/// One entry of a directory listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    /// A symbolic link (or a type the filesystem did not say).
    pub link: bool,
    /// A directory (not through a link).
    pub dir: bool,
    /// A socket or a named pipe.
    pub special: bool,
}

/// What the planner may learn about the machine.
pub trait World {
    /// The entries of a directory. `None` when the directory cannot be read.
    fn list(&self, dir: &str) -> Option<Vec<Entry>>;
    /// The canonical form of a path (symlinks resolved), if it exists.
    fn canonical(&self, path: &str) -> Option<String>;
    /// Whether the path itself (its last component) is a symbolic link.
    fn is_link(&self, path: &str) -> bool;
    /// Whether something (a link included) is there.
    fn exists(&self, path: &str) -> bool {
        let (parent, name) = match path.rsplit_once('/') {
            Some(("", name)) => ("/", name),
            Some(split) => split,
            None => return false,
        };
        self.list(parent).is_some_and(|entries| entries.iter().any(|e| e.name == name))
    }
    /// The device and inode of the path itself (a link not followed), when known.
    fn node(&self, _path: &str) -> Option<(u64, u64)> {
        None
    }
    /// Whether the path is a directory (`Some(true)`), something else (`Some(false)`), or
    /// absent or a link (`None`). Asked of the path itself, so a parent that cannot be listed
    /// does not hide it.
    fn is_dir(&self, path: &str) -> Option<bool> {
        let (parent, name) = path.rsplit_once('/')?;
        let parent = if parent.is_empty() { "/" } else { parent };
        let e = self.list(parent)?.into_iter().find(|e| e.name == name)?;
        (!e.link).then_some(e.dir)
    }
}

/// The inputs of [`plan`] besides the machine.
#[derive(Clone, Debug)]
pub struct Inputs<'a> {
    pub mode: Mode,
    pub layout: &'a Layout,
    /// The caller's `PATH`.
    pub path_var: Option<&'a str>,
    /// The real bash that will be executed.
    pub real_bash: &'a str,
    /// sandbox-bash's own executable.
    pub self_exe: Option<&'a str>,
    /// The files behind descriptors 0, 1 and 2, when they are files with a path.
    pub standard_files: [Option<String>; 3],
    /// An enclosing sandbox-bash has restricted this process already. A directory it does
    /// not let us list is then granted whole: the enclosing rules still bound it.
    pub nested: bool,
    /// What the configuration adds.
    pub extra: Extra,
}

/// Runtime paths the configuration adds, and the administrator's ceiling that bounds them.
#[derive(Clone, Debug, Default)]
pub struct Extra {
    /// The configuration files read: nested invocations read them again.
    pub config_files: Vec<String>,
    pub runtime_read: Vec<String>,
    pub runtime_execute: Vec<String>,
    pub ceiling: Option<Mode>,
    /// Sockets of servers outside the run that commands may still connect to: the
    /// configuration's `paths.sockets`, and the run's own audit relay.
    pub sockets: Vec<String>,
}

/// How deep [`ETC_KEY_DIRS`] are entered looking for `private` directories.
const KEY_DIR_DEPTH: usize = 2;

/// Devices any program may read and write.
const SCRATCH_DEVICES: &[&str] =
    &["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx"];

/// Directories of devices and memory any program may use: terminals and shared memory
/// (POSIX semaphores of Python's multiprocessing live there).
const SCRATCH_DEVICE_DIRS: &[&str] = &["/dev/pts", "/dev/shm"];

/// `dir/name`, as `format!` would make it, without the formatting machinery: planning joins a
/// path for every entry of every directory it lists.
pub(crate) fn join(dir: &str, name: &str) -> String {
    let mut p = String::with_capacity(dir.len() + 1 + name.len());
    p.push_str(dir);
    p.push('/');
    p.push_str(name);
    p
}

/// Computes the rule set for `inputs` on `world`.
pub fn plan(inputs: &Inputs, world: &dyn World) -> Policy {
    // A start in the default mode plans about 200 rules: room for them at once saves growing
    // the list.
    let mut planner = Planner { inputs, world, rules: Vec::with_capacity(256), static_only: Vec::new() };
    planner.run();
    let Planner { rules, static_only, .. } = planner;
    let system = Rights::of(inputs.mode, Scope::System);
    let network = Rights::of(inputs.mode, Scope::Network);
    Policy {
        mode: inputs.mode,
        paths: merge(rules),
        sockets: network.contains(Rights::READ) || network.contains(Rights::WRITE),
        keyring: system.contains(Rights::READ),
        new_code: Rights::of(inputs.mode, Scope::Workspace).contains(Rights::EXECUTE),
        drop_capabilities: if system.contains(Rights::EXECUTE) {
            PRIVILEGE_CAPABILITIES.to_vec()
        } else {
            ADMIN_CAPABILITIES.iter().chain(PRIVILEGE_CAPABILITIES).copied().collect()
        },
        scoped: true,
        enclosed_network: false,
        static_only,
        reachable: inputs.extra.sockets.clone(),
    }
}

struct Planner<'a> {
    inputs: &'a Inputs<'a>,
    world: &'a dyn World,
    rules: Vec<PathRule>,
    static_only: Vec<super::StaticOnly>,
}

impl Planner<'_> {
    fn add(&mut self, path: &str, rights: Rights, why: Why, follow: bool) {
        self.add_kind(path, rights, why, follow, Kind::Unknown);
    }

    /// Like `add`, for a path known to be a directory.
    fn add_dir(&mut self, path: &str, rights: Rights, why: Why, follow: bool) {
        self.add_kind(path, rights, why, follow, Kind::Dir);
    }

    /// Like `add`, for a path known to be a file (or device).
    fn add_file(&mut self, path: &str, rights: Rights, why: Why, follow: bool) {
        self.add_kind(path, rights, why, follow, Kind::File);
    }

    /// Like `add`, for an entry of a directory listing.
    fn add_entry(&mut self, path: impl Into<String>, rights: Rights, why: Why, e: &Entry) {
        self.add_kind(path, rights, why, false, if e.dir { Kind::Dir } else { Kind::File });
    }

    fn add_kind(&mut self, path: impl Into<String>, rights: Rights, why: Why, follow: bool, kind: Kind) {
        if !rights.is_empty() {
            self.rules.push(PathRule { path: path.into(), rights, why, follow, kind, node: None });
        }
    }

    fn layout(&self) -> &Layout {
        self.inputs.layout
    }

    /// System write is allowed: protected paths may be written.
    fn system_writes(&self) -> bool {
        Rights::of(self.inputs.mode, Scope::System).contains(Rights::WRITE)
    }

    fn run(&mut self) {
        let mode = self.inputs.mode;
        let system = Rights::of(mode, Scope::System);
        let external = Rights::of(mode, Scope::External);
        let workspace = Rights::of(mode, Scope::Workspace);
        let everything = system.intersect(external).intersect(workspace);
        // Write on the whole tree would reach /proc and /sys, which take system execute too
        // (see below): without it, each scope gets its write on its own paths.
        let everything = if system.contains(Rights::EXECUTE) { everything } else { everything.without(Rights::WRITE) };
        self.add("/", everything, Why::Everything, false);

        self.runtime();
        self.toolchains();

        let w = self.layout().workspace.clone();
        // Only credentials split the workspace: protected files inside it (its .git/hooks,
        // sandbox-bash built in its own repository) are left to the static layer, or nothing
        // new could be created in the workspace.
        if self.holds(&w, false) {
            // The workspace holds the home's credentials (it is the home directory or above
            // it): its entries get the workspace bits one by one, credentials left out.
            if workspace.contains(Rights::READ) {
                self.add_dir(&w, Rights::LIST, Why::Workspace, false);
            }
            self.enter_workspace(&w, workspace, 0);
            self.static_only.push(super::StaticOnly::Credentials(format!(
                "the workspace {w} holds the home directory's credentials: at the kernel level its entries get the \
                 workspace bits one by one, so nothing new can be created directly in it, and credential names \
                 inside it can be listed"
            )));
        } else if self.layout().no_workspace {
            // A start in the home: the empty stand-in gets nothing to write or run.
            self.add_dir(&w, workspace.intersect(Rights::READ), Why::Workspace, false);
        } else {
            self.add_dir(&w, workspace, Why::Workspace, false);
        }

        if !external.without(everything).is_empty() {
            self.cover("/", external, 0);
        }
        if !system.without(everything).is_empty() {
            for root in scope::SYSTEM_ROOTS.iter().chain(["/lib", "/lib32", "/lib64", "/libx32"].iter()) {
                // Writing /proc and /sys administers the machine and other processes (their OOM
                // score, autogroup niceness and timer slack, cgroups, sysctl): that takes system
                // execute as well as write.
                let rights = if matches!(*root, "/proc" | "/sys") && !system.contains(Rights::EXECUTE) {
                    system.without(Rights::WRITE)
                } else {
                    system
                };
                self.add_dir(root, rights, Why::System, true);
            }
            if let Some(home) = self.layout().home.clone() {
                for entry in scope::HOME_CREDENTIALS {
                    self.add(&join(&home, entry), system, Why::Credential, false);
                }
                let credentials = self.layout().extra_credentials.clone();
                for c in &credentials {
                    self.add(c, system, Why::Credential, false);
                }
                let cargo = join(&home, ".cargo");
                for e in self.world.list(&cargo).unwrap_or_default() {
                    if !e.link && e.name.starts_with("credentials") {
                        self.add_entry(join(&cargo, &e.name), system, Why::Credential, &e);
                    }
                }
            }
        }
        self.own_files();
        self.gaps(system, external, workspace);
    }

    /// What every program needs, whatever the mode.
    fn runtime(&mut self) {
        for root in PROGRAM_ROOTS {
            self.add_dir(root, Rights::RX, Why::Runtime, true);
        }
        for path in ETC_RUNTIME {
            if ETC_KEY_DIRS.contains(path) {
                self.key_dir(path, 0);
            } else if ETC_RUNTIME_DIRS.contains(path) {
                self.add_dir(path, Rights::READ, Why::Runtime, true);
            } else {
                self.add_file(path, Rights::READ, Why::Runtime, true);
            }
        }
        for path in RUN_RUNTIME {
            self.add_dir(path, Rights::READ, Why::Runtime, true);
        }
        self.add_dir("/proc", Rights::READ, Why::Runtime, false);
        self.add_dir("/sys", Rights::READ, Why::Runtime, false);
        for dev in SCRATCH_DEVICES {
            self.add_file(dev, Rights::RW, Why::Scratch, true);
        }
        for dir in SCRATCH_DEVICE_DIRS {
            self.add_dir(dir, Rights::RW, Why::Scratch, false);
        }
        // Scratch runs programs only where the workspace may: a read-only audit runs no code
        // it copied there.
        let scratch = if Rights::of(self.inputs.mode, Scope::Workspace).contains(Rights::EXECUTE) {
            Rights::ALL
        } else {
            Rights::RW
        };
        self.add_dir("/tmp", scratch, Why::Scratch, false);
        if let Some(t) = self.layout().tmpdir.clone() {
            self.add_dir(&t, scratch, Why::Scratch, false);
        }
        // The snapshot this run takes in an agent's shell-state directory: that one new file,
        // never run as a program.
        for (file, node) in self.layout().client_files.clone() {
            self.add_file(&file, Rights::RW, Why::Scratch, false);
            if let Some(rule) = self.rules.last_mut() {
                rule.node = Some(node);
            }
        }
        // Runtime paths from the configuration, each only as far as the ceiling allows in the
        // scope it lies in.
        for (paths, rights) in
            [(&self.inputs.extra.runtime_read, Rights::READ), (&self.inputs.extra.runtime_execute, Rights::RX)]
        {
            for p in paths.clone() {
                let allowed = match (self.inputs.extra.ceiling, self.layout().classify(&p, false).scope()) {
                    (Some(ceiling), Some(scope)) => rights.intersect(Rights::of(ceiling, scope)),
                    _ => rights,
                };
                if self.layout().is_credential(&p) {
                    continue;
                }
                self.add(&p, allowed, Why::Runtime, false);
            }
        }
        // The real bash is the caller's choice (found as DESIGN says, or named explicitly): the
        // rule follows a link to the file that will be executed.
        let bash = self.inputs.real_bash.to_string();
        self.add_file(&bash, Rights::RX, Why::Program, true);
    }

    /// Files the process needs whatever the mode: the standard streams that are files, the
    /// configuration files read, sandbox-bash itself. Each gets a rule only when no directory
    /// rule already grants what it needs (`/tmp`, the workspace, `/usr`): a rule saved is a
    /// system call or two saved at every start.
    fn own_files(&mut self) {
        let mut files: Vec<(String, Rights, Why)> = Vec::new();
        for (fd, file) in self.inputs.standard_files.iter().enumerate() {
            if let Some(file) = file {
                files.push((file.clone(), if fd == 0 { Rights::READ } else { Rights::WRITE }, Why::StandardStream));
            }
        }
        for f in &self.inputs.extra.config_files {
            files.push((f.clone(), Rights::READ, Why::Runtime));
        }
        if let Some(me) = self.inputs.self_exe {
            files.push((me.to_string(), Rights::RX, Why::Program));
        }
        for (path, rights, why) in files {
            if !self.covered(&path, rights) {
                self.add_file(&path, rights, why, false);
            }
        }
    }

    /// Whether a directory rule added so far grants at least `rights` on `path`, lying on it or
    /// on an ancestor. The path is opened without following a link, so it lies where the
    /// directory rule's own path leads. Scratch directories do not count: they are fixed names
    /// that some systems make links (`/dev/shm` → `/run/shm`), and a link opened without
    /// following gets no rule, which would leave the file without one.
    fn covered(&self, path: &str, rights: Rights) -> bool {
        self.rules.iter().any(|r| {
            r.kind == Kind::Dir && r.why != Why::Scratch && r.rights.contains(rights) && scope::is_within(path, &r.path)
        })
    }

    /// Read on the entries of a certificate directory, leaving out the `private` directories
    /// inside it (and entering the ones that hold one, to [`KEY_DIR_DEPTH`]). The directory
    /// itself can be listed.
    fn key_dir(&mut self, dir: &str, depth: usize) {
        let Some(entries) = self.world.list(dir) else { return };
        // The fixed system entry may be a link (`/etc/ssl/certs` → `/etc/pki/tls/certs`): the
        // listing and the rules follow it, as for the other fixed `/etc` entries.
        self.add_dir(dir, Rights::LIST, Why::Runtime, true);
        for e in entries {
            if e.name == "private" {
                if Rights::of(self.inputs.mode, Scope::System).contains(Rights::READ) {
                    // System read reaches the keys anyway.
                    continue;
                }
                self.static_only.push(super::StaticOnly::Filesystem(format!(
                    "names of the private keys in {dir}/private can be listed (the certificates beside them are \
                     readable); the keys themselves cannot be read"
                )));
                continue;
            }
            let p = join(dir, &e.name);
            // A link is granted where it leads (the rule follows it): never into a key directory.
            if e.link && self.world.canonical(&p).is_none_or(|real| real.split('/').any(|c| c == "private")) {
                continue;
            }
            if depth < KEY_DIR_DEPTH && (e.dir || e.link) && self.world.exists(&join(&p, "private")) {
                self.key_dir(&p, depth + 1);
            } else {
                let kind = if e.link {
                    Kind::Unknown
                } else if e.dir {
                    Kind::Dir
                } else {
                    Kind::File
                };
                self.add_kind(&p, Rights::READ, Why::Runtime, true, kind);
            }
        }
    }

    /// Read and execute on the caller's `PATH` directories and the toolchain homes they lie
    /// in, except inside the workspace (its own bits decide), credential paths, and anything
    /// that holds the home directory, the workspace or the system.
    fn toolchains(&mut self) {
        let Some(path_var) = self.inputs.path_var else { return };
        let home = self.layout().home.clone();
        let groups = self.layout().toolchain_groups();
        let w = self.layout().workspace.clone();
        let mut homes_done: Vec<String> = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for entry in path_var.split(':') {
            if !entry.starts_with('/') || seen.contains(&entry) {
                continue;
            }
            seen.push(entry);
            // A program directory the baseline covers needs no rule, unless it is a link
            // that leads elsewhere.
            let normal = scope::normalize("/", entry);
            // A program root itself has its rule already, following a link (`/bin` → `usr/bin`).
            if PROGRAM_ROOTS.contains(&normal.as_str()) {
                continue;
            }
            if PROGRAM_ROOTS.iter().any(|r| scope::is_within(&normal, r) && normal != *r)
                && !self.world.is_link(&normal)
            {
                continue;
            }
            // Inside a toolchain home the lexical path is enough (the home gets the rule, and
            // it is opened without following a link); elsewhere, or when the entry itself is a
            // link, the real location decides.
            let in_toolchain_home = scope::toolchain_of(&groups, &normal).is_some();
            let dir = if in_toolchain_home && !self.world.is_link(&normal) {
                normal.clone()
            } else {
                let Some(dir) = self.world.canonical(entry) else { continue };
                dir
            };
            if PROGRAM_ROOTS.iter().any(|r| scope::is_within(&dir, r)) {
                continue;
            }
            // Scratch runs programs only where the workspace may (see `runtime`): a PATH
            // directory in it gets nothing of its own, or anything copied there would run.
            let tmpdir = self.layout().tmpdir.as_deref();
            if scope::is_within(&dir, "/tmp")
                || tmpdir.is_some_and(|t| scope::is_within(&dir, t))
                || SCRATCH_DEVICE_DIRS.iter().any(|d| scope::is_within(&dir, d))
            {
                continue;
            }
            if dir == "/"
                || scope::is_within(&dir, &w)
                || scope::is_within(&w, &dir)
                || home.as_deref().is_some_and(|h| scope::is_within(h, &dir))
                || self.layout().is_credential(&dir)
                || self.holds(&dir, false)
                || (scope::is_system_path(&dir) && !PROGRAM_ROOTS.iter().any(|r| scope::is_within(&dir, r)))
            {
                continue;
            }
            match scope::toolchain_of(&groups, &dir) {
                Some(group) => {
                    for top in &group.homes {
                        self.toolchain_home(top, group, &mut homes_done);
                    }
                }
                None => self.add_dir(&dir, Rights::RX, Why::Toolchain, false),
            }
        }
        // A home a set variable names (`RUSTUP_HOME`) is where the toolchain's programs look,
        // whatever PATH holds.
        for group in &groups {
            for top in &group.named {
                self.toolchain_home(top, group, &mut homes_done);
            }
        }
    }

    /// Read and execute on the toolchain home `top` of `group`, once.
    fn toolchain_home(&mut self, top: &str, group: &scope::Toolchain, homes_done: &mut Vec<String>) {
        if homes_done.iter().any(|h| h == top) {
            return;
        }
        homes_done.push(top.to_string());
        if !self.layout().grantable_toolchain_home(top) {
            return;
        }
        let home = self.layout().home.clone();
        // Cargo keeps credentials in its home (`credentials.toml`), and a home a variable moves
        // could hold any: a home's entries are granted one by one when it holds a credential or
        // a link, and the home itself made listable (nested invocations list it again). The
        // fixed homes of the others are granted whole without listing them.
        let fixed = home
            .as_deref()
            .is_some_and(|h| top.strip_prefix(h).and_then(|r| r.strip_prefix('/')).is_some_and(|r| !r.contains('/')));
        let listing = if group.credentials || !fixed { self.world.list(top) } else { Some(Vec::new()) };
        match listing {
            // Nothing to leave out: one rule for the whole home.
            Some(entries) if entries.iter().all(|e| !e.link && !self.layout().is_credential(&join(top, &e.name))) => {
                self.add_dir(top, Rights::RX, Why::Toolchain, false);
            }
            Some(entries) => {
                self.add_dir(top, Rights::LIST, Why::Toolchain, false);
                for e in entries {
                    let p = join(top, &e.name);
                    if !e.link && !self.layout().is_credential(&p) {
                        self.add_entry(&p, Rights::RX, Why::Toolchain, &e);
                    }
                }
            }
            None if self.inputs.nested => self.add_dir(top, Rights::RX, Why::Toolchain, false),
            None => {}
        }
    }

    /// Grants `rights` on the external tree below `dir`: each entry that is external gets the
    /// rule, except that directories holding the workspace or the home directory are entered
    /// and their entries treated the same way (so neither the workspace nor credentials in the
    /// home inherit external rights). Never more than the depth of those two paths.
    fn cover(&mut self, dir: &str, rights: Rights, depth: usize) {
        if depth > 64 {
            return;
        }
        // The layout is the caller's, not the planner's: borrowed for the whole walk.
        let layout: &Layout = self.inputs.layout;
        let (w, home, tmpdir) = (&layout.workspace, &layout.home, &layout.tmpdir);
        let Some(entries) = self.world.list(dir) else {
            // Inside an enclosing sandbox that does not let us list this directory: the
            // enclosing rules decide what in it is reachable, this layer takes it whole.
            if self.inputs.nested {
                self.add_dir(dir, rights, Why::External, false);
            }
            return;
        };
        let prefix = if dir == "/" { "" } else { dir };
        for e in entries {
            let mut p = String::with_capacity(prefix.len() + 1 + e.name.len());
            p.push_str(prefix);
            p.push('/');
            p.push_str(&e.name);
            if e.link || p == *w {
                continue;
            }
            // Below `/`, an entry of an external directory is external unless it is a
            // credential or the temporary directory: it cannot be a system root, the network
            // or scratch, and the workspace itself was skipped above. (The full table is a
            // quarter of the planning time.)
            let external = if dir == "/" {
                matches!(layout.classify(&p, false), Class::External)
            } else {
                !layout.is_credential(&p) && !tmpdir.as_deref().is_some_and(|t| scope::is_within(&p, t))
            };
            if !external {
                // A credential among external entries (`/srv/app/.env`) gets the system bits:
                // without system execute no rule on `/` grants them.
                let system = Rights::of(self.inputs.mode, Scope::System);
                if dir != "/" && !system.is_empty() && layout.is_credential(&p) {
                    self.add_entry(p, system, Why::Credential, &e);
                }
                continue;
            }
            let holds = |inner: &Option<String>| inner.as_deref().is_some_and(|i| scope::is_within(i, &p));
            if scope::is_within(w, &p) || holds(home) || holds(tmpdir) || self.holds(&p, rights.contains(Rights::WRITE))
            {
                // A toolchain home granted whole (it was found to hold no credentials) needs
                // nothing more.
                if self.covered(&p, rights) {
                    continue;
                }
                // Its names may be listed (`ls ~`), its entries get rules of their own.
                if rights.contains(Rights::READ) {
                    self.add_dir(&p, Rights::LIST, Why::External, false);
                }
                self.cover(&p, rights, depth + 1);
                continue;
            }
            let r =
                if layout.is_protected(&p) && !self.system_writes() { rights.without(Rights::WRITE) } else { rights };
            self.add_entry(p, r, Why::External, &e);
        }
    }

    /// Whether `p` is entered, never granted whole (see [`Layout::holds`]).
    fn holds(&self, p: &str, writes: bool) -> bool {
        self.layout().holds(p, writes)
    }

    /// Grants the workspace bits on the entries of `dir` (inside the workspace), entering those
    /// that hold credentials and leaving credentials out.
    fn enter_workspace(&mut self, dir: &str, rights: Rights, depth: usize) {
        if depth > 64 {
            return;
        }
        let Some(entries) = self.world.list(dir) else {
            if self.inputs.nested {
                self.add_dir(dir, rights, Why::Workspace, false);
            }
            return;
        };
        for e in entries {
            let p = join(dir, &e.name);
            if e.link || self.layout().is_credential(&p) {
                continue;
            }
            if self.holds(&p, false) {
                if rights.contains(Rights::READ) {
                    self.add_dir(&p, Rights::LIST, Why::Workspace, false);
                }
                self.enter_workspace(&p, rights, depth + 1);
                continue;
            }
            let r = if self.layout().is_protected(&p) && !self.system_writes() {
                rights.without(Rights::WRITE)
            } else {
                rights
            };
            self.add_entry(&p, r, Why::Workspace, &e);
        }
    }

    /// What Landlock cannot express for this mode and layout.
    fn gaps(&mut self, system: Rights, external: Rights, workspace: Rights) {
        let layout = self.layout().clone();
        if !workspace.without(system).is_empty() || !external.without(system).is_empty() {
            self.static_only.push(super::StaticOnly::Credentials(
                "credential files inside allowed trees (.env, *.pem, *.key, id_rsa*, secret stores such as \
                 credentials.json) are protected by the static layer only"
                    .into(),
            ));
        }
        let in_scratch = scope::is_within(&layout.workspace, "/tmp")
            || layout.tmpdir.as_deref().is_some_and(|t| scope::is_within(&layout.workspace, t));
        if in_scratch && !workspace.contains(Rights::ALL) {
            self.static_only.push(super::StaticOnly::HeldByView(format!(
                "the workspace {} lies inside scratch space, which every mode may write: its own bits ({}) are \
                 enforced by the static layer only",
                layout.workspace,
                workspace.letters()
            )));
        } else if scope::is_system_path(&layout.workspace) && !workspace.contains(system) {
            self.static_only.push(super::StaticOnly::Filesystem(format!(
                "the workspace {} lies inside a system directory: the system bits ({}) reach it too",
                layout.workspace,
                system.letters()
            )));
        }
        self.static_only.push(super::StaticOnly::Server(
            "connecting to a unix socket by path (a container engine's, for one) is seen by the static layer only"
                .into(),
        ));
        self.static_only.push(super::StaticOnly::Filesystem(
            "a file run through an interpreter (bash file, python3 file, ld.so file) needs read, not execute: the \
             static layer is what sees those"
                .into(),
        ));
    }
}

/// One rule per path, rights united, in the order the paths first appear. (Sorting a hundred
/// paths cost more than the rest of the merge; `--sandbox-info` sorts what it shows.) The paths
/// are looked up by reference: copying each one to key a map was most of the merge's cost.
fn merge(mut rules: Vec<PathRule>) -> Vec<PathRule> {
    let first: Vec<usize> = {
        let mut at: rustc_hash::FxHashMap<&str, usize> = Default::default();
        at.reserve(rules.len());
        rules.iter().enumerate().map(|(i, r)| *at.entry(r.path.as_str()).or_insert(i)).collect()
    };
    for (i, &j) in first.iter().enumerate() {
        if i == j {
            continue;
        }
        let PathRule { rights, why, follow, kind, .. } = rules[i];
        let kept = &mut rules[j];
        kept.rights = kept.rights.union(rights);
        kept.follow &= follow;
        if kept.kind != kind {
            kept.kind = Kind::Unknown;
        }
        if why < kept.why {
            kept.why = why;
        }
    }
    let mut index = 0;
    rules.retain(|_| {
        let keep = first[index] == index;
        index += 1;
        keep
    });
    rules
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The index answers as the rules one by one do, for rules on `/`, on files, on
    /// directories and on unknown kinds, on nested and on sibling paths that share a prefix,
    /// and for paths that are rules, below rules, beside them, `/`, and not in normal form.
    #[test]
    fn grants_answer_as_the_rules_one_by_one() {
        let rule = |path: &str, rights: u8, kind: Kind| PathRule {
            path: path.into(),
            rights: Rights(rights),
            why: Why::Runtime,
            follow: false,
            kind,
            node: None,
        };
        let sets: Vec<Vec<PathRule>> = vec![
            vec![rule("/", 4, Kind::Dir), rule("/home/u/proj", 7, Kind::Dir), rule("/home/u/.bashrc", 4, Kind::File)],
            vec![
                rule("/usr", 5, Kind::Dir),
                rule("/usr", Rights::LIST.0, Kind::Dir),
                rule("/usr/lib", 4, Kind::Unknown),
                rule("/usr/libexec", 1, Kind::Dir),
                rule("/etc/passwd", 4, Kind::File),
                rule("/etc/passwd", 2, Kind::Dir),
                rule("/tmp", 7, Kind::Dir),
                rule("/home", Rights::LIST.0, Kind::Dir),
            ],
            vec![rule("", 1, Kind::Dir), rule("/a/", 2, Kind::Dir), rule("a", 4, Kind::Dir)],
            Vec::new(),
        ];
        let paths = [
            "/",
            "",
            "/usr",
            "/usr/",
            "/usr/lib",
            "/usr/lib/x",
            "/usr/libexec/git",
            "/usr/libx",
            "/usr/bin/env",
            "/etc/passwd",
            "/etc/passwd/x",
            "/etc",
            "/tmp/a/b",
            "/tmpx",
            "/home",
            "/home/u",
            "/home/u/proj",
            "/home/u/proj/src/main.rs",
            "/home/u/.bashrc",
            "/home/u/.bashrc.d",
            "//x",
            "/a//b",
            "/a/",
            "a/b",
            "a",
        ];
        for rules in sets {
            let policy = Policy { paths: rules, ..Policy::bare(Mode(0o0467)) };
            let grants = policy.grants();
            for p in paths {
                assert_eq!(grants.of(p), policy.granted(p), "{p:?} under {:?}", policy.paths);
            }
        }
    }

    /// A machine described by its directory listings.
    struct Fake(BTreeMap<&'static str, Vec<&'static str>>);

    impl World for Fake {
        fn list(&self, dir: &str) -> Option<Vec<Entry>> {
            self.0.get(dir).map(|v| {
                v.iter()
                    .map(|n| match n.strip_suffix('@') {
                        Some(link) => Entry { name: link.to_string(), link: true, dir: false, special: false },
                        None => Entry { name: n.to_string(), link: false, dir: !n.contains('.'), special: false },
                    })
                    .collect()
            })
        }
        fn canonical(&self, path: &str) -> Option<String> {
            // The machine's one link that leads somewhere else.
            if path == "/etc/ssl/keys" {
                return Some("/etc/ssl/private".into());
            }
            Some(path.trim_end_matches('/').to_string())
        }
        fn is_link(&self, _path: &str) -> bool {
            false
        }
    }

    fn machine() -> Fake {
        let mut m = BTreeMap::new();
        m.insert("/", vec!["etc", "usr", "bin", "home", "opt", "tmp", "var", "srv", "data@"]);
        m.insert("/home", vec!["u", "other"]);
        m.insert(
            "/home/u",
            vec![".ssh", ".bashrc", ".cargo", ".rustup", "proj", "notes", ".config", "api_token.txt", "evil@"],
        );
        m.insert("/home/u/.cargo", vec!["bin", "registry", "credentials.toml", "env"]);
        m.insert("/home/u/.rustup", vec!["toolchains", "settings.toml"]);
        // Certificates with private keys beside them, the Debian and the Red Hat way.
        m.insert("/etc/ssl", vec!["certs", "openssl.cnf", "private", "keys@", "cert.pem@"]);
        m.insert("/etc/ssl/certs", vec!["ca-certificates.crt"]);
        m.insert("/etc/pki", vec!["tls", "CA", "ca-trust", "rpm-gpg"]);
        m.insert("/etc/pki/tls", vec!["certs", "private", "openssl.cnf", "misc"]);
        m.insert("/etc/pki/CA", vec!["certs", "private"]);
        m.insert("/etc/pki/ca-trust", vec!["extracted", "source"]);
        Fake(m)
    }

    fn layout() -> Layout {
        Layout { workspace: "/home/u/proj".into(), home: Some("/home/u".into()), tmpdir: None, ..Default::default() }
    }

    fn policy(mode: u16) -> Policy {
        let l = layout();
        let inputs = Inputs {
            mode: Mode(mode),
            layout: &l,
            path_var: Some("/home/u/.cargo/bin:/usr/local/bin:/usr/bin:/bin:relative:/home/u:/etc:/:/home/u/.config"),
            real_bash: "/usr/bin/bash",
            self_exe: Some("/home/u/.cargo/bin/sandbox-bash"),
            standard_files: [None, Some("/srv/log.txt".into()), Some("/dev/pts/3".into())],
            nested: false,
            extra: Default::default(),
        };
        plan(&inputs, &machine())
    }

    /// Inputs with nothing but a mode and a layout: no PATH, no streams, not nested.
    fn bare(mode: u16, layout: &Layout) -> Inputs<'_> {
        Inputs {
            mode: Mode(mode),
            layout,
            path_var: None,
            real_bash: "/usr/bin/bash",
            self_exe: None,
            standard_files: [None, None, None],
            nested: false,
            extra: Default::default(),
        }
    }

    fn rights(p: &Policy, path: &str) -> Option<Rights> {
        p.paths.iter().find(|r| r.path == path).map(|r| r.rights)
    }

    /// What Landlock would allow at `path`: the union of the rules on it and its ancestors.
    fn effective(p: &Policy, path: &str) -> Rights {
        p.paths.iter().filter(|r| scope::is_within(path, &r.path)).fold(Rights::NONE, |a, r| a.union(r.rights))
    }

    #[test]
    fn merging_keeps_one_rule_per_path_in_first_order() {
        let rule = |path: &str, rights, why, follow, kind| PathRule {
            path: path.into(),
            rights,
            why,
            follow,
            kind,
            node: None,
        };
        let merged = merge(vec![
            rule("/b", Rights::READ, Why::External, true, Kind::Dir),
            rule("/a", Rights::RX, Why::Runtime, true, Kind::File),
            rule("/b", Rights::WRITE, Why::Workspace, false, Kind::Dir),
            rule("/c", Rights::LIST, Why::External, false, Kind::Dir),
            rule("/a", Rights::READ, Why::Program, true, Kind::Dir),
        ]);
        assert_eq!(
            merged,
            vec![
                rule("/b", Rights::READ.union(Rights::WRITE), Why::Workspace.min(Why::External), false, Kind::Dir),
                rule("/a", Rights::RX, Why::Runtime.min(Why::Program), true, Kind::Unknown),
                rule("/c", Rights::LIST, Why::External, false, Kind::Dir),
            ]
        );
    }

    #[test]
    fn private_keys_beside_certificates_are_left_out() {
        for mode in [0o0467, 0o0777, 0o0444, 0o0000] {
            let p = policy(mode);
            for key_dir in ["/etc/ssl/private", "/etc/pki/tls/private", "/etc/pki/CA/private"] {
                assert!(
                    !effective(&p, &format!("{key_dir}/server.key")).contains(Rights::READ),
                    "mode {mode:o}: {key_dir} must not be readable"
                );
            }
            // A link that leads into a key directory is left out too.
            assert_eq!(rights(&p, "/etc/ssl/keys"), None, "mode {mode:o}");
            // What programs need is there: the certificates, the configuration, other links.
            for needed in [
                "/etc/ssl/certs",
                "/etc/ssl/openssl.cnf",
                "/etc/ssl/cert.pem",
                "/etc/pki/tls/certs",
                "/etc/pki/tls/openssl.cnf",
                "/etc/pki/ca-trust",
                "/etc/pki/CA/certs",
            ] {
                assert_eq!(rights(&p, needed), Some(Rights::READ), "mode {mode:o}: {needed}");
            }
            assert_eq!(rights(&p, "/etc/ssl"), Some(Rights::LIST), "mode {mode:o}");
            assert!(p.static_only.iter().any(|s| s.text().contains("/etc/ssl/private can be listed")), "mode {mode:o}");
            assert_eq!(rights(&p, "/etc/pki/tls"), Some(Rights::LIST), "mode {mode:o}");
        }
        // With system read, everything in /etc is readable anyway, and nothing is said.
        let system_read = policy(0o4467);
        assert!(effective(&system_read, "/etc/ssl/private/server.key").contains(Rights::READ));
        assert!(!system_read.static_only.iter().any(|s| s.text().contains("/etc/ssl/private")));
    }

    #[test]
    fn default_mode_maps_each_scope() {
        let p = policy(0o0467);
        assert_eq!(rights(&p, "/"), None, "no rule may cover the whole tree");
        assert_eq!(rights(&p, "/home/u/proj"), Some(Rights::ALL));
        // External read, entered along the path to the workspace and the home directory.
        assert_eq!(rights(&p, "/opt"), Some(Rights::READ));
        assert_eq!(rights(&p, "/srv"), Some(Rights::READ));
        assert_eq!(rights(&p, "/home/other"), Some(Rights::READ));
        assert_eq!(rights(&p, "/home/u/notes"), Some(Rights::READ));
        // Directories that hold the workspace or the home directory: names only.
        assert_eq!(rights(&p, "/home"), Some(Rights::LIST));
        assert_eq!(rights(&p, "/home/u"), Some(Rights::LIST));
        // Credentials and links are left out.
        assert_eq!(rights(&p, "/home/u/.ssh"), None);
        assert_eq!(rights(&p, "/home/u/api_token.txt"), None);
        assert_eq!(rights(&p, "/home/u/evil"), None);
        assert_eq!(rights(&p, "/data"), None);
        assert_eq!(effective(&p, "/home/u/.ssh/id_rsa"), Rights::LIST, "names only, never contents");
        assert_eq!(effective(&p, "/etc/shadow"), Rights::NONE);
        assert_eq!(effective(&p, "/var/lib/x"), Rights::NONE);
        // System: only the runtime baseline.
        assert_eq!(rights(&p, "/etc"), None);
        assert_eq!(rights(&p, "/var"), None);
        assert_eq!(rights(&p, "/etc/passwd"), Some(Rights::READ));
        assert_eq!(rights(&p, "/usr"), Some(Rights::RX));
        assert_eq!(rights(&p, "/tmp"), Some(Rights::ALL));
        assert_eq!(rights(&p, "/dev/null"), Some(Rights::RW));
        assert!(p.sockets);
        assert!(!p.keyring);
        assert!(p.drop_capabilities.iter().any(|c| c.name == "CAP_SYS_ADMIN"));
    }

    #[test]
    fn directories_holding_credentials_are_entered_not_granted() {
        let mut world = machine();
        world.0.insert("/home/u/.config", vec!["gcloud", "git", "app.toml"]);
        let l = layout();
        let inputs = bare(0o0467, &l);
        let p = plan(&inputs, &world);
        // Names only where credentials are; reading everywhere else.
        assert_eq!(effective(&p, "/home/u/.config/gcloud/credentials.db"), Rights::LIST);
        assert_eq!(effective(&p, "/home/u/.cargo/credentials.toml"), Rights::LIST);
        for readable in ["/home/u/.config/git/config", "/home/u/.cargo/registry/x", "/home/u/.cargo/env"] {
            assert!(effective(&p, readable).contains(Rights::READ), "{readable}");
        }
        assert_eq!(rights(&p, "/home/u/.config"), Some(Rights::LIST));
        assert_eq!(rights(&p, "/home/u/.cargo"), Some(Rights::LIST));
    }

    #[test]
    fn a_workspace_that_holds_the_home_leaves_its_credentials_out() {
        for w in ["/home/u", "/home"] {
            let l = Layout { workspace: w.into(), home: Some("/home/u".into()), tmpdir: None, ..Default::default() };
            let inputs = bare(0o0467, &l);
            let p = plan(&inputs, &machine());
            assert_eq!(effective(&p, "/home/u/.ssh/id_rsa"), Rights::LIST, "{w}");
            assert_eq!(effective(&p, "/home/u/api_token.txt"), Rights::LIST, "{w}");
            assert_eq!(effective(&p, "/home/u/.cargo/credentials.toml"), Rights::LIST, "{w}");
            assert_eq!(effective(&p, "/home/u/notes/a.txt"), Rights::ALL.union(Rights::LIST), "{w}");
            assert!(!effective(&p, "/home/u/.bashrc").contains(Rights::WRITE), "{w}");
            assert!(p.static_only.iter().any(|s| s.text().contains("holds the home directory's credentials")));
        }
    }

    #[test]
    fn toolchains_on_path_are_read_and_execute_without_their_credentials() {
        let p = policy(0o0467);
        assert_eq!(rights(&p, "/home/u/.cargo/bin"), Some(Rights::RX));
        assert_eq!(rights(&p, "/home/u/.cargo/registry"), Some(Rights::RX));
        assert_eq!(rights(&p, "/home/u/.rustup"), Some(Rights::RX), "nothing to leave out: one rule");
        assert_eq!(rights(&p, "/home/u/.cargo/credentials.toml"), None);
        // PATH entries that hold the home directory, credentials, the system or everything are
        // ignored.
        assert_eq!(rights(&p, "/etc"), None);
        assert!(!effective(&p, "/home/u/.config/gcloud/x").contains(Rights::READ));
        assert_eq!(rights(&p, "/home/u"), Some(Rights::LIST));
        assert_eq!(rights(&p, "/"), None);
    }

    #[test]
    fn standard_streams_and_programs_get_file_rights() {
        let p = policy(0o0000);
        assert_eq!(rights(&p, "/srv/log.txt"), Some(Rights::WRITE));
        assert_eq!(rights(&p, "/usr/bin/bash"), Some(Rights::RX));
        // A file a directory rule covers already gets no rule of its own (sandbox-bash in the
        // toolchain's bin directory), unless the directory is scratch, whose fixed name may be
        // a link on some systems (the terminal under /dev/pts).
        assert_eq!(rights(&p, "/dev/pts/3"), Some(Rights::WRITE));
        assert_eq!(rights(&p, "/home/u/.cargo/bin/sandbox-bash"), None);
        assert!(effective(&p, "/home/u/.cargo/bin/sandbox-bash").contains(Rights::RX));
        // Nor does a directory the external cover would enter, once granted whole: Cargo's
        // home without credentials, a toolchain on PATH, under the default mode.
        let l = layout();
        let mut inputs = bare(0o0467, &l);
        inputs.path_var = Some("/home/u/.cargo/bin");
        let mut without_credentials = machine();
        without_credentials.0.insert("/home/u/.cargo", vec!["bin", "registry", "env"]);
        let t = plan(&inputs, &without_credentials);
        assert_eq!(rights(&t, "/home/u/.cargo"), Some(Rights::RX));
        assert_eq!(rights(&t, "/home/u/.cargo/bin"), None);
        assert_eq!(rights(&t, "/home/u/.cargo/env"), None);
        // With credentials there, it is entered and they are left out.
        let t = plan(&inputs, &machine());
        assert_eq!(rights(&t, "/home/u/.cargo"), Some(Rights::LIST));
        assert_eq!(rights(&t, "/home/u/.cargo/bin"), Some(Rights::RX));
        assert_eq!(rights(&t, "/home/u/.cargo/env"), Some(Rights::RX));
        assert!(!effective(&t, "/home/u/.cargo/credentials.toml").contains(Rights::READ));
        assert_eq!(rights(&p, "/home/u/proj"), None);
        assert_eq!(rights(&p, "/opt"), None);
        assert!(!p.sockets);
    }

    #[test]
    fn the_shortcut_for_entries_agrees_with_the_scope_table() {
        // Every external rule the planner writes is external by the full table.
        for mode in [0o0467, 0o0667, 0o0767] {
            let p = policy(mode);
            let l = layout();
            for r in p.paths.iter().filter(|r| r.why == Why::External) {
                assert_eq!(l.classify(&r.path, false), Class::External, "{}", r.path);
            }
        }
    }

    #[test]
    fn configured_credentials_and_runtime_paths() {
        let mut world = machine();
        world.0.insert("/srv", vec!["secrets", "www"]);
        world.0.insert("/home/u/notes", vec!["todo", "other"]);
        let l = Layout {
            extra_credentials: vec!["/srv/secrets".into()].into(),
            extra_protected: vec!["/home/u/notes/todo".into()].into(),
            ..layout()
        };
        let inputs = |mode: u16, ceiling: Option<Mode>| Inputs {
            extra: Extra {
                runtime_read: vec!["/opt/data".into()],
                runtime_execute: vec!["/opt/tool/bin".into(), "/var/lib/tool".into()],
                ceiling,
                ..Default::default()
            },
            ..bare(mode, &l)
        };
        let p = plan(&inputs(0o0667, None), &world);
        assert_eq!(effective(&p, "/srv/secrets/db.key"), Rights::LIST, "entered, never granted");
        assert!(effective(&p, "/srv/www/index.html").contains(Rights::RW));
        assert!(!effective(&p, "/home/u/notes/todo").contains(Rights::WRITE), "protected stays unwritable");
        assert!(effective(&p, "/home/u/notes/other").contains(Rights::WRITE));
        assert_eq!(effective(&p, "/opt/data/x"), Rights::RW, "external rw, runtime read within it");
        assert!(effective(&p, "/opt/tool/bin/t").contains(Rights::EXECUTE));
        assert!(effective(&p, "/var/lib/tool/x").contains(Rights::EXECUTE));
        // The ceiling bounds them: no system bits, no system runtime path.
        let p = plan(&inputs(0o0667, Some(Mode(0o0467))), &world);
        assert!(!effective(&p, "/var/lib/tool/x").contains(Rights::READ));
        assert!(!effective(&p, "/opt/tool/bin/t").contains(Rights::EXECUTE), "external execute is above the ceiling");
        // System read opens configured credentials too.
        let p = plan(&inputs(0o4467, None), &world);
        assert!(effective(&p, "/srv/secrets/db.key").contains(Rights::READ));
    }

    #[test]
    fn startup_files_never_get_external_write() {
        let p = policy(0o0667);
        assert_eq!(rights(&p, "/home/u/notes"), Some(Rights::RW));
        assert_eq!(rights(&p, "/home/u/.bashrc"), Some(Rights::READ));
    }

    #[test]
    fn system_bits_reach_system_roots_and_credentials() {
        let p = policy(0o4467);
        assert_eq!(rights(&p, "/"), Some(Rights::READ), "every scope reads, so the whole tree may");
        assert_eq!(effective(&p, "/etc/shadow"), Rights::READ);
        assert_eq!(effective(&p, "/home/u/.ssh/id_rsa"), Rights::READ);
        assert!(p.keyring);
        let p = policy(0o6467);
        assert_eq!(rights(&p, "/etc"), Some(Rights::RW));
        assert_eq!(rights(&p, "/home/u/.ssh"), Some(Rights::RW));
        assert_eq!(rights(&p, "/home/u/.cargo/credentials.toml"), Some(Rights::RW));
        assert_eq!(effective(&p, "/home/u/.ssh/id_rsa"), Rights::RW);
        assert_eq!(effective(&p, "/home/u/proj/x"), Rights::ALL);
        let p = policy(0o1467);
        // Only the capabilities that would plant privileges for later go.
        assert_eq!(p.drop_capabilities, PRIVILEGE_CAPABILITIES);
    }

    #[test]
    fn full_mode_is_one_rule_for_everything() {
        let p = policy(0o7777);
        assert_eq!(rights(&p, "/"), Some(Rights::ALL));
        assert!(p.sockets && p.keyring && p.new_code);
        assert_eq!(p.drop_capabilities, PRIVILEGE_CAPABILITIES);
    }

    #[test]
    fn network_off_means_no_sockets() {
        assert!(!policy(0o0407).sockets);
        assert!(policy(0o0447).sockets);
        assert!(policy(0o0427).sockets);
        assert!(!policy(0o0417).sockets, "network execute alone is static only");
    }

    #[test]
    fn scratch_runs_programs_only_with_workspace_execute() {
        for (mode, scratch, new_code) in
            [(0o0444, Rights::RW, false), (0o0446, Rights::RW, false), (0o0467, Rights::ALL, true)]
        {
            let p = policy(mode);
            assert_eq!(rights(&p, "/tmp"), Some(scratch), "{mode:o}");
            assert_eq!(p.new_code, new_code, "{mode:o}");
        }
    }

    #[test]
    fn priorities_limits_and_file_privileges_are_dropped_from_root() {
        let names =
            |mode: u16| -> Vec<&'static str> { policy(mode).drop_capabilities.iter().map(|c| c.name).collect() };
        for mode in [0o0467, 0o6777] {
            for cap in ["CAP_SYS_NICE", "CAP_SYS_RESOURCE", "CAP_FSETID", "CAP_SETFCAP"] {
                assert!(names(mode).contains(&cap), "{mode:o} keeps {cap}");
            }
        }
        assert_eq!(names(0o1467), ["CAP_FSETID", "CAP_SETFCAP"]);
    }

    #[test]
    fn read_only_audit_has_no_write_anywhere_but_scratch() {
        let p = policy(0o0444);
        for r in &p.paths {
            if r.rights.contains(Rights::WRITE) {
                assert!(
                    matches!(r.why, Why::Scratch | Why::StandardStream),
                    "{} has write in a read-only audit",
                    r.path
                );
            }
        }
        assert_eq!(rights(&p, "/home/u/proj"), Some(Rights::READ));
    }

    #[test]
    fn nested_invocations_take_unlistable_directories_whole() {
        let l = layout();
        let mut world = machine();
        world.0.remove("/");
        world.0.remove("/home/u/.cargo");
        for nested in [false, true] {
            let inputs = Inputs { path_var: Some("/home/u/.cargo/bin"), nested, ..bare(0o0467, &l) };
            let p = plan(&inputs, &world);
            let expect = |r: Rights| if nested { Some(r) } else { None };
            assert_eq!(rights(&p, "/"), expect(Rights::READ));
            assert_eq!(rights(&p, "/home/u/.cargo"), expect(Rights::RX));
            assert_eq!(rights(&p, "/home/u/.rustup"), Some(Rights::RX));
        }
    }

    #[test]
    fn a_workspace_in_scratch_is_stated_as_static_only() {
        let l = Layout {
            workspace: "/tmp/ci/checkout".into(),
            home: Some("/home/u".into()),
            tmpdir: None,
            ..Default::default()
        };
        let inputs = bare(0o0444, &l);
        let p = plan(&inputs, &machine());
        assert!(p.static_only.iter().any(|s| s.text().contains("inside scratch space")), "{:?}", p.static_only);
    }
}
