//! Applying a [`Policy`] to this very process on Linux, right before `execve`: open every
//! path, set no_new_privs, drop capabilities, restrict with Landlock (filesystem, TCP and
//! scopes in one ruleset, through the `landlock` crate), install the seccomp filter, and check
//! that each step holds.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

use landlock::{
    AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, RestrictSelfError, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, RulesetError, RulesetStatus, Scope, make_bitflags,
};

use super::error::{Error, Held};
use super::policy::{Kind, Policy, Rights};
use super::seccomp::{self, Insn};
use crate::mode::Mode;

use super::{
    Enforcement, Feature, Layout, Lock, Locked, NetworkLayer, Outcome, Shortfall, layer, namespace, plan_here, policy,
    view, view_here,
};

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

/// `LANDLOCK_CREATE_RULESET_VERSION`: the flag that asks the kernel for its ABI version.
const CREATE_RULESET_VERSION: u32 = 1;

/// The crate keeps the kernel's ABI to itself (its rulesets adapt to it), while the shortfalls
/// and `--sandbox-info` name it, and tell a Landlock left out of the kernel from one not
/// enabled: the one call that asks is made here.
fn real_landlock_abi() -> Result<i32, String> {
    // SAFETY: with a null attribute, size 0 and the VERSION flag the call only returns the
    // ABI version (or an error); it touches no memory.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            CREATE_RULESET_VERSION,
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

/// Read: files and directory listings, never execute.
const READ: BitFlags<AccessFs> = make_bitflags!(AccessFs::{ReadFile | ReadDir});

/// The write class on `abi`: writing, creating, removing, linking and renaming, truncating,
/// and device ioctls where the ABI has them. Named one by one rather than taken from the
/// crate's `from_write`, which grows with each ABI it learns: what a mode handles changes only
/// here.
fn write_rights(abi: i32) -> BitFlags<AccessFs> {
    let mut w = make_bitflags!(AccessFs::{
        WriteFile | RemoveDir | RemoveFile | MakeChar | MakeDir | MakeReg | MakeSock | MakeFifo | MakeBlock | MakeSym
    });
    if abi >= 2 {
        w |= AccessFs::Refer;
    }
    if abi >= 3 {
        w |= AccessFs::Truncate;
    }
    if abi >= 5 {
        w |= AccessFs::IoctlDev;
    }
    w
}

/// The rights that make sense on a file that is not a directory.
fn file_rights(abi: i32) -> BitFlags<AccessFs> {
    let mut f = make_bitflags!(AccessFs::{Execute | WriteFile | ReadFile});
    if abi >= 3 {
        f |= AccessFs::Truncate;
    }
    if abi >= 5 {
        f |= AccessFs::IoctlDev;
    }
    f
}

/// Every filesystem right this ABI handles.
fn handled_fs(abi: i32) -> BitFlags<AccessFs> {
    READ | write_rights(abi) | AccessFs::Execute
}

/// The TCP rights handled when the network is off, from ABI 4.
fn handled_net(policy: &Policy, abi: i32) -> BitFlags<AccessNet> {
    if !policy.sockets && abi >= 4 { AccessNet::BindTcp | AccessNet::ConnectTcp } else { BitFlags::EMPTY }
}

/// The scopes, from ABI 6; older kernels go without them (--sandbox-info says so).
fn scopes(policy: &Policy, abi: i32) -> BitFlags<Scope> {
    if policy.scoped && abi >= 6 { Scope::AbstractUnixSocket | Scope::Signal } else { BitFlags::EMPTY }
}

fn landlock_rights(r: Rights, abi: i32, directory: bool) -> BitFlags<AccessFs> {
    let mut a = BitFlags::EMPTY;
    if r.contains(Rights::READ) {
        a |= READ;
    }
    if r.contains(Rights::LIST) {
        a |= AccessFs::ReadDir;
    }
    if r.contains(Rights::WRITE) {
        a |= write_rights(abi);
    }
    if r.contains(Rights::EXECUTE) {
        a |= AccessFs::Execute;
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
    list_dir_stamped(dir, false).map(|(entries, _)| entries)
}

/// Whether `path` names a directory (following links, as an open does).
fn is_dir_at(path: &std::ffi::CStr) -> bool {
    // SAFETY: an all-zero stat is a valid out-buffer; `path` is NUL-terminated.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let rc = unsafe { libc::fstatat(libc::AT_FDCWD, path.as_ptr(), &mut st, 0) };
    rc == 0 && st.st_mode & libc::S_IFMT == libc::S_IFDIR
}

/// A directory's status and its filesystem's type (`f_type` of statfs).
pub type Stamped = (libc::stat, libc::c_long);

/// [`list_dir`], and with `stamp` the directory's own status and its filesystem's type, taken
/// on the open directory before its entries are read (so that a change made while they are read
/// shows in a later status as a change).
pub fn list_dir_stamped(dir: &str, stamp: bool) -> Option<(Vec<super::policy::Entry>, Option<Stamped>)> {
    list_dir_or_why(dir, stamp).ok()
}

/// Why a directory was not listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unlisted {
    /// A directory that the caller may not open (EACCES, EPERM): so it stays for this process,
    /// which changes no permissions while it plans.
    Refused,
    /// Anything else: not there, not a directory, an error while reading.
    Other,
}

/// [`list_dir_stamped`], saying why a directory was not listed.
pub fn list_dir_or_why(dir: &str, stamp: bool) -> Result<(Vec<super::policy::Entry>, Option<Stamped>), Unlisted> {
    let c = CString::new(dir).map_err(|_| Unlisted::Other)?;
    // A directory that is not there is not opened: under a watched run every open waits for
    // the supervisor, a status does not (a nested level looks for some forty that are not).
    if !is_dir_at(&c) {
        return Err(Unlisted::Other);
    }
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
        let refused = matches!(std::io::Error::last_os_error().raw_os_error(), Some(libc::EACCES | libc::EPERM));
        return Err(if refused { Unlisted::Refused } else { Unlisted::Other });
    }
    // SAFETY: the descriptor was just opened and nothing else owns it.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as i32) };
    let stamped = if stamp {
        // A directory that looks names up without regard to case (FS_CASEFOLD_FL) finds
        // entries its listing does not spell: it is not stamped, so it is never kept. Neither
        // is one whose flags cannot be read.
        const FS_CASEFOLD_FL: libc::c_long = 0x4000_0000;
        let mut flags: libc::c_long = 0;
        // SAFETY: `fd` is open and `flags` a valid out-pointer of the size the request takes.
        let read = unsafe { libc::ioctl(fd.as_raw_fd(), libc::FS_IOC_GETFLAGS, &mut flags as *mut libc::c_long) } == 0;
        if !read || flags & FS_CASEFOLD_FL != 0 {
            return list_dir_entries(fd, None).ok_or(Unlisted::Other);
        }
        let st = fstat_fd(fd.as_raw_fd()).ok_or(Unlisted::Other)?;
        Some((st, fs_type(fd.as_raw_fd()).ok_or(Unlisted::Other)?))
    } else {
        None
    };
    list_dir_entries(fd, stamped).ok_or(Unlisted::Other)
}

/// The type of the filesystem the open descriptor `fd` is on (`statfs`'s magic number).
pub(crate) fn fs_type(fd: std::os::fd::RawFd) -> Option<libc::c_long> {
    // SAFETY: an all-zero statfs is a valid value to be overwritten.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: `fs` is a valid out-pointer; a descriptor that is not open gives EBADF.
    if unsafe { libc::fstatfs(fd, &mut fs) } != 0 {
        return None;
    }
    #[allow(clippy::unnecessary_cast)]
    Some(fs.f_type as libc::c_long)
}

/// The entries of the open directory `fd`, with `stamped` passed through.
fn list_dir_entries(fd: OwnedFd, stamped: Option<Stamped>) -> Option<(Vec<super::policy::Entry>, Option<Stamped>)> {
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
            return Some((out, stamped));
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
                // Some filesystems do not say: ask, and count it as a link if that fails.
                let kind = match kind {
                    libc::DT_UNKNOWN => type_at(fd.as_raw_fd(), name).unwrap_or(libc::DT_LNK),
                    k => k,
                };
                out.push(super::policy::Entry {
                    name: text.to_string(),
                    link: kind == libc::DT_LNK,
                    dir: kind == libc::DT_DIR,
                    special: kind == libc::DT_SOCK || kind == libc::DT_FIFO,
                });
            }
            at += reclen;
        }
    }
}

/// The directory-entry type (`DT_*`) of `name` in `dir`, asked of the file itself.
fn type_at(dir: i32, name: &[u8]) -> Option<u8> {
    let c = CString::new(name).ok()?;
    // SAFETY: an all-zero stat is a valid value to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `dir` is open, `c` is NUL-terminated and `st` a valid out-pointer.
    let rc = unsafe { libc::fstatat(dir, c.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
    (rc == 0).then_some(match st.st_mode & libc::S_IFMT {
        libc::S_IFLNK => libc::DT_LNK,
        libc::S_IFDIR => libc::DT_DIR,
        libc::S_IFSOCK => libc::DT_SOCK,
        libc::S_IFIFO => libc::DT_FIFO,
        _ => libc::DT_REG,
    })
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
    ruleset: Option<RulesetCreated>,
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
            shortfalls.push(Shortfall { what: Feature::Landlock, why });
            None
        }
    };
    if let Some(v) = abi {
        let (needed, what) = required_abi(policy);
        if v < needed {
            shortfalls.push(Shortfall {
                what: Feature::LandlockRight(what),
                why: format!("the kernel offers Landlock ABI {v}, {needed} is needed"),
            });
        }
    }
    match seccomp::native() {
        None => shortfalls.push(Shortfall {
            what: Feature::Seccomp,
            why: format!("sandbox-bash has no system call table for {}", std::env::consts::ARCH),
        }),
        // SAFETY: PR_GET_SECCOMP takes integer arguments only.
        Some(_) if unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } < 0 => shortfalls.push(Shortfall {
            what: Feature::Seccomp,
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
    let filter = match seccomp::native().filter(|_| !shortfalls.iter().any(|s| s.what == Feature::Seccomp)) {
        Some(arch) => Some(
            seccomp::program(
                arch,
                seccomp::Rules {
                    sockets: policy.sockets,
                    keyring: policy.keyring,
                    new_code: policy.new_code,
                    enclosed_network: policy.enclosed_network,
                },
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
    /// A rule opened once the namespace layer's view is built (so that it names what the view
    /// put at its path).
    pub fn add_late(&mut self, rule: super::policy::PathRule) {
        self.late.push(rule);
    }

    /// What the kernel cannot enforce here.
    pub fn shortfalls(&self) -> &[Shortfall] {
        &self.shortfalls
    }

    /// The Landlock ABI, if there is Landlock.
    pub fn abi(&self) -> Option<i32> {
        self.abi
    }
}

/// The Landlock ruleset for `policy` on `abi`, every rule added but those on the paths the
/// namespace layer mounts anew (added by [`apply`] once they are mounted). Each part is a hard
/// requirement: should the crate find the kernel lacking anything asked for, it refuses rather
/// than leave it out (what this ABI lacks is never asked for; the shortfalls say so).
/// no_new_privs is left to [`apply`], which sets it before dropping capabilities.
fn build_ruleset(policy: &Policy, abi: i32) -> Result<RulesetCreated, Error> {
    let handled = handled_fs(abi);
    let net = handled_net(policy, abi);
    let scoped = scopes(policy, abi);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(handled)
        .map_err(Error::Ruleset)?;
    if !net.is_empty() {
        ruleset = ruleset.handle_access(net).map_err(Error::Ruleset)?;
    }
    if !scoped.is_empty() {
        ruleset = ruleset.scope(scoped).map_err(Error::Ruleset)?;
    }
    let mut ruleset = ruleset.create().map_err(Error::Ruleset)?.no_new_privs(false);
    // Each descriptor is closed as soon as its rule is added. Leaving a hundred of them for exec
    // to close saves the close calls but made start-up slower as a whole (measured: about 0.02
    // ms): the table of descriptors grows, and exec then closes files whose memory is cold.
    // The rules go in through a second descriptor of the ruleset, by the system call itself.
    let direct: Option<OwnedFd> = ruleset.try_clone().ok().and_then(Option::from);
    for rule in policy.paths.iter().filter(|r| !REMOUNTED.contains(&r.path.as_str())) {
        add_rule(&mut ruleset, direct.as_ref(), rule, abi)?;
    }
    Ok(ruleset)
}

/// `landlock_add_rule(2)` for one path, on a descriptor of the ruleset. The crate asks the
/// kernel what every rule's file is (one `fstat` each), which the caller already knows; this
/// runs a hundred times at every start. The kernel refuses rights that a file cannot have
/// (EINVAL), so a wrong `access` fails rather than widens; any failure is left to the crate,
/// whose own call says why.
fn add_rule_direct(ruleset: &OwnedFd, fd: &OwnedFd, access: BitFlags<AccessFs>) -> bool {
    // struct landlock_path_beneath_attr, packed as the kernel's header declares it.
    #[repr(C, packed)]
    struct PathBeneathAttr {
        allowed_access: u64,
        parent_fd: i32,
    }
    const LANDLOCK_RULE_PATH_BENEATH: libc::c_long = 1;
    let attr = PathBeneathAttr { allowed_access: access.bits(), parent_fd: fd.as_raw_fd() };
    // SAFETY: both descriptors are open; `attr` is a valid landlock_path_beneath_attr that
    // outlives the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset.as_raw_fd(),
            LANDLOCK_RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0,
        )
    };
    rc == 0
}

fn add_rule(
    ruleset: &mut RulesetCreated,
    direct: Option<&OwnedFd>,
    rule: &super::policy::PathRule,
    abi: i32,
) -> Result<(), Error> {
    let Some((fd, directory)) = open_rule_path(&rule.path, rule.follow, rule.kind)? else {
        return match rule.node {
            Some(_) => Err(Error::OpenRule { path: rule.path.clone(), source: gone_since_made() }),
            None => Ok(()),
        };
    };
    // A file made for this run: the rule lands on it or nowhere (a directory on the way swapped
    // since would lead it to another file).
    if let Some(node) = rule.node {
        let m =
            std::fs::File::from(fd.try_clone().map_err(|source| Error::OpenRule { path: rule.path.clone(), source })?)
                .metadata()
                .map_err(|source| Error::OpenRule { path: rule.path.clone(), source })?;
        if (std::os::unix::fs::MetadataExt::dev(&m), std::os::unix::fs::MetadataExt::ino(&m)) != node {
            return Err(Error::OpenRule { path: rule.path.clone(), source: gone_since_made() });
        }
    }
    let access = landlock_rights(rule.rights, abi, directory) & handled_fs(abi);
    if access.is_empty() || direct.is_some_and(|r| add_rule_direct(r, &fd, access)) {
        return Ok(());
    }
    ruleset.add_rule(PathBeneath::new(fd, access)).map_err(|source| Error::AddRule {
        path: rule.path.clone(),
        rights: rule.rights.letters(),
        source,
    })?;
    Ok(())
}

/// Why a rule for a file made for this run is refused: its path names something else now.
fn gone_since_made() -> std::io::Error {
    std::io::Error::other("it no longer names the file made for this run (a directory on the way was swapped)")
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
///
/// With `network` (a network namespace of the command's own for the proxy, with these host
/// loopback ports forwarded), the namespace layer must be had: when it cannot, this returns
/// [`Error::NoNetworkNamespace`] having changed nothing, and the caller plans without network.
///
/// (The watch's filter, which hands calls to the supervisor, goes on later: see
/// [`install_watch`].) (none where the kernel has no such filters, or Landlock does
/// not scope signals: then nothing needs a supervisor's say).
pub fn apply(
    mut prepared: Prepared,
    layer: Option<(&super::view::View, Option<&super::namespace::Frozen>)>,
    network: Option<(&[u16], Option<&OwnedFd>)>,
    in_view: Option<&dyn Fn() -> Result<(), String>>,
) -> Result<(Applied, Option<crate::outside::proxy::Handover>), Error> {
    let mut enforcement = Enforcement { landlock_abi: prepared.abi, ..Enforcement::default() };
    let mut handover = None;
    // Mounts first: Landlock refuses them once it is in force.
    match layer {
        Some((view, frozen)) => {
            let (entered, h) = super::namespace::enter(view, frozen, network).map_err(Error::Namespace)?;
            if network.is_some()
                && let super::view::Entered::Unavailable(why) = &entered
            {
                return Err(Error::NoNetworkNamespace(why.clone()));
            }
            // The caches' layers that were mounted get their rights, on the layer itself.
            if let super::view::Entered::Held { layers, .. } = &entered {
                for point in &view.points {
                    if let super::view::Point::Layer { path, rights, .. } = point
                        && layers.contains(path)
                    {
                        prepared.add_late(super::policy::PathRule {
                            path: path.clone(),
                            rights: *rights,
                            why: super::policy::Why::Cache,
                            follow: false,
                            kind: super::policy::Kind::Dir,
                            node: None,
                        });
                    }
                }
            }
            // The listings for nested levels are read on the directory that holds them, not
            // on the store it covers.
            if let (super::view::Entered::Held { listings: true, .. }, Some((path, _))) = (&entered, &view.listings) {
                prepared.add_late(super::policy::PathRule {
                    path: path.clone(),
                    rights: super::policy::Rights::READ,
                    why: super::policy::Why::Listings,
                    follow: false,
                    kind: super::policy::Kind::Dir,
                    node: None,
                });
            }
            enforcement.namespaces = Some(entered);
            handover = h;
        }
        None if network.is_some() => {
            return Err(Error::NoNetworkNamespace("an enclosing sandbox-bash's rules refuse new namespaces".into()));
        }
        None => {}
    }
    // What must be done in the run's own view while this process still has its capabilities
    // (the disk limit's marks on its mounts).
    if let Some(hook) = in_view {
        match &enforcement.namespaces {
            Some(super::view::Entered::Held { .. }) => hook().map_err(Error::InView)?,
            _ => return Err(Error::InView("the run has no mount namespace of its own to watch".into())),
        }
    }

    nix::sys::prctl::set_no_new_privs().map_err(|e| Error::NoNewPrivs(e.into()))?;
    drop_capabilities(&prepared.drop)?;

    if let (Some(ruleset), Some(abi)) = (prepared.ruleset.as_mut(), prepared.abi) {
        for rule in &prepared.late {
            add_rule(ruleset, None, rule, abi)?;
        }
    }
    let mut layer_limit = false;
    if let Some(ruleset) = prepared.ruleset {
        match ruleset.restrict_self() {
            Ok(status) if status.ruleset == RulesetStatus::FullyEnforced => enforcement.landlock = true,
            Ok(_) => return Err(Error::NotHeld(Held::Landlock)),
            // Sixteen layers already: the enclosing ones bind; the caller decides.
            Err(RulesetError::RestrictSelf(RestrictSelfError::RestrictSelfCall { source, .. }))
                if source.raw_os_error() == Some(libc::E2BIG) =>
            {
                layer_limit = true
            }
            Err(e) => return Err(Error::Restrict(e)),
        }
    }
    if let Some(filter) = &prepared.filter {
        install_filter(filter)?;
    }
    // Read back what holds.
    enforcement.no_new_privs = nix::sys::prctl::get_no_new_privs() == Ok(true);
    if !enforcement.no_new_privs {
        return Err(Error::NotHeld(Held::NoNewPrivs));
    }
    // SAFETY: PR_GET_SECCOMP takes integer arguments only.
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
    Ok((if layer_limit { Applied::LayerLimit(enforcement) } else { Applied::Done(enforcement) }, handover))
}

/// Installs, last, the filter that hands the supervisor every signal of the run and (with
/// `watch.paths`) every open (but with `O_PATH`), change or run of a path, and returns its listener; `None` where
/// the kernel gives no listener or Landlock does not scope signals (then nothing needs the
/// supervisor's say), or the rules are not in force. Counts the process's filters into
/// `locked` first. From here until the supervisor holds the listener, every open of this
/// process waits for it: the caller hands it over at once, and opens nothing before.
pub fn install_watch(locked: &mut super::Locked, watch: super::Watch) -> Option<OwnedFd> {
    let e = &locked.outcome.enforcement;
    if !(e.seccomp && e.landlock && e.landlock_abi.is_some_and(|v| v >= 6)) {
        return None;
    }
    let arch = seccomp::native()?;
    let filters = crate::outside::peer::Status::of("self").and_then(|s| s.filters);
    let listener = watch_listener(&seccomp::watch_program(arch, watch.paths, watch.reads))?;
    locked.outcome.enforcement.filters = filters.map(|n| n + 1);
    Some(listener)
}

/// Installs `filter` with a listener for its notifications and returns the listener, or `None`
/// where the kernel gives none (the filter is then not installed).
fn watch_listener(filter: &[Insn]) -> Option<OwnedFd> {
    #[repr(C)]
    struct SockFprog {
        len: libc::c_ushort,
        filter: *const Insn,
    }
    let len = libc::c_ushort::try_from(filter.len()).ok()?;
    let prog = SockFprog { len, filter: filter.as_ptr() };
    // SAFETY: `prog` points at `len` valid instructions laid out as struct sock_filter, alive for
    // the call; the kernel copies them and returns a new descriptor or -1.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
            &prog as *const SockFprog,
        )
    };
    // SAFETY: a descriptor the kernel just returned, owned by nothing else.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as i32) })
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

/// Plans the rules of `lock` for this machine and applies them to this process (see
/// [`super::lock`]).
pub(super) fn lock(lock: Lock<'_>) -> Result<Locked, crate::error::Error> {
    let path_var = lock.env.get("PATH");
    let outer = lock.outer.map(|m| m.mode);
    if outer.is_some()
        && let Some(locked) = held_by_run(&lock)
    {
        return Ok(locked);
    }
    // What the run made since it last looked (its relay, its caches' layers) is looked at anew.
    super::facts::forget();
    let plan = |allowed: Mode| {
        let policy = plan_here(allowed, lock.layout, lock.real_bash, path_var, outer.is_some(), lock.extra.clone());
        let mut view =
            if outer.is_none() { view_here(&policy, lock.layout, lock.env, lock.keep_env) } else { Default::default() };
        if outer.is_none() && lock.nested_may_start {
            view.listings = listings_for(&policy, &view);
            // Only a run Landlock holds whole says anything to its nested levels: without it, a
            // process of the run could mount another word in the store's place.
            let (abi, short) = shortfalls(&policy);
            if abi.is_some() && short.is_empty() {
                view.word = lock.boundary.as_deref().map(|b| super::word::of(policy.mode, b, &policy, &view));
            }
        }
        (policy, view)
    };
    let (mut policy, mut view) = plan(lock.allowed);
    if lock.network.is_some() {
        policy.enclose_network();
    }
    // Inside an enclosing sandbox-bash, Landlock refuses every new mount (and /proc is
    // read-only, so no user namespace could be mapped): the enclosing view holds.
    fn mounts<'v>(
        view: &'v view::View,
        frozen: Option<&'v view::Frozen<'v>>,
        outer: Option<Mode>,
    ) -> Option<(&'v view::View, Option<&'v view::Frozen<'v>>)> {
        if outer.is_none() { Some((view, frozen)) } else { None }
    }
    // The listings planning made go to the store while its directory can still be written.
    if outer.is_none() {
        super::facts::keep();
    }
    let mut network = NetworkLayer::NotAsked;
    let first = enforce(
        &policy,
        mounts(&view, lock.frozen.as_ref(), outer),
        lock.network.map(|ports| (ports, lock.join)),
        lock.in_view,
        lock.degraded_ok,
        lock.requested,
        outer,
    );
    let (mut outcome, handover) = match first {
        // Nothing was changed: the command gets no network at all, never every host.
        Err(crate::error::Error::Sandbox { why: Error::NoNetworkNamespace(why), .. }) => {
            network = NetworkLayer::Unavailable(why);
            (policy, view) = plan(lock.allowed.without(Mode::scope(crate::mode::Scope::Network)));
            let layer = mounts(&view, lock.frozen.as_ref(), outer);
            enforce(&policy, layer, None, lock.in_view, lock.degraded_ok, lock.requested, outer)?
        }
        other => other?,
    };
    if let Some(h) = handover {
        network = NetworkLayer::Held(h);
    } else if lock.join.is_some() && matches!(network, NetworkLayer::NotAsked) {
        network = NetworkLayer::Joined;
    }
    if outer.is_some() {
        outcome.enforcement.namespaces =
            Some(view::Entered::Unavailable("an enclosing sandbox-bash's Landlock rules refuse new mounts".into()));
    }
    let outer_marked = lock.outer.is_some_and(|m| m.namespaces);
    let layer = layer(&outcome, &view, outer_marked, lock.require_namespaces)?;
    let entered = matches!(outcome.enforcement.namespaces, Some(view::Entered::Held { .. }));
    Ok(Locked {
        mode: policy.mode,
        outcome,
        static_only: layer.static_only,
        namespaces: layer.marked,
        view: if entered { Some(view) } else { None },
        policy: Some(policy),
        network,
    })
}

/// A nested level whose inputs are those its run locked with (see [`super::word`]): the run's
/// Landlock domain and filter, which this process is in already, hold the same boundary, and
/// the word's rules answer what they hold. `None` (lock as any level does) where anything
/// differs, where this level asks for a network namespace or a view of its own, or where the
/// process is not held as the run's level left it (no no_new_privs, no filter).
fn held_by_run(lock: &Lock<'_>) -> Option<Locked> {
    if lock.network.is_some() || lock.join.is_some() || lock.in_view.is_some() || lock.require_namespaces {
        return None;
    }
    let (abi, policy) = run_rules(lock.allowed, lock.boundary.as_deref()?)?;
    let enforcement = Enforcement {
        landlock_abi: Some(abi),
        landlock: true,
        seccomp: true,
        no_new_privs: true,
        capabilities_dropped: 0,
        namespaces: Some(view::Entered::Unavailable(
            "an enclosing sandbox-bash's Landlock rules refuse new mounts".into(),
        )),
        filters: None,
    };
    let outcome = Outcome { enforcement, shortfalls: Vec::new(), layer_limit: false, run_layers: true };
    let outer_marked = lock.outer.is_some_and(|m| m.namespaces);
    let layer = layer(&outcome, &view::View::default(), outer_marked, false).ok()?;
    Some(Locked {
        mode: lock.allowed,
        outcome,
        static_only: layer.static_only,
        namespaces: layer.marked,
        view: None,
        policy: Some(policy),
        network: NetworkLayer::NotAsked,
    })
}

/// The Landlock ABI and the rules in force, when this nested level's inputs in `mode` are its
/// run's (`boundary`, see [`super::boundary`]) and the process is held as the run's level left
/// it (no_new_privs, a filter).
pub(super) fn run_rules(mode: Mode, boundary: &str) -> Option<(i32, Policy)> {
    let abi = landlock_abi().ok()?;
    let policy = super::word::rules_for(&super::facts::given_word()?, mode, boundary)?;
    // SAFETY: PR_GET_SECCOMP takes integer arguments only.
    let seccomp = unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } == 2;
    (nix::sys::prctl::get_no_new_privs() == Ok(true) && seccomp).then_some((abi, policy))
}

/// The listings the view gives nested levels where it masks the store (see
/// [`super::facts::snapshot`]): only of directories the command may list itself, by the rules
/// (a rule on the directory that lists or reads, or one on a tree holding it that does) and the
/// view (nothing masked or layered at or above it).
fn listings_for(policy: &Policy, view: &view::View) -> Option<(String, Vec<u8>)> {
    let store = format!("{}/{}", super::facts::state_dir()?, super::facts::DIR);
    let masked = view.points.iter().any(|p| matches!(p, view::Point::Mask { path, dir: true, .. } if *path == store));
    if !masked {
        return None;
    }
    // By path: the rights rules give on it, those they give beneath it, and whether the view
    // hides it. A directory and each directory above it are looked up (a start asks about
    // some eighty directories, against a few hundred rules).
    let grants = policy.grants();
    // (A private `/dev/shm` of the run's own hides the host's too.)
    let hidden: rustc_hash::FxHashSet<&str> = view
        .points
        .iter()
        .filter(|p| matches!(p, view::Point::Mask { .. } | view::Point::Layer { .. }))
        .map(view::Point::path)
        .chain(view.private_shm.map(|_| "/dev/shm"))
        .collect();
    let listable = |dir: &str| {
        let here = grants.on(dir).0;
        let lists = here.contains(Rights::READ) || here.contains(Rights::LIST);
        let mut reads = false;
        let mut at = dir;
        loop {
            if hidden.contains(at) {
                return false;
            }
            // A tree's rule lists every directory beneath it, as Landlock reads a rule on a
            // directory: one that only lists (the home's, where it holds credentials) too.
            let beneath = grants.on(at).1;
            reads |= beneath.contains(Rights::READ) || beneath.contains(Rights::LIST);
            match at.rsplit_once('/') {
                Some(("", _)) if at != "/" => at = "/",
                Some((parent, _)) if !parent.is_empty() => at = parent,
                _ => break,
            }
        }
        lists || reads
    };
    let bytes = super::facts::snapshot(listable)?;
    Some((store, bytes))
}

/// What the kernel offers here against what `policy` needs (see [`super::kernel_facts`]).
pub(super) fn kernel_facts(policy: &Policy) -> (Option<i32>, Vec<Shortfall>) {
    shortfalls(policy)
}

/// The namespace layer's view for `policy`, and whether it can be had here (see
/// [`super::namespace_facts`]).
pub(super) fn namespace_facts(
    policy: &Policy,
    layout: &Layout,
    env: &crate::environ::Environ,
    keep_env: &[String],
    nested: bool,
) -> Option<(view::View, Result<(), String>)> {
    let view = view_here(policy, layout, env, keep_env);
    let held = if nested {
        Err("an enclosing sandbox-bash's Landlock rules refuse new mounts; its own view holds".into())
    } else {
        namespace::probe(false)
    };
    Some((view, held))
}

/// Applies `policy` to this process. `requested` is the mode the caller asked for and
/// `outer` what an enclosing sandbox-bash enforces; they decide what happens at Landlock's
/// layer limit. Fails closed: anything the kernel cannot enforce is an error unless
/// `degraded_ok`.
fn enforce(
    policy: &Policy,
    layer: Option<(&view::View, Option<&view::Frozen>)>,
    network: Option<(&[u16], Option<&std::os::fd::OwnedFd>)>,
    in_view: Option<&dyn Fn() -> Result<(), String>>,
    degraded_ok: bool,
    requested: Mode,
    outer: Option<Mode>,
) -> Result<(Outcome, Option<crate::outside::proxy::Handover>), crate::error::Error> {
    use crate::error::Error as RunError;
    let mut prepared = prepare(policy).map_err(|why| RunError::Sandbox { mode: policy.mode, why })?;
    // The frozen copy of the script hides the file that had the rule, when the rule was on the
    // file itself (a script among a directory's entries): the copy gets the rights the file has.
    if let Some((_, Some(frozen))) = layer
        && let Ok(cwd) = std::env::current_dir()
    {
        let script = frozen.path.to_string_lossy();
        let absolute = crate::scope::normalize(&cwd.to_string_lossy(), &script);
        let rights = policy.granted(&absolute);
        if !rights.is_empty() {
            prepared.add_late(policy::PathRule {
                path: script.into_owned(),
                rights,
                why: policy::Why::Program,
                follow: true,
                kind: policy::Kind::File,
                node: None,
            });
        }
    }
    let shortfalls = prepared.shortfalls().to_vec();
    if !shortfalls.is_empty() && !degraded_ok {
        return Err(RunError::Unenforceable { mode: policy.mode, shortfalls });
    }
    let (applied, handover) =
        apply(prepared, layer, network, in_view).map_err(|why| RunError::Sandbox { mode: policy.mode, why })?;
    let outcome = match applied {
        Applied::Done(enforcement) => Outcome { enforcement, shortfalls, layer_limit: false, run_layers: false },
        Applied::LayerLimit(enforcement) => match outer {
            Some(outer) if outer.covers(requested) => {
                Outcome { enforcement, shortfalls, layer_limit: true, run_layers: false }
            }
            _ => return Err(RunError::LayerLimit { requested, outer }),
        },
    };
    Ok((outcome, handover))
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
        assert_eq!(r, AccessFs::ReadFile | AccessFs::ReadDir);
        assert!(!r.contains(AccessFs::Execute));
    }

    #[test]
    fn write_is_the_write_class() {
        let w = landlock_rights(Rights::WRITE, 7, true);
        for a in [
            AccessFs::WriteFile,
            AccessFs::MakeReg,
            AccessFs::MakeDir,
            AccessFs::MakeSym,
            AccessFs::RemoveFile,
            AccessFs::RemoveDir,
            AccessFs::Refer,
            AccessFs::Truncate,
            AccessFs::IoctlDev,
        ] {
            assert!(w.contains(a), "{a:?}");
        }
        assert!(!w.intersects(AccessFs::ReadFile | AccessFs::Execute));
        assert!(!landlock_rights(Rights::WRITE, 1, true).contains(AccessFs::Refer));
        assert!(!landlock_rights(Rights::WRITE, 2, true).contains(AccessFs::Truncate));
        assert!(!landlock_rights(Rights::WRITE, 4, true).contains(AccessFs::IoctlDev));
    }

    #[test]
    fn files_carry_file_rights_only() {
        let f = landlock_rights(Rights::ALL, 7, false);
        assert_eq!(
            f,
            AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev | AccessFs::Execute
        );
        assert!(landlock_rights(Rights::LIST, 7, false).is_empty());
    }

    /// The rights handled are those the hand-written ruleset handled, bit for bit (the values
    /// of the kernel's uapi header), whatever the crate adds for later ABIs.
    #[test]
    fn handled_rights_are_the_kernel_bits_of_each_abi() {
        let expect = |abi: i32| -> u64 {
            let mut fs = 0x1fff; // execute .. make_sym
            if abi >= 2 {
                fs |= 1 << 13; // refer
            }
            if abi >= 3 {
                fs |= 1 << 14; // truncate
            }
            if abi >= 5 {
                fs |= 1 << 15; // ioctl_dev
            }
            fs
        };
        for abi in 1..=12 {
            assert_eq!(handled_fs(abi).bits(), expect(abi), "abi {abi}");
            assert_eq!(file_rights(abi).bits() & !expect(abi), 0, "abi {abi}");
        }
        let mut policy = Policy::bare(crate::mode::Mode::NONE);
        assert_eq!(handled_net(&policy, 3).bits(), 0);
        assert_eq!(handled_net(&policy, 4).bits(), 0b11);
        assert_eq!(scopes(&policy, 5).bits(), 0);
        assert_eq!(scopes(&policy, 6).bits(), 0b11);
        policy.sockets = true;
        policy.scoped = false;
        assert_eq!(handled_net(&policy, 7).bits(), 0);
        assert_eq!(scopes(&policy, 7).bits(), 0);
    }

    #[test]
    fn every_right_granted_is_handled() {
        for abi in 1..=7 {
            for r in 0..16u8 {
                for dir in [true, false] {
                    let a = landlock_rights(Rights(r), abi, dir);
                    assert!(handled_fs(abi).contains(a), "abi {abi} rights {r} dir {dir}");
                }
            }
        }
    }
}
