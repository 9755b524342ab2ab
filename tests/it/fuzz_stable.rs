//! A mutation fuzzer that runs on the stable toolchain: inputs built from a seed corpus and a
//! dictionary of bash syntax, mutated and spliced. Every input must give an analysis or a clean
//! failure; a panic inside the analysis shows up as the "stopped unexpectedly" failure and
//! fails the test. `SANDBOX_FUZZ_ITERATIONS` sets how many inputs to try (default 20,000).
//! The coverage-guided target for `cargo fuzz` is in `fuzz/`.

use crate::common;

use common::Rng;
use sandbox_bash::analysis::{self, TextKind};

const SEEDS: &[&str] = &[
    "ls -la | grep x && cat /etc/hosts",
    "f() { cat \"$1\"; }; f /etc/shadow",
    "for i in 1 2; do echo $i; done",
    "case $x in a) b;; *) c;; esac",
    "if [ -f x ]; then source ./x; elif true; then :; else eval \"$y\"; fi",
    "cat <<EOF\n$(id)\nEOF\n",
    "bash -c 'sh -c \"cat ~/.ssh/id_rsa\"'",
    "x=${y:-$(curl -s https://x)}; eval \"$x\"",
    "a=(1 2 3); echo ${a[$(id)]} $((1+${#a[@]}))",
    "while read -r l; do printf '%s\\n' \"$l\"; done < <(find . -name '*.rs' -exec cat {} +)",
    "trap 'rm -rf /tmp/x' EXIT; coproc cat; exec 3<>/dev/tcp/h/80",
    "echo $'\\x2fetc' `echo hi` ~root ~+/x ${!p} ${x//a/b} ${x:1:2} ${x^^}",
    "[[ $x =~ ^a(b|c)$ && -n ${y} ]] || (( z++ ))",
    "alias l='ls -l'\nl\nunalias l",
    "sudo env -i PATH=/bin timeout 5 nice xargs rm -f < list",
];

const DICTIONARY: &[&str] = &[
    "$(",
    ")",
    "'",
    "\"",
    "`",
    "${",
    "}",
    "<<EOF\n",
    "\nEOF\n",
    "<<-'E'\n",
    "((",
    "))",
    "[[",
    "]]",
    ";;",
    "case ",
    " in ",
    "esac",
    "if ",
    "then ",
    "fi",
    "for ",
    "do ",
    "done",
    "while ",
    "|",
    "&&",
    "||",
    "<(",
    ">(",
    "\\",
    "$'",
    "{a,b}",
    "{1..3}",
    "*",
    "?",
    "[",
    "~",
    "..",
    "/etc/",
    "eval ",
    "bash -c ",
    "sh -c ",
    "source ",
    "\n",
    ";",
    "&",
    "$",
    "#",
    "=",
    "+=",
    "a[",
    "]",
    "$@",
    "\"$@\"",
    "function ",
    "() { ",
    "; }",
    "trap ",
    "exec ",
    "coproc ",
    "select ",
    "time ",
    "!",
    "$((",
    "$[",
    "@(",
    "!(x)",
    "\t",
    " ",
    "\u{0}",
    "\u{feff}",
    "é",
    "${x:-",
    "${x#",
    "${!",
    "<<<",
    ">|",
    "&>",
    "2>&1",
    "<&-",
    "/dev/tcp/h/1",
    "curl x |",
    "| sh",
];

fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(7) {
            0 => {
                let token = DICTIONARY[rng.below(DICTIONARY.len())].as_bytes();
                out.splice(at..at, token.iter().copied());
            }
            1 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            2 if !out.is_empty() => {
                let end = (at + rng.below(8)).min(out.len());
                out.drain(at..end);
            }
            3 => {
                let start = rng.below(other.len() + 1);
                let end = (start + rng.below(32)).min(other.len());
                out.splice(at..at, other[start..end].iter().copied());
            }
            4 if !out.is_empty() => {
                // Repeat a slice: nesting and long inputs.
                let start = rng.below(out.len());
                let end = (start + 1 + rng.below(16)).min(out.len());
                let piece = out[start..end].to_vec();
                for _ in 0..rng.below(50) {
                    out.splice(at..at, piece.iter().copied());
                }
            }
            5 => out.truncate(at),
            _ => out.insert(at.min(out.len()), rng.below(256) as u8),
        }
    }
    out.truncate(64 * 1024);
    out
}

#[test]
fn analysis_never_panics_on_mutated_input() {
    let iterations: usize =
        std::env::var("SANDBOX_FUZZ_ITERATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let ctx = common::table_context();
    let mut rng = Rng(0x00c0_ffee_dead_beef);
    let mut corpus: Vec<Vec<u8>> = SEEDS.iter().map(|s| s.as_bytes().to_vec()).collect();
    let (mut analysed, mut failed) = (0usize, 0usize);
    let mut slowest = std::time::Duration::ZERO;
    for i in 0..iterations {
        let a = &corpus[rng.below(corpus.len())];
        let b = &corpus[rng.below(corpus.len())];
        let input = mutate(&mut rng, a, b);
        let kind = if i % 2 == 0 { TextKind::Command } else { TextKind::Script };
        let started = std::time::Instant::now();
        if std::env::var_os("SANDBOX_FUZZ_TRACE").is_some() {
            eprintln!("#{i} {:?}", String::from_utf8_lossy(&input));
        }
        let result = analysis::analyze(&input, kind, &ctx);
        slowest = slowest.max(started.elapsed());
        match &result.failure {
            Some(f) => {
                assert!(
                    f.message != sandbox_bash::analysis::STOPPED,
                    "the analysis panicked on {:?}",
                    String::from_utf8_lossy(&input)
                );
                failed += 1;
            }
            None => {
                analysed += 1;
                if corpus.len() < 2_000 && rng.below(8) == 0 {
                    corpus.push(input);
                }
            }
        }
    }
    println!("{iterations} inputs: {analysed} analysed, {failed} cleanly denied, none panicked; slowest {slowest:?}");
}
