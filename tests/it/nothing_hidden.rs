//! The differential "nothing hidden" test: bash runs programs built from the constructs of
//! DESIGN section 4 around small stub programs that log their own execution; every stub that
//! really ran must be listed in `--sandbox-explain --sandbox-json`'s `commands` by name, or the
//! program must have been denied. A name shown only inside code the analysis could not read
//! (listed as not static) does not count as listing it. The generated programs are the same
//! in each run; `SANDBOX_BASH_SEED=random` makes new ones (the seed is printed, and
//! `SANDBOX_BASH_SEED=<seed>` repeats them).

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
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
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
            // The default mode: a program bash itself rejects is refused there (bash would run
            // what comes before the error).
            .env("BASH_AGENT_BASH_MODE", "0467")
            .stdin(Stdio::null());
        c
    }

    /// The stubs bash really runs for `program`, within ten seconds: a continuation inserted
    /// where bash keeps it can turn a loop's counter into text and the loop into an endless
    /// one. Bash runs in a process group of its own, killed whole at the end.
    fn ran(&self, program: &str) -> BTreeSet<String> {
        use std::os::unix::process::CommandExt;
        let _ = std::fs::remove_file(self.log());
        let mut child = self
            .command(Path::new("/bin/bash"))
            .args(["-c", program])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while child.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        // (A negative pid names the process group.)
        let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).stderr(Stdio::null()).status();
        let _ = child.wait();
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
        let names: BTreeSet<String> = commands
            .iter()
            .filter_map(|c| c["name"].as_str())
            .map(|n| n.rsplit('/').next().unwrap_or(n).to_string())
            .collect();
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
        if self.rng.below(6) == 0 {
            return self.redirection(d, single);
        }
        let choices = if single { 26 } else { 35 };
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
            33 if !single => self.substituted_heredoc(d),
            31 => format!("x=$'{}'; $x", stub(self.rng.below(STUBS))),
            32 => format!("c='{}'; eval \"$c\"", self.cmd(d, true)),
            _ => format!("bash -c '{}' name", self.cmd(d, true)),
        }
    }

    /// A command whose redirection target (or here-string, or descriptor) is a substitution.
    fn redirection(&mut self, d: usize, single: bool) -> String {
        let inner = self.cmd(d, single);
        let sub = match self.rng.below(3) {
            0 => format!("$({inner})"),
            1 => format!("\"$({inner})\""),
            _ => format!("<({inner})"),
        };
        let target = match self.rng.below(14) {
            0 => format!(": > {sub}"),
            1 => format!(": >> {sub}"),
            2 => format!("cat < {sub} >/dev/null"),
            3 => format!(": 2> {sub}"),
            4 => format!(": &> {sub}"),
            5 => format!(": <> {sub}"),
            6 => format!(": >| {sub}"),
            7 => format!("cat <<< {sub} >/dev/null"),
            8 => format!(": 2>&{sub}"),
            9 => format!("exec 3< {sub}; exec 3<&-"),
            10 => format!("echo $(< {sub}) >/dev/null"),
            11 => format!("echo $(<{sub}) >/dev/null"),
            12 => format!("{{ :; }} > {sub}"),
            _ => format!("for x in 1; do :; done < {sub}"),
        };
        // A process substitution that is the whole command (bash runs it, then tries to run
        // the file it names).
        if !single && self.rng.below(10) == 0 { format!("x=$(<({inner}))") } else { target }
    }

    /// A here-document inside a substitution, whose body holds `)` or a substitution, or a
    /// here-document whose delimiter is a substitution (bash reads it as text).
    fn substituted_heredoc(&mut self, d: usize) -> String {
        let a = self.cmd(d, false);
        let b = stub(self.rng.below(STUBS));
        match self.rng.below(7) {
            0 => format!("x=$(cat <<EOF\n)\nEOF\n{a}\n)"),
            1 => format!("x=$(cat <<'EOF'\n)\nEOF\n{a})"),
            2 => format!("x=$(cat <<EOF\n$({a})\n)\nEOF\n)"),
            3 => format!("cat <<$({b}) >/dev/null\n$({a})\n$({b})"),
            4 => format!("cat <<\"$({b})\" >/dev/null\n{a}\n$({b})\n{a}"),
            5 => format!("x=`cat <<EOF\n)\nEOF\n{b}`"),
            _ => format!("echo \"$(cat <<-EOF\n\t)\n\tEOF\n{a})\" >/dev/null"),
        }
    }

    /// Splits the program with line continuations at random places (bash removes them
    /// everywhere but in single quotes, comments and quoted here-document bodies).
    fn continued(&mut self, program: String) -> String {
        let mut out = program;
        for _ in 0..1 + self.rng.below(3) {
            let cuts: Vec<usize> = (1..out.len()).filter(|&i| out.is_char_boundary(i)).collect();
            if cuts.is_empty() {
                break;
            }
            let at = cuts[self.rng.below(cuts.len())];
            out.insert_str(at, "\\\n");
        }
        out
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
        let program = out.join("\n");
        if self.rng.below(4) == 0 { self.continued(program) } else { program }
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
    // Shapes the parser reads otherwise than bash (read rewritten).
    "echo $(<(stub_t))",
    "echo $\\\n(stub_u)",
    "cat <<$(stub_v)\n$(stub_w)\n$(stub_v)",
    "x=$(cat <<EOF\n)\nEOF\nstub_x\n)",
    "x=$(case k in k) stub_a;; esac)",
    "select x in a; do stub_b; break; done <<< 1",
    ": 2>&<(stub_c)",
    "echo $(( stub_d ) | cat)",
    "( ( stub_e ) )",
    "bash <<'EOF'\nstub_f\nE\\\nOF",
    "c='$((c))'; echo $((c)) 2>/dev/null; stub_g",
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
    let seed = common::seed(0x18ed_e384_6dde_8412);
    println!("seed {seed:#x} (SANDBOX_BASH_SEED={seed:#x} repeats this run)");
    let mut generator = Gen { rng: Rng(seed), functions: 0 };
    let generated = 3_000;
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
    assert!(misses.is_empty(), "{} silent misses (seed {seed:#x}):\n{}", misses.len(), misses.join("\n"));
    assert!(with_runs > generated / 2, "too few programs ran a stub ({with_runs}); the lab is broken");
}
