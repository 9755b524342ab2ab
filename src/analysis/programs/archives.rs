//! Archivers: tar (GNU tar, bsdtar), unzip, zip and 7z. What they read and write follows the operation: creating
//! reads the files named and writes the archive, extracting reads the archive and writes where
//! it extracts, listing reads the archive; options can name programs it runs.

use super::{Call, Effects, sub_arg};
use crate::analysis::word::Arg;
use crate::mode::{Perm, Scope};

/// The reasons of an extraction, by which the walk knows files it cannot name were written
/// (from fetched text, when the archive was).
pub const EXTRACTS_HERE: &str = "extracts into the current directory";
pub const EXTRACTS_INTO_DIR: &str = "extracts into a directory";

/// The family's entry.
pub fn handle(call: &Call) -> Effects {
    match call.program {
        "unzip" => unzip(call),
        "zip" | "7z" | "7za" => zip(call),
        _ => tar(call),
    }
}

/// `unzip`: reads the archive, and extracts into `-d DIR` or the current directory unless it
/// only lists or tests.
fn unzip(call: &Call) -> Effects {
    let mut out = Effects::default();
    let parsed = call.options();
    if let Some(archive) = parsed.operands.first() {
        out.path(archive, &[Perm::Read], "reads an archive");
    }
    if !parsed.has(&["l", "t", "p", "Z", "v", "z"]) {
        match parsed.values(&["d"]).first() {
            Some(d) => out.path(d, &[Perm::Write], EXTRACTS_INTO_DIR),
            None => out.cwd(&[Perm::Write], EXTRACTS_HERE, call.pos),
        }
    }
    out
}

/// `zip ARCHIVE FILES…` and `7z COMMAND ARCHIVE FILES…`: adding writes the archive and reads the
/// files, extracting reads it and writes the current directory, anything else reads it.
fn zip(call: &Call) -> Effects {
    let mut out = Effects::default();
    let parsed = call.options();
    if parsed.has(&["TT", "unzip-command"]) {
        out.unknown_code("zip's test command", call.pos);
    }
    let zip = call.program == "zip";
    let mut ops = parsed.operands.iter();
    if let Some(a) = ops.next() {
        if zip || a.known().is_some_and(|t| matches!(t.as_str(), "a" | "u" | "d" | "rn")) {
            if let Some(archive) = if zip { Some(a) } else { ops.next() } {
                out.path(archive, &[Perm::Read, Perm::Write], "writes an archive");
            }
        } else if a.known().is_some_and(|t| matches!(t.as_str(), "x" | "e")) {
            if let Some(archive) = ops.next() {
                out.path(archive, &[Perm::Read], "reads an archive");
            }
            out.cwd(&[Perm::Write], EXTRACTS_HERE, call.pos);
            return out;
        } else if let Some(archive) = ops.next() {
            out.path(archive, &[Perm::Read], "reads an archive");
        }
    }
    for f in ops {
        out.path(f, &[Perm::Read], "adds a file to an archive");
    }
    out
}

fn tar(call: &Call) -> Effects {
    let mut out = Effects::default();
    // Old style: the first word is a bundle of letters without a dash.
    let mut args: Vec<Arg> = call.args.to_vec();
    if let Some(first) = args.first().and_then(Arg::known)
        && !first.starts_with('-')
        && first.chars().all(|c| c.is_ascii_alphabetic())
        && first.contains(['c', 'x', 't', 'r', 'u', 'A', 'd'])
    {
        args[0] = sub_arg(&args[0], &format!("-{first}"));
    }
    let parsed = Call { args: &args, ..*call }.options();
    let creating = parsed.has(&["c", "create", "r", "append", "u", "update", "A", "catenate", "concatenate"]);
    let extracting = parsed.has(&["x", "extract", "get"]);
    let programs = [
        "I",
        "use-compress-program",
        "to-command",
        "F",
        "info-script",
        "new-volume-script",
        "rsh-command",
        "rmt-command",
    ];
    for code in parsed.values(&programs) {
        out.need(Scope::Workspace, Perm::Execute, &code.raw, "runs a program named in an option", code.pos);
        out.unresolved(&code);
    }
    for a in parsed.values(&["checkpoint-action"]) {
        if a.known().is_none_or(|t| t.starts_with("exec")) {
            out.need(Scope::Workspace, Perm::Execute, &a.raw, "runs a program at checkpoints", a.pos);
        }
    }
    for f in parsed.values(&["T", "files-from", "X", "exclude-from"]) {
        out.path(&f, &[Perm::Read], "reads a list of names");
    }
    for f in parsed.values(&["g", "listed-incremental", "index-file"]) {
        out.path(&f, &[Perm::Read, Perm::Write], "keeps a state file");
    }
    let dirs = parsed.values(&["C", "directory"]);
    if let Some(a) = parsed.values(&["f", "file"]).first()
        && a.known().as_deref() != Some("-")
    {
        if creating {
            out.path(a, &[Perm::Write], "writes an archive");
        } else {
            out.path(a, &[Perm::Read], "reads an archive");
        }
    }
    if extracting {
        match dirs.last() {
            Some(d) => out.path(d, &[Perm::Write], EXTRACTS_INTO_DIR),
            None => out.cwd(&[Perm::Write], EXTRACTS_HERE, call.pos),
        }
    } else if creating {
        let base = dirs.last().and_then(Arg::known);
        for f in &parsed.operands {
            match (&base, f.known()) {
                (Some(b), Some(t)) if !t.starts_with('/') => {
                    let joined = format!("{}/{t}", b.trim_end_matches('/'));
                    out.path(&sub_arg(f, &joined), &[Perm::Read], "adds files to an archive");
                }
                _ => out.path(f, &[Perm::Read], "adds files to an archive"),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::Effect;
    use crate::mode::Perm;

    /// The paths `line` touches (literal words), with their permissions, and whether it uses the
    /// current directory.
    fn paths(line: &str) -> (Vec<(String, &'static [Perm])>, bool) {
        let effects = super::super::effects_of(line);
        let cwd = effects.iter().any(|e| matches!(e, Effect::Cwd { .. }));
        (super::super::paths_in(&effects), cwd)
    }

    #[test]
    fn tar_reads_and_writes_by_operation() {
        let r: &[Perm] = &[Perm::Read];
        let w: &[Perm] = &[Perm::Write];
        assert_eq!(paths("tar -xzf a.tgz"), (vec![("a.tgz".into(), r)], true));
        assert_eq!(paths("tar xf a.tar -C /opt"), (vec![("a.tar".into(), r), ("/opt".into(), w)], false));
        assert_eq!(
            paths("tar -C src -czf out.tgz lib /etc/x"),
            (vec![("out.tgz".into(), w), ("src/lib".into(), r), ("/etc/x".into(), r)], false)
        );
        assert_eq!(paths("tar -tf a.tar"), (vec![("a.tar".into(), r)], false));
        // Standard output or input is no file.
        assert_eq!(paths("tar -cf - notes"), (vec![("notes".into(), r)], false));
    }

    #[test]
    fn unzip_and_zip_and_7z() {
        let r: &[Perm] = &[Perm::Read];
        let w: &[Perm] = &[Perm::Write];
        let rw: &[Perm] = &[Perm::Read, Perm::Write];
        assert_eq!(paths("unzip a.zip -d /opt"), (vec![("a.zip".into(), r), ("/opt".into(), w)], false));
        assert_eq!(paths("unzip -l a.zip"), (vec![("a.zip".into(), r)], false));
        assert_eq!(paths("zip -r out.zip src"), (vec![("out.zip".into(), rw), ("src".into(), r)], false));
        assert_eq!(paths("7z x a.7z"), (vec![("a.7z".into(), r)], true));
        assert_eq!(paths("7z a b.7z notes"), (vec![("b.7z".into(), rw), ("notes".into(), r)], false));
        assert_eq!(paths("7z l b.7z"), (vec![("b.7z".into(), r)], false));
    }
}
