//! The audit job of the supervisor (the relay): how the records of nested invocations (make,
//! git hooks, a client's wrapper that starts the shell again) and of the network proxy reach
//! the audit log while the command can neither forge nor erase one.
//!
//! The command never gets the log. When this level writes a log, the supervisor holds it, and
//! the command gets one end of a `SOCK_SEQPACKET` channel to it, named by [`CHANNEL_VAR`]. A
//! nested sandbox-bash sends its record through the channel ([`protocol::Request::Record`])
//! together with one end of a socket pair of its own, and waits on that pair for the answer
//! before it runs anything. The relay
//! takes the sender's pid and uid from the kernel (`SCM_CREDENTIALS`, which a process cannot
//! choose for itself), accepts the record only from a process that runs this same sandbox-bash
//! executable, is not being traced and (a dynamically linked build) was not started with a
//! preloaded library, writes it with its own time, `"nested": true` and the kernel's pid and
//! uid, and answers. Whatever else arrives on the channel is written as a refusal, naming the
//! program that sent it (at most [`MAX_REFUSED`] of them). The relay ends when every end of the
//! channel the command had is closed.
//!
//! A program on the way may close the descriptors it inherited (Python's `subprocess` does by
//! default), and a nested level below it finds no channel. The relay therefore also listens at
//! a socket in sandbox-bash's state directory, named by [`RELAY_VAR`]: such a level connects
//! there and uses the connection as its channel (passing it on in turn), judged the same way.
//! Like the channel's number, the variable is the command's to change: what a nested level
//! reaches is only as trustworthy as the environment it got, and no record already written
//! can be changed through it.

use std::io::IoSliceMut;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::MetadataExt;

use nix::sys::socket::{
    AddressFamily, ControlMessageOwned, MsgFlags, SockFlag, SockType, recvmsg, setsockopt, socketpair, sockopt,
};

use super::peer::{self, Executable};
use super::protocol;
use crate::audit;

/// The variable that names the command's end of the channel (a descriptor number).
pub const CHANNEL_VAR: &str = "SANDBOX_BASH_AUDIT_CHANNEL";

/// The variable that names the relay's socket (see the module's comment).
pub const RELAY_VAR: &str = "SANDBOX_BASH_AUDIT_RELAY";

/// How many connections the relay serves at once; past them it closes new ones.
const MAX_CONNECTIONS: usize = 64;

/// The longest record the channel carries; a sender shortens a longer one.
pub const MAX_RECORD: usize = protocol::MAX_MESSAGE - 2;

/// How many refused messages the relay writes down before it only counts them.
const MAX_REFUSED: usize = 100;

/// How many bytes of nested records one relay writes: past them it refuses (and the nested
/// runs with them), so a command cannot fill the disk through it.
const MAX_BYTES: usize = 64 * 1024 * 1024;

/// The relay's socket below `state` (sandbox-bash's state directory), listening.
struct Listener {
    fd: OwnedFd,
    path: String,
    node: (u64, u64),
}

impl Listener {
    /// Listens at a new socket in `{state}/relays` (made 0700 when missing); `None` when it
    /// cannot.
    fn new(state: &str) -> Option<Listener> {
        let dir = format!("{state}/relays");
        let mut b = std::fs::DirBuilder::new();
        std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
        b.recursive(true).create(&dir).ok()?;
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok()?.subsec_nanos();
        let path = format!("{dir}/{}-{nanos:08x}", std::process::id());
        let (addr, _dir) = crate::exec::socket_address(&path)?;
        let fd =
            nix::sys::socket::socket(AddressFamily::Unix, SockType::SeqPacket, SockFlag::SOCK_CLOEXEC, None).ok()?;
        setsockopt(&fd, sockopt::PassCred, &true).ok()?;
        nix::sys::socket::bind(fd.as_raw_fd(), &addr).ok()?;
        let m = std::fs::symlink_metadata(&path).ok()?;
        let listener = Listener { fd, path, node: (m.dev(), m.ino()) };
        let backlog = nix::sys::socket::Backlog::new(16).ok()?;
        if nix::sys::socket::listen(&listener.fd, backlog).is_err() {
            listener.remove();
            return None;
        }
        Some(listener)
    }

    /// Removes the socket, only the one this relay made (called by the relay when it ends;
    /// the process that forked it keeps the socket).
    fn remove(&self) {
        if std::fs::symlink_metadata(&self.path).is_ok_and(|m| (m.dev(), m.ino()) == self.node) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The relay's half of the audit job, made before the supervisor is forked: its end of the
/// channel, the log, and the socket it listens at.
pub(super) struct Relay {
    channel: OwnedFd,
    listener: Option<Listener>,
    log: audit::Log,
    connections: Vec<OwnedFd>,
    own: Executable,
    buf: Vec<u8>,
    refused: usize,
    written: usize,
    /// The proxy's refusals written, on its own channel.
    denials: usize,
    /// Some end of the channel the command had is still open: nested levels may still send.
    open: bool,
}

impl Relay {
    /// The relay for `log`, listening below `state` when it can, and the command's end of the
    /// channel (close-on-exec until [`inherit`] clears it right before exec).
    pub(super) fn new(log: audit::Log, state: Option<&str>) -> Result<(Relay, OwnedFd), String> {
        let (ours, theirs) = socketpair(AddressFamily::Unix, SockType::SeqPacket, None, SockFlag::SOCK_CLOEXEC)
            .map_err(|e| format!("cannot make the audit relay's channel: {e}"))?;
        setsockopt(&ours, sockopt::PassCred, &true)
            .map_err(|e| format!("cannot make the audit relay's channel: {e}"))?;
        let own = Executable::own().map_err(|e| format!("cannot start the audit relay: /proc/self/exe: {e}"))?;
        let relay = Relay {
            channel: ours,
            listener: state.and_then(Listener::new),
            log,
            connections: Vec::new(),
            own,
            buf: vec![0u8; protocol::MAX_MESSAGE + 1],
            refused: 0,
            written: 0,
            denials: 0,
            open: true,
        };
        Ok((relay, theirs))
    }

    /// The path of the socket it listens at.
    pub(super) fn path(&self) -> Option<&str> {
        self.listener.as_ref().map(|l| l.path.as_str())
    }

    /// The descriptors the supervisor's process keeps for it.
    pub(super) fn fds(&self) -> Vec<RawFd> {
        [self.channel.as_raw_fd(), self.log.raw_fd()]
            .into_iter()
            .chain(self.listener.as_ref().map(|l| l.fd.as_raw_fd()))
            .collect()
    }

    /// Listens again from the supervisor's own process: a connecting level's kernel
    /// credentials then name it (they are taken at `listen`), so that it can tell the relay
    /// from a listener inside the sandbox.
    pub(super) fn listen_again(&self) {
        if let Some(l) = &self.listener
            && let Ok(backlog) = nix::sys::socket::Backlog::new(16)
        {
            let _ = nix::sys::socket::listen(&l.fd, backlog);
        }
    }

    /// Removes the socket (the supervisor, when the job ends; or the process that made it,
    /// when no supervisor started).
    pub(super) fn remove(&self) {
        if let Some(l) = &self.listener {
            l.remove();
        }
    }

    /// What to watch: the channel, the listener, every connection (nothing once the channel
    /// is closed).
    pub(super) fn watched(&self) -> Vec<RawFd> {
        if !self.open {
            return Vec::new();
        }
        [self.channel.as_raw_fd()]
            .into_iter()
            .chain(self.listener.as_ref().map(|l| l.fd.as_raw_fd()))
            .chain(self.connections.iter().map(|c| c.as_raw_fd()))
            .collect()
    }

    /// Serves what is ready among [`Relay::watched`] (`ready` says which, by index). When every
    /// end of the channel is closed, nested levels are done: the socket goes, the connections
    /// with it, and the log stays only for the proxy's refusals ([`Relay::proxy_denial`]).
    pub(super) fn serve(&mut self, ready: &[bool]) {
        if !self.open {
            return;
        }
        if ready.first() == Some(&true) && !self.one(self.channel.as_raw_fd()) {
            self.remove();
            self.listener = None;
            self.connections.clear();
            self.open = false;
            return;
        }
        let first = if self.listener.is_some() { 2 } else { 1 };
        // Connections that hung up, last first so the indexes stay right.
        for i in (first..ready.len()).rev() {
            if ready[i] && !self.one(self.connections[i - first].as_raw_fd()) {
                self.connections.remove(i - first);
            }
        }
        if self.listener.is_some() && ready.get(1) == Some(&true) {
            self.accept();
        }
    }

    /// Whether nested levels may still send.
    pub(super) fn open(&self) -> bool {
        self.open
    }

    fn accept(&mut self) {
        use nix::errno::Errno;
        let Some(l) = &self.listener else { return };
        match nix::sys::socket::accept4(&l.fd, SockFlag::SOCK_CLOEXEC) {
            // Every message carries its sender's credentials (the kernel records them at send
            // time; the receiving socket decides whether they are passed on), never the peer's
            // of connection time: a connection can be handed to another process.
            Ok(conn) => {
                if self.connections.len() < MAX_CONNECTIONS && setsockopt(&conn, sockopt::PassCred, &true).is_ok() {
                    self.connections.push(conn);
                }
            }
            Err(Errno::EINTR | Errno::EAGAIN | Errno::ECONNABORTED) => {}
            // The socket is watched until accepting on it fails for good.
            Err(_) => {
                l.remove();
                self.listener = None;
            }
        }
    }

    /// Reads and answers one message on `fd`; `false` when every end of it is closed.
    fn one(&mut self, fd: RawFd) -> bool {
        let Some(got) = receive(fd, &mut self.buf) else { return true };
        let Received { len, truncated, creds, reply } = match got {
            Ok(r) => r,
            Err(()) => return false,
        };
        let Some((pid, uid)) = creds else { return true };
        let verdict = match peer::not_ours(pid, self.own) {
            Some(why) => Err(why),
            None if truncated => Err("sent a record longer than the channel carries".to_string()),
            None if self.written >= MAX_BYTES => {
                Err(format!("sent a record after the relay had written {MAX_BYTES} bytes of nested records"))
            }
            None => match protocol::Request::decode(&self.buf[..len]) {
                Ok(protocol::Request::Record(record)) => accept(&record, pid, uid),
                Ok(protocol::Request::Denial(d)) => {
                    audit::network_denial_record(pid, uid, &d).and_then(|r| accept(&r, pid, uid))
                }
                Ok(protocol::Request::Handover { .. }) => Err("sent a hand-over on the audit channel".to_string()),
                Err(e) => Err(e.to_string()),
            },
        };
        let answer = match verdict {
            Ok(record) => match self.log.append_line(&record) {
                Ok(()) => {
                    self.written += record.len() + 1;
                    protocol::Reply::Written
                }
                Err(e) => protocol::Reply::Refused(e),
            },
            Err(why) => {
                self.refused += 1;
                if self.refused <= MAX_REFUSED {
                    let _ = self.log.channel_refusal(pid, uid, &why, self.refused == MAX_REFUSED);
                }
                protocol::Reply::Refused(why)
            }
        };
        if let Some(reply) = reply {
            let _ = nix::sys::socket::send(reply.as_raw_fd(), &answer.encode(), MsgFlags::MSG_DONTWAIT);
        }
        true
    }

    /// Writes one refusal the proxy sends on its own channel `fd` (which only the proxy holds):
    /// at most [`MAX_DENIALS`], in the name of the command's process `command_pid`; `false`
    /// when the proxy is gone.
    pub(super) fn proxy_denial(&mut self, fd: RawFd, command_pid: i32) -> bool {
        let len = match nix::sys::socket::recv(fd, &mut self.buf, MsgFlags::MSG_DONTWAIT | MsgFlags::MSG_TRUNC) {
            Ok(0) => return false,
            Ok(n) => n,
            Err(nix::errno::Errno::EINTR | nix::errno::Errno::EAGAIN) => return true,
            Err(_) => return false,
        };
        if self.denials >= MAX_DENIALS {
            return true;
        }
        // With MSG_TRUNC the length is the message's own: longer than the buffer, it was cut.
        let denial = match self.buf.get(..len).map(protocol::Request::decode) {
            Some(Ok(protocol::Request::Denial(d))) => d,
            Some(Ok(_)) => protocol::Denial {
                method: String::new(),
                host: String::new(),
                port: 0,
                reason: "the proxy sent something other than a refusal".into(),
            },
            Some(Err(e)) => protocol::Denial {
                method: String::new(),
                host: String::new(),
                port: 0,
                reason: format!("the proxy {e}"),
            },
            None => protocol::Denial {
                method: String::new(),
                host: String::new(),
                port: 0,
                reason: format!("a refusal of {len} bytes, longer than the channel carries"),
            },
        };
        self.denials += 1;
        let _ = self.log.network_denial(command_pid, &denial);
        true
    }
}

impl Relay {
    /// Writes the record the watch (a thread of the supervisor) sent on `fd`; `false` once
    /// its end is closed.
    pub(super) fn watch_record(&mut self, fd: RawFd) -> bool {
        let len = match nix::sys::socket::recv(fd, &mut self.buf, MsgFlags::MSG_DONTWAIT) {
            Ok(0) => return false,
            Ok(n) => n,
            Err(nix::errno::Errno::EINTR | nix::errno::Errno::EAGAIN) => return true,
            Err(_) => return false,
        };
        if let Ok(protocol::Request::Record(line)) = protocol::Request::decode(&self.buf[..len]) {
            let _ = self.log.append_line(&line);
        }
        true
    }
}

/// The most refusals of one proxy the supervisor writes (the proxy itself stops sooner).
const MAX_DENIALS: usize = 128;

/// One message as received.
struct Received {
    len: usize,
    truncated: bool,
    creds: Option<(i32, u32)>,
    reply: Option<OwnedFd>,
}

/// Receives one message on `fd` into `buf`: `None` when nothing is there after all, `Err` when
/// every end is closed. Every descriptor that came with it is closed but the first, kept as
/// where to answer.
fn receive(fd: RawFd, buf: &mut [u8]) -> Option<Result<Received, ()>> {
    // Room for the most descriptors one message can carry, so that none is received without
    // being seen (and closed).
    let mut cmsg = nix::cmsg_space!(libc::ucred, [RawFd; 253]);
    let mut iov = [IoSliceMut::new(buf)];
    let msg = match recvmsg::<()>(fd, &mut iov, Some(&mut cmsg), MsgFlags::MSG_CMSG_CLOEXEC | MsgFlags::MSG_DONTWAIT) {
        Ok(m) => m,
        Err(nix::errno::Errno::EINTR | nix::errno::Errno::EAGAIN) => return None,
        Err(_) => return Some(Err(())),
    };
    let (len, truncated) = (msg.bytes, msg.flags.contains(MsgFlags::MSG_TRUNC));
    let mut creds: Option<(i32, u32)> = None;
    let mut reply: Option<OwnedFd> = None;
    for c in msg.cmsgs().into_iter().flatten() {
        match c {
            ControlMessageOwned::ScmCredentials(u) => creds = Some((u.pid(), u.uid())),
            ControlMessageOwned::ScmRights(fds) => {
                for fd in fds {
                    // SAFETY: descriptors just received, owned by nothing else here.
                    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
                    if reply.is_none() {
                        reply = Some(owned);
                    }
                }
            }
            _ => {}
        }
    }
    if len == 0 && creds.is_none() && reply.is_none() {
        // Every end is closed (an empty message would carry credentials).
        return Some(Err(()));
    }
    Some(Ok(Received { len, truncated, creds, reply }))
}

/// A channel to the relay at `path`: a connected socket, inherited by the command (no
/// close-on-exec). `Err` says why the socket there is not the relay's: whoever listens must be
/// outside this sandbox, which every process of it (a listener a command set up to answer in
/// the relay's place among them) is not.
pub fn reconnect(path: Option<&std::ffi::OsStr>) -> Option<Result<RawFd, String>> {
    let path = path?.to_str()?;
    if !path.starts_with('/') {
        return None;
    }
    let (addr, _dir) = crate::exec::socket_address(path)?;
    let fd = nix::sys::socket::socket(AddressFamily::Unix, SockType::SeqPacket, SockFlag::empty(), None).ok()?;
    nix::sys::socket::connect(fd.as_raw_fd(), &addr).ok()?;
    let peer = nix::sys::socket::getsockopt(&fd, sockopt::PeerCredentials).ok()?;
    match peer::outside_this_sandbox(peer.pid()) {
        Ok(true) => Some(Ok(std::os::fd::IntoRawFd::into_raw_fd(fd))),
        Ok(false) => Some(Err(format!(
            "the socket at {path} is answered by process {}, which is inside this sandbox, not by the relay",
            peer.pid()
        ))),
        Err(_) => Some(Err(format!("the process answering at {path} cannot be checked"))),
    }
}

/// Lets the command inherit `fd` (clears close-on-exec).
pub fn inherit(fd: &OwnedFd) -> Result<(), String> {
    // SAFETY: F_SETFD on a descriptor this process owns; it changes only its flags.
    if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, 0) } == 0 {
        Ok(())
    } else {
        Err(format!("cannot hand the audit channel to the command: {}", std::io::Error::last_os_error()))
    }
}

/// The channel an enclosing sandbox-bash handed down, when `value` names a descriptor that is
/// a unix `SOCK_SEQPACKET` socket (anything else is not a channel).
pub fn inherited(value: Option<&std::ffi::OsStr>) -> Option<RawFd> {
    let fd: RawFd = value?.to_str()?.parse().ok().filter(|fd| *fd > 2)?;
    // SAFETY: the descriptor is only borrowed for the two queries, never closed here.
    let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    let kind = nix::sys::socket::getsockopt(&borrowed, sockopt::SockType).ok()?;
    let family = nix::sys::socket::getsockname::<nix::sys::socket::UnixAddr>(fd).ok()?;
    (kind == SockType::SeqPacket && family.path().is_none()).then_some(fd)
}

/// Sends `request` through the channel `fd` and waits for the supervisor's answer: `Ok` once
/// what it carries is in the log.
pub fn send(fd: RawFd, request: &protocol::Request) -> Result<(), String> {
    use nix::sys::socket::{ControlMessage, sendmsg};
    let (mine, relays) = socketpair(AddressFamily::Unix, SockType::SeqPacket, None, SockFlag::SOCK_CLOEXEC)
        .map_err(|e| format!("cannot reach the audit relay: {e}"))?;
    let fds = [relays.as_raw_fd()];
    let bytes = request.encode();
    sendmsg::<()>(fd, &[std::io::IoSlice::new(&bytes)], &[ControlMessage::ScmRights(&fds)], MsgFlags::empty(), None)
        .map_err(|e| format!("cannot send the record to the audit relay: {e}"))?;
    drop(relays);
    setsockopt(&mine, sockopt::ReceiveTimeout, &nix::sys::time::TimeVal::new(30, 0))
        .map_err(|e| format!("cannot reach the audit relay: {e}"))?;
    let mut answer = [0u8; 1024];
    match nix::sys::socket::recv(mine.as_raw_fd(), &mut answer, MsgFlags::empty()) {
        Ok(0) => Err("the audit relay ended without writing the record".into()),
        Ok(n) => match protocol::Reply::decode(&answer[..n]) {
            Ok(protocol::Reply::Written) => Ok(()),
            Ok(protocol::Reply::Refused(why)) => Err(format!("the audit relay refused the record: {why}")),
            Err(e) => Err(format!("the audit relay answered something else: it {e}")),
        },
        Err(e) => Err(format!("the audit relay did not answer: {e}")),
    }
}

/// The variables of a nested level's environment that change what the bash it starts runs,
/// whatever its program says: exported functions (`BASH_FUNC_ls%%`), the shell options and the
/// trace prompt (`SHELLOPTS=xtrace` with a `PS4` that substitutes a command), start-up files,
/// and the libraries the loader looks in first (for bash, and for a dynamically linked
/// sandbox-bash itself).
fn changes_what_runs(name: &[u8]) -> bool {
    name.starts_with(b"BASH_FUNC_")
        || matches!(
            name,
            b"SHELLOPTS" | b"BASHOPTS" | b"PS4" | b"BASH_ENV" | b"ENV" | b"PROMPT_COMMAND" | b"LD_LIBRARY_PATH"
        )
}

/// What the sender's environment holds of [`changes_what_runs`], as it is (each value cut at
/// 1 KiB): the record says what ran beside its program.
fn sender_environment(pid: i32) -> serde_json::Map<String, serde_json::Value> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
    let mut out = serde_json::Map::new();
    for var in environ.split(|&b| b == 0) {
        let Some(eq) = var.iter().position(|&b| b == b'=') else { continue };
        let (name, value) = (&var[..eq], &var[eq + 1..]);
        if changes_what_runs(name) && out.len() < 64 {
            let value = &value[..value.len().min(1024)];
            out.insert(String::from_utf8_lossy(name).into_owned(), String::from_utf8_lossy(value).into_owned().into());
        }
    }
    out
}

/// The record as the log gets it: the sender's JSON object with the relay's time, the
/// kernel's pid and uid, `"nested": true`, and what of the sender's environment changes what
/// runs (`"environment"`).
fn accept(bytes: &[u8], pid: i32, uid: u32) -> Result<Vec<u8>, String> {
    let mut value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("sent something that is not a record ({e})"))?;
    let object = value.as_object_mut().ok_or("sent something that is not a record (not an object)")?;
    object.insert("time".into(), audit::now_utc().into());
    object.insert("pid".into(), pid.into());
    object.insert("uid".into(), uid.into());
    object.insert("nested".into(), true.into());
    let environment = sender_environment(pid);
    if environment.is_empty() {
        object.remove("environment");
    } else {
        object.insert("environment".into(), environment.into());
    }
    serde_json::to_vec(&value).map_err(|e| format!("cannot encode the record: {e}"))
}
