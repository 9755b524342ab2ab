//! `find`: the start directories are searched (read, and written with `-delete`), the files its
//! actions name are read or written, and each `-exec`/`-ok` command runs once per start
//! directory with `{}` standing for some path below it.

use super::{Call, Effects};
use crate::analysis::word::{Arg, Field, Part};
use crate::mode::Perm;

/// The family's entry.
pub fn handle(call: &Call) -> Effects {
    find(call)
}

fn find(call: &Call) -> Effects {
    let mut out = Effects::default();
    let (rest, pos) = (call.args, call.pos);
    // Leading options (-H, -L, -P, -D x, -Ox), then start paths, then the expression.
    let mut i = 0;
    while i < rest.len() {
        match rest[i].known().as_deref() {
            Some("-H" | "-L" | "-P") => i += 1,
            Some("-D") => i += 2,
            Some(t) if t.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let mut starts: Vec<Arg> = Vec::new();
    while i < rest.len() {
        match rest[i].known() {
            Some(t) if t.starts_with('-') || t == "(" || t == "!" || t == ")" || t == "," => break,
            _ => {
                starts.push(rest[i].clone());
                i += 1;
            }
        }
    }
    if starts.is_empty() {
        starts.push(Arg { field: Field::literal("."), pos, raw: ".".into() });
    }
    let expr = &rest[i..];
    let deletes = expr.iter().any(|a| a.known().as_deref() == Some("-delete"));
    for s in &starts {
        if deletes {
            out.path(s, &[Perm::Read, Perm::Write], "searches and deletes files");
        } else {
            out.path(s, &[Perm::Read], "searches a directory tree");
        }
    }
    // What `{}` stands for: some path under the start directories.
    let found = |start: &Arg| -> Field {
        match start.known() {
            Some(t) => Field {
                parts: vec![
                    Part::Lit { text: format!("{}/", t.trim_end_matches('/')), quoted: true, split: false },
                    Part::Unknown { numeric: false },
                ],
                ..Field::default()
            },
            None => Field::unknown(),
        }
    };
    let mut j = 0;
    while j < expr.len() {
        let t = expr[j].known().unwrap_or_default();
        match t.as_str() {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let end = expr[j + 1..]
                    .iter()
                    .position(|a| matches!(a.known().as_deref(), Some(";") | Some("+")))
                    .map_or(expr.len(), |p| p + j + 1);
                let mut cmd: Vec<Arg> = expr[j + 1..end].to_vec();
                for s in &starts {
                    let mut inst = cmd.clone();
                    for a in inst.iter_mut() {
                        if a.known().is_some_and(|x| x.contains("{}")) {
                            let text = a.known().unwrap_or_default();
                            a.field = if text == "{}" { found(s) } else { Field::unknown() };
                        }
                    }
                    if !inst.is_empty() {
                        out.run(inst);
                    }
                }
                cmd.clear();
                j = end + 1;
            }
            "-fprint" | "-fprint0" | "-fls" => {
                if let Some(f) = expr.get(j + 1) {
                    out.path(f, &[Perm::Write], "writes its results to a file");
                }
                j += 2;
            }
            "-fprintf" => {
                if let Some(f) = expr.get(j + 1) {
                    out.path(f, &[Perm::Write], "writes its results to a file");
                }
                j += 3;
            }
            "-newer" | "-anewer" | "-cnewer" | "-samefile" => {
                if let Some(f) = expr.get(j + 1) {
                    out.path(f, &[Perm::Read], "compares with a file");
                }
                j += 2;
            }
            "-files0-from" => {
                if let Some(f) = expr.get(j + 1) {
                    out.path(f, &[Perm::Read], "reads start points from a file");
                }
                j += 2;
            }
            _ => j += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::Effect;
    use crate::analysis::word::Arg;
    use crate::mode::Perm;

    fn effects(line: &str) -> Vec<Effect> {
        super::super::effects_of(line)
    }

    #[test]
    fn find_searches_deletes_and_runs_per_start() {
        let e = effects("find");
        assert!(
            matches!(&e[..], [Effect::Path { arg, perms: [Perm::Read], .. }] if arg.known().as_deref() == Some("."))
        );
        let e = effects("find -L /srv ~/x -name *.log -delete");
        let deleted: Vec<String> = e
            .iter()
            .filter_map(|x| match x {
                Effect::Path { arg, perms: [Perm::Read, Perm::Write], .. } => arg.known(),
                _ => None,
            })
            .collect();
        assert_eq!(deleted, ["/srv", "~/x"]);
        // `-exec rm {} ;` runs rm once for each start, on some path below it.
        let e = effects("find a b -exec rm {} ; -fprint out");
        let runs: Vec<&Vec<Arg>> = e
            .iter()
            .filter_map(|x| match x {
                Effect::Run { args, .. } => Some(args),
                _ => None,
            })
            .collect();
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0][0].known().as_deref(), Some("rm"));
        assert!(runs[0][1].known().is_none(), "{{}} stands for a path not known in full");
        assert!(e.iter().any(
            |x| matches!(x, Effect::Path { arg, perms: [Perm::Write], .. } if arg.known().as_deref() == Some("out"))
        ));
    }
}
