//! The walk's own rules, each on a short program: how values join after branches and loops,
//! how functions see their arguments, how `cd` moves the paths after it.

use super::super::{Certainty, Context, TextKind};
use crate::environ::Environ;
use crate::scope::Layout;

/// W = /home/u/proj = cwd, HOME = /home/u.
fn context() -> Context {
    let layout = Layout { workspace: "/home/u/proj".into(), home: Some("/home/u".into()), ..Default::default() };
    Context::plain(layout, Environ::from_pairs([("HOME", "/home/u"), ("PATH", "/usr/bin:/bin")]))
}

/// The paths `command` is known to touch in `text`, sorted.
fn touched(text: &str, command: &str) -> Vec<String> {
    let a = super::analyze_program(text, TextKind::Command, &context());
    assert!(a.failure.is_none(), "{text}: {:?}", a.failure);
    let mut paths: Vec<String> = a
        .accesses
        .iter()
        .filter(|x| x.command == command && x.certainty == Certainty::Known && x.target.starts_with('/'))
        .filter(|x| x.target != "/home/u/proj")
        .map(|x| x.target.clone())
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// The words the walk could not resolve in `text`.
fn unresolved(text: &str) -> Vec<String> {
    super::analyze_program(text, TextKind::Command, &context()).unresolved.into_iter().map(|u| u.text).collect()
}

#[test]
fn after_a_branch_a_variable_has_the_values_of_every_branch() {
    let text = "if test -n \"$1\"; then f=/etc/a; else f=~/b; fi\ncat \"$f\"";
    assert_eq!(touched(text, "cat"), ["/etc/a", "/home/u/b"]);
    let text = "case $1 in x) f=/etc/a;; y) f=/etc/b;; *) f=/etc/c;; esac; cat \"$f\"";
    assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b", "/etc/c"]);
    // A branch that does not run leaves the value before it.
    let text = "f=/etc/a; if false; then f=/etc/b; fi; cat \"$f\"";
    assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b"]);
}

#[test]
fn a_loop_variable_takes_every_value_and_the_body_sees_each() {
    assert_eq!(touched("for f in /etc/a ~/b; do cat \"$f\"; done", "cat"), ["/etc/a", "/home/u/b"]);
    // What the body assigns reaches the next round and the code after the loop.
    let text = "d=/etc; for n in a b; do cat \"$d/$n\"; d=~; done; cat \"$d/c\"";
    assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b", "/etc/c", "/home/u/a", "/home/u/b", "/home/u/c"]);
}

#[test]
fn a_function_sees_the_arguments_of_each_call() {
    let text = "show() { cat \"$1\"; }\nshow /etc/a\nshow ~/b";
    assert_eq!(touched(text, "cat"), ["/etc/a", "/home/u/b"]);
    // A function's own variables (local) do not leak; its globals do.
    let text = "f() { local x=/etc/in; g=/etc/out; }; x=/etc/before; f; cat \"$x\" \"$g\"";
    assert_eq!(touched(text, "cat"), ["/etc/before", "/etc/out"]);
    // Scopes are dynamic: a function the first calls sees its locals; `declare -g` is global.
    let text =
        "f() { local x=/etc/in; declare -g y=/etc/g; g; }; g() { cat \"$x\"; }; x=/etc/out; f; cat \"$x\" \"$y\"";
    assert_eq!(touched(text, "cat"), ["/etc/g", "/etc/in", "/etc/out"]);
}

#[test]
fn cd_moves_relative_paths_and_a_subshell_keeps_its_cd() {
    assert_eq!(touched("cd /etc && cat fstab", "cat"), ["/etc/fstab"]);
    assert_eq!(touched("(cd /etc; cat a); cat b", "cat"), ["/etc/a", "/home/u/proj/b"]);
    assert_eq!(touched("cd ~/x; cd ..; cat y", "cat"), ["/home/u/y"]);
    // A directory the walk cannot know leaves the paths after it unresolved (an empty `$1`
    // would be known: `cd ""` stays).
    let text = "cd \"$(head -1 dirs)\"; cat notes";
    assert_eq!(touched(text, "cat"), Vec::<String>::new());
    assert!(unresolved(text).iter().any(|u| u.contains("notes")), "{:?}", unresolved(text));
}

#[test]
fn bodies_are_walked_on_their_own_once_more_only_when_that_walk_knows_less() {
    let walks = |text: &str| {
        super::Walker::new(&context()).walk_program(text, TextKind::Command, &context()).work.deferred_walks
    };
    // A body that assigns a name the program did not: once in a state where only what the
    // program assigns is unknown, then once more with every variable unknown.
    assert_eq!(walks("x=/etc/a; f() { y=1; cat \"$x\"; }"), 2);
    // Nothing new assigned: once.
    assert_eq!(walks("x=/etc/a; f() { x=1; cat \"$x\"; }"), 1);
    // Past the budget of calls followed, `a`'s walk follows `b` but not `b`'s call of `c`, whose
    // turn has passed (walked at its call, it needed none): `c` gets its walk on its own then.
    let spent = "g() { :; }; ".to_string() + &"g; ".repeat(super::functions::MAX_FOLLOWED_CALLS + 1);
    assert_eq!(walks(&format!("{spent}c() {{ cat \"$1\"; }}; c /etc/ok; b() {{ c /etc/a; }}; a() {{ b; }}")), 3);
    // The program already assigns names it computes: every variable is unknown from the first
    // round, and a second would walk the same body in the same state.
    assert_eq!(walks("eval \"$(cat /etc/a)\"; f() { y=1; cat \"$x\"; }"), 1);
    let text = "declare \"$(cat /etc/a)=2\"; f() { y=1; }; trap 'z=3' EXIT";
    assert_eq!(walks(text), 2);
}

/// Whether the walk of `text` finds `command` touching `path`, known or possible.
fn finds(text: &str, command: &str, path: &str) -> bool {
    let a = super::analyze_program(text, TextKind::Command, &context());
    a.accesses.iter().any(|x| x.command == command && x.target == path)
}

#[test]
fn a_body_walked_on_its_own_follows_its_own_calls_of_itself_even_past_the_budget() {
    // A recursive call's arguments can name what the body does; 2,000 calls spent first must
    // not hide it.
    let body = "f() { cat \"$1\"; [ \"$1\" = a ] && f /etc/a; }; f b";
    assert!(finds(body, "cat", "/etc/a"));
    let spent = "g() { :; }; ".to_string() + &"g; ".repeat(super::functions::MAX_FOLLOWED_CALLS + 1);
    assert!(finds(&(spent + body), "cat", "/etc/a"));
}

#[test]
fn a_function_a_later_body_defines_reaches_the_bodies_walked_before_it() {
    // `f`'s body is walked on its own before `g`'s defines `h` (the calls four deep are not
    // followed where they are made): the next round sees `h`, whether or not every variable was
    // unknown from the first and whether or not `g` assigns anything.
    let calls = "\na4() { g; }; a3() { a4; }; a2() { a3; }; a1() { a2; }\n\
                 b4() { f; }; b3() { b4; }; b2() { b3; }; b1() { b2; }\na1; b1";
    for first in ["read -r v; declare \"$v=1\"\n", ""] {
        for assigns in ["z=1; ", ""] {
            let text = format!("{first}f() {{ h /etc/a; }}\ng() {{ {assigns}h() {{ cat \"$1\"; }}; }}{calls}");
            assert!(finds(&text, "cat", "/etc/a"), "{text}");
        }
    }
}
