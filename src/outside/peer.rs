//! Who is at the other end: the checks a process outside the sandbox makes before it believes
//! a peer. What it goes by comes from the kernel (the credentials a message carries, or the
//! peer's pidfd taken at connect), never from what the peer says: the program it runs, whether
//! anyone traces it, and how many seccomp filters it carries (a process can add filters, never
//! drop one, so fewer filters than a sandboxed process has means outside its sandbox).

use std::os::unix::fs::MetadataExt;

/// The device and inode of a program file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Executable(u64, u64);

impl Executable {
    /// This process's own executable.
    pub fn own() -> std::io::Result<Executable> {
        Executable::of("self")
    }

    /// The executable of process `pid` (`"self"` for this one).
    pub fn of(pid: &str) -> std::io::Result<Executable> {
        let m = std::fs::metadata(format!("/proc/{pid}/exe"))?;
        Ok(Executable(m.dev(), m.ino()))
    }
}

/// What `/proc/PID/status` says of a process, of what the checks need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status {
    /// The pid of the process tracing it (0: none).
    pub tracer: i32,
    /// How many seccomp filters it carries; `None` when the kernel does not count them (before
    /// Linux 5.9) or says something else.
    pub filters: Option<u32>,
}

impl Status {
    /// The status of process `pid` (`"self"` for this one); `None` when it cannot be read.
    pub fn of(pid: &str) -> Option<Status> {
        Status::parse(&std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?)
    }

    fn parse(text: &str) -> Option<Status> {
        let field = |name: &str| text.lines().find_map(|l| l.strip_prefix(name)).map(str::trim);
        let tracer = field("TracerPid:")?.parse().ok()?;
        let filters = match field("Seccomp:") {
            Some("0") => Some(0),
            Some("2") => field("Seccomp_filters:").and_then(|n| n.parse().ok()),
            _ => None,
        };
        Some(Status { tracer, filters })
    }
}

/// Why process `pid` is not a sandbox-bash whose word counts, or `None` when it is: it runs the
/// executable `own`, no one traces it, and (a dynamically linked build) it was not started with
/// a library the loader runs before its own code.
pub fn not_ours(pid: i32, own: Executable) -> Option<String> {
    let exe = format!("/proc/{pid}/exe");
    let shown = std::fs::read_link(&exe).map(|p| p.display().to_string()).unwrap_or_else(|_| "?".into());
    match Executable::of(&pid.to_string()) {
        Ok(e) if e == own => {}
        Ok(_) => return Some(format!("sent by {shown}, which is not sandbox-bash")),
        Err(e) => return Some(format!("sent by a process whose program cannot be seen ({e})")),
    }
    if !cfg!(target_feature = "crt-static") {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        for var in environ.split(|&b| b == 0) {
            if var.starts_with(b"LD_PRELOAD=") || var.starts_with(b"LD_AUDIT=") {
                let name = String::from_utf8_lossy(var.split(|&b| b == b'=').next().unwrap_or_default()).into_owned();
                return Some(format!("sent by a sandbox-bash started with {name}, whose code may not be its own"));
            }
        }
    }
    match Status::of(&pid.to_string()) {
        Some(Status { tracer: 0, .. }) => None,
        Some(Status { tracer, .. }) => Some(format!("sent by a sandbox-bash that process {tracer} traces")),
        None => Some("sent by a process whose state cannot be read".into()),
    }
}

/// Whether process `pid` is outside this process's sandbox: it carries fewer seccomp filters.
/// `Err` when the counts cannot be read.
pub fn outside_this_sandbox(pid: i32) -> Result<bool, String> {
    let own = Status::of("self").and_then(|s| s.filters);
    let theirs = Status::of(&pid.to_string()).and_then(|s| s.filters);
    match (own, theirs) {
        (Some(own), Some(theirs)) => Ok(theirs < own),
        _ => Err(format!("process {pid} cannot be checked")),
    }
}

/// Whether process `pid` of user `uid` stands where this process stands: the same user, this
/// same executable, no tracer, and exactly the seccomp filters this process has (an outermost
/// sandbox-bash that has not locked itself yet; a container's own filter is everyone's).
pub fn alike(pid: i32, uid: u32) -> bool {
    let same_exe = match (Executable::of(&pid.to_string()), Executable::own()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    let (theirs, own) = (Status::of(&pid.to_string()), Status::of("self"));
    uid == crate::exec::uid()
        && same_exe
        && theirs.is_some_and(|t| t.tracer == 0 && t.filters.is_some() && t.filters == own.and_then(|o| o.filters))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_reads_the_tracer_and_counts_filters_only_where_the_kernel_counts_them() {
        let text = "Name:\tx\nTracerPid:\t0\nSeccomp:\t2\nSeccomp_filters:\t3\n";
        assert_eq!(Status::parse(text), Some(Status { tracer: 0, filters: Some(3) }));
        let none = "TracerPid:\t17\nSeccomp:\t0\n";
        assert_eq!(Status::parse(none), Some(Status { tracer: 17, filters: Some(0) }));
        // Filters without their count (before Linux 5.9) cannot be compared.
        assert_eq!(Status::parse("TracerPid:\t0\nSeccomp:\t2\n"), Some(Status { tracer: 0, filters: None }));
        assert_eq!(Status::parse("Seccomp:\t0\n"), None);
    }

    #[test]
    fn this_process_is_alike_itself_and_not_outside_its_own_sandbox() {
        let pid = std::process::id() as i32;
        assert!(alike(pid, crate::exec::uid()));
        assert!(!alike(pid, crate::exec::uid() + 1));
        assert_eq!(outside_this_sandbox(pid), Ok(false));
        assert_eq!(not_ours(pid, Executable::own().unwrap()), None);
    }
}
