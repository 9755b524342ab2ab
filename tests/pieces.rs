//! Long programs are parsed in pieces on a second thread while the walk goes through the
//! pieces already parsed. The analysis in pieces must be the analysis of the whole text, to
//! the last position: on every script of this machine, cut wherever a cut is allowed; on long
//! programs made of the constructs a cut could break; and where a cut is wrong or a piece does
//! not parse, the whole text is analysed instead.

mod common;

use common::stack::on_big_stack;
use sandbox_bash::analysis::{self, Analysis, Context, TextKind};

fn whole(text: &str, kind: TextKind, ctx: &Context) -> Analysis {
    analysis::analyze_program_whole(text, kind, ctx)
}

/// Cut wherever a cut is allowed (pieces of at least one byte).
fn finest(text: &str, kind: TextKind, ctx: &Context) -> Option<Analysis> {
    analysis::analyze_program_in_pieces(text, kind, ctx, 1)
}

#[test]
fn every_script_of_the_machine_gives_the_same_analysis_in_pieces() {
    on_big_stack(|| {
        let ctx = common::table_context();
        let scripts = common::scripts::machine_scripts();
        assert!(!scripts.is_empty(), "no shell scripts found on this machine");
        let (mut same, mut fell_back, mut failing) = (0, Vec::new(), 0);
        let mut accepted = Vec::new();
        for path in &scripts {
            let Ok(text) = std::fs::read_to_string(path) else { continue };
            let expected = whole(&text, TextKind::Script, &ctx);
            if expected.failure.is_some() {
                failing += 1;
            } else {
                accepted.push(text.clone());
            }
            match finest(&text, TextKind::Script, &ctx) {
                Some(got) => {
                    assert_eq!(got, expected, "{}: the analysis in pieces differs", path.display());
                    same += 1;
                }
                None => {
                    if expected.failure.is_none() {
                        fell_back.push(path.display().to_string());
                    }
                }
            }
        }
        println!(
            "{} scripts: {same} analysed in pieces with the same result, {} fell back to the whole text, {failing} \
             denied either way",
            scripts.len(),
            fell_back.len()
        );
        for path in &fell_back {
            println!("  fell back: {path}");
        }
        // The pieces must really be used: a path that always fell back would pass the
        // comparison above without ever running.
        assert!(fell_back.len() * 50 <= accepted.len(), "too many scripts fell back: {fell_back:?}");

        // The scripts one after the other, as one long program, through the public entry (which
        // uses pieces of its own size for a text this long).
        let mut long = String::new();
        for text in &accepted {
            long.push_str(text);
            if !text.ends_with('\n') {
                long.push('\n');
            }
            if long.len() > 300 * 1024 {
                break;
            }
        }
        let expected = whole(&long, TextKind::Script, &ctx);
        assert!(expected.failure.is_none(), "{:?}", expected.failure);
        assert!(expected.commands.len() > 1000);
        let got = analysis::analyze(long.as_bytes(), TextKind::Script, &ctx);
        assert_eq!(got, expected, "the long program's analysis differs");
        assert_eq!(finest(&long, TextKind::Script, &ctx).as_ref(), Some(&expected));
    });
}

/// Snippets a cut could break, each with a command that needs a bit of its own (so a command
/// lost or misplaced by a wrong cut shows up in the analysis). `{n}` becomes the snippet's
/// number.
const SNIPPETS: &[&str] = &[
    "echo a{n} \\\n  && rm -f ~/cont{n}\n",
    "time\ncat /etc/time{n}\n",
    "!\ncat /etc/bang{n}\n",
    "cat <<E{n} | bash\nrm -f ~/heredoc{n}\nE{n}\n",
    "cat <<-'Q' >/dev/null\n\tcurl https://example.org/{n}\n\tQ\n",
    "echo 'quoted\nrm -f ~/single{n}\nfi done esac'\n",
    "echo \"double\n$(rm -f ~/double{n})\n}\"\n",
    "case $1 in\n  a{n}) touch ~/case{n};;\n  (b) echo;;\n  *) :;;\nesac\n",
    "f{n}()\n{\n  touch ~/body{n}\n}\nf{n}\n",
    "function g{n}\n{\n  touch ~/fbody{n}\n}\ng{n}\n",
    "x=`if true; then echo ~/bq{n}; fi`\nrm -f \"$x\"\n",
    "true |\n  tee ~/pipe{n}\n",
    "false ||\n  touch ~/or{n}\n",
    "a=(\n  one\n  ~/arr{n}\n)\nrm -f \"${{a[1]}}\"\n",
    "if [[ -n $x &&\n  -f ~/cond{n} ]]; then\n  cat ~/cond{n}\nfi\n",
    "echo x; # a comment \\\ntouch ~/comment{n}\n",
    "for i in 1 2\ndo\n  touch ~/loop{n}\ndone\n",
    "cd /tmp\ntouch rel{n}\ncd -\n",
    "v{n}=~/var{n}\nrm -f \"$v{n}\"\n",
    "(\n  cd ~\n  rm -f sub{n}\n)\n",
];

fn long_program(extra: &str) -> String {
    let mut text = String::from("#!/bin/bash\n");
    let mut n = 0;
    while text.len() < 96 * 1024 {
        for s in SNIPPETS {
            text.push_str(&s.replace("{n}", &n.to_string()).replace("{{", "{").replace("}}", "}"));
            n += 1;
        }
    }
    text.push_str(extra);
    text
}

#[test]
fn constructs_that_span_lines_give_the_same_analysis_in_pieces() {
    on_big_stack(|| {
        let ctx = common::table_context();
        let text = long_program("");
        let expected = whole(&text, TextKind::Script, &ctx);
        assert!(expected.failure.is_none(), "{:?}", expected.failure);
        // Every snippet's own command is there, at the line it is on in the whole text.
        let line_of = |needle: &str| text[..text.find(needle).unwrap()].matches('\n').count() + 1;
        for (name, needle) in [("rm", "~/cont40\n"), ("cat", "/etc/time21\n"), ("touch", "~/comment35\n")] {
            let line = line_of(needle);
            assert!(
                expected.commands.iter().any(|c| c.name.as_deref() == Some(name) && c.pos.line == line),
                "{name} at line {line} missing from {:?}",
                expected.commands.iter().filter(|c| c.name.as_deref() == Some(name)).take(5).collect::<Vec<_>>()
            );
        }
        let got = finest(&text, TextKind::Script, &ctx).expect("the long program fell back to the whole text");
        assert_eq!(got, expected);
        assert_eq!(analysis::analyze(text.as_bytes(), TextKind::Script, &ctx), expected);
    });
}

#[test]
fn a_wrong_cut_or_a_piece_that_does_not_parse_falls_back_to_the_whole_text() {
    on_big_stack(|| {
        let ctx = common::table_context();
        // `}` as an argument makes the scan cut inside the group: that piece does not parse.
        let wrong_cut = long_program("{ touch ~/before\n  echo }\n  rm -f ~/inside\n}\ntouch ~/after\n");
        assert_eq!(finest(&wrong_cut, TextKind::Script, &ctx), None);
        let expected = whole(&wrong_cut, TextKind::Script, &ctx);
        assert!(expected.failure.is_none(), "{:?}", expected.failure);
        assert!(
            expected
                .commands
                .iter()
                .any(|c| c.name.as_deref() == Some("rm") && c.pos.line == wrong_cut.lines().count() - 2)
        );
        assert_eq!(analysis::analyze(wrong_cut.as_bytes(), TextKind::Script, &ctx), expected);

        // A syntax error near the end: the denial names the position in the whole text.
        let broken = long_program("touch ~/x\nif true; then\n  echo )\nfi\n");
        assert_eq!(finest(&broken, TextKind::Script, &ctx), None);
        let expected = whole(&broken, TextKind::Script, &ctx);
        let failure = expected.failure.clone().expect("the broken program parses");
        assert!(failure.message.contains("parser rejected"), "{failure}");
        assert_eq!(failure.pos.map(|p| p.line), Some(broken.lines().count() - 1), "{failure}");
        assert_eq!(analysis::analyze(broken.as_bytes(), TextKind::Script, &ctx), expected);

        // A check on the whole text that fails only at its end (a here-document never closed).
        let unclosed = long_program("cat <<E\nnever closed\n");
        assert_eq!(finest(&unclosed, TextKind::Script, &ctx), None);
        let expected = whole(&unclosed, TextKind::Script, &ctx);
        assert!(expected.failure.is_some());
        assert_eq!(analysis::analyze(unclosed.as_bytes(), TextKind::Script, &ctx), expected);
    });
}
