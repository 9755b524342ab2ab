//! Directory listings kept from one run to the next, so that a start asks the kernel one
//! `statx` per directory where it would list it and probe each entry.
//!
//! Planning a run looks at a few hundred paths (the credentials and start-up files of each home,
//! the directories the rules cover, the scratch trees' sockets). Almost all of them come down to
//! the entries of some sixty directories, which seldom change. A listing is kept with the
//! directory's status (device, inode, change and modification times) and reused only while a
//! fresh `statx` of the same path gives the same status:
//!
//! - the kernel sets a directory's change time to the current time whenever an entry is made,
//!   removed, renamed or replaced in it, and nothing can set it otherwise (unlike the
//!   modification time); another directory at that path (a link or a mount changed on the way)
//!   has another device or inode;
//! - the times are coarse (a clock tick), so a listing is kept only when the directory's last
//!   change is at least [`SETTLED`] old: a change made after the listing cannot then fall into
//!   the same tick;
//! - the whole store is dropped when the wall clock was set since it was written, or the
//!   machine restarted (the difference between the wall clock and the boot clock moved);
//! - only filesystems that keep those times locally are trusted (not network or FUSE
//!   filesystems, nor `/proc`-like ones), and no directory that finds names without regard to
//!   case;
//! - the status is taken on the open directory before its entries are read.
//!
//! A path is then answered from its parent's listing, walking down from `/`; a link on the way,
//! a directory that cannot be listed or a very large one leave the answer to the kernel, as
//! before. The store is a file below the account's own home that every run's view masks (it
//! names entries of directories the run may not list, and a run that wrote it would plan the
//! next start), written by the process that plans, before it locks itself; it is read only
//! when it is this user's own, nobody else may write it, and it is not where the run may write.
//! A start reads only the listings it asks for (see [`Raw`]). In the store's place the view
//! puts, read-only, what this run looked at of the directories the command may list itself
//! ([`snapshot`]): nested levels read that, on the same terms, and write nothing.

use std::os::unix::fs::MetadataExt;
use std::sync::Mutex;

use super::policy::Entry;

// The paths hashed here are the process's own; the fast hasher the analysis uses serves.
type HashMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// The directory of the store, below sandbox-bash's state directory.
pub const DIR: &str = "facts";

/// The store's file in [`DIR`].
pub(super) const FILE: &str = "listings";

/// The directory of the analyses kept from one run to the next, in [`DIR`] (see
/// `analysis::kept`): masked with the rest of the store in every run's view.
const ANALYSES: &str = "analyses";

/// How old a directory's last change must be for its listing to be kept, in seconds.
const SETTLED: i64 = 2;

/// How far the wall clock may have moved against the boot clock before the store is dropped,
/// in nanoseconds (well below [`SETTLED`]).
const CLOCK_SLACK: i64 = 500_000_000;

/// Directories with more entries than this are not kept entry by entry: their paths are asked
/// of the kernel.
const MAX_ENTRIES: usize = 1024;

/// The room the tables of a run's answers start with: a start looks at about a hundred
/// directories and asks about some 350 paths (a home with the usual dot-files; more grow the
/// tables). Each start's memory is new to it, and a table much larger than what it holds
/// costs a page fault for every page its entries are spread over.
const TABLE_DIRS: usize = 112;
const TABLE_PATHS: usize = 448;

/// Listings kept at most; the ones this run did not use go first.
const MAX_LISTINGS: usize = 2048;

/// The store's first bytes (its format).
const MAGIC: &[u8; 8] = b"SBLIST02";

/// tmpfs's magic number (what the view's stand-ins are mounted from).
const TMPFS: libc::c_long = 0x0102_1994;

/// Filesystems whose directories' times are kept by this kernel, on this machine.
const TRUSTED_FS: &[libc::c_long] = &[
    0xEF53,      // ext2/3/4
    0x5846_5342, // xfs
    0x9123_683E, // btrfs
    TMPFS,       // tmpfs
    0xF2F5_2010, // f2fs
    0x794C_7630, // overlayfs (a container's root)
    0x2FC1_2FC1, // zfs
];

/// What a directory's status says about its entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    ctime: (i64, i64),
    mtime: (i64, i64),
}

impl Stamp {
    fn of(m: &std::fs::Metadata) -> Stamp {
        Stamp { dev: m.dev(), ino: m.ino(), ctime: (m.ctime(), m.ctime_nsec()), mtime: (m.mtime(), m.mtime_nsec()) }
    }

    fn of_stat(st: &libc::stat) -> Stamp {
        #[allow(clippy::unnecessary_cast)]
        Stamp {
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            ctime: (st.st_ctime as i64, st.st_ctime_nsec as i64),
            mtime: (st.st_mtime as i64, st.st_mtime_nsec as i64),
        }
    }
}

/// A directory's listing as kept: `None` entries for a directory too large to keep.
#[derive(Clone, Debug)]
struct Kept {
    stamp: Stamp,
    entries: Option<Names>,
}

/// A directory's entries as the store writes them, one after the other (each a type, its
/// name's length in two bytes, the name; type 1 link, 2 directory, 4 socket or pipe): in the
/// store's own bytes for a listing read from it (nothing is copied, and only the pages of the
/// listings a start asks for are touched), or in bytes of their own for one listed anew.
#[derive(Clone, Default)]
struct Names {
    bytes: std::sync::Arc<Bytes>,
    /// Where the entries are in `bytes`.
    at: usize,
    end: usize,
    count: usize,
}

impl std::fmt::Debug for Names {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter().map(|(name, kind)| (String::from_utf8_lossy(name), kind))).finish()
    }
}

impl Names {
    fn of(entries: &[Entry]) -> Names {
        let mut bytes = Vec::with_capacity(entries.iter().map(|e| 3 + e.name.len()).sum());
        for e in entries {
            put_entry(&mut bytes, &e.name, u8::from(e.link) | (u8::from(e.dir) << 1) | (u8::from(e.special) << 2));
        }
        Names::owned(bytes, entries.len())
    }

    fn owned(bytes: Vec<u8>, count: usize) -> Names {
        let end = bytes.len();
        Names { bytes: std::sync::Arc::new(Bytes::Owned(bytes)), at: 0, end, count }
    }

    /// The entries' bytes, as the store writes them.
    fn region(&self) -> &[u8] {
        self.bytes.get(self.at..self.end).unwrap_or_default()
    }

    /// Each entry's name and type. The bytes were checked when the names were made (see
    /// [`check_entries`]).
    fn iter(&self) -> impl Iterator<Item = (&[u8], u8)> {
        let mut r = Reader(self.region());
        std::iter::from_fn(move || next_entry(&mut r))
    }

    #[cfg(test)]
    fn push(&mut self, name: &str, kind: u8) {
        let mut bytes = self.region().to_vec();
        put_entry(&mut bytes, name, kind);
        *self = Names::owned(bytes, self.count + 1);
    }

    /// The type of the entry named `name`, when there is one.
    fn find(&self, name: &str) -> Option<u8> {
        self.iter().find(|&(n, _)| n == name.as_bytes()).map(|(_, kind)| kind)
    }

    fn entries(&self) -> Vec<Entry> {
        self.iter()
            .filter_map(|(name, kind)| {
                Some(Entry {
                    name: std::str::from_utf8(name).ok()?.to_string(),
                    link: kind & 1 != 0,
                    dir: kind & 2 != 0,
                    special: kind & 4 != 0,
                })
            })
            .collect()
    }
}

/// One entry, as the store writes it.
fn put_entry(bytes: &mut Vec<u8>, name: &str, kind: u8) {
    bytes.push(kind);
    bytes.extend_from_slice(&(name.len() as u16).to_le_bytes());
    bytes.extend_from_slice(name.as_bytes());
}

/// The entry `r` is at (its name and type), read past it.
fn next_entry<'a>(r: &mut Reader<'a>) -> Option<(&'a [u8], u8)> {
    let kind = r.take(1)?[0];
    let len = u16::from_le_bytes(r.take(2)?.try_into().ok()?) as usize;
    Some((r.take(len)?, kind))
}

/// Whether `bytes` are exactly `count` entries. (Their names are not checked for UTF-8 here: a
/// name that is not never equals one asked for, and [`Names::entries`] leaves it out; the
/// record's checksum already catches a damaged one.)
fn check_entries(bytes: &[u8], count: usize) -> bool {
    let mut r = Reader(bytes);
    (0..count).all(|_| next_entry(&mut r).is_some()) && r.0.is_empty()
}

/// The listings kept: those read from the store's file, as read (see [`Raw`]), and what this
/// run found anew (a listing kept, or `None`: one that no longer holds).
#[derive(Clone, Default)]
struct Store {
    raw: Raw,
    fresh: HashMap<String, Option<Kept>>,
}

impl Store {
    fn get(&self, dir: &str) -> Option<Kept> {
        match self.fresh.get(dir) {
            Some(k) => k.clone(),
            None => self.raw.find(dir),
        }
    }

    fn insert(&mut self, dir: String, kept: Kept) {
        self.fresh.insert(dir, Some(kept));
    }

    fn remove(&mut self, dir: &str) {
        self.fresh.insert(dir.to_string(), None);
    }

    /// How many listings the store holds now.
    fn len(&self) -> usize {
        let read = (0..self.raw.count)
            .filter_map(|i| self.raw.record(i))
            .filter(|(path, _)| !std::str::from_utf8(path).is_ok_and(|p| self.fresh.contains_key(p)))
            .count();
        read + self.fresh.values().filter(|k| k.is_some()).count()
    }

    #[cfg(test)]
    fn contains_key(&self, dir: &str) -> bool {
        self.get(dir).is_some()
    }

    /// The store's bytes, with only the listings `only` names when it says.
    fn encode(&self, only: Option<&HashMap<String, (Seen, u32)>>) -> Vec<u8> {
        let wanted =
            |path: &[u8]| only.is_none_or(|seen| std::str::from_utf8(path).is_ok_and(|p| seen.contains_key(p)));
        let mut records: Vec<(&[u8], std::borrow::Cow<'_, [u8]>)> = Vec::new();
        for i in 0..self.raw.count {
            let Some((path, record)) = self.raw.record(i) else { continue };
            let overridden = std::str::from_utf8(path).is_ok_and(|p| self.fresh.contains_key(p));
            if !overridden && wanted(path) {
                records.push((path, std::borrow::Cow::Borrowed(record)));
            }
        }
        // The store's own listings come in the order of their paths; the few found anew are put
        // in that order too, so that the sort below merges two runs.
        let mut found: Vec<(&[u8], std::borrow::Cow<'_, [u8]>)> = Vec::new();
        for (path, kept) in &self.fresh {
            if let Some(k) = kept
                && wanted(path.as_bytes())
            {
                found.push((path.as_bytes(), std::borrow::Cow::Owned(encode_record(path, k))));
            }
        }
        found.sort_unstable_by(|a, b| a.0.cmp(b.0));
        records.append(&mut found);
        assemble(records)
    }
}

/// The store's bytes for these listings (each a path and its encoded record), in any order.
fn assemble(mut records: Vec<(&[u8], std::borrow::Cow<'_, [u8]>)>) -> Vec<u8> {
    // (The stable sort finds runs already in order and merges them: a store rewritten is one run
    // and a few records. Of two records of one path, the first given is kept.)
    records.sort_by(|a, b| a.0.cmp(b.0));
    records.dedup_by(|a, b| a.0 == b.0);
    let table_at = 8 + 8 + 4;
    let body_at = table_at + 4 * records.len() + 8;
    let mut out = Vec::with_capacity(body_at + records.iter().map(|r| r.1.len()).sum::<usize>());
    out.extend_from_slice(MAGIC);
    let (real, boot) = clocks();
    out.extend_from_slice(&(real - boot).to_le_bytes());
    out.extend_from_slice(&(records.len() as u32).to_le_bytes());
    let mut at = body_at;
    for (_, record) in &records {
        out.extend_from_slice(&(at as u32).to_le_bytes());
        at += record.len();
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    for (_, record) in &records {
        out.extend_from_slice(record);
    }
    out
}

/// The store's file as read: a header (its format, the clocks' difference, how many listings
/// and where each begins, in the order of their paths, then a checksum of the header), then
/// the listings. A start looks at a few dozen of the listings a store may hold (every
/// workspace and home this account ran in): each is found by a binary search on its path, and
/// read, with its own checksum, only when asked for.
#[derive(Clone, Default)]
struct Raw {
    bytes: std::sync::Arc<Bytes>,
    count: usize,
}

/// The store's bytes: the file mapped (see [`load`]), or bytes in memory.
enum Bytes {
    Mapped(Mapped),
    Owned(Vec<u8>),
}

impl Default for Bytes {
    fn default() -> Self {
        Bytes::Owned(Vec::new())
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m.bytes(),
            Bytes::Owned(v) => v,
        }
    }
}

/// A file mapped read-only and private. sandbox-bash never writes the store in place: a run
/// writes a new file and renames it over the old one, which leaves a mapping of the old file as
/// it was on a local filesystem (the old file lives on while it is mapped). Only a store on one
/// of [`TRUSTED_FS`] is mapped: on a network or FUSE filesystem another machine's rename can
/// free the old file under the mapping, and a store there is read whole instead. (A process of
/// the account itself could still change the file in place while it is mapped, or cut it short,
/// which ends the start with `SIGBUS` before anything runs; such a process could as well write
/// the store whole. Every read of the bytes is bounds-checked.)
struct Mapped {
    at: std::ptr::NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value alone; it is unmapped once, on drop.
#[allow(unsafe_code)]
unsafe impl Send for Mapped {}
// SAFETY: as above; nothing in this process writes through it (other processes of the account
// could change the file's bytes: see the type's comment).
#[allow(unsafe_code)]
unsafe impl Sync for Mapped {}

impl Mapped {
    /// `file` mapped whole, `len` bytes long (as its status just said); `None` for an empty file.
    fn of(file: &std::fs::File, len: usize) -> Option<Mapped> {
        use std::os::fd::AsRawFd;
        if len == 0 {
            return None;
        }
        // SAFETY: a new private read-only mapping of an open file; the kernel picks the address.
        #[allow(unsafe_code)]
        let at =
            unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_PRIVATE, file.as_raw_fd(), 0) };
        if at == libc::MAP_FAILED {
            return None;
        }
        match std::ptr::NonNull::new(at.cast()) {
            Some(at) => Some(Mapped { at, len }),
            None => {
                // SAFETY: the mapping just made, at address zero, which is not used.
                #[allow(unsafe_code)]
                unsafe {
                    libc::munmap(at, len);
                }
                None
            }
        }
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: `len` bytes mapped readable at `at` for as long as `self` lives.
        #[allow(unsafe_code)]
        unsafe {
            std::slice::from_raw_parts(self.at.as_ptr(), self.len)
        }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `of`, unmapped only here.
        #[allow(unsafe_code)]
        unsafe {
            libc::munmap(self.at.as_ptr().cast(), self.len);
        }
    }
}

/// Where the table of listings begins in the store's file.
const TABLE_AT: usize = 8 + 8 + 4;

impl Raw {
    #[cfg(test)]
    fn parse(bytes: Vec<u8>, clocks: (i64, i64)) -> Option<Raw> {
        Raw::parse_bytes(Bytes::Owned(bytes), clocks)
    }

    fn parse_bytes(bytes: Bytes, (real, boot): (i64, i64)) -> Option<Raw> {
        let mut r = Reader(&bytes);
        if r.take(8)? != MAGIC {
            return None;
        }
        let offset = r.i64()?;
        if real
            .checked_sub(boot)
            .and_then(|d| d.checked_sub(offset))
            .is_none_or(|moved| moved.unsigned_abs() > CLOCK_SLACK as u64)
        {
            return None;
        }
        let count = r.u32()? as usize;
        let table_end = TABLE_AT.checked_add(count.checked_mul(4)?)?;
        let header = bytes.get(..table_end)?;
        let sum = bytes.get(table_end..table_end + 8)?;
        if checksum(header) != u64::from_le_bytes(sum.try_into().ok()?) {
            return None;
        }
        Some(Raw { bytes: std::sync::Arc::new(bytes), count })
    }

    /// Listing `i`: its path and the whole record (checksum, length, path, status, entries).
    fn record(&self, i: usize) -> Option<(&[u8], &[u8])> {
        let at = TABLE_AT + 4 * i;
        let start = u32::from_le_bytes(self.bytes.get(at..at + 4)?.try_into().ok()?) as usize;
        let mut r = Reader(self.bytes.get(start..)?);
        r.take(8)?;
        let len = r.u32()? as usize;
        let record = self.bytes.get(start..start.checked_add(12)?.checked_add(len)?)?;
        let mut body = Reader(&record[12..]);
        let path_len = body.u32()? as usize;
        Some((body.take(path_len)?, record))
    }

    /// Which listing is `dir`'s, by a binary search on the paths.
    fn position(&self, dir: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (path, _) = self.record(mid)?;
            match path.cmp(dir.as_bytes()) {
                std::cmp::Ordering::Equal => return Some(mid),
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        None
    }

    /// `dir`'s listing, when the store holds it whole. Its entries stay where they are.
    fn find(&self, dir: &str) -> Option<Kept> {
        let (_, record) = self.record(self.position(dir)?)?;
        let (path, stamp, entries) = decode_record(record)?;
        if path != dir {
            return None;
        }
        let at = record.as_ptr() as usize - self.bytes.as_ptr() as usize;
        let entries = entries.map(|(from, to, count)| Names {
            bytes: std::sync::Arc::clone(&self.bytes),
            at: at + from,
            end: at + to,
            count,
        });
        Some(Kept { stamp, entries })
    }
}

/// One listing's record: a checksum of what follows the length, the length, then the path,
/// the status, and the entries (-1 for too many).
fn encode_record(path: &str, k: &Kept) -> Vec<u8> {
    let mut body = Vec::with_capacity(64 + path.len() + k.entries.as_ref().map_or(0, |n| n.region().len()));
    body.extend_from_slice(&(path.len() as u32).to_le_bytes());
    body.extend_from_slice(path.as_bytes());
    for v in [k.stamp.dev, k.stamp.ino] {
        body.extend_from_slice(&v.to_le_bytes());
    }
    for v in [k.stamp.ctime.0, k.stamp.ctime.1, k.stamp.mtime.0, k.stamp.mtime.1] {
        body.extend_from_slice(&v.to_le_bytes());
    }
    match &k.entries {
        None => body.extend_from_slice(&(-1i32).to_le_bytes()),
        Some(names) => {
            body.extend_from_slice(&(names.count as i32).to_le_bytes());
            body.extend_from_slice(names.region());
        }
    }
    let mut out = Vec::with_capacity(12 + body.len());
    out.extend_from_slice(&checksum(&body).to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// Where in a record its entries are (from, to) and how many.
type Span = (usize, usize, usize);

/// A record [`encode_record`] wrote, when it is whole: its path, the status, and its entries
/// (`None` for too many to keep).
fn decode_record(record: &[u8]) -> Option<(&str, Stamp, Option<Span>)> {
    let mut r = Reader(record);
    let sum = r.u64()?;
    let len = r.u32()? as usize;
    if r.0.len() != len || checksum(r.0) != sum {
        return None;
    }
    let len = r.u32()? as usize;
    let path = std::str::from_utf8(r.take(len)?).ok()?;
    let (dev, ino) = (r.u64()?, r.u64()?);
    let ctime = (r.i64()?, r.i64()?);
    let mtime = (r.i64()?, r.i64()?);
    let n = i32::from_le_bytes(r.take(4)?.try_into().ok()?);
    let stamp = Stamp { dev, ino, ctime, mtime };
    if n < 0 {
        return r.0.is_empty().then_some((path, stamp, None));
    }
    let count = n as usize;
    (count <= MAX_ENTRIES && check_entries(r.0, count)).then_some((
        path,
        stamp,
        Some((record.len() - r.0.len(), record.len(), count)),
    ))
}

/// The store and this run's answers.
struct Facts {
    /// The store's file, when this run may write it.
    file: Option<std::path::PathBuf>,
    kept: Store,
    /// Directories looked at, each with the look (see `look`) in which its listing was last
    /// found to hold.
    seen: HashMap<String, (Seen, u32)>,
    /// The status of those whose last change was settled when they were looked at (see
    /// [`SETTLED`]): a listing that still has that status after planning forgot holds as it
    /// was, since a change would have given the directory a newer time.
    stamps: HashMap<String, Stamp>,
    /// What each path asked about was found to be, by those listings (a start asks about a few
    /// hundred paths, most of them below the same few dozen directories), and in which look.
    found: HashMap<String, (Found, u32)>,
    /// Planning's look at the file system: each time it forgets, a new one begins, in which
    /// what was looked at before is looked at again when next asked.
    look: u32,
    /// Every directory this run looked at (what the listings handed to nested levels come from:
    /// see [`snapshot`]).
    used: rustc_hash::FxHashSet<String>,
    /// Something new to write.
    changed: bool,
    /// The wall clock at the start, in seconds.
    now: i64,
    /// The directory of the analyses kept from one run to the next (see
    /// `analysis::kept`), and whether this run may write there.
    analyses: Option<(std::path::PathBuf, bool)>,
    /// The listings were those the enclosing view gave a nested level in the store's place
    /// (see [`given_word`]).
    given: bool,
}

static FACTS: Mutex<Option<Facts>> = Mutex::new(None);

fn clocks() -> (i64, i64) {
    let read = |clock| {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid out-pointer; both clocks exist on every Linux.
        #[allow(unsafe_code)]
        unsafe {
            libc::clock_gettime(clock, &mut ts)
        };
        #[allow(clippy::unnecessary_cast)]
        (ts.tv_sec as i64).saturating_mul(1_000_000_000).saturating_add(ts.tv_nsec as i64)
    };
    (read(libc::CLOCK_REALTIME), read(libc::CLOCK_BOOTTIME))
}

/// The state directory the store lives in: the one below the account's own home (from
/// `/etc/passwd`), whatever `HOME` or `XDG_STATE_HOME` say. Every run's view masks its store
/// and keeps it out of reach, whatever home the run was given; a store where another run's
/// environment put it could have been written by a run that did not mask it.
pub fn state_dir() -> Option<String> {
    // Tests give each run a home of its own and must not touch the machine's.
    #[cfg(debug_assertions)]
    if let Some(h) = std::env::var_os("SANDBOX_BASH_TEST_ACCOUNT_HOME") {
        return Some(format!("{}/.local/state/sandbox-bash", h.to_string_lossy()));
    }
    crate::workspace::account_home(crate::exec::uid()).map(|h| format!("{h}/.local/state/sandbox-bash"))
}

/// Which store a start uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// The store, and this run may make its directory and write it (see [`keep`]).
    Write,
    /// The store, read only (`--sandbox-explain`).
    Read,
    /// Only what the enclosing run's view gives in the store's place (a nested level): a
    /// directory mounted there from a read-only tmpfs, which no command can make.
    Given,
}

/// The store asked for (its directory, and how it is used), until [`admit`] says where the
/// run may write.
static ASKED: Mutex<Option<(std::path::PathBuf, Use)>> = Mutex::new(None);

/// Asks for the store (in [`state_dir`]). Nothing is read before [`admit`]: until then every
/// question goes to the kernel.
pub fn open(how: Use) {
    let Some(state) = state_dir() else { return };
    if let Ok(mut asked) = ASKED.lock() {
        *asked = Some((std::path::Path::new(&state).join(DIR), how));
    }
}

/// Starts using the store asked for, unless its directory lies where a run may write:
/// `writable` (the workspace, the scratch trees), compared where each really is. A store a
/// command could write would be a command's word on what the next start sees.
pub fn admit(writable: &[&str]) {
    let Some((dir, how)) = ASKED.lock().ok().and_then(|mut a| a.take()) else { return };
    let write = how == Use::Write;
    let mut given: Option<std::os::fd::OwnedFd> = None;
    let Some(state) = dir.parent().and_then(|p| p.to_str()) else { return };
    // Where the state directory really is (the kernel's answer: the store is not in use yet).
    let real = crate::exec::canonicalize(state).unwrap_or_else(|_| state.to_string());
    let within = |outer: &str| {
        let outer = crate::exec::canonicalize(outer).unwrap_or_else(|_| outer.to_string());
        crate::scope::is_within(&real, &outer) || crate::scope::is_within(state, &outer)
    };
    if writable.iter().any(|w| within(w)) {
        return;
    }
    let usable = match how {
        Use::Write => crate::approval::make_dir(&dir),
        Use::Read => own_private_dir(&dir),
        Use::Given => {
            given = open_dir_path(&dir).filter(given_dir);
            given.is_some()
        }
    };
    let (now, _) = clocks();
    let mut facts = Facts {
        file: (usable && write).then(|| dir.join(FILE)),
        kept: Store::default(),
        seen: HashMap::with_capacity_and_hasher(TABLE_DIRS, Default::default()),
        stamps: HashMap::with_capacity_and_hasher(TABLE_DIRS, Default::default()),
        found: HashMap::with_capacity_and_hasher(TABLE_PATHS, Default::default()),
        look: 0,
        used: rustc_hash::FxHashSet::with_capacity_and_hasher(TABLE_DIRS, Default::default()),
        changed: false,
        now: now / 1_000_000_000,
        // Not for a nested level: what its enclosing view gives it holds listings only.
        analyses: (usable && how != Use::Given).then(|| (dir.join(ANALYSES), write)),
        given: given.is_some(),
    };
    // A nested level reads the listings through the very directory it checked.
    let loaded = match &given {
        Some(fd) => open_at(fd, FILE).and_then(load_file),
        None if usable => load(&dir.join(FILE)),
        None => None,
    };
    if let Some(raw) = loaded {
        facts.kept.raw = raw;
    }
    if let Ok(mut f) = FACTS.lock() {
        *f = Some(facts);
    }
}

/// [`given_dir`] for a path.
#[cfg(test)]
fn given_by_the_view(dir: &std::path::Path) -> bool {
    open_dir_path(dir).is_some_and(|fd| given_dir(&fd))
}

/// `dir` opened with `O_PATH`, a directory reached with no link at its end.
fn open_dir_path(dir: &std::path::Path) -> Option<std::os::fd::OwnedFd> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: a NUL-terminated path; the descriptor returned is owned at once.
    #[allow(unsafe_code)]
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC);
        (fd >= 0).then(|| <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd))
    }
}

/// The directory, open (with `O_PATH`), is the root of a mount of a read-only tmpfs, the
/// caller's own and nobody else's: what an enclosing view mounts in the store's place. Nothing
/// inside a run can make one (Landlock refuses every mount), so a store a command wrote,
/// wherever its run let it write, is never read for one; the run's word is then read through
/// this very descriptor, whatever the path leads to by then.
fn given_dir(fd: &std::os::fd::OwnedFd) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: plain system calls on an open descriptor and out-structures of the right types.
    #[allow(unsafe_code)]
    unsafe {
        let mut fs: libc::statfs = std::mem::zeroed();
        let mut vfs: libc::statvfs = std::mem::zeroed();
        let mut st: libc::statx = std::mem::zeroed();
        libc::fstatfs(fd.as_raw_fd(), &mut fs) == 0
            && fs.f_type as libc::c_long == TMPFS
            && libc::fstatvfs(fd.as_raw_fd(), &mut vfs) == 0
            && vfs.f_flag & libc::ST_RDONLY != 0
            && libc::statx(fd.as_raw_fd(), c"".as_ptr(), libc::AT_EMPTY_PATH, libc::STATX_BASIC_STATS, &mut st) == 0
            && st.stx_attributes_mask & libc::STATX_ATTR_MOUNT_ROOT as u64 != 0
            && st.stx_attributes & libc::STATX_ATTR_MOUNT_ROOT as u64 != 0
            && st.stx_mode as u32 & libc::S_IFMT == libc::S_IFDIR
            && st.stx_uid == crate::exec::uid()
            && st.stx_mode & 0o077 == 0
    }
}

/// `dir` is a directory (not a link) of the caller's own that nobody else may use.
pub(crate) fn own_private_dir(dir: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(dir)
        .is_ok_and(|m| m.is_dir() && m.uid() == crate::exec::uid() && m.permissions().mode() & 0o077 == 0)
}

/// Where the analyses kept from one run to the next are, and whether this run may write there:
/// beside the listings, on the same terms (`None` before [`admit`], for a nested level, or when
/// the store is not used).
pub fn analyses() -> Option<(std::path::PathBuf, bool)> {
    FACTS.lock().ok()?.as_ref()?.analyses.clone()
}

/// The enclosing run's word to this nested level (see [`super::word`]), from the directory its
/// view mounted in the store's place; `None` where there is no such directory or no word in it.
pub fn given_word() -> Option<Vec<u8>> {
    let guard = FACTS.lock().ok()?;
    let facts = guard.as_ref().filter(|f| f.given)?;
    super::word::after_listings(&facts.kept.raw.bytes).map(<[u8]>::to_vec)
}

/// `name` below the open directory `dir`, opened for reading with no link at its end.
fn open_at(dir: &std::os::fd::OwnedFd, name: &str) -> Option<std::fs::File> {
    use std::os::fd::AsRawFd;
    let name = std::ffi::CString::new(name).ok()?;
    // SAFETY: an open directory descriptor and a NUL-terminated name; the descriptor returned
    // is owned at once.
    #[allow(unsafe_code)]
    unsafe {
        let fd = libc::openat(dir.as_raw_fd(), name.as_ptr(), libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC);
        (fd >= 0).then(|| std::fs::File::from(<std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd)))
    }
}

/// Writes what this run listed anew, when it may (before the run locks itself: after, the
/// directory is out of its reach). A store that cannot be written is simply not kept.
pub fn keep() {
    let Ok(mut guard) = FACTS.lock() else { return };
    let Some(facts) = guard.as_mut() else { return };
    let Some(file) = facts.file.clone() else { return };
    if !facts.changed {
        return;
    }
    facts.changed = false;
    let many = facts.kept.len() > MAX_LISTINGS;
    let bytes = facts.kept.encode(many.then_some(&facts.seen));
    let tmp = file.with_extension(format!("{}", std::process::id()));
    let written = {
        use std::io::Write;
        let mut o = std::fs::OpenOptions::new();
        std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
        o.write(true).create_new(true).open(&tmp).and_then(|mut f| f.write_all(&bytes))
    };
    if written.and_then(|()| std::fs::rename(&tmp, &file)).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// The listings this run looked at and keeps, of the directories `listable` says the command
/// may list itself, in the store's format: what the run's view gives its nested levels in place
/// of the store (which it masks), so that a nested start asks the kernel a `statx` per
/// directory rather than listing it through the supervisor. Each listing is used there on the
/// same terms as here (the same status, taken in the view), and it names nothing the command
/// could not list. `None` when there is none to give.
pub fn snapshot(listable: impl Fn(&str) -> bool) -> Option<Vec<u8>> {
    FACTS.lock().ok()?.as_ref()?.snapshot(listable)
}

/// Forgets what this run has looked at, so that the next question looks again: this process
/// itself makes directories while it plans (the caches' layers, the sessions', approvals' and
/// relays' directories), and what it listed before must not hide them. Each listing is looked
/// at again the first time it is needed after: one whose directory's last change was settled,
/// by its status alone (one `statx`), on the terms the store keeps listings on, and kept while
/// that status is the same; a directory this process may not open stays so; any other is
/// listed again. Each path asked about again is found again through the listings on its way (a
/// lookup in each, none of them copied).
pub fn forget() {
    if let Ok(mut guard) = FACTS.lock()
        && let Some(facts) = guard.as_mut()
    {
        facts.forget();
    }
}

/// Forgets the directories this process was refused, too: after a wait for a person, whose
/// answer may have come with a permission changed.
pub fn forget_refused() {
    if let Ok(mut guard) = FACTS.lock()
        && let Some(facts) = guard.as_mut()
    {
        facts.seen.retain(|_, (seen, _)| !matches!(seen, Seen::Refused));
        facts.found.clear();
    }
}

/// The entries of `dir`, from a listing still valid or the kernel's (`None`: not listable).
/// `None` as the outer value when no store is in use.
pub fn list(dir: &str) -> Option<Option<Vec<Entry>>> {
    let mut guard = FACTS.lock().ok()?;
    let facts = guard.as_mut()?;
    Some(match facts.listing(dir) {
        Listing::Entries(e) => Some(e.entries()),
        // Too many to keep: listed afresh for the caller.
        Listing::Large => super::linux::list_dir(dir),
        Listing::Unlistable => None,
    })
}

/// What a path is: `Some(None)` when it is not there, `Some(Some(kind))` when it is, `None`
/// when the listings cannot say (no store, a link on the way, a directory not listable or too
/// large, a path not in its plain form).
pub fn entry(path: &str) -> Option<Option<Kind>> {
    if !plain(path) {
        return None;
    }
    let mut guard = FACTS.lock().ok()?;
    let facts = guard.as_mut()?;
    match facts.found(path) {
        Found::Absent => Some(None),
        Found::Here(kind) => Some(Some(Kind { link: kind & 1 != 0, dir: kind & 2 != 0 })),
        Found::Unknown => None,
    }
}

/// Whether the listings show that `path` is not there (a directory on its way holds no such
/// name, or a file stands where a directory would), with no link on the way: the kernel would
/// refuse it (ENOENT, or ENOTDIR below a file), as far as the listings are current (see
/// [`forget`]). For callers to whom any refusal means the same.
pub fn absent(path: &str) -> bool {
    matches!(entry(path), Some(None))
}

/// The kind of a path the listings show is there: an [`Entry`] without its name, which the path
/// already gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// A symbolic link (or a type the filesystem did not say).
    pub link: bool,
    /// A directory (not through a link).
    pub dir: bool,
}

/// Whether `dir` is a directory with the status `stamp` still.
fn same_status(dir: &str, stamp: Stamp) -> bool {
    std::fs::metadata(dir).is_ok_and(|m| m.is_dir() && Stamp::of(&m) == stamp)
}

/// An absolute path with no empty, `.` or `..` component (`/` itself included).
fn plain(path: &str) -> bool {
    let bytes = path.as_bytes();
    path == "/"
        || (bytes.first() == Some(&b'/')
            && !bytes[1..].split(|&b| b == b'/').any(|c| c.is_empty() || c == b"." || c == b".."))
}

enum Listing<'a> {
    Entries(&'a Names),
    Large,
    Unlistable,
}

/// A directory as this run found it.
enum Seen {
    Entries(Names),
    /// Too many entries to keep.
    Large,
    Unlistable,
    /// There, and this process may not open it: it stays so while planning (forgetting keeps
    /// it), as no start changes a permission (a nested level may not list `/`, and would ask
    /// again through the supervisor at every look); after a wait for a person's answer it is
    /// tried again (see [`forget_refused`]).
    Refused,
}

#[derive(Clone, Copy)]
enum Found {
    Absent,
    /// There, of this type (as [`Names`] keeps it: 1 link, 2 directory, 4 socket or pipe).
    Here(u8),
    Unknown,
}

impl Facts {
    /// See [`forget`].
    fn forget(&mut self) {
        self.look += 1;
    }

    /// Whether the listing of `dir` looked at in an earlier look holds in this one: while its
    /// directory's last change was settled and its status is the same (and a directory this
    /// process may not open stays so). One that does not is dropped, to be looked at anew.
    fn recheck(&mut self, dir: &str) {
        let Some((seen, at)) = self.seen.get_mut(dir) else { return };
        if *at == self.look {
            return;
        }
        let holds = matches!(seen, Seen::Refused) || self.stamps.get(dir).is_some_and(|stamp| same_status(dir, *stamp));
        if holds {
            *at = self.look;
        } else {
            self.seen.remove(dir);
            self.stamps.remove(dir);
        }
    }

    /// See [`snapshot`].
    fn snapshot(&self, listable: impl Fn(&str) -> bool) -> Option<Vec<u8>> {
        // A listing read from the store goes as it was read (its own checksum with it).
        let mut records: Vec<(&[u8], std::borrow::Cow<'_, [u8]>)> = Vec::new();
        for dir in self.used.iter().filter(|d| listable(d)) {
            let record = match self.kept.fresh.get(dir.as_str()) {
                Some(Some(k)) => std::borrow::Cow::Owned(encode_record(dir, k)),
                Some(None) => continue,
                None => match self.kept.raw.position(dir).and_then(|i| self.kept.raw.record(i)) {
                    Some((_, record)) => std::borrow::Cow::Borrowed(record),
                    None => continue,
                },
            };
            records.push((dir.as_bytes(), record));
        }
        (!records.is_empty()).then(|| assemble(records))
    }

    /// `dir`'s listing for this run: looked at once in each look, from the store when its status
    /// is the same, else listed (and kept when it may be).
    fn listing(&mut self, dir: &str) -> Listing<'_> {
        self.recheck(dir);
        if !self.seen.contains_key(dir) {
            if !self.used.contains(dir) {
                self.used.insert(dir.to_string());
            }
            let valid = self.kept.get(dir).filter(|k| same_status(dir, k.stamp));
            let seen = match valid {
                // The store keeps only settled listings.
                Some(k) => {
                    self.stamps.insert(dir.to_string(), k.stamp);
                    match k.entries {
                        Some(e) => Seen::Entries(e),
                        None => Seen::Large,
                    }
                }
                // Not there, by the listings above it: nothing to ask, and a listing kept of it
                // is of a directory gone (neither given to nested levels nor kept again).
                None if plain(dir) && matches!(self.found(dir), Found::Absent) => {
                    self.kept.remove(dir);
                    Seen::Unlistable
                }
                None => self.list_anew(dir),
            };
            self.seen.insert(dir.to_string(), (seen, self.look));
        }
        match self.seen.get(dir) {
            Some((Seen::Entries(e), _)) => Listing::Entries(e),
            Some((Seen::Large, _)) => Listing::Large,
            _ => Listing::Unlistable,
        }
    }

    /// Lists `dir` with its status, and keeps the listing when its filesystem and its last
    /// change allow.
    fn list_anew(&mut self, dir: &str) -> Seen {
        // A listing that no longer holds is dropped; that alone is not worth writing the store
        // for (it fails its check again next time, or is replaced).
        let (listed, stamped) = match super::linux::list_dir_or_why(dir, true) {
            Ok(listed) => listed,
            Err(why) => {
                self.kept.remove(dir);
                return if why == super::linux::Unlisted::Refused { Seen::Refused } else { Seen::Unlistable };
            }
        };
        let large = listed.len() > MAX_ENTRIES;
        let entries = if large { Names::default() } else { Names::of(&listed) };
        let kept = stamped.and_then(|(st, fs)| {
            let stamp = Stamp::of_stat(&st);
            (stamp.ctime.0 <= self.now - SETTLED && TRUSTED_FS.contains(&fs))
                .then(|| Kept { stamp, entries: (!large).then(|| entries.clone()) })
        });
        match kept {
            Some(k) => {
                self.stamps.insert(dir.to_string(), k.stamp);
                self.kept.insert(dir.to_string(), k);
                self.changed = true;
            }
            None => {
                self.kept.remove(dir);
            }
        }
        if large { Seen::Large } else { Seen::Entries(entries) }
    }

    /// What `path` (absolute, in its plain form) is, by the listings from `/` down.
    fn found(&mut self, path: &str) -> Found {
        if path == "/" {
            return Found::Here(2);
        }
        if let Some(&(found, at)) = self.found.get(path)
            && at == self.look
        {
            return found;
        }
        // Asked in an earlier look, or never: found again from the listings on its way, each
        // looked at again (by its status) the first time this look needs it.
        let found = self.found_anew(path);
        match self.found.get_mut(path) {
            Some(entry) => *entry = (found, self.look),
            None => {
                self.found.insert(path.to_string(), (found, self.look));
            }
        }
        found
    }

    /// [`Facts::found`] for a path not asked about since the listings were last forgotten.
    fn found_anew(&mut self, path: &str) -> Found {
        let Some((parent, name)) = path.rsplit_once('/') else { return Found::Unknown };
        let parent = if parent.is_empty() { "/" } else { parent };
        match self.found(parent) {
            Found::Absent => Found::Absent,
            Found::Unknown => Found::Unknown,
            Found::Here(kind) if kind & 1 != 0 => Found::Unknown,
            // Below a file nothing is there (the kernel says ENOTDIR).
            Found::Here(kind) if kind & 2 == 0 => Found::Absent,
            Found::Here(_) => match self.listing(parent) {
                Listing::Entries(entries) => match entries.find(name) {
                    Some(kind) => Found::Here(kind),
                    None => Found::Absent,
                },
                Listing::Large | Listing::Unlistable => Found::Unknown,
            },
        }
    }
}

/// Catches a store cut short or damaged (it guards against accidents, not people: only this
/// user can write the store): eight bytes at a time, each mixed in by a multiplication, then
/// the length.
fn checksum(bytes: &[u8]) -> u64 {
    let mix = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    let mut chunks = bytes.chunks_exact(8);
    let mut h = (&mut chunks)
        .fold(0xcbf2_9ce4_8422_2325u64, |h, c| mix(h, u64::from_le_bytes(c.try_into().unwrap_or_default())));
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = mix(h, u64::from_le_bytes(last));
    mix(h, bytes.len() as u64)
}

/// The store at `file`, when it is this user's own regular file that nobody else may write,
/// whole, and written since the wall clock was last set. On a local filesystem it is mapped,
/// not read: a start looks at a few dozen of its listings, and the pages of the others are
/// never touched (see [`Mapped`]); elsewhere, or where it cannot be mapped, it is read whole.
fn load(file: &std::path::Path) -> Option<Raw> {
    use std::os::unix::fs::OpenOptionsExt;
    load_file(std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(file).ok()?)
}

/// [`load`] for a file already open.
fn load_file(mut f: std::fs::File) -> Option<Raw> {
    use std::io::Read;
    use std::os::unix::fs::PermissionsExt;
    let m = f.metadata().ok()?;
    if !m.is_file() || m.uid() != crate::exec::uid() || m.permissions().mode() & 0o022 != 0 || m.len() > 16 << 20 {
        return None;
    }
    let len = m.len() as usize;
    let mapped = if on_local_fs(&f) { Mapped::of(&f, len) } else { None };
    let bytes = match mapped {
        Some(mapped) => Bytes::Mapped(mapped),
        None => {
            let mut bytes = Vec::with_capacity(len);
            f.read_to_end(&mut bytes).ok()?;
            Bytes::Owned(bytes)
        }
    };
    Raw::parse_bytes(bytes, clocks())
}

/// Whether the open `file` is on a filesystem this kernel keeps on this machine (one of
/// [`TRUSTED_FS`]).
fn on_local_fs(file: &std::fs::File) -> bool {
    use std::os::fd::AsRawFd;
    super::linux::fs_type(file.as_raw_fd()).is_some_and(|fs| TRUSTED_FS.contains(&fs))
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch() -> tempfile::TempDir {
        crate::unit_scratch()
    }

    /// A store as a run would have it; `now` far enough ahead that every listing counts as
    /// settled (the directories here were just made).
    fn facts(kept: Store) -> Facts {
        let (real, _) = clocks();
        Facts {
            file: None,
            kept,
            seen: HashMap::default(),
            stamps: HashMap::default(),
            found: HashMap::default(),
            look: 0,
            used: Default::default(),
            changed: false,
            now: real / 1_000_000_000 + 60,
            analyses: None,
            given: false,
        }
    }

    fn names(f: &mut Facts, dir: &str) -> Vec<String> {
        match f.listing(dir) {
            Listing::Entries(e) => e.entries().into_iter().map(|e| e.name).collect(),
            Listing::Large => vec!["(large)".into()],
            Listing::Unlistable => vec!["(unlistable)".into()],
        }
    }

    #[test]
    fn what_a_path_was_found_to_be_holds_until_the_listings_are_forgotten() {
        let d = scratch();
        let dir = d.path().join("caches");
        std::fs::create_dir(&dir).unwrap();
        let path = dir.join("layer").to_str().unwrap().to_string();
        let mut f = facts(Store::default());
        assert!(matches!(f.found(&path), Found::Absent));
        // Made while the run plans (its own cache layer): the listing it planned with answers
        // until planning forgets them, then the directory as it is now (a clock tick later, as a
        // planning step is: a change within the same tick is what settling guards against).
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::create_dir(&path).unwrap();
        assert!(matches!(f.found(&path), Found::Absent));
        f.forget();
        assert!(matches!(f.found(&path), Found::Here(2)));
        // Below it too, from the new listing.
        assert!(matches!(f.found(&format!("{path}/upper")), Found::Absent));
    }

    #[test]
    fn after_forgetting_paths_are_found_again_through_the_listings_that_still_hold() {
        let d = scratch();
        let (same, changed) = (d.path().join("same"), d.path().join("changed"));
        std::fs::create_dir(&same).unwrap();
        std::fs::create_dir(&changed).unwrap();
        let (same, changed) = (same.to_str().unwrap().to_string(), changed.to_str().unwrap().to_string());
        let mut f = facts(Store::default());
        let (kept, file, deep) =
            (format!("{same}/as-found"), format!("{changed}/file"), format!("{changed}/inner/file"));
        for path in [&kept, &file, &deep] {
            assert!(matches!(f.found(path), Found::Absent));
        }
        // An entry only this run's look at `same` holds: it answers while the directory's
        // status is the same.
        if let Some((Seen::Entries(e), _)) = f.seen.get_mut(&same) {
            e.push("as-found", 0);
        }
        assert!(matches!(f.found(&kept), Found::Absent), "an answer holds within a look");
        // Made while the run plans, a clock tick later: `changed` gets a file and a directory.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&file, "").unwrap();
        std::fs::create_dir(format!("{changed}/inner")).unwrap();
        std::fs::write(&deep, "").unwrap();
        f.forget();
        assert!(matches!(f.found(&kept), Found::Here(0)), "found again through the listing that holds");
        assert!(matches!(f.found(&file), Found::Here(0)), "and through the one listed again");
        assert!(matches!(f.found(&deep), Found::Here(0)));
    }

    #[test]
    fn a_directory_this_process_may_not_open_is_not_asked_again_after_planning_forgets() {
        let d = scratch();
        let dir = d.path().join("closed");
        std::fs::create_dir(&dir).unwrap();
        let dir = dir.to_str().unwrap().to_string();
        let missing = format!("{dir}-missing");
        // Landlock on this thread alone: no directory may be listed (root would be let in by
        // permissions, as a nested level is not by its enclosing rules).
        std::thread::spawn(move || {
            use landlock::{AccessFs, Ruleset, RulesetAttr};
            let status = Ruleset::default()
                .handle_access(AccessFs::ReadDir)
                .and_then(|r| r.create())
                .and_then(|r| r.restrict_self())
                .expect("Landlock is available on this machine");
            assert_ne!(status.ruleset, landlock::RulesetStatus::NotEnforced, "Landlock must be enforced here");
            assert_eq!(
                super::super::linux::list_dir_or_why(&dir, true).err(),
                Some(super::super::linux::Unlisted::Refused)
            );
            assert_eq!(
                super::super::linux::list_dir_or_why(&missing, true).err(),
                Some(super::super::linux::Unlisted::Other)
            );
            let mut f = facts(Store::default());
            assert_eq!(names(&mut f, &dir), ["(unlistable)"]);
            assert_eq!(names(&mut f, &missing), ["(unlistable)"]);
            f.forget();
            // When next needed: still known refused, so not opened again; what was not there is
            // looked at anew.
            f.recheck(&dir);
            f.recheck(&missing);
            assert!(matches!(f.seen.get(&dir), Some((Seen::Refused, _))));
            assert!(!f.seen.contains_key(&missing));
            assert_eq!(names(&mut f, &dir), ["(unlistable)"]);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_listing_not_settled_is_listed_again_after_planning_forgets_it() {
        let d = scratch();
        let dir = d.path().join("state");
        std::fs::create_dir(&dir).unwrap();
        let dir = dir.to_str().unwrap().to_string();
        // The real clock: the directory was just made, so its listing is not settled.
        let (real, _) = clocks();
        let mut f = Facts { now: real / 1_000_000_000, ..facts(Store::default()) };
        assert_eq!(names(&mut f, &dir), Vec::<String>::new());
        // Within the same clock tick, most likely: its status may not show the change.
        std::fs::create_dir(format!("{dir}/sessions")).unwrap();
        f.forget();
        assert_eq!(names(&mut f, &dir), ["sessions"]);
    }

    #[test]
    fn a_settled_listing_is_taken_again_by_its_status_after_planning_forgets_it() {
        let d = scratch();
        let dir = d.path().join("home");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("a"), "").unwrap();
        let dir = dir.to_str().unwrap().to_string();
        let mut f = facts(Store::default());
        assert_eq!(names(&mut f, &dir), ["a"]);
        // What it was looked at as stays (an entry only this run's listing holds shows it),
        // while the directory's status is the same.
        if let Some((Seen::Entries(e), _)) = f.seen.get_mut(&dir) {
            e.push("as-looked-at", 0);
        }
        f.forget();
        assert_eq!(names(&mut f, &dir), ["a", "as-looked-at"]);
        // Changed since: listed again.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(format!("{dir}/b"), "").unwrap();
        f.forget();
        let mut again = names(&mut f, &dir);
        again.sort();
        assert_eq!(again, ["a", "b"]);
    }

    #[test]
    fn a_kept_listing_serves_only_while_its_directory_is_unchanged() {
        let d = scratch();
        let dir = d.path().join("home");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("a"), "").unwrap();
        let dir = dir.to_str().unwrap().to_string();
        let mut first = facts(Store::default());
        assert_eq!(names(&mut first, &dir), ["a"]);
        assert!(first.changed && first.kept.contains_key(&dir));

        // Unchanged: the kept listing answers (and is what the store says, not the disk).
        let mut kept = through_the_file(&first.kept);
        let mut k = kept.get(&dir).unwrap();
        k.entries.as_mut().unwrap().push("only-in-the-store", 0);
        kept.insert(dir.clone(), k);
        let kept = through_the_file(&kept);
        let mut second = facts(kept.clone());
        assert_eq!(names(&mut second, &dir), ["a", "only-in-the-store"]);

        // Each kind of change to its entries is seen: made, removed, renamed, replaced by a
        // link; and the directory itself replaced by another.
        type Change = Box<dyn Fn(&std::path::Path)>;
        let changes: Vec<Change> = vec![
            Box::new(|d| std::fs::write(d.join("credentials"), "").unwrap()),
            Box::new(|d| std::fs::remove_file(d.join("a")).unwrap()),
            Box::new(|d| std::fs::rename(d.join("a"), d.join("b")).unwrap()),
            Box::new(|d| {
                std::fs::remove_file(d.join("a")).unwrap();
                std::os::unix::fs::symlink("/etc", d.join("a")).unwrap();
            }),
        ];
        for (i, change) in changes.iter().enumerate() {
            std::thread::sleep(std::time::Duration::from_millis(20));
            change(std::path::Path::new(&dir));
            let mut again = facts(kept.clone());
            let seen = names(&mut again, &dir);
            assert!(!seen.contains(&"only-in-the-store".to_string()), "change {i}: {seen:?}");
            assert!(again.changed, "change {i}: the new listing is kept");
            // Back to one file named `a` for the next change, with the stale store kept.
            for e in std::fs::read_dir(&dir).unwrap() {
                std::fs::remove_file(e.unwrap().path()).unwrap();
            }
            std::fs::write(std::path::Path::new(&dir).join("a"), "").unwrap();
        }
        let moved = format!("{dir}.old");
        std::fs::rename(&dir, &moved).unwrap();
        std::fs::create_dir(&dir).unwrap();
        let mut replaced = facts(kept);
        assert_eq!(names(&mut replaced, &dir), Vec::<String>::new());
    }

    #[test]
    fn nested_levels_are_given_only_listings_this_run_looked_at_kept_and_may_give() {
        let d = scratch();
        let mut dirs = Vec::new();
        for name in ["given", "refused", "unused"] {
            let dir = d.path().join(name);
            std::fs::create_dir(&dir).unwrap();
            std::fs::write(dir.join(format!("in-{name}")), "").unwrap();
            dirs.push(dir.to_str().unwrap().to_string());
        }
        let mut first = facts(Store::default());
        for dir in &dirs {
            names(&mut first, dir);
        }
        // A later run with all three kept looks at two of them.
        let mut later = facts(through_the_file(&first.kept));
        names(&mut later, &dirs[0]);
        names(&mut later, &dirs[1]);
        later.seen.clear();
        let bytes = later.snapshot(|dir| !dir.ends_with("/refused")).unwrap();
        let given = Raw::parse(bytes, clocks()).unwrap();
        assert!(given.find(&dirs[0]).is_some_and(|k| k.entries.is_some_and(|e| e.find("in-given").is_some())));
        assert!(given.find(&dirs[1]).is_none() && given.find(&dirs[2]).is_none());
        assert!(facts(Store::default()).snapshot(|_| true).is_none(), "nothing looked at, nothing given");
    }

    #[test]
    fn the_listing_of_a_directory_removed_since_it_was_kept_is_neither_given_nor_kept() {
        let d = scratch();
        let home = d.path().join("home");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_old_key"), "").unwrap();
        let (home, ssh) = (home.to_str().unwrap().to_string(), format!("{}/.ssh", home.to_str().unwrap()));
        let mut first = facts(Store::default());
        names(&mut first, &home);
        assert_eq!(names(&mut first, &ssh), ["id_old_key"]);
        let kept = through_the_file(&first.kept);
        std::fs::remove_file(format!("{ssh}/id_old_key")).unwrap();
        std::fs::remove_dir(&ssh).unwrap();
        // A later run looks at the home (listed again: it changed) and at the directory gone.
        let mut later = facts(kept);
        assert_eq!(names(&mut later, &ssh), ["(unlistable)"]);
        let given = later.snapshot(|_| true).unwrap();
        let needle = b"id_old_key";
        assert!(!given.windows(needle.len()).any(|w| w == needle), "a listing of a directory gone was given");
        let written = later.kept.encode(None);
        assert!(!written.windows(needle.len()).any(|w| w == needle), "a listing of a directory gone was kept");
    }

    #[test]
    fn a_nested_level_reads_no_store_but_a_read_only_tmpfs_mounted_in_its_place() {
        // What a command can make or find where its run lets it write: an ordinary directory
        // (with a store in it), a writable tmpfs's root. Neither is what a view mounts.
        let d = scratch();
        let dir = d.path().join("facts");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join(FILE), Store::default().encode(None)).unwrap();
        assert!(!given_by_the_view(&dir));
        let shm = std::path::Path::new("/dev/shm");
        if shm.is_dir() {
            assert!(!given_by_the_view(shm));
        }
        assert!(!given_by_the_view(std::path::Path::new("/nonexistent/facts")));
    }

    #[test]
    fn a_listing_made_soon_after_a_change_is_not_kept() {
        let d = scratch();
        let dir = d.path().to_str().unwrap().to_string();
        let (real, _) = clocks();
        let mut f = Facts { now: real / 1_000_000_000, ..facts(Store::default()) };
        assert_eq!(names(&mut f, &dir), Vec::<String>::new());
        assert!(!f.kept.contains_key(&dir), "the directory was made just now");
        assert!(f.seen.contains_key(&dir));
    }

    #[test]
    fn paths_are_answered_from_the_listings_above_them() {
        let d = scratch();
        let root = d.path().to_str().unwrap().to_string();
        std::fs::create_dir_all(d.path().join("home/.config")).unwrap();
        std::fs::write(d.path().join("home/.bashrc"), "").unwrap();
        std::os::unix::fs::symlink(d.path().join("home"), d.path().join("link")).unwrap();
        let _listener = std::os::unix::net::UnixListener::bind(d.path().join("home/sock")).unwrap();
        let mut f = facts(Store::default());
        let here = |f: &mut Facts, p: &str| match f.found(&format!("{root}/{p}")) {
            Found::Absent => "absent".to_string(),
            Found::Unknown => "unknown".to_string(),
            Found::Here(k) => format!("link={} dir={} special={}", k & 1 != 0, k & 2 != 0, k & 4 != 0),
        };
        assert_eq!(here(&mut f, "home"), "link=false dir=true special=false");
        assert_eq!(here(&mut f, "home/.bashrc"), "link=false dir=false special=false");
        assert_eq!(here(&mut f, "home/sock"), "link=false dir=false special=true");
        assert_eq!(here(&mut f, "home/.aws/credentials"), "absent");
        assert_eq!(here(&mut f, "home/.bashrc/x"), "absent");
        assert_eq!(here(&mut f, "link"), "link=true dir=false special=false");
        // Through a link the kernel answers.
        assert_eq!(here(&mut f, "link/.bashrc"), "unknown");
        assert!(!plain("a/b") && !plain("/a//b") && !plain("/a/./b") && !plain("/a/../b"));
        assert!(plain("/") && plain("/a"));
    }

    #[test]
    fn a_directory_with_very_many_entries_is_left_to_the_kernel() {
        let d = scratch();
        for i in 0..=MAX_ENTRIES {
            std::fs::write(d.path().join(format!("f{i}")), "").unwrap();
        }
        let dir = d.path().to_str().unwrap().to_string();
        let mut f = facts(Store::default());
        assert!(matches!(f.listing(&dir), Listing::Large));
        assert!(matches!(f.found(&format!("{dir}/f1")), Found::Unknown));
        assert!(f.kept.get(&dir).unwrap().entries.is_none());
    }

    /// The store as the next run reads it from the file this one writes.
    fn through_the_file(store: &Store) -> Store {
        Store { raw: Raw::parse(store.encode(None), clocks()).expect("reads back"), fresh: HashMap::default() }
    }

    #[test]
    fn the_store_reads_back_whole_and_only_whole() {
        let mut store = Store::default();
        let stamp = Stamp { dev: 1, ino: 2, ctime: (3, 4), mtime: (5, 6) };
        let entries = vec![
            Entry { name: "a".into(), link: true, dir: false, special: false },
            Entry { name: "é b".into(), link: false, dir: true, special: false },
            Entry { name: "s".into(), link: false, dir: false, special: true },
        ];
        // More listings than one, in no order: each is found by its path.
        for i in 0..50 {
            store.insert(format!("/d{}", (i * 37) % 50), Kept { stamp, entries: Some(Names::default()) });
        }
        store.insert("/x".to_string(), Kept { stamp, entries: Some(Names::of(&entries)) });
        store.insert("/big".to_string(), Kept { stamp, entries: None });
        let back = through_the_file(&store);
        assert_eq!(back.raw.count, 52);
        assert_eq!(back.get("/x").and_then(|k| k.entries).map(|n| n.entries()), Some(entries.clone()));
        assert_eq!(back.get("/x").map(|k| k.stamp), Some(stamp));
        assert!(back.get("/big").is_some_and(|k| k.entries.is_none()));
        assert!((0..50).all(|i| back.get(&format!("/d{i}")).is_some()));
        assert!(back.get("/d50").is_none() && back.get("/").is_none() && back.get("/y").is_none());

        // What a run found anew replaces what was read; a listing that no longer holds goes.
        let mut next = back.clone();
        next.insert("/x".to_string(), Kept { stamp: Stamp { ino: 9, ..stamp }, entries: None });
        next.remove("/d7");
        next.remove("/never-kept");
        // Listings new to the store whose paths fall before, between and after those read: the
        // store rewritten is still in the order of its paths (each is found by a binary search).
        for path in ["/a", "/d3x", "/d49/e", "/e", "/z"] {
            next.insert(path.to_string(), Kept { stamp: Stamp { ino: 8, ..stamp }, entries: None });
        }
        assert_eq!(next.len(), 56);
        let again = through_the_file(&next);
        assert_eq!(again.raw.count, 56);
        assert_eq!(again.get("/x").map(|k| k.stamp.ino), Some(9));
        assert!(again.get("/d7").is_none() && again.get("/d8").is_some());
        assert!((0..50).filter(|&i| i != 7).all(|i| again.get(&format!("/d{i}")).is_some()));
        assert!(["/a", "/d3x", "/d49/e", "/e", "/z"].iter().all(|p| again.get(p).is_some_and(|k| k.stamp.ino == 8)));
        // Past the most kept, only what this run looked at stays.
        let seen: HashMap<String, (Seen, u32)> = [("/d3".to_string(), (Seen::Unlistable, 0))].into_iter().collect();
        let pruned = Raw::parse(again.encode(Some(&seen)), clocks()).unwrap();
        assert_eq!(pruned.count, 1);

        // A damaged header, or written before the wall clock was set: not read.
        let bytes = store.encode(None);
        for at in [0, 9, 17, 21] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1;
            assert!(Raw::parse(damaged, clocks()).is_none(), "byte {at}");
        }
        assert!(Raw::parse(bytes[..TABLE_AT + 10].to_vec(), clocks()).is_none());
        let (real, boot) = clocks();
        assert!(Raw::parse(bytes.clone(), (real + 2_000_000_000, boot)).is_none());
        assert!(Raw::parse(bytes.clone(), (real - 2_000_000_000, boot)).is_none());
        // A damaged or cut listing is not used; the others still are.
        let x = back.raw.position("/x").unwrap();
        let (_, record) = back.raw.record(x).unwrap();
        let at = record.as_ptr() as usize - back.raw.bytes.as_ptr() as usize;
        let mut damaged = bytes.clone();
        damaged[at + record.len() - 1] ^= 1;
        let damaged = Store { raw: Raw::parse(damaged, clocks()).unwrap(), fresh: HashMap::default() };
        assert!(damaged.get("/x").is_none() && damaged.get("/big").is_some());
        let cut = Store { raw: Raw::parse(bytes[..at + 20].to_vec(), clocks()).unwrap(), fresh: HashMap::default() };
        assert!(cut.get("/x").is_none() && cut.get("/big").is_some());
    }

    #[test]
    fn the_store_is_mapped_and_a_store_written_since_leaves_the_mapping_as_it_was() {
        let d = scratch();
        let file = d.path().join(FILE);
        let stamp = Stamp { dev: 1, ino: 2, ctime: (3, 4), mtime: (5, 6) };
        let entries = vec![
            Entry { name: "a".into(), link: false, dir: true, special: false },
            Entry { name: "b".into(), link: true, dir: false, special: false },
        ];
        let mut store = Store::default();
        store.insert("/x".to_string(), Kept { stamp, entries: Some(Names::of(&entries)) });
        store.insert("/big".to_string(), Kept { stamp, entries: None });
        std::fs::write(&file, store.encode(None)).unwrap();
        let raw = load(&file).expect("read");
        // The tests' scratch directory is on a local filesystem (see `on_local_fs`).
        assert!(on_local_fs(&std::fs::File::open(&file).unwrap()));
        assert!(matches!(*raw.bytes, Bytes::Mapped(_)));
        let read = Store { raw, fresh: HashMap::default() };
        let x = read.get("/x").unwrap();
        assert_eq!(x.entries.as_ref().map(Names::entries), Some(entries.clone()));
        assert_eq!(x.entries.as_ref().and_then(|n| n.find("b")), Some(1));
        assert_eq!(x.entries.as_ref().and_then(|n| n.find("c")), None);
        // The next run writes a new file and renames it over this one, as `keep` does.
        let mut next = Store::default();
        next.insert("/x".to_string(), Kept { stamp, entries: Some(Names::default()) });
        let tmp = d.path().join("next");
        std::fs::write(&tmp, next.encode(None)).unwrap();
        std::fs::rename(&tmp, &file).unwrap();
        assert_eq!(read.get("/x").and_then(|k| k.entries).map(|n| n.entries()), Some(entries));
        assert!(read.get("/big").is_some_and(|k| k.entries.is_none()));
        assert_eq!(load(&file).map(|raw| raw.count), Some(1));
        // Written back from what was mapped, a listing is the same bytes.
        let again = through_the_file(&read);
        assert_eq!(
            again.get("/x").and_then(|k| k.entries).map(|n| n.region().to_vec()),
            Some(x.entries.unwrap().region().to_vec())
        );
        // An empty file is no store.
        std::fs::write(&file, b"").unwrap();
        assert!(load(&file).is_none());
    }

    #[test]
    fn a_store_whose_clocks_are_out_of_any_range_is_not_read() {
        let bytes = Store::default().encode(None);
        assert!(Raw::parse(bytes.clone(), clocks()).is_some());
        for offset in [i64::MIN, i64::MAX, i64::MIN + 1] {
            let mut b = bytes.clone();
            b[8..16].copy_from_slice(&offset.to_le_bytes());
            // The header's own checksum made right, as only a person would.
            let sum = checksum(&b[..TABLE_AT]);
            b[TABLE_AT..TABLE_AT + 8].copy_from_slice(&sum.to_le_bytes());
            assert!(Raw::parse(b, clocks()).is_none(), "offset {offset}");
        }
    }

    #[test]
    fn a_store_others_may_write_is_not_read() {
        use std::os::unix::fs::PermissionsExt;
        let d = scratch();
        let file = d.path().join(FILE);
        std::fs::write(&file, Store::default().encode(None)).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(load(&file).is_some());
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o620)).unwrap();
        assert!(load(&file).is_none());
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(load(&link).is_none());
    }
}
