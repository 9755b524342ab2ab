//! The disk limit: what a run may add to the scratch trees (`/tmp`, `$TMPDIR`).
//!
//! The run's view has mounts of its own (its mount namespace copies or binds every mount it
//! shows), so a fanotify mark on the run's mount of a scratch tree sees the run's accesses and
//! nobody else's. The mark asks for pre-content events (Linux 6.14 and later): the kernel tells
//! each read or write of a file range before it is made, and the writer waits for the answer.
//! The keeper answers, outside the sandbox: a write that would take what the run added past the
//! limit fails with ENOSPC; every other access goes on.
//!
//! What the run added is counted per file, in allocated blocks: what each file it wrote has
//! gained since the run first wrote it, and what the writes let through to it and not made may
//! still add (see `Tracked::added`); a write is made when its thread makes its next call or
//! ends. A file the run deleted counts while the kernel still has it, then while a process of
//! the run holds it open. An event does not say whether it is a read or a write, so the keeper
//! reads the waiting thread's call (`/proc/TID/syscall`): a read goes on uncounted; a write
//! counts all of its range until it is made (with an appending descriptor it lands at the end,
//! wherever the event says); allocating calls and page faults count the range's holes; a shared
//! mapping counts the file's holes at once, and what the file has while it may be mapped. Core
//! files, which the kernel writes without an event, are off for a run with the limit.

use std::collections::HashMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};

const FAN_CLOEXEC: u32 = 0x1;
const FAN_NONBLOCK: u32 = 0x2;
const FAN_CLASS_PRE_CONTENT: u32 = 0x8;
const FAN_REPORT_TID: u32 = 0x100;
const FAN_MARK_ADD: u32 = 0x1;
const FAN_MARK_MOUNT: u32 = 0x10;
const FAN_PRE_ACCESS: u64 = 0x0010_0000;
const FAN_ALLOW: u32 = 0x1;
const FAN_DENY: u32 = 0x2;
/// An answer's errno sits in its top byte.
const FAN_ERRNO_SHIFT: u32 = 24;
const INFO_RANGE: u8 = 6;
/// The first kernel whose pre-content events tell a write before it is made.
const FIRST_KERNEL: (u32, u32) = (6, 14);
const TMPFS_MAGIC: i64 = 0x0102_1994;
const RAMFS_MAGIC: i64 = 0x8584_58f6;
const STATX_ATTR_MOUNT_ROOT: u64 = 0x2000;
const MAX_HANDLE: usize = 128;

/// The scratch trees the limit counts: `/tmp`, and `tmpdir` where it is a tree of its own.
pub fn scratch(tmpdir: Option<&str>) -> Vec<String> {
    let mut out = vec!["/tmp".to_string()];
    if let Some(t) = tmpdir.filter(|t| t.starts_with('/') && !crate::scope::is_within(t, "/tmp")) {
        out.push(t.to_string());
    }
    out
}

/// The group the keeper answers from; made by the keeper before the run's process is forked,
/// so that the run's process can mark its own mounts with it.
pub fn group() -> Result<OwnedFd, String> {
    // SAFETY: fanotify_init takes two flag words.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_fanotify_init,
            FAN_CLASS_PRE_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK | FAN_REPORT_TID,
            (libc::O_RDONLY | libc::O_LARGEFILE | libc::O_CLOEXEC) as u32,
        )
    } as i32;
    if fd < 0 {
        let e = std::io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::EPERM) => {
                "counting the scratch trees' writes (fanotify pre-content events) needs CAP_SYS_ADMIN, which only \
                 root outside any sandbox has"
                    .to_string()
            }
            Some(libc::EINVAL | libc::ENOSYS) => {
                "this kernel gives no fanotify permission events (CONFIG_FANOTIFY_ACCESS_PERMISSIONS)".to_string()
            }
            _ => format!("fanotify_init: {e}"),
        });
    }
    // SAFETY: a new descriptor, owned here.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Whether the limit can be held here for `scratch`: the kernel, the privilege, and each tree's
/// filesystem. (The marks themselves are made in the run's own view, see [`mark`].)
pub fn probe(scratch: &[String]) -> Result<(), String> {
    let release = kernel_release();
    if version(&release).is_some_and(|v| v < FIRST_KERNEL) {
        return Err(format!(
            "this kernel ({release}) is older than {}.{}, the first to tell a write before it is made (fanotify \
             pre-content events)",
            FIRST_KERNEL.0, FIRST_KERNEL.1
        ));
    }
    drop(group()?);
    for path in scratch {
        let Ok(c) = std::ffi::CString::new(path.as_str()) else { continue };
        let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
        // SAFETY: statfs reads a NUL-terminated path and fills the struct.
        if unsafe { libc::statfs(c.as_ptr(), &mut fs) } != 0 {
            continue;
        }
        let magic = fs.f_type as i64;
        if magic == TMPFS_MAGIC || magic == RAMFS_MAGIC {
            return Err(format!(
                "{path} is a tmpfs, which tells no write before it is made; what is written there is memory, which \
                 the memory limit counts"
            ));
        }
    }
    Ok(())
}

fn kernel_release() -> String {
    // SAFETY: uname fills the struct.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut u) } != 0 {
        return String::new();
    }
    // SAFETY: the release is NUL-terminated within its array.
    unsafe { std::ffi::CStr::from_ptr(u.release.as_ptr()) }.to_string_lossy().into_owned()
}

/// `6.18.44-custom` → (6, 18).
fn version(release: &str) -> Option<(u32, u32)> {
    let mut parts = release.split(|c: char| !c.is_ascii_digit());
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// Marks the run's own mounts of the scratch trees with `group`: called by the run's process
/// once its view is mounted and before it gives up its capabilities. A tree that is not a mount
/// of its own is counted with the mount it lies in only when that is `/tmp`'s.
pub fn mark(group: RawFd, scratch: &[String]) -> Result<(), String> {
    for (i, path) in scratch.iter().enumerate() {
        let Ok(c) = std::ffi::CString::new(path.as_str()) else { continue };
        if !std::path::Path::new(path).is_dir() {
            continue;
        }
        if i > 0 && !mount_root(&c) {
            continue;
        }
        // SAFETY: fanotify_mark reads a NUL-terminated path.
        let r = unsafe {
            libc::syscall(
                libc::SYS_fanotify_mark,
                group,
                FAN_MARK_ADD | FAN_MARK_MOUNT,
                FAN_PRE_ACCESS,
                libc::AT_FDCWD,
                c.as_ptr(),
            )
        };
        if r != 0 {
            let e = std::io::Error::last_os_error();
            return Err(match e.raw_os_error() {
                Some(libc::EOPNOTSUPP) => format!("the filesystem of {path} tells no write before it is made"),
                Some(libc::EINVAL) => "this kernel has no fanotify pre-content events".to_string(),
                _ => format!("cannot watch the run's mount of {path}: {e}"),
            });
        }
    }
    Ok(())
}

fn mount_root(path: &std::ffi::CStr) -> bool {
    // SAFETY: statx fills the struct for a NUL-terminated path.
    let mut sx: libc::statx = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::syscall(libc::SYS_statx, libc::AT_FDCWD, path.as_ptr(), 0, 0u32, &mut sx) };
    r == 0 && sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT != 0 && sx.stx_attributes & STATX_ATTR_MOUNT_ROOT != 0
}

/// One file the run wrote in scratch.
struct Tracked {
    /// Allocated bytes when the run first wrote it.
    base: u64,
    /// Allocated bytes when last seen.
    now: u64,
    /// What a shared mapping of it may fill without telling: counted as allocated.
    floor: u64,
    /// A shared mapping of it was made.
    mapped: bool,
    /// Its handle, to look at it again without holding it open.
    handle: Option<Vec<u8>>,
    /// Deleted, and held open by no process of the run.
    gone: bool,
    /// Threads whose write to it was let through and may not be made yet.
    writers: u32,
    /// What those writes may add, all together.
    unmade: u64,
    /// Its allocation when the first of the writes `owed` counts was let through.
    mark: u64,
    /// What the writes let through since `mark` were let through for, made or not (it starts
    /// again once no writer is left).
    owed: u64,
}

impl Tracked {
    /// What it gained, and what the writes let through may still add. Writes to one file land
    /// in any order and in pieces, so none is taken for made by what the file shows. The
    /// writes not made may add all of their length, and no more than all the writes let
    /// through since the first of them owe less what the file gained since (what a made write
    /// gained is at most its length). A file a shared mapping fills gains without telling, and its floor counts
    /// that already: its writes not made count whole.
    fn added(&self) -> u64 {
        if self.gone {
            return 0;
        }
        let owing = match self.writers {
            0 => 0,
            _ if self.mapped => self.unmade,
            _ => self.unmade.min(self.owed.saturating_sub(self.now.saturating_sub(self.mark))),
        };
        self.now.max(self.floor).saturating_sub(self.base) + owing
    }
}

/// What the keeper keeps of the disk limit: the group, and what the run added.
pub struct Counter {
    group: OwnedFd,
    limit: u64,
    /// What an earlier counter of the same run counted (the keeper's, for the guard): it
    /// stays counted.
    carried: u64,
    /// Where this counter keeps its total for the one after it: a page shared with the guard,
    /// read when the keeper has ended, however it ended.
    shared: Option<&'static [AtomicU64; 2]>,
    files: HashMap<(u64, u64), Tracked>,
    /// What the files added and may still add, kept as they change (every event would
    /// otherwise add them up).
    files_added: u64,
    /// The file each thread's write let through went to, and its length: one call at a time,
    /// so the thread's next event, or its end, says the write was made.
    pending: HashMap<i32, ((u64, u64), u64)>,
    /// A descriptor on each scratch filesystem, to open handles on.
    roots: Vec<(u64, OwnedFd)>,
    used: u64,
    pub peak: u64,
    /// A deleted file, held by no process of the run that the keeper can see, was still there
    /// at the last look.
    lingering: bool,
    /// Writes refused with ENOSPC.
    pub refused: u64,
    /// The file of the first refused write.
    pub first: Option<String>,
    /// What the run had added when its first write was refused.
    pub added_then: u64,
}

impl Counter {
    pub fn new(group: OwnedFd, limit: u64, scratch: &[String]) -> Counter {
        let mut roots = Vec::new();
        for path in scratch {
            let Ok(dir) = std::fs::File::open(path) else { continue };
            if let Ok(m) = dir.metadata() {
                use std::os::unix::fs::MetadataExt;
                roots.push((m.dev(), OwnedFd::from(dir)));
            }
        }
        // SAFETY: one anonymous page shared with the processes forked after it, never unmapped.
        let page = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                4096,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        // SAFETY: the page is zeroed, aligned and lives as long as the process. Its first word
        // is the total, its second the highest descriptor an event came with.
        let shared = (page != libc::MAP_FAILED).then(|| unsafe { &*(page as *const [AtomicU64; 2]) });
        Counter {
            group,
            limit,
            carried: 0,
            shared,
            files: HashMap::new(),
            files_added: 0,
            pending: HashMap::new(),
            roots,
            used: 0,
            peak: 0,
            lingering: false,
            refused: 0,
            first: None,
            added_then: 0,
        }
    }

    /// The counter that goes on where this one (in another process) stopped: what that one
    /// counted stays counted, and no file's deletion gives it back. `None` when the keeper's
    /// total cannot be known.
    pub fn successor(&self) -> Option<Counter> {
        let [total, highest] = self.shared?;
        let carried = total.load(Ordering::Acquire);
        let group = self.group.try_clone().ok()?;
        // A keeper killed while it judged a write leaves that write waiting for an answer
        // that only the descriptor number it had can give: each one it may have had is
        // refused (a number no event waits on is an error, and nothing more).
        for fd in 0..=highest.load(Ordering::Acquire).min(1 << 16) as i32 {
            answer(&group, fd, false);
        }
        let roots = self.roots.iter().filter_map(|(dev, fd)| Some((*dev, fd.try_clone().ok()?))).collect();
        Some(Counter {
            group,
            limit: self.limit,
            carried,
            shared: None,
            files: HashMap::new(),
            files_added: 0,
            pending: HashMap::new(),
            roots,
            used: carried,
            peak: carried,
            lingering: false,
            refused: 0,
            first: None,
            added_then: 0,
        })
    }

    /// Keeps the total where the next counter finds it.
    fn publish(&self) {
        if let Some([total, _]) = self.shared {
            total.store(self.used, Ordering::Release);
        }
    }

    pub fn fd(&self) -> RawFd {
        self.group.as_raw_fd()
    }

    /// Answers every event waiting; `run` lists the run's processes (asked only near the limit).
    pub fn serve(&mut self, run: &dyn Fn() -> Vec<i32>) {
        // u64s, for the metadata's alignment.
        let mut buf = [0u64; 1024];
        loop {
            // SAFETY: reads into the buffer's bytes.
            let n = unsafe { libc::read(self.group.as_raw_fd(), buf.as_mut_ptr().cast(), std::mem::size_of_val(&buf)) };
            if n <= 0 {
                return;
            }
            // SAFETY: the buffer's bytes, as many as were read.
            let bytes = unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), n as usize) };
            let mut at = 0;
            let meta = std::mem::size_of::<libc::fanotify_event_metadata>();
            while at + meta <= bytes.len() {
                // SAFETY: a whole metadata struct lies at `at`.
                let m: libc::fanotify_event_metadata = unsafe { std::ptr::read_unaligned(bytes[at..].as_ptr().cast()) };
                let len = m.event_len as usize;
                if len < meta || at + len > bytes.len() {
                    break;
                }
                let range = bytes.get(at + m.metadata_len as usize..at + len).and_then(range_of);
                if m.fd >= 0 {
                    if let Some(s) = self.shared {
                        s[1].fetch_max(m.fd as u64, Ordering::Relaxed);
                    }
                    // SAFETY: the event's descriptor, ours to close.
                    let file = unsafe { OwnedFd::from_raw_fd(m.fd) };
                    let allow = self.judge(&file, m.pid, range, run);
                    answer(&self.group, m.fd, allow);
                }
                at += len;
            }
        }
    }

    /// Whether the access may go on.
    fn judge(&mut self, file: &OwnedFd, tid: i32, range: Option<(u64, u64)>, run: &dyn Fn() -> Vec<i32>) -> bool {
        let Some(st) = fstat(file.as_raw_fd()) else { return true };
        let key = (st.st_dev, st.st_ino);
        let allocated = st.st_blocks as u64 * 512;
        // The thread's previous call has ended.
        if let Some((was, bytes)) = self.pending.remove(&tid) {
            self.made(was, bytes);
            if was != key {
                self.look_again(was);
            }
        }
        // An inode number is given again once its file is gone: a file with another handle is a
        // new file, and the old one's count goes with it (nothing held it any longer). Only a
        // file kept is asked for its handle: most accesses are to files the run never wrote.
        if self.files.contains_key(&key) {
            let this = handle(file.as_raw_fd());
            if self.files.get(&key).is_some_and(|t| t.handle != this) {
                self.change(key, |t| t.gone = true);
                self.files.remove(&key);
                self.pending.retain(|_, (k, _)| *k != key);
            }
        }
        let size = st.st_size as u64;
        let is_mapped = self.files.get(&key).is_some_and(|t| t.mapped && !t.gone);
        // What a write or an allocation on a mapped file makes the file longer by: the mapping,
        // grown later, may fill all of it.
        let mut extends = 0;
        let (kind, growth) = match range {
            // A file a shared mapping may fill grows by what a truncation adds (a mapping grown
            // later can reach it without a call); any other truncation allocates nothing.
            Some((length, 0)) if is_mapped => (Access::Map, length.saturating_sub(size)),
            Some((_, 0)) | None => (Access::Read, 0),
            Some((offset, count)) => {
                let kind = access(tid);
                let end = offset.saturating_add(count);
                let growth = match kind {
                    Access::Read | Access::Frees => 0,
                    Access::Write => count,
                    Access::Allocate => holes(file.as_raw_fd(), size, offset, count),
                    // The whole file: the mapping may be grown later to cover all of it.
                    Access::Map => holes(file.as_raw_fd(), size, 0, size.max(end)),
                };
                // A mapped file made longer by a write or an allocation: the mapping may fill
                // all that it adds, as after a truncation; that part counts for good, the rest
                // (what lands where the floor does not reach: an appending write, wherever the
                // event says it goes) until the write is made.
                if matches!(kind, Access::Write | Access::Allocate) && is_mapped {
                    extends = end.saturating_sub(size);
                    (kind, growth.saturating_sub(extends))
                } else {
                    (kind, growth)
                }
            }
        };
        let mapped = kind == Access::Map;
        // A mapped file is kept even when it has no hole yet: what makes it longer counts.
        self.seen(key, file, allocated, growth > 0 || mapped);
        if mapped || is_mapped {
            // What it has now counts while it is mapped: a hole punched under the mapping is
            // filled again through it without an event.
            self.change(key, |t| {
                t.mapped = true;
                t.floor = t.floor.max(allocated);
            });
        }
        let growth_all = growth + extends;
        if growth_all == 0 {
            self.total();
            return true;
        }
        if self.total() + growth_all > self.limit {
            self.recount(run);
        }
        // A file deleted a moment ago can still be there: the kernel may finish its last close
        // a little later. Before a refusal that such files decide, they get that moment.
        let mut waits = 0;
        while self.lingering && self.used + growth_all > self.limit && waits < LINGER_WAITS {
            std::thread::sleep(LINGER_STEP);
            self.recount(run);
            waits += 1;
        }
        if self.used + growth_all <= self.limit {
            if extends > 0 {
                self.change(key, |t| t.floor = t.floor.max(allocated) + extends);
            }
            if mapped {
                // A mapping fills its holes whenever it writes to them: counted now.
                self.change(key, |t| {
                    t.floor = t.floor.max(allocated) + growth;
                    t.mapped = true;
                });
            } else if growth > 0 {
                self.change(key, |t| {
                    if t.writers == 0 {
                        t.mark = allocated;
                        t.owed = 0;
                        t.unmade = 0;
                    }
                    t.writers += 1;
                    t.owed += growth;
                    t.unmade += growth;
                });
                self.pending.insert(tid, (key, growth));
            }
            self.total();
            return true;
        }
        self.refused += 1;
        if self.first.is_none() {
            self.added_then = self.used;
            self.first = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
                .ok()
                .map(|p| p.to_string_lossy().into_owned());
        }
        false
    }

    /// Keeps what the file has now; a file first seen being written starts counting here.
    fn seen(&mut self, key: (u64, u64), file: &OwnedFd, allocated: u64, writes: bool) {
        match self.files.contains_key(&key) {
            // The same file (the same handle): one taken for gone was still open after all.
            true => self.change(key, |t| {
                t.gone = false;
                t.now = allocated;
            }),
            false if writes => {
                let handle = handle(file.as_raw_fd());
                self.files.insert(
                    key,
                    Tracked {
                        base: allocated,
                        now: allocated,
                        floor: 0,
                        mapped: false,
                        handle,
                        gone: false,
                        writers: 0,
                        unmade: 0,
                        mark: 0,
                        owed: 0,
                    },
                );
            }
            false => {}
        }
    }

    /// Changes what is kept of one file, and the sum with it.
    fn change(&mut self, key: (u64, u64), f: impl FnOnce(&mut Tracked)) {
        if let Some(t) = self.files.get_mut(&key) {
            let before = t.added();
            f(t);
            self.files_added = self.files_added - before + t.added();
        }
    }

    /// A thread's write to the file `key` was made: once none is left, the file has all it
    /// will get from them.
    fn made(&mut self, key: (u64, u64), bytes: u64) {
        self.change(key, |t| {
            t.writers = t.writers.saturating_sub(1);
            t.unmade = t.unmade.saturating_sub(bytes);
            if t.writers == 0 {
                t.owed = 0;
                t.unmade = 0;
            }
        });
    }

    /// What the run added, with the writes let through and perhaps not made yet.
    fn total(&mut self) -> u64 {
        self.used = self.carried + self.files_added;
        self.peak = self.peak.max(self.used);
        self.publish();
        self.used
    }

    /// Looks at one file again through its handle: whether the kernel still has it, and what
    /// it has now.
    fn look_again(&mut self, key: (u64, u64)) -> Look {
        let root = self.roots.iter().find(|(dev, _)| *dev == key.0).map(|(_, fd)| fd.as_raw_fd());
        let h = self.files.get(&key).and_then(|t| t.handle.as_ref());
        let (Some(root), Some(h)) = (root, h) else { return Look::Unseen };
        match by_handle(root, h) {
            // Still there, deleted or not. A deleted file whose handle still opens is held by
            // something (a descriptor in a socket, a mapping, a thread's own descriptor table,
            // a process outside the run) that the run may take it back from: it keeps counting.
            Ok(fd) => match fstat(fd.as_raw_fd()) {
                Some(st) => {
                    self.change(key, |t| t.now = st.st_blocks as u64 * 512);
                    if st.st_nlink == 0 { Look::Unlinked } else { Look::There }
                }
                None => Look::There,
            },
            Err(libc::ESTALE) => Look::Freed,
            Err(_) => Look::Unseen,
        }
    }

    /// Looks at every file the run wrote again: what it has now, whether it is gone, and which
    /// threads with a write let through have ended.
    fn recount(&mut self, run: &dyn Fn() -> Vec<i32>) {
        let mut open: Option<Vec<(u64, u64)>> = None;
        let keys: Vec<(u64, u64)> = self.files.iter().filter(|(_, t)| !t.gone).map(|(k, _)| *k).collect();
        self.lingering = false;
        for key in keys {
            // Deleted: gone, unless a process of the run still holds it open. A file that
            // cannot be looked at again keeps what it was last seen to have.
            match self.look_again(key) {
                Look::Freed => {
                    let held = open.get_or_insert_with(|| open_files(&run())).contains(&key);
                    self.change(key, |t| t.gone = !held);
                }
                Look::Unlinked => {
                    let held = open.get_or_insert_with(|| open_files(&run())).contains(&key);
                    self.lingering |= !held;
                }
                Look::There | Look::Unseen => {}
            }
        }
        let mut made = Vec::new();
        self.pending.retain(|tid, (key, bytes)| {
            let running = std::path::Path::new(&format!("/proc/{tid}")).exists();
            if !running {
                made.push((*key, *bytes));
            }
            running
        });
        for (key, bytes) in made {
            self.made(key, bytes);
        }
        self.total();
    }
}

/// How long a refusal that deleted files still there decide waits for the kernel to free
/// them: `LINGER_WAITS` looks, `LINGER_STEP` apart.
const LINGER_WAITS: u32 = 10;
const LINGER_STEP: std::time::Duration = std::time::Duration::from_millis(5);

/// What a file looked at again through its handle is.
#[derive(PartialEq, Eq)]
enum Look {
    There,
    /// Deleted and still there: it counts (see [`Counter::look_again`]).
    Unlinked,
    /// Its handle no longer opens: deleted, it counts only while a process of the run holds
    /// it open.
    Freed,
    /// Not known (no handle, or it cannot be opened): it keeps what it was last seen to have.
    Unseen,
}

/// Answers the event that came with the descriptor `fd`: on, or refused with ENOSPC. A number
/// no event waits on is an error of the write, and nothing more.
fn answer(group: &OwnedFd, fd: RawFd, allow: bool) {
    let response = if allow { FAN_ALLOW } else { FAN_DENY | ((libc::ENOSPC as u32) << FAN_ERRNO_SHIFT) };
    let answer = libc::fanotify_response { fd, response };
    // SAFETY: writes the answer struct.
    unsafe {
        libc::write(group.as_raw_fd(), (&raw const answer).cast(), std::mem::size_of::<libc::fanotify_response>())
    };
}

/// The range an event's information records carry.
fn range_of(info: &[u8]) -> Option<(u64, u64)> {
    let mut i = 0;
    while i + 4 <= info.len() {
        let kind = info[i];
        let len = u16::from_ne_bytes([info[i + 2], info[i + 3]]) as usize;
        if len == 0 || i + len > info.len() {
            return None;
        }
        if kind == INFO_RANGE && len >= 24 {
            let word = |at: usize| u64::from_ne_bytes(info[i + at..i + at + 8].try_into().unwrap_or([0; 8]));
            return Some((word(8), word(16)));
        }
        i += len;
    }
    None
}

fn fstat(fd: RawFd) -> Option<libc::stat> {
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat fills the struct.
    (unsafe { libc::fstat(fd, &mut st) } == 0).then_some(st)
}

/// The file's handle (its header and bytes).
fn handle(fd: RawFd) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; 8 + MAX_HANDLE];
    buf[..4].copy_from_slice(&(MAX_HANDLE as u32).to_ne_bytes());
    let mut mount_id = 0i32;
    // SAFETY: the buffer holds a file_handle header and MAX_HANDLE bytes; an empty path names fd.
    let r = unsafe {
        libc::syscall(
            libc::SYS_name_to_handle_at,
            fd,
            c"".as_ptr(),
            buf.as_mut_ptr(),
            &mut mount_id,
            libc::AT_EMPTY_PATH,
        )
    };
    (r == 0).then_some(buf)
}

fn by_handle(root: RawFd, handle: &[u8]) -> Result<OwnedFd, i32> {
    let mut h = handle.to_vec();
    // SAFETY: a handle name_to_handle_at wrote; O_PATH opens nothing for reading.
    let fd = unsafe { libc::syscall(libc::SYS_open_by_handle_at, root, h.as_mut_ptr(), libc::O_PATH | libc::O_CLOEXEC) }
        as i32;
    if fd < 0 {
        return Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO));
    }
    // SAFETY: a new descriptor, owned here.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The files the processes hold open.
fn open_files(pids: &[i32]) -> Vec<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let mut out = Vec::new();
    for pid in pids {
        for entry in std::fs::read_dir(format!("/proc/{pid}/fd")).into_iter().flatten().flatten() {
            if let Ok(m) = std::fs::metadata(entry.path()) {
                out.push((m.dev(), m.ino()));
            }
        }
    }
    out
}

/// What the call an event comes from does to the file. Only the call and its arguments are
/// read, never what its descriptors name: another thread sharing them could change that between
/// the call and the look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    /// Reads it (a read, a private mapping, a program run).
    Read,
    /// May write all of its range anywhere (an appending descriptor writes at the end, whatever
    /// position the event names), or a call not known: all of it counts until it is made.
    Write,
    /// Allocates the range's holes: `fallocate`, or a page fault outside any call.
    Allocate,
    /// Maps it shared: the pages may be written later, its holes count at once.
    Map,
    /// Frees room or moves it (punching a hole, collapsing a range).
    Frees,
}

/// What the thread `tid`, waiting in the call behind an event, does to the file.
fn access(tid: i32) -> Access {
    let Some((nr, args)) = syscall_of(tid) else { return Access::Write };
    let arg = |i: usize| args.get(i).copied().unwrap_or(u64::MAX);
    match nr {
        libc::SYS_read | libc::SYS_pread64 | libc::SYS_readv | libc::SYS_preadv | libc::SYS_preadv2 => Access::Read,
        libc::SYS_execve | libc::SYS_execveat => Access::Read,
        libc::SYS_fallocate if arg(1) & (FALLOC_PUNCH_HOLE | FALLOC_COLLAPSE_RANGE) != 0 => Access::Frees,
        libc::SYS_fallocate => Access::Allocate,
        libc::SYS_mmap if arg(3) & libc::MAP_SHARED as u64 != 0 => Access::Map,
        libc::SYS_mmap => Access::Read,
        // Not in a call: a page fault on a mapping.
        -1 => Access::Allocate,
        // Writes, and copies (`sendfile`, `splice`, `copy_file_range`), whose event does not
        // say which side it is for.
        _ => Access::Write,
    }
}

const FALLOC_PUNCH_HOLE: u64 = 0x02;
const FALLOC_COLLAPSE_RANGE: u64 = 0x08;

/// The call the thread waits in and its arguments (`/proc/TID/syscall`).
fn syscall_of(tid: i32) -> Option<(i64, Vec<u64>)> {
    let text = std::fs::read_to_string(format!("/proc/{tid}/syscall")).ok()?;
    let mut words = text.split_whitespace();
    let nr = words.next()?.parse::<i64>().ok()?;
    let args = words.take(6).map(|w| u64::from_str_radix(w.trim_start_matches("0x"), 16).unwrap_or(u64::MAX)).collect();
    Some((nr, args))
}

/// How much of `[offset, offset + count)` the file has not allocated: past its end, and its
/// holes before it (`SEEK_DATA`, `SEEK_HOLE`).
fn holes(fd: RawFd, size: u64, offset: u64, count: u64) -> u64 {
    let end = offset.saturating_add(count);
    let mut missing = end.saturating_sub(offset.max(size));
    let stop = end.min(size);
    let mut at = offset;
    while at < stop {
        // SAFETY: lseek on a descriptor the keeper owns (the event's own, not the writer's).
        let data = unsafe { libc::lseek(fd, at as i64, libc::SEEK_DATA) };
        if data < 0 {
            // No data from here to the end: all a hole.
            missing += stop - at;
            break;
        }
        let data = data as u64;
        missing += data.min(stop).saturating_sub(at);
        if data >= stop {
            break;
        }
        // SAFETY: as above.
        let hole = unsafe { libc::lseek(fd, data as i64, libc::SEEK_HOLE) };
        if hole < 0 || hole as u64 <= data {
            break;
        }
        at = hole as u64;
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_versions_are_read_from_the_release() {
        assert_eq!(version("6.18.44-fc-v1147"), Some((6, 18)));
        assert_eq!(version("6.14.0"), Some((6, 14)));
        assert!(version("6.8.0-50-generic").unwrap() < FIRST_KERNEL);
        assert_eq!(version("x"), None);
    }

    #[test]
    fn scratch_is_tmp_and_a_tmpdir_outside_it() {
        assert_eq!(scratch(None), vec!["/tmp"]);
        assert_eq!(scratch(Some("/tmp/me")), vec!["/tmp"]);
        assert_eq!(scratch(Some("/var/tmp")), vec!["/tmp", "/var/tmp"]);
        assert_eq!(scratch(Some("rel")), vec!["/tmp"]);
    }

    #[test]
    fn the_range_record_is_found_among_others() {
        let mut info = Vec::new();
        // Another record (a pidfd's: type 4, 8 bytes) first.
        info.extend_from_slice(&[4, 0, 8, 0, 0, 0, 0, 0]);
        info.extend_from_slice(&[INFO_RANGE, 0, 24, 0, 0, 0, 0, 0]);
        info.extend_from_slice(&4096u64.to_ne_bytes());
        info.extend_from_slice(&8192u64.to_ne_bytes());
        assert_eq!(range_of(&info), Some((4096, 8192)));
        assert_eq!(range_of(&info[..8]), None);
        assert_eq!(range_of(&[6, 0, 0, 0]), None);
    }

    #[test]
    fn writes_not_made_count_whole_less_what_the_file_gained_for_them() {
        const M: u64 = 1 << 20;
        const K: u64 = 1 << 10;
        // A file that had 1 MiB when the first write counted was let through.
        let file = |now: u64, writers: u32, unmade: u64, owed: u64| Tracked {
            base: 0,
            now,
            floor: 0,
            mapped: false,
            handle: None,
            gone: false,
            writers,
            unmade,
            mark: M,
            owed,
        };
        // Two writes of 4 MiB: nothing shown yet; one landed (which one the file cannot say);
        // one made (its thread went on), the other not landed yet; both landed.
        assert_eq!(file(M, 2, 8 * M, 8 * M).added(), 9 * M);
        assert_eq!(file(5 * M, 2, 8 * M, 8 * M).added(), 9 * M);
        assert_eq!(file(5 * M, 1, 4 * M, 8 * M).added(), 9 * M);
        assert_eq!(file(9 * M, 1, 4 * M, 8 * M).added(), 9 * M);
        // Two threads rewriting the file in place, 64 KiB at a time: the many writes made owe
        // nothing more, only the two not made count.
        assert_eq!(file(M, 2, 128 * K, 7 * M).added(), M + 128 * K);
        // A truncation under them gives nothing back of what they owe.
        assert_eq!(file(0, 2, 8 * M, 8 * M).added(), 8 * M);
        // What a shared mapping filled is its floor's, not the writes': they count whole.
        let mapped = Tracked { mapped: true, floor: 5 * M, ..file(5 * M, 1, 4 * M, 4 * M) };
        assert_eq!(mapped.added(), 9 * M);
        // Once no thread with a write let through is left, the file counts what it has.
        assert_eq!(file(5 * M, 0, 0, 0).added(), 5 * M);
        assert_eq!(Tracked { gone: true, ..file(5 * M, 2, 8 * M, 8 * M) }.added(), 0);
    }
}
