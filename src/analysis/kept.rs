//! Analyses kept from one run to the next: a program that sources a long library (nvm.sh's
//! 5,000 lines) pays its walk at every call, and the walk comes out the same while nothing it
//! looked at changed.
//!
//! An analysis is a function of the program text, its [`Context`] and the answers the
//! filesystem and the environment gave to the walk's questions (see [`asked`]): nothing else
//! reaches it. So one is kept with
//!
//! - a key: the SHA-256 of the text, its kind, the context but its environment (cwd, layout,
//!   arguments, start-up file, …) and the identity of this very executable (device, inode,
//!   size, modification and change times: another build asks again);
//! - every question the walk asked, with its answer: a file's contents as their SHA-256, a
//!   path's kind, a link's target, a directory's names, a variable's value, whether a
//!   credential-named file is project content.
//!
//! and taken again only for the same key when every question, asked again now, gets the same
//! answer. Contents are compared by digest, never by time or size, so a file rewritten within
//! the same clock tick to the same length is seen. A walk that asked a question twice and got
//! two answers, or asked the real bash (see [`asked::spoil`]), or failed, is not kept.
//!
//! The analyses live beside the kept directory listings (`sandbox::facts`), on the same terms:
//! below the account's own home, in a directory every run's view masks, written only by the
//! process that plans a run before it locks itself, and read only when it is the caller's own
//! private directory and each entry the caller's own file that nobody else may write. A command
//! can therefore never write what a later start takes for its analysis. `--sandbox-explain`
//! reads them and writes nothing; a nested level neither reads nor writes them.

use super::{Analysis, Context, TextKind, asked};

/// The entries' format; part of every key.
const FORMAT: &[u8] = b"sandbox-bash kept analysis 1\0";

/// Entries kept at most, and their bytes at most; past either the oldest go, down to half.
const MAX_KEPT: usize = 256;
const MAX_KEPT_BYTES: u64 = 64 << 20;

/// The largest entry written or read (nvm.sh's is 450 KB): an analysis of a text that names
/// tens of thousands of paths is walked at every run rather than fill the home.
const MAX_ENTRY_BYTES: u64 = 4 << 20;

/// A text shorter than this that reads no file as code is walked in less time than an entry
/// takes to read: it is not kept.
const SMALL_TEXT: usize = 8 * 1024;

#[derive(serde::Deserialize)]
struct Entry {
    key: String,
    answers: asked::Answers,
    analysis: Analysis,
}

#[derive(serde::Serialize)]
struct EntryRef<'a> {
    key: &'a str,
    answers: &'a asked::Answers,
    analysis: &'a Analysis,
}

/// [`super::analyze`], taken from an earlier run when it holds (see the module's comment), and
/// kept for the next when this run may write.
pub fn analyze(text: &[u8], kind: TextKind, ctx: &Context) -> Analysis {
    let Some((dir, write)) = crate::sandbox::facts::analyses() else {
        return super::analyze(text, kind, ctx);
    };
    analyze_in(&dir, write, text, kind, ctx)
}

fn analyze_in(dir: &std::path::Path, write: bool, text: &[u8], kind: TextKind, ctx: &Context) -> Analysis {
    let path = dir.join(name(text, kind, ctx));
    let mut key = None;
    if let Some(entry) = read(dir, &path) {
        let k = key_of(text, kind, ctx);
        if k.as_deref() == Some(entry.key.as_str()) && asked::still(&entry.answers, ctx) {
            return entry.analysis;
        }
        key = k;
    }
    let (analysis, answers) = super::analyze_answered(text, kind, ctx);
    let worth = analysis.failure.is_none() && (!analysis.texts.is_empty() || text.len() >= SMALL_TEXT);
    if write
        && worth
        && let Some(answers) = answers
        && let Some(key) = key.or_else(|| key_of(text, kind, ctx))
        && crate::approval::make_dir(dir)
    {
        keep(dir, &path, &EntryRef { key: &key, answers: &answers, analysis: &analysis });
    }
    analysis
}

/// The entry's file name: a fast hash of the text, its kind, the cwd, the workspace and the
/// executable's path (cheap at every start, however long the text: the same program run in two
/// projects, or by two builds, has two entries). Two programs with one name only take turns in
/// one entry: the entry holds the whole key, a digest, which decides.
fn name(text: &[u8], kind: TextKind, ctx: &Context) -> String {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(FORMAT);
    h.write_u8(kind_byte(kind));
    for part in [ctx.cwd.as_str(), ctx.layout.workspace.as_str(), ctx.self_exe.as_deref().unwrap_or("")] {
        h.write_usize(part.len());
        h.write(part.as_bytes());
    }
    h.write_usize(text.len());
    h.write(text);
    format!("{:016x}", h.finish())
}

fn kind_byte(kind: TextKind) -> u8 {
    match kind {
        TextKind::Command => b'c',
        TextKind::Script => b's',
    }
}

/// Everything the analysis is a function of but the filesystem's answers.
fn key_of(text: &[u8], kind: TextKind, ctx: &Context) -> Option<String> {
    let exe = exe_identity()?;
    let mut h = hmac_sha256::Hash::new();
    h.update(FORMAT);
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(exe.as_bytes());
    h.update([kind_byte(kind)]);
    h.update((text.len() as u64).to_le_bytes());
    h.update(text);
    // Every field of the context in full (its `Debug` form), but the environment: the walk asks
    // for its variables one by one, and those it asked for are among the questions.
    let Context {
        cwd,
        layout,
        env: _,
        arg0,
        args,
        program_dirs,
        bash_env,
        script_path,
        self_exe,
        toolchains,
        bash,
        posix,
    } = ctx;
    let rest = (cwd, layout, arg0, args, program_dirs, bash_env, script_path, self_exe, toolchains, bash, posix);
    h.update(format!("{rest:?}").as_bytes());
    Some(asked::hex(&h.finalize()))
}

/// This executable, as the kernel has it now: another build or a reinstalled one differs.
fn exe_identity() -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata("/proc/self/exe").ok()?;
    Some(format!(
        "{}:{}:{}:{}.{}:{}.{}",
        m.dev(),
        m.ino(),
        m.size(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec()
    ))
}

/// The entry at `path`, when `dir` is the caller's own private directory and the entry the
/// caller's own regular file that nobody else may write, whole.
fn read(dir: &std::path::Path, path: &std::path::Path) -> Option<Entry> {
    use std::io::Read;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
    let mut f =
        std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path).ok()?;
    let m = f.metadata().ok()?;
    if !m.is_file() || m.uid() != crate::exec::uid() || m.permissions().mode() & 0o022 != 0 || m.len() > MAX_ENTRY_BYTES
    {
        return None;
    }
    if !crate::sandbox::facts::own_private_dir(dir) {
        return None;
    }
    let mut bytes = Vec::with_capacity(m.len() as usize);
    f.read_to_end(&mut bytes).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Writes the entry (a new file renamed over the old one), then trims the directory when it
/// holds too many. A failure only leaves the analysis unkept.
fn keep(dir: &std::path::Path, path: &std::path::Path, entry: &EntryRef<'_>) {
    use std::io::Write;
    let Ok(bytes) = serde_json::to_vec(entry) else { return };
    if bytes.len() as u64 > MAX_ENTRY_BYTES {
        return;
    }
    let tmp = path.with_extension(format!("{}", std::process::id()));
    let written = {
        let mut o = std::fs::OpenOptions::new();
        std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
        o.write(true).create_new(true).open(&tmp).and_then(|mut f| f.write_all(&bytes))
    };
    if written.and_then(|()| std::fs::rename(&tmp, path)).is_err() {
        let _ = std::fs::remove_file(&tmp);
        return;
    }
    trim(dir);
}

/// Past [`MAX_KEPT`] entries or [`MAX_KEPT_BYTES`], the oldest go (by when each was written)
/// until half of each is left.
fn trim(dir: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut dated: Vec<(std::time::SystemTime, u64, std::path::PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let m = e.metadata().ok()?;
            Some((m.modified().ok()?, m.len(), e.path()))
        })
        .collect();
    let mut bytes: u64 = dated.iter().map(|(_, len, _)| len).sum();
    if dated.len() <= MAX_KEPT && bytes <= MAX_KEPT_BYTES {
        return;
    }
    dated.sort();
    let mut left = dated.len();
    for (_, len, p) in &dated {
        if left <= MAX_KEPT / 2 && bytes <= MAX_KEPT_BYTES / 2 {
            break;
        }
        let _ = std::fs::remove_file(p);
        left -= 1;
        bytes = bytes.saturating_sub(*len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch() -> tempfile::TempDir {
        crate::unit_scratch()
    }

    fn ctx(ws: &std::path::Path) -> Context {
        let ws = ws.to_str().unwrap().to_string();
        let layout = crate::scope::Layout { workspace: ws.clone(), ..Default::default() };
        Context::plain(layout, crate::environ::Environ::default())
    }

    /// The analysis of `text`, kept in `store`, and whether it was taken from there.
    fn analyzed(store: &std::path::Path, text: &str, ctx: &Context) -> (Analysis, bool) {
        use std::os::unix::fs::MetadataExt;
        let path = store.join(name(text.as_bytes(), TextKind::Command, ctx));
        // An entry written anew is a new file renamed over the old one.
        let written = std::fs::metadata(&path).map(|m| m.ino()).ok();
        let fresh = super::super::analyze(text.as_bytes(), TextKind::Command, ctx);
        let got = analyze_in(store, true, text.as_bytes(), TextKind::Command, ctx);
        assert_eq!(got, fresh, "a kept analysis is the one a walk gives now");
        let now = std::fs::metadata(&path).map(|m| m.ino()).ok();
        (got, written.is_some() && now == written)
    }

    #[test]
    fn an_analysis_is_taken_again_only_while_what_it_read_is_unchanged() {
        let ws = scratch();
        let store = ws.path().join("store");
        let lib = ws.path().join("lib.sh");
        std::fs::write(&lib, "greet() { echo hi; }\n").unwrap();
        let c = ctx(ws.path());
        let text = format!("source {}; greet", lib.display());
        let (first, taken) = analyzed(&store, &text, &c);
        assert!(!taken);
        assert!(first.texts.iter().any(|(p, _)| p.ends_with("lib.sh")), "{:?}", first.texts);
        let (_, taken) = analyzed(&store, &text, &c);
        assert!(taken, "the same text, context and file: taken again");
        // The same length, the same times: only the contents tell.
        let meta = std::fs::metadata(&lib).unwrap();
        let same_length = "greet() { cat /e/x;}\n";
        assert_eq!(same_length.len(), meta.len() as usize);
        std::fs::write(&lib, same_length).unwrap();
        let mtime = meta.modified().unwrap();
        std::fs::File::options().write(true).open(&lib).unwrap().set_modified(mtime).unwrap();
        let (second, taken) = analyzed(&store, &text, &c);
        assert!(!taken, "a changed library is walked again");
        assert_ne!(second, first);
        std::fs::write(&lib, "greet() { cat /etc/shadow; }\n").unwrap();
        let (third, taken) = analyzed(&store, &text, &c);
        assert!(!taken);
        assert!(third.accesses.iter().any(|a| a.target == "/etc/shadow"), "{:?}", third.accesses);
        // Another cwd is another key.
        let mut other = c.clone();
        other.cwd = "/".into();
        assert!(!analyzed(&store, &text, &other).1);
    }

    #[test]
    fn the_variables_the_walk_read_are_asked_again_and_no_others() {
        let ws = scratch();
        let store = ws.path().join("store");
        let c = ctx(ws.path());
        let text = format!("{}\ncat \"$TARGET\"\n", "true\n".repeat(SMALL_TEXT / 5));
        let with = |pairs: &[(&str, &str)]| Context {
            env: crate::environ::Environ::from_pairs(pairs.iter().copied()),
            ..c.clone()
        };
        let (first, taken) = analyzed(&store, &text, &with(&[("TARGET", "/etc/hostname")]));
        assert!(!taken && first.accesses.iter().any(|a| a.target == "/etc/hostname"));
        assert!(analyzed(&store, &text, &with(&[("TARGET", "/etc/hostname"), ("OTHER", "x")])).1);
        let (second, taken) = analyzed(&store, &text, &with(&[("TARGET", "/etc/shadow"), ("OTHER", "x")]));
        assert!(!taken && second.accesses.iter().any(|a| a.target == "/etc/shadow"), "{:?}", second.accesses);
        let (third, taken) = analyzed(&store, &text, &with(&[("OTHER", "x")]));
        assert!(!taken && !third.accesses.iter().any(|a| a.target == "/etc/shadow"));
    }

    #[test]
    fn a_file_the_walk_found_missing_that_appears_is_walked_again() {
        let ws = scratch();
        let store = ws.path().join("store");
        let lib = ws.path().join("lib.sh");
        let extra = ws.path().join("extra.sh");
        std::fs::write(&lib, format!("[ -f {0} ] && . {0}\ntrue\n", extra.display())).unwrap();
        let c = ctx(ws.path());
        let text = format!(". {}", lib.display());
        let (first, _) = analyzed(&store, &text, &c);
        assert!(!first.accesses.iter().any(|a| a.target == "/etc/shadow"));
        assert!(analyzed(&store, &text, &c).1);
        std::fs::write(&extra, "cat /etc/shadow\n").unwrap();
        let (second, taken) = analyzed(&store, &text, &c);
        assert!(!taken);
        assert!(second.accesses.iter().any(|a| a.target == "/etc/shadow"), "{:?}", second.accesses);
    }

    #[test]
    fn an_entry_others_may_write_or_a_damaged_one_is_not_read() {
        use std::os::unix::fs::PermissionsExt;
        let ws = scratch();
        let store = ws.path().join("store");
        let lib = ws.path().join("lib.sh");
        std::fs::write(&lib, "true\n").unwrap();
        let c = ctx(ws.path());
        let text = format!(". {}", lib.display());
        analyzed(&store, &text, &c);
        let entry = store.join(name(text.as_bytes(), TextKind::Command, &c));
        assert!(analyzed(&store, &text, &c).1);
        std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o622)).unwrap();
        assert!(read(&store, &entry).is_none());
        std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(read(&store, &entry).is_some());
        std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(read(&store, &entry).is_none(), "a directory others may list is not private");
        std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o700)).unwrap();
        let bytes = std::fs::read(&entry).unwrap();
        std::fs::write(&entry, &bytes[..bytes.len() / 2]).unwrap();
        assert!(read(&store, &entry).is_none());
        assert!(!analyzed(&store, &text, &c).1, "a damaged entry is written anew");
        assert!(analyzed(&store, &text, &c).1);
    }

    #[test]
    fn a_short_text_that_reads_no_file_is_not_kept() {
        let ws = scratch();
        let store = ws.path().join("store");
        let c = ctx(ws.path());
        analyzed(&store, "echo hi; ls", &c);
        assert!(std::fs::read_dir(&store).map(|d| d.count()).unwrap_or(0) == 0);
    }

    #[test]
    fn past_the_bound_the_oldest_entries_go() {
        let ws = scratch();
        let store = ws.path().join("store");
        std::fs::create_dir(&store).unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for i in 0..=MAX_KEPT {
            let entry = store.join(format!("{i:016x}"));
            std::fs::write(&entry, "{}").unwrap();
            let when = old + std::time::Duration::from_secs(i as u64);
            std::fs::File::options().write(true).open(&entry).unwrap().set_modified(when).unwrap();
        }
        trim(&store);
        let mut left: Vec<String> =
            std::fs::read_dir(&store).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.sort();
        assert_eq!(left.len(), MAX_KEPT / 2);
        assert_eq!(left.first().unwrap(), &format!("{:016x}", MAX_KEPT / 2 + 1), "the newest are left");
        // A few large entries: the bytes bound.
        let big = vec![b' '; (MAX_KEPT_BYTES / 3 + 1) as usize];
        for i in 0..3 {
            let entry = store.join(format!("big{i}"));
            std::fs::write(&entry, &big).unwrap();
        }
        trim(&store);
        let bytes: u64 = std::fs::read_dir(&store).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
        assert!(bytes <= MAX_KEPT_BYTES / 2, "{bytes}");
    }

    #[test]
    fn a_committed_file_whose_working_copy_changed_is_a_credential_again() {
        // `.env` is project content while its working copy is a blob the repository stores;
        // once it differs, reading it is reading a credential.
        let ws = scratch();
        let store = ws.path().join("store");
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"])
                .args(args)
                .current_dir(ws.path())
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("HOME", ws.path())
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        };
        std::fs::write(ws.path().join(".env"), "PORT=3000\n").unwrap();
        std::fs::write(ws.path().join("lib.sh"), "show() { cat .env; }\n").unwrap();
        git(&["init", "-q"]);
        git(&["add", ".env", "lib.sh"]);
        git(&["commit", "-qm", "init"]);
        let mut c = ctx(ws.path());
        let workspace = c.layout.workspace.clone();
        c.layout.committed = Some(crate::project::Committed::new(&workspace));
        let credential =
            |a: &Analysis| a.accesses.iter().any(|x| x.target.ends_with("/.env") && x.reason.contains("credential"));
        let text = "source ./lib.sh; show";
        let (first, _) = analyzed(&store, text, &c);
        assert!(!credential(&first), "{:?}", first.accesses);
        c.layout.committed = Some(crate::project::Committed::new(&workspace));
        assert!(analyzed(&store, text, &c).1);
        std::fs::write(ws.path().join(".env"), "TOKEN=secret\n").unwrap();
        c.layout.committed = Some(crate::project::Committed::new(&workspace));
        let (second, taken) = analyzed(&store, text, &c);
        assert!(!taken);
        assert!(credential(&second), "{:?}", second.accesses);
    }

    #[test]
    fn an_analysis_too_large_to_keep_is_walked_again() {
        let ws = scratch();
        let store = ws.path().join("store");
        std::fs::write(ws.path().join("lib.sh"), "true\n").unwrap();
        let c = ctx(ws.path());
        let names: Vec<String> = (0..20_000).map(|i| format!("f{i:x}")).collect();
        let text = format!("source ./lib.sh; cat {}", names.join(" "));
        assert!(!analyzed(&store, &text, &c).1);
        assert!(!analyzed(&store, &text, &c).1);
        assert_eq!(std::fs::read_dir(&store).map(|d| d.count()).unwrap_or(0), 0);
    }

    #[test]
    fn one_program_in_one_directory_with_two_workspaces_keeps_two_analyses() {
        let ws = scratch();
        let store = ws.path().join("store");
        std::fs::write(ws.path().join("lib.sh"), "true\n").unwrap();
        let c = ctx(ws.path());
        let mut other = c.clone();
        other.layout.workspace = "/".into();
        let text = "source ./lib.sh";
        analyzed(&store, text, &c);
        analyzed(&store, text, &other);
        assert!(analyzed(&store, text, &c).1);
        assert!(analyzed(&store, text, &other).1);
    }
}
