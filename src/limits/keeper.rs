//! The keeper: when a run has limits a group or a deadline holds, the level forks before it
//! starts anything else. The parent stays outside everything the child then locks (no Landlock
//! domain, no namespace, not in the run's groups), so nothing of the run can signal, trace or
//! slow it; it is the process the caller waits for. The child goes on as the run: it enters
//! the groups, locks itself and executes bash.
//!
//! The keeper forwards the signals the caller sends it (a terminal's own signals reach bash
//! directly), keeps the deadline, answers each access to scratch under the disk limit (see
//! [`super::disk`]) and watches the groups' counters, stops every process of the
//! run when a limit that ends it is reached, tells each reached limit on its standard error in
//! one line and in the audit log, and ends with bash's status, or the limit's own.
//!
//! Without any group (a deadline alone, where no cgroup can be made) the keeper holds the tree
//! as its subreaper: every orphan of the run becomes its child, so a double fork cannot leave
//! it, and it waits for all of them, until the deadline at most.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::cgroup::{Groups, Plan};
use super::disk::Counter;
use super::{Kind, Limits, line};
use crate::error::Error;
use crate::trail::Recorder;

/// The signals the keeper takes: the child's end, and those it forwards.
const FORWARDED: [i32; 9] = [
    libc::SIGHUP,
    libc::SIGINT,
    libc::SIGQUIT,
    libc::SIGTERM,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGCONT,
    libc::SIGWINCH,
];

/// How often the groups' counters are read while a limit the keeper enforces needs them.
const TICK: Duration = Duration::from_millis(20);

/// What the run's own process does with the limits, once it is the child.
pub struct Entry {
    groups: Option<Groups>,
    file: Option<u64>,
    /// Where the run tells the keeper the line that declares its sandbox, once locked.
    declare: Option<OwnedFd>,
    /// The disk limit's group, and the scratch trees its marks go on.
    scratch: Option<(OwnedFd, Vec<String>)>,
}

impl Entry {
    /// Enters the run's groups and sets the per-process limits: called by the run's process
    /// after what runs outside is started (which stays out of the groups) and before the lock.
    pub fn enter(&self) -> Result<(), Error> {
        if let Some(g) = &self.groups {
            g.enter().map_err(|e| Error::Refused(format!("cannot enter the run's cgroup: {e}")))?;
        }
        // A core file is written without asking: none while scratch is counted.
        if self.scratch.is_some() {
            let none = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            // SAFETY: setrlimit reads the struct it is given.
            if unsafe { libc::setrlimit(libc::RLIMIT_CORE, &none) } != 0 {
                let e = std::io::Error::last_os_error();
                return Err(Error::Refused(format!("cannot turn core files off for the disk limit: {e}")));
            }
        }
        if let Some(bytes) = self.file {
            let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
            // SAFETY: setrlimit reads the struct it is given.
            if unsafe { libc::setrlimit(libc::RLIMIT_FSIZE, &limit) } != 0 {
                let e = std::io::Error::last_os_error();
                return Err(Error::Refused(format!("cannot set the file size limit (RLIMIT_FSIZE): {e}")));
            }
        }
        Ok(())
    }

    /// Whether the run's view must be marked (see [`Entry::mark`]).
    pub fn marks(&self) -> bool {
        self.scratch.is_some()
    }

    /// Marks the run's own mounts of the scratch trees for the disk limit: called by the run's
    /// process in its view, before it gives up its capabilities.
    pub fn mark(&self) -> Result<(), String> {
        match &self.scratch {
            Some((group, trees)) => super::disk::mark(group.as_raw_fd(), trees),
            None => Ok(()),
        }
    }

    /// Tells the keeper the line that declares the run's sandbox, for its records.
    pub fn declare(&self, line: &str) {
        if let Some(fd) = &self.declare {
            // SAFETY: writes a buffer to the pipe (far below its capacity).
            unsafe { libc::write(fd.as_raw_fd(), line.as_ptr().cast(), line.len()) };
        }
    }
}

/// Starts keeping `limits` as `plan` holds them. Returns in the run's process (the child, or
/// this process when no keeper is needed: a file size alone); the keeper itself never returns.
/// The process must be single-threaded.
pub(crate) fn keep(limits: &Limits, plan: &Plan, scratch: &[String], recorder: &mut Recorder) -> Result<Entry, Error> {
    let file = limits.get(Kind::File);
    if limits.is_empty() {
        return Ok(Entry { groups: None, file, declare: None, scratch: None });
    }
    let kept = *limits;
    // The disk limit's group is made here, so that the keeper answers what the run marks.
    let disk = match limits.get(Kind::Disk) {
        Some(_) => Some(
            super::disk::group()
                .map_err(|why| Error::Refused(format!("the disk limit cannot be enforced here: {why}")))?,
        ),
        None => None,
    };
    let groups = Groups::make(plan, limits).map_err(|e| Error::Refused(format!("the run's limits: {e}")))?;
    let groups = (!groups.is_empty()).then_some(groups);
    let (declared, declare) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|e| Error::Refused(format!("cannot start the keeper of the run's limits: {e}")))?;
    // The signals wait in a descriptor from before the fork, so none is lost; the child takes
    // the mask back at once.
    let mut mask: libc::sigset_t = unsafe { std::mem::zeroed() };
    let mut old: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: the sets are plain structs these calls fill.
    unsafe {
        libc::sigemptyset(&mut mask);
        libc::sigaddset(&mut mask, libc::SIGCHLD);
        for s in FORWARDED {
            libc::sigaddset(&mut mask, s);
        }
        libc::sigprocmask(libc::SIG_BLOCK, &mask, &mut old);
    }
    // A start that fails takes back the mask and the groups, and refuses the run.
    let undo = |groups: Option<Groups>| {
        let e = std::io::Error::last_os_error();
        // SAFETY: restores the mask saved above.
        unsafe { libc::sigprocmask(libc::SIG_SETMASK, &old, std::ptr::null_mut()) };
        if let Some(mut g) = groups {
            g.remove();
        }
        Err(Error::Refused(format!("cannot start the keeper of the run's limits: {e}")))
    };
    // SAFETY: signalfd takes the mask of the signals blocked above.
    let fd = unsafe { libc::signalfd(-1, &mask, libc::SFD_CLOEXEC) };
    if fd < 0 {
        return undo(groups);
    }
    // SAFETY: a new descriptor, owned here.
    let signals = unsafe { OwnedFd::from_raw_fd(fd) };
    let keeper = std::process::id() as i32;
    // SAFETY: the process is single-threaded; the child only returns into the run.
    let child = unsafe { libc::fork() };
    if child < 0 {
        return undo(groups);
    }
    if child == 0 {
        // SAFETY: restores the mask saved before the fork; the death signal is a number.
        unsafe {
            libc::sigprocmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            // The run does not outlive its keeper.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
            if libc::getppid() != keeper {
                libc::_exit(125);
            }
        }
        drop((declared, signals));
        return Ok(Entry { groups, file, declare: Some(declare), scratch: disk.map(|g| (g, scratch.to_vec())) });
    }
    drop(declare);
    // SAFETY: ignoring a signal; the keeper writes to a standard error that may be closed.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    let start = Instant::now();
    let disk = disk.map(|g| Counter::new(g, kept.get(Kind::Disk).unwrap_or(0), scratch));
    if let Some(g) = &groups {
        guard(g, &kept, start, child, &declared, disk.as_ref(), recorder);
    }
    let status = Keeper::new(kept, groups, child, signals, declared, start, disk).run(recorder);
    finish(status)
}

/// Forks the guard: a process of its own session, outside the run's groups, that waits for
/// the keeper to end. A keeper that ends as it should has removed the groups or left them to
/// it with processes the command left running; a keeper killed (with its caller's process
/// group, say) has left the whole run. Either way the guard holds what is left to the run's
/// deadline, CPU time, memory and disk, and removes the groups once empty.
fn guard(
    groups: &Groups,
    limits: &Limits,
    start: Instant,
    child: i32,
    declared: &OwnedFd,
    disk: Option<&Counter>,
    recorder: &mut Recorder,
) {
    let keeper = std::process::id() as i32;
    // SAFETY: the keeper is single-threaded; the guard ends with _exit.
    if unsafe { libc::fork() } != 0 {
        return;
    }
    // Detached like what else runs outside: nothing of the caller's is held any longer (a
    // harness waiting for a pipe's end of file is not kept waiting), only the pipe the run's
    // declaration comes through and the audit log.
    let keep: Vec<i32> =
        [Some(declared.as_raw_fd()), recorder.raw_fd(), disk.map(Counter::fd)].into_iter().flatten().collect();
    crate::outside::process::detach(&keep);
    // SAFETY: no signal blocked.
    unsafe {
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
    }
    // SAFETY: pidfd_open of the keeper, this process's parent (its pid cannot be reused while
    // this process is its child).
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, keeper, 0) } as i32;
    if pidfd >= 0 {
        let mut fds = [libc::pollfd { fd: pidfd, events: libc::POLLIN, revents: 0 }];
        // SAFETY: one pollfd; waits until the keeper has ended.
        while unsafe { libc::poll(fds.as_mut_ptr(), 1, -1) } < 0 {}
    } else {
        // SAFETY: getppid reads a number.
        while unsafe { libc::getppid() } == keeper {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    let deadline = limits.get(Kind::Wall).map(|ms| start + Duration::from_millis(ms));
    let sandbox = declaration(declared);
    let mut groups = Groups::same(groups);
    // What the run adds to scratch stays counted, from where the keeper stopped; without the
    // keeper's count the guard cannot hold the limit, and stops what is left.
    let mut disk = disk.map(Counter::successor);
    let blind = matches!(disk, Some(None));
    // Stopped once: what is left are processes on their way out (the machine's init reaps them).
    let mut stopped = false;
    while groups.exists() && groups.populated() {
        let over = |k: Kind| limits.get(k);
        let reached = if stopped {
            None
        } else if deadline.is_some_and(|d| Instant::now() >= d) {
            Some((Kind::Wall, "the processes the run left running were stopped at its deadline"))
        } else if over(Kind::Cpu).zip(groups.cpu_ms()).is_some_and(|(l, u)| u >= l) {
            Some((Kind::Cpu, "the processes the run left running were stopped"))
        } else if over(Kind::Memory).is_some() && groups.out_of_memory() {
            Some((Kind::Memory, "the processes the run left running were stopped together"))
        } else if blind {
            Some((Kind::Disk, "the processes the run left running were stopped: what the run added could not be known"))
        } else {
            None
        };
        if let Some((kind, what)) = reached {
            stopped = true;
            groups.kill();
            let peak = Peak { wall_ms: start.elapsed().as_millis() as u64, cpu_ms: groups.cpu_ms(), ..Peak::default() };
            let bound = super::bound(kind, limits.get(kind).unwrap_or(0));
            let reached =
                Reached { kind: kind.type_name(), bound, what, command_pid: child, peak, sandbox: sandbox.clone() };
            let _ = recorder.event("limit", "reached", &reached);
        }
        match disk.as_mut().and_then(Option::as_mut) {
            Some(counter) => {
                let refused = counter.refused;
                wait_for(counter.fd(), Duration::from_millis(100));
                counter.serve(&|| groups.processes());
                if refused == 0 && counter.refused > 0 {
                    let what = format!(
                        "a write by a process the run left running to {} failed with ENOSPC",
                        counter.first.as_deref().unwrap_or("a scratch file")
                    );
                    let peak = Peak { disk_bytes: Some(counter.peak), ..Peak::default() };
                    let bound = super::bound(Kind::Disk, limits.get(Kind::Disk).unwrap_or(0));
                    let reached = Reached {
                        kind: Kind::Disk.type_name(),
                        bound,
                        what: &what,
                        command_pid: child,
                        peak,
                        sandbox: sandbox.clone(),
                    };
                    let _ = recorder.event("limit", "reached", &reached);
                }
            }
            None => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    groups.remove();
    // SAFETY: ends the guard.
    unsafe { libc::_exit(0) };
}

/// Waits until `fd` can be read, `most` at most.
fn wait_for(fd: i32, most: Duration) {
    let mut fds = [libc::pollfd { fd, events: libc::POLLIN, revents: 0 }];
    // SAFETY: one pollfd.
    unsafe { libc::poll(fds.as_mut_ptr(), 1, most.as_millis() as i32) };
}

/// The line the run told through `fd`, once (the pipe's writer is closed at its exec).
fn declaration(fd: &OwnedFd) -> Option<String> {
    let mut buf = vec![0u8; 4096];
    // SAFETY: O_NONBLOCK on a descriptor owned by the caller, then one read into the buffer.
    let n = unsafe {
        libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK);
        libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len())
    };
    (n > 0).then(|| String::from_utf8_lossy(&buf[..n as usize]).into_owned())
}

/// What a reached limit's record says.
#[derive(Serialize)]
struct Reached<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    bound: String,
    what: &'a str,
    command_pid: i32,
    peak: Peak,
    /// The line that declares the run's sandbox, as the run told it.
    #[serde(skip_serializing_if = "Option::is_none")]
    sandbox: Option<String>,
}

/// The most the run used.
#[derive(Clone, Copy, Default, Serialize)]
struct Peak {
    #[serde(skip_serializing_if = "Option::is_none")]
    memory_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cpu_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pids: Option<u64>,
    /// What the run added to the scratch trees, at most.
    #[serde(skip_serializing_if = "Option::is_none")]
    disk_bytes: Option<u64>,
    wall_ms: u64,
}

/// How the keeper ends.
enum Status {
    /// bash's wait status, passed on.
    Wait(i32),
    /// The status of a limit that stopped the run.
    Code(i32),
}

struct Keeper {
    limits: Limits,
    groups: Option<Groups>,
    child: i32,
    signals: OwnedFd,
    start: Instant,
    pids_peak: u64,
    /// The pipe the run tells its declaration through.
    declared: OwnedFd,
    /// bash's wait status, once reaped.
    waited: Option<i32>,
    disk: Option<Counter>,
}

impl Keeper {
    fn new(
        limits: Limits,
        groups: Option<Groups>,
        child: i32,
        signals: OwnedFd,
        declared: OwnedFd,
        start: Instant,
        disk: Option<Counter>,
    ) -> Keeper {
        // The keeper holds neither the caller's input nor its output: a reader's end of file
        // comes when the run closes them. Standard error stays, for the lines.
        if let Ok(null) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/null") {
            // SAFETY: dup2 onto the standard descriptors.
            unsafe {
                libc::dup2(null.as_raw_fd(), 0);
                libc::dup2(null.as_raw_fd(), 1);
            }
        }
        if groups.is_none() {
            // SAFETY: a flag of this process.
            unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
        }
        Keeper { limits, groups, child, signals, start, pids_peak: 0, declared, waited: None, disk }
    }

    fn run(mut self, recorder: &mut Recorder) -> Status {
        let deadline = self.limits.get(Kind::Wall).map(|ms| self.start + Duration::from_millis(ms));
        let counted = [Kind::Cpu, Kind::Memory, Kind::Pids].iter().any(|k| self.limits.get(*k).is_some());
        let mut stopped: Option<(Kind, String)> = None;
        loop {
            // Without groups, the keeper waits for every process of the run (its subreaper's
            // children) when it holds a deadline or the disk limit for them; a child that can
            // no longer be waited for ends the wait too.
            let done = match &self.groups {
                Some(_) => self.waited.is_some(),
                None if deadline.is_none() && self.disk.is_none() => self.waited.is_some(),
                None => !self.has_children(),
            };
            if done {
                break;
            }
            let now = Instant::now();
            let mut wait = deadline.map(|d| d.saturating_duration_since(now));
            if stopped.is_some() {
                // Stopped: what is left is reaping it.
                wait = Some(TICK);
            } else if counted {
                wait = Some(wait.map_or(TICK, |w| w.min(TICK)));
            }
            self.poll(wait);
            if stopped.is_some() {
                continue;
            }
            if let Some(what) = self.counters() {
                stopped = Some(what);
            } else if deadline.is_some_and(|d| Instant::now() >= d) {
                let ended = self.waited.is_some();
                let n = self.stop();
                let what = if ended { "the command had ended; what it left running" } else { "the run" };
                stopped = Some((Kind::Wall, format!("{what} was stopped: {} (SIGKILL)", processes(n))));
            }
        }
        let peak = self.peak();
        let mut lines: Vec<(Kind, String)> = Vec::new();
        if let Some(s) = stopped.clone() {
            lines.push(s);
        }
        if let Some(refused) = self.groups.as_ref().map(Groups::pids_refused).filter(|n| *n > 0) {
            let times = if refused == 1 { "once".to_string() } else { format!("{refused} times") };
            lines.push((Kind::Pids, format!("a new process or thread was refused (fork failed with EAGAIN) {times}")));
        }
        // Reached in a system call, memory fails with ENOMEM and the program decides: told when
        // it then failed.
        let failed = self.waited.is_some_and(|w| !(libc::WIFEXITED(w) && libc::WEXITSTATUS(w) == 0));
        if self.limits.get(Kind::Memory).is_some()
            && stopped.is_none()
            && failed
            && let Some(n) = self.groups.as_ref().map(Groups::memory_reached).filter(|n| *n > 0)
        {
            let times = if n == 1 { "once".to_string() } else { format!("{n} times") };
            lines.push((
                Kind::Memory,
                format!(
                    "the run reached it {times}; what could not be reclaimed failed with ENOMEM, and the command failed"
                ),
            ));
        }
        if let Some(d) = self.disk.as_ref().filter(|d| d.refused > 0) {
            let times = if d.refused == 1 { String::new() } else { format!(" ({} writes refused)", d.refused) };
            lines.push((
                Kind::Disk,
                format!(
                    "a write to {} failed with ENOSPC{times}; the run had added {} to the scratch trees",
                    d.first.as_deref().unwrap_or("a scratch file"),
                    super::bound(Kind::Disk, d.added_then)
                ),
            ));
        }
        if let (Some(_), Some(w)) = (self.limits.get(Kind::File), self.waited)
            && ((libc::WIFSIGNALED(w) && libc::WTERMSIG(w) == libc::SIGXFSZ)
                || (libc::WIFEXITED(w) && libc::WEXITSTATUS(w) == 128 + libc::SIGXFSZ))
        {
            lines.push((
                Kind::File,
                "a write past it failed: the writing process was stopped by SIGXFSZ (a program that ignores \
                 it gets EFBIG instead)"
                    .to_string(),
            ));
        }
        let sandbox = self.declaration();
        for (kind, what) in &lines {
            let value = self.limits.get(*kind).unwrap_or(0);
            let text = format!("{}\n", line(*kind, value, what));
            // SAFETY: writes a buffer to standard error.
            unsafe { libc::write(2, text.as_ptr().cast(), text.len()) };
            let reached = Reached {
                kind: kind.type_name(),
                bound: super::bound(*kind, value),
                what,
                command_pid: self.child,
                peak,
                sandbox: sandbox.clone(),
            };
            let _ = recorder.event("limit", "reached", &reached);
        }
        let status = match (&stopped, self.waited) {
            (Some((kind, _)), _) => Status::Code(kind.status().unwrap_or(125)),
            (None, Some(w)) => Status::Wait(w),
            (None, None) => Status::Code(125),
        };
        let was_stopped = stopped.is_some();
        self.leave(was_stopped);
        status
    }

    /// The line the run told, once it ended.
    fn declaration(&self) -> Option<String> {
        declaration(&self.declared)
    }

    /// Waits for a signal, a write to scratch or `wait`, reaping what ended, forwarding what
    /// the caller sent and answering the writes.
    fn poll(&mut self, wait: Option<Duration>) {
        let disk = self.disk.as_ref().map_or(-1, Counter::fd);
        let mut fds = [
            libc::pollfd { fd: self.signals.as_raw_fd(), events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: disk, events: libc::POLLIN, revents: 0 },
        ];
        let ms = wait.map_or(-1, |w| w.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32);
        // SAFETY: two pollfds (a negative descriptor is skipped), owned here.
        unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
        if fds[1].revents != 0
            && let Some(d) = self.disk.as_mut()
        {
            let groups = self.groups.as_ref();
            d.serve(&|| groups.map_or_else(|| descendants(std::process::id() as i32), Groups::processes));
        }
        if fds[0].revents != 0 {
            let mut info: libc::signalfd_siginfo = unsafe { std::mem::zeroed() };
            let size = std::mem::size_of::<libc::signalfd_siginfo>();
            // SAFETY: reads one struct's bytes into it.
            while unsafe { libc::read(self.signals.as_raw_fd(), (&raw mut info).cast(), size) } == size as isize {
                let signal = info.ssi_signo as i32;
                // A terminal's own signals (SI_KERNEL) reached bash's process group already.
                let from_caller = signal != libc::SIGCHLD && info.ssi_code <= 0;
                if from_caller && self.waited.is_none() {
                    // SAFETY: kill takes numbers.
                    unsafe { libc::kill(self.child, signal) };
                } else if from_caller && [libc::SIGTERM, libc::SIGINT, libc::SIGHUP].contains(&signal) {
                    // bash has ended and the keeper waits for what it left: the caller wants
                    // it stopped now.
                    self.stop();
                }
                let mut fds = [libc::pollfd { fd: self.signals.as_raw_fd(), events: libc::POLLIN, revents: 0 }];
                // SAFETY: as above, without waiting.
                if unsafe { libc::poll(fds.as_mut_ptr(), 1, 0) } <= 0 {
                    break;
                }
            }
        }
        self.reap();
    }

    /// Reaps every child that ended (bash, and orphans the subreaper took).
    fn reap(&mut self) {
        loop {
            let mut status = 0;
            // SAFETY: waitpid writes the status.
            let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
            if pid <= 0 {
                return;
            }
            if pid == self.child {
                self.waited = Some(status);
            }
        }
    }

    fn has_children(&self) -> bool {
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid writes the struct; WNOWAIT leaves the child to reap.
        let r = unsafe {
            libc::waitid(libc::P_ALL, 0, &mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT | libc::WSTOPPED)
        };
        r == 0
    }

    /// The groups' counters: a limit that ends the run, reached.
    fn counters(&mut self) -> Option<(Kind, String)> {
        let g = self.groups.as_ref()?;
        if self.limits.get(Kind::Pids).is_some()
            && let Some(now) = g.pids_now()
        {
            self.pids_peak = self.pids_peak.max(now);
        }
        if let Some(limit) = self.limits.get(Kind::Cpu)
            && let Some(used) = g.cpu_ms()
            && used >= limit
        {
            let n = self.stop();
            let used = super::bound(Kind::Cpu, used);
            return Some((
                Kind::Cpu,
                format!("the run used {used} of CPU time and was stopped: {} (SIGKILL)", processes(n)),
            ));
        }
        if self.limits.get(Kind::Memory).is_some() && g.out_of_memory() {
            let n = self.stop();
            return Some((
                Kind::Memory,
                format!("the run needed more memory and was stopped: {} together (SIGKILL)", processes(n)),
            ));
        }
        None
    }

    /// Stops every process of the run; how many there were.
    fn stop(&mut self) -> usize {
        match &self.groups {
            Some(g) => {
                let n = g.processes().len();
                g.kill();
                n
            }
            None => {
                let mut n = 0;
                for _ in 0..1000 {
                    let tree = descendants(std::process::id() as i32);
                    if tree.is_empty() {
                        break;
                    }
                    n = n.max(tree.len());
                    for pid in tree {
                        // SAFETY: kill takes numbers.
                        unsafe { libc::kill(pid, libc::SIGKILL) };
                    }
                    std::thread::sleep(Duration::from_millis(1));
                    self.reap();
                }
                n
            }
        }
    }

    fn peak(&self) -> Peak {
        let g = self.groups.as_ref();
        Peak {
            memory_bytes: g.and_then(Groups::memory_peak),
            cpu_ms: g.and_then(Groups::cpu_ms),
            pids: (self.pids_peak > 0).then_some(self.pids_peak),
            disk_bytes: self.disk.as_ref().map(|d| d.peak),
            wall_ms: self.start.elapsed().as_millis() as u64,
        }
    }

    /// bash is gone: the groups go when the last process of the run does. Processes the run
    /// left running (a server started in the background) stay held by its limits: the guard
    /// keeps them until they end, then removes the groups.
    fn leave(mut self, stopped: bool) {
        let Some(mut groups) = self.groups.take() else { return };
        // Stopped processes take a moment to go: the groups are removed here when they do.
        for _ in 0..if stopped { 200 } else { 0 } {
            if !groups.populated() {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        if !groups.populated() {
            groups.remove();
        }
    }
}

/// `1 process`, `3 processes`.
fn processes(n: usize) -> String {
    if n == 1 { "1 process".to_string() } else { format!("{n} processes") }
}

/// Every process below `root`, from the parents `/proc` shows.
fn descendants(root: i32) -> Vec<i32> {
    let mut parents: Vec<(i32, i32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else { continue };
        if let Some(ppid) = rest.split_whitespace().nth(1).and_then(|p| p.parse().ok()) {
            parents.push((pid, ppid));
        }
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(parents.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    found.remove(0);
    found
}

/// Ends the keeper with `status`: a limit's code, bash's exit code, or bash's signal, raised
/// again on the keeper itself so that the caller sees what it would have seen of bash.
fn finish(status: Status) -> ! {
    let w = match status {
        Status::Code(code) => std::process::exit(code),
        Status::Wait(w) => w,
    };
    if libc::WIFEXITED(w) {
        std::process::exit(libc::WEXITSTATUS(w));
    }
    let signal = if libc::WIFSIGNALED(w) { libc::WTERMSIG(w) } else { libc::SIGKILL };
    // SAFETY: the default action, no core of the keeper, the signal let through, raised.
    unsafe {
        let none = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        libc::setrlimit(libc::RLIMIT_CORE, &none);
        libc::signal(signal, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::kill(libc::getpid(), signal);
    }
    std::process::exit(128 + signal)
}
