//! Applying a [`Policy`] to this very process on Linux, right before `execve`: open every
//! path, set no_new_privs, drop capabilities, restrict with Landlock (filesystem, TCP and
//! scopes in one ruleset), install the seccomp filter, and check that each step holds.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

use super::error::{Error, Held};
use super::policy::{Kind, Policy, Rights};
use super::seccomp::{self, Insn};
use super::{Enforcement, Shortfall};

/// The Landlock ABI of the running kernel: `Err` with the reason when there is none.
pub fn landlock_abi() -> Result<i32, String> {
    // Debug builds only: tests pretend to run on an older kernel (0: none) to check that
    // sandbox-bash refuses. Release builds have no such switch.
    #[cfg(debug_assertions)]
    if let Some(v) = std::env::var_os("SANDBOX_BASH_TEST_LANDLOCK_ABI") {
        let pretend: i32 = v.to_string_lossy().parse().unwrap_or(0);
        if pretend < 1 {
            return Err("the kernel has no Landlock (pretended by SANDBOX_BASH_TEST_LANDLOCK_ABI)".into());
        }
        return Ok(pretend.min(real_landlock_abi()?));
    }
    real_landlock_abi()
}

fn real_landlock_abi() -> Result<i32, String> {
    // SAFETY: with a null attribute, size 0 and the VERSION flag the call only returns the
    // ABI version (or an error); it touches no memory.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            uapi::CREATE_RULESET_VERSION,
        )
    };
    if v >= 1 {
        return Ok(v as i32);
    }
    let e = std::io::Error::last_os_error();
    Err(match e.raw_os_error() {
        Some(libc::ENOSYS) => "the kernel has no Landlock (built without CONFIG_SECURITY_LANDLOCK)".into(),
        Some(libc::EOPNOTSUPP) => {
            "Landlock is built into the kernel but not enabled (add landlock to the lsm= boot parameter)".into()
        }
        _ => format!("Landlock is not usable: {e}"),
    })
}

/// The Landlock ABI that `policy` needs to be fully enforced: truncation rights (ABI 3)
/// whenever some scope may not write, TCP rules (ABI 4) when the network is off.
pub fn required_abi(policy: &Policy) -> (i32, &'static str) {
    if !policy.sockets {
        (4, "TCP bind and connect rules (ABI 4, Linux 6.7)")
    } else {
        (3, "the truncate right (ABI 3, Linux 6.2)")
    }
}

/// Landlock's access rights and flags, as the kernel's uapi header defines them.
mod uapi {
    pub const CREATE_RULESET_VERSION: u32 = 1;
    pub const RULE_PATH_BENEATH: u32 = 1;

    pub const FS_EXECUTE: u64 = 1 << 0;
    pub const FS_WRITE_FILE: u64 = 1 << 1;
    pub const FS_READ_FILE: u64 = 1 << 2;
    pub const FS_READ_DIR: u64 = 1 << 3;
    pub const FS_REMOVE_DIR: u64 = 1 << 4;
    pub const FS_REMOVE_FILE: u64 = 1 << 5;
    pub const FS_MAKE_CHAR: u64 = 1 << 6;
    pub const FS_MAKE_DIR: u64 = 1 << 7;
    pub const FS_MAKE_REG: u64 = 1 << 8;
    pub const FS_MAKE_SOCK: u64 = 1 << 9;
    pub const FS_MAKE_FIFO: u64 = 1 << 10;
    pub const FS_MAKE_BLOCK: u64 = 1 << 11;
    pub const FS_MAKE_SYM: u64 = 1 << 12;
    /// ABI 2.
    pub const FS_REFER: u64 = 1 << 13;
    /// ABI 3.
    pub const FS_TRUNCATE: u64 = 1 << 14;
    /// ABI 5.
    pub const FS_IOCTL_DEV: u64 = 1 << 15;

    /// ABI 4.
    pub const NET_BIND_TCP: u64 = 1 << 0;
    pub const NET_CONNECT_TCP: u64 = 1 << 1;

    /// ABI 6.
    pub const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
    pub const SCOPE_SIGNAL: u64 = 1 << 1;

    /// `struct landlock_ruleset_attr`.
    #[repr(C)]
    pub struct RulesetAttr {
        pub handled_access_fs: u64,
        pub handled_access_net: u64,
        pub scoped: u64,
    }

    /// `struct landlock_path_beneath_attr` (packed).
    #[repr(C, packed)]
    pub struct PathBeneathAttr {
        pub allowed_access: u64,
        pub parent_fd: i32,
    }
}

/// Read: files and directory listings, never execute.
const READ: u64 = uapi::FS_READ_FILE | uapi::FS_READ_DIR;

/// The write class on `abi`: writing, creating, removing, linking and renaming, truncating,
/// and device ioctls where the ABI has them.
fn write_rights(abi: i32) -> u64 {
    use uapi::*;
    let mut w = FS_WRITE_FILE
        | FS_REMOVE_DIR
        | FS_REMOVE_FILE
        | FS_MAKE_CHAR
        | FS_MAKE_DIR
        | FS_MAKE_REG
        | FS_MAKE_SOCK
        | FS_MAKE_FIFO
        | FS_MAKE_BLOCK
        | FS_MAKE_SYM;
    if abi >= 2 {
        w |= FS_REFER;
    }
    if abi >= 3 {
        w |= FS_TRUNCATE;
    }
    if abi >= 5 {
        w |= FS_IOCTL_DEV;
    }
    w
}

/// The rights that make sense on a file that is not a directory.
fn file_rights(abi: i32) -> u64 {
    use uapi::*;
    let mut f = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE;
    if abi >= 3 {
        f |= FS_TRUNCATE;
    }
    if abi >= 5 {
        f |= FS_IOCTL_DEV;
    }
    f
}

/// Every filesystem right this ABI handles.
fn handled_fs(abi: i32) -> u64 {
    READ | write_rights(abi) | uapi::FS_EXECUTE
}

fn landlock_rights(r: Rights, abi: i32, directory: bool) -> u64 {
    let mut a = 0;
    if r.contains(Rights::READ) {
        a |= READ;
    }
    if r.contains(Rights::LIST) {
        a |= uapi::FS_READ_DIR;
    }
    if r.contains(Rights::WRITE) {
        a |= write_rights(abi);
    }
    if r.contains(Rights::EXECUTE) {
        a |= uapi::FS_EXECUTE;
    }
    if directory { a } else { a & file_rights(abi) }
}

/// Opens a rule's path without following a final symlink unless the rule says so. `Ok(None)`
/// for paths that do not exist or cannot be reached (a rule skipped never grants anything), and
/// for symlinks that must not be followed. A path planned as a directory is opened as one (no
/// second system call to ask); if it no longer is one, it is looked at afresh. When the process
/// is out of descriptors or memory the rule is not skipped: that is an error, since going on
/// would deny paths the mode allows without saying why.
fn open_rule_path(path: &str, follow: bool, kind: Kind) -> Result<Option<(OwnedFd, bool)>, Error> {
    let Ok(c) = CString::new(std::path::Path::new(path).as_os_str().as_bytes()) else { return Ok(None) };
    let flags = libc::O_PATH | libc::O_CLOEXEC | if follow { 0 } else { libc::O_NOFOLLOW };
    // The system call itself: some C libraries add an fcntl after every open with O_CLOEXEC,
    // and this runs a hundred times at every start.
    let open = |flags: i32| -> Result<Result<OwnedFd, i32>, Error> {
        // SAFETY: `c` is a valid NUL-terminated path; the descriptor is owned below.
        let fd = unsafe { libc::syscall(libc::SYS_openat, libc::AT_FDCWD, c.as_ptr(), flags, 0) };
        if fd >= 0 {
            // SAFETY: just opened, owned by nothing else.
            return Ok(Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) }));
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EMFILE | libc::ENFILE | libc::ENOMEM) => Err(Error::OpenRule { path: path.into(), source: e }),
            code => Ok(Err(code.unwrap_or(0))),
        }
    };
    if kind == Kind::File {
        // File rights only: on a link (not followed) they match nothing, on a directory they
        // grant less than planned. No need to ask what it is.
        return Ok(open(flags)?.ok().map(|fd| (fd, false)));
    }
    if kind == Kind::Dir {
        match open(flags | libc::O_DIRECTORY)? {
            Ok(fd) => return Ok(Some((fd, true))),
            // Only something that is there but no directory is worth a second look.
            Err(code) if code != libc::ENOTDIR => return Ok(None),
            Err(_) => {}
        }
    }
    let Ok(fd) = open(flags)? else { return Ok(None) };
    // SAFETY: an all-zero stat is a valid value to be overwritten by fstat.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open and `st` is a valid out-pointer.
    if unsafe { libc::syscall(libc::SYS_fstat, fd.as_raw_fd(), &mut st as *mut libc::stat) } != 0 {
        return Ok(None);
    }
    Ok(match st.st_mode & libc::S_IFMT {
        libc::S_IFLNK => None,
        libc::S_IFDIR => Some((fd, true)),
        _ => Some((fd, false)),
    })
}

/// The entries of a directory (name, and whether it is a symlink), by `getdents64` into a
/// buffer of our own: the C library's `opendir` maps and unmaps memory for every directory.
/// Names that are not UTF-8 are left out (no rule can be written for them here). `None` when
/// the directory cannot be opened.
pub fn list_dir(dir: &str) -> Option<Vec<super::policy::Entry>> {
    let c = CString::new(dir).ok()?;
    // SAFETY: `c` is a valid NUL-terminated path.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat,
            libc::AT_FDCWD,
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            0,
        )
    };
    if fd < 0 {
        return None;
    }
    // SAFETY: the descriptor was just opened and nothing else owns it.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as i32) };
    let mut out = Vec::with_capacity(32);
    // One page: the directories listed at start-up are small, and every page of stack touched
    // for the first time is a page fault; a big directory just takes more calls. It is not
    // cleared first: only what the kernel writes is read.
    let mut buf = std::mem::MaybeUninit::<[u64; 512]>::uninit();
    loop {
        // SAFETY: `buf` is writable for its whole size.
        let n = unsafe {
            libc::syscall(libc::SYS_getdents64, fd.as_raw_fd(), buf.as_mut_ptr(), std::mem::size_of_val(&buf))
        };
        if n < 0 {
            return None;
        }
        if n == 0 {
            return Some(out);
        }
        // SAFETY: the kernel wrote `n` bytes of dirent64 records into `buf`.
        let bytes = unsafe {
            std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), (n as usize).min(std::mem::size_of_val(&buf)))
        };
        let mut at = 0usize;
        // struct linux_dirent64 { u64 d_ino; i64 d_off; u16 d_reclen; u8 d_type; char d_name[]; }
        while at + 19 <= bytes.len() {
            let reclen = usize::from(u16::from_ne_bytes([bytes[at + 16], bytes[at + 17]]));
            if reclen == 0 || at + reclen > bytes.len() {
                return None;
            }
            let kind = bytes[at + 18];
            let name = &bytes[at + 19..at + reclen];
            let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
            if name != b"."
                && name != b".."
                && let Ok(text) = std::str::from_utf8(name)
            {
                let link = match kind {
                    libc::DT_LNK => true,
                    // Some filesystems do not say: ask, and count it as a link if that fails.
                    libc::DT_UNKNOWN => is_symlink_at(fd.as_raw_fd(), name).unwrap_or(true),
                    _ => false,
                };
                out.push(super::policy::Entry { name: text.to_string(), link, dir: kind == libc::DT_DIR });
            }
            at += reclen;
        }
    }
}

fn is_symlink_at(dir: i32, name: &[u8]) -> Option<bool> {
    let c = CString::new(name).ok()?;
    // SAFETY: an all-zero stat is a valid value to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `dir` is open, `c` is NUL-terminated and `st` a valid out-pointer.
    let rc = unsafe { libc::fstatat(dir, c.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
    (rc == 0).then_some(st.st_mode & libc::S_IFMT == libc::S_IFLNK)
}

/// What an open descriptor is, as far as the runtime rules care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FdKind {
    /// A regular file.
    File,
    /// One of the devices the runtime rules grant read and write on in every mode, the very
    /// node of that name: `/dev/null`, `/dev/zero`, `/dev/full`, `/dev/random`, `/dev/urandom`,
    /// `/dev/tty`, `/dev/ptmx` or a terminal in `/dev/pts`.
    ScratchDevice,
    /// Any other character device (one of those devices through another node included).
    OtherDevice,
    /// A pipe, socket, directory or anything else no file rule is written for.
    Other,
}

fn fstat_fd(fd: i32) -> Option<libc::stat> {
    // SAFETY: an all-zero stat is a valid value to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is a valid out-pointer; an fd that is not open gives EBADF.
    (unsafe { libc::fstat(fd, &mut st) } == 0).then_some(st)
}

/// The device and inode of the file at `path`.
fn node_identity(path: &str) -> Option<(u64, u64)> {
    let c = CString::new(path).ok()?;
    // SAFETY: an all-zero stat is a valid value to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is NUL-terminated and `st` a valid out-pointer.
    (unsafe { libc::stat(c.as_ptr(), &mut st) } == 0).then_some((st.st_dev, st.st_ino))
}

/// The kind of descriptor `fd`, `None` when it is not open. Cheaper than reading its link in
/// `/proc`: a device is compared with the node the runtime rules name, by device and inode.
pub fn fd_kind(fd: i32) -> Option<FdKind> {
    fd_kinds([fd])[0]
}

/// [`fd_kind`] for several descriptors, looking at each device node once (descriptors 0, 1
/// and 2 are often all `/dev/null`).
pub fn fd_kinds<const N: usize>(fds: [i32; N]) -> [Option<FdKind>; N] {
    let mut nodes: Vec<(String, Option<(u64, u64)>)> = Vec::new();
    fds.map(|fd| {
        let st = fstat_fd(fd)?;
        Some(match st.st_mode & libc::S_IFMT {
            libc::S_IFREG => FdKind::File,
            libc::S_IFCHR => {
                let (major, minor) = (libc::major(st.st_rdev), libc::minor(st.st_rdev));
                // The memory devices (1), the tty and ptmx (5), the Unix98 pseudo-terminals
                // (136-143).
                let node = match (major, minor) {
                    (1, 3) => Some("/dev/null".to_string()),
                    (1, 5) => Some("/dev/zero".to_string()),
                    (1, 7) => Some("/dev/full".to_string()),
                    (1, 8) => Some("/dev/random".to_string()),
                    (1, 9) => Some("/dev/urandom".to_string()),
                    (5, 0) => Some("/dev/tty".to_string()),
                    (5, 2) => Some("/dev/ptmx".to_string()),
                    (136..=143, n) => Some(format!("/dev/pts/{}", (major - 136) * 256 + n)),
                    _ => None,
                };
                let named = node.and_then(|n| match nodes.iter().find(|(seen, _)| *seen == n) {
                    Some((_, identity)) => *identity,
                    None => {
                        let identity = node_identity(&n);
                        nodes.push((n, identity));
                        identity
                    }
                });
                if named == Some((st.st_dev, st.st_ino)) { FdKind::ScratchDevice } else { FdKind::OtherDevice }
            }
            _ => FdKind::Other,
        })
    })
}

/// Everything that can be checked and prepared before the first irreversible step.
pub struct Prepared {
    abi: Option<i32>,
    ruleset: Option<OwnedFd>,
    filter: Option<Vec<Insn>>,
    drop: Vec<u8>,
    shortfalls: Vec<Shortfall>,
    /// Rules on paths the namespace layer mounts anew: opened once the view is built, so that
    /// they name the new file systems.
    late: Vec<super::policy::PathRule>,
}

/// The paths the namespace layer gives file systems of the command's own.
const REMOUNTED: &[&str] = &["/dev/pts", "/dev/shm", "/dev/ptmx"];

/// What the kernel offers against what `policy` needs: the Landlock ABI, and everything it
/// cannot enforce.
pub fn shortfalls(policy: &Policy) -> (Option<i32>, Vec<Shortfall>) {
    let mut shortfalls = Vec::new();
    let abi = match landlock_abi() {
        Ok(v) => Some(v),
        Err(why) => {
            shortfalls.push(Shortfall { what: "filesystem and TCP rules (Landlock)".into(), why });
            None
        }
    };
    if let Some(v) = abi {
        let (needed, what) = required_abi(policy);
        if v < needed {
            shortfalls.push(Shortfall {
                what: what.into(),
                why: format!("the kernel offers Landlock ABI {v}, {needed} is needed"),
            });
        }
    }
    match seccomp::native() {
        None => shortfalls.push(Shortfall {
            what: "the seccomp filter".into(),
            why: format!("sandbox-bash has no system call table for {}", std::env::consts::ARCH),
        }),
        // SAFETY: PR_GET_SECCOMP takes integer arguments only.
        Some(_) if unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } < 0 => shortfalls.push(Shortfall {
            what: "the seccomp filter".into(),
            why: format!("the kernel has no seccomp: {}", std::io::Error::last_os_error()),
        }),
        Some(_) => {}
    }
    (abi, shortfalls)
}

/// Checks what the kernel offers against what `policy` needs and opens every path. Nothing
/// is restricted yet.
pub fn prepare(policy: &Policy) -> Result<Prepared, Error> {
    let (abi, shortfalls) = shortfalls(policy);
    let filter = match seccomp::native().filter(|_| !shortfalls.iter().any(|s| s.what == "the seccomp filter")) {
        Some(arch) => Some(
            seccomp::program(
                arch,
                seccomp::Rules { sockets: policy.sockets, keyring: policy.keyring, new_code: policy.new_code },
            )
            .map_err(Error::SeccompProgram)?,
        ),
        None => None,
    };
    let late: Vec<_> = policy.paths.iter().filter(|r| REMOUNTED.contains(&r.path.as_str())).cloned().collect();
    let ruleset = match abi {
        Some(v) => Some(build_ruleset(policy, v)?),
        None => None,
    };
    Ok(Prepared {
        abi,
        ruleset,
        filter,
        drop: policy.drop_capabilities.iter().map(|c| c.number).collect(),
        shortfalls,
        late,
    })
}

impl Prepared {
    /// What the kernel cannot enforce here.
    pub fn shortfalls(&self) -> &[Shortfall] {
        &self.shortfalls
    }

    /// The Landlock ABI, if there is Landlock.
    pub fn abi(&self) -> Option<i32> {
        self.abi
    }
}

fn build_ruleset(policy: &Policy, abi: i32) -> Result<OwnedFd, Error> {
    let attr = uapi::RulesetAttr {
        handled_access_fs: handled_fs(abi),
        handled_access_net: if !policy.sockets && abi >= 4 { uapi::NET_BIND_TCP | uapi::NET_CONNECT_TCP } else { 0 },
        // Scoping came with ABI 6; older kernels go without it (--sandbox-info says so).
        scoped: if policy.scoped && abi >= 6 { uapi::SCOPE_ABSTRACT_UNIX_SOCKET | uapi::SCOPE_SIGNAL } else { 0 },
    };
    // The attribute grew with the ABI; older kernels accept only the fields they know.
    let size: usize = match abi {
        ..=3 => 8,
        4 | 5 => 16,
        _ => std::mem::size_of::<uapi::RulesetAttr>(),
    };
    // SAFETY: `attr` is a valid landlock_ruleset_attr of at least `size` bytes.
    let fd = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, &attr as *const uapi::RulesetAttr, size, 0u32) };
    if fd < 0 {
        return Err(Error::Ruleset(std::io::Error::last_os_error()));
    }
    // SAFETY: the kernel just returned this descriptor; nothing else owns it.
    let ruleset = unsafe { OwnedFd::from_raw_fd(fd as i32) };
    // Each descriptor is closed as soon as its rule is added. Leaving a hundred of them for exec
    // to close saves the close calls but made start-up slower as a whole (measured: about 0.02
    // ms): the table of descriptors grows, and exec then closes files whose memory is cold.
    for rule in policy.paths.iter().filter(|r| !REMOUNTED.contains(&r.path.as_str())) {
        add_rule(&ruleset, rule, abi)?;
    }
    Ok(ruleset)
}

fn add_rule(ruleset: &OwnedFd, rule: &super::policy::PathRule, abi: i32) -> Result<(), Error> {
    let handled = handled_fs(abi);
    {
        let Some((fd, directory)) = open_rule_path(&rule.path, rule.follow, rule.kind)? else { return Ok(()) };
        let access = landlock_rights(rule.rights, abi, directory) & handled;
        if access == 0 {
            return Ok(());
        }
        let beneath = uapi::PathBeneathAttr { allowed_access: access, parent_fd: fd.as_raw_fd() };
        // SAFETY: `beneath` is a valid landlock_path_beneath_attr; both descriptors are open.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_landlock_add_rule,
                ruleset.as_raw_fd(),
                uapi::RULE_PATH_BENEATH,
                &beneath as *const uapi::PathBeneathAttr,
                0u32,
            )
        };
        if rc != 0 {
            return Err(Error::AddRule {
                path: rule.path.clone(),
                rights: rule.rights.letters(),
                source: std::io::Error::last_os_error(),
            });
        }
    }
    Ok(())
}

/// The outcome of the irreversible steps.
pub enum Applied {
    /// Every step holds.
    Done(Enforcement),
    /// Landlock refused another layer (its limit is 16 nested domains); everything else holds.
    LayerLimit(Enforcement),
}

/// Applies the prepared rules to this process, in order: the namespace layer and its view
/// (when one is planned), no_new_privs, capabilities, Landlock, seccomp. Then reads back what
/// holds. The process must be single-threaded.
pub fn apply(
    prepared: Prepared,
    layer: Option<(&super::view::View, Option<&super::namespace::Frozen>)>,
) -> Result<Applied, Error> {
    let mut enforcement = Enforcement { landlock_abi: prepared.abi, ..Enforcement::default() };
    // Mounts first: Landlock refuses them once it is in force.
    if let Some((view, frozen)) = layer {
        enforcement.namespaces = Some(super::namespace::enter(view, frozen).map_err(Error::Namespace)?);
    }

    // SAFETY: PR_SET_NO_NEW_PRIVS takes integer arguments only.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(Error::NoNewPrivs(std::io::Error::last_os_error()));
    }
    drop_capabilities(&prepared.drop)?;

    if let (Some(ruleset), Some(abi)) = (&prepared.ruleset, prepared.abi) {
        for rule in &prepared.late {
            add_rule(ruleset, rule, abi)?;
        }
    }
    let mut layer_limit = false;
    if let Some(ruleset) = prepared.ruleset {
        // SAFETY: `ruleset` is an open Landlock ruleset descriptor; flags 0.
        let rc = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) };
        if rc == 0 {
            enforcement.landlock = true;
        } else {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::E2BIG) {
                // Sixteen layers already: the enclosing ones bind; the caller decides.
                layer_limit = true;
            } else {
                return Err(Error::Restrict(e));
            }
        }
    }
    if let Some(filter) = &prepared.filter {
        install_filter(filter)?;
    }

    // Read back what holds.
    // SAFETY: these prctl calls take integer arguments only.
    enforcement.no_new_privs = unsafe { libc::prctl(libc::PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) } == 1;
    if !enforcement.no_new_privs {
        return Err(Error::NotHeld(Held::NoNewPrivs));
    }
    // SAFETY: as above.
    enforcement.seccomp = unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } == 2;
    if prepared.filter.is_some() && !enforcement.seccomp {
        return Err(Error::NotHeld(Held::Seccomp));
    }
    let caps = capabilities()?;
    for &cap in &prepared.drop {
        let bit = 1u64 << cap;
        if (caps.effective | caps.permitted | caps.inheritable) & bit != 0 {
            return Err(Error::NotHeld(Held::Capability(cap)));
        }
    }
    enforcement.capabilities_dropped = prepared.drop.len();
    Ok(if layer_limit { Applied::LayerLimit(enforcement) } else { Applied::Done(enforcement) })
}

fn install_filter(filter: &[Insn]) -> Result<(), Error> {
    #[repr(C)]
    struct SockFprog {
        len: libc::c_ushort,
        filter: *const Insn,
    }
    let len = libc::c_ushort::try_from(filter.len()).map_err(|_| Error::FilterTooLong(filter.len()))?;
    let prog = SockFprog { len, filter: filter.as_ptr() };
    // SAFETY: `prog` points at `len` valid instructions laid out as struct sock_filter, alive
    // for the duration of the call; the kernel copies them.
    let rc = unsafe {
        libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER as libc::c_ulong, &prog as *const SockFprog, 0, 0)
    };
    if rc != 0 {
        return Err(Error::Seccomp(std::io::Error::last_os_error()));
    }
    Ok(())
}

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// This thread's capability sets, 64 bits each.
pub struct CapSets {
    pub effective: u64,
    pub permitted: u64,
    pub inheritable: u64,
}

fn capabilities() -> Result<CapSets, Error> {
    let mut header = CapHeader { version: CAPABILITY_VERSION_3, pid: 0 };
    let mut data = [CapData::default(); 2];
    // SAFETY: header and a two-element data array, as version 3 requires.
    let rc = unsafe { libc::syscall(libc::SYS_capget, &mut header as *mut CapHeader, data.as_mut_ptr()) };
    if rc != 0 {
        return Err(Error::ReadCapabilities(std::io::Error::last_os_error()));
    }
    let join = |lo: u32, hi: u32| u64::from(lo) | (u64::from(hi) << 32);
    Ok(CapSets {
        effective: join(data[0].effective, data[1].effective),
        permitted: join(data[0].permitted, data[1].permitted),
        inheritable: join(data[0].inheritable, data[1].inheritable),
    })
}

/// Drops `caps` from the bounding set and from the effective, permitted and inheritable sets
/// of this thread. The kernel lowers an ambient capability by itself once it is no longer both
/// permitted and inheritable.
fn drop_capabilities(caps: &[u8]) -> Result<(), Error> {
    if caps.is_empty() {
        return Ok(());
    }
    let now = capabilities()?;
    const CAP_SETPCAP: u64 = 1 << 8;
    for &cap in caps {
        // The bounding set bounds what any later exec can gain; changing it needs
        // CAP_SETPCAP. Without it, no_new_privs already stops every gain.
        if now.effective & CAP_SETPCAP != 0 {
            // SAFETY: integer arguments only.
            let rc = unsafe { libc::prctl(libc::PR_CAPBSET_DROP, libc::c_ulong::from(cap), 0, 0, 0) };
            if rc != 0 {
                let source = std::io::Error::last_os_error();
                if source.raw_os_error() != Some(libc::EINVAL) {
                    return Err(Error::BoundingSet { cap, source });
                }
            }
        }
    }
    let mask: u64 = caps.iter().fold(0, |m, &c| m | (1u64 << c));
    let keep = |set: u64| set & !mask;
    let split = |set: u64| ((set & 0xffff_ffff) as u32, (set >> 32) as u32);
    let (e0, e1) = split(keep(now.effective));
    let (p0, p1) = split(keep(now.permitted));
    let (i0, i1) = split(keep(now.inheritable));
    let mut header = CapHeader { version: CAPABILITY_VERSION_3, pid: 0 };
    let data = [
        CapData { effective: e0, permitted: p0, inheritable: i0 },
        CapData { effective: e1, permitted: p1, inheritable: i1 },
    ];
    // SAFETY: header and a two-element data array, as version 3 requires; lowering sets is
    // always permitted.
    let rc = unsafe { libc::syscall(libc::SYS_capset, &mut header as *mut CapHeader, data.as_ptr()) };
    if rc != 0 {
        return Err(Error::DropCapabilities(std::io::Error::last_os_error()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_directories_and_marks_links() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("file"), "").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::os::unix::fs::symlink("/etc", dir.path().join("link")).unwrap();
        for i in 0..300 {
            std::fs::write(dir.path().join(format!("many-{i:03}")), "").unwrap();
        }
        let got = list_dir(dir.path().to_str().unwrap()).unwrap();
        assert_eq!(got.len(), 303);
        let find = |n: &str| got.iter().find(|e| e.name == n).map(|e| (e.link, e.dir));
        assert_eq!(find("file"), Some((false, false)));
        assert_eq!(find("sub"), Some((false, true)));
        assert_eq!(find("link"), Some((true, false)));
        assert!(list_dir("/nonexistent-sandbox-bash-test").is_none());
    }

    #[test]
    fn descriptors_are_told_apart_by_kind_and_node() {
        use std::os::fd::AsRawFd;
        let dir = tempfile::tempdir().unwrap();
        let file = std::fs::File::create(dir.path().join("f")).unwrap();
        assert_eq!(fd_kind(file.as_raw_fd()), Some(FdKind::File));
        let null = std::fs::File::open("/dev/null").unwrap();
        assert_eq!(fd_kind(null.as_raw_fd()), Some(FdKind::ScratchDevice));
        let mut ends = [0i32; 2];
        // SAFETY: `ends` has room for the two descriptors.
        assert_eq!(unsafe { libc::pipe(ends.as_mut_ptr()) }, 0);
        // SAFETY: both descriptors were just created and are owned here.
        let (r, _w) = unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
        assert_eq!(fd_kind(r.as_raw_fd()), Some(FdKind::Other));
        let closed = {
            let f = std::fs::File::open("/dev/null").unwrap();
            f.as_raw_fd()
        };
        assert_eq!(fd_kind(closed), None);
        // The same device through another node is not the node the rules name: it needs its own
        // rule, as the file it is.
        let other = dir.path().join("null-elsewhere");
        let c = CString::new(other.to_str().unwrap()).unwrap();
        // SAFETY: `c` is NUL-terminated; the node is created in a directory this test owns.
        let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
        assert_eq!(made, 0, "mknod in a temporary directory: {}", std::io::Error::last_os_error());
        let elsewhere = std::fs::File::open(&other).unwrap();
        assert_eq!(fd_kind(elsewhere.as_raw_fd()), Some(FdKind::OtherDevice));
    }

    #[test]
    fn read_is_read_file_and_read_dir_only() {
        let r = landlock_rights(Rights::READ, 7, true);
        assert_eq!(r, uapi::FS_READ_FILE | uapi::FS_READ_DIR);
        assert_eq!(r & uapi::FS_EXECUTE, 0);
    }

    #[test]
    fn write_is_the_write_class() {
        let w = landlock_rights(Rights::WRITE, 7, true);
        for a in [
            uapi::FS_WRITE_FILE,
            uapi::FS_MAKE_REG,
            uapi::FS_MAKE_DIR,
            uapi::FS_MAKE_SYM,
            uapi::FS_REMOVE_FILE,
            uapi::FS_REMOVE_DIR,
            uapi::FS_REFER,
            uapi::FS_TRUNCATE,
            uapi::FS_IOCTL_DEV,
        ] {
            assert_ne!(w & a, 0, "{a:#x}");
        }
        assert_eq!(w & (uapi::FS_READ_FILE | uapi::FS_EXECUTE), 0);
        assert_eq!(landlock_rights(Rights::WRITE, 2, true) & uapi::FS_TRUNCATE, 0);
        assert_eq!(landlock_rights(Rights::WRITE, 4, true) & uapi::FS_IOCTL_DEV, 0);
    }

    #[test]
    fn files_carry_file_rights_only() {
        let f = landlock_rights(Rights::ALL, 7, false);
        assert_eq!(
            f,
            uapi::FS_READ_FILE | uapi::FS_WRITE_FILE | uapi::FS_TRUNCATE | uapi::FS_IOCTL_DEV | uapi::FS_EXECUTE
        );
        assert_eq!(landlock_rights(Rights::LIST, 7, false), 0);
    }

    #[test]
    fn every_right_granted_is_handled() {
        for abi in 1..=7 {
            for r in 0..16u8 {
                for dir in [true, false] {
                    let a = landlock_rights(Rights(r), abi, dir);
                    assert_eq!(a & !handled_fs(abi), 0, "abi {abi} rights {r} dir {dir}");
                }
            }
        }
    }
}
