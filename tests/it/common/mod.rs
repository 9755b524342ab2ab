//! Helpers shared by the integration tests.
#![allow(dead_code)]

use sandbox_bash::analysis::{self, Analysis, Context, TextKind};
use sandbox_bash::environ::Environ;
use sandbox_bash::scope::Layout;

/// The layout the classification tables are written for: W = /home/u/proj = cwd, HOME = /home/u.
pub fn table_context() -> Context {
    let layout =
        Layout { workspace: "/home/u/proj".into(), home: Some("/home/u".into()), tmpdir: None, ..Default::default() };
    Context::plain(
        layout,
        Environ::from_pairs([("HOME", "/home/u"), ("PATH", "/usr/local/bin:/usr/bin:/bin"), ("USER", "u")]),
    )
}

pub fn analyze(program: &str) -> Analysis {
    analysis::analyze(program.as_bytes(), TextKind::Command, &table_context())
}

pub fn required(program: &str) -> String {
    let a = analyze(program);
    match &a.failure {
        Some(f) => format!("failure: {f}"),
        None => a.required().to_string(),
    }
}

pub mod scripts;
pub mod stack;

/// A small deterministic generator (xorshift), so generated inputs are the same on every run.
pub struct Rng(pub u64);

/// A seed for generated tests: `fixed` (so that CI is the same run each time), or
/// `SANDBOX_BASH_SEED` (decimal or `0x` hex) to repeat another run, or `random` for a new one.
pub fn seed(fixed: u64) -> u64 {
    let seed = match std::env::var("SANDBOX_BASH_SEED").as_deref() {
        Ok("random") => {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            now.as_nanos() as u64 ^ u64::from(std::process::id()).rotate_left(32)
        }
        Ok(s) => match s.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).unwrap_or(fixed),
            None => s.parse().unwrap_or(fixed),
        },
        Err(_) => fixed,
    };
    // xorshift never leaves zero.
    seed.max(1)
}

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

/// Whether `line` is one the processes outside tell of a refusal they saw while the command
/// ran, their summary at its end, or the request hint after it.
pub fn told_line(line: &str) -> bool {
    (line.starts_with("sandbox-bash: denied:")
        && (line.contains("; held by ") || line.ends_with("(held by the network proxy)")))
        || line.starts_with("sandbox-bash: the rules refused ")
        || line.starts_with("sandbox-bash: the network proxy refused ")
        || line.starts_with("sandbox-bash: request: to run this once with more access")
}

/// `stderr` without the told lines (see [`told_line`]): what bash alone would have printed.
pub fn untold(stderr: &str) -> String {
    stderr.split_inclusive('\n').filter(|l| !told_line(l.trim_end_matches('\n'))).collect()
}
