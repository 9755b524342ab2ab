//! The differential "nothing hidden" test: bash runs programs built from the constructs of
//! DESIGN section 4 around small stub programs that log their own execution; every stub that
//! really ran must be listed in `--sandbox-explain --sandbox-json`'s `commands` by name, or the
//! program must have been denied. A name listed as not static does not count as listing it.

use crate::common;

use std::collections::BTreeSet;

use common::Rng;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const SANDBOX: &str = env!("CARGO_BIN_EXE_sandbox-bash");
const STUBS: usize = 24;

fn stub(i: usize) -> String {
    format!("stub_{}", (b'a' + i as u8) as char)
}

struct Lab {
    dir: tempfile::TempDir,
}

impl Lab {
    fn new() -> Lab {
        let dir = tempfile::tempdir().unwrap();
        let lab = Lab { dir };
        std::fs::create_dir(lab.bin()).unwrap();
        std::fs::create_dir(lab.work()).unwrap();
        for i in 0..STUBS {
            let name = stub(i);
            let path = lab.bin().join(&name);
            std::fs::write(&path, format!("#!/bin/sh\nprintf '%s\\n' {name} >> {}\n", lab.log().display())).unwrap();
            std::os::unix::fs::PermissionsExt::set_mode(&mut std::fs::metadata(&path).unwrap().permissions(), 0o755);
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
            std::fs::write(lab.work().join(format!("lib_{name}.sh")), format!("{name} sourced\n")).unwrap();
        }
        lab
    }
    fn bin(&self) -> PathBuf {
        self.dir.path().join("bin")
    }
    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }
    fn log(&self) -> PathBuf {
        self.dir.path().join("log")
    }
    fn command(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        c.current_dir(self.work())
            .env_clear()
            .env("HOME", self.dir.path())
            .env("PATH", format!("{}:/usr/bin:/bin", self.bin().display()))
            .env("BASH_AGENT_BASH_MODE", "7777")
            .stdin(Stdio::null());
        c
    }

    /// The stubs bash really runs for `program`.
    fn ran(&self, program: &str) -> BTreeSet<String> {
        let _ = std::fs::remove_file(self.log());
        let out = self.command(Path::new("/bin/bash")).args(["-c", program]).output().unwrap();
        let _ = out;
        std::fs::read_to_string(self.log()).unwrap_or_default().lines().map(str::to_string).collect()
    }

    /// What explain says: (denied, names listed).
    fn explained(&self, program: &str) -> (bool, BTreeSet<String>, String) {
        let out = self
            .command(Path::new(SANDBOX))
            .args(["--sandbox-explain", "--sandbox-json", "-c", program])
            .output()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!("explain printed no JSON for {program:?}: {e}: {}", String::from_utf8_lossy(&out.stderr))
        });
        let denied = json["verdict"] == "deny";
        let commands = json["commands"].as_array().unwrap();
        let mut names: BTreeSet<String> = commands
            .iter()
            .filter_map(|c| c["name"].as_str())
            .map(|n| n.rsplit('/').next().unwrap_or(n).to_string())
            .collect();
        // Code the analysis cannot read is listed with its text: a stub named in it is shown.
        for text in commands.iter().filter(|c| c["name"].is_null()).filter_map(|c| c["text"].as_str()) {
            for i in 0..STUBS {
                let s = stub(i);
                // (A stub run by a file it sources is named by that file: `lib_stub_s.sh`.)
                let lib = format!("lib_{s}");
                if text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').any(|w| w == s || w == lib) {
                    names.insert(s);
                }
            }
        }
        (denied, names, json["error"].to_string())
    }

    /// Checks one program; returns a description of a silent miss, if any.
    fn check(&self, program: &str) -> Result<bool, String> {
        let ran = self.ran(program);
        let (denied, listed, error) = self.explained(program);
        if denied {
            return Ok(false);
        }
        let missed: Vec<&String> = ran.iter().filter(|r| !listed.contains(*r)).collect();
        if missed.is_empty() {
            Ok(!ran.is_empty())
        } else {
            Err(format!("{program:?}\n  ran {ran:?}\n  listed {listed:?}\n  missed {missed:?} (error {error})"))
        }
    }
}

struct Gen {
    rng: Rng,
    functions: usize,
}

impl Gen {
    fn leaf(&mut self) -> String {
        let s = stub(self.rng.below(STUBS));
        match self.rng.below(8) {
            0 => format!("{s} arg"),
            1 => format!("c={s}; $c"),
            2 => format!("c={s}; \"$c\" x"),
            3 => format!("set -- {s}; \"$1\""),
            _ => s,
        }
    }

    /// A command; `single` when the text will sit inside single quotes.
    fn cmd(&mut self, depth: usize, single: bool) -> String {
        if depth == 0 {
            return self.leaf();
        }
        let d = depth - 1;
        let choices = if single { 26 } else { 34 };
        match self.rng.below(choices) {
            0 => format!("{} | {}", self.cmd(d, single), self.cmd(d, single)),
            1 => format!("{} && {}", self.cmd(d, single), self.cmd(d, single)),
            2 => format!("false || {}", self.cmd(d, single)),
            3 => format!("{}; {}", self.cmd(d, single), self.cmd(d, single)),
            4 => format!("{} & wait", self.cmd(d, single)),
            5 => format!("( {} )", self.cmd(d, single)),
            6 => format!("{{ {}; }}", self.cmd(d, single)),
            7 => format!("if {}; then {}; else {}; fi", self.cmd(d, single), self.cmd(d, single), self.cmd(d, single)),
            8 => format!("i=0; while [ $i -lt 1 ]; do {}; i=$((i+1)); done", self.cmd(d, single)),
            9 => format!("for x in 1 2; do {}; done", self.cmd(d, single)),
            10 => format!("case k in k) {};; esac", self.cmd(d, single)),
            11 => {
                self.functions += 1;
                let f = format!("fn_{}", self.functions);
                format!("{f}() {{ {}; }}; {f}", self.cmd(d, single))
            }
            12 => {
                self.functions += 1;
                let f = format!("fn_{}", self.functions);
                format!("{f}() {{ {}; }}; g={f}; $g", self.cmd(d, single))
            }
            13 => format!("echo $({}) >/dev/null", self.cmd(d, single)),
            14 => format!("x=$({})", self.cmd(d, single)),
            15 => format!("echo \"$({})\" >/dev/null", self.cmd(d, single)),
            16 => format!("v=1; echo ${{v:+$({})}} >/dev/null", self.cmd(d, single)),
            17 => format!("echo ${{unset_v:-$({})}} >/dev/null", self.cmd(d, single)),
            18 => format!("a[$({})]=1", self.cmd(d, single)),
            19 => format!("echo $(( $({}) + 1 )) >/dev/null", self.cmd(d, single)),
            20 => format!("cat <({}) >/dev/null", self.cmd(d, single)),
            21 => format!("env {}", self.leaf()),
            22 => format!("command {}", self.leaf()),
            23 => format!("( exec {} )", self.leaf()),
            24 => match self.rng.below(6) {
                0 => format!("nice {}", self.leaf()),
                1 => format!("nohup {} 2>/dev/null", self.leaf()),
                2 => format!("time {} 2>/dev/null", self.leaf()),
                3 => format!("timeout 5 {}", self.leaf()),
                4 => format!("echo q | xargs {}", stub(self.rng.below(STUBS))),
                _ => format!("find . -maxdepth 0 -exec {} {{}} \\;", stub(self.rng.below(STUBS))),
            },
            25 => format!("source ./lib_{}.sh", stub(self.rng.below(STUBS))),
            26 => format!("eval '{}'", self.cmd(d, true)),
            27 => format!("bash -c '{}'", self.cmd(d, true)),
            28 => format!("sh -c '{}'", self.cmd(d, true)),
            29 => format!("trap '{}' EXIT", self.cmd(d, true)),
            30 => format!("echo `{}` >/dev/null", self.cmd(d, true)),
            31 => format!("x=$'{}'; $x", stub(self.rng.below(STUBS))),
            32 => format!("c='{}'; eval \"$c\"", self.cmd(d, true)),
            _ => format!("bash -c '{}' name", self.cmd(d, true)),
        }
    }

    /// A whole program: a few top-level parts, some of them multi-line forms.
    fn program(&mut self) -> String {
        let parts = 1 + self.rng.below(3);
        let mut out = Vec::new();
        for _ in 0..parts {
            let depth = self.rng.below(4);
            let part = match self.rng.below(12) {
                0 => format!("bash <<'EOF'\n{}\nEOF", self.cmd(depth, false)),
                1 => format!("sh <<EOF\n{}\nEOF", stub(self.rng.below(STUBS))),
                2 => format!("shopt -s expand_aliases\nalias al_x='{}'\nal_x", stub(self.rng.below(STUBS))),
                _ => self.cmd(depth, false),
            };
            out.push(part);
        }
        out.join("\n")
    }
}

const TRICKY: &[&str] = &[
    "stub_a",
    "x=stub_b; y=$x; $y",
    "f() { stub_c; }; trap f EXIT",
    "trap 'stub_d' ERR; false",
    "eval \"$(echo stub_e)\"",
    "bash -c \"$(echo stub_f)\"",
    "echo stub_g | bash",
    "bash <<< 'stub_h'",
    "coproc stub_i; wait",
    "c=$'\\x73tub_j'; $c",
    "s=stub; ${s}_k",
    "arr=(stub_l); ${arr[0]}",
    "set -- stub_m x; \"$@\"",
    "IFS=:; set -- stub_n; $1",
    "cmd=\"stub_o arg\"; $cmd",
    "find . -maxdepth 0 -exec sh -c 'stub_p' \\;",
    "echo x | xargs -I{} sh -c 'stub_q {}'",
    "alias a1=stub_r\na1",
    "shopt -s expand_aliases; alias a2='stub_s;'\na2",
    "PS4='$(stub_t)'; set -x; true; set +x",
    "x=stub_u; declare -n r=x; $r",
    "printf -v name %s stub_v; $name",
    "read -r n <<< stub_w; $n",
    "mapfile -t l <<< stub_x; ${l[0]}",
    "x=$(printf stub_a); $x",
    "f() { \"$@\"; }; f stub_b",
    "function g { stub_c; }; g",
    "h() { stub_d; }; i() { h; }; i",
    "command -v stub_e >/dev/null && stub_f",
    "{ stub_g; } 2>/dev/null",
    "(( $(stub_h) ))",
    "[[ -n $(stub_i) ]]",
    "case $(stub_j) in *) stub_k;; esac",
    "for x in $(stub_l); do :; done",
    "while stub_m; do break; done",
    "until stub_n; do break; done",
    "select x in a; do stub_o; break; done <<< 1",
    "exec 3< <(stub_p); cat <&3 >/dev/null",
    "${CMD:-stub_q}",
    "${CMD:=stub_r}; $CMD",
    "env stub_s",
    "env -- stub_t",
    "nohup stub_u >/dev/null 2>&1",
    "timeout --signal=KILL 5 stub_v",
    "bash -c 'bash -c \"stub_w\"'",
    "sh -c 'eval stub_x'",
    "eval 'eval stub_a'",
    "eval \"f() { stub_b; }\"; f",
    "source /dev/stdin <<< stub_c",
    ". <(echo stub_d)",
    "bash <(echo stub_e)",
    "x='stub_f'; eval $x",
    "cd /; stub_g",
    "cd .. && stub_h",
    "time stub_i",
    "! stub_j",
    "stub_k & wait",
    "stub_l | stub_m | stub_n",
    "f() { c=stub_o; }; f; $c",
    "g() { c=stub_p; }; f() { g; }; c=true; for i in 1 2; do $c; f; done",
    "h() { h2; }; h2() { h3; }; h3() { h4; }; h4() { h5; }; h5() { c=stub_q; }; c=true; for i in 1 2; do $c; h; done",
    "r() { [ \"$1\" = 3 ] && return; c=stub_r; r 3; }; r 1; $c",
    // Lexical corners where a parser could see something other than bash does.
    "echo $(echo a # )\n stub_a\n)",
    "c\\\nat /dev/null; stub_b",
    "stub_\\\nc",
    "x=stub_d; echo ${x#*}; ${x}",
    ": <<'EOF'\nstub_e\nEOF\nstub_f",
    "cat <<EOF\n$(stub_g)\nEOF",
    "cat <<'EOF'\n$(stub_h)\nEOF\nstub_h",
    "cat <<E\"O\"F\n$(stub_i)\nEOF\nstub_j",
    "echo \"$(echo \")\"; stub_j)\"",
    "echo `echo \\`stub_k\\``",
    "echo a#b; stub_l #comment stub_m",
    "echo ${#}; stub_m",
    "[[ -n 1 ]] && stub_n",
    "(( 1 )) && stub_o",
    "if ! false; then stub_p; fi",
    "function f() { stub_r; }; f",
    "f() ( stub_s ); f",
    "stub_t &>/dev/null",
    "stub_u 2>&1 | cat",
    "echo $(( $(stub_v) ))",
    "a=( $(stub_w) )",
    "declare -a b=( $(stub_x) )",
    "local_x=1 stub_a",
    "exec 3>&1; stub_b >&3",
    "{ stub_c; } | cat",
    "stub_d; #; stub_e",
    "case x in (x) stub_f;; esac",
    "case x in x) stub_g;& y) stub_h;; esac",
    "while read -r l; do $l; done <<< stub_i",
    "eval $'stub_j'",
    "bash -c $'stub_k\\nstub_l'",
    "x=( stub_m stub_n ); \"${x[@]}\"",
    "set -- stub_o; for a; do \"$a\"; done",
    "IFS=, read -r a b <<< 'stub_p,stub_q'; $a; $b",
    "s=stub_r; eval \"\\$s\"",
    "printf '%s\\n' stub_s | while read -r c; do \"$c\"; done",
];

#[test]
fn no_program_bash_runs_is_missing_from_explain() {
    let lab = Lab::new();
    let mut misses = Vec::new();
    let mut checked = 0;
    let mut with_runs = 0;
    let mut denied = 0;
    for program in TRICKY {
        match lab.check(program) {
            Ok(ran) => {
                checked += 1;
                with_runs += usize::from(ran);
            }
            Err(m) => misses.push(m),
        }
    }
    let mut generator = Gen { rng: Rng(0x5eed_1234_abcd_0001), functions: 0 };
    let generated = 1_000;
    for _ in 0..generated {
        let program = generator.program();
        let (was_denied, _, error) = lab.explained(&program);
        if was_denied {
            denied += 1;
            if denied <= 5 {
                println!("denied: {program:?}: {error}");
            }
        }
        match lab.check(&program) {
            Ok(ran) => {
                checked += 1;
                with_runs += usize::from(ran);
            }
            Err(m) => misses.push(m),
        }
    }
    println!(
        "{checked} programs checked ({} generated, {} hand-written), {with_runs} ran a stub, {denied} denied, {} silent misses",
        generated,
        TRICKY.len(),
        misses.len()
    );
    assert!(misses.is_empty(), "{} silent misses:\n{}", misses.len(), misses.join("\n"));
    assert!(with_runs > generated / 2, "too few programs ran a stub ({with_runs}); the lab is broken");
}
