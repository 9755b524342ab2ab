//! Starting a process that runs outside the sandbox: forked twice before anything is locked,
//! so that it is in neither the Landlock domain nor the namespaces and bash never sees it among
//! its children, then detached from everything of the caller's but what it is given to keep.

use std::os::fd::RawFd;

/// Starts `run` in a process of its own that is not this one's child (forked twice: the middle
/// process exits at once, so bash never sees it among its children), and returns once the middle
/// process has. `what` names it in errors. In this process `run` is dropped unrun, and whatever
/// it owns (the far end of a channel) with it. The process must be single-threaded.
///
/// The process is named `name` (what `ps` and `/proc/PID/comm` show), so that a user can tell
/// it from the command.
pub(crate) fn spawn(what: &str, name: &std::ffi::CStr, run: impl FnOnce() -> i32) -> Result<(), String> {
    // SAFETY: the process is single-threaded, so the child may run any code; the middle
    // process only forks again and exits.
    match unsafe { nix::unistd::fork() }.map_err(|e| format!("cannot start {what}: {e}"))? {
        nix::unistd::ForkResult::Parent { child } => {
            drop(run);
            match nix::sys::wait::waitpid(child, None) {
                // A caller that ignores SIGCHLD has its children reaped for it.
                Ok(nix::sys::wait::WaitStatus::Exited(_, 0)) | Err(nix::errno::Errno::ECHILD) => Ok(()),
                other => Err(format!("cannot start {what}: {other:?}")),
            }
        }
        nix::unistd::ForkResult::Child => {
            // SAFETY: as above; the grandchild is reparented when the middle process exits.
            let code = match unsafe { nix::unistd::fork() } {
                Ok(nix::unistd::ForkResult::Child) => {
                    // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes.
                    unsafe { libc::prctl(libc::PR_SET_NAME, name.as_ptr(), 0, 0, 0) };
                    retitle(name);
                    run()
                }
                Ok(nix::unistd::ForkResult::Parent { .. }) => 0,
                Err(_) => 1,
            };
            // SAFETY: _exit ends the process without running this process's exit handlers,
            // which belong to the command's process.
            unsafe { libc::_exit(code) }
        }
    }
}

/// Writes `name` over this process's command line (the memory `/proc/self/cmdline` shows), so
/// that a process forked to run outside the sandbox does not carry the command it was forked
/// from: `pkill -f PATTERN` in the command would find it and fail on it.
fn retitle(name: &std::ffi::CStr) {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return };
    let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else { return };
    // arg_start and arg_end are the 48th and 49th fields, the 46th and 47th after the name.
    let fields: Vec<&str> = after.split_whitespace().collect();
    let (Some(start), Some(end)) =
        (fields.get(45).and_then(|f| f.parse::<usize>().ok()), fields.get(46).and_then(|f| f.parse::<usize>().ok()))
    else {
        return;
    };
    if end <= start || end - start > 1 << 20 {
        return;
    }
    let bytes = name.to_bytes();
    let n = bytes.len().min(end - start - 1);
    // SAFETY: [start, end) is this process's own argument area (its stack, writable), as the
    // kernel reports it; the name and the zeros after it stay inside it.
    unsafe {
        std::ptr::write_bytes(start as *mut u8, 0, end - start);
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), start as *mut u8, n);
    }
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
