//! The network namespace of an agent session, shared by its calls: with a network allowlist in
//! force, the first call of a session makes the namespace and its proxy; the proxy then answers
//! at a unix socket of the session (in sandbox-bash's state directory, which commands may not
//! write) with that namespace and its port, and the session's later calls join it instead of
//! making their own. A server one call starts on loopback is then reached by the next, through
//! the same proxy and the same list, and the namespace lives as long as a process of any of
//! them is in it.
//!
//! Who may join: a process of the same uid that runs this same sandbox-bash executable, is not
//! traced and has no seccomp filter but those the proxy has too (an outermost level before it
//! locks itself, under whatever filter the container gives every process; a command inside a
//! sandbox has one more). The answer is a descriptor of the namespace, which by itself lets
//! no one reach anything: entering it takes privileges over it, which only the user's own
//! unsandboxed processes have.
//!
//! Nobody else gets to hold the proxy up either: the sessions directory is masked in the view
//! of every sandbox that uses it (see `lib.rs`; one under another `XDG_STATE_HOME` is not), the
//! peer is judged by its credentials from the moment it connected before anything is read from
//! it, and a peer that may join has a quarter of a second to ask. A socket is replaced only when the kernel says nothing listens at it.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::MetadataExt;

use nix::sys::socket::{
    AddressFamily, ControlMessage, ControlMessageOwned, MsgFlags, SockFlag, SockType, recvmsg, sendmsg, socket,
};

/// The version of the join request and its answer.
const VERSION: u8 = 1;

/// The registry socket of session `id` below `state` (sandbox-bash's state directory).
pub fn path(state: &str, id: &str) -> String {
    format!("{state}/sessions/{}", &id[..id.len().min(24)])
}

/// Why no session could be joined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotJoined {
    /// Nothing listens at the path (no socket, or one whose proxy is gone).
    Absent,
    /// Something listens but gave no namespace (refused, too slow, another answer).
    NoAnswer,
}

/// Joins the session registered at `path`: its network namespace and the proxy's port. The
/// proxy gets this process (a pidfd) and `stderr`, where it tells what it refuses the
/// connections of this call's processes while this process lives.
pub fn join(path: &str, stderr: Option<&OwnedFd>) -> Result<(OwnedFd, u16), NotJoined> {
    use nix::errno::Errno;
    let (addr, _dir) = crate::exec::socket_address(path).ok_or(NotJoined::NoAnswer)?;
    let sock = socket(AddressFamily::Unix, SockType::SeqPacket, SockFlag::SOCK_CLOEXEC, None)
        .map_err(|_| NotJoined::NoAnswer)?;
    match nix::sys::socket::connect(sock.as_raw_fd(), &addr) {
        Ok(()) => {}
        Err(Errno::ENOENT | Errno::ECONNREFUSED) => return Err(NotJoined::Absent),
        Err(_) => return Err(NotJoined::NoAnswer),
    }
    answer_of(&sock, stderr).ok_or(NotJoined::NoAnswer)
}

/// The proxy's answer on a connected socket.
fn answer_of(sock: &OwnedFd, stderr: Option<&OwnedFd>) -> Option<(OwnedFd, u16)> {
    nix::sys::socket::setsockopt(sock, nix::sys::socket::sockopt::ReceiveTimeout, &nix::sys::time::TimeVal::new(2, 0))
        .ok()?;
    // SAFETY: pidfd_open takes a pid and flags; it returns a new descriptor or -1.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, libc::getpid(), 0) };
    // SAFETY: a descriptor the kernel just returned, owned by nothing else.
    let pidfd = (pidfd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(pidfd as RawFd) });
    // This process first, then its standard error (none when it is closed).
    let fds: Vec<RawFd> = pidfd.iter().chain(stderr.filter(|_| pidfd.is_some())).map(AsRawFd::as_raw_fd).collect();
    let cmsgs = [ControlMessage::ScmRights(&fds)];
    let cmsgs: &[ControlMessage] = if fds.is_empty() { &[] } else { &cmsgs };
    sendmsg::<()>(sock.as_raw_fd(), &[std::io::IoSlice::new(&[VERSION, b'J'])], cmsgs, MsgFlags::empty(), None).ok()?;
    let mut buf = [0u8; 8];
    let mut cmsg = nix::cmsg_space!([RawFd; 2]);
    let mut iov = [std::io::IoSliceMut::new(&mut buf)];
    let msg = recvmsg::<()>(sock.as_raw_fd(), &mut iov, Some(&mut cmsg), MsgFlags::MSG_CMSG_CLOEXEC).ok()?;
    let mut fds: Vec<OwnedFd> = Vec::new();
    for c in msg.cmsgs().ok()? {
        if let ControlMessageOwned::ScmRights(r) = c {
            // SAFETY: descriptors just received, owned by nothing else here.
            fds.extend(r.into_iter().map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }));
        }
    }
    if msg.bytes != 4 || buf[0] != VERSION || buf[1] != b'Y' || fds.len() != 1 {
        return None;
    }
    Some((fds.pop()?, u16::from_be_bytes([buf[2], buf[3]])))
}

/// The registry socket a proxy serves, removed when it is dropped.
pub struct Registry {
    listener: OwnedFd,
    path: String,
    node: (u64, u64),
}

impl Registry {
    /// Listens at `path` for joins, unless something listens there already (two first calls
    /// of one session at once: the second keeps its namespace to itself). A socket left by a
    /// proxy that is gone (the kernel refuses the connection) is replaced.
    pub fn bind(path: &str) -> Option<Registry> {
        if !matches!(join(path, None), Err(NotJoined::Absent)) {
            return None;
        }
        if std::fs::symlink_metadata(path).is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_socket(&m.file_type())) {
            let _ = std::fs::remove_file(path);
        }
        let (addr, _dir) = crate::exec::socket_address(path)?;
        let listener = socket(AddressFamily::Unix, SockType::SeqPacket, SockFlag::SOCK_CLOEXEC, None).ok()?;
        nix::sys::socket::bind(listener.as_raw_fd(), &addr).ok()?;
        nix::sys::socket::listen(&listener, nix::sys::socket::Backlog::new(16).ok()?).ok()?;
        let m = std::fs::symlink_metadata(path).ok()?;
        Some(Registry { listener, path: path.to_string(), node: (m.dev(), m.ino()) })
    }

    /// The descriptor to poll for joins.
    pub fn fd(&self) -> RawFd {
        self.listener.as_raw_fd()
    }

    /// Answers one join: the namespace `netns` and the proxy's `port`, to a peer that may have
    /// them (see the module's comment); nothing to anyone else. Returns what the peer gave:
    /// its pidfd and standard error, when it joined.
    pub fn answer(&self, netns: &OwnedFd, port: u16) -> Option<(OwnedFd, Option<OwnedFd>)> {
        let Ok(conn) = nix::sys::socket::accept4(&self.listener, SockFlag::SOCK_CLOEXEC) else { return None };
        let refuse = || {
            let _ = nix::sys::socket::send(conn.as_raw_fd(), &[VERSION, b'N'], MsgFlags::MSG_DONTWAIT);
        };
        // Who connected, as the kernel recorded it then; the process is held by a pidfd, so
        // that what is read of its pid is read of it.
        let Ok(peer) = nix::sys::socket::getsockopt(&conn, nix::sys::socket::sockopt::PeerCredentials) else {
            return None;
        };
        let Some(pidfd) = peer_pidfd(&conn) else {
            refuse();
            return None;
        };
        if !may_join(peer.pid(), peer.uid()) || !alive(&pidfd) {
            refuse();
            return None;
        }
        let _ = nix::sys::socket::setsockopt(
            &conn,
            nix::sys::socket::sockopt::ReceiveTimeout,
            &nix::sys::time::TimeVal::new(0, 250_000),
        );
        let mut buf = [0u8; 4];
        let mut cmsg = nix::cmsg_space!([RawFd; 4]);
        let mut iov = [std::io::IoSliceMut::new(&mut buf)];
        let Ok(msg) = recvmsg::<()>(conn.as_raw_fd(), &mut iov, Some(&mut cmsg), MsgFlags::MSG_CMSG_CLOEXEC) else {
            return None;
        };
        let mut given: Vec<OwnedFd> = Vec::new();
        for c in msg.cmsgs().into_iter().flatten() {
            if let ControlMessageOwned::ScmRights(r) = c {
                // SAFETY: descriptors just received, owned by nothing else here.
                given.extend(r.into_iter().map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }));
            }
        }
        if msg.bytes != 2 || buf[0] != VERSION || buf[1] != b'J' || given.len() > 2 {
            refuse();
            return None;
        }
        let [hi, lo] = port.to_be_bytes();
        let fds = [netns.as_raw_fd()];
        sendmsg::<()>(
            conn.as_raw_fd(),
            &[std::io::IoSlice::new(&[VERSION, b'Y', hi, lo])],
            &[ControlMessage::ScmRights(&fds)],
            MsgFlags::MSG_DONTWAIT,
            None,
        )
        .ok()?;
        // The process it gave must be the one that connected.
        let mut given = given.into_iter();
        let theirs = given.next()?;
        (pid_of(&theirs) == Some(peer.pid())).then(|| (theirs, given.next()))
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        // Only the socket this proxy made: another may have replaced it meanwhile.
        if std::fs::symlink_metadata(&self.path).is_ok_and(|m| (m.dev(), m.ino()) == self.node) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The peer's pidfd, taken by the kernel when it connected (Linux 6.5 and later).
fn peer_pidfd(conn: &OwnedFd) -> Option<OwnedFd> {
    // SO_PEERPIDFD, the same number on the architectures sandbox-bash is built for.
    const SO_PEERPIDFD: libc::c_int = 77;
    let mut fd: libc::c_int = -1;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `fd`.
    let rc =
        unsafe { libc::getsockopt(conn.as_raw_fd(), libc::SOL_SOCKET, SO_PEERPIDFD, (&raw mut fd).cast(), &mut len) };
    // SAFETY: a descriptor the kernel just returned, owned by nothing else.
    (rc == 0 && fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The process a pidfd names, from its descriptor's information.
pub(crate) fn pid_of(pidfd: &OwnedFd) -> Option<i32> {
    let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{}", pidfd.as_raw_fd())).ok()?;
    info.lines().find_map(|l| l.strip_prefix("Pid:"))?.trim().parse().ok().filter(|p: &i32| *p > 0)
}

/// Whether the process of `pidfd` has not exited.
fn alive(pidfd: &OwnedFd) -> bool {
    // SAFETY: signal 0 checks only; null info, no flags.
    unsafe { libc::syscall(libc::SYS_pidfd_send_signal, pidfd.as_raw_fd(), 0, std::ptr::null::<u8>(), 0) == 0 }
}

/// Whether the process `pid` of user `uid` may join: it stands where this process stands (see
/// [`crate::outside::peer::alike`]): an outermost sandbox-bash that has not locked itself yet.
fn may_join(pid: i32, uid: u32) -> bool {
    crate::outside::peer::alike(pid, uid)
}
