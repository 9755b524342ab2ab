//! The network proxy: with an allowlist in force, the command's own network namespace has only
//! loopback, and this proxy, a process outside the sandbox, is its one way out.
//!
//! It is forked before sandbox-bash locks itself (so it is in neither the Landlock domain nor
//! the namespaces), detaches (a session of its own, descriptors closed, not dumpable), and is
//! handed the listening sockets the sandboxed process made inside the new namespace. One port
//! speaks HTTP (CONNECT and plain requests) and SOCKS5, told apart by the first byte; each
//! `loopback` port of the configuration is a listener forwarded to the host's loopback.
//!
//! It ends when the command and everything it started have ended: when the command's process
//! has exited and no process is left in its network namespace.

pub mod connect;
mod gate;
mod http;
pub mod registry;
mod socks;
mod tunnel;

use std::collections::HashSet;
use std::io::IoSlice;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

pub use gate::Access;

use crate::allowlist::Allowlist;
use crate::outside::protocol::Denial;
use crate::outside::told::Stderr;

/// The variable that tells `--sandbox-connect` (and scripts) where the proxy listens.
pub const PROXY_VAR: &str = "SANDBOX_BASH_PROXY";

/// What the sandboxed process hands the proxy once its network namespace is up.
pub struct Handover {
    /// The port of the proxy's listener on 127.0.0.1 inside the namespace.
    pub port: u16,
    /// The listening sockets, each with what it is for.
    pub listeners: Vec<(Role, OwnedFd)>,
    /// The namespace itself (`/proc/self/ns/net`), to tell when no process is left in it.
    pub netns: OwnedFd,
}

/// What a listener is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// HTTP and SOCKS5.
    Proxy,
    /// Forwarded to this port of the host's loopback, of the listener's family.
    Forward(u16),
}

/// What the proxy holds: the list, what the mode's network bits allow, where records go.
pub struct Context {
    list: Allowlist,
    access: Access,
    resolve: &'static (dyn Fn(&str, u16) -> std::io::Result<Vec<SocketAddr>> + Sync),
    /// Where refusals go: the supervisor's channel for them (or, in a nested level, the
    /// enclosing level's audit channel). The proxy holds no log.
    records: Option<OwnedFd>,
    recorded: Mutex<HashSet<(String, u16)>>,
    /// The command's standard error while its process lives (each refusal is told there too,
    /// whatever the client shows of a 403), and the refusals to sum up when it ends.
    told: Mutex<Told>,
    /// The same for each later call of the agent session that joined this proxy: a refusal
    /// is told to the call whose process made the connection.
    joined: Mutex<Vec<Arc<Mutex<Told>>>>,
}

thread_local! {
    /// The client's port of the connection this thread serves (its own, on loopback in the
    /// namespace), to find whose it is.
    static PEER_PORT: std::cell::Cell<Option<u16>> = const { std::cell::Cell::new(None) };
}

/// What the command of one call was told of refusals, and where.
#[derive(Default)]
struct Told {
    /// The call's command process.
    pid: i32,
    stderr: Stderr,
    /// The destinations told, once each.
    seen: HashSet<(String, u16)>,
    /// The first refused destinations, with the entry that would allow each.
    refused: Vec<(String, u16, String)>,
    /// Refused destinations a request could add, as entries.
    grantable: Vec<String>,
    /// The run's mode, where a request may be made (the outermost level).
    mode: Option<crate::mode::Mode>,
    /// The approvals directory and the workspace, where what was refused is noted for a
    /// later request.
    observe: Option<(String, String)>,
    count: usize,
}

/// What the proxy tells a run, and where it notes what it refused.
pub struct Tell {
    /// The command's standard error.
    pub stderr: Option<OwnedFd>,
    /// The run's mode, where a request may be made (the outermost level).
    pub mode: Option<crate::mode::Mode>,
    /// The approvals directory and the workspace (see [`crate::approval::observe`]).
    pub observe: Option<(String, String)>,
}

/// Refused destinations named in the summary at the end of a run.
const SUMMARY_NAMES: usize = 8;

impl Told {
    fn tell(&mut self, d: &gate::Denied) {
        if self.seen.len() >= MAX_RECORDS || !self.seen.insert((d.host.clone(), d.port)) {
            return;
        }
        self.count += 1;
        if self.refused.len() < SUMMARY_NAMES {
            self.refused.push((gate::shown(&d.host), d.port, d.remedy.clone()));
        }
        let entry = format!("{}:{}", gate::shown(&d.host), d.port);
        if d.grantable && self.grantable.len() < SUMMARY_NAMES && !self.grantable.contains(&entry) {
            self.grantable.push(entry);
        }
        self.stderr.line(&format!("{} (held by the network proxy)", d.line()));
    }

    /// The command's process ended: one line naming what was refused and what would allow
    /// it, then standard error is let go (a reader waiting for its end is not held).
    fn end(&mut self) {
        if self.count > 0 {
            let names: Vec<String> = self.refused.iter().map(|(h, p, _)| format!("{h}:{p}")).collect();
            let more = if self.count > self.refused.len() {
                format!(" and {} more", self.count - self.refused.len())
            } else {
                String::new()
            };
            let mut remedies: Vec<&str> = self.refused.iter().map(|(_, _, r)| r.as_str()).collect();
            remedies.dedup();
            self.stderr.line(&format!(
                "sandbox-bash: the network proxy refused {} destination{} in this run: {}{more}; to allow: {}",
                self.count,
                if self.count == 1 { "" } else { "s" },
                names.join(", "),
                remedies.join("; ")
            ));
            if let Some(mode) = self.mode
                && !self.grantable.is_empty()
            {
                let hint = crate::request::Hint { mode, hosts: self.grantable.clone() };
                self.stderr.line(&crate::request::hint_line(&hint));
                if let Some((dir, workspace)) = &self.observe {
                    crate::approval::observe(std::path::Path::new(dir), workspace, None, &self.grantable);
                }
            }
        }
        self.stderr.release();
    }
}

impl Context {
    /// Records a refusal, once per destination, and at most [`MAX_RECORDS`] of them: a command
    /// must not fill a log that other runs share (the last record says the rest were not kept).
    fn record(&self, d: &gate::Denied, method: &str) {
        self.tell(d);
        self.record_told(d, method);
    }

    /// Records a refusal already told (see [`Context::record`]): told before the answer, while
    /// the client waits, and recorded after it, since a record waits for the log's lock.
    fn record_told(&self, d: &gate::Denied, method: &str) {
        let Ok(mut seen) = self.recorded.lock() else { return };
        if seen.len() > MAX_RECORDS {
            return;
        }
        let host = cut(&d.host, 255);
        if !seen.insert((host.clone(), d.port)) {
            return;
        }
        let full = seen.len() > MAX_RECORDS;
        drop(seen);
        self.send_record(d, method, host, full);
    }

    /// Tells the refusal to the call whose process made the connection (once per destination
    /// each), while that process still waits for the answer: before it is sent.
    fn tell(&self, d: &gate::Denied) {
        match self.call_of_connection() {
            Some(call) => {
                if let Ok(mut told) = call.lock() {
                    told.tell(d);
                }
            }
            None => {
                if let Ok(mut told) = self.told.lock() {
                    told.tell(d);
                }
            }
        }
    }

    /// Sends the record of a refusal to the supervisor (`full`: the last one kept).
    fn send_record(&self, d: &gate::Denied, method: &str, host: String, full: bool) {
        if let Some(records) = &self.records {
            // Nothing to tell it to: the command already got its 403 or SOCKS reply.
            let line = cut(&d.line(), 1024);
            let denial = if full {
                Denial {
                    method: method.into(),
                    host: String::new(),
                    port: 0,
                    reason: "further refused destinations are not recorded".into(),
                }
            } else {
                Denial { method: method.into(), host, port: d.port, reason: line }
            };
            let message = crate::outside::protocol::Request::Denial(denial).encode();
            let _ = nix::sys::socket::send(records.as_raw_fd(), &message, nix::sys::socket::MsgFlags::empty());
        }
    }
}

impl Context {
    /// The joined call whose process made the connection this thread serves; `None` for the
    /// first call's, or when it cannot be told (the connection's socket, or the process that
    /// holds it, is gone).
    fn call_of_connection(&self) -> Option<Arc<Mutex<Told>>> {
        let port = PEER_PORT.with(std::cell::Cell::get)?;
        let joined: Vec<(i32, Arc<Mutex<Told>>)> =
            self.joined.lock().ok()?.iter().filter_map(|t| Some((t.lock().ok()?.pid, Arc::clone(t)))).collect();
        if joined.is_empty() {
            return None;
        }
        let first = self.told.lock().ok()?.pid;
        // The client's socket, seen from a process in the namespace; then who holds it.
        let inode =
            std::iter::once(first).chain(joined.iter().map(|(p, _)| *p)).find_map(|pid| socket_inode(pid, port))?;
        let mut pid = owner_of(inode)?;
        for _ in 0..64 {
            if pid == first {
                return None;
            }
            if let Some((_, call)) = joined.iter().find(|(p, _)| *p == pid) {
                return Some(Arc::clone(call));
            }
            pid = parent_of(pid).filter(|p| *p > 1)?;
        }
        None
    }

    /// A later call of the session joined: its refusals go to `stderr` until its process
    /// (`pidfd`) ends, and then one line sums them up.
    fn join(&self, pidfd: OwnedFd, stderr: Option<OwnedFd>) {
        let Some(pid) = registry::pid_of(&pidfd) else { return };
        let (mode, observe) = self.told.lock().ok().map_or((None, None), |t| (t.mode, t.observe.clone()));
        let told = Arc::new(Mutex::new(Told { pid, stderr: Stderr::new(stderr), mode, observe, ..Told::default() }));
        let Ok(mut joined) = self.joined.lock() else { return };
        joined.retain(|t| t.lock().is_ok_and(|t| t.stderr.raw().is_some()));
        if joined.len() >= MAX_JOINED {
            return;
        }
        joined.push(Arc::clone(&told));
        drop(joined);
        thread(move || {
            let mut p = libc::pollfd { fd: pidfd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
            // SAFETY: one valid pollfd; the call's process ending makes it readable.
            while unsafe { libc::poll(&mut p, 1, -1) } < 0 {}
            if let Ok(mut told) = told.lock() {
                told.end();
            }
        });
    }
}

/// The most joined calls told at once.
const MAX_JOINED: usize = 64;

/// The inode of the TCP socket bound to local `port` in the network namespace of process
/// `pid`.
pub(crate) fn socket_inode(pid: i32, port: u16) -> Option<u64> {
    let want = format!(":{port:04X}");
    ["tcp", "tcp6"].iter().find_map(|table| {
        let text = std::fs::read_to_string(format!("/proc/{pid}/net/{table}")).ok()?;
        text.lines().skip(1).find_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            (fields.get(1)?.ends_with(&want)).then(|| fields.get(9)?.parse().ok()).flatten()
        })
    })
}

/// The process that holds the socket `inode`.
pub(crate) fn owner_of(inode: u64) -> Option<i32> {
    let want = format!("socket:[{inode}]");
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: i32 = e.file_name().to_str()?.parse().ok()?;
        let fds = std::fs::read_dir(e.path().join("fd")).ok()?;
        fds.flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l.as_os_str() == want.as_str()))
            .then_some(pid)
    })
}

/// The parent of process `pid`.
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..].split_whitespace().nth(1)?.parse().ok()
}

/// `text` cut to at most `bytes` bytes, at a character's boundary: a refusal fits the
/// supervisor's channel whatever the host's name is made of.
fn cut(text: &str, bytes: usize) -> String {
    let mut end = text.len().min(bytes);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

/// The proxy process, forked and waiting for its listeners.
pub struct Spawned {
    channel: OwnedFd,
}

/// Forks the proxy for `list`. The process must be single-threaded (it is: the namespace
/// layer's `unshare` needs that too). The proxy waits for [`Spawned::hand_over`]; if this
/// process drops the `Spawned` instead (no network namespace could be had), it exits.
///
/// With `registry` (the agent session's socket, see [`registry`]), the proxy answers the
/// session's later calls there with its namespace, so that they join it.
pub fn spawn(
    list: Allowlist,
    access: Access,
    records: Option<OwnedFd>,
    registry: Option<String>,
    tell: Tell,
) -> Result<Spawned, String> {
    let Tell { stderr, mode, observe } = tell;
    use nix::sys::socket::{AddressFamily, SockFlag, SockType, socketpair};
    let (ours, theirs) = socketpair(AddressFamily::Unix, SockType::SeqPacket, None, SockFlag::SOCK_CLOEXEC)
        .map_err(|e| format!("cannot make the proxy's channel: {e}"))?;
    let command_pid = std::process::id() as i32;
    crate::outside::process::spawn("the proxy", c"sb-proxy", move || {
        let told = Mutex::new(Told { pid: command_pid, stderr: Stderr::new(stderr), mode, observe, ..Told::default() });
        let joined = Mutex::new(Vec::new());
        let cx = Context {
            list,
            access,
            resolve: &gate::system_resolve,
            records,
            recorded: Mutex::new(HashSet::new()),
            told,
            joined,
        };
        serve(theirs, cx, registry)
    })?;
    Ok(Spawned { channel: ours })
}

impl Spawned {
    /// Gives the proxy its listeners, the namespace and this process (a pidfd), and lets it go.
    pub fn hand_over(self, h: Handover) -> Result<(), String> {
        use nix::sys::socket::{ControlMessage, MsgFlags, sendmsg};
        // SAFETY: pidfd_open takes a pid and flags; it returns a new descriptor or -1.
        let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, libc::getpid(), 0) };
        if pidfd < 0 {
            return Err(format!("cannot give the proxy this process: {}", std::io::Error::last_os_error()));
        }
        // SAFETY: a descriptor just returned to this process and owned by nothing else.
        let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd as RawFd) };
        let mut fds: Vec<RawFd> = vec![pidfd.as_raw_fd(), h.netns.as_raw_fd()];
        let mut roles = Vec::new();
        for (role, fd) in &h.listeners {
            fds.push(fd.as_raw_fd());
            let (kind, port) = match role {
                Role::Proxy => (b'P', 0u16),
                Role::Forward(p) => (b'F', *p),
            };
            roles.push(kind);
            roles.extend_from_slice(&port.to_be_bytes());
        }
        if fds.len() > MAX_HANDED {
            return Err(format!(
                "too many loopback ports for the proxy ({} listeners; at most {})",
                fds.len() - 2,
                MAX_HANDED - 2
            ));
        }
        let cmsg = [ControlMessage::ScmRights(&fds)];
        sendmsg::<()>(self.channel.as_raw_fd(), &[IoSlice::new(&roles)], &cmsg, MsgFlags::empty(), None)
            .map_err(|e| format!("cannot hand the proxy its listeners: {e}"))?;
        // The proxy says it has them: a command never runs with a proxy that did not start.
        let mut ack = [0u8; 1];
        let got = nix::sys::socket::recv(self.channel.as_raw_fd(), &mut ack, MsgFlags::empty());
        if got != Ok(1) {
            return Err("the proxy did not take its listeners".into());
        }
        Ok(())
    }
}

/// The proxy process: detaches, takes its listeners, serves until no one is left. Returns the
/// exit status.
fn serve(channel: OwnedFd, cx: Context, registry: Option<String>) -> i32 {
    let records = cx.records.as_ref().map(AsRawFd::as_raw_fd);
    let stderr = cx.told.lock().ok().and_then(|t| t.stderr.raw());
    crate::outside::process::detach(
        &[Some(channel.as_raw_fd()), records, stderr].into_iter().flatten().collect::<Vec<_>>(),
    );
    let Some((pidfd, netns, listeners)) = receive(&channel) else { return 0 };
    raise_descriptor_limit();
    if nix::sys::socket::send(channel.as_raw_fd(), b"k", nix::sys::socket::MsgFlags::empty()).is_err() {
        return 1;
    }
    drop(channel);
    let Some(netns_inode) = inode(netns.as_raw_fd()) else { return 1 };
    // The session's later calls join this namespace: it is kept, and handed to them.
    let port =
        listeners.iter().find(|(r, _)| *r == Role::Proxy).and_then(|(_, l)| l.local_addr().ok()).map(|a| a.port());
    let registry = registry.zip(port).and_then(|(path, port)| Some((registry::Registry::bind(&path)?, port)));
    let netns = registry.as_ref().map(|_| netns);
    let cx = Arc::new(cx);
    let mut polled: Vec<libc::pollfd> = std::iter::once(pidfd.as_raw_fd())
        .chain(listeners.iter().map(|(_, l)| l.as_raw_fd()))
        .chain(registry.iter().map(|(r, _)| r.fd()))
        .map(|fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 })
        .collect();
    let mut command_gone = false;
    loop {
        let timeout = if command_gone { 200 } else { -1 };
        // SAFETY: `polled` is a valid array of pollfd of the length given.
        let n = unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, timeout) };
        if n < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return 1;
        }
        if polled[0].revents != 0 {
            command_gone = true;
            polled[0].events = 0;
            polled[0].fd = -1;
            if let Ok(mut told) = cx.told.lock() {
                told.end();
            }
        }
        if command_gone && !anyone_in(netns_inode) {
            return 0;
        }
        if let (Some((r, port)), Some(netns)) = (&registry, &netns)
            && polled.last().is_some_and(|p| p.revents & libc::POLLIN != 0)
            && let Some((pidfd, stderr)) = r.answer(netns, *port)
        {
            cx.join(pidfd, stderr);
        }
        for (i, (role, listener)) in listeners.iter().enumerate() {
            if polled[i + 1].revents & libc::POLLIN == 0 {
                continue;
            }
            let stream = match listener.accept() {
                Ok((stream, _)) => stream,
                // Out of descriptors: wait for some to close rather than spin.
                Err(_) => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    continue;
                }
            };
            // A command that opens connections without end gets no more threads than this.
            if OPEN.load(Ordering::Relaxed) >= MAX_CONNECTIONS {
                continue;
            }
            let _ = stream.set_nonblocking(false);
            let role = *role;
            let local = listener.local_addr().ok();
            let peer = stream.peer_addr().ok().map(|a| a.port());
            let cx = Arc::clone(&cx);
            OPEN.fetch_add(1, Ordering::Relaxed);
            let spawned = thread(move || {
                PEER_PORT.with(|p| p.set(peer));
                match role {
                    Role::Proxy => first_byte_decides(stream, &cx),
                    Role::Forward(port) => {
                        if let Some(local) = local {
                            forward(stream, SocketAddr::new(local.ip(), port));
                        }
                    }
                }
                OPEN.fetch_sub(1, Ordering::Relaxed);
            });
            if spawned.is_none() {
                OPEN.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }
}

/// The most descriptors one hand-over carries (the kernel's limit is 253).
const MAX_HANDED: usize = 200;

/// The soft limit on descriptors up to the hard one: each tunnel holds four.
fn raise_descriptor_limit() {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit read and write the struct they are given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

/// Refused destinations recorded by one proxy.
const MAX_RECORDS: usize = 100;

/// Connections served at once; more are closed as they come.
const MAX_CONNECTIONS: usize = 512;

/// Connections being served now.
static OPEN: AtomicUsize = AtomicUsize::new(0);

type Received = (OwnedFd, OwnedFd, Vec<(Role, TcpListener)>);

fn receive(channel: &OwnedFd) -> Option<Received> {
    use nix::sys::socket::{ControlMessageOwned, MsgFlags, recvmsg};
    let mut data = [0u8; 3 * MAX_HANDED];
    let mut space = nix::cmsg_space!([RawFd; MAX_HANDED]);
    let mut iov = [std::io::IoSliceMut::new(&mut data)];
    let msg = recvmsg::<()>(channel.as_raw_fd(), &mut iov, Some(&mut space), MsgFlags::MSG_CMSG_CLOEXEC).ok()?;
    let mut fds = Vec::new();
    for c in msg.cmsgs().ok()? {
        if let ControlMessageOwned::ScmRights(r) = c {
            // SAFETY: descriptors just received, owned by nothing else in this process.
            fds.extend(r.into_iter().map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }));
        }
    }
    let len = msg.bytes;
    if fds.len() < 2 || len % 3 != 0 || fds.len() != 2 + len / 3 {
        return None;
    }
    let mut fds = fds.into_iter();
    let (pidfd, netns) = (fds.next()?, fds.next()?);
    let roles = data[..len].chunks(3).map(|c| match c[0] {
        b'P' => Role::Proxy,
        _ => Role::Forward(u16::from_be_bytes([c[1], c[2]])),
    });
    let listeners = roles.zip(fds).map(|(r, fd)| (r, TcpListener::from(fd))).collect();
    Some((pidfd, netns, listeners))
}

fn inode(fd: RawFd) -> Option<u64> {
    // SAFETY: an all-zero stat is valid to be overwritten; fstat fills it.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a valid descriptor and out-pointer.
    (unsafe { libc::fstat(fd, &mut st) } == 0).then_some(st.st_ino)
}

/// Whether some process is still in the network namespace `inode`. A process whose namespace
/// cannot be read (another user's, or one not dumpable) is not counted: the proxy then ends
/// early, and such a process loses the network rather than keeping the proxy forever.
fn anyone_in(inode: u64) -> bool {
    let want = format!("net:[{inode}]");
    let Ok(dir) = std::fs::read_dir("/proc") else { return false };
    dir.flatten().any(|e| {
        let name = e.file_name();
        name.as_encoded_bytes().iter().all(u8::is_ascii_digit)
            && std::fs::read_link(e.path().join("ns/net")).is_ok_and(|l| l.as_os_str() == want.as_str())
    })
}

/// A thread for one side of a connection, or `None` when no thread can be had (the
/// connection is then dropped; the proxy goes on).
pub(crate) fn thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<std::thread::JoinHandle<T>> {
    std::thread::Builder::new().stack_size(256 * 1024).spawn(f).ok()
}

fn first_byte_decides(stream: TcpStream, cx: &Context) {
    let mut first = [0u8; 1];
    match stream.peek(&mut first) {
        Ok(1) if first[0] == 5 => socks::serve(stream, cx),
        Ok(1) if first[0] == 4 => {
            // SOCKS4 resolves names in the client, which has no resolver here: "rejected".
            let mut s = stream;
            let _ = std::io::Write::write_all(&mut s, &[0, 0x5b, 0, 0, 0, 0, 0, 0]);
        }
        Ok(1) => http::serve(stream, cx),
        _ => {}
    }
}

/// A `loopback` port: bytes both ways to the host's own loopback.
fn forward(client: TcpStream, to: SocketAddr) {
    let Ok(upstream) = TcpStream::connect_timeout(&to, tunnel::CONNECT_TIMEOUT) else { return };
    let (Ok(c2), Ok(u2)) = (client.try_clone(), upstream.try_clone()) else { return };
    let Some(up) = thread(move || tunnel::copy_then_close(c2, u2)) else { return };
    tunnel::copy_then_close(upstream, client);
    let _ = up.join();
}

/// The variables that point the command's programs at the proxy on `port`. `NO_PROXY` names
/// only the namespace's own loopback, where the command's own servers are: every other host
/// is reached through the proxy or not at all.
pub fn variables(port: u16) -> Vec<(&'static str, String)> {
    // ALL_PROXY is the HTTP proxy too: clients that read it for every scheme (httpx, and so
    // the OpenAI and Anthropic SDKs) fail to start with a SOCKS URL unless a SOCKS library is
    // installed. The same port speaks SOCKS5 to those that ask for it.
    let http = format!("http://127.0.0.1:{port}");
    let socks = http.clone();
    let local = "localhost,127.0.0.1,::1".to_string();
    let mut out = Vec::new();
    for name in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "npm_config_proxy",
        "npm_config_https_proxy",
        "YARN_HTTP_PROXY",
        "YARN_HTTPS_PROXY",
        "PIP_PROXY",
        "CARGO_HTTP_PROXY",
    ] {
        out.push((name, http.clone()));
    }
    out.push(("ALL_PROXY", socks.clone()));
    out.push(("all_proxy", socks));
    out.push(("NO_PROXY", local.clone()));
    out.push(("no_proxy", local));
    out.push(("NODE_USE_ENV_PROXY", "1".into()));
    out.push((PROXY_VAR, format!("127.0.0.1:{port}")));
    out
}

/// The names [`variables`] sets, which the command's environment gets anew.
pub fn variable_names() -> Vec<&'static str> {
    variables(1).into_iter().map(|(n, _)| n).chain(["npm_config_noproxy", "GIT_PROXY_COMMAND"]).collect()
}
