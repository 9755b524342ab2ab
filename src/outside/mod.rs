//! What runs outside the sandbox for a run: one supervisor process, and the network proxy,
//! both started by a level before it locks itself (so they are in neither the Landlock domain
//! nor the namespaces) through [`process::spawn`].
//!
//! - **Spawning.** Forked twice while the process is single-threaded (bash never sees them
//!   among its children), detached: a session of their own, standard descriptors on
//!   `/dev/null`, every other descriptor closed but their own, not dumpable, so that nothing
//!   of the user's can read their memory through `/proc` either.
//! - **Out of reach.** Landlock's scoping keeps every process of the run from signalling or
//!   tracing them (they are outside its domain).
//! - **Lifetime.** The supervisor lives exactly as long as its jobs: nested levels' records
//!   until every end of the audit channel the command had is closed, the proxy's refusals until
//!   the proxy is gone (when no process is left in the run's network namespace), the signals
//!   job (a thread of its own) until the kernel says no process is left under the filter. Whatever the processes do (double forks,
//!   new sessions, daemons) holds one of those open, so it cannot outlive the supervisor.
//! - **Peers.** Who sends is judged by what the kernel says ([`peer`]): its credentials, its
//!   program, its tracer and its seccomp filters; never by what it writes.
//! - **Protocol.** One versioned message per packet ([`protocol`]).
//!
//! The proxy is a process of its own: it parses hostile bytes, so a bug in it must forge no
//! audit record. It holds no log; it sends each refusal to the supervisor ([`protocol::Denial`]),
//! which writes it in the command's name.
//!
//! Jobs, one file and one request kind each: [`relay`] (the audit log: nested levels' records
//! and the proxy's refusals) and [`signals`] (the calls of one agent session reach and stop
//! each other's processes, see [`session`]).
//!
//! A new job: a file here with what the supervisor's process holds for it (made before the
//! fork, so that a failure is the run's), the descriptors it watches and what it does when one
//! is ready; a field in [`Jobs`]; a request kind in [`protocol`] when the run or a peer asks it
//! something; its arm in [`serve`].

pub mod peer;
pub mod process;
pub mod protocol;
pub mod proxy;
pub mod relay;
pub mod session;
pub mod signals;
pub mod told;
pub mod watch;

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use nix::sys::socket::{AddressFamily, SockFlag, SockType, socketpair};

use crate::audit;

/// What the supervisor does for this run.
pub struct Jobs {
    /// The audit log this level writes: nested levels' records, and the proxy's refusals when
    /// `proxy` says a proxy will send them.
    pub audit: Option<Audit>,
    /// The agent session the run belongs to: signals to its processes from the run are sent for
    /// them, past Landlock's scoping.
    pub session: Option<session::Session>,
    /// The refusals the watch tells the command (see [`watch`]): the layout that names a
    /// path's scope, and the command's standard error.
    pub watch: Option<Watching>,
}

/// The watch's part of [`Jobs`].
pub struct Watching {
    pub layout: crate::scope::Layout,
    pub stderr: Option<OwnedFd>,
    /// The administrator's ceiling: no request above it can be granted.
    pub ceiling: Option<crate::mode::Mode>,
}

/// The audit job's part of [`Jobs`].
pub struct Audit {
    pub log: audit::Log,
    /// sandbox-bash's state directory, where the relay's socket is made.
    pub state: Option<String>,
    /// A network proxy will send its refusals.
    pub proxy: bool,
}

/// The supervisor, forked and waiting for what the lock makes.
pub struct Supervisor {
    control: OwnedFd,
    /// The command's end of the audit channel (close-on-exec until [`relay::inherit`] clears
    /// it right before exec).
    pub channel: Option<OwnedFd>,
    /// The socket the relay listens at.
    pub relay_path: Option<String>,
    /// The proxy's end of the channel its refusals go through.
    pub proxy_records: Option<OwnedFd>,
}

/// What the supervisor's process holds.
struct Held {
    control: Option<OwnedFd>,
    relay: Option<relay::Relay>,
    proxy: Option<OwnedFd>,
    session: Option<session::Session>,
    command_pid: i32,
    /// The watch, until the hand-over starts its thread, and the main thread's end of the
    /// channel its records come through.
    watch: Option<watch::Watch>,
    watch_records: Option<OwnedFd>,
    /// The command's process (a pidfd), for the watch.
    command: Option<OwnedFd>,
}

/// Forks the supervisor for `jobs` and waits until it serves. The process must be
/// single-threaded.
pub fn spawn(jobs: Jobs) -> Result<Supervisor, String> {
    let pair = || socketpair(AddressFamily::Unix, SockType::SeqPacket, None, SockFlag::SOCK_CLOEXEC);
    let (control, theirs) = pair().map_err(|e| format!("cannot make the supervisor's channel: {e}"))?;
    // Its "ready" comes through a pipe: a message on the audit channel would give the relay's
    // end a name (the kernel names a sender that passes credentials), and the command's end
    // would then look connected to a named server.
    let (ready_r, ready_w) =
        nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(|e| format!("cannot start the supervisor: {e}"))?;
    let (mut relay, mut channel, mut proxy, mut proxy_records) = (None, None, None, None);
    if let Some(a) = jobs.audit {
        if a.proxy {
            let (ours, its) = pair().map_err(|e| format!("cannot make the proxy's records channel: {e}"))?;
            (proxy, proxy_records) = (Some(ours), Some(its));
        }
        // The relay's socket is made last: what can fail after it removes it again.
        let (r, command_end) = relay::Relay::new(a.log, a.state.as_deref())?;
        relay = Some(r);
        channel = Some(command_end);
    }
    let relay_path = relay.as_ref().and_then(|r| r.path().map(str::to_string));
    let made = relay_path.clone();
    let unmade = |why: String| {
        if let Some(p) = &made {
            let _ = std::fs::remove_file(p);
        }
        why
    };
    let command_pid = std::process::id() as i32;
    let session = jobs.session;
    // The watch's records go to this thread's log through a channel of the supervisor's own.
    let (mut watch_records, mut watch, mut command) = (None, None, None);
    if let Some(w) = jobs.watch {
        let records = match &relay {
            Some(_) => {
                let (ours, its) =
                    pair().map_err(|e| unmade(format!("cannot make the watch's records channel: {e}")))?;
                watch_records = Some(ours);
                Some(its)
            }
            None => None,
        };
        watch = Some(watch::Watch::new(w.layout, command_pid, w.stderr, records).with_ceiling(w.ceiling));
        // SAFETY: pidfd_open takes a pid and flags; it returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, command_pid, 0) };
        // SAFETY: a descriptor the kernel just returned, owned by nothing else.
        command = (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as RawFd) });
    }
    process::spawn("the supervisor", c"sb-supervisor", move || {
        let keep: Vec<RawFd> = [theirs.as_raw_fd(), ready_w.as_raw_fd()]
            .into_iter()
            .chain(relay.iter().flat_map(relay::Relay::fds))
            .chain(proxy.as_ref().map(AsRawFd::as_raw_fd))
            .chain(watch.iter().flat_map(watch::Watch::fds))
            .chain(watch_records.as_ref().map(AsRawFd::as_raw_fd))
            .chain(command.as_ref().map(AsRawFd::as_raw_fd))
            .collect();
        process::detach(&keep);
        if let Some(r) = &relay {
            r.listen_again();
        }
        let _ = nix::unistd::write(&ready_w, b"R");
        drop(ready_w);
        serve(Held { control: Some(theirs), relay, proxy, session, command_pid, watch, watch_records, command });
        0
    })
    .map_err(unmade)?;
    // Every copy of the write end but the supervisor's is closed (this one with the closure,
    // the forks' with them): end of file without the byte means it is gone.
    let mut ready = [0u8; 1];
    match nix::unistd::read(&ready_r, &mut ready) {
        Ok(1) if ready[0] == b'R' => {}
        _ => return Err(unmade("the supervisor did not start".into())),
    }
    Ok(Supervisor { control, channel, relay_path, proxy_records })
}

impl Supervisor {
    /// Hands the supervisor what the lock made: the listener of the filter that hands the run's
    /// signals (and calls that change paths) over (none: the kernel gave no such filter, or
    /// nothing asked for it), and the rules in force the watch asks.
    pub fn hand_over(self, signals: Option<OwnedFd>, rules: Option<watch::Rules>) -> Result<(), String> {
        use nix::sys::socket::{ControlMessage, MsgFlags, sendmsg};
        let fds: Vec<RawFd> = signals.iter().map(AsRawFd::as_raw_fd).collect();
        let message = protocol::Request::Handover { signals: signals.is_some(), rules }.encode();
        let cmsgs = [ControlMessage::ScmRights(&fds)];
        let cmsgs: &[ControlMessage] = if fds.is_empty() { &[] } else { &cmsgs };
        sendmsg::<()>(self.control.as_raw_fd(), &[std::io::IoSlice::new(&message)], cmsgs, MsgFlags::empty(), None)
            .map_err(|e| format!("cannot hand the supervisor its listener: {e}"))?;
        Ok(())
    }
}

/// What a descriptor the supervisor watches is for.
#[derive(Clone, Copy)]
enum Source {
    Control,
    Relay,
    Proxy,
    Watch,
}

/// The supervisor's life: serves its jobs until none is left. The signals job has a thread of
/// its own, so that no write to the log (which may wait for the log's lock) holds up a signal.
fn serve(mut held: Held) {
    let mut signals: Option<std::thread::JoinHandle<()>> = None;
    loop {
        let mut watched: Vec<(Source, RawFd)> = Vec::new();
        watched.extend(held.control.as_ref().map(|c| (Source::Control, c.as_raw_fd())));
        if let Some(r) = &held.relay {
            watched.extend(r.watched().into_iter().map(|fd| (Source::Relay, fd)));
        }
        watched.extend(held.proxy.as_ref().map(|p| (Source::Proxy, p.as_raw_fd())));
        watched.extend(held.watch_records.as_ref().map(|w| (Source::Watch, w.as_raw_fd())));
        if watched.is_empty() {
            break;
        }
        let mut polls: Vec<libc::pollfd> =
            watched.iter().map(|&(_, fd)| libc::pollfd { fd, events: libc::POLLIN, revents: 0 }).collect();
        if let Err(e) = nix::errno::Errno::result(
            // SAFETY: `polls` is a valid array of pollfd of the given length.
            unsafe { libc::poll(polls.as_mut_ptr(), polls.len() as libc::nfds_t, -1) },
        ) {
            if e == nix::errno::Errno::EINTR {
                continue;
            }
            break;
        }
        let mut relay_ready: Vec<bool> = Vec::new();
        for (&(source, _), p) in watched.iter().zip(&polls) {
            let ready = p.revents != 0;
            match source {
                Source::Relay => relay_ready.push(ready),
                _ if !ready => {}
                Source::Control => {
                    let control = held.control.take();
                    let (listener, rules) = control.as_ref().map(receive_handover).unwrap_or_default();
                    let mut watch =
                        held.watch.take().unwrap_or_else(|| watch::Watch::new(Default::default(), 0, None, None));
                    if let Some(rules) = rules {
                        watch.set_rules(rules);
                    }
                    match listener.and_then(|l| signals::Job::new(l, held.session.take(), watch, held.command.take())) {
                        Some(job) => {
                            signals = std::thread::Builder::new().name("signals".into()).spawn(move || job.run()).ok();
                        }
                        // Nothing to watch: the records' channel is not waited for.
                        None => held.watch_records = None,
                    }
                }
                Source::Watch => {
                    let alive = match (&mut held.relay, &held.watch_records) {
                        (Some(r), Some(w)) => r.watch_record(w.as_raw_fd()),
                        _ => false,
                    };
                    if !alive {
                        held.watch_records = None;
                    }
                }
                Source::Proxy => {
                    let alive = match (&mut held.relay, &held.proxy) {
                        (Some(r), Some(p)) => r.proxy_denial(p.as_raw_fd(), held.command_pid),
                        _ => false,
                    };
                    if !alive {
                        held.proxy = None;
                    }
                }
            }
        }
        if let Some(r) = &mut held.relay {
            r.serve(&relay_ready);
            // The log stays while nested levels, the proxy or the watch may still send.
            if !r.open() && held.proxy.is_none() && held.watch_records.is_none() {
                held.relay = None;
            }
        }
    }
    if let Some(r) = &held.relay {
        r.remove();
    }
    if let Some(thread) = signals {
        let _ = thread.join();
    }
}

/// The watch's listener the hand-over carries, and the rules in force; nothing when the
/// channel closed first (the run ended before its lock), or carried something else.
fn receive_handover(control: &OwnedFd) -> (Option<OwnedFd>, Option<watch::Rules>) {
    use nix::sys::socket::{ControlMessageOwned, MsgFlags, recvmsg};
    let mut buf = vec![0u8; protocol::MAX_MESSAGE + 1];
    let mut cmsg = nix::cmsg_space!([RawFd; 4]);
    let mut iov = [std::io::IoSliceMut::new(&mut buf)];
    let msg = loop {
        match recvmsg::<()>(control.as_raw_fd(), &mut iov, Some(&mut cmsg), MsgFlags::MSG_CMSG_CLOEXEC) {
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => return (None, None),
            Ok(m) => break m,
        }
    };
    let mut received: Vec<OwnedFd> = Vec::new();
    if let Ok(cmsgs) = msg.cmsgs() {
        for c in cmsgs {
            if let ControlMessageOwned::ScmRights(fds) = c {
                // SAFETY: descriptors just received, owned by nothing else here.
                received.extend(fds.into_iter().map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }));
            }
        }
    }
    let bytes = msg.bytes;
    match protocol::Request::decode(&buf[..bytes]) {
        Ok(protocol::Request::Handover { signals: true, rules }) if received.len() == 1 => (received.pop(), rules),
        Ok(protocol::Request::Handover { signals: false, rules }) if received.is_empty() => (None, rules),
        _ => (None, None),
    }
}
