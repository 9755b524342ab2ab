//! The listener's job: every signal a process of the run sends, and every call that opens,
//! changes or runs a path, comes here first (a seccomp filter with a listener, installed last
//! by the outermost level). The path calls, and the signals the kernel is left to judge, are
//! shown to the watch ([`super::watch`]), which tells the command what the rules refuse; every
//! such call then goes on unchanged. A signal to a process of the same
//! agent session (see [`super::session`]) is sent by the supervisor for the caller, past
//! Landlock's scoping, which keeps each call to its own processes; every other signal goes on
//! as if nothing had looked at it, and the kernel's own rules judge it (EPERM for a process
//! outside the run).
//!
//! Any process under the filter may ask, a nested sandbox-bash's included: its commands carry
//! the session's id too, so a script run through `bash` stops what an earlier call started. A
//! nested level stricter than its call is thus not kept from the session's processes (it may
//! signal them, nothing more).
//!
//! What is judged is numbers the caller passed (a pid, a thread, a process group, a pidfd's
//! process), read once; the signal is then sent through a pidfd opened before the check and
//! found still alive after it, so a pid reused in between cannot be hit.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::session::Session;

/// What to answer one notification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    /// Let the call go on: the kernel's own rules judge it.
    Continue,
    /// The call returns this value (0), or fails with this errno.
    Done(Result<i64, i32>),
}

/// The job: the filter's listener, the session whose processes the run may reach, and the
/// watch that tells the command what the rules refuse it.
pub(super) struct Job {
    listener: OwnedFd,
    session: Option<Session>,
    watch: super::watch::Watch,
    /// The command's process (a pidfd): when it ends, the watch sums up.
    command: Option<OwnedFd>,
    arch: crate::sandbox::seccomp::Arch,
}

impl Job {
    /// The job for `listener`; `None` on an architecture the filter does not know.
    pub(super) fn new(
        listener: OwnedFd,
        session: Option<Session>,
        watch: super::watch::Watch,
        command: Option<OwnedFd>,
    ) -> Option<Job> {
        Some(Job { listener, session, watch, command, arch: crate::sandbox::seccomp::native()? })
    }

    /// Serves the listener until it hangs up: no process is left that could send a signal
    /// through the filter.
    pub(super) fn run(mut self) {
        // The caller and this thread are woken in turn on one CPU, not each by the scheduler:
        // a call that waits here costs less (the kernel ignores it before Linux 6.6).
        // SAFETY: the listener is a seccomp notification descriptor; the flag is a number.
        unsafe { libc::ioctl(self.listener.as_raw_fd(), libc::SECCOMP_IOCTL_NOTIF_SET_FLAGS, SYNC_WAKE_UP) };
        let mut last_sweep = std::time::Instant::now();
        loop {
            let command = self.command.as_ref().map_or(-1, AsRawFd::as_raw_fd);
            let mut poll = [
                libc::pollfd { fd: self.listener.as_raw_fd(), events: libc::POLLIN, revents: 0 },
                libc::pollfd { fd: command, events: libc::POLLIN, revents: 0 },
            ];
            // Once the command's process has ended, what it left running is swept every second
            // for persistence points made past the watch (see `watch::Watch::sweep`): a process
            // that stays (a server) would otherwise keep the last sweep from coming.
            let timeout = if self.command.is_none() { SWEEP_EVERY.as_millis() as libc::c_int } else { -1 };
            // SAFETY: two valid pollfds (a negative descriptor is skipped).
            let ready = unsafe { libc::poll(poll.as_mut_ptr(), 2, timeout) };
            if ready < 0 {
                if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                break;
            }
            if ready == 0 {
                self.watch.sweep();
                last_sweep = std::time::Instant::now();
                continue;
            }
            if poll[1].revents != 0 {
                self.command = None;
                self.watch.end();
                last_sweep = std::time::Instant::now();
            }
            if poll[0].revents != 0 && !self.serve(poll[0].revents) {
                break;
            }
            // A process that keeps calling (every call wakes the poll) is swept all the same.
            if self.command.is_none() && last_sweep.elapsed() >= SWEEP_EVERY {
                self.watch.sweep();
                last_sweep = std::time::Instant::now();
            }
        }
        self.watch.end();
    }

    /// Answers the notification waiting on the listener (`revents` is what `poll` said of it);
    /// `false` once it hung up: the filter has no process left that could send a signal.
    fn serve(&mut self, revents: libc::c_short) -> bool {
        if revents & libc::POLLIN == 0 {
            return false;
        }
        let listener = &self.listener;
        // SAFETY: an all-zero notification is valid to be overwritten by the kernel.
        let mut note: libc::seccomp_notif = unsafe { std::mem::zeroed() };
        // SAFETY: the listener is a seccomp notification descriptor, `note` a valid out-pointer.
        if unsafe { libc::ioctl(listener.as_raw_fd(), libc::SECCOMP_IOCTL_NOTIF_RECV, &mut note) } != 0 {
            // The caller was gone before its notification could be read (ENOENT), or an
            // interruption: the next one.
            return true;
        }
        let nr = note.data.nr as u32;
        let answer = if let Some(call) = self.arch.path_calls.iter().find(|c| c.nr == nr) {
            match self.watch.path_call(&note, call, listener) {
                Some(errno) => Answer::Done(Err(errno)),
                None => Answer::Continue,
            }
        } else {
            match signal(&note, &self.arch, listener) {
                Some((target, sig)) => {
                    let answer = judge(target, sig, self.session.as_ref());
                    if answer == Answer::Continue {
                        match target {
                            Target::Group(pgid) => self.watch.signal(note.pid as i32, pgid, sig, true),
                            _ => {
                                if let Some(pid) = target.process() {
                                    self.watch.signal(note.pid as i32, pid, sig, false);
                                }
                            }
                        }
                    }
                    answer
                }
                None => Answer::Continue,
            }
        };
        // SAFETY: an all-zero response is valid; its fields are set below.
        let mut resp: libc::seccomp_notif_resp = unsafe { std::mem::zeroed() };
        resp.id = note.id;
        match answer {
            Answer::Continue => resp.flags = libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32,
            Answer::Done(Ok(v)) => resp.val = v,
            Answer::Done(Err(errno)) => resp.error = -errno,
        }
        // SAFETY: the listener is a seccomp notification descriptor, `resp` a valid response.
        unsafe { libc::ioctl(listener.as_raw_fd(), libc::SECCOMP_IOCTL_NOTIF_SEND, &resp) };
        true
    }
}

/// How often what a command left running is swept.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// `SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP` (not named by the C library's crate).
const SYNC_WAKE_UP: u64 = 1;

/// Whom a signal is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Process(i32),
    Group(i32),
    /// A thread (`tid`), of the process `group` when it is not 0.
    Thread {
        group: i32,
        tid: i32,
    },
}

impl Target {
    /// The one process the signal is for, when it is for one.
    fn process(self) -> Option<i32> {
        match self {
            Target::Process(pid) => Some(pid),
            Target::Thread { tid, .. } => thread_of(tid),
            Target::Group(_) => None,
        }
    }
}

/// The target and the signal of a call that sends one; `None` for one the kernel is left
/// to judge whoever it names (every process, the caller's own group, a pidfd with flags).
fn signal(
    note: &libc::seccomp_notif,
    arch: &crate::sandbox::seccomp::Arch,
    listener: &OwnedFd,
) -> Option<(Target, i32)> {
    let nr = note.data.nr as u32;
    let arg = |i: usize| note.data.args[i];
    // The numbers of kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal.
    let [kill, tkill, tgkill, _, _, pidfd_send_signal] = arch.signals;
    let sig = |i: usize| arg(i) as i32;
    if nr == kill {
        let pid = arg(0) as i32;
        if pid > 0 {
            return Some((Target::Process(pid), sig(1)));
        }
        if pid < -1 {
            return Some((Target::Group(-pid), sig(1)));
        }
    } else if nr == tgkill || nr == tkill {
        let (group, tid, sig) =
            if nr == tgkill { (arg(0) as i32, arg(1) as i32, sig(2)) } else { (0, arg(0) as i32, sig(1)) };
        if tid > 0 && group >= 0 {
            return Some((Target::Thread { group, tid }, sig));
        }
    } else if nr == pidfd_send_signal && arg(2) == 0 {
        // The process the caller's pidfd names, read from its descriptor's information.
        let fdinfo =
            std::fs::read_to_string(format!("/proc/{}/fdinfo/{}", note.pid, arg(0) as i32)).unwrap_or_default();
        // The caller may have gone and its pid been reused while that was read.
        // SAFETY: the listener is a seccomp notification descriptor, the id a valid u64.
        let valid = unsafe { libc::ioctl(listener.as_raw_fd(), libc::SECCOMP_IOCTL_NOTIF_ID_VALID, &note.id) } == 0;
        let target = fdinfo.lines().find_map(|l| l.strip_prefix("Pid:")).and_then(|p| p.trim().parse::<i32>().ok());
        if let (true, Some(pid)) = (valid, target.filter(|p| *p > 0)) {
            return Some((Target::Process(pid), sig(1)));
        }
    }
    None
}

/// What to do with one signal: sent here when its target belongs to the session.
fn judge(target: Target, sig: i32, session: Option<&Session>) -> Answer {
    let Some(session) = session else { return Answer::Continue };
    match target {
        Target::Process(pid) => to_process(pid, sig, session),
        Target::Group(pgid) => to_group(pgid, sig, session),
        Target::Thread { group: tgid, tid } => {
            if let Some(fd) = thread_pidfd(tid)
                && let Some(group) = thread_of(tid).filter(|g| *g > 0 && (tgid == 0 || *g == tgid))
                && session.holds(group)
                && alive(&fd)
            {
                return Answer::Done(send(&fd, sig));
            }
            Answer::Continue
        }
    }
}

/// A signal for the process `pid`: sent here when it belongs to the session.
fn to_process(pid: i32, sig: i32, session: &Session) -> Answer {
    let Some(pidfd) = pidfd(pid) else { return Answer::Continue };
    if !session.holds(pid) || !alive(&pidfd) {
        return Answer::Continue;
    }
    Answer::Done(send(&pidfd, sig))
}

/// A signal for the process group `pgid`: sent here to each of its processes that belongs to
/// the session, when its leader does.
fn to_group(pgid: i32, sig: i32, session: &Session) -> Answer {
    if !session.holds(pgid) {
        return Answer::Continue;
    }
    let mut sent = false;
    let mut last = Ok(0);
    for pid in processes().into_iter().filter(|p| group_of(*p) == Some(pgid)) {
        let Some(fd) = pidfd(pid) else { continue };
        if session.holds(pid) && alive(&fd) {
            last = send(&fd, sig);
            sent |= last.is_ok();
        }
    }
    Answer::Done(if sent { Ok(0) } else { last.and(Err(libc::ESRCH)) })
}

/// A pidfd of the thread `tid` (of any thread, the leader's included), whose signals go to
/// that thread alone; none on kernels before 6.9, where a thread's signals are then left to
/// the kernel's rules.
fn thread_pidfd(tid: i32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags (PIDFD_THREAD is O_EXCL); it returns a new
    // descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, tid, libc::O_EXCL) };
    // SAFETY: a descriptor the kernel just returned, owned by nothing else.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// A pidfd of `pid`, opened before anything of it is read.
fn pidfd(pid: i32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags; it returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // SAFETY: a descriptor the kernel just returned, owned by nothing else.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// Whether the process of `pidfd` has not been reaped: then what was read of its pid was read
/// of it.
fn alive(pidfd: &OwnedFd) -> bool {
    // SAFETY: signal 0 checks only; null info, no flags.
    unsafe { libc::syscall(libc::SYS_pidfd_send_signal, pidfd.as_raw_fd(), 0, std::ptr::null::<u8>(), 0) == 0 }
}

fn send(pidfd: &OwnedFd, sig: i32) -> Result<i64, i32> {
    // SAFETY: as in `alive`, with the caller's signal.
    let rc = unsafe { libc::syscall(libc::SYS_pidfd_send_signal, pidfd.as_raw_fd(), sig, std::ptr::null::<u8>(), 0) };
    if rc < 0 { Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EPERM)) } else { Ok(0) }
}

/// The process (thread group) a thread belongs to.
fn thread_of(tid: i32) -> Option<i32> {
    let status = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    status.lines().find_map(|l| l.strip_prefix("Tgid:"))?.trim().parse().ok()
}

/// The process group of `pid`.
fn group_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(2)?.parse().ok()
}

/// Every process's pid.
fn processes() -> Vec<i32> {
    std::fs::read_dir("/proc")
        .map(|d| d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok()).collect())
        .unwrap_or_default()
}
