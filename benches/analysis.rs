//! Analysis speed on real scripts: the shell scripts of this machine, concatenated to 1,000,
//! 10,000 and 100,000 lines. Prints the median of repeated runs for each size and the time
//! per 1,000 lines, so growth can be compared across sizes. Target: 10,000 lines in at most
//! 50 ms, and linear growth.
//!
//! Each measurement runs in a process of its own, as the binary analyses one program per
//! process: memory is new to it (page faults included) and nothing is left from earlier runs.
//! The time is taken inside that process, around the analysis alone.
//!
//! Run with `cargo bench --bench analysis`. `SANDBOX_BENCH_WRITE=DIR` keeps the three scripts
//! in DIR (for measuring peak memory of `--sandbox-explain` on them).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use sandbox_bash::analysis::{self, Context, TextKind};
use sandbox_bash::scope::Layout;

#[allow(dead_code)]
#[path = "../tests/it/common/scripts.rs"]
mod scripts;
#[path = "../tests/it/common/stack.rs"]
mod stack;

use stack::on_big_stack;

/// The machine's scripts, without /etc (configuration fragments are small and many).
fn machine_scripts() -> Vec<PathBuf> {
    scripts::machine_scripts().into_iter().filter(|p| !p.starts_with("/etc")).collect()
}

fn context() -> Context {
    let cwd = std::env::current_dir().unwrap().to_string_lossy().into_owned();
    let layout = Layout { workspace: cwd, home: std::env::var("HOME").ok(), tmpdir: None, ..Default::default() };
    Context { arg0: "bench.sh".into(), ..Context::plain(layout, sandbox_bash::environ::Environ::current()) }
}

/// Whole scripts (each one analysable on its own) concatenated until `lines` lines.
fn corpus(pieces: &[String], lines: usize) -> (String, usize) {
    let mut text = String::new();
    let mut count = 0;
    'outer: loop {
        for p in pieces {
            text.push_str(p);
            if !p.ends_with('\n') {
                text.push('\n');
            }
            count += p.lines().count();
            if count >= lines {
                break 'outer;
            }
        }
    }
    (text, count)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// What one measurement runs.
#[derive(Clone, Copy)]
enum Job {
    /// `analysis::analyze`, as the binary calls it.
    Analyze,
    /// brush-parser alone on the whole text.
    Parse,
}

impl Job {
    const ALL: [Job; 2] = [Job::Analyze, Job::Parse];

    fn name(self) -> &'static str {
        match self {
            Job::Analyze => "analyze",
            Job::Parse => "parse",
        }
    }

    /// Runs the job once on `text`, in this process, and returns how long it took.
    fn run(self, text: &str, ctx: &Context) -> Duration {
        let t = Instant::now();
        match self {
            Job::Analyze => {
                std::hint::black_box(analysis::analyze(text.as_bytes(), TextKind::Script, ctx));
            }
            Job::Parse => {
                on_big_stack(|| {
                    let options = brush_parser::ParserOptions::default();
                    let mut parser = brush_parser::Parser::new(std::io::Cursor::new(text.as_bytes()), &options);
                    std::hint::black_box(parser.parse_program().is_ok())
                });
            }
        }
        t.elapsed()
    }

    /// Runs the job once in a new process (this benchmark, started again), as the binary runs
    /// one analysis per process: with memory that is new to the process, and none left over
    /// from the runs before.
    fn run_fresh(self, script: &std::path::Path) -> Duration {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--one", self.name()])
            .arg(script)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let nanos: u64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
        Duration::from_nanos(nanos)
    }
}

fn main() {
    let ctx = context();
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--one") {
        // One measurement, for `run_fresh`.
        let job = Job::ALL.into_iter().find(|j| j.name() == args[i + 1]).unwrap();
        let text = std::fs::read_to_string(&args[i + 2]).unwrap();
        println!("{}", job.run(&text, &ctx).as_nanos());
        return;
    }
    let pieces: Vec<String> = machine_scripts()
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .filter(|text| analysis::analyze(text.as_bytes(), TextKind::Script, &ctx).failure.is_none())
        .collect();
    assert!(!pieces.is_empty(), "no analysable shell scripts on this machine");
    let total: usize = pieces.iter().map(|p| p.lines().count()).sum();
    println!("corpus: {} scripts of this machine, {total} lines; repeated as needed", pieces.len());
    println!("each figure: the median of runs in new processes, the two kinds alternating run by run");
    let dir = match std::env::var_os("SANDBOX_BENCH_WRITE") {
        Some(dir) => PathBuf::from(dir),
        None => std::env::temp_dir().join(format!("sandbox-bash-bench-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir).unwrap();
    let mut per_k = Vec::new();
    for (target, runs) in [(1_000, 31), (10_000, 21), (100_000, 7)] {
        let (text, lines) = corpus(&pieces, target);
        let script = dir.join(format!("script-{target}.sh"));
        std::fs::write(&script, &text).unwrap();
        let first = analysis::analyze(text.as_bytes(), TextKind::Script, &ctx);
        if let Some(f) = &first.failure {
            println!("{lines:>7} lines: the concatenation cannot be analysed: {f}");
            continue;
        }
        // The measurements alternate run by run, so a change in the machine's speed during
        // the benchmark falls on all of them alike.
        let mut times: [Vec<Duration>; 2] = Default::default();
        for _ in 0..runs {
            for (i, job) in Job::ALL.into_iter().enumerate() {
                times[i].push(job.run_fresh(&script));
            }
        }
        let [m, parse_only] = times.map(median);
        let k = m.as_secs_f64() * 1000.0 / (lines as f64 / 1000.0);
        per_k.push(k);
        println!(
            "{lines:>7} lines ({} bytes, {} commands): median {:>8.2} ms over {runs} runs, {k:.3} ms per 1,000 lines \
             (the parser alone: {:.2} ms)",
            text.len(),
            first.commands.len(),
            m.as_secs_f64() * 1000.0,
            parse_only.as_secs_f64() * 1000.0
        );
    }
    if std::env::var_os("SANDBOX_BENCH_WRITE").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    if per_k.len() == 3 {
        println!(
            "growth: time per line at 100,000 lines is {:.2}x that at 1,000 lines (1.00 = linear)",
            per_k[2] / per_k[0]
        );
    }
}
