//! Reading the files a program names, without side effects: only regular files are read,
//! opened so that a FIFO or a terminal swapped in at the last moment cannot block or be
//! consumed, and never more than a limit.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;

/// Why a file was not read.
#[derive(Debug)]
pub enum NotRead {
    /// It is a pipe, a device, a socket or a directory: reading it could block or consume data
    /// that belongs to someone else.
    NotRegular,
    TooLarge(u64),
    Io(std::io::Error),
}

/// What identifies a file's contents cheaply: its path, device, inode, size and modification
/// time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub path: std::path::PathBuf,
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    mode: u32,
}

impl Identity {
    fn of(path: &std::path::Path, meta: &std::fs::Metadata) -> Identity {
        use std::os::unix::fs::MetadataExt;
        Identity {
            path: path.to_path_buf(),
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            mode: meta.mode(),
        }
    }

    /// The device and inode.
    pub fn node(&self) -> (u64, u64) {
        (self.dev, self.ino)
    }

    /// The permission bits.
    pub fn permissions(&self) -> u32 {
        self.mode & 0o7777
    }

    /// Whether the path still names the same, unchanged file.
    pub fn unchanged(&self) -> bool {
        std::fs::metadata(&self.path).is_ok_and(|m| Identity::of(&self.path, &m) == *self)
    }
}

/// Reads a regular file of at most `limit` bytes, with its identity.
pub fn read_regular_with_identity(path: &std::path::Path, limit: u64) -> Result<(Vec<u8>, Identity), NotRead> {
    // A file that the kept directory listings show is not there is not asked for.
    #[cfg(target_os = "linux")]
    match path.to_str().map(crate::sandbox::facts::entry) {
        Some(Some(None)) => return Err(NotRead::Io(std::io::Error::from_raw_os_error(libc::ENOENT))),
        Some(Some(Some(_))) => {}
        // Without them, a status first: under a watched run every open waits for the
        // supervisor, a status does not (a nested level looks for some twenty files that are
        // not there: the agents' settings, the optional configurations).
        _ => {
            if let Err(e) = std::fs::metadata(path)
                && e.kind() == std::io::ErrorKind::NotFound
            {
                return Err(NotRead::Io(e));
            }
        }
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(NotRead::Io)?;
    let meta = file.metadata().map_err(NotRead::Io)?;
    if !meta.is_file() {
        return Err(NotRead::NotRegular);
    }
    if meta.len() > limit {
        return Err(NotRead::TooLarge(meta.len()));
    }
    let identity = Identity::of(path, &meta);
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(NotRead::Io)?;
    if bytes.len() as u64 > limit {
        return Err(NotRead::TooLarge(bytes.len() as u64));
    }
    Ok((bytes, identity))
}

/// Reads a regular file of at most `limit` bytes.
pub fn read_regular(path: &std::path::Path, limit: u64) -> Result<Vec<u8>, NotRead> {
    read_regular_with_identity(path, limit).map(|(bytes, _)| bytes)
}

/// The first bytes of a regular file.
pub fn head(path: &std::path::Path, n: usize) -> Option<Vec<u8>> {
    let file =
        std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY).open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut out = Vec::with_capacity(n);
    file.take(n as u64).read_to_end(&mut out).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_notices_a_changed_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.sh");
        let path = file.as_path();
        std::fs::write(&file, "echo one\n").unwrap();
        let (_, id) = read_regular_with_identity(path, 100).unwrap();
        assert!(id.unchanged());
        std::fs::write(&file, "echo two, and longer\n").unwrap();
        assert!(!id.unchanged());
        // Replaced by another file of the same size: another inode.
        let (_, id) = read_regular_with_identity(path, 100).unwrap();
        let other = dir.path().join("t.sh");
        std::fs::write(&other, "echo evil, and longr\n").unwrap();
        std::fs::rename(&other, &file).unwrap();
        assert!(!id.unchanged());
    }

    #[test]
    fn reads_regular_files_only() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "echo hi\n").unwrap();
        assert_eq!(read_regular(&file, 100).unwrap(), b"echo hi\n");
        assert!(matches!(read_regular(&file, 3), Err(NotRead::TooLarge(8))));
        assert!(matches!(read_regular(dir.path(), 100), Err(NotRead::NotRegular)));
        // A FIFO with no writer would block a plain read forever.
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        assert!(matches!(read_regular(&fifo, 100), Err(NotRead::NotRegular)));
        assert!(head(&fifo, 10).is_none());
        assert!(matches!(read_regular(std::path::Path::new("/dev/null"), 100), Err(NotRead::NotRegular)));
    }
}
