//! Small programs are analysed on the caller's stack. The bounds that decide what counts as
//! small must hold in the worst case: these programs sit at every bound at once and are
//! walked on a thread with exactly the stack the bounds are made for (in a debug build, whose
//! frames are larger than a release build's). They must finish, and give the same result as
//! the walk on a big stack.

use crate::common;

use sandbox_bash::analysis::{
    self as walk, SHALLOW_NESTING, SHALLOW_STACK_BYTES, SHALLOW_TEXT_BYTES, TextKind, nesting,
};

/// `depth` nested compound commands and substitutions around `inner`.
fn nest(depth: usize, inner: &str) -> String {
    let mut s = inner.to_string();
    for i in 0..depth {
        s = match i % 4 {
            0 => format!("if true; then {s}; fi"),
            1 => format!("( {s} )"),
            2 => format!("for x in a b; do {s}; done"),
            _ => format!("{{ {s}; }}"),
        };
    }
    s
}

fn worst_cases() -> Vec<String> {
    // As deep as the bound allows, leaving two levels for what wraps it.
    let deep = |inner: &str| {
        (0..SHALLOW_NESTING)
            .map(|d| nest(d, inner))
            .take_while(|s| nesting(s) <= SHALLOW_NESTING - 2)
            .last()
            .unwrap_or_else(|| inner.to_string())
    };
    let mut cases = vec![
        deep("cat /etc/hosts"),
        // Nested texts at the bound: eval of bash -c, each deep inside.
        deep(&format!("eval {}", shlex_quote(&deep("bash -c 'ls; cat x'")))),
        // Function calls at the call bound, each with a deep body.
        format!("f() {{ {}; }}; g() {{ f; {}; }}; h() {{ g; }}; h", deep("rm -f a"), deep("g")),
        // Heredoc fed to a shell, inside deep nesting.
        deep("bash <<'E'\nls\ncat y\nE\n"),
        // Substitutions inside substitutions.
        deep("echo \"$(echo \"$(cat z)\")\""),
    ];
    for c in cases.iter_mut() {
        c.truncate(SHALLOW_TEXT_BYTES);
    }
    cases.retain(|c| nesting(c) <= SHALLOW_NESTING && c.len() <= SHALLOW_TEXT_BYTES);
    cases
}

fn shlex_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[test]
fn the_worst_small_program_fits_the_stack_and_matches_the_big_stack_walk() {
    let cases = worst_cases();
    assert_eq!(cases.len(), 5, "every worst case must be within the shallow bounds");
    let ctx = common::table_context();
    let results = std::thread::Builder::new()
        .stack_size(SHALLOW_STACK_BYTES)
        .spawn({
            let ctx = ctx.clone();
            let cases = cases.clone();
            move || {
                cases
                    .iter()
                    .map(|c| {
                        walk::analyze_program_shallow(c, TextKind::Command, &ctx).map(|a| a.required().to_string())
                    })
                    .collect::<Vec<_>>()
            }
        })
        .unwrap()
        .join()
        .expect("the shallow walk overflowed its stack");
    for (case, shallow) in cases.iter().zip(results) {
        let deep = walk::analyze_program(case, TextKind::Command, &ctx);
        let shallow = shallow.unwrap_or_else(|| panic!("within the bounds, yet handed over: {case}"));
        assert_eq!(shallow, deep.required().to_string(), "{case}");
    }
}

#[test]
fn beyond_the_bounds_the_walk_hands_over_to_the_big_stack() {
    let ctx = common::table_context();
    let too_deep = nest(SHALLOW_NESTING + 4, "ls");
    assert!(walk::analyze_program_shallow(&too_deep, TextKind::Command, &ctx).is_none());
    let too_long = format!("echo {}", "x".repeat(SHALLOW_TEXT_BYTES));
    assert!(walk::analyze_program_shallow(&too_long, TextKind::Command, &ctx).is_none());
    let nested_texts = "eval 'eval \"eval \\\"eval ls\\\"\"'";
    assert!(walk::analyze_program_shallow(nested_texts, TextKind::Command, &ctx).is_none());
    // And the public entry point still analyses all of them.
    for p in [too_deep.as_str(), too_long.as_str(), nested_texts] {
        assert!(common::analyze(p).failure.is_none(), "{p}");
    }
}
