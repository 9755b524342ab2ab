//! Finding the real bash (never sandbox-bash itself) and replacing this process with it.

use std::ffi::{CStr, CString, OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::Error;

/// The variable that names the real bash explicitly.
pub const REAL_BASH_VAR: &str = "SANDBOX_BASH_REAL_BASH";

/// sandbox-bash's own executable (read once: several steps need it).
pub fn self_exe() -> Option<&'static Path> {
    static SELF: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    SELF.get_or_init(|| std::env::current_exe().ok()).as_deref()
}

/// `path` with every symbolic link resolved and `.` and `..` taken out, as realpath(3) gives
/// it (a relative path is taken from the cwd), as text. musl's realpath keeps a leading `//`
/// (POSIX leaves its meaning open); to Linux it is `/`, and paths are compared as text here.
pub fn canonicalize(path: &str) -> std::io::Result<String> {
    #[cfg(target_os = "linux")]
    {
        // A plain path whose every component the kept listings show there and no link is its
        // own canonical form (see `sandbox::facts`).
        if matches!(crate::sandbox::facts::entry(path), Some(Some(e)) if !e.link) {
            return Ok(path.to_string());
        }
        if let Some(real) = canonical_by_descriptor(path)? {
            return Ok(real);
        }
    }
    let real =
        std::fs::canonicalize(path)?.into_os_string().into_string().map_err(|_| std::io::ErrorKind::InvalidData)?;
    Ok(if real.starts_with("//") { real[1..].to_string() } else { real })
}

/// [`canonicalize`] for a path that may well not be there (a toolchain's usual home): `None`
/// at once where the kept listings show it is not (see `sandbox::facts`), without asking the
/// kernel, and for any error.
pub fn canonical_if_there(path: &str) -> Option<String> {
    #[cfg(target_os = "linux")]
    if crate::sandbox::facts::absent(path) {
        return None;
    }
    canonicalize(path).ok()
}

/// The canonical path the kernel gives for a descriptor opened on `path`: three system calls,
/// where the C library's realpath asks for every component in turn. The open follows every
/// link and fails as realpath does (a missing component, a directory that may not be
/// searched). `None` when the kernel's name is not a plain absolute path (no `/proc`, a file
/// deleted meanwhile, a name beyond this process's root): realpath answers then.
#[cfg(target_os = "linux")]
fn canonical_by_descriptor(path: &str) -> std::io::Result<Option<String>> {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    let c = CString::new(path).map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    // SAFETY: `c` is a valid NUL-terminated path; the descriptor is owned below.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: just opened, owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let Ok(name) = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())) else { return Ok(None) };
    let Ok(name) = name.into_os_string().into_string() else { return Ok(None) };
    Ok((name.starts_with('/') && !name.ends_with(" (deleted)")).then_some(name))
}

/// The device and inode of a file, to recognise sandbox-bash under any name.
fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// The identity of `path` when it is an executable regular file (one look at the file).
fn executable_identity(path: &Path) -> Option<(u64, u64)> {
    let m = std::fs::metadata(path).ok()?;
    (m.is_file() && m.mode() & 0o111 != 0).then(|| (m.dev(), m.ino()))
}

/// Where an explicit real bash was named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// [`REAL_BASH_VAR`].
    Variable,
    /// `real_bash` in a configuration file.
    Config,
}

/// Finds the real bash: the one named explicitly (`SANDBOX_BASH_REAL_BASH`, or `real_bash` in
/// the configuration), else `/bin/bash`, `/usr/bin/bash`, then `PATH`, skipping every file that
/// is this very executable.
pub fn find_real_bash(explicit: Option<(&OsStr, Setting)>, path_var: Option<&OsStr>) -> Result<PathBuf, Error> {
    let me = self_exe().and_then(identity);
    if let Some((explicit, setting)) = explicit {
        let path = PathBuf::from(explicit);
        if !path.is_absolute() {
            return Err(Error::RealBash { path, why: "must be an absolute path".into(), setting });
        }
        let Some(found) = executable_identity(&path) else {
            return Err(Error::RealBash { path, why: "is not an executable file".into(), setting });
        };
        if me == Some(found) {
            return Err(Error::RealBash { path, why: "is sandbox-bash itself, not the real bash".into(), setting });
        }
        return Ok(path);
    }
    // Each candidate once, in order; the first is almost always the one.
    let on_path =
        path_var.into_iter().flat_map(std::env::split_paths).filter(|d| d.is_absolute()).map(|d| d.join("bash"));
    let mut tried: Vec<PathBuf> = Vec::new();
    for candidate in [PathBuf::from("/bin/bash"), PathBuf::from("/usr/bin/bash")].into_iter().chain(on_path) {
        if tried.contains(&candidate) {
            continue;
        }
        if let Some(found) = executable_identity(&candidate)
            && me != Some(found)
        {
            return Ok(candidate);
        }
        tried.push(candidate);
    }
    Err(Error::RealBashNotFound { tried })
}

fn cstring(s: &OsStr) -> Result<CString, std::io::Error> {
    CString::new(s.as_bytes())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "argument contains a NUL byte"))
}

/// Replaces this process with `bash`, with `argv` (including `argv[0]`) and the environment
/// entries `env` (`NAME=VALUE` each). Returns only on failure.
pub fn exec(bash: &Path, argv: &[OsString], env: &[&CStr]) -> Error {
    let run = || -> Result<std::convert::Infallible, std::io::Error> {
        let path = cstring(bash.as_os_str())?;
        let args: Vec<CString> = argv.iter().map(|a| cstring(a)).collect::<Result<_, _>>()?;
        let mut arg_ptrs: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
        arg_ptrs.push(std::ptr::null());
        let mut env_ptrs: Vec<*const libc::c_char> = env.iter().map(|e| e.as_ptr()).collect();
        env_ptrs.push(std::ptr::null());
        // SAFETY: every pointer comes from a CString or CStr that lives until execve returns,
        // and both arrays end with a null pointer as execve requires.
        unsafe {
            libc::execve(path.as_ptr(), arg_ptrs.as_ptr(), env_ptrs.as_ptr());
        }
        Err(std::io::Error::last_os_error())
    };
    match run() {
        Ok(never) => match never {},
        Err(source) => Error::Exec { path: bash.to_path_buf(), source },
    }
}

/// Whether a file descriptor is a terminal.
pub fn is_tty(fd: i32) -> bool {
    // SAFETY: isatty only inspects the descriptor number.
    unsafe { libc::isatty(fd) == 1 }
}

/// Turns any panic before exec (in this crate or a dependency, such as the parser) into an
/// internal error: the error line on stderr and status 125, at once, with nothing run.
pub fn stop_on_panic() {
    std::panic::set_hook(Box::new(|info| {
        use std::io::Write;
        // The crate, directory and file are enough to find the place.
        let location = info
            .location()
            .map(|l| {
                let parts: Vec<&str> = l.file().rsplit('/').take(3).collect();
                let short: Vec<&str> = parts.into_iter().rev().collect();
                format!(" in {}:{}", short.join("/"), l.line())
            })
            .unwrap_or_default();
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let _ =
            writeln!(std::io::stderr(), "sandbox-bash: error: internal error{location}: {message}; nothing was run");
        // SAFETY: _exit ends the process at once without running any other code; nothing of
        // the command has run, and nothing will.
        unsafe { libc::_exit(crate::report::REFUSED) }
    }));
}

/// The caller's effective user ID.
pub fn euid() -> u32 {
    // SAFETY: geteuid only reads the caller's credentials.
    unsafe { libc::geteuid() }
}

/// The caller's real user ID. Asked of the kernel once: a start asks for it some fifty times,
/// and nothing here changes it (the first question comes long before a user namespace is
/// entered, and it would go on naming the caller there).
pub fn uid() -> u32 {
    static UID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    // SAFETY: getuid only reads the caller's credentials.
    *UID.get_or_init(|| unsafe { libc::getuid() })
}

/// The parent process's ID.
pub fn ppid() -> i32 {
    // SAFETY: getppid only reads the caller's identity.
    unsafe { libc::getppid() }
}

/// An exclusive `flock` on an open descriptor, released when dropped.
pub struct FileLock(i32);

/// Waits for an exclusive `flock` on `fd` (which must stay open while the lock lives), for at
/// most [`LOCK_WAIT`]: a process that holds the lock for ever must not hang every later run.
pub fn lock_exclusive(fd: i32) -> std::io::Result<FileLock> {
    let deadline = std::time::Instant::now() + LOCK_WAIT;
    let mut pause = std::time::Duration::from_micros(200);
    loop {
        // SAFETY: flock only acts on the descriptor it is given; the lock goes with the descriptor.
        if unsafe { libc::flock(fd, libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(FileLock(fd));
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EWOULDBLOCK) {
            return Err(e);
        }
        if std::time::Instant::now() >= deadline {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("another process has held its lock for {} s", LOCK_WAIT.as_secs()),
            ));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(std::time::Duration::from_millis(50));
    }
}

/// How long a record waits for the audit log's lock.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

impl Drop for FileLock {
    fn drop(&mut self) {
        // SAFETY: as above; releasing a lock cannot harm the descriptor.
        unsafe { libc::flock(self.0, libc::LOCK_UN) };
    }
}

/// Whether this is the process's main thread, whose stack `ulimit -s` bounds.
#[cfg(target_os = "linux")]
pub fn on_main_thread() -> bool {
    // SAFETY: getpid and gettid only read the caller's identity.
    unsafe { libc::getpid() == libc::gettid() }
}

/// Whether this is the process's main thread, whose stack `ulimit -s` bounds.
#[cfg(target_os = "macos")]
pub fn on_main_thread() -> bool {
    // SAFETY: pthread_main_np only reads the calling thread's identity.
    unsafe { libc::pthread_main_np() != 0 }
}

/// The main thread's stack limit (`ulimit -s`), in bytes; 0 when it cannot be read.
pub fn main_stack_bytes() -> usize {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) } != 0 {
        return 0;
    }
    if limit.rlim_cur == libc::RLIM_INFINITY {
        usize::MAX
    } else {
        usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX)
    }
}

/// Opens a directory to examine it and to open files inside it: on Linux without read access
/// (`O_PATH`), which needs no right on the directory itself.
/// The flags go to `openat(2)` directly: std's `custom_flags` drops `O_PATH` where the C
/// library counts it in `O_ACCMODE` (musl's `O_SEARCH`), and the directory would then need
/// read access, which a nested invocation does not have.
pub(crate) fn open_dir(path: &Path) -> std::io::Result<std::fs::File> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    // SAFETY: the NUL-terminated path is valid for the call; the result is checked before it
    // is owned.
    let fd = unsafe { libc::openat(libc::AT_FDCWD, c.as_ptr(), flags) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and nothing else owns it.
    Ok(unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd) })
}

/// The address of the unix socket at the absolute `path`. A socket address holds at most 107
/// bytes of path; a longer one (a deep home, a long `XDG_STATE_HOME`) is reached through a
/// descriptor of its directory (`/proc/self/fd/N/NAME`), which the caller keeps open until
/// it has bound or connected.
#[cfg(target_os = "linux")]
pub fn socket_address(path: &str) -> Option<(nix::sys::socket::UnixAddr, Option<std::fs::File>)> {
    const MAX_PATH: usize = 107;
    if path.len() <= MAX_PATH {
        return Some((nix::sys::socket::UnixAddr::new(path).ok()?, None));
    }
    let (dir, name) = path.rsplit_once('/')?;
    let dir = std::os::unix::fs::OpenOptionsExt::custom_flags(
        std::fs::OpenOptions::new().read(true),
        libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
    )
    .open(if dir.is_empty() { "/" } else { dir })
    .ok()?;
    let short = format!("/proc/self/fd/{}/{name}", std::os::fd::AsRawFd::as_raw_fd(&dir));
    (short.len() <= MAX_PATH).then_some(())?;
    Some((nix::sys::socket::UnixAddr::new(short.as_str()).ok()?, Some(dir)))
}

/// Opens the directory at the absolute `path`, following no symbolic link on the way: what it
/// returns is the directory that path names without links, now (in one call where the kernel
/// offers it, else one component at a time).
pub(crate) fn open_dir_no_links(path: &Path) -> std::io::Result<std::fs::File> {
    let below = path.strip_prefix("/").map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    if !plain_components(below) {
        return Err(std::io::Error::from(std::io::ErrorKind::InvalidInput));
    }
    #[cfg(target_os = "linux")]
    if below.components().next().is_some()
        && let Some(answer) = open_dir_in_one_call(libc::AT_FDCWD, path)
    {
        return answer;
    }
    let root = open_dir(Path::new("/"))?;
    walk_below_no_links(&root, below)
}

/// The directory `relative` below the open directory `dir`, every component reached by no
/// link (as [`open_dir_no_links`] does from `/`). An empty `relative` opens `dir` again.
pub(crate) fn open_dir_below_no_links(dir: &std::fs::File, relative: &Path) -> std::io::Result<std::fs::File> {
    if !plain_components(relative) {
        return Err(std::io::Error::from(std::io::ErrorKind::InvalidInput));
    }
    #[cfg(target_os = "linux")]
    if relative.components().nth(1).is_some()
        && let Some(answer) = open_dir_in_one_call(std::os::fd::AsRawFd::as_raw_fd(dir), relative)
    {
        return answer;
    }
    walk_below_no_links(dir, relative)
}

/// Whether `path` names only entries (no root, `.` or `..`): what the no-link opens walk.
fn plain_components(path: &Path) -> bool {
    path.components().all(|part| matches!(part, std::path::Component::Normal(_)))
}

/// [`open_dir_below_no_links`] one component at a time: an open with `O_NOFOLLOW` for each
/// (`relative` holds only plain components).
fn walk_below_no_links(dir: &std::fs::File, relative: &Path) -> std::io::Result<std::fs::File> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW;
    let mut opened: Option<std::fs::File> = None;
    for part in relative.components() {
        let std::path::Component::Normal(name) = part else {
            return Err(std::io::Error::from(std::io::ErrorKind::InvalidInput));
        };
        opened = Some(open_in(opened.as_ref().unwrap_or(dir), name, flags, 0)?);
    }
    match opened {
        Some(d) => Ok(d),
        None => open_in(dir, OsStr::new("."), flags, 0),
    }
}

/// [`open_dir_below_no_links`] below the directory `dir` (or [`open_dir_no_links`], from
/// `AT_FDCWD` with an absolute `path`) in one system call where the kernel offers it
/// (`openat2(2)`, which refuses a symbolic link on any component, Linux 5.6 and later), rather
/// than an open and a close for each component. `None` where the walk must answer: the call is
/// not offered (an older kernel; an enclosing sandbox-bash's filter, which answers "not
/// supported", or another filter that answers "not permitted": either is not asked again), or
/// it refused for a reason the walk may word otherwise (a link on the way is ELOOP here and
/// ENOTDIR there). A component that is not there is the same answer either way.
#[cfg(target_os = "linux")]
fn open_dir_in_one_call(dir: std::os::fd::RawFd, path: &Path) -> Option<std::io::Result<std::fs::File>> {
    // `struct open_how` (linux/openat2.h).
    #[repr(C)]
    struct OpenHow {
        flags: u64,
        mode: u64,
        resolve: u64,
    }
    let how = OpenHow {
        flags: (libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC) as u64,
        mode: 0,
        resolve: libc::RESOLVE_NO_SYMLINKS,
    };
    // Once refused as not offered, not asked again (inside a run, every call would be).
    static OFFERED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);
    if !OFFERED.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: the descriptor, the NUL-terminated path and the structure (with its size) are
    // valid for the call; the result is checked before it is owned.
    let fd = unsafe {
        libc::syscall(libc::SYS_openat2, dir, c.as_ptr(), &how as *const OpenHow, std::mem::size_of::<OpenHow>())
    };
    if fd >= 0 {
        // SAFETY: `fd` was just opened and nothing else owns it.
        return Some(Ok(unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd as libc::c_int) }));
    }
    let error = std::io::Error::last_os_error();
    if matches!(error.raw_os_error(), Some(libc::ENOSYS | libc::EPERM)) {
        OFFERED.store(false, std::sync::atomic::Ordering::Relaxed);
    }
    (error.raw_os_error() == Some(libc::ENOENT)).then_some(Err(error))
}

/// `openat(2)`: the entry `name` of the open directory `dir`, with `flags` (close-on-exec is
/// added) and, when it is created, `mode`.
pub(crate) fn open_in(
    dir: &std::fs::File,
    name: &OsStr,
    flags: libc::c_int,
    mode: libc::c_uint,
) -> std::io::Result<std::fs::File> {
    let name = CString::new(name.as_bytes()).map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    // SAFETY: the descriptor and the NUL-terminated name are valid for the call; the result is
    // checked before it is owned.
    let fd =
        unsafe { libc::openat(std::os::fd::AsRawFd::as_raw_fd(dir), name.as_ptr(), flags | libc::O_CLOEXEC, mode) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and nothing else owns it.
    Ok(unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd) })
}

/// A new descriptor (close-on-exec) for the open descriptor number `fd`, which this process
/// holds for the whole run (an enclosing level's audit channel): the copy may be owned and
/// closed, the number stays.
pub fn duplicate(fd: std::os::fd::RawFd) -> std::io::Result<std::os::fd::OwnedFd> {
    // SAFETY: the descriptor is only borrowed for the duplication, never closed here.
    let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    borrowed.try_clone_to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonicalize_resolves_links_and_gives_one_leading_slash() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().into_os_string().into_string().unwrap();
        let d = std::path::Path::new(&root);
        std::fs::create_dir_all(d.join("a/b/c")).unwrap();
        std::fs::write(d.join("a/file"), "").unwrap();
        let link = |target: &str, name: &str| std::os::unix::fs::symlink(target, d.join(name)).unwrap();
        link("a/b", "rel");
        link("rel/c", "chain");
        link("loop2", "loop1");
        link("loop1", "loop2");
        link("a/file", "to-file");
        link("missing", "dangling");
        let at = |p: &str| canonicalize(&format!("{root}/{p}")).map_err(|e| e.raw_os_error());
        assert_eq!(at("rel"), Ok(format!("{root}/a/b")));
        assert_eq!(at("chain/.."), Ok(format!("{root}/a/b")));
        assert_eq!(at("a/./b//c/"), Ok(format!("{root}/a/b/c")));
        assert_eq!(at("loop1"), Err(Some(libc::ELOOP)));
        assert_eq!(at("dangling"), Err(Some(libc::ENOENT)));
        assert_eq!(at("to-file/"), Err(Some(libc::ENOTDIR)));
        assert_eq!(canonicalize("//usr///bin/").unwrap(), std::fs::canonicalize("/usr/bin").unwrap().to_str().unwrap());
        assert!(!canonicalize(&format!("/{root}")).unwrap().starts_with("//"));
        assert_eq!(canonicalize(".").unwrap(), std::env::current_dir().unwrap().to_str().unwrap());
    }

    #[test]
    fn a_directory_is_opened_by_no_link_in_one_call_or_by_the_walk_alike() {
        use std::os::unix::fs::MetadataExt;
        let dir = crate::unit_scratch();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("a/b/c")).unwrap();
        std::fs::write(root.join("a/file"), "").unwrap();
        std::os::unix::fs::symlink("b", root.join("a/link")).unwrap();
        std::os::unix::fs::symlink("missing", root.join("a/dangling")).unwrap();
        let base = open_dir(&root).unwrap();
        let ino = |f: &std::fs::File| f.metadata().unwrap().ino();
        // The walk alone, one component at a time, as where openat2 is not offered.
        let walked = |relative: &str| walk_below_no_links(&base, Path::new(relative));
        for relative in ["a/b/c", "a/b", "a/link/c", "a/link", "a/dangling", "a/file/x", "a/missing/c", "a/b/missing"] {
            let below = open_dir_below_no_links(&base, Path::new(relative));
            let from_root = open_dir_no_links(&root.join(relative));
            let walk = walked(relative);
            for (how, got) in [("below", &below), ("from /", &from_root)] {
                match (got, &walk) {
                    (Ok(a), Ok(b)) => assert_eq!(ino(a), ino(b), "{relative} ({how})"),
                    (Err(a), Err(b)) => assert_eq!(a.raw_os_error(), b.raw_os_error(), "{relative} ({how})"),
                    _ => panic!("{relative} ({how}): {got:?} against the walk's {walk:?}"),
                }
            }
        }
        assert_eq!(
            ino(&open_dir_below_no_links(&base, Path::new("a/b/c")).unwrap()),
            ino(&std::fs::File::open(root.join("a/b/c")).unwrap())
        );
        // A link anywhere on the way is refused, never followed.
        assert!(open_dir_below_no_links(&base, Path::new("a/link/c")).is_err());
        assert!(open_dir_no_links(&root.join("a/link")).is_err());
        // `..` and `.` are not walked.
        for odd in ["a/../a/b", "./a/b"] {
            let e = open_dir_below_no_links(&base, Path::new(odd)).unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{odd}");
        }
        assert_eq!(open_dir_no_links(&root.join("a/../a/b")).unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
    }

    /// (Uses the kept listings, which the whole process shares: in a process of its own.)
    #[test]
    #[cfg(target_os = "linux")]
    fn a_path_the_listings_show_is_not_there_is_not_asked_of_the_kernel_until_they_are_forgotten() {
        let test = concat!(
            module_path!(),
            "::a_path_the_listings_show_is_not_there_is_not_asked_of_the_kernel_until_they_are_forgotten"
        );
        crate::in_own_process(test, canonical_if_there_from_the_listings);
    }

    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    fn canonical_if_there_from_the_listings() {
        let d = crate::unit_scratch();
        let root = std::fs::canonicalize(d.path()).unwrap().into_os_string().into_string().unwrap();
        let home = format!("{root}/home");
        std::fs::create_dir_all(format!("{home}/.cargo")).unwrap();
        std::os::unix::fs::symlink(format!("{home}/.cargo"), format!("{home}/cargo-link")).unwrap();
        // SAFETY: this test's process alone (see above); no other thread reads the variable.
        unsafe { std::env::set_var("SANDBOX_BASH_TEST_ACCOUNT_HOME", &home) };
        crate::sandbox::facts::open(crate::sandbox::facts::Use::Read);
        crate::sandbox::facts::admit(&[]);
        assert_eq!(canonical_if_there(&format!("{home}/.cargo")), Some(format!("{home}/.cargo")));
        assert_eq!(canonical_if_there(&format!("{home}/cargo-link")), Some(format!("{home}/.cargo")));
        assert_eq!(canonical_if_there(&format!("{home}/.volta")), None);
        assert_eq!(canonical_if_there(&format!("{home}/.cargo/x/y")), None);
        // Made since the home was listed: the listing answers until it is forgotten (a start
        // forgets after making its own directories), and then the kernel's answer is taken.
        std::fs::create_dir(format!("{home}/.volta")).unwrap();
        assert_eq!(canonical_if_there(&format!("{home}/.volta")), None, "the listing was not used");
        assert_eq!(canonicalize(&format!("{home}/.volta")).as_deref().ok(), Some(format!("{home}/.volta").as_str()));
        crate::sandbox::facts::forget();
        assert_eq!(canonical_if_there(&format!("{home}/.volta")), Some(format!("{home}/.volta")));
        // Below a link the listings do not answer: the kernel does.
        std::fs::create_dir(format!("{home}/.cargo/bin")).unwrap();
        assert_eq!(canonical_if_there(&format!("{home}/cargo-link/bin")), Some(format!("{home}/.cargo/bin")));
    }
}
