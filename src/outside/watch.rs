//! What the run is refused, seen from outside and told to the command.
//!
//! The kernel tells no one but the program when Landlock, the read-only view or its signal
//! scoping refuses a call (Landlock logs only to the kernel's audit subsystem, which may be
//! off). So the calls the filter hands the supervisor (see [`super::signals`]) are looked at
//! before the kernel judges them: every signal, and every call that changes a path. The
//! supervisor reads what the call names (the path, through the process's own root and working
//! directory), asks the rules in force whether they grant it, lets the call go on unchanged,
//! and, when they do not, writes a `sandbox-bash: denied:` line on the command's stderr (before
//! the program's own error) and an audit record. The kernel's answer is the kernel's, with one
//! exception: a persistence point that did not exist at the start cannot be covered by a
//! mount, so a call that would make one, where the kernel would let it, is answered EACCES
//! here (see [`Rules::absent`]). At the end of the command's process, one line sums up what
//! was refused.
//!
//! What is read is read once, from a process blocked in the call, and the notification is
//! checked to be still pending afterwards; a wrong reading can only make a line wrong, or a
//! call refused, never a call allowed that the kernel refuses. A process that changes the path
//! in its memory between this reading and the kernel's (a second thread) can get a point made:
//! this refusal holds programs that do not race it (tools, scripts, Python), not one built to.

use std::collections::HashSet;
use std::os::fd::{AsRawFd, OwnedFd};

use serde::{Deserialize, Serialize};

use super::told::Stderr;
use crate::mode::{Mode, Perm};
use crate::sandbox::policy::Rights;
use crate::sandbox::seccomp::{Flags, PathCall};
use crate::scope::Layout;

/// What the watch needs of the rules in force, handed over once they hold.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rules {
    /// The mode the rules enforce.
    pub mode: u16,
    /// The Landlock path rules: each path, its rights, and whether it grants that file only.
    pub grants: Vec<(String, u8, bool)>,
    /// A read-only view of the tree holds beside Landlock (the namespace layer).
    pub view: bool,
    /// The view's files covered by a stand-in that cannot be opened.
    pub masks: Vec<String>,
    /// The view's trees bound writable (`true`) or read-only (`false`), and whether without
    /// execute; what lies in none of them is read-only when `read_only_base`.
    pub points: Vec<(String, bool, bool)>,
    pub read_only_base: bool,
    /// Landlock keeps the run's signals to its own processes.
    pub scoped: bool,
    /// How many seccomp filters the locked process carries (every process of the run carries
    /// at least these).
    pub filters: Option<u32>,
    /// Persistence points that did not exist at the start (the view's `absent`): a call that
    /// would make one, or put a directory or link in place above one, is refused.
    #[serde(default)]
    pub absent: Vec<String>,
    /// Hooks directories of repositories that did not exist at the start (the view's
    /// `new_hooks`): the sweep renames aside what is in them but git's samples.
    #[serde(default)]
    pub new_hooks: Vec<String>,
}

impl Rules {
    /// The rights the rules grant on `path`, as [`crate::sandbox::policy::Policy::granted`].
    fn granted(&self, path: &str) -> Rights {
        crate::sandbox::policy::granted_by(self.grants.iter().map(|(p, r, f)| (p.as_str(), Rights(*r), *f)), path)
    }

    /// What refuses `change` of the file `found` (at `path`), if anything does: a mask, the view
    /// (a read-only tree, a tree without execute), or Landlock.
    fn refuses(&self, path: &str, change: Change, found: &Found) -> Option<&'static str> {
        if self.view && self.masks.iter().any(|m| m == path) {
            return Some("the credential mask");
        }
        let landlock = !self.grant(path, change, found);
        let point = self.points.iter().filter(|(p, ..)| crate::scope::is_within(path, p)).max_by_key(|(p, ..)| p.len());
        match change.needs(found.exists) {
            Perm::Write if self.view => {
                // A device is written whatever its mount says.
                let read_only = !found.device && point.map_or(self.read_only_base, |(_, writable, _)| !*writable);
                match (read_only, landlock) {
                    (true, true) => Some("the read-only view and Landlock"),
                    (true, false) => Some("the read-only view"),
                    (false, true) => Some("Landlock"),
                    (false, false) => None,
                }
            }
            Perm::Execute if self.view && point.is_some_and(|(.., noexec)| *noexec) => {
                Some(if landlock { "the view (no execute there) and Landlock" } else { "the view (no execute there)" })
            }
            _ => landlock.then_some("Landlock"),
        }
    }

    /// Whether the rules grant what `change` needs of `path`: reading and writing both for an
    /// open that does both; a directory is read (listed) where a rule on it or above it lists
    /// or reads, as Landlock's rights reach everything below their path.
    fn grant(&self, path: &str, change: Change, found: &Found) -> bool {
        let granted = self.granted(path);
        match change {
            Change::Open(f) if change.needs(found.exists) == Perm::Write => {
                let both = f & libc::O_ACCMODE as u64 == libc::O_RDWR as u64;
                granted.contains(if both { Rights::RW } else { Rights::WRITE })
            }
            Change::Open(_) if found.dir => self.grants.iter().any(|(p, r, file)| {
                (p == path || (!file && crate::scope::is_within(path, p)))
                    && Rights(*r).intersect(Rights::READ.union(Rights::LIST)) != Rights::NONE
            }),
            Change::Open(_) => granted.contains(Rights::READ),
            Change::Exec => granted.contains(Rights::EXECUTE),
            _ => granted.contains(Rights::WRITE),
        }
    }
}

/// The most refusals told on stderr one by one; further ones are only counted.
const MAX_LINES: usize = 32;

/// The most refusals remembered so that each is told once.
const MAX_SEEN: usize = 1024;

/// The most refusals named in the summary.
const SUMMARY_NAMES: usize = 8;

/// The most audit records of refusals one run writes.
const MAX_RECORDS: usize = 128;

/// The watch: where it tells, and what it has told.
pub struct Watch {
    layout: Layout,
    ceiling: Option<Mode>,
    /// The command's process, as the records name it.
    command_pid: i32,
    /// How many seccomp filters the command's process carried once locked: every process of
    /// the run carries at least these.
    run_filters: Option<u32>,
    stderr: Stderr,
    /// The channel to the supervisor's main thread, which writes the records (when a log is
    /// kept).
    records: Option<OwnedFd>,
    rules: Option<Rules>,
    /// What was told, once each (the call's kind and its target).
    seen: HashSet<String>,
    /// sandbox-bash's own program: a nested level's own look around (its planning) is not
    /// the command's, and is not told.
    own: Option<super::peer::Executable>,
    /// The first refusals, for the summary, with what would allow each.
    first: Vec<(String, String)>,
    count: usize,
    /// The tenths of a second (since the epoch) in which a process of the run made a call
    /// that makes a name: a point the sweep finds is the run's only when it was born in one.
    making: HashSet<u64>,
}

impl Watch {
    /// The administrator's ceiling, above which no request is granted.
    pub fn with_ceiling(mut self, ceiling: Option<Mode>) -> Watch {
        self.ceiling = ceiling;
        self
    }

    pub fn new(layout: Layout, command_pid: i32, stderr: Option<OwnedFd>, records: Option<OwnedFd>) -> Watch {
        Watch {
            layout,
            ceiling: None,
            command_pid,
            run_filters: None,
            stderr: Stderr::new(stderr),
            records,
            rules: None,
            seen: HashSet::new(),
            making: HashSet::new(),
            own: super::peer::Executable::own().ok(),
            first: Vec::new(),
            count: 0,
        }
    }

    /// The descriptors the supervisor's process keeps for the watch.
    pub fn fds(&self) -> Vec<std::os::fd::RawFd> {
        self.stderr.raw().into_iter().chain(self.records.as_ref().map(AsRawFd::as_raw_fd)).collect()
    }

    /// The rules in force, once they hold.
    pub fn set_rules(&mut self, rules: Rules) {
        self.run_filters = rules.filters;
        self.rules = Some(rules);
    }

    /// Looks at a call that changes a path, from the process `note` names, still blocked in it.
    ///
    /// Returns the error to answer the call with, when it would make a persistence point that
    /// did not exist at the start (see [`Rules::absent`]); the call goes on to the kernel
    /// otherwise.
    pub fn path_call(&mut self, note: &libc::seccomp_notif, call: &PathCall, listener: &OwnedFd) -> Option<i32> {
        let Some(rules) = &self.rules else { return None };
        let pid = note.pid as i32;
        let arg = |i: u8| note.data.args[i as usize];
        let flags = match call.flags {
            Flags::None | Flags::Exec => None,
            Flags::Arg(a) => Some(arg(a)),
            // openat2's `struct open_how` starts with its flags.
            Flags::How(a) => Some(read_u64(pid, arg(a)).unwrap_or(0)),
        };
        // Each path the call names, made absolute: an absolute one as it is (the kernel ignores
        // the directory then, so it is not asked for: most calls name one), a relative one
        // joined to the directory it starts from (the working directory, or the descriptor).
        // Whether the call's `i`th path is a name it makes (not a rename's source, a removal,
        // a truncation, a run, or an open that creates nothing).
        // `renameat2` with RENAME_EXCHANGE gives each path the other's file: both are made.
        let exchange = call.name == "renameat2" && arg(4) & libc::RENAME_EXCHANGE as u64 != 0;
        let creates = |i: usize| match call.name {
            "rename" | "renameat" | "renameat2" => i == 1 || exchange,
            "unlink" | "unlinkat" | "rmdir" | "truncate" | "execve" | "execveat" => false,
            "open" | "openat" | "openat2" => flags.is_some_and(|f| f & libc::O_CREAT as u64 != 0),
            _ => true,
        };
        if (0..call.paths.len()).any(creates) {
            self.making.insert(tenths(std::time::SystemTime::now()));
        }
        let mut targets = Vec::new();
        let mut unfollowed: Vec<String> = Vec::new();
        for (i, &(dirfd, path_arg)) in call.paths.iter().enumerate() {
            // A path the watch cannot follow (not UTF-8, from a directory that is gone, through
            // `/proc/self/cwd` or a descriptor's magic link) is refused when the call would make
            // a name there that a persistence point not there yet bears.
            let Some(path) = read_path(pid, arg(path_arg)) else {
                let bytes = read_path_bytes(pid, arg(path_arg)).unwrap_or_default();
                if creates(i) && self.names_point(&bytes) {
                    unfollowed.push(String::from_utf8_lossy(&bytes).into_owned());
                }
                continue;
            };
            if path.starts_with('/') {
                targets.push((i, path));
                continue;
            }
            let base = match dirfd.map(|a| arg(a) as i32) {
                None | Some(libc::AT_FDCWD) => std::fs::read_link(format!("/proc/{pid}/cwd")),
                Some(fd) => std::fs::read_link(format!("/proc/{pid}/fd/{fd}")),
            };
            let base = base.ok().and_then(|b| b.to_str().map(str::to_string));
            let Some(base) = base.filter(|b| b.starts_with('/') && !b.ends_with(" (deleted)")) else {
                if creates(i) && self.names_point(path.as_bytes()) {
                    unfollowed.push(path);
                }
                continue;
            };
            targets.push((i, format!("{base}/{path}")));
        }
        // An O_PATH open reads nothing, and Landlock does not look at it.
        if flags.is_some_and(|f| f & libc::O_PATH as u64 != 0) {
            return None;
        }
        let mut root: Option<OwnedFd> = None;
        let creat = (libc::O_CREAT | libc::O_WRONLY | libc::O_TRUNC) as u64;
        let mut found = Vec::new();
        let mut mounts = Vec::new();
        let mut refused = false;
        for (i, joined) in targets {
            let change = match (call.name, flags) {
                (_, _) if call.flags == Flags::Exec => Change::Exec,
                (_, Some(f)) => Change::Open(f),
                ("creat", None) => Change::Open(creat),
                ("mkdir" | "mkdirat" | "mknod" | "mknodat" | "symlink" | "symlinkat" | "link" | "linkat", _) => {
                    Change::New
                }
                ("rename" | "renameat" | "renameat2", _) if i == 1 || exchange => Change::Either,
                ("truncate", _) => Change::Existing { follow: true },
                // The kernel asks a mount whether it is writable before it looks for the name.
                _ if rules.view => Change::Either,
                _ => Change::Existing { follow: false },
            };
            // A read or run of a path the rules grant, in a tree the run cannot write (so no
            // link on the way is the command's): not looked at further. Most calls are these.
            let lexical = crate::scope::normalize("/", &joined);
            let guess = Found {
                exists: true,
                dir: flags.is_some_and(|f| f & libc::O_DIRECTORY as u64 != 0),
                device: false,
                mount: None,
            };
            if change.needs(true) != Perm::Write
                && change.needs(false) != Perm::Write
                && !rules.granted(&lexical).contains(Rights::WRITE)
                && rules.refuses(&lexical, change, &guess).is_none()
            {
                continue;
            }
            if root.is_none() {
                // What was read was the blocked call's: the process is still in it. (A call
                // let go above needs no such proof: a wrong reading there tells nothing.)
                if !still_pending(listener, note.id) {
                    return None;
                }
                root = open_path(None, &format!("/proc/{pid}/root"));
            }
            let Some(root) = &root else { return None };
            let (resolved, target) = match resolve(root, &joined, change.follows(), call.paths.len() == 2) {
                Ok(found) => found,
                // The directory it is in does not exist: the call fails for that (ENOENT).
                Err(Unresolved::Missing) => continue,
                Err(Unresolved::Unfollowable) => {
                    if creates(i) && self.names_point(joined.as_bytes()) {
                        unfollowed.push(joined);
                    }
                    continue;
                }
            };
            mounts.push(target.mount);
            let making = creates(i);
            // A hook in a repository's hooks directory that the view does not hold (one made
            // in the run: `git init`, then a hook written): git's samples only.
            if making
                && self.makes_hook(call.name, &resolved, change, &target)
                && rules.refuses(&resolved, change, &target).is_none()
            {
                let rule = "the watch (a hook in a repository made during the run)";
                let (missing, remedy) =
                    self.missing(&resolved, Perm::Write, Change::New, &target, rule, Mode(rules.mode));
                let (missing, remedy) = if remedy == "nothing in the mode" {
                    let bit = Mode::bit(crate::mode::Scope::System, Perm::Write);
                    (format!("missing system write ({bit})"), format!("mode {}", Mode(rules.mode).union(bit)))
                } else {
                    (missing, remedy)
                };
                refused = true;
                found.push((resolved, missing, remedy, rule, change, target));
                continue;
            }
            // Where the kernel holds the point already (a home kept read-only), its answer stands.
            if let Some(point) = making
                .then(|| makes_absent(&rules.absent, call.name, change, &resolved, &target))
                .flatten()
                .filter(|_| rules.refuses(&resolved, change, &target).is_none())
            {
                let rule = "the watch (a persistence point that did not exist at the start)";
                // What would allow it is what would allow making the point itself.
                let point = point.clone();
                let (missing, remedy) = self.missing(&point, Perm::Write, Change::New, &target, rule, Mode(rules.mode));
                refused = true;
                found.push((resolved, missing, remedy, rule, change, target));
                continue;
            }
            if !change.refusable(target.exists) || unseen(&resolved) || fails_first(&joined, change, &target) {
                continue;
            }
            let perm = change.needs(target.exists);
            let Some(rule) = rules.refuses(&resolved, change, &target) else { continue };
            let (missing, remedy) = self.missing(&resolved, perm, change, &target, rule, Mode(rules.mode));
            found.push((resolved, missing, remedy, rule, change, target));
        }
        // A rename from one mount to another fails for that first (EXDEV).
        for shown in unfollowed {
            refused = true;
            self.tell_unfollowed(pid, call.name, shown);
        }
        let answer = refused.then_some(libc::EACCES);
        if mounts.len() == 2 && mounts[0].is_some() && mounts[1].is_some() && mounts[0] != mounts[1] {
            return answer;
        }
        // A nested sandbox-bash looking around to plan its rules is not the command.
        if !found.is_empty() && self.own.is_some() && super::peer::Executable::of(&pid.to_string()).ok() == self.own {
            return answer;
        }
        for (target, missing, remedy, rule, change, found) in found {
            let what = match (call.name, change) {
                (_, Change::Exec) => "runs",
                (_, Change::Open(_)) if change.needs(found.exists) == Perm::Read => {
                    if found.dir {
                        "lists"
                    } else {
                        "opens for reading"
                    }
                }
                ("open" | "openat" | "openat2" | "creat", _) => "opens for writing",
                ("mkdir" | "mkdirat", _) => "makes the directory",
                ("mknod" | "mknodat", _) => "makes the node",
                ("unlink" | "unlinkat" | "rmdir", _) => "removes",
                ("rename" | "renameat" | "renameat2", _) => "renames",
                ("link" | "linkat", _) => "links",
                ("symlink" | "symlinkat", _) => "makes the link",
                _ => "changes",
            };
            if !self.first_time(format!("{what} {target}")) {
                continue;
            }
            let program = comm(pid);
            let allow = match remedy.as_str() {
                "nothing in the mode" => "no bit of the mode allows it (see --sandbox-info)".to_string(),
                mode => format!("{mode} would allow it"),
            };
            let line = format!(
                "sandbox-bash: denied: {missing}: {program} (pid {pid}) {what} {target} ({}); held by {rule}; {allow}",
                call.name
            );
            self.tell(&line, target.clone(), remedy.clone());
            self.record(&Record {
                call: call.name,
                process: pid,
                program: &program,
                target: &target,
                missing: &missing,
                held_by: rule,
                remedy: &remedy,
            });
        }
        answer
    }

    /// What the refusal of `perm` on `path` misses, and the narrowest mode that would allow it:
    /// the path's scope bit; for an entry made or removed right in a directory the view keeps
    /// read-only below the whole system (the home, `~/.config`, an agent's directory at the top
    /// of the workspace), the system's three bits; none when no bit of the mode lifts the rule.
    fn missing(
        &self,
        path: &str,
        perm: Perm,
        change: Change,
        found: &Found,
        rule: &str,
        allowed: Mode,
    ) -> (String, String) {
        use crate::mode::Scope;
        if self.layout.private.iter().any(|p| crate::scope::is_within(path, p)) {
            return ("sandbox-bash's own state, which no command reaches".into(), "nothing in the mode".into());
        }
        let word = match perm {
            Perm::Read => "read",
            Perm::Write => "write",
            Perm::Execute => "execute",
        };
        let entry = perm == Perm::Write
            && rule.contains("view")
            && !matches!(change, Change::Existing { follow: true })
            && !(matches!(change, Change::Open(_)) && found.exists);
        let parent = path.rsplit_once('/').map_or("/", |(p, _)| if p.is_empty() { "/" } else { p });
        let home = self.layout.home.as_deref().filter(|h| *h != "/");
        let pinned = (home.is_some_and(|h| crate::scope::is_within(parent, h)) && self.layout.holds(parent, true))
            || self.layout.is_workspace_holder(parent);
        let class = self.layout.classify(path, perm == Perm::Write);
        if entry && pinned {
            // The whole system, and the write of the tree the entry is in.
            let mut needed = Mode::scope(Scope::System);
            if let Some(scope) = class.scope() {
                needed = needed.union(Mode::bit(scope, Perm::Write));
            }
            let extra = needed.missing_from(allowed);
            if extra != Mode(0) {
                return (
                    format!("missing {} ({extra}) for a new or removed entry here", bits_in_words(extra)),
                    format!("mode {}", allowed.union(extra)),
                );
            }
        }
        match class.scope() {
            Some(scope) if !allowed.has(scope, perm) => {
                let bit = Mode::bit(scope, perm);
                (format!("missing {} {word} ({bit})", scope.name()), format!("mode {}", allowed.union(bit)))
            }
            _ => (format!("{} is kept from this {word}", class.noun()), "nothing in the mode".to_string()),
        }
    }

    /// Looks at a signal the kernel is about to judge: `sender` sends `sig` to the process
    /// `target` (with `group`, to the process group it leads). Told when Landlock's scoping will refuse it: the target is outside the run
    /// (it carries fewer seccomp filters than the sender, so it is in no domain the sender's
    /// encloses).
    pub fn signal(&mut self, sender: i32, target: i32, sig: i32, group: bool) {
        let Some(rules) = &self.rules else { return };
        if !rules.scoped || target <= 0 {
            return;
        }
        let count = |pid: i32| super::peer::Status::of(&pid.to_string()).and_then(|s| s.filters);
        // Outside the run: fewer filters than the run's own command had once it was locked
        // (a process of the run that added a filter of its own still counts the run's).
        let (Some(run), Some(theirs)) = (self.run_filters, count(target)) else { return };
        if theirs >= run {
            return;
        }
        let name = signal_name(sig);
        let key = format!("signal {name} {target}");
        if !self.first_time(key) {
            return;
        }
        let (program, theirs) = (comm(sender), comm(target));
        let remedy = "nothing in the mode (a call can signal what calls of its own agent session started)";
        let whom = if group { "process group" } else { "process" };
        let line = format!(
            "sandbox-bash: denied: {program} (pid {sender}) sends signal {name} to {whom} {target} ({theirs}), which \
             this run did not start; held by Landlock's signal scoping; no mode allows it (a call can signal what \
             calls of its own agent session started)"
        );
        let what = format!("signal {name} to {whom} {target} ({theirs})");
        self.tell(&line, what.clone(), remedy.to_string());
        self.record(&Record {
            call: "signal",
            process: sender,
            program: &program,
            target: &what,
            missing: "",
            held_by: "Landlock's signal scoping",
            remedy,
        });
    }

    /// Whether `key` is told for the first time. Past [`MAX_SEEN`] keys every refusal counts
    /// as new (the lines stopped long before): a run cannot make the supervisor keep more.
    fn first_time(&mut self, key: String) -> bool {
        if self.seen.len() >= MAX_SEEN {
            return !self.seen.contains(&key);
        }
        self.seen.insert(key)
    }

    fn tell(&mut self, line: &str, what: String, remedy: String) {
        self.count += 1;
        if self.first.len() < SUMMARY_NAMES {
            self.first.push((what, remedy));
        }
        if self.count <= MAX_LINES {
            self.stderr.line(line);
        }
    }

    fn record(&mut self, r: &Record<'_>) {
        let Some(channel) = &self.records else { return };
        if self.count > MAX_RECORDS {
            return;
        }
        let event = if r.call == "signal" { "signal" } else { "file" };
        if let Ok(bytes) = crate::audit::refusal_record(self.command_pid, crate::exec::uid(), event, r) {
            let message = super::protocol::Request::Record(bytes).encode();
            let _ = nix::sys::socket::send(channel.as_raw_fd(), &message, nix::sys::socket::MsgFlags::empty());
        }
    }

    /// The command's process ended: one line sums up what was refused, then standard error
    /// is let go.
    pub fn end(&mut self) {
        self.sweep();
        if self.count > 0 {
            let names: Vec<&str> = self.first.iter().map(|(w, _)| w.as_str()).collect();
            let more = match self.count - self.first.len() {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            let mut remedies: Vec<&str> = self.first.iter().map(|(_, r)| r.as_str()).collect();
            remedies.sort_unstable();
            remedies.dedup();
            self.stderr.line(&format!(
                "sandbox-bash: the rules refused {} call{} in this run: {}{more}; to allow: {}",
                self.count,
                if self.count == 1 { "" } else { "s" },
                names.join(", "),
                remedies.join("; ")
            ));
            // One mode that allows them all, when a person could grant it.
            let modes: Vec<Mode> =
                remedies.iter().filter_map(|r| r.strip_prefix("mode ")).filter_map(|m| Mode::parse(m).ok()).collect();
            let all = modes.iter().fold(Mode(0), |a, m| a.union(*m));
            if modes.len() == remedies.len() && all != Mode(0) && self.ceiling.is_none_or(|c| c.covers(all)) {
                let hint = crate::request::Hint { mode: all, hosts: Vec::new() };
                self.stderr.line(&crate::request::hint_line(&hint));
                if let Some(dir) = self.layout.private.first() {
                    crate::approval::observe(std::path::Path::new(dir), &self.layout.workspace, Some(all), &[]);
                }
            }
        }
        self.stderr.release();
    }
}

impl Watch {
    /// Whether the entry `name` of `dir` was born while a process of the run made a name (in
    /// the second before): yes too when the file system keeps no birth time.
    fn born_in_run(&self, dir: &std::fs::File, name: &std::ffi::CStr) -> bool {
        // SAFETY: an all-zero statx is valid to be overwritten.
        let mut st: libc::statx = unsafe { std::mem::zeroed() };
        let fd = std::os::fd::AsRawFd::as_raw_fd(dir);
        // SAFETY: a valid directory descriptor, C string and out-pointer.
        let rc = unsafe { libc::statx(fd, name.as_ptr(), libc::AT_SYMLINK_NOFOLLOW, libc::STATX_BTIME, &mut st) };
        if rc != 0 || st.stx_mask & libc::STATX_BTIME == 0 {
            return true;
        }
        let born = st.stx_btime.tv_sec.max(0) as u64 * 10 + u64::from(st.stx_btime.tv_nsec) / 100_000_000;
        // Up to a second before its birth: a call the watch let go may wait for a CPU that long
        // before the kernel makes the name.
        (born.saturating_sub(10)..=born + 1).any(|t| self.making.contains(&t))
    }

    /// Whether making `path` puts a hook in a repository's hooks directory in the workspace,
    /// at a mode that does not write the system: a name in the `hooks` of a git directory (a
    /// `.git`, one in `.git/modules` or `.git/worktrees`, one a `.git` file names, a bare one)
    /// that is not one of git's samples, or a whole `hooks` renamed or linked into place.
    fn makes_hook(&self, call: &str, path: &str, change: Change, found: &Found) -> bool {
        let Some(rules) = &self.rules else { return false };
        if !change.makes(found) || Mode(rules.mode).has(crate::mode::Scope::System, Perm::Write) {
            return false;
        }
        let workspace = self.layout.workspace.as_str();
        if workspace == "/" || !crate::scope::is_within(path, workspace) {
            return false;
        }
        // A git directory: `.git`, one a `.git` file names (`--separate-git-dir`), a bare one.
        let git_dir = |dir: &str| {
            dir.ends_with("/.git")
                || dir.contains("/.git/")
                || (std::path::Path::new(dir).join("HEAD").is_file()
                    && std::path::Path::new(dir).join("objects").is_dir())
        };
        let Some((dir, name)) = path.rsplit_once('/') else { return false };
        // A hooks directory put in place whole (renamed, linked).
        let whole = matches!(call, "rename" | "renameat" | "renameat2" | "symlink" | "symlinkat" | "link" | "linkat");
        if name == "hooks" && whole && git_dir(dir) {
            return true;
        }
        let Some((above, last)) = dir.rsplit_once('/') else { return false };
        last == "hooks" && git_dir(above) && !name.ends_with(".sample")
    }

    /// The persistence point not there at the start whose name, or the name of a directory on
    /// the way to it below the workspace (`hooks`, `.mcp.json`, `.git`, `.claude`), `path` ends
    /// in: `path` is one the watch cannot follow (not UTF-8, from a directory that is gone,
    /// through `/proc/self/cwd` or a descriptor's magic link), so a call that makes it is
    /// refused, since where it lands is not known.
    fn names_point(&self, path: &[u8]) -> bool {
        self.point_named(path).is_some()
    }

    fn point_named(&self, path: &[u8]) -> Option<String> {
        let rules = self.rules.as_ref()?;
        let trimmed = path.strip_suffix(b"/").unwrap_or(path);
        let last = trimmed.rsplit(|&b| b == b'/').next().unwrap_or_default();
        let workspace = self.layout.workspace.as_str();
        rules
            .absent
            .iter()
            .find(|a| {
                a.strip_prefix(workspace)
                    .filter(|below| below.starts_with('/') && workspace != "/")
                    .is_some_and(|below| below.split('/').any(|c| !c.is_empty() && c.as_bytes() == last))
            })
            .cloned()
    }

    /// Tells and records the refusal of a call that makes `shown`, a path the watch cannot
    /// follow named like a persistence point (see [`Self::names_point`]).
    fn tell_unfollowed(&mut self, pid: i32, call: &'static str, shown: String) {
        let Some(point) = self.point_named(shown.as_bytes()) else { return };
        let Some(rules) = &self.rules else { return };
        let rule =
            "the watch (a path it cannot follow, named like a persistence point that did not exist at the start)";
        let found = Found { exists: false, dir: false, device: false, mount: None };
        let (missing, remedy) = self.missing(&point, Perm::Write, Change::New, &found, rule, Mode(rules.mode));
        if !self.first_time(format!("unfollowed {shown}")) {
            return;
        }
        let program = comm(pid);
        let line = format!(
            "sandbox-bash: denied: {missing}: {program} (pid {pid}) makes {shown} ({call}), which may be {point}; held by {rule}"
        );
        self.tell(&line, shown.clone(), remedy.clone());
        self.record(&Record {
            call,
            process: pid,
            program: &program,
            target: &shown,
            missing: &missing,
            held_by: rule,
            remedy: &remedy,
        });
    }

    /// Looks, when the command's process ends, every second after while a process of the run
    /// is left, and when none is, for the persistence points that did not exist at the start
    /// and exist now: made past the refusal, by a process that rewrote the path in its memory
    /// after the watch read it. Each is renamed aside where it is
    /// (`NAME.made-in-sandbox-bash-run-RANDOM`: nothing lost, nothing outside runs it), told and
    /// recorded. One whose directory is reached through a link now is left as it is, and told:
    /// the supervisor renames nothing the run could have pointed elsewhere.
    pub fn sweep(&mut self) {
        let Some(rules) = &self.rules else { return };
        let mut found: Vec<(String, Option<String>)> = Vec::new();
        for point in &rules.absent {
            let Some((dir, name)) = point.rsplit_once('/') else { continue };
            let Ok(dir) = crate::exec::open_dir_no_links(std::path::Path::new(if dir.is_empty() { "/" } else { dir }))
            else {
                // Not there (nothing was made), or reached through a link the run made.
                if std::fs::symlink_metadata(point).is_ok() {
                    found.push((point.clone(), None));
                }
                continue;
            };
            let Ok(c_name) = std::ffi::CString::new(name) else { continue };
            // SAFETY: an all-zero stat is valid to be overwritten by the kernel.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            let fd = std::os::fd::AsRawFd::as_raw_fd(&dir);
            // SAFETY: a valid directory descriptor, NUL-terminated name and out-pointer.
            if unsafe { libc::fstatat(fd, c_name.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) } != 0 {
                continue;
            }
            // Born when no process of the run made a name: something outside made it (an
            // editor opened meanwhile). Left in place, told once.
            if !self.born_in_run(&dir, &c_name) {
                if self.seen.insert(format!("outside {point}")) {
                    self.stderr.line(&format!(
                        "sandbox-bash: note: {point} did not exist at the start and was made during the run, by no \
                         process of it: left in place"
                    ));
                }
                continue;
            }
            let moved = aside_in(&dir, name).map(|a| format!("{}/{a}", point.rsplit_once('/').map_or("", |p| p.0)));
            found.push((point.clone(), moved));
        }
        // What is in the hooks directory of a repository made during the run, but the samples.
        // The same where a `.git` file or link made in the run points (`git init
        // --separate-git-dir`), when that is in the workspace: its hooks may have been written
        // before it became a git directory.
        let mut hooks_dirs: Vec<String> = rules.new_hooks.clone();
        for hooks in &rules.new_hooks {
            let Some(git) = hooks.strip_suffix("/hooks") else { continue };
            let Some((top, _)) = git.rsplit_once('/') else { continue };
            let pointed = match std::fs::symlink_metadata(git) {
                Ok(m) if m.file_type().is_file() => std::fs::read_to_string(git).ok().and_then(|t| {
                    t.lines().next().and_then(|l| l.strip_prefix("gitdir:")).map(|d| d.trim().to_string())
                }),
                Ok(m) if m.file_type().is_symlink() => {
                    std::fs::read_link(git).ok().map(|t| t.to_string_lossy().into_owned())
                }
                _ => None,
            };
            if let Some(target) = pointed.map(|t| crate::scope::normalize(top, &t))
                && crate::scope::is_within(&target, &self.layout.workspace)
                && self.layout.workspace != "/"
            {
                hooks_dirs.push(format!("{target}/hooks"));
            }
        }
        for hooks in &hooks_dirs {
            let Ok(dir) = crate::exec::open_dir_no_links(std::path::Path::new(hooks)) else { continue };
            let Ok(entries) = std::fs::read_dir(hooks) else { continue };
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.ends_with(".sample") || name.contains(".made-in-sandbox-bash-run-") {
                    continue;
                }
                let Ok(c_name) = std::ffi::CString::new(name.as_str()) else { continue };
                if !self.born_in_run(&dir, &c_name) {
                    continue;
                }
                let moved = aside_in(&dir, &name);
                found.push((format!("{hooks}/{name}"), moved.map(|a| format!("{hooks}/{a}"))));
            }
        }
        for (point, aside) in found {
            let done = match &aside {
                Some(aside) => format!("renamed to {aside}"),
                None => "left in place (a link on the way to it, or it could not be renamed): look at it".into(),
            };
            // One left in place is found again at the next sweep: told once.
            if aside.is_none() && !self.seen.insert(format!("left {point}")) {
                continue;
            }
            let line = format!(
                "sandbox-bash: denied: {point} did not exist at the start and was made during the run, where it \
                 runs code later; {done}"
            );
            // Told and recorded past the caps on refusals: a program that used them up first
            // does not hide this.
            self.stderr.line(&line);
            let count = std::mem::replace(&mut self.count, 0);
            self.record(&Record {
                call: "sweep",
                process: self.command_pid,
                program: "",
                target: &point,
                missing: "system write",
                held_by: "the watch's sweep at the end of the run",
                remedy: &done,
            });
            self.count = count;
        }
    }
}

/// Renames `name` in the open directory `dir` aside, to a name the run cannot guess and make
/// first, replacing nothing; the new name, or `None` when it could not be renamed.
fn aside_in(dir: &std::fs::File, name: &str) -> Option<String> {
    let fd = std::os::fd::AsRawFd::as_raw_fd(dir);
    let c_name = std::ffi::CString::new(name).ok()?;
    for _ in 0..16 {
        let aside = format!("{name}.made-in-sandbox-bash-run-{:016x}", random_u64());
        let c_aside = std::ffi::CString::new(aside.as_str()).ok()?;
        // SAFETY: a valid directory descriptor and NUL-terminated names; the kernel renames
        // within the one directory, replacing nothing.
        let r = unsafe {
            libc::renameat2(fd, c_name.as_ptr(), fd, c_aside.as_ptr(), libc::RENAME_NOREPLACE as libc::c_uint)
        };
        if r == 0 {
            return Some(aside);
        }
        if std::io::Error::last_os_error().raw_os_error() != Some(libc::EEXIST) {
            return None;
        }
    }
    None
}

/// The tenth of a second (since the epoch) that `t` falls in.
fn tenths(t: std::time::SystemTime) -> u64 {
    t.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64 / 100)
}

/// 64 bits from the kernel's random source (0 when it gives none: the name is then tried
/// again with the next).
fn random_u64() -> u64 {
    let mut bytes = [0u8; 8];
    // SAFETY: a buffer of the length given.
    unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    u64::from_ne_bytes(bytes)
}

/// What a call does to one of its paths, as far as whether the rules are asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    /// An open with these flags.
    Open(u64),
    /// A new name (mkdir, mknod, link, symlink): an existing one fails first (EEXIST).
    New,
    /// Something that must exist (unlink, rmdir, truncate, a rename's source).
    Existing { follow: bool },
    /// A rename's destination: new or replaced; or a removal where a read-only view holds
    /// (the kernel refuses it before it looks for the name).
    Either,
    /// A program run.
    Exec,
}

impl Change {
    /// Whether the call makes a name at the path (`found` as it is now): a new name, a
    /// rename's destination, or an open with O_CREAT of a file that is not there.
    fn makes(self, found: &Found) -> bool {
        match self {
            Change::New | Change::Either => true,
            Change::Open(f) => !found.exists && f & libc::O_CREAT as u64 != 0,
            Change::Existing { .. } | Change::Exec => false,
        }
    }

    /// Whether a link at the path's end is followed.
    fn follows(self) -> bool {
        match self {
            Change::Open(f) => {
                f & libc::O_NOFOLLOW as u64 == 0
                    && f & (libc::O_CREAT | libc::O_EXCL) as u64 != (libc::O_CREAT | libc::O_EXCL) as u64
            }
            Change::Existing { follow } => follow,
            Change::Exec => true,
            Change::New | Change::Either => false,
        }
    }

    /// The permission the call needs of the rules (an open with O_CREAT of a file that does
    /// not exist makes it).
    fn needs(self, exists: bool) -> Perm {
        match self {
            Change::Open(f) if !open_writes(f) && (exists || f & libc::O_CREAT as u64 == 0) => Perm::Read,
            Change::Exec => Perm::Execute,
            _ => Perm::Write,
        }
    }

    /// Whether the call reaches the rules, given whether its path exists: otherwise it fails
    /// for that first (EEXIST, ENOENT) or changes nothing (an existing file opened to read
    /// with O_CREAT).
    fn refusable(self, exists: bool) -> bool {
        match self {
            Change::Open(f) => {
                let (creat, excl) = (f & libc::O_CREAT as u64 != 0, f & libc::O_EXCL as u64 != 0);
                if exists { !(creat && excl) } else { creat }
            }
            Change::New => !exists,
            Change::Existing { .. } | Change::Exec => exists,
            Change::Either => true,
        }
    }
}

/// Whether `call` (its `change` of `path`, found as `found`) would make one of the persistence
/// points that did not exist at the start: the point itself (a directory, file, node or link
/// made there, or something renamed onto it), or a link or renamed directory above it, which
/// would bring a whole tree in at once. A directory made above one is not (`mkdir .claude`
/// makes nothing that runs: what is made in it next is looked at then).
fn makes_absent<'a>(absent: &'a [String], call: &str, change: Change, path: &str, found: &Found) -> Option<&'a String> {
    if !change.makes(found) || (found.exists && change == Change::New) {
        return None;
    }
    let whole = matches!(call, "rename" | "renameat" | "renameat2" | "symlink" | "symlinkat" | "link" | "linkat");
    // Inside one: it was made past the watch (see `Watch::sweep`), and nothing is made in it.
    absent
        .iter()
        .find(|a| *a == path || crate::scope::is_within(path, a) || (whole && crate::scope::is_within(a, path)))
}

/// Whether the call fails for the path itself before any rule is asked: a directory opened to
/// be written (EISDIR), a file named with a trailing slash (ENOTDIR), a name too long.
fn fails_first(path: &str, change: Change, found: &Found) -> bool {
    let written = matches!(change, Change::Open(f) if open_writes(f));
    (written && found.dir)
        || (path.ends_with('/') && found.exists && !found.dir)
        || path.split('/').any(|c| c.len() > 255)
}

/// Whether an open with flags `f` changes its file: written, or truncated.
fn open_writes(f: u64) -> bool {
    f & libc::O_ACCMODE as u64 != libc::O_RDONLY as u64 || f & libc::O_TRUNC as u64 != 0
}

/// One refusal as the audit log keeps it.
#[derive(Serialize)]
struct Record<'a> {
    call: &'static str,
    process: i32,
    program: &'a str,
    target: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    missing: &'a str,
    held_by: &'a str,
    remedy: &'a str,
}

/// Paths whose meaning is the process's own (its descriptors, `/proc`): the rules are not
/// asked about them here.
fn unseen(path: &str) -> bool {
    crate::scope::is_within(path, "/proc")
        || crate::scope::is_within(path, "/dev/fd")
        || ["/dev/stdin", "/dev/stdout", "/dev/stderr"].contains(&path)
}

/// What the watch learns of a call's file as the process sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Found {
    exists: bool,
    dir: bool,
    /// A device, FIFO or socket: opened for writing whatever its mount says (a read-only mount
    /// holds regular files, directories and links only).
    device: bool,
    /// The mount of the directory it is in.
    mount: Option<u64>,
}

/// Why [`resolve`] found no file to judge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unresolved {
    /// The directory the path is in does not exist (or is not a directory): the call fails for
    /// that itself.
    Missing,
    /// The watch cannot follow the path (a magic link such as `/proc/self/cwd`, a link that
    /// does not read, more links than the kernel follows).
    Unfollowable,
}

/// `path` (absolute) as the process sees it, its symbolic links followed inside `root` (its
/// `/proc/PID/root`): every component but the last, and the last too with `follow` when it
/// exists; and what it is.
fn resolve(root: &OwnedFd, path: &str, follow: bool, mount: bool) -> Result<(String, Found), Unresolved> {
    // As many dangling links at the end as the kernel follows (MAXSYMLINKS).
    resolve_within(root, path, follow, mount, 40)
}

/// [`resolve`], following at most `links` more dangling links at the end; the mount of the
/// directory is looked up only when asked (a rename's two paths).
fn resolve_within(
    root: &OwnedFd,
    path: &str,
    follow: bool,
    want_mount: bool,
    links: u8,
) -> Result<(String, Found), Unresolved> {
    use Unresolved::{Missing, Unfollowable};
    let path = path.trim_end_matches('/');
    let (dir, last) = path.rsplit_once('/').ok_or(Unfollowable)?;
    let dir = if dir.is_empty() { "/" } else { dir };
    let mount_of =
        |fd: &OwnedFd| if want_mount { statx(fd, c"", libc::AT_EMPTY_PATH).map(|s| s.stx_mnt_id) } else { None };
    if (matches!(last, "" | "." | "..") || follow)
        && let Ok(whole) = open_path_or_errno(Some(root), path)
    {
        let st = statx(&whole, c"", libc::AT_EMPTY_PATH).ok_or(Unfollowable)?;
        let kind = u32::from(st.stx_mode) & libc::S_IFMT;
        let mount = if want_mount { open_path(Some(root), dir).and_then(|d| mount_of(&d)) } else { None };
        let found = Found { exists: true, dir: kind == libc::S_IFDIR, device: special(kind), mount };
        return Ok((descriptor_path(&whole).ok_or(Unfollowable)?, found));
    }
    let dir_fd = match open_path_or_errno(Some(root), dir) {
        Ok(fd) => fd,
        Err(libc::ENOENT | libc::ENOTDIR) => return Err(Missing),
        Err(_) => return Err(Unfollowable),
    };
    let mount = mount_of(&dir_fd);
    let dir = descriptor_path(&dir_fd).ok_or(Unfollowable)?;
    let name = std::ffi::CString::new(last).map_err(|_| Unfollowable)?;
    let st = statx(&dir_fd, &name, libc::AT_SYMLINK_NOFOLLOW);
    let kind = st.map_or(0, |s| u32::from(s.stx_mode) & libc::S_IFMT);
    let here = if dir == "/" { format!("/{last}") } else { format!("{dir}/{last}") };
    // A link that leads nowhere yet: a create through it makes its target.
    if follow && kind == libc::S_IFLNK {
        if links == 0 {
            // The kernel fails the call (ELOOP) past as many links.
            return Err(Missing);
        }
        let mut buf = [0u8; libc::PATH_MAX as usize];
        // SAFETY: a valid descriptor and C string, and a buffer of the length given.
        let n = unsafe { libc::readlinkat(dir_fd.as_raw_fd(), name.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
        let read = usize::try_from(n).ok().and_then(|n| buf.get(..n)).ok_or(Unfollowable)?;
        let target = std::str::from_utf8(read).map_err(|_| Unfollowable)?;
        let next = if target.starts_with('/') { target.to_string() } else { format!("{dir}/{target}") };
        return resolve_within(root, &next, follow, want_mount, links - 1);
    }
    let found = Found { exists: st.is_some(), dir: kind == libc::S_IFDIR, device: special(kind), mount };
    Ok((here, found))
}

/// Whether a file of type `kind` is written whatever its mount says: a device, FIFO or socket.
fn special(kind: u32) -> bool {
    matches!(kind, libc::S_IFCHR | libc::S_IFBLK | libc::S_IFIFO | libc::S_IFSOCK)
}

/// `statx` of `name` under `fd` (with `AT_EMPTY_PATH`, of `fd` itself): the type, and the mount.
fn statx(fd: &OwnedFd, name: &std::ffi::CStr, flags: libc::c_int) -> Option<libc::statx> {
    // SAFETY: an all-zero statx is valid to be overwritten.
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: a valid descriptor, C string and out-pointer.
    let rc =
        unsafe { libc::statx(fd.as_raw_fd(), name.as_ptr(), flags, libc::STATX_TYPE | libc::STATX_MNT_ID, &mut st) };
    (rc == 0).then_some(st)
}

/// An `O_PATH` descriptor of `path`: inside `root` when given (its absolute links and `..`
/// stay in it, as for the process whose root it is), else as this process sees it.
fn open_path(root: Option<&OwnedFd>, path: &str) -> Option<OwnedFd> {
    open_path_or_errno(root, path).ok()
}

/// [`open_path`], or the error the kernel gave.
fn open_path_or_errno(root: Option<&OwnedFd>, path: &str) -> Result<OwnedFd, i32> {
    /// The kernel's `struct open_how`.
    #[repr(C)]
    struct OpenHow {
        flags: u64,
        mode: u64,
        resolve: u64,
    }
    let relative = std::ffi::CString::new(if root.is_some() { path.trim_start_matches('/') } else { path })
        .map_err(|_| libc::EINVAL)?;
    let relative = if relative.as_bytes().is_empty() { c".".to_owned() } else { relative };
    let how = OpenHow {
        flags: (libc::O_PATH | libc::O_CLOEXEC) as u64,
        mode: 0,
        resolve: if root.is_some() { libc::RESOLVE_IN_ROOT | libc::RESOLVE_NO_MAGICLINKS } else { 0 },
    };
    let dirfd = root.map_or(libc::AT_FDCWD, AsRawFd::as_raw_fd);
    // SAFETY: a valid C string and open_how of the size given; the kernel returns a new
    // descriptor or -1.
    let fd =
        unsafe { libc::syscall(libc::SYS_openat2, dirfd, relative.as_ptr(), &how, std::mem::size_of::<OpenHow>()) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO));
    }
    // SAFETY: a descriptor the kernel just returned, owned by nothing else.
    Ok(unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd as i32) })
}

/// The path the kernel gives the file `fd` names.
fn descriptor_path(fd: &OwnedFd) -> Option<String> {
    let link = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).ok()?;
    link.to_str().filter(|p| p.starts_with('/') && !p.ends_with(" (deleted)")).map(str::to_string)
}

/// Whether the notification `id` still waits for its answer: its process is still in the call.
fn still_pending(listener: &OwnedFd, id: u64) -> bool {
    // SAFETY: the listener is a seccomp notification descriptor, `id` a valid u64.
    unsafe { libc::ioctl(listener.as_raw_fd(), libc::SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0 }
}

/// Reads `buf.len()` bytes at `address` of process `pid`; how many were read.
fn read_memory(pid: i32, address: u64, buf: &mut [u8]) -> Option<usize> {
    let local = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
    let remote = libc::iovec { iov_base: address as *mut libc::c_void, iov_len: buf.len() };
    // SAFETY: one local iovec over `buf`, one remote iovec the kernel checks; no flags.
    let n = unsafe { libc::process_vm_readv(pid, &local, 1, &remote, 1, 0) };
    usize::try_from(n).ok()
}

fn read_u64(pid: i32, address: u64) -> Option<u64> {
    let mut buf = [0u8; 8];
    (read_memory(pid, address, &mut buf)? == 8).then(|| u64::from_ne_bytes(buf))
}

/// The path (a C string of at most `PATH_MAX` bytes) at `address` of process `pid`. Read a
/// page at a time: a string near the end of a mapping is still read.
fn read_path(pid: i32, address: u64) -> Option<String> {
    String::from_utf8(read_path_bytes(pid, address)?).ok()
}

/// [`read_path`] as the bytes the process holds.
fn read_path_bytes(pid: i32, address: u64) -> Option<Vec<u8>> {
    const PAGE: u64 = 4096;
    let mut out = Vec::new();
    let mut at = address;
    let mut page = [0u8; PAGE as usize];
    while out.len() < libc::PATH_MAX as usize {
        let room = (PAGE - at % PAGE) as usize;
        let buf = &mut page[..room];
        let n = read_memory(pid, at, buf)?;
        if let Some(end) = buf[..n].iter().position(|&b| b == 0) {
            // The last page read may end the text past PATH_MAX: no path is that long.
            if out.len() + end >= libc::PATH_MAX as usize {
                return None;
            }
            out.extend_from_slice(&buf[..end]);
            return Some(out);
        }
        if n < room {
            return None;
        }
        out.extend_from_slice(buf);
        at += room as u64;
    }
    None
}

/// The bits of `mode` in words: "system read, write and execute, external write".
fn bits_in_words(mode: Mode) -> String {
    let mut parts = Vec::new();
    for scope in crate::mode::Scope::ALL {
        let words: Vec<&str> = Perm::ALL
            .into_iter()
            .filter(|p| mode.has(scope, *p))
            .map(|p| match p {
                Perm::Read => "read",
                Perm::Write => "write",
                Perm::Execute => "execute",
            })
            .collect();
        let joined = match words.as_slice() {
            [] => continue,
            [one] => one.to_string(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
        };
        parts.push(format!("{} {joined}", scope.name()));
    }
    parts.join(", ")
}

/// A signal as `kill -l` names it, or its number.
fn signal_name(sig: i32) -> String {
    let named = [
        (libc::SIGHUP, "HUP"),
        (libc::SIGINT, "INT"),
        (libc::SIGQUIT, "QUIT"),
        (libc::SIGKILL, "KILL"),
        (libc::SIGUSR1, "USR1"),
        (libc::SIGUSR2, "USR2"),
        (libc::SIGPIPE, "PIPE"),
        (libc::SIGALRM, "ALRM"),
        (libc::SIGTERM, "TERM"),
        (libc::SIGCHLD, "CHLD"),
        (libc::SIGCONT, "CONT"),
        (libc::SIGSTOP, "STOP"),
        (libc::SIGTSTP, "TSTP"),
        (libc::SIGWINCH, "WINCH"),
    ];
    match named.iter().find(|(n, _)| *n == sig) {
        Some((_, name)) => (*name).to_string(),
        None if sig == 0 => "0 (a check)".to_string(),
        None => sig.to_string(),
    }
}

/// The program name of process `pid`.
fn comm(pid: i32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|s| s.trim_end().to_string())
        .unwrap_or_else(|_| "?".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_followed_inside_the_root_given() {
        let dir = tempfile::tempdir_in(concat!(env!("CARGO_MANIFEST_DIR"), "/target")).unwrap();
        let d = dir.path().canonicalize().unwrap().to_str().unwrap().to_string();
        std::fs::create_dir(format!("{d}/real")).unwrap();
        std::os::unix::fs::symlink(format!("{d}/real"), format!("{d}/abs")).unwrap();
        std::os::unix::fs::symlink("real", format!("{d}/rel")).unwrap();
        std::os::unix::fs::symlink("../outside", format!("{d}/real/up")).unwrap();
        std::fs::write(format!("{d}/real/file"), "").unwrap();
        std::os::unix::fs::symlink("file", format!("{d}/real/to-file")).unwrap();
        let root = open_path(None, "/").unwrap();
        let r = |p: &str, follow| resolve(&root, &format!("{d}/{p}"), follow, false).map(|(p, f)| (p, f.exists));
        assert_eq!(r("abs/f", true), Ok((format!("{d}/real/f"), false)));
        assert_eq!(r("rel/f", true), Ok((format!("{d}/real/f"), false)));
        assert_eq!(r("real/to-file", true), Ok((format!("{d}/real/file"), true)));
        // The last link is the name itself when not followed (unlink, rename, mkdir), or when
        // it leads nowhere.
        assert_eq!(r("real/to-file", false), Ok((format!("{d}/real/to-file"), true)));
        // A link that leads nowhere yet: its target is what a create makes.
        assert_eq!(r("abs/up", true), Ok((format!("{d}/outside"), false)));
        assert_eq!(r("abs/up", false), Ok((format!("{d}/real/up"), true)));
        assert_eq!(r("real/../abs/./g", true), Ok((format!("{d}/real/g"), false)));
        // A directory that does not exist: the call fails for that, nothing to tell.
        assert_eq!(r("none/f", true), Err(Unresolved::Missing));
        // A magic link is not followed; a chain of links past the kernel's limit fails there.
        assert_eq!(r("../../../../../../../../proc/self/cwd/f", false), Err(Unresolved::Unfollowable));
        for i in 0..41 {
            std::os::unix::fs::symlink(format!("chain{}", i + 1), format!("{d}/chain{i}")).unwrap();
        }
        std::os::unix::fs::symlink("real/end", format!("{d}/chain41")).unwrap();
        assert_eq!(r("chain2", true), Ok((format!("{d}/real/end"), false)));
        assert_eq!(r("chain0", true), Err(Unresolved::Missing));
        // Inside another root, an absolute link stays in it.
        let inner = open_path(None, &d).unwrap();
        std::os::unix::fs::symlink("/real", format!("{d}/rooted")).unwrap();
        assert_eq!(
            resolve(&inner, "/rooted/f", true, false).map(|(p, f)| (p, f.exists)),
            Ok((format!("{d}/real/f"), false))
        );
        // What it is, and where it is mounted.
        let (_, dir) = resolve(&root, &format!("{d}/real"), true, true).unwrap();
        assert!(dir.exists && dir.dir && !dir.device && dir.mount.is_some());
        let (_, null) = resolve(&root, "/dev/null", true, false).unwrap();
        assert!(null.device && !null.dir);
    }

    #[test]
    fn a_path_is_read_from_a_process_whole_and_only_to_its_end() {
        let pid = std::process::id() as i32;
        let text = c"/work/some/path";
        assert_eq!(read_path(pid, text.as_ptr() as u64).as_deref(), Some("/work/some/path"));
        let long = std::ffi::CString::new("a".repeat(6000)).unwrap();
        assert_eq!(read_path(pid, long.as_ptr() as u64), None);
        assert_eq!(read_path(pid, 8), None);
    }

    #[test]
    fn a_point_that_did_not_exist_is_made_only_by_a_call_that_makes_it_or_what_is_above_it() {
        let absent = vec!["/w/.git/hooks".to_string(), "/w/.claude/settings.json".to_string()];
        let new = Found { exists: false, dir: false, device: false, mount: None };
        let there = Found { exists: true, ..new };
        let creat = (libc::O_CREAT | libc::O_WRONLY) as u64;
        let made =
            |call: &str, change: Change, path: &str, found: &Found| makes_absent(&absent, call, change, path, found);
        assert!(made("mkdir", Change::New, "/w/.git/hooks", &new).is_some());
        assert!(made("openat", Change::Open(creat), "/w/.claude/settings.json", &new).is_some());
        assert!(made("symlink", Change::New, "/w/.claude", &new).is_some());
        assert!(made("renameat2", Change::Either, "/w/.claude", &new).is_some());
        assert!(made("renameat2", Change::Either, "/w/.git/hooks", &there).is_some());
        // A directory above a point, a name beside one, an open that makes nothing, a name
        // that exists (EEXIST first): not refused.
        assert!(made("mkdir", Change::New, "/w/.claude", &new).is_none());
        assert!(made("mkdir", Change::New, "/w/.git/hooks-old", &new).is_none());
        assert!(made("openat", Change::Open(libc::O_RDONLY as u64), "/w/.claude/settings.json", &new).is_none());
        assert!(made("mkdir", Change::New, "/w/.git/hooks", &there).is_none());
        assert!(made("openat", Change::Open(creat), "/w/.claude/settings.json", &there).is_none());
        // Inside a point that was made past the watch: refused too.
        assert!(made("openat", Change::Open(creat), "/w/.git/hooks/pre-commit", &new).is_some());
        // A path the watch cannot follow is refused by the names below the workspace only.
        let mut watch = Watch::new(Layout { workspace: "/w".into(), ..Default::default() }, 1, None, None);
        watch.set_rules(Rules { absent: absent.clone(), ..Default::default() });
        for named in ["/proc/self/cwd/.git/hooks", "../.git/hooks/", "/dev/fd/3/hooks", "x/.claude", "settings.json"] {
            assert!(watch.names_point(named.as_bytes()), "{named}");
        }
        for other in ["/proc/self/cwd/build", "/dev/fd/63", "lib", "w", "config"] {
            assert!(!watch.names_point(other.as_bytes()), "{other}");
        }
    }

    #[test]
    fn a_point_made_past_the_watch_is_renamed_aside_at_the_end_and_nothing_through_a_link() {
        let root = tempfile::tempdir_in(concat!(env!("CARGO_MANIFEST_DIR"), "/target")).unwrap();
        let base = crate::exec::canonicalize(&root.path().to_string_lossy()).unwrap();
        let (ws, elsewhere) = (format!("{base}/ws"), format!("{base}/elsewhere"));
        std::fs::create_dir_all(format!("{ws}/.git/hooks")).unwrap();
        std::fs::write(format!("{ws}/.git/hooks/pre-commit"), "#!/bin/sh\n").unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(format!("{elsewhere}/settings.json"), "{}").unwrap();
        std::os::unix::fs::symlink(&elsewhere, format!("{ws}/.claude")).unwrap();
        let absent = [".git/hooks", ".vscode", ".claude/settings.json"].map(|p| format!("{ws}/{p}")).to_vec();
        let mut watch = Watch::new(Layout { workspace: ws.clone(), ..Default::default() }, 4242, None, None);
        watch.set_rules(Rules { mode: 0o467, absent, ..Default::default() });
        // The points were made just now, as by a process of the run.
        watch.making.insert(tenths(std::time::SystemTime::now()));
        watch.end();
        // Made during the run: renamed aside, whole, in place.
        assert!(std::fs::symlink_metadata(format!("{ws}/.git/hooks")).is_err());
        let asides: Vec<String> = std::fs::read_dir(format!("{ws}/.git"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("hooks.made-in-sandbox-bash-run-"))
            .collect();
        assert_eq!(asides.len(), 1, "{asides:?}");
        let aside = format!("{ws}/.git/{}", asides[0]);
        assert_eq!(std::fs::read_to_string(format!("{aside}/pre-commit")).unwrap(), "#!/bin/sh\n");
        // Reached through a link: left where it is. Neither counts as a refused call.
        assert_eq!(std::fs::read_to_string(format!("{elsewhere}/settings.json")).unwrap(), "{}");
        assert_eq!(watch.count, 0);
        // Not made: nothing done. A second end (no process left) finds nothing more to move.
        assert!(std::fs::symlink_metadata(format!("{ws}/.vscode")).is_err());
        watch.end();
        assert!(std::fs::symlink_metadata(&aside).is_ok());
        assert!(watch.seen.contains(&format!("left {ws}/.claude/settings.json")));
    }

    #[test]
    fn a_point_born_when_no_process_of_the_run_made_a_name_is_left_in_place() {
        let root = tempfile::tempdir_in(concat!(env!("CARGO_MANIFEST_DIR"), "/target")).unwrap();
        let ws = crate::exec::canonicalize(&root.path().to_string_lossy()).unwrap();
        std::fs::create_dir_all(format!("{ws}/.idea")).unwrap();
        let mut watch = Watch::new(Layout { workspace: ws.clone(), ..Default::default() }, 1, None, None);
        watch.set_rules(Rules { mode: 0o467, absent: vec![format!("{ws}/.idea")], ..Default::default() });
        // The run made names long before (an editor opened later made the point).
        watch.making.insert(tenths(std::time::SystemTime::now()) - 600);
        watch.sweep();
        assert!(std::fs::metadata(format!("{ws}/.idea")).unwrap().is_dir());
        assert!(watch.seen.contains(&format!("outside {ws}/.idea")));
        // Born while the run made a name: renamed aside.
        watch.making.insert(tenths(std::time::SystemTime::now()));
        watch.sweep();
        assert!(std::fs::symlink_metadata(format!("{ws}/.idea")).is_err());
    }

    #[test]
    fn hooks_of_a_repository_made_in_the_run_are_renamed_aside_where_its_git_file_points() {
        let root = tempfile::tempdir_in(concat!(env!("CARGO_MANIFEST_DIR"), "/target")).unwrap();
        let ws = crate::exec::canonicalize(&root.path().to_string_lossy()).unwrap();
        std::fs::create_dir_all(format!("{ws}/gd/hooks")).unwrap();
        std::fs::write(format!("{ws}/gd/hooks/pre-commit"), "#!/bin/sh\n").unwrap();
        std::fs::write(format!("{ws}/gd/hooks/pre-commit.sample"), "#!/bin/sh\n").unwrap();
        std::fs::write(format!("{ws}/.git"), "gitdir: gd\n").unwrap();
        let mut watch = Watch::new(Layout { workspace: ws.clone(), ..Default::default() }, 1, None, None);
        watch.set_rules(Rules { mode: 0o467, new_hooks: vec![format!("{ws}/.git/hooks")], ..Default::default() });
        watch.making.insert(tenths(std::time::SystemTime::now()));
        watch.sweep();
        let left: Vec<String> = std::fs::read_dir(format!("{ws}/gd/hooks"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(!left.contains(&"pre-commit".to_string()), "{left:?}");
        assert!(left.contains(&"pre-commit.sample".to_string()), "{left:?}");
        assert!(left.iter().any(|n| n.starts_with("pre-commit.made-in-sandbox-bash-run-")), "{left:?}");
    }

    #[test]
    fn only_a_call_that_gets_past_its_own_checks_reaches_the_rules() {
        let (rd, wr, creat, excl, trunc) = (0u64, 1u64, 0o100u64, 0o200u64, 0o1000u64);
        // An existing file: written, truncated, read (also with O_CREAT); not when O_EXCL
        // fails first.
        assert!(Change::Open(wr).refusable(true) && Change::Open(wr).needs(true) == Perm::Write);
        assert!(Change::Open(rd | trunc).refusable(true) && Change::Open(rd | trunc).needs(true) == Perm::Write);
        assert!(Change::Open(rd | creat).refusable(true) && Change::Open(rd | creat).needs(true) == Perm::Read);
        // Read-only with O_CREAT makes a file that is not there.
        assert_eq!(Change::Open(rd | creat).needs(false), Perm::Write);
        assert!(!Change::Open(wr | creat | excl).refusable(true));
        assert!(Change::Exec.refusable(true) && !Change::Exec.refusable(false) && Change::Exec.follows());
        // A missing file: only when it is created.
        assert!(Change::Open(wr | creat).refusable(false));
        assert!(!Change::Open(wr).refusable(false) && !Change::Open(rd).refusable(false));
        assert!(Change::New.refusable(false) && !Change::New.refusable(true));
        let remove = Change::Existing { follow: false };
        assert!(remove.refusable(true) && !remove.refusable(false));
        assert!(Change::Either.refusable(true) && Change::Either.refusable(false));
        // O_CREAT with O_EXCL and O_NOFOLLOW name the link itself.
        assert!(Change::Open(wr).follows() && !Change::Open(wr | creat | excl).follows());
        assert!(!Change::Open(wr | 0o400000).follows() && !Change::New.follows());
    }

    #[test]
    fn the_rules_grant_as_landlock_unites_them() {
        let rules = Rules {
            mode: 0o467,
            grants: vec![("/w".into(), 7, false), ("/e".into(), 4, false), ("/e/f".into(), 6, true)],
            view: true,
            masks: vec!["/w/.env".into()],
            points: vec![("/w".into(), true, false), ("/w/.git/hooks".into(), false, true)],
            read_only_base: true,
            scoped: true,
            filters: Some(2),
            absent: Vec::new(),
            new_hooks: Vec::new(),
        };
        assert!(rules.granted("/w/x/y").contains(Rights::WRITE));
        let write = Change::Open(1);
        let file = Found { exists: true, dir: false, device: false, mount: None };
        let new = Found { exists: false, ..file };
        let dir = Found { dir: true, ..file };
        assert_eq!(rules.refuses("/w/x", write, &file), None);
        assert_eq!(rules.refuses("/w/.git/hooks/pre-commit", write, &new), Some("the read-only view"));
        assert_eq!(rules.refuses("/e/x", write, &file), Some("the read-only view and Landlock"));
        // A device is written whatever its mount says; Landlock still judges it.
        assert_eq!(rules.refuses("/e/tty", write, &Found { device: true, ..file }), Some("Landlock"));
        assert_eq!(rules.refuses("/w/.env", Change::Open(0), &file), Some("the credential mask"));
        assert_eq!(rules.refuses("/e/x", Change::Open(0), &file), None);
        assert_eq!(rules.refuses("/n/x", Change::Open(0), &file), Some("Landlock"));
        assert_eq!(rules.refuses("/w/.git/hooks/x", Change::Exec, &file), Some("the view (no execute there)"));
        // A directory below one a rule lists is listed too (Landlock's rights reach below);
        // a file there is not read.
        let listed = Rules { grants: vec![("/l".into(), 8, false)], ..rules.clone() };
        assert_eq!(listed.refuses("/l/private", Change::Open(0o200000), &dir), None);
        assert_eq!(listed.refuses("/l/private/key", Change::Open(0), &file), Some("Landlock"));
        assert!(!rules.granted("/e/x").contains(Rights::WRITE));
        assert!(rules.granted("/e/f").contains(Rights::WRITE));
        assert!(!rules.granted("/e/f/g").contains(Rights::WRITE));
    }
}
