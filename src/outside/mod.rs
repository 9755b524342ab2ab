//! What runs outside the sandbox for a run: one supervisor process, started by the outermost
//! level before anything is locked (so it is in neither the Landlock domain nor the
//! namespaces), that lives exactly as long as the run.
//!
//! - **Spawning.** [`spawn`] forks it twice while the process is single-threaded (bash never
//!   sees it among its children). It detaches: a session of its own, standard descriptors on
//!   `/dev/null`, every other descriptor closed but its own, and not dumpable, so that nothing
//!   of the user's can read its memory through `/proc` either.
//! - **Out of reach.** Landlock's scoping keeps every process of the run from signalling or
//!   tracing it (it is outside their domain), and its own process is not dumpable.
//! - **Lifetime.** Its jobs end it: the signals job when the kernel says no process is left
//!   that could send a signal through the filter (the listener hangs up, whatever the processes
//!   did: double forks, new sessions, daemons included).
//! - **Hand-over.** What exists only once the run is locked (the filter's listener) comes over
//!   a channel the supervisor was forked with, with one versioned message ([`Handover`]);
//!   when the run ends before it (refused after the lock), the channel closes and so does the
//!   supervisor.
//!
//! Jobs: [`signals`] (the calls of one agent session reach and stop each other's processes, see
//! [`session`]).

pub mod session;
pub mod signals;

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// The version of the hand-over message; a supervisor that reads another refuses it.
const VERSION: u8 = 1;

/// The supervisor, forked and waiting for what the lock makes.
pub struct Supervisor {
    control: OwnedFd,
}

/// What the supervisor does for this run.
pub struct Jobs {
    /// The agent session the run belongs to: signals to its processes from the run are sent for
    /// them, past Landlock's scoping.
    pub session: Option<session::Session>,
}

/// Forks the supervisor for `jobs`. The process must be single-threaded.
pub fn spawn(jobs: Jobs) -> Result<Supervisor, String> {
    use nix::sys::socket::{AddressFamily, SockFlag, SockType, socketpair};
    let (ours, theirs) = socketpair(AddressFamily::Unix, SockType::SeqPacket, None, SockFlag::SOCK_CLOEXEC)
        .map_err(|e| format!("cannot make the supervisor's channel: {e}"))?;
    // The child closes our end with every other descriptor (`detach`).
    crate::exec::spawn_detached("the supervisor", c"sb-supervisor", move || {
        detach(&[theirs.as_raw_fd()]);
        run(theirs, jobs)
    })?;
    Ok(Supervisor { control: ours })
}

/// What the locked run hands over.
pub struct Handover {
    /// The listener of the filter that hands the run's signals over (none: the kernel gave no
    /// such filter, and signals stay as Landlock decides).
    pub signals: Option<OwnedFd>,
}

impl Supervisor {
    /// Hands the supervisor what the lock made, and lets it go.
    pub fn hand_over(self, h: Handover) -> Result<(), String> {
        use nix::sys::socket::{ControlMessage, MsgFlags, sendmsg};
        let fds: Vec<RawFd> = h.signals.iter().map(AsRawFd::as_raw_fd).collect();
        let message = [VERSION, u8::from(h.signals.is_some())];
        let cmsgs = [ControlMessage::ScmRights(&fds)];
        let cmsgs: &[ControlMessage] = if fds.is_empty() { &[] } else { &cmsgs };
        sendmsg::<()>(self.control.as_raw_fd(), &[std::io::IoSlice::new(&message)], cmsgs, MsgFlags::empty(), None)
            .map_err(|e| format!("cannot hand the supervisor its listener: {e}"))?;
        Ok(())
    }
}

/// The supervisor's life: waits for the hand-over, then serves its jobs until they end.
fn run(control: OwnedFd, jobs: Jobs) -> i32 {
    let Some(handover) = receive(&control) else { return 0 };
    drop(control);
    if let (Some(listener), Some(session)) = (handover.signals, jobs.session) {
        signals::serve(&listener, &session);
    }
    0
}

/// The hand-over, or `None` when the channel closed first or carried something else.
fn receive(control: &OwnedFd) -> Option<Handover> {
    use nix::sys::socket::{ControlMessageOwned, MsgFlags, recvmsg};
    let mut buf = [0u8; 16];
    let mut cmsg = nix::cmsg_space!([RawFd; 4]);
    let mut iov = [std::io::IoSliceMut::new(&mut buf)];
    let msg = loop {
        match recvmsg::<()>(control.as_raw_fd(), &mut iov, Some(&mut cmsg), MsgFlags::MSG_CMSG_CLOEXEC) {
            Err(nix::errno::Errno::EINTR) => continue,
            other => break other.ok()?,
        }
    };
    let mut received: Vec<OwnedFd> = Vec::new();
    for c in msg.cmsgs().ok()? {
        if let ControlMessageOwned::ScmRights(fds) = c {
            // SAFETY: descriptors just received, owned by nothing else here.
            received.extend(fds.into_iter().map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }));
        }
    }
    let bytes = msg.bytes;
    if bytes != 2 || buf[0] != VERSION {
        return None;
    }
    let signals = if buf[1] == 1 && received.len() == 1 { received.pop() } else { None };
    Some(Handover { signals })
}

/// Detaches a process forked to run outside the sandbox: a session of its own, SIGPIPE
/// ignored, not dumpable, standard descriptors on `/dev/null`, every other descriptor closed but
/// `keep` (with `close_range`, which needs no descriptor of its own, so that it works whatever
/// the limit of open files).
pub(crate) fn detach(keep: &[RawFd]) {
    // SAFETY: plain system calls on this process and descriptors it owns.
    unsafe {
        libc::setsid();
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            for fd in 0..3 {
                libc::dup2(null, fd);
            }
            if null > 2 && !keep.contains(&null) {
                libc::close(null);
            }
        }
        let mut keep: Vec<u32> = keep.iter().filter(|f| **f > 2).map(|f| *f as u32).collect();
        keep.sort_unstable();
        let mut from = 3u32;
        for k in keep {
            if k > from {
                libc::syscall(libc::SYS_close_range, from, k - 1, 0);
            }
            from = from.max(k + 1);
        }
        libc::syscall(libc::SYS_close_range, from, u32::MAX, 0);
    }
}
