//! Programs that read and write the files they name in a grammar of their own: dd, patch, sort,
//! uniq and mktemp.

use super::{Call, Effects, dirname, sub_arg};
use crate::analysis::word::{Arg, Field};
use crate::mode::{Perm, Scope};

/// The family's entry.
pub fn handle(call: &Call) -> Effects {
    match call.program {
        "dd" => dd(call),
        "patch" => patch(call),
        "mktemp" => mktemp(call),
        _ => sort_or_uniq(call),
    }
}

/// `dd if=IN of=OUT …`.
fn dd(call: &Call) -> Effects {
    let mut out = Effects::default();
    for a in call.args {
        match a.known() {
            Some(t) => {
                if let Some(f) = t.strip_prefix("if=") {
                    out.path(&sub_arg(a, f), &[Perm::Read], "reads its input file");
                } else if let Some(f) = t.strip_prefix("of=") {
                    out.path(&sub_arg(a, f), &[Perm::Write], "writes its output file");
                }
            }
            None => out.unresolved(a),
        }
    }
    out
}

/// `patch [FILE [PATCH]]`: changes the files the patch names, in `-d DIR` or the current
/// directory.
fn patch(call: &Call) -> Effects {
    let mut out = Effects::default();
    let parsed = call.options();
    for i in parsed.values(&["i", "input"]) {
        out.path(&i, &[Perm::Read], "reads a patch");
    }
    match parsed.values(&["d", "directory"]).first() {
        Some(d) => out.path(d, &[Perm::Read, Perm::Write], "changes the files a patch names"),
        None => out.cwd(&[Perm::Read, Perm::Write], "changes the files a patch names", call.pos),
    }
    for o in parsed.values(&["o", "output", "r", "reject-file"]) {
        out.path(&o, &[Perm::Write], "writes its output");
    }
    let mut ops = parsed.operands.iter();
    if let Some(f) = ops.next() {
        out.path(f, &[Perm::Read, Perm::Write], "changes the file it patches");
    }
    if let Some(p) = ops.next() {
        out.path(p, &[Perm::Read], "reads a patch");
    }
    out
}

/// `mktemp`: creates a file (or directory) in `-p DIR`, beside a template with a directory, in
/// the current directory for a bare template, or else in `$TMPDIR` (`/tmp` when unset).
fn mktemp(call: &Call) -> Effects {
    let mut out = Effects::default();
    let parsed = call.options();
    if parsed.has(&["u", "dry-run"]) {
        return out;
    }
    let dir = parsed.values(&["p", "tmpdir"]).into_iter().find(|v| v.known().is_some_and(|t| !t.is_empty()));
    let template = parsed.operands.first();
    let tmp = parsed.has(&["t", "tmpdir", "p"]);
    match (dir, template) {
        (Some(d), _) => out.path(&d, &[Perm::Write], "creates a temporary file"),
        (None, Some(t)) if !tmp && t.known().is_some_and(|x| x.contains('/')) => {
            let d = dirname(&t.known().unwrap_or_default());
            out.path(&sub_arg(t, &d), &[Perm::Write], "creates a temporary file");
        }
        (None, Some(_)) if !tmp => {
            out.cwd(&[Perm::Write], "creates a temporary file in the current directory", call.pos)
        }
        _ => {
            let tmpdir = (call.var)("TMPDIR").filter(|t| !t.is_empty()).unwrap_or_else(|| "/tmp".into());
            let at = Arg { field: Field::literal(&crate::scope::normalize("/", &tmpdir)), pos: call.pos, raw: tmpdir };
            out.path(&at, &[Perm::Write], "creates a temporary file");
        }
    }
    out
}

/// `sort` and `uniq`: the files read, `-o` written, and uniq's second operand its output; sort
/// runs the program `--compress-program` names.
fn sort_or_uniq(call: &Call) -> Effects {
    let mut out = Effects::default();
    let parsed = call.options();
    for o in parsed.values(&["o", "output"]) {
        out.path(&o, &[Perm::Write], "writes its output file");
    }
    for f in parsed.values(&["files0-from", "random-source"]) {
        out.path(&f, &[Perm::Read], "reads a file");
    }
    for code in parsed.values(&["compress-program"]) {
        // sort runs it to compress its temporary files.
        out.need(Scope::Workspace, Perm::Execute, &code.raw, "runs a program named in an option", code.pos);
        out.unresolved(&code);
    }
    for (i, f) in parsed.operands.iter().enumerate() {
        if call.program == "uniq" && i == 1 {
            out.path(f, &[Perm::Write], "writes its output file");
        } else if f.known().as_deref() != Some("-") {
            out.path(f, &[Perm::Read], "reads a file");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::paths_of as paths;
    use crate::mode::Perm;

    #[test]
    fn dd_patch_sort_and_uniq_name_their_files() {
        let r: &[Perm] = &[Perm::Read];
        let w: &[Perm] = &[Perm::Write];
        let rw: &[Perm] = &[Perm::Read, Perm::Write];
        assert_eq!(paths("dd if=disk.img of=/dev/sdb bs=1M"), [("disk.img".into(), r), ("/dev/sdb".into(), w)]);
        assert_eq!(paths("patch -d /srv -i fix.diff"), [("fix.diff".into(), r), ("/srv".into(), rw)]);
        assert_eq!(paths("patch main.c fix.diff"), [("main.c".into(), rw), ("fix.diff".into(), r)]);
        assert_eq!(paths("sort -o out.txt a.txt -"), [("out.txt".into(), w), ("a.txt".into(), r)]);
        assert_eq!(paths("uniq in.txt out.txt"), [("in.txt".into(), r), ("out.txt".into(), w)]);
        assert_eq!(paths("mktemp -p /srv x.XXXX"), [("/srv".into(), w)]);
        assert_eq!(paths("mktemp -d build/t.XXXX"), [("build".into(), w)]);
        assert_eq!(paths("mktemp"), [("/tmp".into(), w)]);
        assert!(paths("mktemp -u").is_empty());
    }
}
