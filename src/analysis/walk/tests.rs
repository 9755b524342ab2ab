//! The walk's own rules, each on a short program: how values join after branches and loops,
//! how functions see their arguments, how `cd` moves the paths after it.

use super::super::{Certainty, Context, TextKind};
use crate::environ::Environ;
use crate::scope::Layout;

/// W = /home/u/proj = cwd, HOME = /home/u, and `CALL=u` in the environment.
fn context() -> Context {
    let layout = Layout { workspace: "/home/u/proj".into(), home: Some("/home/u".into()), ..Default::default() };
    Context::plain(layout, Environ::from_pairs([("HOME", "/home/u"), ("PATH", "/usr/bin:/bin"), ("CALL", "u")]))
}

/// The paths `command` is known to touch in `text`, sorted.
fn touched(text: &str, command: &str) -> Vec<String> {
    let mut paths = accessed(text, command, |c| *c == Certainty::Known);
    paths.retain(|p| p != "/home/u/proj");
    paths
}

/// The paths `command` may touch in `text` where the walk is not sure it runs, sorted.
fn possibly_touched(text: &str, command: &str) -> Vec<String> {
    accessed(text, command, |c| matches!(c, Certainty::Possible(_)))
}

/// The absolute paths `command` touches in `text` with a certainty `keep` takes, sorted, once.
fn accessed(text: &str, command: &str, keep: impl Fn(&Certainty) -> bool) -> Vec<String> {
    let a = super::analyze_program(text, TextKind::Command, &context());
    assert!(a.failure.is_none(), "{text}: {:?}", a.failure);
    let mut paths: Vec<String> = a
        .accesses
        .iter()
        .filter(|x| x.command == command && keep(&x.certainty) && x.target.starts_with('/'))
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
fn a_body_walked_on_its_own_follows_its_own_calls_of_itself_even_past_the_budget() {
    // A recursive call's arguments can name what the body does (a path to write); spending
    // the budget of calls followed first must not hide it.
    let finds = |text: &str| touched(text, "cat").contains(&"/etc/a".to_string());
    let body = "f() { cat \"$1\"; [ \"$1\" = a ] && f /etc/a; }; f b";
    assert!(finds(body));
    let spent = "g() { :; }; ".to_string() + &"g; ".repeat(super::functions::MAX_FOLLOWED_CALLS + 1);
    assert!(finds(&(spent + body)));
}

#[test]
fn what_a_call_may_change_is_gathered_again_only_when_what_it_is_read_from_changes() {
    // `f` calls itself: the inner call is not followed, its effects are read from the syntax.
    // Code the walk cannot see (`eval` of a file's text) makes the aliases unknown once; after
    // that, more of it changes nothing a gathering reads, and each call takes the one gathered.
    let gathered = |text: &str| {
        super::functions::GATHERED.with(|g| g.set(0));
        let found = touched(text, "head");
        (super::functions::GATHERED.with(|g| g.get()), found)
    };
    let calls = "eval \"$(cat /etc/x)\"; f; ".repeat(12);
    let (count, found) = gathered(&format!("f() {{ d=/etc/a; f; }}; {calls}head \"$d\""));
    assert!(count <= 2, "gathered {count} times");
    // (With the aliases unknown, the call not followed may run anything: `d` is not known.)
    assert!(found.is_empty(), "{found:?}");
    // A function defined since is read anew.
    let (count, _) = gathered(&format!("f() {{ d=/etc/a; f; }}; {calls}g() {{ :; }}; f; head \"$d\""));
    assert!((2..=3).contains(&count), "gathered {count} times");
    // An alias is put aside while its text runs: what was gathered meanwhile is read anew.
    let (count, _) = gathered("shopt -s expand_aliases; f() { d=/etc/a; f; }; alias g=f; g; f; head \"$d\"");
    assert_eq!(count, 2, "gathered {count} times");
}

#[test]
fn every_case_item_runs_in_a_call_whatever_its_word() {
    // A value the walk holds as known can be wrong where the run's is not (PS4 is bash's own):
    // no item is left out for it, and what each assigns reaches the code after.
    let text = "f() { case \"$1\" in \"\") ;; *) cat \"$d\";; esac; }; d=/etc/x; f \"$PS4\"";
    assert_eq!(possibly_touched(text, "cat"), ["/etc/x"]);
    let text = "f() { case $1 in a) d=/etc/a;; b) d=/etc/b;; esac; }; f a; head \"$d\"";
    let found = touched(text, "head");
    assert!(found.contains(&"/etc/a".to_string()) && found.contains(&"/etc/b".to_string()), "{found:?}");
}

#[test]
fn positional_parameters_after_a_word_of_unknown_fields_are_not_known() {
    let f = "f() { head \"$2\"; }; ";
    assert_eq!(touched(&format!("{f}f /etc/x /etc/y"), "head"), ["/etc/y"]);
    assert_eq!(touched(&format!("{f}f \"$(cat list)\" /etc/y"), "head"), ["/etc/y"]);
    // `"$@"` of parameters not known, or an unquoted word not known, may be any number of
    // fields: what follows is not known either.
    let text = format!("{f}set -- $(cat list); f \"$@\"");
    assert_eq!(touched(&text, "head"), Vec::<String>::new());
    assert!(unresolved(&text).iter().any(|u| u.contains("$2")), "{:?}", unresolved(&text));
    assert_eq!(touched(&format!("{f}f $(cat list) /etc/y"), "head"), Vec::<String>::new());
    assert_eq!(touched(&format!("{f}f /etc/*.conf /etc/y"), "head"), Vec::<String>::new());
}

#[test]
fn a_call_not_followed_leaves_its_caller_s_positional_parameters() {
    // e is five calls deep, past the calls followed: applied from its syntax, its `set --`
    // changes its own parameters, not d's.
    let text = "e() { set -- /etc/e; }; d() { e; cat \"$1\"; }; c() { d \"$1\"; }; b() { c \"$1\"; }; \
                a() { b \"$1\"; }; a /etc/a";
    assert_eq!(touched(text, "cat"), ["/etc/a"]);
}

#[test]
fn what_a_signal_s_trap_assigns_is_not_known_after_the_trap_is_set() {
    // The signal may come between any two commands: after it, `x` may hold what the action
    // assigns, whatever the walk saw assigned since.
    let text = "x=/etc/a; trap 'x=/etc/b' USR1; kill -USR1 $$; cat \"$x\"";
    assert!(unresolved(text).iter().any(|u| u.contains("$x")), "{:?}", unresolved(text));
    // The same through a function the action calls, defined after the trap.
    let text = "trap f USR1; f() { x=/etc/b; }; x=/etc/a; kill -USR1 $$; cat \"$x\"";
    assert!(unresolved(text).iter().any(|u| u.contains("$x")), "{:?}", unresolved(text));
    // An EXIT trap runs after everything else: the value stays known.
    let text = "x=/etc/a; trap 'x=/etc/b' EXIT; cat \"$x\"";
    assert_eq!(touched(text, "cat"), ["/etc/a"]);
    assert!(unresolved(text).is_empty(), "{:?}", unresolved(text));
}

#[test]
fn a_value_the_walk_may_have_wrong_is_not_taken_as_known() {
    let none = Vec::<String>::new();
    let f = "f() { head \"$2\"; }; ";
    // IFS not known, or unset, or text an expansion gives outside quotes: how an unquoted word
    // splits is not known.
    assert_eq!(touched(&format!("IFS=$(cat ifs); x=\"a b\"; {f}f $x"), "head"), none);
    assert_eq!(touched(&format!("{f}f ${{x:-a /etc/b}}"), "head"), none);
    // `"${!r}"` may list several fields; `+(a)` is an extended glob.
    assert_eq!(touched(&format!("arr=(); r=\"arr[@]\"; {f}f \"${{!r}}\" /etc/q"), "head"), none);
    assert_eq!(touched(&format!("{f}f +(a) /etc/y"), "head"), none);
    // `${!1-…}` tests the variable `$1` names.
    assert_eq!(touched("x=/etc/x; head \"${!x-/etc/none}\"", "head"), none);
    // After `source FILE ARGS` the parameters are the caller's or what the file set.
    assert_eq!(touched("f() { . ./s.sh a /etc/b; head \"$2\"; }; f /etc/x /etc/y", "head"), ["/etc/b", "/etc/y"]);
    // `"$*"` joins with the first character of IFS.
    let text = "f() { d=\"/etc/$*\"; head \"$d\"; }; IFS=:; f a b";
    assert_eq!(touched(text, "head"), ["/etc/a:b"]);
    // A trap may change the parameters, or the directory, between any two commands.
    let text = "f() { trap 'set -- z' USR1; kill -USR1 $$; head \"$1\"; }; f /etc/a";
    assert_eq!(touched(text, "head"), none);
    assert_eq!(touched("trap 'cd /etc' USR1; kill -USR1 $$; cd /home/u; head x", "head"), none);
    // Variables bash sets itself are not taken as unset.
    let found = touched("head \"/etc/x$PS4\" \"/etc/y$OPTERR\"", "head");
    assert!(!found.contains(&"/etc/x".to_string()) && !found.contains(&"/etc/y".to_string()), "{found:?}");
}

#[test]
fn a_call_not_followed_may_leave_a_trap_and_a_name_may_be_an_alias_or_a_reference() {
    // f5 is five calls deep: it is read from its syntax, not walked.
    let deep = "f4() { f5; }; f3() { f4; }; f2() { f3; }; f1() { f2; }; ";
    let here = "/home/u/proj/x".to_string();
    // `command -$v cd …` may change directory; so may an alias named `command`.
    let text = format!("f5() {{ command -$v cd /etc; }}; {deep}v=p; f1; head x");
    assert!(!touched(&text, "head").contains(&here), "{:?}", touched(&text, "head"));
    let text = format!("shopt -s expand_aliases; alias command='cd /etc;'; f5() {{ command true; }}; {deep}f1; head x");
    assert!(!touched(&text, "head").contains(&here), "{:?}", touched(&text, "head"));
    // A trap the deep call sets runs later in its caller, with the caller's parameters.
    let text = "f5() { trap 'set -- /etc' USR1; }; f4() { f5; kill -USR1 $$; cd \"$1\"; head x; }; \
                f3() { f4 \"$1\"; }; f2() { f3 \"$1\"; }; f1() { f2 \"$1\"; }; f1 /home/u";
    assert!(!touched(text, "head").contains(&"/home/u/x".to_string()), "{:?}", touched(text, "head"));
    // A trap's `set -o $x` may set the parameters too.
    let text = "x='pipefail /etc'; trap 'set -o $x' DEBUG; set -- /home/u; cd \"$1\"; head x";
    assert!(!touched(text, "head").contains(&"/home/u/x".to_string()), "{:?}", touched(text, "head"));
    // A reference to an array's elements makes `"$r"` several fields.
    let text = "a=(x /etc/y z); declare -n r='a[@]'; set -- \"$r\"; head \"$2\"";
    assert_eq!(touched(text, "head"), Vec::<String>::new());
}

#[test]
fn assignments_before_a_function_s_name_are_its_variables() {
    assert_eq!(touched("f() { head \"$X\"; }; X=/etc/x f", "head"), ["/etc/x"]);
    assert_eq!(touched("f() { head \"/etc/$*\"; }; IFS=. f a b", "head"), ["/etc/a.b"]);
    // `unset` inside brings back the value the assignment hid.
    let text = "d=/etc/a; f() { unset d; head \"$d\"; }; d=/etc/x f";
    assert_eq!(touched(text, "head"), ["/etc/a"]);
    // The arguments were split before: with the caller's `IFS`, not the one given to `f`.
    let text = "if [ -n \"$1\" ]; then x='a b'; else x=c; fi; f() { head \"/etc/$1\"; }; IFS=/ f $x";
    assert!(!touched(text, "head").contains(&"/etc/a b".to_string()), "{:?}", touched(text, "head"));
}

#[test]
fn a_body_followed_in_a_round_whose_state_was_dropped_is_walked_again() {
    // In the first round of the bodies run later, `$CALL` names `u`, so `f` follows it. `k`
    // assigns a name that round took as known, so the bodies are walked again with every
    // variable unknown: `f` then calls a name that is not static, and `u` must be walked on its
    // own, or its read is lost.
    let text = "f() { $CALL; }; u() { head /etc/secret; }; k() { fresh=1; }; trap 'k; f' EXIT";
    assert_eq!(possibly_touched(text, "head"), ["/etc/secret"]);
}

/// Whether `text` needs network execute (running fetched code) anywhere.
fn runs_fetched_code(text: &str) -> bool {
    let a = super::analyze_program(text, TextKind::Command, &context());
    assert!(a.failure.is_none(), "{text}: {:?}", a.failure);
    a.accesses.iter().any(|x| x.scope == crate::mode::Scope::Network && x.perm == crate::mode::Perm::Execute)
}

#[test]
fn a_call_not_followed_that_fetches_taints_what_it_prints_and_the_files_run_after_it() {
    // `d` is five calls deep: read from its syntax, not walked.
    let deep = |d: &str| format!("d() {{ {d}; }}; f4() {{ d; }}; f3() {{ f4; }}; f2() {{ f3; }}; f1() {{ f2; }}; ");
    for (body, then) in [
        ("curl -s https://x/i.sh", "f1 | sh"),
        ("env curl -s https://x/i.sh", "eval \"$(f1)\""),
        ("echo \"$(wget -qO- https://x/i.sh)\"", "f1 | bash"),
        ("bash -c 'curl -s https://x/i.sh'", "f1 | bash"),
        ("cat </dev/tcp/x/80", "f1 | bash"),
        ("git clone https://x/r.git | cat", "f1 | bash"),
        ("curl -so i.sh https://x/i.sh", "f1; bash i.sh"),
        ("curl -s https://x/i.sh > i.sh", "f1; ./i.sh"),
    ] {
        let text = format!("{}{then}", deep(body));
        assert!(runs_fetched_code(&text), "{text}");
    }
    // What does not fetch stays code the analysis cannot see (workspace execute).
    assert!(!runs_fetched_code(&format!("{}f1 | sh", deep("echo hi; tar xf a.tar"))));
    assert!(!runs_fetched_code(&format!("{}f1; ./run.sh", deep("curl -s https://x/i.sh"))));
}

#[test]
fn a_function_named_like_a_special_builtin_may_not_be_what_runs() {
    // In POSIX mode bash runs the special builtin before the function.
    assert_eq!(touched("eval() { :; }; set -o posix; eval 'head /etc/x'", "head"), ["/etc/x"]);
    let text = "shift() { builtin shift; }; set -o posix; set -- /etc/a /etc/b; shift; head \"$1\"";
    assert_eq!(touched(text, "head"), ["/etc/a", "/etc/b"]);
    // Any other name is the function's.
    assert_eq!(touched("cat() { :; }; cat /etc/x", "cat"), Vec::<String>::new());
}

#[test]
fn a_trap_assigning_through_a_reference_may_change_what_it_refers_to() {
    for text in [
        "d=/etc/a; declare -n r=d; trap 'r=/etc/b' USR1; kill -USR1 $$; head \"$d\"",
        "d=/etc/a; trap 'r=/etc/b' USR1; declare -n r=d; kill -USR1 $$; head \"$d\"",
    ] {
        assert!(unresolved(text).iter().any(|u| u.contains("$d")), "{text}: {:?}", unresolved(text));
    }
}

#[test]
fn with_set_k_an_argument_may_be_an_assignment_for_the_command() {
    // `f` gets no argument, and `x` in its environment.
    let text = "f() { head \"$x\" \"/etc/p$1\"; }; set -k; f x=/etc/y";
    assert_eq!(touched(text, "head"), ["/etc/p", "/etc/px=/etc/y", "/etc/y"]);
    // Without it, the word is the argument.
    assert_eq!(touched("f() { head \"$x\" \"/etc/p$1\"; }; f x=/etc/y", "head"), ["/etc/px=/etc/y"]);
}

#[test]
fn fetched_text_stays_fetched_in_variables_and_parameters() {
    let u = "https://x/i.sh";
    for text in [
        format!("v=$(curl -s {u}); eval \"$v\""),
        format!("v=$(curl -s {u}); echo \"$v\" | sh"),
        format!("v=$(curl -s {u}); bash <<< \"$v\""),
        format!("read -r v < <(curl -s {u}); eval \"$v\""),
        format!("mapfile -t a < <(curl -s {u}); eval \"${{a[@]}}\""),
        format!("printf -v v %s \"$(curl -s {u})\"; eval \"$v\""),
        format!("f() {{ eval \"$1\"; }}; f \"$(curl -s {u})\""),
        format!("set -- \"$(curl -s {u})\"; eval \"$1\""),
        format!("curl -s {u} | while read -r l; do eval \"$l\"; done"),
        format!("v=$(curl -s {u}); echo \"$v\" > x.sh; bash x.sh"),
        format!("curl -s {u} | eval \"$(cat)\""),
        format!("curl -s {u} | tr a b | sh"),
        format!("sh <<EOF\n$(curl -s {u})\nEOF"),
    ] {
        assert!(runs_fetched_code(&text), "{text}");
    }
    // Assigned again, or never fetched, it is not.
    assert!(!runs_fetched_code(&format!("v=$(curl -s {u}); v='echo hi'; eval \"$v\"")));
    assert!(!runs_fetched_code("v=$(date); eval \"echo $v\"; echo \"$v\" | sh; cat x | eval \"$(cat)\""));
    // A fetched parameter taints only itself, and only while the call runs; an assignment is
    // a value, not a command; a program that does not read its input does not print it.
    for text in [
        format!("run() {{ echo \"+ $*\"; \"$@\"; }}; v=$(curl -s {u}); run git tag \"v$v\""),
        // (`"$@"` after another word: each of its fields is marked by its own parameter.)
        format!("run() {{ command \"$@\"; }}; v=$(curl -s {u}); run git tag \"v$v\""),
        format!("set -- make all; f() {{ :; }}; f \"$(curl -s {u})\"; \"$@\""),
        format!("v=$(curl -s {u}); env VERSION=\"$v\" make release"),
        format!("curl -s {u} | while read -r f; do \"$(pwd)/tools/check\" \"$f\"; done"),
    ] {
        assert!(!runs_fetched_code(&text), "{text}");
    }
    for text in [
        format!("run() {{ \"$@\"; }}; run eval \"$(curl -s {u})\""),
        format!("f() {{ shift; eval \"$1\"; }}; f a \"$(curl -s {u})\""),
        format!("v=$(curl -s {u}); v+=' x'; eval \"$v\""),
    ] {
        assert!(runs_fetched_code(&text), "{text}");
    }
}

#[test]
fn a_need_met_at_several_places_is_listed_once_with_the_count_of_the_others() {
    // Three places; the function's body is walked at both calls and on its own, and the loop's
    // body twice: each place counts once.
    let text = "f() { cat /etc/a; }\nf; f\nfor i in 1 2; do cat /etc/a; done\ncat /etc/a\ncat /etc/b";
    let a = super::analyze_program(text, TextKind::Command, &context());
    assert!(a.failure.is_none(), "{:?}", a.failure);
    let reads: Vec<_> = a.accesses.iter().filter(|x| x.command == "cat" && x.target == "/etc/a").collect();
    assert_eq!(reads.len(), 1, "{reads:?}");
    assert_eq!((reads[0].pos.line, reads[0].more), (1, 2), "{reads:?}");
    let other: Vec<_> = a.accesses.iter().filter(|x| x.target == "/etc/b").collect();
    assert_eq!((other.len(), other[0].more), (1, 0), "{other:?}");
    // A command whose need was met before still needs nothing more than it did: no "runs a
    // program" beside its read.
    assert!(!a.accesses.iter().any(|x| x.target == "cat"), "{:?}", a.accesses);
}

#[test]
fn a_body_walked_on_its_own_follows_calls_into_small_bodies_only() {
    // A wrapper's arguments decide what it does: followed.
    let text = "w(){ cat \"$1\"; }; f(){ w /etc/a; }; trap f EXIT";
    assert_eq!(touched(text, "cat"), ["/etc/a"]);
    // A larger body is followed once, then walked on its own, its parameters unknown.
    let pad = ": padding;".repeat(450);
    let text = format!("big(){{ {pad} cat \"$1\"; }}; f(){{ big /etc/a; big /etc/b; }}; trap f EXIT");
    assert_eq!(touched(&text, "cat"), ["/etc/a"]);
    // A call in the program itself is followed whatever the size of the body.
    let text = format!("big(){{ {pad} cat \"$1\"; }}; big /etc/a; big /etc/b");
    assert_eq!(touched(&text, "cat"), ["/etc/a", "/etc/b"]);
}

#[test]
fn a_here_document_line_continued_into_its_end_line_hides_nothing() {
    // bash reads `foo\<newline>EOF` as one line of the body, ends it at the second `EOF`, and
    // runs the `echo` after it.
    let text = "cat <<EOF\nfoo\\\nEOF\necho '\nEOF\necho x > /etc/x #'\n";
    assert_eq!(touched(text, "echo"), ["/etc/x"]);
}

#[test]
fn words_and_substitutions_prepared_ahead_are_what_the_walk_makes_of_them() {
    use std::sync::atomic::Ordering;
    // A long program is parsed in pieces on a second thread, which also splits the words and
    // parses the substitutions of each piece (here: of every piece). The same program inside one
    // `{ … }` group is one piece, walked whole: every access must be the same, a line down.
    let snippets = [
        "echo {x,y}{n}$(touch /etc/brace{n}) \"$HOME/q{n}\" ~/t{n}\n",
        "v{n}=$(cat /etc/v{n}); rm -f \"$v{n}\"\n",
        "export e{n}={a,b}$(cat /etc/exp{n})\n",
        "cat <<E{n} > /tmp/o{n}\n$(rm -f /etc/hd{n})\n\tx\nE{n}\n",
        "cat <<-E{n}\n\t$(rm -f /etc/tab{n})\n\tE{n}\n",
        "echo \"${u{n}:-$(touch /etc/op{n})}\" ${w{n}//x/`rm -f /etc/rep{n}`}\n",
        "case $(cat /etc/c{n}) in $(cat /etc/p{n})) : ;; esac\n",
        "[[ $(cat /etc/t{n}) == {a,b} ]] && :\n",
        "a{n}=([k]=$(touch /etc/key{n}) {x,y}$(cat /etc/arr{n}))\n",
        "f{n}() {\n  cat \"$(echo /etc/f{n})\" > \"$(echo /etc/g{n})\"\n}\nf{n}\n",
        "for i in {1..2} $(cat /etc/for{n}); do cat <<< \"$(cat /etc/in{n})\"; done\n",
        "x=$(echo $(echo $(cat /etc/deep{n})))\n",
    ];
    let mut text = String::new();
    let mut n = 0;
    while text.len() < 96 * 1024 {
        for s in snippets {
            text.push_str(&s.replace("{n}", &n.to_string()));
            n += 1;
        }
    }
    let ctx = context();
    super::texts::PREPARE_EVERY_PIECE.store(true, Ordering::Relaxed);
    let got = crate::analysis::analyze(text.as_bytes(), TextKind::Command, &ctx);
    let taken = super::texts::PREPARED_TAKEN.load(Ordering::Relaxed);
    // (One piece is never prepared: the walk waits for it.)
    super::texts::PREPARE_EVERY_PIECE.store(false, Ordering::Relaxed);
    let whole = crate::analysis::analyze(format!("{{\n{text}}}\n").as_bytes(), TextKind::Command, &ctx);
    assert!(taken > 1000, "the walk took {taken} prepared texts");
    assert!(got.failure.is_none() && whole.failure.is_none(), "{:?} {:?}", got.failure, whole.failure);
    let mut shifted = whole.clone();
    for a in &mut shifted.accesses {
        a.pos.line -= 1;
    }
    for c in &mut shifted.commands {
        c.pos.line -= 1;
    }
    for u in &mut shifted.unresolved {
        u.pos.line -= 1;
    }
    assert!(got.accesses.len() > 1000, "{} accesses", got.accesses.len());
    assert!(got.accesses.iter().any(|a| a.target == "/etc/deep107"), "{:?}", &got.accesses[..20]);
    assert_eq!(got, shifted);
}

#[test]
fn a_word_of_too_many_brace_words_is_not_known_past_its_first_brace() {
    // bash runs `rm` on /etc/x 512 times; listing them is too much, and the word as written
    // (a path relative to the workspace) is not what runs.
    for text in [
        format!("rm -f {{/etc/x,/etc/x}}{}", "{,}".repeat(8)),
        format!("rm -f {{/etc/x,/etc/x}}{}", "{e..e}".repeat(64)),
    ] {
        let a = super::analyze_program(&text, TextKind::Command, &context());
        assert!(a.failure.is_none(), "{:?}", a.failure);
        assert!(!a.accesses.iter().any(|x| x.command == "rm" && x.target.contains("etc")), "{:?}", a.accesses);
        assert!(a.unresolved.iter().any(|u| u.text.starts_with("{/etc/x")), "{:?}", a.unresolved);
    }
    // The code in such a word is still walked.
    let text = format!("echo {}$(rm -f /etc/sub)", "{a,b}".repeat(9));
    assert_eq!(touched(&text, "rm"), ["/etc/sub"]);
}

#[test]
fn a_return_break_or_continue_leaves_its_state_to_what_it_leaves() {
    // The state a `return` finds is one the call may end in: not only the state at the end.
    let text = "f() { if [ -n \"$1\" ]; then d=/etc/a; return; fi; d=/etc/b; }; f x; cat \"$d\"";
    assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b"]);
    let text = "f() { d=/etc/a; [ -n \"$1\" ] || return 1; d=/etc/b; }; f; cat \"$d\"";
    assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b"]);
    // A call it makes returns to it, not further.
    let text = "g() { d=/etc/a; return; }; f() { g; d=/etc/b; }; f; cat \"$d\"";
    assert_eq!(touched(text, "cat"), ["/etc/b"]);
    // A sourced file returns to its `source`.
    let text = "source /dev/stdin <<< 'd=/etc/a; return; d=/etc/b'; cat \"$d\"";
    assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b"]);
    // `break` leaves the loop with the state it finds; `continue` takes it to the next pass.
    let text = "while true; do d=/etc/a; break; d=/etc/b; done; cat \"$d\"";
    assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b"]);
    // (The walk goes on past a jump: what follows it counts too.)
    let text = "d=/etc/a; for i in 1 2; do cat \"$d\"; d=/etc/b; continue; d=/etc/c; done";
    assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b", "/etc/c"]);
    let text = "for i in 1; do for j in 2; do d=/etc/a; break 2; done; d=/etc/b; done; cat \"$d\"";
    assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b"]);
    // A count not known leaves any loop.
    let text = "for i in 1; do for j in 2; do d=/etc/a; break \"$CALL\"; done; d=/etc/b; done; cat \"$d\"";
    assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b"]);
}

#[test]
fn a_case_body_falls_into_the_next_with_its_state() {
    // `;&` runs the next body after this one, with what this one assigned.
    let text = "d=/etc/a; case x in x) d=/etc/b ;& y) cat \"$d\";; esac";
    assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b"]);
    // `;;&` tests the next patterns after this body.
    let text = "d=/etc/a; case x in x) d=/etc/b ;;& *) cat \"$d\";; esac";
    assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b"]);
    // A body falling through the end leaves the `case` with its state.
    let text = "d=/etc/a; case x in x) d=/etc/b ;& esac; cat \"$d\"";
    assert_eq!(touched(text, "cat"), ["/etc/a", "/etc/b"]);
}

#[test]
fn a_branch_the_known_values_rule_out_counts_only_as_possible() {
    // A dispatcher called for one subcommand: the others' accesses are only possible.
    let dispatch = "g() { case \"$1\" in test) cat /etc/t;; deploy) cat /etc/d;; *) cat /etc/o;; esac; }; ";
    let text = format!("{dispatch}g test");
    assert_eq!(touched(&text, "cat"), ["/etc/t"]);
    assert_eq!(possibly_touched(&text, "cat"), ["/etc/d", "/etc/o"]);
    let text = format!("{dispatch}g other");
    assert_eq!(touched(&text, "cat"), ["/etc/o"]);
    // A word not known: every body only possible, as before.
    let text = format!("{dispatch}g \"$(date)\"");
    assert_eq!(touched(&text, "cat"), Vec::<String>::new());
    // A pattern the walk does not decide (a bracket) leaves its body and those after it as
    // they were: walked as running.
    let text = "case a in [ab]) cat /etc/x;; *) cat /etc/y;; esac";
    assert_eq!(touched(text, "cat"), ["/etc/x", "/etc/y"]);
    // `if`, `elif` and `else` by the tests of known words.
    let chain = |v: &str| {
        format!(
            "v={v}; if [ \"$v\" = a ]; then cat /etc/a; elif [[ $v == b* ]]; then cat /etc/b; \
             elif test -n \"$v\" -a x; then cat /etc/c; else cat /etc/e; fi"
        )
    };
    assert_eq!(touched(&chain("a"), "cat"), ["/etc/a"]);
    assert_eq!(possibly_touched(&chain("a"), "cat"), ["/etc/b", "/etc/c", "/etc/e"]);
    assert_eq!(touched(&chain("bz"), "cat"), ["/etc/b"]);
    // `-a` is not decided: that branch and the `else` stay as they were.
    assert_eq!(touched(&chain("z"), "cat"), ["/etc/c", "/etc/e"]);
    assert_eq!(touched("if ! [ -z x ]; then cat /etc/a; else cat /etc/b; fi", "cat"), ["/etc/a"]);
    // A function of that name runs instead of the builtin, and `[[ ]]` reads `010` as octal:
    // nothing is ruled out.
    assert_eq!(touched("test() { return 0; }; if test a = b; then cat /etc/a; fi", "cat"), ["/etc/a"]);
    assert_eq!(touched("if [[ 010 -eq 8 ]]; then cat /etc/a; fi", "cat"), ["/etc/a"]);
    // A glob's value stands for the names it matches, not for itself: a body ruled out by
    // the pattern's text is still walked, its accesses possible (at run time `$f` is
    // `/etc/passwd`).
    let text = "for f in /etc/*; do case $f in /etc/passwd) cat /etc/k;; esac; done";
    assert_eq!(possibly_touched(text, "cat"), ["/etc/k"]);
}

#[test]
fn a_body_nothing_that_runs_calls_is_not_walked() {
    // Nothing calls `f`: what it would do does not count, and it is not walked at all (its
    // word not known is not reported).
    let text = "f() { cat \"/etc/a\" \"$(cat list)\"; }; echo hi";
    assert_eq!(touched(text, "cat"), Vec::<String>::new());
    assert!(unresolved(text).is_empty(), "{:?}", unresolved(text));
    // A body a trap calls, through bodies defined before and after it, counts.
    let text = "b() { a; }; a() { cat /etc/a; }; c() { b; }; trap c EXIT";
    assert_eq!(touched(text, "cat"), ["/etc/a"]);
    // A call past the calls the walk follows still makes the body count.
    let text = "e() { cat /etc/e; }; d() { e; }; c() { d; }; b() { c; }; a() { b; }; a";
    assert_eq!(touched(text, "cat"), ["/etc/e"]);
    // A command whose name is not static may call any of them: each may run.
    let text = "f() { cat /etc/a; }; $(cat name)";
    assert_eq!(possibly_touched(text, "cat"), ["/etc/a"]);
}

#[test]
fn a_value_of_one_subscript_repeated_walks_it_once() {
    // 2^22 copies of the subscript: walked each time, they would pass the bound on steps.
    let mut text = "x0='a[$(:)]'; ".to_string();
    for i in 0..22 {
        text.push_str(&format!("x{}=\"$x{i}$x{i}\"; ", i + 1));
    }
    let a = super::analyze_program(&text, TextKind::Command, &context());
    assert!(a.failure.is_none(), "{:?}", a.failure);
}

#[test]
fn sets_joined_by_their_differences_are_the_union_and_the_intersection() {
    use super::state::{intersect_into, union_into};
    // Sets built from one another share parts of their trees, as the walk's states do.
    let base: imbl::OrdSet<u32> = (0..500u32).collect();
    let mut more = base.clone();
    more.insert(1_000);
    let mut fewer = base.clone();
    fewer.remove(&7);
    let mut other = fewer.clone();
    other.insert(2_000);
    let sets = [imbl::OrdSet::new(), base.clone(), more, fewer, other, (250..900u32).collect()];
    for a in &sets {
        for b in &sets {
            let mut union = a.clone();
            union_into(&mut union, b);
            assert_eq!(union, a.clone().union(b.clone()));
            let mut both = a.clone();
            intersect_into(&mut both, b);
            assert_eq!(both, a.clone().intersection(b.clone()));
        }
    }
    // A set that holds the other becomes it, and shares it whole.
    let mut small = base.clone();
    small.remove(&3);
    union_into(&mut small, &base);
    assert!(small.ptr_eq(&base));
}
