//! The descriptors the caller left open, judged like the paths and sockets they lead to.
//!
//! A descriptor opened before the sandbox is past every rule: Landlock checks opens, not the
//! reads and writes of what is already open, and a directory opened outside the view resolves
//! names below it in the tree the view covers. So a descriptor above the standard three that
//! gives what the mode does not allow is closed before anything is locked, and the command is
//! told on stderr which and why. The standard three are the caller's own choice of input and
//! output, and stay.
//!
//! The list is taken when the run starts, before sandbox-bash opens anything of its own.

use std::sync::OnceLock;

use crate::mode::{Mode, Perm, Scope};
use crate::scope::{Class, Layout};

/// What one inherited descriptor leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A pipe or FIFO, a terminal or another device, an event or timer: nothing the mode
    /// decides on.
    Channel,
    /// A file, opened for reading, writing or both.
    File { path: String, read: bool, write: bool },
    /// A directory: names below it resolve outside the view.
    Directory { path: String },
    /// A unix socket connected to a server listening at `peer` (tmux's, the session bus, an
    /// agent's).
    Server { peer: String },
    /// A unix socket with no named peer (a socket pair with the caller, a listener of its own).
    LocalSocket,
    /// A socket of another family (TCP, UDP, netlink, …).
    NetworkSocket { family: i32 },
    /// The same file as standard input, output or error (autoconf's `exec 6>&1`): the
    /// caller's choice, like the stream itself.
    Standard { of: i32 },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Descriptor {
    pub fd: i32,
    pub kind: Kind,
}

impl Descriptor {
    /// What it leads to, in a few words.
    pub fn shown(&self) -> String {
        match &self.kind {
            Kind::Channel => "a pipe or device".into(),
            Kind::File { path, write, .. } => {
                format!("{path}, open for {}", if *write { "writing" } else { "reading" })
            }
            Kind::Directory { path } => format!("the directory {path}"),
            Kind::Server { peer } => format!("a connection to the server at {peer}"),
            Kind::LocalSocket => "a unix socket of the caller's".into(),
            Kind::NetworkSocket { family } => format!("a network socket (family {family})"),
            Kind::Standard { of } => format!("the same file as descriptor {of}"),
        }
    }
}

/// Whether a descriptor stays open, or why it is closed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Kept,
    /// The bits that would allow it, and why it gives more than the mode allows.
    Closed {
        needs: Mode,
        why: String,
    },
}

static INHERITED: OnceLock<Vec<Descriptor>> = OnceLock::new();

/// Takes the list once, at the start of the run (later calls see the same list).
pub fn take() -> &'static [Descriptor] {
    INHERITED.get_or_init(list)
}

/// The list taken at the start, or none when it was not taken (a test calling the run).
pub fn taken() -> &'static [Descriptor] {
    INHERITED.get().map(Vec::as_slice).unwrap_or_default()
}

fn list() -> Vec<Descriptor> {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else { return Vec::new() };
    let mut fds: Vec<i32> = dir.flatten().filter_map(|e| e.file_name().to_str()?.parse().ok()).collect();
    fds.sort_unstable();
    // The listing's own descriptor is closed by now: fstat fails on it.
    let standard: Vec<(i32, (u64, u64))> = (0..3).filter_map(|fd| Some((fd, node(fd)?))).collect();
    fds.into_iter()
        .filter(|&fd| fd > 2)
        .filter_map(|fd| {
            let kind = match node(fd).and_then(|n| standard.iter().find(|(_, s)| *s == n)) {
                Some((of, _)) => Kind::Standard { of: *of },
                None => kind(fd)?,
            };
            Some(Descriptor { fd, kind })
        })
        .collect()
}

/// The device and inode of what `fd` leads to.
fn node(fd: i32) -> Option<(u64, u64)> {
    // SAFETY: an all-zero stat is valid to be overwritten; fstat fills it or fails.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a descriptor number and a valid out-pointer.
    (unsafe { libc::fstat(fd, &mut st) } == 0).then_some((st.st_dev, st.st_ino))
}

fn kind(fd: i32) -> Option<Kind> {
    // SAFETY: an all-zero stat is valid to be overwritten; fstat fills it or fails.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a descriptor number and a valid out-pointer.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return None;
    }
    let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok();
    let path = link.as_ref().map(|p| p.to_string_lossy().into_owned()).filter(|p| p.starts_with('/'));
    // SAFETY: F_GETFL takes no argument and returns the status flags or -1.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return None;
    }
    match st.st_mode & libc::S_IFMT {
        // A path to a socket, not a socket: `/proc/self/fd/N` connects to it past the view.
        libc::S_IFSOCK if flags & libc::O_PATH != 0 => {
            Some(Kind::Server { peer: path.unwrap_or_else(|| "a socket reached by a path handle".into()) })
        }
        libc::S_IFSOCK => Some(socket(fd)),
        libc::S_IFDIR => Some(match path {
            Some(path) => Kind::Directory { path },
            None => Kind::Channel,
        }),
        libc::S_IFREG => {
            let access = flags & libc::O_ACCMODE;
            match path {
                // An unlinked file (memfd, a deleted temporary) has no place to judge.
                Some(path) if !path.ends_with(" (deleted)") => {
                    Some(Kind::File { path, read: access != libc::O_WRONLY, write: access != libc::O_RDONLY })
                }
                _ => Some(Kind::Channel),
            }
        }
        _ => Some(Kind::Channel),
    }
}

fn socket(fd: i32) -> Kind {
    let mut domain: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: SO_DOMAIN writes one int into `domain`, whose size `len` gives.
    let rc = unsafe {
        libc::getsockopt(fd, libc::SOL_SOCKET, libc::SO_DOMAIN, (&mut domain as *mut libc::c_int).cast(), &mut len)
    };
    if rc != 0 {
        // Nothing can be said of it: judged as a connection to a server, the strictest.
        return Kind::Server { peer: "a socket whose family cannot be read".into() };
    }
    if domain != libc::AF_UNIX {
        return Kind::NetworkSocket { family: domain };
    }
    // SAFETY: an all-zero sockaddr_un is valid; getpeername fills at most `len` bytes of it.
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
    // SAFETY: a valid out-pointer and its size.
    let rc = unsafe { libc::getpeername(fd, (&mut addr as *mut libc::sockaddr_un).cast(), &mut len) };
    let offset = std::mem::size_of::<libc::sa_family_t>();
    if rc != 0 || (len as usize) <= offset {
        return Kind::LocalSocket;
    }
    let raw: Vec<u8> =
        addr.sun_path[..(len as usize - offset).min(addr.sun_path.len())].iter().map(|&c| c as u8).collect();
    // A named peer, by a path (absolute or relative to where it was bound) or an abstract
    // name (a first byte 0): Landlock scopes new connections to abstract names, not one made
    // already.
    match raw.split_first() {
        None => Kind::LocalSocket,
        Some((0, name)) => Kind::Server { peer: format!("@{}", String::from_utf8_lossy(name)) },
        Some(_) => {
            let name: Vec<u8> = raw.into_iter().take_while(|&b| b != 0).collect();
            Kind::Server { peer: String::from_utf8_lossy(&name).into_owned() }
        }
    }
}

/// Judges `d` for a run under `allowed` in `layout`: `reachable` names the servers' sockets
/// that stay reachable, `by_host` says the network goes through the allowlist's proxy.
pub fn judge(d: &Descriptor, allowed: Mode, layout: &Layout, reachable: &[String], by_host: bool) -> Verdict {
    let bit = |scope: Scope, perm: Perm| Mode::bit(scope, perm);
    match &d.kind {
        Kind::Channel | Kind::LocalSocket | Kind::Standard { .. } => Verdict::Kept,
        Kind::NetworkSocket { .. } => {
            let network = allowed.has(Scope::Network, Perm::Read) || allowed.has(Scope::Network, Perm::Write);
            if network && !by_host {
                Verdict::Kept
            } else if by_host {
                Verdict::Closed {
                    needs: Mode::NONE,
                    why: "made outside the sandbox, it would reach the network around the allowlist".into(),
                }
            } else {
                Verdict::Closed { needs: bit(Scope::Network, Perm::Read), why: "the mode has no network".into() }
            }
        }
        Kind::Server { peer } => {
            if allowed.has(Scope::System, Perm::Execute) || reachable.iter().any(|r| crate::scope::is_within(peer, r)) {
                Verdict::Kept
            } else {
                Verdict::Closed {
                    needs: bit(Scope::System, Perm::Execute),
                    why: "a server outside the sandbox acts for its clients outside every rule".into(),
                }
            }
        }
        Kind::Directory { .. } => {
            let whole = bit(Scope::System, Perm::Read).union(bit(Scope::System, Perm::Write));
            let whole = whole.union(bit(Scope::System, Perm::Execute));
            if allowed.covers(whole) {
                Verdict::Kept
            } else {
                Verdict::Closed {
                    needs: whole,
                    why: "names below a directory opened outside the sandbox resolve past the view's stand-ins and \
                          read-only points"
                        .into(),
                }
            }
        }
        Kind::File { path, read, write } => {
            let mut needs = Mode::NONE;
            let mut what: Vec<String> = Vec::new();
            let class = layout.classify(path, true);
            // Open for writing, nothing checks a write; open for reading only, the file can be
            // opened again through /proc/self/fd, where Landlock checks the open but the view's
            // read-only point (a protected file inside a writable tree) is not on the way.
            if (*write || class == Class::Protected)
                && let Some(scope) = class.scope()
                && !allowed.has(scope, Perm::Write)
            {
                needs = needs.union(bit(scope, Perm::Write));
                let again = if *write { "" } else { ", which /proc/self/fd would open again for writing" };
                what.push(format!("write it ({}{again})", class.noun()));
            }
            if *read {
                let class = layout.classify(path, false);
                // The runtime baseline reads system files whatever the mode.
                if let Some(scope) = class.scope().filter(|_| class != Class::System)
                    && !allowed.has(scope, Perm::Read)
                {
                    needs = needs.union(bit(scope, Perm::Read));
                    what.push(format!("read it ({})", class.noun()));
                }
            }
            if needs == Mode::NONE {
                Verdict::Kept
            } else {
                Verdict::Closed { needs, why: format!("the mode may not {}", what.join(" or ")) }
            }
        }
    }
}

/// Closes what `judge` closes, saying so on stderr; returns what was closed, with why.
pub fn close(allowed: Mode, layout: &Layout, reachable: &[String], by_host: bool) -> Vec<(Descriptor, Mode, String)> {
    let mut closed = Vec::new();
    for d in taken() {
        if let Verdict::Closed { needs, why } = judge(d, allowed, layout, reachable, by_host) {
            // SAFETY: closing a descriptor this process inherited and never handed to anything
            // that owns it.
            unsafe { libc::close(d.fd) };
            let wanted = if needs == Mode::NONE { String::new() } else { format!(" (it needs {needs})") };
            eprintln!("sandbox-bash: closed inherited descriptor {}: {}: {why}{wanted}", d.fd, d.shown());
            closed.push((d.clone(), needs, why));
        }
    }
    closed
}
