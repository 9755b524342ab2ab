//! The run's own control groups: found from what this process's `/proc/self/mountinfo` and
//! `/proc/self/cgroup` say (no D-Bus, no systemd), made before anything of the command runs,
//! entered by the run's process before it locks itself, removed when the last process of the
//! run is gone.
//!
//! - **cgroup v2** (the unified hierarchy): the group is made below the nearest group, from this
//!   process's own up, that this user may write and that gives its children the controllers the
//!   limits need (in `cgroup.subtree_control`, or enabled there when it has no process of its
//!   own): what systemd's delegation of `user@UID.service` gives a user. Without controllers a
//!   group still holds the whole tree (`cgroup.procs`, `cgroup.kill`) and counts its CPU time
//!   (`cpu.stat`).
//! - **cgroup v1** (each controller its own hierarchy, or a hybrid layout): a group below this
//!   process's own in each hierarchy whose controller a limit needs and v2 cannot give
//!   (`memory`, `pids`, `cpuacct`).
//!
//! Each group is made fresh for one run (`sandbox-bash-PID`), so nothing is reused.

use std::io::Write;

use super::{Kind, Limits};

/// A cgroup hierarchy mounted here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hierarchy {
    pub v2: bool,
    /// The v1 controllers it holds (empty for v2; see its `cgroup.controllers`).
    pub controllers: Vec<String>,
    /// Where it is mounted.
    pub mount: String,
    /// The directory of this process's group in it.
    pub current: String,
}

/// Every cgroup hierarchy this process can see, with its own group in each.
pub fn hierarchies() -> Vec<Hierarchy> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let membership = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    parse(&mountinfo, &membership)
}

/// [`hierarchies`] from the two files' text.
fn parse(mountinfo: &str, membership: &str) -> Vec<Hierarchy> {
    let mut out: Vec<Hierarchy> = Vec::new();
    for line in mountinfo.lines() {
        let Some((head, tail)) = line.split_once(" - ") else { continue };
        let fields: Vec<&str> = head.split(' ').collect();
        let tail: Vec<&str> = tail.split(' ').collect();
        let (Some(root), Some(mount), Some(fstype)) = (fields.get(3), fields.get(4), tail.first()) else { continue };
        let mount = unescape(mount);
        let (v2, controllers) = match *fstype {
            "cgroup2" => (true, Vec::new()),
            "cgroup" => {
                let options = tail.get(2).copied().unwrap_or("");
                let known = ["memory", "pids", "cpuacct", "cpu", "freezer", "cpuset", "devices", "blkio"];
                let c: Vec<String> = options
                    .split(',')
                    .filter(|o| known.contains(o) || o.starts_with("net_"))
                    .map(String::from)
                    .collect();
                if c.is_empty() {
                    continue;
                }
                (false, c)
            }
            _ => continue,
        };
        // This process's group in that hierarchy, as /proc/self/cgroup names it.
        let path = membership.lines().find_map(|l| {
            let mut parts = l.splitn(3, ':');
            let (_, names, path) = (parts.next()?, parts.next()?, parts.next()?);
            let matches = if v2 {
                names.is_empty()
            } else {
                let mut names: Vec<&str> = names.split(',').collect();
                let mut want: Vec<&str> = controllers.iter().map(String::as_str).collect();
                names.sort_unstable();
                want.sort_unstable();
                names == want
            };
            matches.then(|| path.to_string())
        });
        let Some(path) = path else { continue };
        // The mount may show a subtree (a container's): the group relative to it.
        let root = unescape(root);
        let Some(relative) = path.strip_prefix(root.trim_end_matches('/')) else { continue };
        let current = format!("{}/{}", mount.trim_end_matches('/'), relative.trim_start_matches('/'));
        let current = current.trim_end_matches('/').to_string();
        if out.iter().any(|h| h.v2 == v2 && h.controllers == controllers) {
            continue;
        }
        out.push(Hierarchy { v2, controllers, mount, current });
    }
    out
}

/// mountinfo's octal escapes (`\040` for a space).
fn unescape(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 3 < bytes.len() && bytes[i + 1..i + 4].iter().all(|b| (b'0'..=b'7').contains(b)) {
            let digit = |b: u8| u32::from(b - b'0');
            let v = digit(bytes[i + 1]) * 64 + digit(bytes[i + 2]) * 8 + digit(bytes[i + 3]);
            out.push(v as u8);
            i += 4;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What enforces one limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Enforcer {
    /// A group of the run in the unified hierarchy, below this directory.
    V2(String),
    /// A group of the run in the v1 hierarchy of this controller, below this directory.
    V1(&'static str, String),
    /// A resource limit of each process (`setrlimit`).
    Rlimit,
    /// The keeper, which waits for the run outside its sandbox.
    Keeper,
    /// The keeper, answering each write to the run's own mounts of the scratch trees (fanotify).
    Fanotify,
}

impl Enforcer {
    /// In words, for `--sandbox-info`.
    pub fn words(&self) -> String {
        match self {
            Enforcer::V2(dir) => format!("cgroup v2 (a group of the run's own below {dir})"),
            Enforcer::V1(c, dir) => format!("cgroup v1 {c} (a group of the run's own below {dir})"),
            Enforcer::Rlimit => "a resource limit on every process (RLIMIT_FSIZE)".to_string(),
            Enforcer::Keeper => "the keeper, a process outside the sandbox that waits for the run".to_string(),
            Enforcer::Fanotify => "the keeper, which the kernel asks before each write to the run's own mounts of \
                                   /tmp and $TMPDIR (fanotify pre-content events)"
                .to_string(),
        }
    }
}

/// How the limits of a run are held: each limit's enforcer, and the groups to make.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub enforcers: Vec<(Kind, Enforcer)>,
    /// The groups to make: the parent directory, v2 or not, and the v2 controllers to enable
    /// in the parent first.
    groups: Vec<Parent>,
}

impl Plan {
    /// A group holds the whole tree (to find and stop every process); otherwise the keeper
    /// holds it as the subreaper of the run.
    pub fn tree_held(&self) -> bool {
        self.groups.iter().any(|g| !g.optional)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Parent {
    dir: String,
    v2: bool,
    enable: Vec<&'static str>,
    /// Only to hold the tree (a deadline): without it, the keeper holds the tree itself.
    optional: bool,
}

/// Reads one small control file.
fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn words_of(path: &str) -> Vec<String> {
    read(path).unwrap_or_default().split_whitespace().map(String::from).collect()
}

/// Whether this process may make a group in `dir` and move itself below it.
fn writable(dir: &str) -> bool {
    let ok = |p: &str| {
        std::ffi::CString::new(p).is_ok_and(|c| {
            // SAFETY: access reads a NUL-terminated path.
            unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
        })
    };
    ok(dir) && ok(&format!("{dir}/cgroup.procs"))
}

/// How `limits` would be held here, or why one cannot be: the limit and what is missing.
pub fn plan(limits: &Limits, found: &[Hierarchy]) -> Result<Plan, String> {
    let mut plan = Plan::default();
    let needs = |k: Kind| limits.get(k).is_some();
    let v2 = found.iter().find(|h| h.v2);
    // The controllers the v2 group needs; each one v2 cannot give falls to v1.
    let mut wanted: Vec<&'static str> = Vec::new();
    for (kind, controller) in [(Kind::Memory, "memory"), (Kind::Pids, "pids")] {
        if needs(kind) {
            wanted.push(controller);
        }
    }
    let mut why_not: Vec<String> = Vec::new();
    let v2_parent = v2.and_then(|h| {
        let parent = v2_parent(h, &wanted, &mut why_not);
        // Without every controller, a group without any still holds the tree and its CPU time.
        parent.or_else(|| v2_parent(h, &[], &mut Vec::new()))
    });
    let mut v2_gives: Vec<&'static str> = Vec::new();
    if let Some(p) = &v2_parent {
        let controllers = words_of(&format!("{}/cgroup.controllers", p.dir));
        v2_gives = wanted.iter().copied().filter(|c| controllers.iter().any(|have| have == c)).collect();
        let enable = p.enable.iter().copied().filter(|c| v2_gives.contains(c)).collect();
        // Only a deadline: a group would hold the tree, and the keeper can do without it.
        let optional = !needs(Kind::Cpu) && v2_gives.is_empty();
        plan.groups.push(Parent { enable, optional, ..p.clone() });
    }
    let mut v1_used: Vec<(&'static str, String)> = Vec::new();
    let mut v1_parent = |controller: &'static str, why_not: &mut Vec<String>| -> Option<String> {
        if let Some((_, dir)) = v1_used.iter().find(|(c, _)| *c == controller) {
            return Some(dir.clone());
        }
        let h = found.iter().find(|h| !h.v2 && h.controllers.iter().any(|c| c == controller));
        match h {
            None => {
                why_not.push(format!("no cgroup v1 hierarchy with the {controller} controller is mounted"));
                None
            }
            Some(h) if writable(&h.current) => {
                v1_used.push((controller, h.current.clone()));
                Some(h.current.clone())
            }
            Some(h) => {
                why_not.push(format!("this user may not make a group in {} (cgroup v1 {controller})", h.current));
                None
            }
        }
    };
    for (kind, controller) in [(Kind::Memory, "memory"), (Kind::Pids, "pids")] {
        if !needs(kind) {
            continue;
        }
        if v2_gives.contains(&controller) {
            plan.enforcers.push((kind, Enforcer::V2(v2_parent.as_ref().map(|p| p.dir.clone()).unwrap_or_default())));
        } else if let Some(dir) = v1_parent(controller, &mut why_not) {
            plan.enforcers.push((kind, Enforcer::V1(controller, dir)));
        } else {
            return Err(missing(kind, limits, &why_not));
        }
    }
    if needs(Kind::Cpu) {
        match (&v2_parent, v1_parent("cpuacct", &mut why_not)) {
            (Some(p), _) => plan.enforcers.push((Kind::Cpu, Enforcer::V2(p.dir.clone()))),
            (None, Some(dir)) => plan.enforcers.push((Kind::Cpu, Enforcer::V1("cpuacct", dir))),
            (None, None) => {
                if v2.is_none() {
                    why_not.push("no cgroup v2 hierarchy is mounted".to_string());
                }
                return Err(missing(Kind::Cpu, limits, &why_not));
            }
        }
    }
    for (controller, dir) in &v1_used {
        plan.groups.push(Parent { dir: dir.clone(), v2: false, enable: vec![controller], optional: false });
    }
    if needs(Kind::Disk) {
        let tmpdir = std::env::var("TMPDIR").ok();
        super::disk::probe(&super::disk::scratch(tmpdir.as_deref()))
            .map_err(|why| missing(Kind::Disk, limits, &[why]))?;
        plan.enforcers.push((Kind::Disk, Enforcer::Fanotify));
    }
    if needs(Kind::Wall) {
        plan.enforcers.push((Kind::Wall, Enforcer::Keeper));
    }
    if needs(Kind::File) {
        plan.enforcers.push((Kind::File, Enforcer::Rlimit));
    }
    plan.enforcers.sort_by_key(|(k, _)| k.index());
    Ok(plan)
}

/// The refusal of a limit that cannot be held here.
fn missing(kind: Kind, limits: &Limits, why: &[String]) -> String {
    let value = limits.get(kind).unwrap_or(0);
    let mut why: Vec<&str> = why.iter().map(String::as_str).collect();
    why.dedup();
    let why = if why.is_empty() { "no cgroup this user may use was found".to_string() } else { why.join("; ") };
    format!("the {} limit ({}) cannot be enforced here: {why}", kind.key(), super::bound(kind, value))
}

/// The nearest group, from this process's own up to the mount, where a group with the
/// `controllers` can be made.
fn v2_parent(h: &Hierarchy, controllers: &[&'static str], why_not: &mut Vec<String>) -> Option<Parent> {
    let mut dir = h.current.clone();
    let top = h.mount.trim_end_matches('/').to_string();
    loop {
        if writable(&dir) {
            let available = words_of(&format!("{dir}/cgroup.controllers"));
            let enabled = words_of(&format!("{dir}/cgroup.subtree_control"));
            let is_root = dir == top;
            // Enabling a controller needs a group without processes of its own (the root excepted).
            let empty = is_root || read(&format!("{dir}/cgroup.procs")).is_some_and(|p| p.trim().is_empty());
            let missing: Vec<&&str> = controllers.iter().filter(|c| !enabled.iter().any(|e| e == *c)).collect();
            let can_enable =
                missing.iter().all(|c| available.iter().any(|a| a == **c)) && (missing.is_empty() || empty);
            if can_enable {
                return Some(Parent { dir, v2: true, enable: missing.into_iter().copied().collect(), optional: false });
            }
        }
        // A group above one that bounds the caller would take the run out of that bound (a CI
        // job's, a service's): the walk stops there.
        if let Some(bound) = bounds(&dir).filter(|_| dir != top) {
            why_not.push(format!(
                "the caller's group {dir} has a bound of its own ({bound}) and processes, so no group with {} can be made \
                 inside it, and one above it would leave that bound",
                if controllers.is_empty() { "nothing".to_string() } else { controllers.join(" and ") }
            ));
            return None;
        }
        if dir == top || !dir.starts_with(&top) {
            why_not.push(format!(
                "no group of the unified hierarchy at {top}, from this process's own ({}) up, is one this user may \
                 make a group in{}",
                h.current,
                if controllers.is_empty() { String::new() } else { format!(" with {}", controllers.join(" and ")) }
            ));
            return None;
        }
        dir = match dir.rfind('/') {
            Some(i) if i >= top.len() => dir[..i].to_string(),
            _ => top.clone(),
        };
    }
}

/// The bounds a v2 group sets itself (`memory.max 1073741824`), if any.
fn bounds(dir: &str) -> Option<String> {
    let set: Vec<String> = ["memory.max", "memory.high", "memory.swap.max", "pids.max", "cpu.max"]
        .iter()
        .filter_map(|f| {
            let v = read(&format!("{dir}/{f}"))?;
            let first = v.split_whitespace().next()?.to_string();
            (first != "max").then(|| format!("{f} {first}"))
        })
        .collect();
    (!set.is_empty()).then(|| set.join(", "))
}

/// The run's groups, made.
#[derive(Debug)]
pub struct Groups {
    made: Vec<Made>,
}

#[derive(Debug)]
struct Made {
    dir: String,
    v2: bool,
}

/// Writes one control file.
fn write(path: &str, value: &str) -> Result<(), String> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|mut f| f.write_all(value.as_bytes()))
        .map_err(|e| format!("cannot write {value:?} to {path}: {e}"))
}

impl Groups {
    /// Makes the groups of `plan` for `limits`, with their bounds written; on failure what was
    /// made is removed.
    pub fn make(plan: &Plan, limits: &Limits) -> Result<Groups, String> {
        let mut groups = Groups { made: Vec::new() };
        let name = format!("sandbox-bash-{}", std::process::id());
        for parent in &plan.groups {
            sweep(&parent.dir);
            match groups.make_one(parent, &name, limits) {
                Ok(()) => {}
                // Inside an enclosing sandbox the groups are read-only: a deadline is then held
                // by the keeper alone.
                Err(_) if parent.optional => {
                    if groups.made.last().is_some_and(|m| m.dir.ends_with(&name) && m.dir.starts_with(&parent.dir)) {
                        let _ = std::fs::remove_dir(groups.made.pop().map(|m| m.dir).unwrap_or_default());
                    }
                }
                Err(e) => {
                    groups.remove();
                    return Err(e);
                }
            }
        }
        Ok(groups)
    }

    fn make_one(&mut self, parent: &Parent, name: &str, limits: &Limits) -> Result<(), String> {
        if parent.v2 && !parent.enable.is_empty() {
            let enable: Vec<String> = parent.enable.iter().map(|c| format!("+{c}")).collect();
            write(&format!("{}/cgroup.subtree_control", parent.dir), &enable.join(" "))?;
        }
        let dir = format!("{}/{name}", parent.dir);
        std::fs::create_dir(&dir).map_err(|e| format!("cannot make the cgroup {dir}: {e}"))?;
        self.made.push(Made { dir: dir.clone(), v2: parent.v2 });
        let has = |file: &str| std::path::Path::new(&format!("{dir}/{file}")).exists();
        let controllers = if parent.v2 { words_of(&format!("{dir}/cgroup.controllers")) } else { Vec::new() };
        let holds = |c: &str| if parent.v2 { controllers.iter().any(|h| h == c) } else { parent.enable.contains(&c) };
        if let Some(m) = limits.get(Kind::Memory).filter(|_| holds("memory")) {
            if parent.v2 {
                write(&format!("{dir}/memory.max"), &m.to_string())?;
                // No swap: the bound is the memory the run holds, not what it pushes out.
                if has("memory.swap.max") {
                    write(&format!("{dir}/memory.swap.max"), "0")?;
                }
                // Out of memory, the whole run ends together, never a part of it.
                write(&format!("{dir}/memory.oom.group"), "1")?;
            } else {
                write(&format!("{dir}/memory.limit_in_bytes"), &m.to_string())?;
                if has("memory.memsw.limit_in_bytes") {
                    write(&format!("{dir}/memory.memsw.limit_in_bytes"), &m.to_string())?;
                }
                // v1 counts socket buffers apart (v2 counts them with the rest).
                if has("memory.kmem.tcp.limit_in_bytes") {
                    write(&format!("{dir}/memory.kmem.tcp.limit_in_bytes"), &m.to_string())?;
                }
                // The kernel's killer picks one process; instead, a run out of memory waits and
                // the keeper stops all of it.
                write(&format!("{dir}/memory.oom_control"), "1")?;
            }
        }
        if let Some(p) = limits.get(Kind::Pids).filter(|_| holds("pids")) {
            write(&format!("{dir}/pids.max"), &p.to_string())?;
        }
        Ok(())
    }

    /// The same groups, as another process holds them after a fork.
    pub fn same(other: &Groups) -> Groups {
        Groups { made: other.made.iter().map(|m| Made { dir: m.dir.clone(), v2: m.v2 }).collect() }
    }

    /// The groups are still there (none was removed).
    pub fn exists(&self) -> bool {
        self.made.iter().any(|m| std::path::Path::new(&m.dir).exists())
    }

    /// No group was made (the plan needed none).
    pub fn is_empty(&self) -> bool {
        self.made.is_empty()
    }

    /// Moves the calling process into every group (it is the run's first process).
    pub fn enter(&self) -> Result<(), String> {
        for m in &self.made {
            write(&format!("{}/cgroup.procs", m.dir), "0")?;
        }
        Ok(())
    }

    /// The group that holds the whole tree (v2 first).
    fn tree(&self) -> Option<&Made> {
        self.made.iter().find(|m| m.v2).or_else(|| self.made.first())
    }

    /// The group of the hierarchy with `file`.
    fn with(&self, file: &str) -> Option<String> {
        self.made.iter().map(|m| format!("{}/{file}", m.dir)).find(|p| std::path::Path::new(p).exists())
    }

    /// The processes of the run.
    pub fn processes(&self) -> Vec<i32> {
        let Some(t) = self.tree() else { return Vec::new() };
        read(&format!("{}/cgroup.procs", t.dir))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// Whether any process of the run is left.
    pub fn populated(&self) -> bool {
        match self.tree() {
            Some(t) if t.v2 => read(&format!("{}/cgroup.events", t.dir)).is_none_or(|e| e.contains("populated 1")),
            Some(_) => !self.processes().is_empty(),
            None => false,
        }
    }

    /// Stops every process of the run (a fork racing the stop is stopped too: the group is
    /// emptied until nothing is left).
    pub fn kill(&self) {
        if let Some(t) = self.tree()
            && t.v2
            && write(&format!("{}/cgroup.kill", t.dir), "1").is_ok()
        {
            return;
        }
        for _ in 0..1000 {
            let pids = self.processes();
            if pids.is_empty() {
                return;
            }
            for pid in pids {
                // SAFETY: kill takes numbers.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// The CPU time the run has used, in milliseconds.
    pub fn cpu_ms(&self) -> Option<u64> {
        if let Some(stat) = self.made.iter().find(|m| m.v2).and_then(|m| read(&format!("{}/cpu.stat", m.dir))) {
            return field(&stat, "usage_usec").map(|us| us / 1000);
        }
        self.with("cpuacct.usage")
            .and_then(|p| read(&p))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(|ns| ns / 1_000_000)
    }

    /// The run is out of memory: v1 waits (its killer is off), v2 has killed the group.
    pub fn out_of_memory(&self) -> bool {
        if let Some(p) = self.with("memory.oom_control") {
            return read(&p).and_then(|t| field(&t, "under_oom")).is_some_and(|v| v > 0)
                || read(&p).and_then(|t| field(&t, "oom_kill")).is_some_and(|v| v > 0);
        }
        self.with("memory.events")
            .and_then(|p| read(&p))
            .is_some_and(|t| field(&t, "oom_kill").unwrap_or(0) + field(&t, "oom_group_kill").unwrap_or(0) > 0)
    }

    /// How often the run's memory reached its bound (what the kernel could not reclaim then
    /// failed with ENOMEM, or was reclaimed).
    pub fn memory_reached(&self) -> u64 {
        if let Some(n) = self.with("memory.failcnt").and_then(|p| read(&p)).and_then(|v| v.trim().parse().ok()) {
            return n;
        }
        self.with("memory.events").and_then(|p| read(&p)).and_then(|t| field(&t, "max")).unwrap_or(0)
    }

    /// The most memory the run held, in bytes.
    pub fn memory_peak(&self) -> Option<u64> {
        ["memory.peak", "memory.max_usage_in_bytes"]
            .into_iter()
            .find_map(|f| self.with(f).and_then(|p| read(&p)).and_then(|v| v.trim().parse().ok()))
    }

    /// Processes and threads of the run now.
    pub fn pids_now(&self) -> Option<u64> {
        self.with("pids.current").and_then(|p| read(&p)).and_then(|v| v.trim().parse().ok())
    }

    /// How many forks the process limit refused.
    pub fn pids_refused(&self) -> u64 {
        self.with("pids.events").and_then(|p| read(&p)).and_then(|t| field(&t, "max")).unwrap_or(0)
    }

    /// Removes the groups (their processes are gone); a group still busy is tried a little
    /// longer (a process killed a moment ago is not yet reaped).
    pub fn remove(&mut self) {
        for m in self.made.drain(..).rev() {
            for _ in 0..200 {
                if std::fs::remove_dir(&m.dir).is_ok() || !std::path::Path::new(&m.dir).exists() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
    }
}

/// What an enclosing level's marker says holds this process, kept only where this process can
/// see it hold: a marker is only an environment variable, and a limit it claimed that nothing
/// holds would otherwise go unenforced. Memory and processes: a group on the way up holds a
/// bound at least as low. CPU time and the deadline: the process is in a group of a run's own,
/// or below a keeper (a process of this same program). The file size: this process's own hard
/// limit.
pub fn verified(claimed: &Limits) -> Limits {
    let mut out = Limits::NONE;
    if claimed.is_empty() {
        return out;
    }
    let found = hierarchies();
    let lowest = |files: &[&str]| -> Option<u64> {
        let mut low: Option<u64> = None;
        for h in &found {
            let mut dir = h.current.clone();
            while dir.starts_with(h.mount.trim_end_matches('/')) && dir.len() >= h.mount.trim_end_matches('/').len() {
                for f in files {
                    if let Some(v) = read(&format!("{dir}/{f}")).and_then(|v| v.trim().parse::<u64>().ok()) {
                        low = Some(low.map_or(v, |l| l.min(v)));
                    }
                }
                match dir.rfind('/') {
                    Some(i) if i > 0 => dir.truncate(i),
                    _ => break,
                }
            }
        }
        low
    };
    let in_run_group = found.iter().any(|h| h.current.contains("/sandbox-bash-")) || below_a_keeper();
    for (kind, value) in claimed.iter() {
        let holds = match kind {
            Kind::Memory => lowest(&["memory.max", "memory.limit_in_bytes"]).is_some_and(|v| v <= value),
            Kind::Pids => lowest(&["pids.max"]).is_some_and(|v| v <= value),
            Kind::Cpu | Kind::Wall | Kind::Disk => in_run_group,
            Kind::File => {
                let mut l = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
                // SAFETY: getrlimit writes the struct.
                unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut l) == 0 && l.rlim_max <= value }
            }
        };
        if holds {
            out.set(kind, Some(value));
        }
    }
    out
}

/// Whether a process above this one runs this same program (a keeper: a level execs bash, so
/// only keepers stay this program).
fn below_a_keeper() -> bool {
    let Ok(me) = std::fs::read_link("/proc/self/exe") else { return false };
    let mut pid = std::process::id() as i32;
    for _ in 0..64 {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
        let Some(ppid) = stat.rfind(')').and_then(|i| stat[i + 1..].split_whitespace().nth(1)?.parse::<i32>().ok())
        else {
            return false;
        };
        if ppid <= 1 {
            return false;
        }
        if std::fs::read_link(format!("/proc/{ppid}/exe")).is_ok_and(|e| e == me) {
            return true;
        }
        pid = ppid;
    }
    false
}

/// Removes the empty groups of runs whose keeper is gone (killed with its caller's process
/// group, say): a group with a process in it is left alone, and so is one whose keeper's pid
/// is in use (another process may have it: its group then waits for a later sweep).
fn sweep(parent: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("sandbox-bash-")).and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        let alive = std::path::Path::new(&format!("/proc/{pid}")).exists();
        let dir = format!("{parent}/{}", name.to_string_lossy());
        let empty = read(&format!("{dir}/cgroup.procs")).is_some_and(|p| p.trim().is_empty());
        if !alive && empty {
            // A group with child groups or a process refuses: nothing else is touched.
            let _ = std::fs::remove_dir(&dir);
        }
    }
}

/// A flat-keyed file's field (`usage_usec 123`).
fn field(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(' ')?.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HYBRID_MOUNTS: &str = "\
30 24 0:26 / /sys/fs/cgroup ro,nosuid shared:9 - tmpfs tmpfs ro,mode=755
31 30 0:27 / /sys/fs/cgroup/unified rw,nosuid shared:10 - cgroup2 cgroup2 rw
33 30 0:29 / /sys/fs/cgroup/memory rw,nosuid shared:14 - cgroup cgroup rw,memory
34 30 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:15 - cgroup cgroup rw,cpu,cpuacct
35 30 0:31 / /sys/fs/cgroup/pids rw,nosuid shared:16 - cgroup cgroup rw,pids
36 30 0:32 / /sys/fs/cgroup/systemd rw,nosuid shared:11 - cgroup cgroup rw,xattr,name=systemd
";
    const HYBRID_GROUPS: &str = "\
9:name=systemd:/user.slice/user-1000.slice/session-3.scope
5:pids:/user.slice/user-1000.slice/session-3.scope
4:cpu,cpuacct:/user.slice
3:memory:/work/job 7
0::/user.slice/user-1000.slice/session-3.scope
";

    #[test]
    fn a_hybrid_layout_gives_each_hierarchy_and_the_process_group_in_it() {
        let found = parse(HYBRID_MOUNTS, HYBRID_GROUPS);
        assert_eq!(found.len(), 4, "{found:?}");
        assert!(found[0].v2);
        assert_eq!(found[0].current, "/sys/fs/cgroup/unified/user.slice/user-1000.slice/session-3.scope");
        assert_eq!(found[1].controllers, ["memory"]);
        assert_eq!(found[1].current, "/sys/fs/cgroup/memory/work/job 7");
        assert_eq!(found[2].controllers, ["cpu", "cpuacct"]);
        assert_eq!(found[2].current, "/sys/fs/cgroup/cpu,cpuacct/user.slice");
        assert_eq!(found[3].current, "/sys/fs/cgroup/pids/user.slice/user-1000.slice/session-3.scope");
    }

    #[test]
    fn a_container_mount_shows_its_subtree() {
        let mounts = "40 30 0:40 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        let found = parse(mounts, "0::/docker/abc/inner\n");
        assert_eq!(found[0].current, "/sys/fs/cgroup/inner");
        let escaped = "40 30 0:40 / /mnt/c\\040g rw - cgroup2 cgroup2 rw\n";
        assert_eq!(parse(escaped, "0::/\n")[0].current, "/mnt/c g");
    }

    /// A unified hierarchy as systemd delegates it to a user, written as files: the plan walks
    /// up from the terminal's scope to the group that can give its children the controllers.
    #[test]
    fn a_delegated_v2_tree_gives_the_nearest_group_that_can_enable_the_controllers() {
        let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
        std::fs::create_dir_all(&base).unwrap();
        let tmp = tempfile::Builder::new().prefix("sbx-cgroup-tree-").tempdir_in(&base).unwrap();
        let mount = tmp.path().to_str().unwrap().to_string();
        let service = format!("{mount}/user.slice/user-1000.slice/user@1000.service");
        let app = format!("{service}/app.slice");
        let scope = format!("{app}/term.scope");
        for (dir, controllers, enabled, procs) in [
            (mount.as_str(), "cpu memory pids", "cpu memory pids", ""),
            (&format!("{mount}/user.slice"), "cpu memory pids", "cpu memory pids", ""),
            (&format!("{mount}/user.slice/user-1000.slice"), "cpu memory pids", "cpu memory pids", ""),
            (service.as_str(), "cpu memory pids", "memory pids", ""),
            (app.as_str(), "memory pids", "", ""),
            (scope.as_str(), "", "", "4242\n"),
        ] {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(format!("{dir}/cgroup.controllers"), controllers).unwrap();
            std::fs::write(format!("{dir}/cgroup.subtree_control"), enabled).unwrap();
            std::fs::write(format!("{dir}/cgroup.procs"), procs).unwrap();
        }
        let h = Hierarchy { v2: true, controllers: vec![], mount: mount.clone(), current: scope.clone() };
        // The scope holds processes and offers nothing: its parent, without processes of its
        // own, can enable both.
        let p = v2_parent(&h, &["memory", "pids"], &mut Vec::new()).unwrap();
        assert_eq!((p.dir.as_str(), p.enable.clone()), (app.as_str(), vec!["memory", "pids"]));
        // With a process of its own it cannot: the service, which gives them already.
        std::fs::write(format!("{app}/cgroup.procs"), "77\n").unwrap();
        let p = v2_parent(&h, &["memory", "pids"], &mut Vec::new()).unwrap();
        assert_eq!((p.dir.as_str(), p.enable.len()), (service.as_str(), 0));
        // No controller needed: the caller's own group.
        assert_eq!(v2_parent(&h, &[], &mut Vec::new()).unwrap().dir, scope);
        // A scope with a bound of its own is not left: the walk stops with the reason.
        std::fs::write(format!("{scope}/memory.max"), "1073741824\n").unwrap();
        let mut why = Vec::new();
        assert!(v2_parent(&h, &["memory", "pids"], &mut why).is_none());
        assert!(why[0].contains("has a bound of its own (memory.max 1073741824)"), "{why:?}");
        std::fs::write(format!("{scope}/memory.max"), "max\n").unwrap();
        // A controller nothing gives: none, said.
        let mut why = Vec::new();
        assert!(v2_parent(&h, &["hugetlb"], &mut why).is_none());
        assert!(why[0].contains("with hugetlb"), "{why:?}");
        // The plan then holds memory and pids by v2, below the service.
        let found = vec![h];
        let plan = plan(&Limits::parse("memory=1G,pids=64,wall=1m").unwrap(), &found).unwrap();
        assert_eq!(plan.enforcers[0], (Kind::Memory, Enforcer::V2(service.clone())));
        assert_eq!(plan.enforcers[1], (Kind::Pids, Enforcer::V2(service)));
        assert!(plan.tree_held());
    }

    #[test]
    fn flat_keyed_fields_are_read_by_their_key() {
        let text = "usage_usec 1500\nuser_usec 1000\noom_kill 2\n";
        assert_eq!(field(text, "usage_usec"), Some(1500));
        assert_eq!(field(text, "oom_kill"), Some(2));
        assert_eq!(field(text, "usage"), None);
    }

    #[test]
    fn a_limit_no_group_can_hold_is_refused_by_name() {
        let limits = Limits::parse("memory=64M").unwrap();
        let e = plan(&limits, &[]).unwrap_err();
        assert!(e.starts_with("the memory limit (64 MiB) cannot be enforced here:"), "{e}");
        assert!(e.contains("no cgroup v1 hierarchy with the memory controller"), "{e}");
        // The disk limit needs no group: root holds it with the keeper (the tests run as root).
        let disk = plan(&Limits::parse("disk=1G").unwrap(), &[]).unwrap();
        assert_eq!(disk.enforcers, vec![(Kind::Disk, Enforcer::Fanotify)]);
        // A deadline and a file size need no group.
        let p = plan(&Limits::parse("wall=5s,file=1M").unwrap(), &[]).unwrap();
        assert_eq!(p.enforcers, vec![(Kind::Wall, Enforcer::Keeper), (Kind::File, Enforcer::Rlimit)]);
        assert!(!p.tree_held());
    }
}
