//! Project content: a file named like a credential whose working copy is exactly a blob that
//! its repository already stores (a committed test certificate, a Vite project's `.env`, a
//! `tokenizer.json`) is no secret of this machine: `git show` prints it to anyone who may read
//! the repository. Neither layer masks or denies it, so that git sees the same tree as under
//! bash. Being tracked is not enough (a sandboxed call can mark any file tracked without
//! reading it, and a committed template can hold a real secret in its working copy): what
//! decides is the content, hashed as git hashes a blob and looked up in the object store.
//!
//! Why a sandboxed command cannot forge the answer: the lookup is by the blob id of the working
//! copy's content, which nobody can name without reading that content. An object store the
//! command may write can gain any object whose content the command knows, never one whose
//! content it cannot read. The object store must lie in the workspace (which every run that
//! runs anything may read), so what is unmasked was readable through git already.
//!
//! The answer is decided when the run starts and kept for it; a file changed afterwards by a
//! process outside the run is not masked again until the next run.

use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::sync::{Arc, Mutex};

use crate::scope::is_within;

/// The largest working copy hashed (a larger one stays masked).
const LARGEST: u64 = 64 * 1024 * 1024;
/// How many entries of a credential-named directory are looked at to find committed files.
const DIRECTORY_ENTRIES: usize = 256;

/// The answers for one run, asked of the file system once per path.
#[derive(Clone, Default)]
pub struct Committed {
    /// The workspace, as written and where it really is.
    workspace: String,
    real_workspace: String,
    seen: Arc<Mutex<rustc_hash::FxHashMap<String, bool>>>,
    /// The device and inode of each file whose content was judged (found to be project content
    /// or not), as hashed: the view binds its decision to that very file.
    nodes: Arc<Mutex<rustc_hash::FxHashMap<String, (u64, u64)>>>,
}

impl std::fmt::Debug for Committed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Committed({})", self.workspace)
    }
}

/// Two layouts that differ only in what they have looked up are the same layout.
impl PartialEq for Committed {
    fn eq(&self, other: &Self) -> bool {
        self.workspace == other.workspace
    }
}

impl Eq for Committed {}

impl Committed {
    /// The checks for files of `workspace`.
    pub fn new(workspace: &str) -> Committed {
        let real_workspace = crate::exec::canonicalize(workspace).unwrap_or_else(|_| workspace.to_string());
        Committed {
            workspace: workspace.to_string(),
            real_workspace,
            seen: Default::default(),
            nodes: Default::default(),
        }
    }

    /// The device and inode of the file at `path` whose content was judged.
    pub fn node(&self, path: &str) -> Option<(u64, u64)> {
        self.nodes.lock().ok()?.get(path).copied()
    }

    /// Whether `path` (absolute, normal) is project content: a regular file of the workspace
    /// whose content its repository stores, or a directory of the workspace holding one.
    pub fn holds(&self, path: &str) -> bool {
        let answer = self.holds_now(path);
        // An analysis that depends on it is kept only while it holds (`analysis::kept`).
        crate::analysis::asked::committed(path, answer);
        answer
    }

    fn holds_now(&self, path: &str) -> bool {
        if !is_within(path, &self.workspace) || path == self.workspace {
            return false;
        }
        if let Ok(seen) = self.seen.lock()
            && let Some(answer) = seen.get(path)
        {
            return *answer;
        }
        let answer = self.look(path, 0);
        if let Ok(mut seen) = self.seen.lock() {
            seen.insert(path.to_string(), answer);
        }
        answer
    }

    fn look(&self, path: &str, depth: usize) -> bool {
        let Ok(meta) = std::fs::symlink_metadata(path) else { return false };
        if meta.is_dir() {
            return depth < 3 && self.holds_committed_file(path, depth);
        }
        meta.is_file() && meta.len() <= LARGEST && self.stored(path)
    }

    /// Records the node of a file whose content was judged.
    fn remember(&self, path: &str, node: (u64, u64)) {
        if let Ok(mut nodes) = self.nodes.lock() {
            nodes.insert(path.to_string(), node);
        }
    }

    fn holds_committed_file(&self, dir: &str, depth: usize) -> bool {
        let Ok(entries) = std::fs::read_dir(dir) else { return false };
        entries
            .take(DIRECTORY_ENTRIES)
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().to_str().map(|n| format!("{dir}/{n}")))
            .any(|p| self.look(&p, depth + 1))
    }

    /// Whether the content of the regular file `path` is a blob of the repository it lies in.
    fn stored(&self, path: &str) -> bool {
        let Some((parent, _)) = path.rsplit_once('/') else { return false };
        // Where the file really is: a link on the way could lead out of the workspace.
        let Ok(real_parent) = crate::exec::canonicalize(if parent.is_empty() { "/" } else { parent }) else {
            return false;
        };
        if !is_within(&real_parent, &self.real_workspace) {
            return false;
        }
        let Some(store) = self.object_store(&real_parent) else { return false };
        let Some((id, node)) = blob_id(path, store.format) else { return false };
        self.remember(path, node);
        store.has(&id)
    }

    /// The object store of the repository that holds `dir` (a real path in the workspace): the
    /// nearest `.git` above it, no higher than the workspace.
    fn object_store(&self, dir: &str) -> Option<Store> {
        let mut d = dir.to_string();
        loop {
            let dot_git = format!("{d}/.git");
            if let Ok(meta) = std::fs::symlink_metadata(&dot_git) {
                let git_dir = if meta.is_dir() {
                    dot_git
                } else if meta.is_file() {
                    let text = read_small(&dot_git)?;
                    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim().to_string();
                    real(&crate::scope::normalize(&d, &target))?
                } else {
                    return None;
                };
                let common = match read_small(&format!("{git_dir}/commondir")) {
                    Some(c) => real(&crate::scope::normalize(&git_dir, c.trim()))?,
                    None => git_dir,
                };
                let objects = real(&format!("{common}/objects"))?;
                if !is_within(&objects, &self.real_workspace) {
                    return None;
                }
                let format = read_small(&format!("{common}/config")).map(|c| object_format(&c)).unwrap_or(Format::Sha1);
                return Some(Store { objects, format });
            }
            if d == self.real_workspace {
                return None;
            }
            let (up, _) = d.rsplit_once('/')?;
            if up.is_empty() || !is_within(up, &self.real_workspace) {
                return None;
            }
            d = up.to_string();
        }
    }
}

/// Where a path really is, when it exists and is valid UTF-8.
fn real(path: &str) -> Option<String> {
    crate::exec::canonicalize(path).ok()
}

/// A small text file (a `.git` file, `commondir`, the configuration), at most 64 KiB.
fn read_small(path: &str) -> Option<String> {
    let bytes = crate::analysis::files::read_regular(std::path::Path::new(path), 64 * 1024).ok()?;
    String::from_utf8(bytes).ok()
}

/// The hash a repository names its objects by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Sha1,
    Sha256,
}

impl Format {
    fn len(self) -> usize {
        match self {
            Format::Sha1 => 20,
            Format::Sha256 => 32,
        }
    }
}

/// `extensions.objectFormat` in a repository's configuration text.
fn object_format(config: &str) -> Format {
    let mut in_extensions = false;
    for line in config.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_extensions =
                line.trim_start_matches('[').trim_end_matches(']').trim().eq_ignore_ascii_case("extensions");
            continue;
        }
        if let Some((key, value)) = line.split_once('=')
            && in_extensions
            && key.trim().eq_ignore_ascii_case("objectformat")
            && value.trim().trim_matches('"').eq_ignore_ascii_case("sha256")
        {
            return Format::Sha256;
        }
    }
    Format::Sha1
}

/// The blob id git gives the content of the regular file `path` (opened without following a
/// link at its end): the hash of `blob LEN\0` and the bytes; with the device and inode of the
/// file that was read.
pub fn blob_id(path: &str, format: Format) -> Option<(Vec<u8>, (u64, u64))> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > LARGEST {
        return None;
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(LARGEST + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 != meta.size() {
        // Changed while it was read.
        return None;
    }
    let head = format!("blob {}\0", bytes.len());
    let node = (meta.dev(), meta.ino());
    let id = match format {
        Format::Sha1 => {
            let mut h = sha1_smol::Sha1::new();
            h.update(head.as_bytes());
            h.update(&bytes);
            h.digest().bytes().to_vec()
        }
        Format::Sha256 => {
            let mut h = hmac_sha256::Hash::new();
            h.update(head.as_bytes());
            h.update(&bytes);
            h.finalize().to_vec()
        }
    };
    Some((id, node))
}

/// A repository's object store (its own; objects only an alternate holds are not looked at).
struct Store {
    objects: String,
    format: Format,
}

/// How much of a store's pack indexes one lookup reads at most: past it, the answer is no (the
/// file stays masked).
const PACK_INDEX_BYTES: u64 = 64 * 1024 * 1024;

impl Store {
    /// Whether the object `id` is stored, loose or in a pack. The object store may have been
    /// written by a sandboxed run, so the lookup reads nothing that depends on `id` beyond
    /// its own answer: a loose object is looked up by name (no file is opened), and every pack
    /// index is read whole before it is searched, so which pages were read says nothing of the
    /// id that was looked for.
    fn has(&self, id: &[u8]) -> bool {
        if id.len() != self.format.len() {
            return false;
        }
        let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
        let dir = format!("{}/{}", self.objects, &hex[..2]);
        if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir())
            && std::fs::symlink_metadata(format!("{dir}/{}", &hex[2..])).is_ok_and(|m| m.is_file() && m.len() > 0)
        {
            return true;
        }
        let Ok(packs) = std::fs::read_dir(format!("{}/pack", self.objects)) else { return false };
        let mut budget = PACK_INDEX_BYTES;
        let mut found = false;
        let mut names: Vec<std::path::PathBuf> = packs
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_str().is_some_and(|n| n.starts_with("pack-") && n.ends_with(".idx")))
            .map(|e| e.path())
            .collect();
        names.sort();
        for path in names {
            match read_index(&path, &mut budget) {
                Some(bytes) => found |= pack_index_has(&bytes, id),
                None if budget == 0 => return false,
                None => {}
            }
        }
        found
    }
}

/// The whole of the pack index at `path`, a regular file opened without following a link or
/// waiting, when it fits in what is left of `budget`.
fn read_index(path: &std::path::Path, budget: &mut u64) -> Option<Vec<u8>> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    if meta.len() > *budget {
        *budget = 0;
        return None;
    }
    *budget -= meta.len();
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(meta.len()).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// Whether the pack index `bytes` (version 2: a magic number, the version, 256 cumulative
/// counts by first byte, then the sorted ids) lists `id`. Anything else answers no.
fn pack_index_has(bytes: &[u8], id: &[u8]) -> bool {
    if bytes.len() < 8 + 1024 || bytes[..8] != [0xff, b't', b'O', b'c', 0, 0, 0, 2] {
        return false;
    }
    let count_at = |i: usize| -> u64 {
        let at = 8 + 4 * i;
        u64::from(u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]))
    };
    let first = usize::from(id[0]);
    let end = count_at(first);
    let start = if first == 0 { 0 } else { count_at(first - 1) };
    let total = count_at(255);
    let len = id.len() as u64;
    // The ids must fit in the file as its counts say, or the index is not believed.
    if start > end || end > total || 8 + 1024 + total.saturating_mul(len) > bytes.len() as u64 {
        return false;
    }
    let ids = &bytes[8 + 1024..];
    let (mut lo, mut hi) = (start as usize, end as usize);
    let len = id.len();
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match ids[mid * len..(mid + 1) * len].cmp(id) {
            std::cmp::Ordering::Equal => return true,
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &std::path::Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// A directory of the build's own, outside `/tmp`.
    fn scratch() -> tempfile::TempDir {
        crate::unit_scratch()
    }

    fn hex(id: &[u8]) -> String {
        id.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn the_blob_id_is_gits() {
        let d = scratch();
        std::fs::write(d.path().join("f"), "hello\n").unwrap();
        git(d.path(), &["init", "-q"]);
        let theirs = git(d.path(), &["hash-object", "f"]);
        let (ours, _) = blob_id(&d.path().join("f").to_string_lossy(), Format::Sha1).unwrap();
        assert_eq!(hex(&ours), theirs);
    }

    #[test]
    fn only_content_the_store_holds_is_project_content_loose_or_packed() {
        let d = scratch();
        let ws = std::fs::canonicalize(d.path()).unwrap();
        let w = ws.to_string_lossy().into_owned();
        git(&ws, &["init", "-q"]);
        std::fs::create_dir_all(ws.join("certs/secrets")).unwrap();
        std::fs::write(ws.join(".env"), "VITE_API=http://localhost\n").unwrap();
        std::fs::write(ws.join("certs/server.pem"), "TEST CERT\n").unwrap();
        std::fs::write(ws.join("certs/secrets/a.yml"), "committed: yes\n").unwrap();
        git(&ws, &["add", "-A"]);
        git(&ws, &["commit", "-qm", "init"]);
        // A working copy changed since, an untracked one, and one marked tracked without its
        // content ever being stored.
        std::fs::write(ws.join("certs/server.pem"), "REAL KEY\n").unwrap();
        std::fs::write(ws.join(".env.local"), "SECRET=1\n").unwrap();
        std::fs::write(ws.join("forged.key"), "UNREAD SECRET\n").unwrap();
        git(
            &ws,
            &["update-index", "--add", "--cacheinfo", "100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,forged.key"],
        );
        let c = Committed::new(&w);
        assert!(c.holds(&format!("{w}/.env")));
        assert!(c.holds(&format!("{w}/certs/secrets/a.yml")));
        assert!(c.holds(&format!("{w}/certs/secrets")), "a directory holding a committed file");
        assert!(!c.holds(&format!("{w}/certs/server.pem")), "changed since it was committed");
        assert!(!c.holds(&format!("{w}/.env.local")), "never stored");
        assert!(!c.holds(&format!("{w}/forged.key")), "marked tracked, content never stored");
        assert!(!c.holds(&w), "the workspace itself");
        // Packed: the same answers once every object is in a pack.
        git(&ws, &["update-index", "--force-remove", "forged.key"]);
        git(&ws, &["gc", "-q", "--prune=now"]);
        assert!(std::fs::read_dir(ws.join(".git/objects/pack")).unwrap().count() >= 2);
        let c = Committed::new(&w);
        assert!(c.holds(&format!("{w}/.env")));
        assert!(!c.holds(&format!("{w}/certs/server.pem")));
        // A link at the end is not followed, even to committed content.
        std::os::unix::fs::symlink(ws.join(".env"), ws.join(".env.link")).unwrap();
        assert!(!Committed::new(&w).holds(&format!("{w}/.env.link")));
    }

    #[test]
    fn a_store_outside_the_workspace_or_reached_through_a_link_does_not_count() {
        let d = scratch();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let repo = root.join("repo");
        std::fs::create_dir_all(repo.join("sub")).unwrap();
        git(&repo, &["init", "-q"]);
        std::fs::write(repo.join("sub/.env"), "A=1\n").unwrap();
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-qm", "init"]);
        // The workspace is a directory of the repository: its store lies outside.
        let sub = repo.join("sub").to_string_lossy().into_owned();
        assert!(!Committed::new(&sub).holds(&format!("{sub}/.env")));
        // A workspace reaching the file through a link to elsewhere.
        let ws = root.join("ws");
        std::fs::create_dir(&ws).unwrap();
        std::os::unix::fs::symlink(repo.join("sub"), ws.join("link")).unwrap();
        let w = ws.to_string_lossy().into_owned();
        assert!(!Committed::new(&w).holds(&format!("{w}/link/.env")));
        assert!(Committed::new(&repo.to_string_lossy()).holds(&format!("{}/sub/.env", repo.display())));
    }

    #[test]
    fn a_sha256_repository_is_hashed_as_it_names_objects() {
        let d = scratch();
        let ws = std::fs::canonicalize(d.path()).unwrap();
        git(&ws, &["init", "-q", "--object-format=sha256"]);
        std::fs::write(ws.join("server.key"), "TEST KEY\n").unwrap();
        git(&ws, &["add", "-A"]);
        git(&ws, &["commit", "-qm", "init"]);
        let w = ws.to_string_lossy().into_owned();
        assert!(Committed::new(&w).holds(&format!("{w}/server.key")));
    }

    #[test]
    fn a_forged_pack_index_is_not_believed_and_no_file_is_waited_for() {
        // Counts that claim more ids than the file holds.
        let mut bytes = vec![0xff, b't', b'O', b'c', 0, 0, 0, 2];
        for _ in 0..256 {
            bytes.extend_from_slice(&1000u32.to_be_bytes());
        }
        assert!(!pack_index_has(&bytes, &[0u8; 20]));
        // A pipe named like an index is not read (it would block the start).
        let d = scratch();
        let fifo = d.path().join("pack-x.idx");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let mut budget = PACK_INDEX_BYTES;
        assert!(read_index(&fifo, &mut budget).is_none());
        // An index larger than what is left is not read, and ends the lookup.
        let mut small = 10;
        let big = d.path().join("pack-y.idx");
        std::fs::write(&big, [0u8; 100]).unwrap();
        assert!(read_index(&big, &mut small).is_none());
        assert_eq!(small, 0);
    }
}
