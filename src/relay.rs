//! The audit relay: how the records of nested invocations (make, git hooks, a client's wrapper
//! that starts the shell again) reach the audit log while the command can neither forge nor
//! erase one.
//!
//! The command never gets the log. When this level writes a log, it starts the relay before
//! anything is locked (so the relay is outside the sandbox, like the network proxy) and hands
//! the command one end of a `SOCK_SEQPACKET` channel, named by [`CHANNEL_VAR`]. A nested
//! sandbox-bash sends its record through the channel together with one end of a socket pair of
//! its own, and waits on that pair for the relay's answer before it runs anything. The relay
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

use crate::audit;

/// The variable that names the command's end of the channel (a descriptor number).
pub const CHANNEL_VAR: &str = "SANDBOX_BASH_AUDIT_CHANNEL";

/// The variable that names the relay's socket (see the module's comment).
pub const RELAY_VAR: &str = "SANDBOX_BASH_AUDIT_RELAY";

/// How many connections the relay serves at once; past them it closes new ones.
const MAX_CONNECTIONS: usize = 64;

/// The longest record the channel carries; a sender shortens a longer one.
pub const MAX_RECORD: usize = 128 * 1024;

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

/// Starts the relay with `log` (a descriptor of its own) and returns the command's end of the
/// channel, close-on-exec until [`inherit`] clears it right before exec, and the path of the
/// relay's socket when it listens at one below `state`.
pub fn spawn(log: audit::Log, state: Option<&str>) -> Result<(OwnedFd, Option<String>), String> {
    let (ours, theirs) = socketpair(AddressFamily::Unix, SockType::SeqPacket, None, SockFlag::SOCK_CLOEXEC)
        .map_err(|e| format!("cannot make the audit relay's channel: {e}"))?;
    setsockopt(&ours, sockopt::PassCred, &true).map_err(|e| format!("cannot make the audit relay's channel: {e}"))?;
    let own = own_executable().map_err(|e| format!("cannot start the audit relay: /proc/self/exe: {e}"))?;
    let listener = state.and_then(Listener::new);
    let path = listener.as_ref().map(|l| l.path.clone());
    let listener_fd = listener.as_ref().map(|l| l.fd.as_raw_fd());
    // Its "ready" comes through a pipe: a message on the channel would give the relay's end
    // a name (the kernel names a sender that passes credentials), and the command's end would
    // then look connected to a named server.
    let mut ends = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills the two descriptors or fails.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!("cannot start the audit relay: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: two new descriptors, owned by nothing else.
    let (ready_r, ready_w) = unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
    // The relay's process closes the command's end with every other descriptor (`detach`).
    let spawned = crate::exec::spawn_detached("the audit relay", c"sb-relay", move || {
        let keep: Vec<RawFd> =
            [ours.as_raw_fd(), log.raw_fd(), ready_w.as_raw_fd()].into_iter().chain(listener_fd).collect();
        crate::outside::detach(&keep);
        // Listening again here makes this process the one a connecting level's kernel
        // credentials name (they are taken at `listen`), so that it can tell the relay from a
        // listener inside the sandbox. Then the run may start.
        if let Some(l) = &listener
            && let Ok(backlog) = nix::sys::socket::Backlog::new(16)
        {
            let _ = nix::sys::socket::listen(&l.fd, backlog);
        }
        let _ = nix::unistd::write(&ready_w, b"R");
        drop(ready_w);
        serve(&ours, listener.as_ref(), log, own);
        if let Some(l) = &listener {
            l.remove();
        }
        0
    });
    if spawned.is_err()
        && let Some(p) = &path
    {
        let _ = std::fs::remove_file(p);
    }
    spawned?;
    // Every copy of the write end but the relay's is closed (this one now, the forks' with
    // them): end of file without the byte means the relay is gone.
    let mut ready = [0u8; 1];
    match nix::unistd::read(&ready_r, &mut ready) {
        Ok(1) if ready[0] == b'R' => {}
        _ => return Err("the audit relay did not start".into()),
    }
    Ok((theirs, path))
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
    let filters = |status: &str| -> Option<u32> {
        status.lines().find_map(|l| l.strip_prefix("Seccomp_filters:"))?.trim().parse().ok()
    };
    let own = std::fs::read_to_string("/proc/self/status").ok().and_then(|s| filters(&s));
    let theirs = std::fs::read_to_string(format!("/proc/{}/status", peer.pid())).ok().and_then(|s| filters(&s));
    match (own, theirs) {
        (Some(own), Some(theirs)) if theirs < own => Some(Ok(std::os::fd::IntoRawFd::into_raw_fd(fd))),
        (Some(_), Some(_)) => Some(Err(format!(
            "the socket at {path} is answered by process {}, which is inside this sandbox, not by the relay",
            peer.pid()
        ))),
        _ => Some(Err(format!("the process answering at {path} cannot be checked"))),
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

/// Sends `line` (one record, without its newline) through the channel `fd` and waits for the
/// relay's answer: `Ok` once the record is in the log.
pub fn send(fd: RawFd, line: &[u8]) -> Result<(), String> {
    use nix::sys::socket::{ControlMessage, sendmsg};
    let (mine, relays) = socketpair(AddressFamily::Unix, SockType::SeqPacket, None, SockFlag::SOCK_CLOEXEC)
        .map_err(|e| format!("cannot reach the audit relay: {e}"))?;
    let fds = [relays.as_raw_fd()];
    sendmsg::<()>(fd, &[std::io::IoSlice::new(line)], &[ControlMessage::ScmRights(&fds)], MsgFlags::empty(), None)
        .map_err(|e| format!("cannot send the record to the audit relay: {e}"))?;
    drop(relays);
    setsockopt(&mine, sockopt::ReceiveTimeout, &nix::sys::time::TimeVal::new(30, 0))
        .map_err(|e| format!("cannot reach the audit relay: {e}"))?;
    let mut answer = [0u8; 1024];
    match nix::sys::socket::recv(mine.as_raw_fd(), &mut answer, MsgFlags::empty()) {
        Ok(1) if answer[0] == b'Y' => Ok(()),
        Ok(n) if n > 0 && answer[0] == b'N' => {
            Err(format!("the audit relay refused the record: {}", String::from_utf8_lossy(&answer[1..n])))
        }
        Ok(_) => Err("the audit relay ended without writing the record".into()),
        Err(e) => Err(format!("the audit relay did not answer: {e}")),
    }
}

/// The device and inode of this process's executable.
fn own_executable() -> std::io::Result<(u64, u64)> {
    let m = std::fs::metadata("/proc/self/exe")?;
    Ok((m.dev(), m.ino()))
}

/// The relay's loop: one record per message, on the channel and on each connection to its
/// socket, until every end of the channel is closed.
fn serve(channel: &OwnedFd, listener: Option<&Listener>, mut log: audit::Log, own: (u64, u64)) {
    let mut state = Served { buf: vec![0u8; MAX_RECORD + 1], refused: 0, written: 0 };
    let mut connections: Vec<OwnedFd> = Vec::new();
    // The socket is watched until accepting on it fails for good.
    let mut listener = listener;
    loop {
        let watched: Vec<RawFd> = [channel.as_raw_fd()]
            .into_iter()
            .chain(listener.map(|l| l.fd.as_raw_fd()))
            .chain(connections.iter().map(|c| c.as_raw_fd()))
            .collect();
        let mut polls: Vec<libc::pollfd> =
            watched.iter().map(|&fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 }).collect();
        // SAFETY: `polls` is a valid array of pollfd of the given length.
        if unsafe { libc::poll(polls.as_mut_ptr(), polls.len() as libc::nfds_t, -1) } < 0 {
            if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            return;
        }
        let ready = |i: usize| polls[i].revents != 0;
        if ready(0) && !state.one(channel.as_raw_fd(), &mut log, own) {
            return;
        }
        let first = if listener.is_some() { 2 } else { 1 };
        // Connections that hung up, last first so the indexes stay right.
        for i in (first..polls.len()).rev() {
            if ready(i) && !state.one(polls[i].fd, &mut log, own) {
                connections.remove(i - first);
            }
        }
        if let Some(l) = listener
            && ready(1)
        {
            use nix::errno::Errno;
            match nix::sys::socket::accept4(&l.fd, SockFlag::SOCK_CLOEXEC) {
                // Every message carries its sender's credentials (the kernel records them at
                // send time; the receiving socket decides whether they are passed on), never
                // the peer's of connection time: a connection can be handed to another process.
                Ok(conn) => {
                    if connections.len() < MAX_CONNECTIONS && setsockopt(&conn, sockopt::PassCred, &true).is_ok() {
                        connections.push(conn);
                    }
                }
                Err(Errno::EINTR | Errno::EAGAIN | Errno::ECONNABORTED) => {}
                Err(_) => listener = None,
            }
        }
    }
}

/// What one relay has received so far.
struct Served {
    buf: Vec<u8>,
    refused: usize,
    written: usize,
}

impl Served {
    /// Reads and answers one message on `fd`; `false` when every end of it is closed.
    fn one(&mut self, fd: RawFd, log: &mut audit::Log, own: (u64, u64)) -> bool {
        // Room for the most descriptors one message can carry, so that none is received
        // without being seen (and closed).
        let mut cmsg = nix::cmsg_space!(libc::ucred, [RawFd; 253]);
        let mut iov = [IoSliceMut::new(&mut self.buf)];
        let msg =
            match recvmsg::<()>(fd, &mut iov, Some(&mut cmsg), MsgFlags::MSG_CMSG_CLOEXEC | MsgFlags::MSG_DONTWAIT) {
                Ok(m) => m,
                Err(nix::errno::Errno::EINTR | nix::errno::Errno::EAGAIN) => return true,
                Err(_) => return false,
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
            return false;
        }
        let Some((pid, uid)) = creds else { return true };
        let verdict = match sender_problem(pid, own) {
            Some(why) => Err(why),
            None if truncated => Err("sent a record longer than the channel carries".to_string()),
            None if self.written >= MAX_BYTES => {
                Err(format!("sent a record after the relay had written {MAX_BYTES} bytes of nested records"))
            }
            None => accept(&self.buf[..len], pid, uid),
        };
        let answer: Vec<u8> = match verdict {
            Ok(record) => match log.append_line(&record) {
                Ok(()) => {
                    self.written += record.len() + 1;
                    b"Y".to_vec()
                }
                Err(e) => format!("N{e}").into_bytes(),
            },
            Err(why) => {
                self.refused += 1;
                if self.refused <= MAX_REFUSED {
                    let _ = log.channel_refusal(pid, uid, &why, self.refused == MAX_REFUSED);
                }
                format!("N{why}").into_bytes()
            }
        };
        if let Some(reply) = reply {
            let _ = nix::sys::socket::send(reply.as_raw_fd(), &answer, MsgFlags::MSG_DONTWAIT);
        }
        true
    }
}

/// Why the process `pid` may not send records, or `None` when it may: it runs this same
/// executable and no one traces it.
fn sender_problem(pid: i32, own: (u64, u64)) -> Option<String> {
    let exe = format!("/proc/{pid}/exe");
    let shown = std::fs::read_link(&exe).map(|p| p.display().to_string()).unwrap_or_else(|_| "?".into());
    match std::fs::metadata(&exe) {
        Ok(m) if (m.dev(), m.ino()) == own => {}
        Ok(_) => return Some(format!("sent by {shown}, which is not sandbox-bash")),
        Err(e) => return Some(format!("sent by a process whose program cannot be seen ({e})")),
    }
    // A dynamically linked sandbox-bash runs whatever library the loader variables name before
    // its own code: its record would be that library's.
    if !cfg!(target_feature = "crt-static") {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        for var in environ.split(|&b| b == 0) {
            if var.starts_with(b"LD_PRELOAD=") || var.starts_with(b"LD_AUDIT=") {
                let name = String::from_utf8_lossy(var.split(|&b| b == b'=').next().unwrap_or_default()).into_owned();
                return Some(format!("sent by a sandbox-bash started with {name}, whose code may not be its own"));
            }
        }
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let tracer = status.lines().find_map(|l| l.strip_prefix("TracerPid:")).map(str::trim);
    match tracer {
        Some("0") => None,
        Some(t) => Some(format!("sent by a sandbox-bash that process {t} traces")),
        None => Some("sent by a process whose state cannot be read".into()),
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
