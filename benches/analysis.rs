//! Analysis speed on real scripts: the shell scripts of this machine, concatenated to 1,000,
//! 10,000 and 100,000 lines. Prints the median of repeated runs for each size and the time
//! per 1,000 lines, so growth can be compared across sizes. Target: 10,000 lines in at most
//! 50 ms, and linear growth.
//!
//! Run with `cargo bench --bench analysis`. `SANDBOX_BENCH_WRITE=DIR` also writes the three
//! scripts to DIR (for measuring peak memory of `--sandbox-explain` on them).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use sandbox_bash::analysis::{self, Context, TextKind};
use sandbox_bash::scope::Layout;

// The allocator the binary uses, so the figures are the binary's.
#[global_allocator]
static ALLOCATOR: sandbox_bash::arena::Arena = sandbox_bash::arena::Arena;

#[path = "../tests/common/scripts.rs"]
mod scripts;

/// The machine's scripts, without /etc (configuration fragments are small and many).
fn machine_scripts() -> Vec<PathBuf> {
    scripts::machine_scripts().into_iter().filter(|p| !p.starts_with("/etc")).collect()
}

fn context() -> Context {
    let cwd = std::env::current_dir().unwrap().to_string_lossy().into_owned();
    Context {
        cwd: cwd.clone(),
        layout: Layout { workspace: cwd, home: std::env::var("HOME").ok(), tmpdir: None, ..Default::default() },
        env: std::env::vars().collect(),
        arg0: "bench.sh".into(),
        args: Vec::new(),
        program_dirs: vec!["/usr/bin".into(), "/bin".into(), "/usr/sbin".into(), "/sbin".into()],
        bash_env: None,
        script_path: None,
        self_exe: None,
    }
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

/// Runs `f` on a thread with the analysis thread's stack (the measured time is `f`'s own).
fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new().stack_size(256 << 20).spawn_scoped(s, f).unwrap().join().unwrap()
    })
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let ctx = context();
    let pieces: Vec<String> = machine_scripts()
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .filter(|text| analysis::analyze(text.as_bytes(), TextKind::Script, &ctx).failure.is_none())
        .collect();
    assert!(!pieces.is_empty(), "no analysable shell scripts on this machine");
    let total: usize = pieces.iter().map(|p| p.lines().count()).sum();
    println!("corpus: {} scripts of this machine, {total} lines; repeated as needed", pieces.len());
    let write_dir = std::env::var_os("SANDBOX_BENCH_WRITE").map(PathBuf::from);
    let mut per_k = Vec::new();
    for (target, runs) in [(1_000, 31), (10_000, 21), (100_000, 7)] {
        let (text, lines) = corpus(&pieces, target);
        if let Some(dir) = &write_dir {
            std::fs::write(dir.join(format!("script-{target}.sh")), &text).unwrap();
        }
        let first = analysis::analyze(text.as_bytes(), TextKind::Script, &ctx);
        if let Some(f) = &first.failure {
            println!("{lines:>7} lines: the concatenation cannot be analysed: {f}");
            continue;
        }
        // The three measurements alternate run by run, so a change in the machine's speed
        // during the benchmark falls on all of them alike.
        let (mut times, mut whole_times, mut parse_times) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            let t = Instant::now();
            std::hint::black_box(analysis::analyze(text.as_bytes(), TextKind::Script, &ctx));
            times.push(t.elapsed());
            // The same analysis with the whole text parsed before the walk starts (what
            // `analyze` does for short programs), for comparison with the pieces parsed
            // beside the walk.
            whole_times.push(on_big_stack(|| {
                let t = Instant::now();
                std::hint::black_box(analysis::analyze_program_whole(&text, TextKind::Script, &ctx));
                t.elapsed()
            }));
            // The parser alone: what any analysis on brush-parser pays.
            parse_times.push(on_big_stack(|| {
                let t = Instant::now();
                let options = brush_parser::ParserOptions::default();
                let mut parser = brush_parser::Parser::new(std::io::Cursor::new(text.as_bytes()), &options);
                std::hint::black_box(parser.parse_program().is_ok());
                t.elapsed()
            }));
        }
        let m = median(times);
        let whole = median(whole_times);
        let parse_only = median(parse_times);
        let k = m.as_secs_f64() * 1000.0 / (lines as f64 / 1000.0);
        per_k.push(k);
        println!(
            "{lines:>7} lines ({} bytes, {} commands): median {:>8.2} ms over {runs} runs, {k:.3} ms per 1,000 lines \
             (whole text parsed first: {:.2} ms; the parser alone: {:.2} ms)",
            text.len(),
            first.commands.len(),
            m.as_secs_f64() * 1000.0,
            whole.as_secs_f64() * 1000.0,
            parse_only.as_secs_f64() * 1000.0
        );
    }
    if per_k.len() == 3 {
        println!(
            "growth: time per line at 100,000 lines is {:.2}x that at 1,000 lines (1.00 = linear)",
            per_k[2] / per_k[0]
        );
    }
}
