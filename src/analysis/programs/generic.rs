//! The table's own kinds (`Kind::Reads`, `Kind::Copy`, …): programs whose operands the row's kind
//! and grammar say all about need no handler of their own; this file turns the kind into
//! effects. And the rule for a program the table does not know.

use super::{Args, Call, Effects, sub_arg};
use crate::analysis::table::Kind;
use crate::analysis::word::Arg;
use crate::mode::{Perm, Scope};

/// The effects of a program of the table's kind `kind` (not `Program`, `Shell` or `Builtin`,
/// which have code of their own).
pub fn handle(kind: Kind, call: &Call) -> Effects {
    let mut out = Effects::default();
    let (program, pos) = (call.program, call.pos);
    // The commonest kind names nothing: its arguments need not be read.
    if matches!(kind, Kind::Pure | Kind::Program(_) | Kind::Shell | Kind::Builtin(_)) {
        return out;
    }
    let parsed = call.options();
    let operands = || parsed.operands.iter().filter(|op| op.known().as_deref() != Some("-"));
    match kind {
        Kind::Reads => {
            option_files(program, &parsed, &mut out);
            let mut ops: Vec<&Arg> = operands().collect();
            // `xxd -r IN OUT`, `xxd IN OUT`: the second is the file it writes.
            if program == "xxd"
                && ops.len() == 2
                && let Some(to) = ops.pop()
            {
                out.path(to, &[Perm::Write], "writes a file");
            }
            for op in ops {
                out.path(op, &[Perm::Read], "reads a file");
            }
        }
        Kind::Lists => {
            option_files(program, &parsed, &mut out);
            if parsed.operands.is_empty() {
                out.cwd(&[Perm::Read], "lists the current directory", pos);
            }
            // `ls -d` looks at the entries themselves, never inside: a stat, which the kernel
            // allows anywhere and which shows no content.
            if matches!(program, "ls" | "dir" | "vdir") && parsed.has(&["d", "directory"]) {
                let mut maybe = Effects::default();
                for op in &parsed.operands {
                    maybe.path(op, &[Perm::Read], "looks at a path's own entry (ls -d)");
                }
                out.possibly(maybe);
            } else {
                for op in &parsed.operands {
                    out.path(op, &[Perm::Read], "lists or reads a path");
                }
            }
        }
        Kind::PatternReads => pattern_reads(call, &parsed, &mut out),
        Kind::Writes => {
            // `rm -r`, not `touch -r REF`.
            let recursive =
                parsed.opts.iter().any(|o| matches!(o.name.as_str(), "r" | "R" | "recursive") && o.value.is_none());
            let perms: &'static [Perm] = if recursive { &[Perm::Read, Perm::Write] } else { &[Perm::Write] };
            // `touch -r REF`, `truncate -r REF` (the row of rm gives -r no value).
            for v in parsed.values(&["reference", "r"]) {
                out.path(&v, &[Perm::Read], "reads a reference file");
            }
            for op in &parsed.operands {
                out.path(op, perms, "changes or removes a file");
            }
        }
        Kind::Edits => {
            // A decompressor (`gunzip a.gz`, `xz -d a.xz`) writes the name without the suffix.
            let decompresses = matches!(program, "gunzip" | "unxz" | "bunzip2" | "unzstd" | "unlzma" | "uncompress")
                || parsed.has(&["d", "decompress", "uncompress"]);
            let to_stdout = parsed.has(&["c", "stdout", "to-stdout"]);
            for op in &parsed.operands {
                out.path(op, &[Perm::Read, Perm::Write], "reads and rewrites a file");
                if decompresses
                    && !to_stdout
                    && let Some(t) = op.known()
                    && let Some(plain) = [".gz", ".xz", ".bz2", ".zst", ".lzma", ".Z", ".tgz"]
                        .iter()
                        .find_map(|suffix| t.strip_suffix(suffix))
                        .filter(|p| !p.is_empty() && !p.ends_with('/'))
                {
                    let plain = if t.ends_with(".tgz") { format!("{plain}.tar") } else { plain.to_string() };
                    out.path(&sub_arg(op, &plain), &[Perm::Write], "writes the file it decompresses");
                }
            }
        }
        Kind::ModeWrites => {
            let perms: &'static [Perm] =
                if parsed.has(&["R", "recursive"]) { &[Perm::Read, Perm::Write] } else { &[Perm::Write] };
            let reference = parsed.values(&["reference"]);
            for v in &reference {
                out.path(v, &[Perm::Read], "reads a reference file");
            }
            // The first operand is the mode or owner, unless a reference gives it. `chmod -x
            // file` reads as an option; bash passes it on and chmod takes it as a mode.
            let skip = usize::from(reference.is_empty());
            for op in parsed.operands.iter().skip(skip) {
                out.path(op, perms, "changes a file's mode or owner");
            }
        }
        Kind::Copy | Kind::Move | Kind::Link => copy_like(call, &parsed, &mut out),
        Kind::Tee => {
            for op in &parsed.operands {
                out.path(op, &[Perm::Write], "writes its input to a file");
            }
        }
        Kind::ForeignShell => {
            out.need(
                Scope::Workspace,
                Perm::Execute,
                program,
                "runs a shell whose language the analysis does not read",
                pos,
            );
            out.unresolved_text(&format!("{program} code"), pos);
        }
        Kind::Power => out.need(Scope::System, Perm::Execute, program, "stops or restarts the machine", pos),
        Kind::Admin => out.need(Scope::System, Perm::Write, program, "changes how the machine is configured", pos),
        Kind::Server => {
            let asks = |t: &str| matches!(t, "-V" | "-v" | "--version" | "-h" | "--help");
            let known: Vec<String> = call.args.iter().filter_map(Arg::known).collect();
            if known.is_empty() || known.len() != call.args.len() || !known.iter().all(|t| asks(t)) {
                out.need(
                    Scope::System,
                    Perm::Execute,
                    program,
                    "talks to a server that may be the user's, outside the sandbox, and runs what it is sent (a \
                     terminal multiplexer's, an editor's, the session bus)",
                    pos,
                );
            }
        }
        Kind::Engine => out.need(
            Scope::System,
            Perm::Execute,
            program,
            "talks to a container engine, which is root-equivalent",
            pos,
        ),
        Kind::Fetch => {
            let target = parsed.operands.first().and_then(Arg::known).unwrap_or_else(|| program.to_string());
            out.need(Scope::Network, Perm::Read, &target, "fetches from or looks up the network", pos);
            if matches!(call.stdin, super::Stdin::File(_)) {
                out.need(Scope::Network, Perm::Write, &target, "sends a file to the network", pos);
            }
        }
        Kind::Cloud => {
            out.need(Scope::System, Perm::Read, program, "reads its cloud credentials", pos);
            out.need(Scope::Network, Perm::Read, program, "talks to a cloud service", pos);
            out.need(Scope::Network, Perm::Write, program, "sends requests to a cloud service", pos);
        }
        Kind::Pure | Kind::Program(_) | Kind::Shell | Kind::Builtin(_) => {}
    }
    out
}

/// `grep PATTERN FILE…`, `jq FILTER FILE…`: the first operand is the pattern unless an option
/// gives it; with `-r` and no file, the cwd is searched.
fn pattern_reads(call: &Call, parsed: &Args, out: &mut Effects) {
    let program = call.program;
    let is_jq = matches!(program, "jq" | "yq" | "gojq" | "jaq" | "xq");
    if is_jq {
        return jq_reads(call, out);
    }
    for f in parsed.values(&["f", "file", "from-file"]) {
        out.path(&f, &[Perm::Read], "reads a pattern or input file");
    }
    let mut files = parsed.operands.iter();
    if !parsed.has(&["e", "regexp", "f", "file"]) {
        files.next();
    }
    let files: Vec<&Arg> = files.collect();
    let recursive =
        parsed.has(&["r", "R", "recursive", "dereference-recursive"]) || matches!(program, "rg" | "ag" | "ack");
    if files.is_empty() && recursive {
        out.cwd(&[Perm::Read], "searches the current directory", call.pos);
    }
    for f in files {
        if f.known().as_deref() != Some("-") {
            out.path(f, &[Perm::Read], "reads a file");
        }
    }
}

/// The files a reader's or a lister's options name: lists of names, exclusions, magic and key
/// files it reads, and the logs and outputs it writes.
fn option_files(program: &str, parsed: &Args, out: &mut Effects) {
    let (reads, writes): (&[&str], &[&str]) = match program {
        "wc" => (&["files0-from"], &[]),
        "du" => (&["files0-from", "X", "exclude-from"], &[]),
        "diff" | "colordiff" => (&["X", "exclude-from", "from-file", "to-file"], &[]),
        "file" => (&["m", "magic-file", "f", "files-from"], &[]),
        "hexdump" | "hd" => (&["f", "format-file"], &[]),
        "less" => (&["k", "lesskey-file", "T", "tag-file"], &["o", "O", "log-file", "LOG-FILE"]),
        "sdiff" | "iconv" | "shuf" => (&[], &["o", "output"]),
        "tree" => (&[], &["o"]),
        "ncdu" => (&["f", "X", "exclude-from"], &["o"]),
        _ => (&[], &[]),
    };
    for f in parsed.values(reads) {
        out.path(&f, &[Perm::Read], "reads a file an option names");
    }
    for f in parsed.values(writes) {
        out.path(&f, &[Perm::Write], "writes a file an option names");
    }
}

/// `jq [OPTION]… FILTER [FILE]…`: `--arg NAME VALUE` and `--argjson` take two words,
/// `--slurpfile NAME FILE` and `--rawfile` read the second, and after `--args` or `--jsonargs`
/// the words are values, not files.
fn jq_reads(call: &Call, out: &mut Effects) {
    let mut words: Vec<Arg> = Vec::new();
    let mut values_only = false;
    let mut i = 0;
    while i < call.args.len() {
        let arg = &call.args[i];
        match arg.known().as_deref() {
            Some("--arg" | "--argjson") => i += 3,
            Some("--slurpfile" | "--rawfile") => {
                if let Some(f) = call.args.get(i + 2) {
                    out.path(f, &[Perm::Read], "reads a file into a variable");
                }
                i += 3;
            }
            Some("--args" | "--jsonargs") => {
                values_only = true;
                i += 1;
            }
            _ => {
                words.push(arg.clone());
                i += 1;
            }
        }
    }
    let parsed = super::getopt(&words, call.short_args, call.long_args, true);
    for f in parsed.values(&["f", "from-file"]) {
        out.path(&f, &[Perm::Read], "reads a pattern or input file");
    }
    let mut files = parsed.operands.iter();
    if !parsed.has(&["f", "from-file"]) {
        files.next();
    }
    if values_only {
        return;
    }
    for f in files {
        if f.known().as_deref() != Some("-") {
            out.path(f, &[Perm::Read], "reads a file");
        }
    }
}

/// `cp SRC… DEST`, `cp -t DIR SRC…`, `mv`, `install`, `ln [-s] TARGET… [NAME]`.
fn copy_like(call: &Call, parsed: &Args, out: &mut Effects) {
    let program = call.program;
    let link = matches!(program, "ln" | "link");
    let mut operands = parsed.operands.clone();
    if program == "install" && parsed.has(&["d", "directory"]) {
        for op in &operands {
            out.path(op, &[Perm::Write], "creates a directory");
        }
        return;
    }
    let dest = match parsed.values(&["t", "target-directory"]).into_iter().next() {
        Some(t) => Some(t),
        None if operands.len() >= 2 => operands.pop(),
        None if link => {
            // `ln -s TARGET` creates a link named after TARGET in the cwd.
            if let Some(src) = operands.first()
                && let Some(name) = src.known().and_then(|t| t.rsplit('/').next().map(str::to_string))
            {
                let mut named = sub_arg(src, &name);
                named.raw = name;
                out.path(&named, &[Perm::Write], "creates a link");
            }
            return;
        }
        None => None,
    };
    if let Some(d) = dest {
        out.path(&d, &[Perm::Write], if link { "creates a link" } else { "writes the destination" });
        if link {
            out.links(d, operands.clone(), parsed.has(&["s", "symbolic"]));
        }
    }
    for src in &operands {
        match program {
            "mv" => out.path(src, &[Perm::Read, Perm::Write], "moves a file away"),
            "ln" | "link" => {}
            _ => out.path(src, &[Perm::Read], "reads a source file"),
        }
    }
}

/// A program the table does not know: any word with a slash, or starting with `~`, or naming a
/// credential, may be a path it reads. Those accesses are only possible.
pub fn unknown(call: &Call) -> Effects {
    let mut maybe = Effects::default();
    let mut previous: Option<String> = None;
    for arg in call.args {
        let after = std::mem::replace(&mut previous, arg.known());
        // An inline program (`-c CODE`, `-e CODE`: an interpreter reached through a shim or a
        // version manager), or a word that reads as code rather than a name, is no path.
        if after.as_deref().is_some_and(|p| INLINE_CODE.contains(&p)) || arg.known().is_some_and(|t| reads_as_code(&t))
        {
            continue;
        }
        match arg.known() {
            Some(text) => {
                let value = match text.split_once('=') {
                    Some((k, v)) if k.starts_with('-') => v.to_string(),
                    _ => text.clone(),
                };
                // A bare name of a credential (`deep.key`, `.env`) may be a file in the cwd too;
                // an option is not one (`--map-tokens`, `--secret-file`: its value may be).
                let credential = !value.starts_with('-')
                    && (crate::scope::credential_name(&value) || crate::scope::home_credential_name(&value));
                if (value.contains('/') || arg.raw.starts_with('~') || credential) && !super::is_url(&value) {
                    let sub = if value == text { arg.clone() } else { sub_arg(arg, &value) };
                    maybe.path(&sub, &[Perm::Read], "may read a path it is given");
                }
            }
            None => {
                if arg.field.fragments().iter().any(|f| f.contains('/')) {
                    maybe.path(arg, &[Perm::Read], "may read a path it is given");
                }
            }
        }
    }
    let mut out = Effects::default();
    out.possibly(maybe);
    out
}

/// The options interpreters take an inline program with.
const INLINE_CODE: &[&str] = &["-c", "-e", "-E", "--eval", "--command", "-r"];

/// A word that is code, not a file name: several lines, or spaces beside the punctuation of a
/// statement.
fn reads_as_code(text: &str) -> bool {
    text.contains('\n') || (text.contains(' ') && text.contains(['(', ';', '{', '=']))
}

#[cfg(test)]
mod tests {
    use super::super::{Effect, effects_of, paths_in};
    use crate::mode::Perm;

    /// The effects of `line` through the generic kind of its row.
    fn generic(line: &str) -> Vec<Effect> {
        effects_of(line)
    }

    #[test]
    fn an_unknown_programs_inline_code_is_no_path() {
        let possible = |args: &[&str]| -> usize {
            let words: Vec<crate::analysis::word::Arg> =
                args.iter().map(|a| super::super::literal(a, crate::analysis::Pos { line: 1, column: 1 })).collect();
            let call = super::super::Call {
                program: "frob",
                pos: crate::analysis::Pos { line: 1, column: 1 },
                args: &words,
                short_args: "",
                long_args: &[],
                stdin: &super::super::Stdin::Unknown,
                downloaded: &|_| false,
                download_named_by: &|_| None,
                var: &|_| None,
                read: &|_| None,
                cwd: Some("/w"),
            };
            match super::unknown(&call).0.as_slice() {
                [Effect::Possibly(inner)] => inner.len(),
                other => other.len(),
            }
        };
        assert_eq!(possible(&["-c", "open('keys/id_rsa')"]), 0);
        assert_eq!(possible(&["import os; os.path.exists('a/.env')"]), 0);
        assert_eq!(possible(&["x\ny/.env"]), 0);
        assert_eq!(possible(&["keys/id_rsa"]), 1, "a path is still a path");
        assert_eq!(possible(&["-o", "out/file.txt", "My Files/a b.txt"]), 2);
    }

    #[test]
    fn reads_writes_and_edits() {
        assert_eq!(paths_in(&generic("cat a - b")), [("a".into(), &[Perm::Read][..]), ("b".into(), &[Perm::Read][..])]);
        assert_eq!(paths_in(&generic("rm -r d")), [("d".into(), &[Perm::Read, Perm::Write][..])]);
        assert_eq!(
            paths_in(&generic("touch -r ref x")),
            [("ref".into(), &[Perm::Read][..]), ("x".into(), &[Perm::Write][..])]
        );
        assert_eq!(paths_in(&generic("chmod 644 f")), [("f".into(), &[Perm::Write][..])]);
        assert_eq!(
            paths_in(&generic("chmod --reference=r f")),
            [("r".into(), &[Perm::Read][..]), ("f".into(), &[Perm::Write][..])]
        );
    }

    #[test]
    fn lists_read_the_cwd_and_ls_d_only_maybe() {
        assert!(matches!(&generic("ls")[0], Effect::Cwd { perms: [Perm::Read], .. }));
        assert!(matches!(&generic("ls -d /etc")[0], Effect::Possibly(_)));
    }

    #[test]
    fn patterns_are_not_files() {
        assert_eq!(paths_in(&generic("grep x a.txt")), [("a.txt".into(), &[Perm::Read][..])]);
        assert_eq!(paths_in(&generic("grep -e x a.txt")), [("a.txt".into(), &[Perm::Read][..])]);
        assert!(matches!(&generic("grep -r x")[0], Effect::Cwd { .. }));
        assert_eq!(
            paths_in(&generic("jq -f prog.jq in.json")),
            [("prog.jq".into(), &[Perm::Read][..]), ("in.json".into(), &[Perm::Read][..])]
        );
    }

    #[test]
    fn copies_moves_and_links() {
        assert_eq!(
            paths_in(&generic("cp a b dir")),
            [("dir".into(), &[Perm::Write][..]), ("a".into(), &[Perm::Read][..]), ("b".into(), &[Perm::Read][..])]
        );
        assert_eq!(
            paths_in(&generic("mv a b")),
            [("b".into(), &[Perm::Write][..]), ("a".into(), &[Perm::Read, Perm::Write][..])]
        );
        let e = generic("ln -s /etc/passwd p");
        assert!(e.iter().any(|e| matches!(e, Effect::Links { symbolic: true, .. })), "{e:?}");
        assert_eq!(paths_in(&generic("ln -s /etc/passwd")), [("passwd".into(), &[Perm::Write][..])]);
        assert_eq!(
            paths_in(&generic("install -d a b")),
            [("a".into(), &[Perm::Write][..]), ("b".into(), &[Perm::Write][..])]
        );
    }
}
