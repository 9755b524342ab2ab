//! Long programs are parsed on a second thread, in pieces cut between top-level commands,
//! while the walk goes through the pieces parsed already. That must be the walk of the whole
//! text: the baseline here is the same program inside one `{ … }` group, which the scan cannot
//! cut, so it is parsed as one piece; every access, command and unresolved word must be the
//! same, one line further down.

use crate::common;

use common::stack::on_big_stack;
use sandbox_bash::analysis::{self, Analysis, TextKind};

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
    // Words split and substitutions parsed on the parsing thread, ahead of the walk.
    "echo {{x,y}}{n}$(touch ~/brace{n})\n",
    "cat <<E{n}\n$(rm -f ~/hd{n})\nE{n}\n",
    "echo \"$(echo $(rm -f ~/nest{n}))\"\n",
    "[[ $(cat ~/test{n}) == x ]] && :\n",
    "b{n}=([k]=$(touch ~/key{n}) v)\n",
    "cat <<< \"$(cat ~/here{n})\" > \"$(echo ~/out{n})\"\n",
    "echo \"${{u{n}:-$(touch ~/op{n})}}\" ${{w{n}//x/`rm -f ~/rep{n}`}}\n",
];

fn long_program(extra: &str) -> String {
    let mut text = String::new();
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

/// What the analysis found, with every position moved up `by` lines.
fn shifted(a: &Analysis, by: usize) -> Analysis {
    let mut a = a.clone();
    for x in &mut a.accesses {
        x.pos.line -= by;
    }
    for x in &mut a.commands {
        x.pos.line -= by;
    }
    for x in &mut a.unresolved {
        x.pos.line -= by;
    }
    if let Some(p) = a.failure.as_mut().and_then(|f| f.pos.as_mut()) {
        p.line -= by;
    }
    a
}

fn analyse(text: &str) -> Analysis {
    analysis::analyze(text.as_bytes(), TextKind::Command, &common::table_context())
}

#[test]
fn a_long_program_walked_in_pieces_is_the_program_walked_whole() {
    on_big_stack(|| {
        let text = long_program("");
        let got = analyse(&text);
        assert!(got.failure.is_none(), "{:?}", got.failure);
        let whole = analyse(&format!("{{\n{text}}}\n"));
        assert!(whole.failure.is_none(), "{:?}", whole.failure);
        assert!(got.accesses.len() > 1000, "{} accesses", got.accesses.len());
        assert_eq!(got, shifted(&whole, 1));
        // And each snippet's command is on its own line.
        let line_of = |needle: &str| text[..text.find(needle).unwrap()].matches('\n').count() + 1;
        for (name, needle) in [("rm", "~/cont54\n"), ("cat", "/etc/time28\n"), ("touch", "~/comment42\n")] {
            let line = line_of(needle);
            assert!(
                got.commands.iter().any(|c| c.name.as_deref() == Some(name) && c.pos.line == line),
                "{name} at {line}"
            );
        }
    });
}

#[test]
fn from_a_piece_that_does_not_parse_the_text_is_parsed_whole() {
    on_big_stack(|| {
        // `}` as an argument makes the scan cut inside the group: that piece does not parse,
        // and the text is walked again, parsed whole.
        let wrong_cut = long_program("{ touch ~/before\n  echo }\n  rm -f ~/inside\n}\ntouch ~/after\n");
        let got = analyse(&wrong_cut);
        assert!(got.failure.is_none(), "{:?}", got.failure);
        assert_eq!(got, shifted(&analyse(&format!("{{\n{wrong_cut}}}\n")), 1));
        let rm = wrong_cut.lines().count() - 2;
        assert!(got.accesses.iter().any(|a| a.command == "rm" && a.target.ends_with("/inside") && a.pos.line == rm));

        // A syntax error near the end: the failure names its line in the whole text.
        let broken = long_program("touch ~/x\nif true; then\n  echo )\nfi\n");
        let failure = analyse(&broken).failure.expect("the broken program parses");
        assert_eq!(failure.pos.map(|p| p.line), Some(broken.lines().count() - 1), "{failure}");

        // A check on the whole text that fails only at its end (a here-document with an empty
        // delimiter, which the parser cannot read).
        let empty = long_program("cat <<''\nnever closed\n");
        assert!(analyse(&empty).failure.is_some());
        // A here-document never closed ends at the end of the text, as in bash.
        let unclosed = long_program("cat <<E\nnever closed\n");
        let got = analyse(&unclosed);
        assert!(got.failure.is_none(), "{:?}", got.failure);
    });
}
