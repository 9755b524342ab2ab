//! Entering the namespace layer: this very process gets mount and IPC namespaces of its own
//! (and a user namespace that maps the caller to itself when it may not administer mounts),
//! and the mount view of [`super::view`] is built in them with the new mount API, right before
//! Landlock and seccomp. The PID stays; bash is exec'd into the view.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;

use super::view::{Point, View};

pub use super::view::{Entered, Frozen};

// The new mount API, as the kernel's uapi headers define it.
const OPEN_TREE_CLONE: libc::c_uint = 1;
const OPEN_TREE_CLOEXEC: libc::c_uint = libc::O_CLOEXEC as libc::c_uint;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x04;
const MOVE_MOUNT_T_EMPTY_PATH: libc::c_uint = 0x40;
const FSOPEN_CLOEXEC: libc::c_uint = 1;
const FSMOUNT_CLOEXEC: libc::c_uint = 1;
const FSCONFIG_SET_FLAG: libc::c_uint = 0;
const FSCONFIG_SET_STRING: libc::c_uint = 1;
const FSCONFIG_CMD_CREATE: libc::c_uint = 6;
/// `ioctl` on a namespace: the user namespace that owns it (`_IO(0xb7, 0x1)`).
const NS_GET_USERNS: libc::c_ulong = 0xb701;
const MOUNT_ATTR_RDONLY: u64 = 0x01;
const MOUNT_ATTR_NOSUID: u64 = 0x02;
const MOUNT_ATTR_NODEV: u64 = 0x04;
const MOUNT_ATTR_NOEXEC: u64 = 0x08;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// What the view was doing when the kernel said no.
#[derive(Debug)]
pub enum Step {
    ReadCwd,
    WriteMap(&'static str),
    CopyTree(String),
    SetAttributes(Option<String>),
    Attach(String),
    Mask(String),
    CreateFs(&'static str),
    SetOption { fstype: &'static str, key: &'static str, value: String },
    MountFs(&'static str),
    StandIn(&'static str),
    FrozenCopy(&'static str),
    Reenter(std::path::PathBuf),
    OpenScript(std::path::PathBuf),
}

/// Why the view could not be built once building it had begun. Nothing runs after one.
#[derive(Debug)]
pub enum ViewError {
    /// A step failed, with the kernel's answer.
    Failed { step: Step, source: std::io::Error },
    /// A path holds a NUL byte.
    Nul(String),
    /// A stand-in made moments ago cannot be copied.
    StandInGone(String),
    /// The script bash will read is not the file that was analysed.
    ScriptChanged(std::path::PathBuf),
    /// The workspace cannot be listed: credentials in it could not be found and masked.
    Unsearchable(String),
    /// The new network namespace could not be set up for the proxy.
    Network(String),
    /// A file made for this run is no longer what its path names.
    NotMade(String),
    /// A credential, or a file left unmasked as project content, is no longer the file the
    /// plan examined.
    Moved(String),
}

impl std::fmt::Display for ViewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (step, source) = match self {
            ViewError::Nul(path) => return write!(f, "{path:?} contains a NUL byte"),
            ViewError::StandInGone(path) => return write!(f, "the stand-in for {path} is gone"),
            ViewError::NotMade(path) => {
                return write!(
                    f,
                    "{path} no longer names the file made for this run (a directory on the way was swapped)"
                );
            }
            ViewError::Moved(path) => {
                return write!(
                    f,
                    "{path} changed while the view was being built (another process moved or replaced it); run the \
                     command again"
                );
            }
            ViewError::ScriptChanged(path) => {
                return write!(f, "the script {} changed while it was analysed; run it again", path.display());
            }
            ViewError::Unsearchable(w) => {
                return write!(
                    f,
                    "cannot search the workspace {w} for credentials and repositories: it cannot be listed; make \
                     it readable by its owner (chmod u+r {w})"
                );
            }
            ViewError::Network(why) => return write!(f, "{why}"),
            ViewError::Failed { step, source } => (step, source),
        };
        match step {
            Step::ReadCwd => write!(f, "cannot read the current directory"),
            Step::WriteMap(file) => write!(f, "cannot write {file}"),
            Step::CopyTree(path) => write!(f, "cannot copy the mount tree at {path}"),
            Step::SetAttributes(Some(path)) => write!(f, "cannot set the mount attributes of {path}"),
            Step::SetAttributes(None) => write!(f, "cannot set the mount attributes of a copied tree"),
            Step::Attach(path) => write!(f, "cannot mount onto {path}"),
            Step::Mask(path) => write!(f, "cannot mask {path}"),
            Step::CreateFs(fstype) => write!(f, "cannot create a {fstype} file system"),
            Step::SetOption { fstype, key, value } => write!(f, "cannot set {key}={value} on a {fstype} file system"),
            Step::MountFs(fstype) => write!(f, "cannot mount a {fstype} file system"),
            Step::StandIn(what) => write!(f, "cannot create the stand-in for {what}"),
            Step::FrozenCopy(what) => write!(f, "cannot {what} the frozen copy of the script"),
            Step::Reenter(path) => write!(f, "cannot enter {} again in the new view", path.display()),
            Step::OpenScript(path) => write!(f, "cannot open the script {}", path.display()),
        }?;
        write!(f, ": {source}")?;
        if matches!(source.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) {
            write!(f, " (raise the limit of open files: ulimit -n)")?;
        }
        Ok(())
    }
}

impl std::error::Error for ViewError {}

/// The failure of `step`, with the error the last system call left.
fn failed(step: Step) -> ViewError {
    ViewError::Failed { step, source: std::io::Error::last_os_error() }
}

fn cstr(path: &str) -> Result<CString, ViewError> {
    CString::new(path).map_err(|_| ViewError::Nul(path.to_string()))
}

fn owned(rc: libc::c_long, step: impl FnOnce() -> Step) -> Result<OwnedFd, ViewError> {
    if rc < 0 {
        return Err(failed(step()));
    }
    // SAFETY: the kernel just returned this descriptor; nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(rc as RawFd) })
}

/// A detached copy of the tree at `path` (its mounts below included), or of `name` relative
/// to `dir`. `Ok(None)` when the path is gone or is a link (no rule is made for either).
fn clone_tree(dir: RawFd, path: &str) -> Result<Option<OwnedFd>, ViewError> {
    let c = cstr(path)?;
    // SAFETY: `c` is NUL-terminated; the flags ask for a detached clone.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_open_tree,
            dir,
            c.as_ptr(),
            OPEN_TREE_CLONE
                | OPEN_TREE_CLOEXEC
                | libc::AT_RECURSIVE as libc::c_uint
                | libc::AT_SYMLINK_NOFOLLOW as libc::c_uint,
        )
    };
    if rc < 0 {
        let e = std::io::Error::last_os_error();
        if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::ELOOP | libc::ENOTDIR)) {
            return Ok(None);
        }
        return Err(ViewError::Failed { step: Step::CopyTree(path.to_string()), source: e });
    }
    // SAFETY: as in `owned`.
    Ok(Some(unsafe { OwnedFd::from_raw_fd(rc as RawFd) }))
}

/// Sets attributes on the detached tree `fd`, or on the mounts at and below `path`.
fn set_attr(fd: RawFd, path: &str, set: u64, recursive: bool, propagation: u64) -> Result<(), ViewError> {
    let attr = MountAttr { attr_set: set, attr_clr: 0, propagation, userns_fd: 0 };
    let c = cstr(path)?;
    let mut flags = if path.is_empty() { libc::AT_EMPTY_PATH as libc::c_uint } else { 0 };
    if recursive {
        flags |= libc::AT_RECURSIVE as libc::c_uint;
    }
    // SAFETY: `attr` is a valid mount_attr of the size given; `c` is NUL-terminated.
    let rc = unsafe {
        libc::syscall(libc::SYS_mount_setattr, fd, c.as_ptr(), flags, &attr as *const MountAttr, size_of::<MountAttr>())
    };
    if rc != 0 {
        return Err(failed(Step::SetAttributes((!path.is_empty()).then(|| path.to_string()))));
    }
    Ok(())
}

/// `path` opened as a location (no link followed at its end) when it names the file with
/// device and inode `node`.
fn open_node(path: &str, node: (u64, u64)) -> Option<OwnedFd> {
    let c = CString::new(path).ok()?;
    // SAFETY: `c` is NUL-terminated; O_PATH opens nothing for reading.
    let fd = owned(
        unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC) as libc::c_long },
        || Step::Mask(path.to_string()),
    )
    .ok()?;
    // SAFETY: an all-zero stat is valid to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open and `st` a valid out-pointer.
    let same = unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } == 0 && (st.st_dev, st.st_ino) == node;
    same.then_some(fd)
}

/// How many names the file open as `fd` has.
fn links(fd: &OwnedFd) -> u64 {
    // SAFETY: an all-zero stat is valid to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open and `st` a valid out-pointer.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } == 0 { st.st_nlink } else { 0 }
}

/// Attaches the detached tree `fd` at `path` (or at the descriptor `to`).
fn attach(fd: &OwnedFd, to: Option<&OwnedFd>, path: &str) -> Result<(), ViewError> {
    attach_raw(fd, to, path).map_err(|source| ViewError::Failed { step: Step::Attach(path.to_string()), source })
}

/// Attaches `fd` at `path` unless the path is gone since the view was planned (another
/// process removed it): a tree that is not there needs no mount.
fn attach_unless_gone(fd: &OwnedFd, path: &str) -> Result<(), ViewError> {
    match attach_raw(fd, None, path) {
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT)) => Ok(()),
        other => other.map_err(|source| ViewError::Failed { step: Step::Attach(path.to_string()), source }),
    }
}

fn attach_raw(fd: &OwnedFd, to: Option<&OwnedFd>, path: &str) -> std::io::Result<()> {
    let c = CString::new(if to.is_some() { "" } else { path })
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "a NUL byte in the path"))?;
    let (dir, flags) = match to {
        Some(t) => (t.as_raw_fd(), MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH),
        None => (libc::AT_FDCWD, MOVE_MOUNT_F_EMPTY_PATH),
    };
    let empty = c"";
    // SAFETY: both paths are NUL-terminated; `fd` is a detached mount.
    let rc = unsafe { libc::syscall(libc::SYS_move_mount, fd.as_raw_fd(), empty.as_ptr(), dir, c.as_ptr(), flags) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// A new, detached file system of `fstype`, with string options (an empty value sets a flag).
fn new_fs(fstype: &'static str, options: &[(&'static str, &str)], attrs: u64) -> Result<OwnedFd, ViewError> {
    let t = cstr(fstype)?;
    // SAFETY: `t` is NUL-terminated.
    let fs = owned(unsafe { libc::syscall(libc::SYS_fsopen, t.as_ptr(), FSOPEN_CLOEXEC) }, || Step::CreateFs(fstype))?;
    for (key, value) in options {
        let (k, v) = (cstr(key)?, cstr(value)?);
        // An empty value is a flag (`userxattr`).
        let (command, v) =
            if value.is_empty() { (FSCONFIG_SET_FLAG, std::ptr::null()) } else { (FSCONFIG_SET_STRING, v.as_ptr()) };
        // SAFETY: the key is a NUL-terminated string, the value one or null for a flag.
        let rc = unsafe { libc::syscall(libc::SYS_fsconfig, fs.as_raw_fd(), command, k.as_ptr(), v, 0) };
        if rc != 0 {
            return Err(failed(Step::SetOption { fstype, key, value: value.to_string() }));
        }
    }
    // SAFETY: no pointers; the context was configured above.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_fsconfig,
            fs.as_raw_fd(),
            FSCONFIG_CMD_CREATE,
            std::ptr::null::<u8>(),
            std::ptr::null::<u8>(),
            0,
        )
    };
    if rc != 0 {
        return Err(failed(Step::CreateFs(fstype)));
    }
    // SAFETY: `fs` is a created file system context.
    owned(unsafe { libc::syscall(libc::SYS_fsmount, fs.as_raw_fd(), FSMOUNT_CLOEXEC, attrs) }, || Step::MountFs(fstype))
}

fn write_file(path: &'static str, text: &str) -> Result<(), ViewError> {
    std::fs::write(path, text).map_err(|source| ViewError::Failed { step: Step::WriteMap(path), source })
}

/// Whether this thread may administer mounts in its user namespace (CAP_SYS_ADMIN effective).
fn may_administer_mounts() -> bool {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    let mut header = Header { version: 0x2008_0522, pid: 0 };
    let mut data = [Data::default(); 2];
    // SAFETY: a version 3 header and a two-element data array.
    let rc = unsafe { libc::syscall(libc::SYS_capget, &mut header as *mut Header, data.as_mut_ptr()) };
    const CAP_SYS_ADMIN: u32 = 21;
    rc == 0 && data[0].effective & (1 << CAP_SYS_ADMIN) != 0
}

/// Why the namespace layer is not to be had when `unshare` answered `errno`.
fn unshare_refused(errno: i32, user_namespace: bool) -> String {
    let e = std::io::Error::from_raw_os_error(errno);
    match errno {
        libc::ENOSPC => format!("no user namespace can be created here (the limit of user namespaces is reached: {e})"),
        libc::EPERM if user_namespace => format!("user namespaces are not available to this user: {e}"),
        _ => format!("cannot create mount and IPC namespaces: {e}"),
    }
}

/// Why, when making the copied mount tree private (the first mount) answered `errno`.
fn private_refused(errno: i32) -> String {
    let e = std::io::Error::from_raw_os_error(errno);
    match errno {
        libc::EPERM => {
            format!("the kernel refuses mounts here (an enclosing sandbox's rules, or a security module): {e}")
        }
        _ => format!("cannot make the mount tree private: {e}"),
    }
}

/// Whether `/proc` is mounted read-only.
fn proc_read_only() -> bool {
    // SAFETY: an all-zero statvfs is valid to be overwritten.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: valid NUL-terminated path and out-pointer.
    unsafe { libc::statvfs(c"/proc".as_ptr(), &mut st) == 0 && st.f_flag & libc::ST_RDONLY != 0 }
}

/// Enters the namespaces and builds `view` in them. The process must be single-threaded.
/// `Ok(Unavailable)` when the kernel gives no namespaces (nothing is changed then); an error
/// once the view is half built, since going on would run the command in a view no one planned.
///
/// With `network` (the host's loopback ports to forward), the process also gets a network
/// namespace of its own with only loopback, and the listeners the proxy serves are made in it.
///
/// With a namespace to join beside the ports, the process enters that one (an agent session's,
/// whose proxy serves it already) instead of making one: no listener is made.
pub fn enter(
    view: &View,
    frozen: Option<&Frozen>,
    network: Option<(&[u16], Option<&OwnedFd>)>,
) -> Result<(Entered, Option<crate::outside::proxy::Handover>), ViewError> {
    if let Some(w) = &view.unsearchable {
        return Err(ViewError::Unsearchable(w.clone()));
    }
    let cwd = std::env::current_dir().map_err(|source| ViewError::Failed { step: Step::ReadCwd, source })?;
    let user_namespace = !may_administer_mounts();
    // SAFETY: plain integer system calls.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    if user_namespace && proc_read_only() {
        // An enclosing view (a nested start whose marker was removed): the new namespace could
        // not be mapped, and its Landlock rules would refuse the mounts anyway.
        return Ok((
            Entered::Unavailable(
                "/proc is read-only here (an enclosing sandbox's view), so no user namespace can be mapped".into(),
            ),
            None,
        ));
    }
    use nix::sched::CloneFlags;
    let mut flags = CloneFlags::CLONE_NEWNS | CloneFlags::CLONE_NEWIPC;
    let mut new_user_namespace = user_namespace;
    match network {
        // The session's namespace, entered before anything else changes. A caller that may not
        // administer mounts first enters the user namespace that owns it, which the session's
        // first call made and this user owns (mapped as it maps this one), and makes no other.
        Some((_, Some(netns))) => {
            let joined = if user_namespace {
                // SAFETY: NS_GET_USERNS takes no argument and returns a new descriptor or -1.
                let owner = unsafe { libc::ioctl(netns.as_raw_fd(), NS_GET_USERNS as libc::Ioctl) };
                if owner < 0 {
                    Err(nix::errno::Errno::last())
                } else {
                    // SAFETY: a descriptor the kernel just returned, owned by nothing else.
                    let owner = unsafe { OwnedFd::from_raw_fd(owner) };
                    nix::sched::setns(&owner, CloneFlags::CLONE_NEWUSER)
                }
            } else {
                Ok(())
            };
            if let Err(errno) = joined.and_then(|()| nix::sched::setns(netns, CloneFlags::CLONE_NEWNET)) {
                return Ok((
                    Entered::Unavailable(format!("cannot join the agent session's network namespace: {errno}")),
                    None,
                ));
            }
            new_user_namespace = false;
        }
        Some((_, None)) => flags |= CloneFlags::CLONE_NEWNET,
        None => {}
    }
    if new_user_namespace {
        flags |= CloneFlags::CLONE_NEWUSER;
    }
    // The process is single-threaded, as CLONE_NEWUSER needs.
    if let Err(errno) = nix::sched::unshare(flags) {
        return Ok((Entered::Unavailable(unshare_refused(errno as i32, user_namespace)), None));
    }
    if new_user_namespace {
        // Mapped to itself: programs see the same uid and gid.
        write_file("/proc/self/setgroups", "deny")?;
        write_file("/proc/self/uid_map", &format!("{uid} {uid} 1"))?;
        write_file("/proc/self/gid_map", &format!("{gid} {gid} 1"))?;
    }
    let handover = match network {
        Some((ports, None)) => Some(super::netns::set_up(ports).map_err(ViewError::Network)?),
        _ => None,
    };
    // Nothing done here reaches the namespace the caller is in. An enclosing Landlock domain
    // (a nested sandbox-bash) refuses every mount: this first one tells, before anything changes.
    use nix::mount::MsFlags;
    let private =
        nix::mount::mount(None::<&str>, "/", None::<&str>, MsFlags::MS_REC | MsFlags::MS_PRIVATE, None::<&str>);
    if let Err(errno) = private {
        return Ok((Entered::Unavailable(private_refused(errno as i32)), None));
    }

    // The writable trees as they are now, before the view is made read-only.
    let mut clones: Vec<Option<OwnedFd>> = Vec::with_capacity(view.points.len());
    for point in &view.points {
        clones.push(match point {
            Point::Writable { path, noexec } if view.read_only_base => {
                let clone = clone_tree(libc::AT_FDCWD, path)?;
                // A file made for this run is bound writable as that very file, or not at all.
                if let Some((_, node)) = view.exact.iter().find(|(p, _)| p == path) {
                    let made = clone.as_ref().and_then(|fd| {
                        let m = std::fs::File::from(fd.try_clone().ok()?).metadata().ok()?;
                        Some((std::os::unix::fs::MetadataExt::dev(&m), std::os::unix::fs::MetadataExt::ino(&m)))
                    });
                    if made != Some(*node) {
                        return Err(ViewError::NotMade(path.clone()));
                    }
                }
                if let Some(fd) = &clone
                    && *noexec
                {
                    set_attr(fd.as_raw_fd(), "", MOUNT_ATTR_NOEXEC, true, 0)?;
                }
                clone
            }
            _ => None,
        });
    }
    // The caches' layers, made while the trees their upper directories lie in are writable
    // still (an overlay takes its own copy of that mount). One the kernel refuses leaves its
    // cache as the mode says: no rule grants anything there then.
    let mut unlayered: Vec<String> = Vec::new();
    let mut layer_fds: Vec<Option<OwnedFd>> = Vec::with_capacity(view.points.len());
    for point in &view.points {
        layer_fds.push(match point {
            Point::Layer { path, lower, upper, work, noexec, .. } => {
                let mut options: Vec<(&'static str, &str)> =
                    vec![("lowerdir", lower.as_str()), ("upperdir", upper.as_str()), ("workdir", work.as_str())];
                if user_namespace {
                    options.push(("userxattr", ""));
                }
                let attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | if *noexec { MOUNT_ATTR_NOEXEC } else { 0 };
                match new_fs("overlay", &options, attrs) {
                    Ok(fd) => Some(fd),
                    Err(e) => {
                        unlayered.push(format!("{path}: {e}"));
                        None
                    }
                }
            }
            _ => None,
        });
    }
    if view.read_only_base {
        set_attr(libc::AT_FDCWD, "/", MOUNT_ATTR_RDONLY, true, 0)?;
    }

    // The stand-ins for masks, the frozen script and the listings for nested levels, in a small
    // file system of their own.
    let masks = view.points.iter().any(|p| matches!(p, Point::Mask { .. }));
    let mut listings: Option<&String> = None;
    let stand_ins = if masks || frozen.is_some() {
        let fs = new_fs(
            "tmpfs",
            &[("mode", "0755"), ("size", "16m"), ("nr_inodes", "16")],
            MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
        )?;
        // A character device 0:0 (a whiteout, which any user may create) on a nodev mount
        // cannot be opened at all: EACCES, for root too.
        // SAFETY: `fs` is a directory descriptor; names are NUL-terminated.
        if unsafe { libc::mknodat(fs.as_raw_fd(), c"file".as_ptr(), libc::S_IFCHR, 0) } != 0 {
            return Err(failed(Step::StandIn("masked files")));
        }
        // SAFETY: as above.
        if unsafe { libc::mkdirat(fs.as_raw_fd(), c"dir".as_ptr(), 0) } != 0 {
            return Err(failed(Step::StandIn("masked directories")));
        }
        if let Some(f) = frozen {
            write_frozen(&fs, f)?;
        }
        // Nested levels' listings: a convenience, so a failure only leaves the store masked.
        listings = view
            .listings
            .as_ref()
            .filter(|(_, bytes)| write_listings(&fs, bytes, view.word.as_deref()))
            .map(|(path, _)| path);
        set_attr(fs.as_raw_fd(), "", MOUNT_ATTR_RDONLY, false, 0)?;
        Some(fs)
    } else {
        None
    };

    let mut layers: Vec<String> = Vec::new();
    // The files stand-ins went on: one file met at two paths (but through a hard link) was
    // moved between two looks, and a credential may have gone unseen.
    let mut covered: Vec<(u64, u64)> = Vec::new();
    for ((point, clone), layer) in view.points.iter().zip(clones).zip(layer_fds) {
        match point {
            Point::Layer { path, .. } => {
                if let Some(fd) = layer {
                    match attach_raw(&fd, None, path) {
                        Ok(()) => layers.push(path.clone()),
                        Err(e) => unlayered.push(format!("{path}: {e}")),
                    }
                }
            }
            Point::Writable { path, .. } => {
                if let Some(fd) = clone {
                    attach_unless_gone(&fd, path)?;
                }
            }
            Point::ReadOnly { path, noexec } => {
                let Some(fd) = clone_tree(libc::AT_FDCWD, path)? else { continue };
                let attrs = MOUNT_ATTR_RDONLY | if *noexec { MOUNT_ATTR_NOEXEC } else { 0 };
                set_attr(fd.as_raw_fd(), "", attrs, true, 0)?;
                attach_unless_gone(&fd, path)?;
            }
            Point::Mask { path, dir, node } => {
                let Some(stand_ins) = &stand_ins else { continue };
                let name = match (dir, listings) {
                    (true, Some(store)) if store == path => LISTINGS_DIR,
                    (true, _) => "dir",
                    (false, _) => "file",
                };
                let Some(fd) = clone_tree(stand_ins.as_raw_fd(), name)? else {
                    return Err(ViewError::StandInGone(path.clone()));
                };
                // A credential the plan examined gets its stand-in on that very file, which
                // then stays covered wherever it is moved; anything else at its path now (a
                // swap in between) refuses the run.
                if let Some(node) = node {
                    let target = open_node(path, *node).ok_or_else(|| ViewError::Moved(path.clone()))?;
                    if covered.contains(node) && links(&target) < 2 {
                        return Err(ViewError::Moved(path.clone()));
                    }
                    covered.push(*node);
                    attach_raw(&fd, Some(&target), path)
                        .map_err(|source| ViewError::Failed { step: Step::Mask(path.clone()), source })?;
                    continue;
                }
                match attach_raw(&fd, None, path) {
                    Ok(()) => {}
                    // Gone since the view was planned, or become a directory: nothing of the
                    // kind planned to hide.
                    Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::ENOTDIR | libc::EISDIR)) => {}
                    Err(source) => return Err(ViewError::Failed { step: Step::Mask(path.clone()), source }),
                }
            }
        }
    }

    if let Some(noexec) = view.private_shm {
        let attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | if noexec { MOUNT_ATTR_NOEXEC } else { 0 };
        let shm = new_fs("tmpfs", &[("mode", "1777")], attrs)?;
        attach(&shm, None, "/dev/shm")?;
    }
    if view.private_pts {
        let pts = new_fs("devpts", &[("ptmxmode", "0666"), ("mode", "0620")], MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC)?;
        attach(&pts, None, "/dev/pts")?;
        // The multiplexer that allocates terminals must be this instance's.
        let ptmx = std::fs::symlink_metadata("/dev/ptmx");
        if ptmx.is_ok_and(|m| !m.file_type().is_symlink())
            && let Some(fd) = clone_tree(libc::AT_FDCWD, "/dev/pts/ptmx")?
        {
            attach(&fd, None, "/dev/ptmx")?;
        }
    }
    if view.private_mqueue {
        let mq = new_fs("mqueue", &[], MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC)?;
        attach(&mq, None, "/dev/mqueue")?;
    }

    // What was left unmasked as project content must still be the file whose content the
    // repository stores, and a file judged at two paths (but through a hard link) was moved
    // between two looks: something else may have gone unjudged.
    for (path, node) in &view.verify {
        if let Ok(m) = std::fs::symlink_metadata(path) {
            use std::os::unix::fs::MetadataExt;
            let here = (m.dev(), m.ino());
            if here != *node || (covered.contains(node) && m.nlink() < 2) {
                return Err(ViewError::Moved(path.clone()));
            }
            covered.push(here);
        }
    }

    // The current directory was the old tree's: enter it again, through the view.
    std::env::set_current_dir(&cwd).map_err(|source| ViewError::Failed { step: Step::Reenter(cwd.clone()), source })?;

    let frozen_done = match (frozen, &stand_ins) {
        (Some(f), Some(fs)) => {
            freeze(fs, f)?;
            true
        }
        _ => false,
    };
    let listings = listings.is_some();
    Ok((Entered::Held { user_namespace, frozen: frozen_done, layers, unlayered, listings }, handover))
}

/// The directory of the stand-ins' file system that takes the store's place.
const LISTINGS_DIR: &str = "listings";

/// Writes `bytes` as the store's file in a directory of the stand-ins' file system, with the
/// run's `word` after them (see `word::with_listings`): the caller's own, only they may enter
/// it, and nobody may write it (its file system becomes read-only). `false` when it could not
/// be written whole (then the store stays masked, and nested levels find no word).
fn write_listings(fs: &OwnedFd, bytes: &[u8], word: Option<&[u8]>) -> bool {
    let dir = std::ffi::CString::new(LISTINGS_DIR).unwrap_or_default();
    // SAFETY: `fs` is a directory descriptor; the name is NUL-terminated.
    if unsafe { libc::mkdirat(fs.as_raw_fd(), dir.as_ptr(), 0o700) } != 0 {
        return false;
    }
    // SAFETY: as above.
    if unsafe { libc::fchmodat(fs.as_raw_fd(), dir.as_ptr(), 0o700, 0) } != 0 {
        return false;
    }
    let with_word = word.and_then(|w| super::word::with_listings(bytes, w));
    write_new(fs, &format!("{LISTINGS_DIR}/{}", super::facts::FILE), with_word.as_deref().unwrap_or(bytes))
}

/// Writes `bytes` as the new file `name` (mode 0600, whatever the umask) below `fs`.
fn write_new(fs: &OwnedFd, name: &str, bytes: &[u8]) -> bool {
    use std::io::Write;
    let name = std::ffi::CString::new(name).unwrap_or_default();
    // SAFETY: `fs` is a directory descriptor; the name is NUL-terminated; the descriptor
    // returned is owned below.
    let fd = unsafe {
        libc::openat(
            fs.as_raw_fd(),
            name.as_ptr(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC,
            0o600,
        )
    };
    if fd < 0 {
        return false;
    }
    // SAFETY: a descriptor the kernel just returned, owned by nothing else.
    let mut file = std::fs::File::from(unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) });
    // SAFETY: a plain system call on a descriptor.
    let mode = unsafe { libc::fchmod(file.as_raw_fd(), 0o600) } == 0;
    mode && file.write_all(bytes).is_ok()
}

fn write_frozen(fs: &OwnedFd, f: &Frozen) -> Result<(), ViewError> {
    // SAFETY: `fs` is a directory descriptor; the name is NUL-terminated.
    let fd = owned(
        unsafe {
            libc::openat(
                fs.as_raw_fd(),
                c"script".as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC,
                0o400,
            ) as libc::c_long
        },
        || Step::FrozenCopy("create"),
    )?;
    // The script's own permission bits, whatever the umask (one that takes the owner's read
    // away would leave bash unable to read its script), readable by the caller, who owns the
    // copy. Write bits are kept: the copy lies on a read-only mount, so a write gets EROFS, as
    // everywhere else in the view.
    // SAFETY: `fd` is the descriptor just opened.
    if unsafe { libc::fchmod(fd.as_raw_fd(), (f.mode & 0o777) | 0o400) } != 0 {
        return Err(failed(Step::FrozenCopy("set the mode of")));
    }
    let mut file = std::fs::File::from(fd);
    use std::io::Write;
    file.write_all(f.bytes).map_err(|source| ViewError::Failed { step: Step::FrozenCopy("write"), source })
}

/// Binds the frozen copy over the path bash opens, once that path still leads to the file
/// that was analysed.
fn freeze(fs: &OwnedFd, f: &Frozen) -> Result<(), ViewError> {
    let c = CString::new(f.path.as_os_str().as_bytes()).map_err(|_| ViewError::Nul(f.path.display().to_string()))?;
    // SAFETY: `c` is NUL-terminated; O_PATH opens nothing for reading.
    let target = owned(unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) as libc::c_long }, || {
        Step::OpenScript(f.path.to_path_buf())
    })?;
    // SAFETY: an all-zero stat is valid to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `target` is open and `st` a valid out-pointer.
    if unsafe { libc::fstat(target.as_raw_fd(), &mut st) } != 0 || (st.st_dev, st.st_ino) != f.identity {
        return Err(ViewError::ScriptChanged(f.path.to_path_buf()));
    }
    let Some(copy) = clone_tree(fs.as_raw_fd(), "script")? else {
        return Err(ViewError::StandInGone(f.path.display().to_string()));
    };
    attach(&copy, Some(&target), &f.path.display().to_string())
}

/// Whether the namespace layer can be had here, tried in a child process that is thrown away
/// (for `--sandbox-info`, which changes nothing in its own process). The child does what
/// [`enter`] does up to its first mount, and reports only an errno. With `network`, the network
/// namespace the allowlist's proxy needs is tried too.
pub fn probe(network: bool) -> Result<(), String> {
    if !may_administer_mounts() && proc_read_only() {
        return Err("/proc is read-only here (an enclosing sandbox's view), so no user namespace can be mapped".into());
    }
    let mut ends = [0i32; 2];
    // SAFETY: `ends` has room for two descriptors.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!("cannot probe for namespaces: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: both descriptors were just created and are owned here.
    let (read_end, write_end) = unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
    let user_namespace = !may_administer_mounts();
    // SAFETY: plain integer system calls.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    // The maps are formatted before the fork: the child allocates nothing.
    let maps = [format!("{uid} {uid} 1\0"), format!("{gid} {gid} 1\0")];
    // SAFETY: the child only makes system calls on memory prepared before the fork, then exits.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!("cannot probe for namespaces: {}", std::io::Error::last_os_error()));
    }
    if pid == 0 {
        let fail = |step: i32| -> ! {
            let report = [step, std::io::Error::last_os_error().raw_os_error().unwrap_or(0)];
            // SAFETY: writes eight bytes from a live array, then ends the child at once.
            unsafe {
                libc::write(write_end.as_raw_fd(), report.as_ptr().cast(), size_of_val(&report));
                libc::_exit(1)
            }
        };
        let mut flags = libc::CLONE_NEWNS | libc::CLONE_NEWIPC;
        if user_namespace {
            flags |= libc::CLONE_NEWUSER;
        }
        if network {
            flags |= libc::CLONE_NEWNET;
        }
        // SAFETY: integer flags.
        if unsafe { libc::unshare(flags) } != 0 {
            fail(1);
        }
        if user_namespace {
            for (file, text) in [
                (c"/proc/self/setgroups", &b"deny\0"[..]),
                (c"/proc/self/uid_map", maps[0].as_bytes()),
                (c"/proc/self/gid_map", maps[1].as_bytes()),
            ] {
                // SAFETY: NUL-terminated path; the text is written without its NUL.
                let ok = unsafe {
                    let fd = libc::open(file.as_ptr(), libc::O_WRONLY);
                    fd >= 0 && libc::write(fd, text.as_ptr().cast(), text.len() - 1) == (text.len() - 1) as isize
                };
                if !ok {
                    fail(2);
                }
            }
        }
        // SAFETY: as in `enter`.
        let rc = unsafe {
            libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            )
        };
        if rc != 0 {
            fail(3);
        }
        // SAFETY: ends the child.
        unsafe { libc::_exit(0) }
    }
    drop(write_end);
    let mut report = [0i32; 2];
    // SAFETY: reads at most eight bytes into a live array.
    let n = unsafe { libc::read(read_end.as_raw_fd(), report.as_mut_ptr().cast(), size_of_val(&report)) };
    let mut status = 0;
    // SAFETY: waits for the child just forked.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    if n <= 0 && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
        return Ok(());
    }
    Err(match report[0] {
        1 => unshare_refused(report[1], user_namespace),
        2 => format!("cannot map the user namespace: {}", std::io::Error::from_raw_os_error(report[1])),
        _ => private_refused(report[1]),
    })
}
